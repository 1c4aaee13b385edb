//! The unevaluated vocabulary: `unevaluatedItems` and `unevaluatedProperties`.

use super::{Compiler, SchemaContext};
use crate::validate::error::CompileError;
use crate::validate::evaluated::{EvaluatedItems, EvaluatedProps};
use crate::validate::program::Keyword;
use crate::validate::program::NodeId;
use serde_json::{Map, Value};

impl<'s> Compiler<'s> {
    /// A subschema for a new data location: a new data variable, no inherited types.
    /// The schema of `unevaluatedItems` / `unevaluatedProperties`: `false` is checked without a
    /// node, an always-valid schema needs none, anything else is compiled for each member.
    pub(super) fn unevaluated_schema(
        &mut self,
        value: &'s Value,
        ctx: &SchemaContext,
        path: &str,
    ) -> Result<(Option<NodeId>, bool), CompileError> {
        let is_false = value == &Value::Bool(false);
        if is_false || self.always_valid(value)? {
            return Ok((None, is_false));
        }
        let sub = self.data_ctx(ctx, path.to_owned());
        Ok((Some(self.subschema(value, sub)?), false))
    }

    /// The unevaluated vocabulary: `unevaluatedItems` and `unevaluatedProperties`.
    pub(super) fn unevaluated_keyword(
        &mut self,
        map: &'s Map<String, Value>,
        name: &str,
        ctx: &SchemaContext,
    ) -> Result<Option<Keyword>, CompileError> {
        let path = format!("{}/{name}", ctx.path);
        let value = &map[name];
        Ok(Some(match name {
            "unevaluatedItems" => {
                let state = self
                    .eval
                    .last()
                    .map_or(EvaluatedItems::Undefined, |s| s.items);
                if state == EvaluatedItems::True {
                    return Ok(None);
                }
                let (node, is_false) = self.unevaluated_schema(value, ctx, &path)?;
                self.set_items(EvaluatedItems::True);
                self.reads_evaluated |= matches!(state, EvaluatedItems::Var(_));
                Keyword::UnevaluatedItems {
                    path,
                    node,
                    is_false,
                    state,
                }
            }
            "unevaluatedProperties" => {
                let state = self
                    .eval
                    .last()
                    .map_or(EvaluatedProps::Undefined, |s| s.props.clone());
                let (node, is_false) = self.unevaluated_schema(value, ctx, &path)?;
                self.set_props(EvaluatedProps::True);
                self.reads_evaluated |= matches!(state, EvaluatedProps::Var(_));
                Keyword::UnevaluatedProperties {
                    path,
                    node,
                    is_false,
                    state,
                }
            }
            _ => return Ok(None),
        }))
    }
}
