//! The value being validated, as the validator reads it: `serde_json` values (what the JS
//! layer hands over as JSON text, marked) or the borrowed tree the pack service reads a
//! request body into (`json::Borrowed`), which costs no allocation per string or key.
//! The validator is written once over this trait; both forms answer the same, except that
//! only the JS layer's values carry markers (`value::MARKER_KEY`).

use super::value;
use crate::js::for_in_order;
use crate::json::{member, member_mut, Borrowed};
use serde_json::Value;
use std::borrow::Cow;

pub trait Instance: Sized {
    /// The tag of a marker (`undefined`, `NaN`, `throws`, …), when this is one.
    fn marker(&self) -> Option<&str>;
    fn is_null(&self) -> bool;
    fn as_bool(&self) -> Option<bool>;
    /// A number, as the double JavaScript holds.
    fn as_f64(&self) -> Option<f64>;
    fn as_str(&self) -> Option<&str>;
    fn is_object(&self) -> bool;
    fn items(&self) -> Option<&[Self]>;
    fn items_mut(&mut self) -> Option<&mut [Self]>;
    /// An object's member count.
    fn members_len(&self) -> Option<usize>;
    /// An object's keys, in the object's order.
    fn keys(&self) -> Vec<&str>;
    fn get(&self, name: &str) -> Option<&Self>;
    fn get_mut(&mut self, name: &str) -> Option<&mut Self>;
    /// Sets member `key` of an object to a default from the schema.
    fn insert_default(&mut self, key: &str, value: &Value);
    /// A string value (a property name, as `propertyNames` judges it).
    fn from_key(key: &str) -> Self;
    /// The value as `serde_json` holds it.
    fn to_value(&self) -> Value;
    /// This value as a `serde_json` value, when it is one (reading markers that throw needs
    /// the marked form, which only the JS layer's values carry).
    fn as_value(&self) -> Option<&Value>;

    /// An object's keys in JavaScript's `for-in` order (array indices first, ascending).
    fn for_in_keys(&self) -> Vec<&str> {
        for_in_order(self.keys())
    }

    /// `fast-deep-equal(this, other)` on JSON values (numbers compared as doubles).
    fn equals(&self, other: &Value) -> bool;

    /// `fast-deep-equal` of two values of this form.
    fn same_as(&self, other: &Self) -> bool;
}

impl Instance for Value {
    fn marker(&self) -> Option<&str> {
        value::marker(self)
    }

    fn is_null(&self) -> bool {
        Value::is_null(self)
    }

    fn as_bool(&self) -> Option<bool> {
        Value::as_bool(self)
    }

    fn as_f64(&self) -> Option<f64> {
        Value::as_f64(self)
    }

    fn as_str(&self) -> Option<&str> {
        Value::as_str(self)
    }

    fn is_object(&self) -> bool {
        Value::is_object(self)
    }

    fn items(&self) -> Option<&[Value]> {
        self.as_array().map(Vec::as_slice)
    }

    fn items_mut(&mut self) -> Option<&mut [Value]> {
        self.as_array_mut().map(Vec::as_mut_slice)
    }

    fn members_len(&self) -> Option<usize> {
        self.as_object().map(|map| map.len())
    }

    fn keys(&self) -> Vec<&str> {
        match self {
            Value::Object(map) => map.keys().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }

    fn get(&self, name: &str) -> Option<&Value> {
        member(self.as_object()?, name)
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        member_mut(self.as_object_mut()?, name)
    }

    fn insert_default(&mut self, key: &str, value: &Value) {
        if let Value::Object(map) = self {
            map.insert(key.to_owned(), value.clone());
        }
    }

    fn from_key(key: &str) -> Value {
        Value::String(key.to_owned())
    }

    fn to_value(&self) -> Value {
        self.clone()
    }

    fn as_value(&self) -> Option<&Value> {
        Some(self)
    }

    fn equals(&self, other: &Value) -> bool {
        value::deep_equal(self, other)
    }

    fn same_as(&self, other: &Value) -> bool {
        value::deep_equal(self, other)
    }
}

impl Instance for Borrowed<'_> {
    /// None: only the JS layer writes markers, and a request body is the caller's JSON, in
    /// which a `"\u0000js"` member is a member like any other (as Ajv reads it).
    fn marker(&self) -> Option<&str> {
        None
    }

