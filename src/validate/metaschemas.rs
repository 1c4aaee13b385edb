//! The 2020-12 meta-schema and its vocabularies (the documents in `meta/`), which Ajv knows by
//! their `$id`s, validates every schema against, and lets a schema `$ref`.

use serde_json::Value;
use std::sync::LazyLock;

/// The meta-schemas Ajv 2020 knows (a `$schema` naming another is refused).
pub const KNOWN_META_SCHEMAS: &[&str] = &[
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/meta/core",
    "https://json-schema.org/draft/2020-12/meta/applicator",
    "https://json-schema.org/draft/2020-12/meta/unevaluated",
    "https://json-schema.org/draft/2020-12/meta/validation",
    "https://json-schema.org/draft/2020-12/meta/meta-data",
    "https://json-schema.org/draft/2020-12/meta/format-annotation",
    "https://json-schema.org/draft/2020-12/meta/content",
];

/// The 2020-12 meta-schema and its vocabularies, which Ajv validates every schema against and
/// which a schema may `$ref`.
const META_DOCUMENTS: [&str; 8] = [
    include_str!("meta/schema.json"),
    include_str!("meta/core.json"),
    include_str!("meta/applicator.json"),
    include_str!("meta/unevaluated.json"),
    include_str!("meta/validation.json"),
    include_str!("meta/meta-data.json"),
    include_str!("meta/format-annotation.json"),
    include_str!("meta/content.json"),
];

pub static META_VALUES: LazyLock<Vec<Value>> = LazyLock::new(|| {
    META_DOCUMENTS
        .iter()
        .filter_map(|text| serde_json::from_str(text).ok())
        .collect()
});

/// Whether `document` is one of the meta-schema documents.
pub fn is_meta_document(document: *const Value) -> bool {
    META_VALUES.iter().any(|m| std::ptr::eq(m, document))
}
