//! Compact `JSON.stringify` of a `serde_json::Value` that came from JSON text.
//!
//! With serde_json's `preserve_order`, an object keeps its keys in first-insertion order, as
//! `JSON.parse` builds them; JavaScript then enumerates the array-index keys first.

use super::{array_index, write_js_number, write_json_str};
use serde_json::Value;

/// The text `JSON.stringify(value)` gives for the same value parsed by `JSON.parse`.
pub fn to_js_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// [`to_js_json`], appended to `out`.
pub fn write_js_json(out: &mut String, value: &Value) {
    write_value(out, value);
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_js_number(out, n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => write_json_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => write_members(out, map.iter().map(|(k, v)| (k.as_str(), v))),
    }
}

/// `JSON.stringify` of an object given as its members in insertion order: the array-index
/// keys first, ascending, as JavaScript enumerates them, then the others in order.
pub fn write_members<'a>(
    out: &mut String,
    members: impl Iterator<Item = (&'a str, &'a Value)> + Clone,
) {
    let mut indexed: Vec<(u32, &str, &Value)> = members
        .clone()
        .filter_map(|(k, v)| array_index(k).map(|i| (i, k, v)))
        .collect();
    indexed.sort_by_key(|(i, _, _)| *i);
    let named = members.filter(|(k, _)| array_index(k).is_none());
    out.push('{');
    let ordered = indexed.into_iter().map(|(_, k, v)| (k, v)).chain(named);
    for (i, (key, item)) in ordered.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_str(out, key);
        out.push(':');
        write_value(out, item);
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_like_json_stringify() {
        let value: Value =
            serde_json::from_str(r#"{"b":1.0,"10":2,"a":[1e21,-0,"x\u0000"],"2":null}"#).unwrap();
        assert_eq!(
            to_js_json(&value),
            r#"{"2":null,"10":2,"b":1,"a":[1e+21,0,"x\u0000"]}"#
        );
        assert_eq!(to_js_json(&json!("é")), "\"é\"");
        assert_eq!(to_js_json(&json!({})), "{}");
    }
}
