//! JavaScript's own rules, where the core must read and write values as the TypeScript
//! package's JavaScript does. This is their one home: what white space is, what `Number(string)`
//! and `String(value)` give, how strings order (UTF-16 code units) and how surrogate pairs
//! combine, the order of an object's keys, how Node decodes UTF-8, `new Date(string)`, whether
//! `new RegExp(source)` throws and in which words, libuv's names for system errors, Node's
//! names for signals, and the words of `spawn`'s error.

mod convert;
pub mod date;
mod object;
pub mod regexp;
mod signal_names;
mod spawn_failure;
mod text;
pub mod utf16;
mod uv_error;

pub use convert::{js_number, js_string, number_to_string, parse_int_of_number};
pub use object::{array_index, for_in_keys, for_in_order, is_object_prototype_name};
#[cfg(unix)]
pub use signal_names::signal_name;
pub use spawn_failure::spawn_failure;
pub use text::{
    is_js_whitespace, is_line_terminator, is_white_space, is_white_space_or_line_terminator,
    utf8_string, utf8_text,
};
pub use utf16::{cmp_utf16, cmp_utf16_units};
pub use uv_error::uv_error;
