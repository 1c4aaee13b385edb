//! JSON text exactly as JavaScript writes it.
//!
//! `JSON.stringify` has its own rules for numbers (ECMAScript `Number::toString`), strings (only
//! `"`, `\` and control characters escaped, lone surrogates as `\udxxx`) and object key order
//! (integer-like keys first). Everything this crate writes for a JavaScript caller goes through
//! here, so the bytes match what the TypeScript package writes.

mod borrowed;
mod deep;
mod grammar;
mod member;
mod number;
mod parse;
mod scan;
mod sizes;
mod string;
mod stringify;
mod surrogates;
mod tape;
mod utf16;

// JavaScript's string and key orders live with its other rules.
pub use crate::js::{array_index, cmp_utf16, cmp_utf16_units};
pub use borrowed::{parse_borrowed, parse_borrowed_on, Borrowed, BorrowedError};
pub use deep::{on_deep_stack, Stack, CALLER_DEPTH, DEEP_STACK_BYTES};
pub use grammar::{ParseError, MAX_DEPTH};
pub use member::{member, member_mut, member_of};
pub use number::{write_js_number, write_js_number_text};
pub use parse::{with_parsed, JsonKey, JsonStr, Node};
pub use string::{decode_json_string, rewrite_json_string, write_json_str, write_json_utf16};
pub use stringify::{to_js_json, write_js_json, write_members};
pub use surrogates::{
    has_lone_surrogates, holds_stand_in, parse_with_lone_surrogates, parse_with_lone_surrogates_on,
    protect_lone_surrogates, restore_lone_surrogates, restore_lone_surrogates_if, ValueUnread,
};
pub use tape::{with_tape, with_tape_within, Tape, Token};
pub use utf16::{push_utf16_units, string_from_units, utf16_units};
