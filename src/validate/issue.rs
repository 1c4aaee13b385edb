//! Ajv's error objects: `{instancePath, schemaPath, keyword, params, message}` in that key
//! order, plus `propertyName` for errors found while checking a property name.

use crate::json::{to_js_json, write_json_str};
use serde_json::{Map, Value};

/// One validation issue, as Ajv reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    pub instance_path: String,
    pub schema_path: String,
    pub keyword: &'static str,
    /// Keyword parameters in Ajv's key order.
    pub params: Map<String, Value>,
    pub message: String,
    /// Set for issues raised inside `propertyNames`: the property name checked.
    pub property_name: Option<String>,
}

impl Issue {
    /// The issue as `JSON.stringify` writes Ajv's error object.
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"instancePath\":");
        write_json_str(out, &self.instance_path);
        out.push_str(",\"schemaPath\":");
        write_json_str(out, &self.schema_path);
        out.push_str(",\"keyword\":");
        write_json_str(out, self.keyword);
        out.push_str(",\"params\":");
        out.push_str(&to_js_json(&Value::Object(self.params.clone())));
        out.push_str(",\"message\":");
        write_json_str(out, &self.message);
        if let Some(name) = &self.property_name {
            out.push_str(",\"propertyName\":");
            write_json_str(out, name);
        }
        out.push('}');
    }

    /// The issue as a JSON value, keys in Ajv's order.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert(
            "instancePath".into(),
            Value::String(self.instance_path.clone()),
        );
        map.insert("schemaPath".into(), Value::String(self.schema_path.clone()));
        map.insert("keyword".into(), Value::String(self.keyword.into()));
        map.insert("params".into(), Value::Object(self.params.clone()));
        map.insert("message".into(), Value::String(self.message.clone()));
        if let Some(name) = &self.property_name {
            map.insert("propertyName".into(), Value::String(name.clone()));
        }
        Value::Object(map)
    }
}

/// A JSON array of issues.
pub fn issues_json(issues: &[Issue]) -> String {
    let mut out = String::from("[");
    for (i, issue) in issues.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        issue.write_json(&mut out);
    }
    out.push(']');
    out
}

/// `params` built from pairs, in order.
pub fn params<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// Escapes a JSON pointer segment (`~` → `~0`, `/` → `~1`), as Ajv's instance paths do.
pub fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// `encodeURIComponent(escapeJsonPointer(segment))`: a schema path segment, as Ajv writes it.
pub fn escape_fragment(segment: &str) -> String {
    let escaped = escape_pointer(segment);
    let mut out = String::with_capacity(escaped.len());
    for b in escaped.bytes() {
        let unreserved = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')'
            );
        if unreserved {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_ajv_key_order() {
        let issue = Issue {
            instance_path: "/a~1b".into(),
            schema_path: "#/properties/a~1b/type".into(),
            keyword: "type",
            params: params([("type", json!("string"))]),
            message: "must be string".into(),
            property_name: None,
        };
        let mut out = String::new();
        issue.write_json(&mut out);
        assert_eq!(
            out,
            r##"{"instancePath":"/a~1b","schemaPath":"#/properties/a~1b/type","keyword":"type","params":{"type":"string"},"message":"must be string"}"##
        );
    }

    #[test]
    fn escapes_like_encode_uri_component() {
        assert_eq!(escape_fragment("a b/c~d"), "a%20b~1c~0d");
        assert_eq!(escape_fragment("^a.*$"), "%5Ea.*%24");
        assert_eq!(escape_fragment("é"), "%C3%A9");
        assert_eq!(escape_pointer("a/b~"), "a~1b~0");
    }
}