    fn is_null(&self) -> bool {
        matches!(self, Borrowed::Null)
    }

    fn as_bool(&self) -> Option<bool> {
        match self {
            Borrowed::Bool(b) => Some(*b),
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Borrowed::Number(n) => Some(value::number(n)),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Borrowed::String(s) => Some(s),
            _ => None,
        }
    }

    fn is_object(&self) -> bool {
        matches!(self, Borrowed::Object(_))
    }

    fn items(&self) -> Option<&[Self]> {
        match self {
            Borrowed::Array(items) => Some(items),
            _ => None,
        }
    }

    fn items_mut(&mut self) -> Option<&mut [Self]> {
        match self {
            Borrowed::Array(items) => Some(items),
            _ => None,
        }
    }

    fn members_len(&self) -> Option<usize> {
        match self {
            Borrowed::Object(members) => Some(members.len()),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        match self {
            Borrowed::Object(members) => members.iter().map(|(k, _)| k.as_ref()).collect(),
            _ => Vec::new(),
        }
    }

    fn get(&self, name: &str) -> Option<&Self> {
        self.member(name)
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut Self> {
        self.member_mut(name)
    }

    fn insert_default(&mut self, key: &str, value: &Value) {
        if let Borrowed::Object(members) = self {
            let value = Borrowed::from_value(value);
            match members.iter_mut().find(|(k, _)| k == key) {
                Some((_, held)) => *held = value,
                None => {
                    let mut grown = std::mem::take(members).into_vec();
                    grown.push((Cow::Owned(key.to_owned()), value));
                    *members = grown.into_boxed_slice();
                }
            }
        }
    }

    fn from_key(key: &str) -> Self {
        Borrowed::String(Cow::Owned(key.to_owned()))
    }

    fn to_value(&self) -> Value {
        Borrowed::to_value(self)
    }

    fn as_value(&self) -> Option<&Value> {
        None
    }

    fn equals(&self, other: &Value) -> bool {
        match (self, other) {
            (Borrowed::Null, Value::Null) => true,
            (Borrowed::Bool(a), Value::Bool(b)) => a == b,
            (Borrowed::Number(x), Value::Number(y)) => value::number(x) == value::number(y),
            (Borrowed::String(a), Value::String(b)) => a == b,
            (Borrowed::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.equals(q))
            }
            (Borrowed::Object(x), Value::Object(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| member(y, k).is_some_and(|w| v.equals(w)))
            }
            _ => false,
        }
    }

    fn same_as(&self, other: &Self) -> bool {
        match (self, other) {
            (Borrowed::Number(x), Borrowed::Number(y)) => value::number(x) == value::number(y),
            (Borrowed::Array(x), Borrowed::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.same_as(q))
            }
            (Borrowed::Object(x), Borrowed::Object(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| other.get(k).is_some_and(|w| v.same_as(w)))
            }
            _ => self == other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_borrowed;
    use serde_json::json;

    #[test]
    fn only_the_js_layer_s_values_carry_markers() {
        let text = r#"{"\u0000js":"undefined"}"#;
        let marked: Value = serde_json::from_str(text).unwrap_or_default();
        assert_eq!(Instance::marker(&marked), Some("undefined"));
        let body = parse_borrowed(text).expect("JSON");
        assert_eq!(Instance::marker(&body), None);
        assert!(Instance::is_object(&body));
    }

    #[test]
    fn both_forms_compare_as_fast_deep_equal() {
        let body = parse_borrowed(r#"{"b":[1,2.0,{"c":null}],"a":"x"}"#).expect("JSON");
        assert!(body.equals(&json!({"a": "x", "b": [1.0, 2, {"c": null}]})));
        assert!(!body.equals(&json!({"a": "x", "b": [1, 2]})));
        let same = parse_borrowed(r#"{"a":"x","b":[1.0,2,{"c":null}]}"#).expect("JSON");
        assert!(body.same_as(&same));
        assert_eq!(body.for_in_keys(), ["b", "a"]);
    }
}
