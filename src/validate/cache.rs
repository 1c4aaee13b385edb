//! Compiled validators cached by side and schema text, so a schema is compiled once however
//! many objects carry it; the oldest goes when the cache is full.

use super::{CompileError, Side, Validator};
use crate::json::parse_with_lone_surrogates;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, LazyLock, Mutex};

/// Enough for every schema of a large pack, a few edits over (the TypeScript cache's size).
/// `lib/validate.js` keeps its own cache of the JS objects at the same size.
pub const MAX_CACHED: usize = 512;

/// A compiled schema and whether its text held a lone surrogate (compiled as a stand-in).
pub type Compiled = (Arc<Validator>, bool);

/// Why a schema's text gave no validator.
#[derive(Debug)]
pub enum CacheError {
    /// The text is not JSON (the parser's words).
    NotJson(String),
    /// Ajv refuses the schema; `stand_ins`: its text held a lone surrogate.
    Refused {
        error: CompileError,
        stand_ins: bool,
    },
}

/// A cache key: the side and the SHA-256 of the schema's JSON text (the text itself would make
/// the cache as large as every schema it holds).
type CacheKey = (bool, [u8; 32]);

struct Cache {
    by_key: HashMap<CacheKey, Compiled>,
    order: VecDeque<CacheKey>,
}

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| {
    Mutex::new(Cache {
        by_key: HashMap::new(),
        order: VecDeque::new(),
    })
});

/// The validator for a schema given as JSON text (lone surrogates as `JSON.stringify` writes
/// them), compiled once.
pub fn compile_cached(schema_json: &str, side: Side) -> Result<Compiled, CacheError> {
    use sha2::{Digest, Sha256};
    let key: CacheKey = (
        side == Side::Input,
        Sha256::digest(schema_json.as_bytes()).into(),
    );
    if let Ok(cache) = CACHE.lock() {
        if let Some(found) = cache.by_key.get(&key) {
            return Ok(found.clone());
        }
    }
    // A lone surrogate (`"\ud800"`, as JSON.stringify writes one) is a string Ajv compiles.
    let (schema, stand_ins) = parse_with_lone_surrogates(schema_json);
    let schema: Value = schema.map_err(|e| CacheError::NotJson(e.to_string()))?;
    let validator = Arc::new(
        Validator::compile(&schema, side)
            .map_err(|error| CacheError::Refused { error, stand_ins })?,
    );
    if let Ok(mut cache) = CACHE.lock() {
        if cache.order.len() >= MAX_CACHED {
            if let Some(oldest) = cache.order.pop_front() {
                cache.by_key.remove(&oldest);
            }
        }
        cache.order.push_back(key);
        cache.by_key.insert(key, (validator.clone(), stand_ins));
    }
    Ok((validator, stand_ins))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_schema_text_is_compiled_once_per_side() {
        let text = r#"{"type":"string","$comment":"cache test one"}"#;
        let (first, _) = compile_cached(text, Side::Output).expect("compiles");
        let (again, _) = compile_cached(text, Side::Output).expect("compiles");
        assert!(Arc::ptr_eq(&first, &again));
        let (input, _) = compile_cached(text, Side::Input).expect("compiles");
        assert!(!Arc::ptr_eq(&first, &input));
    }

    #[test]
    fn the_oldest_goes_past_the_limit() {
        let text =
            |i: usize| format!(r#"{{"type":"string","$comment":"cache test eviction {i}"}}"#);
        let (oldest, _) = compile_cached(&text(0), Side::Output).expect("compiles");
        for i in 1..=MAX_CACHED {
            compile_cached(&text(i), Side::Output).expect("compiles");
        }
        let (again, _) = compile_cached(&text(0), Side::Output).expect("compiles");
        assert!(
            !Arc::ptr_eq(&oldest, &again),
            "compiled anew after it was evicted"
        );
    }

    #[test]
    fn refusals_and_bad_text_say_why() {
        assert!(matches!(
            compile_cached("{", Side::Output),
            Err(CacheError::NotJson(_))
        ));
        match compile_cached(r#"{"type":"strin"}"#, Side::Output) {
            Err(CacheError::Refused { error, stand_ins }) => {
                assert!(!stand_ins);
                assert!(error.message.contains("type"), "{}", error.message);
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}
