//! The one place core errors become JavaScript errors: an `Error` whose `code` is stable.

use crate::canonical::IndexWriteError;
use crate::json::ParseError;

/// The `code` of every Error the binding throws (`NativeErrorCode` in `lib/errors.d.ts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeErrorCode {
    InvalidArgument,
    InvalidJsonValue,
    ValueTooDeep,
    OutputWriteFailed,
    IndexReadFailed,
    SchemaCompileFailed,
}

impl NativeErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            NativeErrorCode::InvalidArgument => "invalid-argument",
            NativeErrorCode::InvalidJsonValue => "invalid-json-value",
            NativeErrorCode::ValueTooDeep => "value-too-deep",
            NativeErrorCode::OutputWriteFailed => "output-write-failed",
            NativeErrorCode::IndexReadFailed => "index-read-failed",
            NativeErrorCode::SchemaCompileFailed => "schema-compile-failed",
        }
    }
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
            IndexWriteError::NotAnObject => NativeErrorCode::InvalidArgument,
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
