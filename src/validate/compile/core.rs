//! The core vocabulary: references and dynamic anchors.

use super::{Compiler, SchemaContext};
use crate::validate::error::CompileError;
use crate::validate::keywords::has_rule;
use crate::validate::program::Keyword;
use crate::validate::resources::{has_ref, json_pointer_get, normalize_id, resolve_uri};
use serde_json::{Map, Value};

impl<'s> Compiler<'s> {
    /// The core vocabulary: `$ref`, `$dynamicRef`, `$dynamicAnchor` (and the refused `id`).
    pub(super) fn core_keyword(
        &mut self,
        schema: &'s Value,
        map: &'s Map<String, Value>,
        name: &str,
        ctx: &SchemaContext,
    ) -> Result<Option<Keyword>, CompileError> {
        let value = &map[name];
        Ok(Some(match name {
            "id" => {
                return Err(CompileError::error(
                    "NOT SUPPORTED: keyword \"id\", use \"$id\" for schema ID",
                ))
            }
            "$ref" => {
                let Some(reference) = value.as_str() else {
                    return Err(CompileError::error("$ref value must be \"string\""));
                };
                return self.reference(reference, ctx).map(Some);
            }
            "$dynamicAnchor" => {
                let Some(anchor) = value.as_str() else {
                    return Err(CompileError::error(
                        "$dynamicAnchor value must be \"string\"",
                    ));
                };
                self.dynamic_anchors
                    .entry(ctx.document)
                    .or_default()
                    .insert(anchor.to_owned());
                let target = if ctx.path == "#" {
                    ctx.function
                } else {
                    self.call(schema, &ctx.base, schema)?
                };
                Keyword::DynamicAnchor {
                    name: anchor.to_owned(),
                    target,
                }
            }
            "$recursiveAnchor" => return Ok(None),
            "$dynamicRef" | "$recursiveRef" => {
                let Some(reference) = value.as_str() else {
                    return Err(CompileError::error(format!(
                        "{name} value must be \"string\""
                    )));
                };
                let Some(anchor) = reference.strip_prefix('#') else {
                    return Err(CompileError::error(format!(
                        "\"{name}\" only supports hash fragment reference"
                    )));
                };
                let dynamic = name == "$dynamicRef"
                    && self
                        .dynamic_anchors
                        .get(&ctx.document)
                        .is_some_and(|a| a.contains(anchor));
                // Ajv generates a call (and its merge) per target it may take.
                let merge_dynamic = if dynamic {
                    self.merge_from_call(None)
                } else {
                    Vec::new()
                };
                let merge = self.merge_from_call(None);
                Keyword::DynamicRef {
                    anchor: anchor.to_owned(),
                    dynamic,
                    fallback: ctx.function,
                    merge_dynamic,
                    merge,
                }
            }
            _ => return Ok(None),
        }))
    }

    pub(super) fn reference(
        &mut self,
        reference: &str,
        ctx: &SchemaContext,
    ) -> Result<Keyword, CompileError> {
        let missing = || CompileError {
            name: "Error",
            message: format!(
                "can't resolve reference {reference} from id {}",
                if ctx.base.is_empty() {
                    "#"
                } else {
                    ctx.base.as_str()
                }
            ),
        };
        let absolute = resolve_uri(&ctx.base, reference);
        if (reference == "#" || reference == "#/") && ctx.base == self.resources.root_base {
            let root = self.root;
            let target = self.call(root, &ctx.base, root)?;
            let merge = self.merge_from_call(Some(target));
            return Ok(Keyword::Ref {
                target,
                inline: false,
                merge,
            });
        }
        let (resource_uri, fragment) = match absolute.split_once('#') {
            Some((uri, fragment)) => (uri.to_owned(), fragment.to_owned()),
            None => (absolute.clone(), String::new()),
        };
        let (mut target, mut base) = if fragment.is_empty() || fragment.starts_with('/') {
            let (resource, base) = self
                .resources
                .by_uri
                .get(&normalize_id(&resource_uri))
                .cloned()
                .ok_or_else(missing)?;
            let target = json_pointer_get(resource, &fragment).ok_or_else(missing)?;
            (target, base)
        } else {
            self.resources
                .by_uri
                .get(&absolute)
                .cloned()
                .ok_or_else(missing)?
        };
        // Ajv follows a pointer to a schema that is only a `$ref` on to where that one points
        // (recursively: a cycle overflows its stack).
        let mut hops = 0;
        while fragment.starts_with('/') {
            if hops > 64 {
                return Err(CompileError {
                    name: "RangeError",
                    message: "Maximum call stack size exceeded".into(),
                });
            }
            let Some(Value::Object(map)) = Some(target) else {
                break;
            };
            let Some(next) = map.get("$ref").and_then(Value::as_str) else {
                break;
            };
            if map.keys().any(|k| k != "$ref" && has_rule(k)) {
                break;
            }
            let next_uri = resolve_uri(&base, next);
            let Some((uri, frag)) = next_uri.split_once('#').or(Some((next_uri.as_str(), "")))
            else {
                break;
            };
            if !(frag.is_empty() || frag.starts_with('/')) {
                break;
            }
            let Some((resource, resource_base)) =
                self.resources.by_uri.get(&normalize_id(uri)).cloned()
            else {
                break;
            };
            let Some(next_target) = json_pointer_get(resource, frag) else {
                break;
            };
            if std::ptr::eq(next_target, self.root) {
                break;
            }
            target = next_target;
            base = resource_base;
            hops += 1;
        }
        if has_ref(target) {
            let target = self.call(target, &base, target)?;
            let merge = self.merge_from_call(Some(target));
            Ok(Keyword::Ref {
                target,
                inline: false,
                merge,
            })
        } else {
            let sub = SchemaContext {
                path: reference.to_owned(),
                // Ajv inlines with the referrer's base; the target's own `$id` applies on top.
                base: ctx.base.clone(),
                env_base: ctx.env_base.clone(),
                function: ctx.function,
                document: ctx.document,
                data_types: Vec::new(),
                composite: ctx.composite,
                data_var: ctx.data_var.clone(),
                defined: ctx.defined.clone(),
                function_root: false,
            };
            let target = self.subschema(target, sub)?;
            let merge = self.merge_evaluated(target, false);
            Ok(Keyword::Ref {
                target,
                inline: true,
                merge,
            })
        }
    }
}
