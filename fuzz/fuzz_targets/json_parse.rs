//! The JSON parser against serde_json's verdict, and the writer back to the same value.
//!
//! Known differences, skipped: serde_json refuses nesting past 128 and numbers beyond the
//! double range (`JSON.parse` reads `Infinity`), and a lone surrogate escape unless it is first
//! replaced by its stand-in, as the crate does before each serde_json parse.

#![no_main]

#[path = "common.rs"]
mod common;

use common::{bracket_depth, from_node, from_value, SERDE_DEPTH};
use kindgi_handler_runtime_native::json::{protect_lone_surrogates, to_js_json, with_parsed};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = with_parsed(text, |_| ());
    let protected = protect_lone_surrogates(text);
    let ours_protected = with_parsed(&protected, |node| from_node(&node));
    assert_eq!(
        ours.is_ok(),
        ours_protected.is_ok(),
        "protecting lone surrogates changed the verdict on {text:?}"
    );
    let theirs = serde_json::from_str::<Value>(&protected);
    let value = match (ours_protected, theirs) {
        (Ok(ours), Ok(theirs)) => {
            assert_eq!(ours, from_value(&theirs), "different values for {text:?}");
            theirs
        }
        (Err(_), Err(_)) => return,
        (Ok(_), Err(e))
            if e.to_string().contains("number out of range")
                || (e.to_string().contains("recursion limit")
                    && bracket_depth(&protected) > SERDE_DEPTH) =>
        {
            return
        }
        (ours, theirs) => {
            panic!("verdicts differ on {text:?}: ours {ours:?}, serde_json {theirs:?}")
        }
    };
    // What the crate writes from a parsed value reads back as that value, by both parsers.
    let written = to_js_json(&value);
    let again: Value = serde_json::from_str(&written).expect("written JSON parses");
    assert_eq!(
        from_value(&again),
        from_value(&value),
        "rewritten {text:?} as {written:?}"
    );
    let ours_again =
        with_parsed(&written, |node| from_node(&node)).expect("we parse what we write");
    assert_eq!(
        ours_again,
        from_value(&value),
        "rewritten {text:?} as {written:?}"
    );
});
