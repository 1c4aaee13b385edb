//! JavaScript objects: the order their keys enumerate in (array-index keys first, in numeric
//! order), and the names every object answers for through `Object.prototype`.

use serde_json::{Map, Value};

/// The numeric value of an "array index" key (`0`, or no leading zero, up to 2^32 − 2), which
/// JavaScript objects enumerate before every other key.
pub fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    let valid = match bytes {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.len() <= 9 && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !valid {
        return None;
    }
    let value: u64 = key.parse().ok()?;
    (value <= u64::from(u32::MAX - 1)).then_some(value as u32)
}

/// The names `Object.prototype` answers for: `data[name] !== undefined` holds for them on every
/// object, which is how Ajv's `properties` and `required` see them.
const OBJECT_PROTOTYPE_NAMES: [&str; 12] = [
    "constructor",
    "__defineGetter__",
    "__defineSetter__",
    "hasOwnProperty",
    "__lookupGetter__",
    "__lookupSetter__",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toString",
    "valueOf",
    "__proto__",
    "toLocaleString",
];

/// Whether `data[name]` finds something on `Object.prototype` when the object has no own `name`.
pub fn is_object_prototype_name(name: &str) -> bool {
    OBJECT_PROTOTYPE_NAMES.contains(&name)
}

/// An object's keys in `for…in` order: array-index keys ascending, then the rest in insertion
/// order.
pub fn for_in_keys(map: &Map<String, Value>) -> Vec<&String> {
    for_in_order(map.keys().collect())
}

/// The `for…in` order of an object whose keys, in its order, are `keys`.
pub fn for_in_order<K: AsRef<str>>(keys: Vec<K>) -> Vec<K> {
    if keys.iter().all(|k| array_index(k.as_ref()).is_none()) {
        return keys;
    }
    let (mut indexed, named): (Vec<K>, Vec<K>) = keys
        .into_iter()
        .partition(|k| array_index(k.as_ref()).is_some());
    indexed.sort_by_key(|k| array_index(k.as_ref()));
    indexed.extend(named);
    indexed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn array_index_keys() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("10"), Some(10));
        assert_eq!(array_index("4294967294"), Some(4_294_967_294));
        assert_eq!(array_index("4294967295"), None);
        assert_eq!(array_index("01"), None);
        assert_eq!(array_index("-1"), None);
        assert_eq!(array_index("1.0"), None);
        assert_eq!(array_index(""), None);
        assert_eq!(array_index("99999999999"), None);
    }
    #[test]
    fn keys_in_for_in_order() {
        let value = json!({"b": 1, "10": 2, "a": 3, "2": 4});
        let Value::Object(map) = value else {
            unreachable!()
        };
        assert_eq!(for_in_keys(&map), ["2", "10", "b", "a"]);
        assert_eq!(
            for_in_order(vec!["b", "10", "a", "2"]),
            ["2", "10", "b", "a"]
        );
        assert_eq!(for_in_order(vec!["b", "a"]), ["b", "a"]);
    }

    #[test]
    fn prototype_names() {
        assert!(is_object_prototype_name("toString"));
        assert!(is_object_prototype_name("__proto__"));
        assert!(!is_object_prototype_name("a"));
    }
}
