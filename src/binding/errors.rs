//! The one place core errors become JavaScript errors: an `Error` whose `code` is stable.

use crate::canonical::IndexWriteError;
use crate::json::ParseError;
use napi_derive::napi;

/// The `code` of every Error the binding throws (`NativeErrorCode` in `lib/errors.d.ts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeErrorCode {
    InvalidArgument,
    InvalidJsonValue,
    ValueTooDeep,
    OutputWriteFailed,
    IndexReadFailed,
    SchemaCompileFailed,
    ListenFailed,
}

impl NativeErrorCode {
    /// Every code, in the order `NATIVE_ERROR_CODES` lists them.
    pub const ALL: [NativeErrorCode; 7] = [
        NativeErrorCode::InvalidArgument,
        NativeErrorCode::InvalidJsonValue,
        NativeErrorCode::ValueTooDeep,
        NativeErrorCode::OutputWriteFailed,
        NativeErrorCode::IndexReadFailed,
        NativeErrorCode::SchemaCompileFailed,
        NativeErrorCode::ListenFailed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NativeErrorCode::InvalidArgument => "invalid-argument",
            NativeErrorCode::InvalidJsonValue => "invalid-json-value",
            NativeErrorCode::ValueTooDeep => "value-too-deep",
            NativeErrorCode::OutputWriteFailed => "output-write-failed",
            NativeErrorCode::IndexReadFailed => "index-read-failed",
            NativeErrorCode::SchemaCompileFailed => "schema-compile-failed",
            NativeErrorCode::ListenFailed => "listen-failed",
        }
    }
}

/// `NATIVE_ERROR_CODES`: `lib/errors.js` reads the list from here.
#[napi(js_name = "nativeErrorCodes")]
pub fn native_error_codes() -> Vec<&'static str> {
    NativeErrorCode::ALL.map(NativeErrorCode::as_str).to_vec()
}

/// An error with a code, not yet a JavaScript value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeError {
    pub code: NativeErrorCode,
    pub message: String,
}

impl NativeError {
    pub fn new(code: NativeErrorCode, message: impl Into<String>) -> Self {
        NativeError {
            code,
            message: message.into(),
        }
    }
}

/// What a `#[napi]` function that can fail returns: JavaScript sees `err.code`.
pub type JsError = napi::Error<String>;

impl From<NativeError> for JsError {
    fn from(error: NativeError) -> Self {
        napi::Error::new(error.code.as_str().to_owned(), error.message)
    }
}

impl From<ParseError> for NativeError {
    fn from(error: ParseError) -> Self {
        match error {
            ParseError::TooDeep => NativeError::new(
                NativeErrorCode::ValueTooDeep,
                format!("The value is {error}"),
            ),
            ParseError::Syntax { .. } => NativeError::new(
                NativeErrorCode::InvalidJsonValue,
                format!("The value is {error}"),
            ),
        }
    }
}

impl From<IndexWriteError> for NativeError {
    fn from(error: IndexWriteError) -> Self {
        let code = match &error {
            IndexWriteError::NotAnObject | IndexWriteError::NotASortedList(_) => {
                NativeErrorCode::InvalidArgument
            }
            IndexWriteError::Parse(parse) => return NativeError::from(parse.clone()),
            IndexWriteError::Output { .. } => NativeErrorCode::OutputWriteFailed,
        };
        NativeError::new(code, error.to_string())
    }
}

/// A napi call that failed while the binding inspected a value (a throwing getter, say).
pub fn from_napi(error: napi::Error) -> JsError {
    napi::Error::new(
        NativeErrorCode::InvalidArgument.as_str().to_owned(),
        error.reason,
    )
}

#[cfg(test)]
mod tests {
    use super::NativeErrorCode;

    #[test]
    fn all_lists_every_code_once() {
        // A new variant breaks this match, and so reminds whoever adds it to extend `ALL`.
        for code in NativeErrorCode::ALL {
            match code {
                NativeErrorCode::InvalidArgument
                | NativeErrorCode::InvalidJsonValue
                | NativeErrorCode::ValueTooDeep
                | NativeErrorCode::OutputWriteFailed
                | NativeErrorCode::IndexReadFailed
                | NativeErrorCode::SchemaCompileFailed
                | NativeErrorCode::ListenFailed => {}
            }
        }
        let mut names: Vec<&str> = NativeErrorCode::ALL.map(NativeErrorCode::as_str).to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), NativeErrorCode::ALL.len());
    }
}
