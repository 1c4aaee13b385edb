//! Why a schema does not compile: the error Ajv throws, by class name and message.

use std::fmt;

/// Why Ajv would not compile the schema: its error class name and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    /// `Error` or `MissingRefError`.
    pub name: &'static str,
    pub message: String,
}

impl CompileError {
    pub fn error(message: impl Into<String>) -> Self {
        CompileError {
            name: "Error",
            message: message.into(),
        }
    }

    pub fn strict(message: impl fmt::Display) -> Self {
        CompileError::error(format!("strict mode: {message}"))
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}

impl std::error::Error for CompileError {}
