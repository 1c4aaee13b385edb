//! The format vocabulary: `format`, and ajv-formats' `formatMaximum` and its kin.

use super::{Compiler, SchemaContext};
use crate::validate::error::CompileError;
use crate::validate::formats::{self, FormatType};
use crate::validate::program::Comparison;
use crate::validate::program::Keyword;
use serde_json::{Map, Value};

impl<'s> Compiler<'s> {
    pub(super) fn format_keyword(
        &mut self,
        map: &'s Map<String, Value>,
        ctx: &SchemaContext,
        string_group: bool,
    ) -> Result<Option<Keyword>, CompileError> {
        // Ajv checks a schema against meta-schemas compiled before ajv-formats was added: their
        // formats are not checked.
        if self.in_meta(ctx) {
            return Ok(None);
        }
        let path = format!("{}/format", ctx.path);
        let Some(name) = map.get("format").and_then(Value::as_str) else {
            return Err(CompileError::error("format value must be \"string\""));
        };
        let Some(format) = formats::lookup(name) else {
            return Err(CompileError::error(format!(
                "unknown format \"{name}\" ignored in schema at path \"{}\"",
                ctx.path
            )));
        };
        let wanted = if string_group {
            FormatType::String
        } else {
            FormatType::Number
        };
        if format.kind != wanted {
            return Ok(None);
        }
        Ok(Some(Keyword::Format {
            path,
            name: name.to_owned(),
            format,
        }))
    }

    /// ajv-formats' `formatMaximum` and its kin (`format` itself is [`Compiler::format_keyword`]).
    pub(super) fn format_limit_keyword(
        &mut self,
        map: &'s Map<String, Value>,
        name: &str,
        ctx: &SchemaContext,
    ) -> Result<Option<Keyword>, CompileError> {
        let path = format!("{}/{name}", ctx.path);
        let value = &map[name];
        Ok(Some(match name {
            "formatMaximum"
            | "formatMinimum"
            | "formatExclusiveMaximum"
            | "formatExclusiveMinimum" => {
                let cmp = match name {
                    "formatMaximum" => Comparison::Max,
                    "formatMinimum" => Comparison::Min,
                    "formatExclusiveMaximum" => Comparison::ExclusiveMax,
                    _ => Comparison::ExclusiveMin,
                };
                if !map.contains_key("format") {
                    return Err(CompileError::error(format!(
                        "parent schema must have dependencies of {name}: format"
                    )));
                }
                let Some(limit) = value.as_str() else {
                    return Err(CompileError::error(format!(
                        "{name} value must be \"string\""
                    )));
                };
                let Some(format) = map
                    .get("format")
                    .and_then(Value::as_str)
                    .and_then(formats::lookup)
                else {
                    return Ok(None);
                };
                if !format.can_compare() {
                    return Err(CompileError::error(format!(
                        "\"{name}\": format \"{}\" does not define \"compare\" function",
                        format.name
                    )));
                }
                Keyword::FormatLimit {
                    path,
                    cmp,
                    format,
                    limit: limit.to_owned(),
                }
            }
            _ => return Ok(None),
        }))
    }
}
