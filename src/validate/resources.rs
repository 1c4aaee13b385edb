//! `$id` and anchor resources, and how a `$ref` finds its target: Ajv's `getSchemaRefs`, URI
//! resolution as `fast-uri` does it (in `uri.rs`), and JSON pointers into a document.

use super::error::CompileError;
use super::value;
use serde_json::Value;
use std::collections::HashMap;

/// The schema resources (`$id`s) and anchors of a document, by absolute URI.
pub struct Resources<'s> {
    /// Target schema and its base URI, by absolute URI.
    pub by_uri: HashMap<String, (&'s Value, String)>,
    /// The document each resource belongs to (its root), by the resource's base URI.
    pub root_base: String,
}

pub fn collect_resources<'s>(
    schema: &'s Value,
    extra: &'s [Value],
) -> Result<Resources<'s>, CompileError> {
    let mut by_uri = HashMap::new();
    // Meta-schemas first: the document's own resources win on a clash.
    for document in extra {
        if std::ptr::eq(document, schema) {
            continue;
        }
        let base = document
            .get("$id")
            .and_then(Value::as_str)
            .map(normalize_id)
            .unwrap_or_default();
        by_uri.insert(base.clone(), (document, base.clone()));
        walk_resources(document, &base, &mut by_uri, true)?;
    }
    let root_base = match schema.get("$id").and_then(Value::as_str) {
        Some(id) => normalize_id(&resolve_uri("", id)),
        None => String::new(),
    };
    by_uri.insert(root_base.clone(), (schema, root_base.clone()));
    walk_resources(schema, &root_base, &mut by_uri, true)?;
    Ok(Resources { by_uri, root_base })
}

/// Keywords whose values `json-schema-traverse` does not treat as schemas.
const NOT_SCHEMA_KEYWORDS: &[&str] = &[
    "default",
    "enum",
    "const",
    "required",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "multipleOf",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
];

/// Keywords holding an array of schemas.
const SCHEMA_ARRAY_KEYWORDS: &[&str] = &["items", "allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords holding a map of schemas.
const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "$defs",
    "definitions",
    "properties",
    "patternProperties",
    "dependencies",
    "dependentSchemas",
];

/// Ajv's `getSchemaRefs`: every `$id` and anchor, by absolute URI, over every key (unknown
/// keywords included); an id or anchor that names two different schemas is refused.
fn walk_resources<'s>(
    schema: &'s Value,
    base: &str,
    by_uri: &mut HashMap<String, (&'s Value, String)>,
    is_root: bool,
) -> Result<(), CompileError> {
    let Value::Object(map) = schema else {
        return Ok(());
    };
    let mut base = base.to_owned();
    let register = |uri: String, base: &str, by_uri: &mut HashMap<String, (&'s Value, String)>| {
        if let Some((existing, _)) = by_uri.get(&uri) {
            if !std::ptr::eq(*existing, schema) && !value::deep_equal(existing, schema) {
                return Err(CompileError::error(format!(
                    "reference \"{uri}\" resolves to more than one schema"
                )));
            }
        }
        by_uri.insert(uri, (schema, base.to_owned()));
        Ok(())
    };
    if !is_root {
        if let Some(id) = map.get("$id").and_then(Value::as_str) {
            base = normalize_id(&resolve_uri(&base, id));
            register(base.clone(), &base.clone(), by_uri)?;
        }
    }
    for anchor_key in ["$anchor", "$dynamicAnchor"] {
        if let Some(anchor) = map.get(anchor_key).and_then(Value::as_str) {
            let valid = anchor
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && anchor
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
            if !valid {
                return Err(CompileError::error(format!("invalid anchor \"{anchor}\"")));
            }
            register(format!("{base}#{anchor}"), &base.clone(), by_uri)?;
        }
    }
    for (key, value) in map {
        if NOT_SCHEMA_KEYWORDS.contains(&key.as_str()) {
            continue;
        }
        match value {
            Value::Array(items) if SCHEMA_ARRAY_KEYWORDS.contains(&key.as_str()) => {
                for item in items {
                    walk_resources(item, &base, by_uri, false)?;
                }
            }
            Value::Object(members) if SCHEMA_MAP_KEYWORDS.contains(&key.as_str()) => {
                for member in members.values() {
                    walk_resources(member, &base, by_uri, false)?;
                }
            }
            Value::Object(_) => walk_resources(value, &base, by_uri, false)?,
            _ => {}
        }
    }
    Ok(())
}

/// `#` and a trailing empty fragment dropped, as Ajv's `normalizeId` does.
pub fn normalize_id(id: &str) -> String {
    id.strip_suffix('#').unwrap_or(id).to_owned()
}

/// `$id` and `$ref` resolution, as Ajv's `fast-uri` resolves them.
pub fn resolve_uri(base: &str, reference: &str) -> String {
    super::uri::resolve(base, reference)
}

/// Whether a schema holds a reference or a dynamic anchor anywhere (Ajv's `inlineRef` with
/// the default limit, over its `REF_KEYWORDS`).
pub fn has_ref(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(k, v)| {
            matches!(
                k.as_str(),
                "$ref" | "$dynamicRef" | "$recursiveRef" | "$dynamicAnchor" | "$recursiveAnchor"
            ) || (!matches!(k.as_str(), "const" | "enum" | "default" | "examples") && has_ref(v))
        }),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

pub fn json_pointer_get<'s>(root: &'s Value, pointer: &str) -> Option<&'s Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let mut current = root;
    for raw in pointer.strip_prefix('/')?.split('/') {
        let decoded = percent_decode(raw)?;
        let segment = decoded.replace("~1", "/").replace("~0", "~");
        current = match current {
            Value::Object(map) => map.get(&segment)?,
            Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Whether `needle` is `haystack` or inside it.
pub fn contains_ptr(haystack: &Value, needle: &Value) -> bool {
    if std::ptr::eq(haystack, needle) {
        return true;
    }
    match haystack {
        Value::Object(map) => map.values().any(|v| contains_ptr(v, needle)),
        Value::Array(items) => items.iter().any(|v| contains_ptr(v, needle)),
        _ => false,
    }
}
