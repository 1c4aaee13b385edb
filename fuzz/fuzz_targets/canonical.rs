//! The canonical writer: what it writes parses back to the value it read (without `__proto__`
//! members, which JavaScript's copy drops, and numbers beyond the double range, which
//! `JSON.stringify` writes as `null`), and writing it again changes nothing.

#![no_main]

#[path = "common.rs"]
mod common;

use common::{bracket_depth, from_node, Js, SERDE_DEPTH};
use kindgi_handler_runtime_native::canonical::canonical_json;
use kindgi_handler_runtime_native::json::with_parsed;
use libfuzzer_sys::fuzz_target;

/// `value` as the canonical text holds it: `out["__proto__"] = …` sets a prototype, no member,
/// and `Infinity` is written `null`.
fn without_proto(value: Js) -> Js {
    let proto: Vec<u16> = "__proto__".encode_utf16().collect();
    match value {
        Js::Array(items) => Js::Array(items.into_iter().map(without_proto).collect()),
        Js::Object(members) => Js::Object(
            members
                .into_iter()
                .filter(|(k, _)| *k != proto)
                .map(|(k, v)| (k, without_proto(v)))
                .collect(),
        ),
        Js::Number(n) if !n.is_finite() => Js::Null,
        other => other,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(written) = canonical_json(text) else {
        assert!(
            with_parsed(text, |_| ()).is_err(),
            "refused {text:?} that parses"
        );
        return;
    };
    let read = with_parsed(text, |node| from_node(&node)).expect("what was written parses");
    let back = with_parsed(&written, |node| from_node(&node))
        .unwrap_or_else(|e| panic!("canonical {written:?} of {text:?} does not parse: {e}"));
    assert_eq!(
        back,
        without_proto(read),
        "canonical {written:?} of {text:?}"
    );
    let twice = canonical_json(&written).expect("canonical text parses");
    assert_eq!(twice, written, "not a fixed point for {text:?}");
    if bracket_depth(text) <= SERDE_DEPTH {
        // serde_json agrees that the output is JSON (lone surrogates stay escapes, which it
        // takes once they are protected).
        let protected = kindgi_handler_runtime_native::json::protect_lone_surrogates(&written);
        serde_json::from_str::<serde_json::Value>(&protected)
            .unwrap_or_else(|e| panic!("serde_json refuses {written:?}: {e}"));
    }
});
