//! The format vocabulary: `format` and the format limits.

use super::{Data, Run};
use crate::validate::formats::FormatType;
use crate::validate::instance::Instance;
use crate::validate::issue::params;
use crate::validate::program::Keyword;
use serde_json::Value;

impl<'p> Run<'p> {
    /// `format`, `formatMaximum` and its kin.
    pub(super) fn format_keyword<J: Instance>(
        &mut self,
        keyword: &Keyword,
        data: Data<'_, J>,
        inst: &str,
        name: Option<&str>,
    ) {
        match keyword {
            Keyword::Format {
                path,
                name: format_name,
                format,
            } => {
                let ok = match format.kind {
                    FormatType::String => data
                        .json()
                        .and_then(J::as_str)
                        .is_none_or(|s| format.check_str(s)),
                    FormatType::Number => data
                        .json()
                        .and_then(J::as_f64)
                        .is_none_or(|x| format.check_f64(x)),
                };
                if !ok {
                    self.error(
                        inst,
                        path,
                        "format",
                        params([("format", Value::from(format_name.as_str()))]),
                        format!("must match format \"{format_name}\""),
                        name,
                    );
                }
            }
            Keyword::FormatLimit {
                path,
                cmp,
                format,
                limit,
            } => {
                let Some(s) = data.json().and_then(J::as_str) else {
                    return;
                };
                let fails = format.compare(s, limit).is_some_and(|o| !cmp.passes(o));
                if fails {
                    self.error(
                        inst,
                        path,
                        cmp.keyword(true),
                        params([
                            ("comparison", Value::from(cmp.ok_str())),
                            ("limit", Value::from(limit.as_str())),
                        ]),
                        format!("should be {} \"{limit}\"", cmp.ok_str()),
                        name,
                    );
                }
            }
            _ => {}
        }
    }
}
