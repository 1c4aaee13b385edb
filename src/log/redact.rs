//! Redaction for the service's records, with `@kindgi/log`'s two rules: a field whose key
//! looks secret is replaced by `[redacted]` at any depth, and every string is scrubbed of
//! known secret shapes (Kindgi tokens, `Bearer …`, a URL's password).
//!
//! The shapes are JavaScript regular expressions in `@kindgi/log`; they run here in regress,
//! a JavaScript-compatible engine, so `\b`, `\s` and case folding mean what they mean there.

use regress::Regex;
use serde_json::Value;
use std::sync::OnceLock;

pub const REDACTED: &str = "[redacted]";

/// Nesting below this depth is written as `[too deep]`.
pub const MAX_REDACT_DEPTH: usize = 8;

const SECRET_KEY_ENDINGS: [&str; 12] = [
    "authorization",
    "cookie",
    "token",
    "password",
    "passwd",
    "secret",
    "secrets",
    "apikey",
    "privatekey",
    "passphrase",
    "credential",
    "credentials",
];

/// Whether a field's key looks secret: lowercased, without `-` and `_`, it ends with one of
/// the secret endings (`accessToken`, `x-api-key`; `tokenCount` stays).
pub fn is_secret_key(key: &str) -> bool {
    if key.is_ascii() {
        // The common case, without building the normalised key.
        let mut normal = key
            .bytes()
            .rev()
            .filter(|b| *b != b'-' && *b != b'_')
            .map(|b| b.to_ascii_lowercase());
        let mut tail = [0u8; 13];
        let mut len = 0;
        for byte in normal.by_ref().take(tail.len()) {
            tail[len] = byte;
            len += 1;
        }
        return SECRET_KEY_ENDINGS.iter().any(|end| {
            end.len() <= len && end.bytes().rev().zip(&tail[..len]).all(|(a, b)| a == *b)
        });
    }
    let normal: String = key
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_KEY_ENDINGS.iter().any(|end| normal.ends_with(end))
}

/// Whether `text` may hold a secret shape (`kgi_`, `://` or `bearer` in any case); most
/// strings are passed over on this alone, in one pass over their bytes.
fn may_hold_secret(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len())
        .filter_map(|at| bytes.get(at..))
        .any(|rest| match rest.first() {
            Some(b'k') => rest.starts_with(b"kgi_"),
            Some(b':') => rest.starts_with(b"://"),
            Some(b'b' | b'B') => rest
                .get(..6)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"bearer")),
            _ => false,
        })
}

struct Shapes {
    kindgi_token: Regex,
    bearer: Regex,
    url_password: Regex,
}

fn shapes() -> Option<&'static Shapes> {
    static SHAPES: OnceLock<Option<Shapes>> = OnceLock::new();
    SHAPES
        .get_or_init(|| {
            Some(Shapes {
                kindgi_token: Regex::new(r"\bkgi_([a-z]{2})_([A-Za-z0-9._~+/=-]+)").ok()?,
                bearer: Regex::with_flags(r#"\b(Bearer)\s+[^\s"',;]+"#, "i").ok()?,
                url_password: Regex::with_flags(
                    r"\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@",
                    "i",
                )
                .ok()?,
            })
        })
        .as_ref()
}

/// Every match of `regex` in `text` replaced by what `with` writes for it.
fn replace_all(text: &str, regex: &Regex, with: impl Fn(&regress::Match, &mut String)) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for found in regex.find_iter(text) {
        let range = found.range();
        out.push_str(&text[at..range.start]);
        with(&found, &mut out);
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A string with known secret shapes masked: a Kindgi token keeps its kind and, when its body
/// is 16 characters or longer, its last four; `Bearer x` becomes `Bearer [redacted]`;
/// `scheme://user:pass@` becomes `scheme://user:***@`.
pub fn scrub_text(text: &str) -> String {
    let Some(shapes) = shapes() else {
        return text.to_owned();
    };
    if !may_hold_secret(text) {
        return text.to_owned();
    }
    let tokens = replace_all(text, &shapes.kindgi_token, |m, out| {
        let slice = |i: usize| m.group(i).map_or("", |r| &text[r]);
        let (kind, body) = (slice(1), slice(2));
        // Counted in UTF-16 units in JavaScript; the body is ASCII, so bytes count the same.
        let tail = if body.len() >= 16 {
            &body[body.len() - 4..]
        } else {
            ""
        };
        out.push_str("kgi_");
        out.push_str(kind);
        out.push_str("_…");
        out.push_str(tail);
    });
    let bearer = replace_all(&tokens, &shapes.bearer, |m, out| {
        out.push_str(m.group(1).map_or("", |r| &tokens[r]));
        out.push_str(" [redacted]");
    });
    replace_all(&bearer, &shapes.url_password, |m, out| {
        out.push_str(m.group(1).map_or("", |r| &bearer[r]));
        out.push_str(":***@");
    })
}

/// A value with both rules applied: secret keys redacted, strings scrubbed, anything nested
/// deeper than eight levels written as `[too deep]`.
pub fn redact_value(value: &Value) -> Value {
    let mut copy = value.clone();
    redact_in_place(&mut copy);
    copy
}

/// [`redact_value`] on the value itself.
pub fn redact_in_place(value: &mut Value) {
    redact_at(value, 0);
}

/// [`redact_in_place`] for a value found `depth` levels down.
pub fn redact_at_depth(value: &mut Value, depth: usize) {
    redact_at(value, depth);
}

/// A string scrubbed, borrowed as it is when it holds no secret shape.
pub fn scrubbed(text: &str) -> std::borrow::Cow<'_, str> {
    if may_hold_secret(text) {
        scrub_text(text).into()
    } else {
        text.into()
    }
}

