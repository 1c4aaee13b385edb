//! The JSON parser against serde_json's verdict, and the writer back to the same value; the
//! borrowed tree the pack service reads bodies into against both.
//!
//! Known differences, skipped: serde_json refuses nesting past 127 levels and numbers beyond
//! the double range (`JSON.parse` reads `Infinity`), and a lone surrogate escape unless it is
//! first replaced by its stand-in, as the crate does before each serde_json parse.

#![no_main]

#[path = "common.rs"]
mod common;

use common::{bracket_depth, from_node, from_value, Js, SERDE_DEPTH};
use kindgi_handler_runtime_native::json::{
    on_deep_stack, parse_borrowed, parse_borrowed_on, protect_lone_surrogates, to_js_json,
    with_parsed, BorrowedError, ParseError, Stack,
};
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
    check_borrowed(
        text,
        &protected,
        ours_protected.as_ref().ok(),
        theirs.as_ref().ok(),
    );
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

/// The borrowed tree, as deep as its stack holds (a deep one past the caller's): serde_json's
/// value where serde_json reads the text, else ours where only serde_json's depth or a number
/// beyond the double range (which the tree refuses too) stopped it.
fn check_borrowed(text: &str, protected: &str, ours: Option<&Js>, theirs: Option<&Value>) {
    let read =
        |tree: kindgi_handler_runtime_native::json::Borrowed<'_>| from_value(&tree.to_value());
    let borrowed = match parse_borrowed(protected) {
        Err(BorrowedError::Syntax(ParseError::TooDeep)) => {
            on_deep_stack(|| parse_borrowed_on(protected, Stack::Deep).map(read))
                .expect("a deep stack")
        }
        other => other.map(read),
    };
    match (theirs, &borrowed) {
        (Some(theirs), Ok(tree)) => assert_eq!(*tree, from_value(theirs), "borrowed {text:?}"),
        (Some(_), Err(e)) => panic!("the borrowed tree refuses {text:?}, serde_json reads it: {e}"),
        (None, Ok(tree)) => {
            assert!(
                bracket_depth(protected) > SERDE_DEPTH,
                "the borrowed tree reads {text:?}, which serde_json refuses"
            );
            assert_eq!(Some(tree), ours, "borrowed {text:?}");
        }
        (None, Err(_)) => {}
    }
}
