//! JSON values as Ajv's generated code sees them: the markers the JS layer writes for what JSON
//! cannot hold, property lookup (with what `Object.prototype` answers), `fast-deep-equal`,
//! `ucs2length` and the `multipleOf` test. JavaScript's own rules are in `crate::js`.

use crate::js::{is_object_prototype_name, parse_int_of_number};
use crate::json::member;
use serde_json::{Map, Number, Value};

/// The key of a marker: how the JS layer writes a JavaScript value JSON has no form for
/// (`undefined`, `NaN`, `±Infinity`, a BigInt, a function, a symbol) when it hands a value over
/// for validation: `{"\u0000js": "undefined"}`.
pub const MARKER_KEY: &str = "\u{0}js";

/// The tag of a marker for a member or item whose reading threw in JavaScript (a getter): the
/// marker's other member says which (see `Validator::judge_marked`).
pub const THROWS: &str = "throws";

/// The tag of a marker (`undefined`, `NaN`, `bigint`, …), when `value` is one.
pub fn marker(value: &Value) -> Option<&str> {
    match value {
        Value::Object(map) if !map.is_empty() && map.len() <= 2 => {
            member(map, MARKER_KEY)?.as_str()
        }
        _ => None,
    }
}

/// What `data[name]` gives on an object parsed from JSON.
pub enum Lookup {
    Own,
    /// Inherited from `Object.prototype`: a function, or for `__proto__` the prototype object.
    Inherited,
    Missing,
}

pub fn lookup(map: &Map<String, Value>, name: &str) -> Lookup {
    lookup_marked(member(map, name).map(marker), name)
}

/// [`lookup`], given the marker tag of what the object holds at `name` (`Some(None)`: a
/// member that is no marker; `None`: no member).
pub fn lookup_marked(found: Option<Option<&str>>, name: &str) -> Lookup {
    match found {
        // A member holding `undefined` reads as absent (`data[name] !== undefined` fails).
        Some(Some("undefined")) => Lookup::Missing,
        Some(_) => Lookup::Own,
        None if is_object_prototype_name(name) => Lookup::Inherited,
        None => Lookup::Missing,
    }
}

/// Whether `data[name] !== undefined`.
pub fn has_property(map: &Map<String, Value>, name: &str) -> bool {
    !matches!(lookup(map, name), Lookup::Missing)
}

/// `fast-deep-equal` on JSON values (numbers compare as doubles, as JavaScript holds them).
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number(x) == number(y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| deep_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, w)))
        }
        _ => a == b,
    }
}

/// A JSON number as the double JavaScript holds.
pub fn number(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// `ucs2length`: a string's length counting a surrogate pair once, i.e. in code points.
pub fn ucs2_length(s: &str) -> usize {
    s.chars().count()
}

/// Ajv's `multipleOf` test (no `multipleOfPrecision`): `res = data / m; res !== parseInt(res)`
/// means not a multiple.
pub fn is_multiple_of(data: f64, divisor: f64) -> bool {
    if divisor == 0.0 {
        return false;
    }
    let res = data / divisor;
    res == parse_int_of_number(res)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn multiple_of_follows_javascript() {
        assert!(is_multiple_of(10.0, 2.0));
        assert!(!is_multiple_of(7.0, 2.0));
        assert!(!is_multiple_of(1e30, 1.0), "parseInt(1e30) is 1");
        assert!(is_multiple_of(0.0075, 0.0001));
        assert!(!is_multiple_of(0.3, 0.1), "0.3 / 0.1 is 2.9999999999999996");
    }

    #[test]
    fn prototype_names_are_present() {
        let Value::Object(map) = json!({"a": 1}) else {
            unreachable!()
        };
        assert!(has_property(&map, "toString"));
        assert!(has_property(&map, "a"));
        assert!(!has_property(&map, "b"));
    }
}