/// A string scrubbed in place, left alone (no copy) when it holds no secret shape.
pub fn scrub_in_place(text: &mut String) {
    if may_hold_secret(text) {
        *text = scrub_text(text);
    }
}

fn redact_at(value: &mut Value, depth: usize) {
    match value {
        Value::String(text) => scrub_in_place(text),
        Value::Array(_) | Value::Object(_) if depth >= MAX_REDACT_DEPTH => {
            *value = "[too deep]".into()
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact_at(v, depth + 1)),
        Value::Object(fields) => redact_members(fields.iter_mut(), depth),
        _ => {}
    }
}

/// The members of an object at `depth`: a secret key's value redacted, the others in depth.
pub fn redact_members<'a>(
    members: impl Iterator<Item = (&'a String, &'a mut Value)>,
    depth: usize,
) {
    for (key, v) in members {
        if is_secret_key(key) {
            *v = REDACTED.into();
        } else {
            redact_at(v, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_keys() {
        for secret in [
            "token",
            "accessToken",
            "x-api-key",
            "API_KEY",
            "secrets",
            "Cookie",
            "db_password",
            "clientCredentials",
        ] {
            assert!(is_secret_key(secret), "{secret}");
        }
        for plain in ["tokenCount", "promptTokens", "id", "keyName"] {
            assert!(!is_secret_key(plain), "{plain}");
        }
    }

    #[test]
    fn finds_each_shape_anywhere_in_one_pass() {
        // The three searches it stands for.
        let slow = |text: &str| {
            text.contains("kgi_")
                || text.contains("://")
                || text
                    .as_bytes()
                    .windows(6)
                    .any(|w| w.eq_ignore_ascii_case(b"bearer"))
        };
        let parts = [
            "", "k", "kgi", "kgi_", ":/", "://", "b", "Bea", "BeArEr", "bearer", "é", "x",
        ];
        for a in parts {
            for b in parts {
                for c in parts {
                    let text = format!("{a}{b}{c}");
                    assert_eq!(may_hold_secret(&text), slow(&text), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn scrubs_known_shapes() {
        assert_eq!(
            scrub_text("use kgi_bt_abcdefghijklmnop1234 now"),
            "use kgi_bt_…1234 now"
        );
        assert_eq!(scrub_text("short kgi_pt_abc"), "short kgi_pt_…");
        assert_eq!(
            scrub_text("xkgi_bt_abcdefghijklmnopqrst"),
            "xkgi_bt_abcdefghijklmnopqrst"
        );
        assert_eq!(
            scrub_text("Authorization: bearer abc.def, next"),
            "Authorization: bearer [redacted], next"
        );
        assert_eq!(
            scrub_text("postgres://user:pa55@db:5432/x and HTTP://a:b@c"),
            "postgres://user:***@db:5432/x and HTTP://a:***@c"
        );
        assert_eq!(scrub_text("nothing here"), "nothing here");
        assert_eq!(
            scrub_text("é kgi_bt_abcdefghijklmnop1234"),
            "é kgi_bt_…1234"
        );
    }

    #[test]
    fn redacts_values_in_depth() {
        let value = json!({
            "apiKey": "x", "note": "Bearer t", "list": [{"password": 1}],
            "deep": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": 1}}}}}}}}
        });
        assert_eq!(
            redact_value(&value),
            json!({
                "apiKey": "[redacted]", "note": "Bearer [redacted]", "list": [{"password": "[redacted]"}],
                "deep": {"a": {"b": {"c": {"d": {"e": {"f": {"g": "[too deep]"}}}}}}}
            })
        );
    }
}
