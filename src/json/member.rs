//! Reading one member of a parsed object. `serde_json`'s map hashes every key looked up with
//! SipHash, which costs more than comparing a few short keys; the objects a call carries (its
//! message, `tool`, `ctx`, most inputs) hold only a few members.

use serde_json::{Map, Value};

/// Objects up to this many members are searched key by key.
const SCAN_UP_TO: usize = 8;

/// `map.get(name)`.
pub fn member<'m>(map: &'m Map<String, Value>, name: &str) -> Option<&'m Value> {
    if map.len() <= SCAN_UP_TO {
        map.iter()
            .find_map(|(key, value)| (key == name).then_some(value))
    } else {
        map.get(name)
    }
}

/// `map.get_mut(name)`.
pub fn member_mut<'m>(map: &'m mut Map<String, Value>, name: &str) -> Option<&'m mut Value> {
    if map.len() <= SCAN_UP_TO {
        map.iter_mut()
            .find_map(|(key, value)| (key == name).then_some(value))
    } else {
        map.get_mut(name)
    }
}

/// `value[name]` when `value` is an object.
pub fn member_of<'v>(value: &'v Value, name: &str) -> Option<&'v Value> {
    member(value.as_object()?, name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_what_the_map_finds_at_every_size() {
        for size in [0, 1, 2, SCAN_UP_TO, SCAN_UP_TO + 1, 40] {
            let mut map = Map::new();
            for at in 0..size {
                map.insert(format!("k{at}"), json!(at));
            }
            for name in ["k0", "k7", "k8", "k39", "k40", "", "k"] {
                assert_eq!(member(&map, name), map.get(name), "{name} in {size}");
                let expected = map.get(name).cloned();
                assert_eq!(member_mut(&mut map, name).map(|v| v.clone()), expected);
            }
        }
        assert_eq!(member_of(&json!({"a": 1}), "a"), Some(&json!(1)));
        assert_eq!(member_of(&json!([1]), "0"), None);
    }
}
