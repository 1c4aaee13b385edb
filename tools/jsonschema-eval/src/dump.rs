//! The corpora `dump.mjs` writes, with Ajv's verdicts.

use serde::Deserialize;
use serde_json::Value;
use std::fmt;
use std::path::Path;

#[derive(Debug, Deserialize)]
pub struct Dump {
    pub seed: u64,
    pub corpus: Vec<Case>,
    pub generated: Vec<Case>,
    pub formats: Vec<FormatVectors>,
    /// `{"type": "string", "pattern": …}` schemas over strings.
    pub patterns: Vec<Case>,
}

/// One schema and the values it is tried on.
#[derive(Debug, Deserialize)]
pub struct Case {
    pub name: String,
    pub schema: Value,
    pub values: Vec<Value>,
    pub ajv: BySide,
}

#[derive(Debug, Deserialize)]
pub struct BySide {
    pub input: AjvCompile,
    pub output: AjvCompile,
}

/// What Ajv made of a schema on one side.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum AjvCompile {
    Compiled {
        verdicts: Vec<AjvVerdict>,
    },
    /// `Name: message` of what Ajv threw.
    Refused {
        error: String,
    },
}

/// Ajv's answer for one value: valid or not (with the schema paths of its issues), or what its
/// validation function threw.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum AjvVerdict {
    Judged {
        valid: bool,
        #[serde(default)]
        paths: Vec<String>,
    },
    /// `{"threw": "Name: message"}` (only its being there counts).
    Threw {},
}

/// One ajv-formats format over many values, with Ajv's verdict for each.
#[derive(Debug, Deserialize)]
pub struct FormatVectors {
    pub format: String,
    /// `string` or `number`: the JSON type the format applies to.
    pub kind: String,
    pub values: Vec<Value>,
    pub ajv: Vec<bool>,
}

#[derive(Debug)]
pub enum DumpError {
    Read(std::io::Error),
    Parse(serde_json::Error),
}

impl fmt::Display for DumpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DumpError::Read(e) => write!(f, "cannot read the dump (run dump.mjs first): {e}"),
            DumpError::Parse(e) => write!(f, "the dump is not what dump.mjs writes: {e}"),
        }
    }
}

pub fn read(path: &Path) -> Result<Dump, DumpError> {
    let text = std::fs::read_to_string(path).map_err(DumpError::Read)?;
    serde_json::from_str(&text).map_err(DumpError::Parse)
}
