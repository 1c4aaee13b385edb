//! One schema location: its types (with strictTypes), then its keywords group by group in
//! Ajv's order, with the input side's defaults.

use super::{check_unknown, js_property, Compiler, SchemaContext};
use crate::js::for_in_keys;
use crate::validate::error::CompileError;
use crate::validate::formats::FormatType;
use crate::validate::keywords::{has_rule, GROUP_ORDER, RULES};
use crate::validate::metaschemas::is_meta_document;
use crate::validate::program::{
    DataType, Group, GroupCode, Keyword, ObjectSchema, SchemaNode, Side,
};
use crate::validate::resources::{normalize_id, resolve_uri};
use serde_json::Value;

pub(super) fn schema_type_names(value: &Value) -> Option<Vec<&str>> {
    match value {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(items) => items.iter().map(Value::as_str).collect(),
        _ => None,
    }
}

fn includes_type(types: &[DataType], t: DataType) -> bool {
    types.contains(&t) || (t == DataType::Integer && types.contains(&DataType::Number))
}

fn has_applicable_type(types: &[DataType], keyword_type: DataType) -> bool {
    types.contains(&keyword_type)
        || (keyword_type == DataType::Number && types.contains(&DataType::Integer))
}

impl<'s> Compiler<'s> {
    pub(super) fn build(
        &mut self,
        schema: &'s Value,
        mut ctx: SchemaContext,
    ) -> Result<SchemaNode, CompileError> {
        let map = match schema {
            Value::Bool(true) => return Ok(SchemaNode::True),
            Value::Bool(false) => return Ok(SchemaNode::False(ctx.path)),
            Value::Object(map) => map,
            _ => return Err(CompileError::error("schema must be object or boolean")),
        };
        check_unknown(map)?;
        if !map.keys().any(|k| has_rule(k)) {
            return Ok(SchemaNode::True);
        }
        if !ctx.function_root {
            if let Some(id) = map.get("$id").and_then(Value::as_str) {
                ctx.base = normalize_id(&resolve_uri(&ctx.base, id));
            }
        }
        let in_meta = self.meta || is_meta_document(ctx.document);
        if ctx.function_root && !in_meta && self.side == Side::Input && map.get("default").is_some()
        {
            return Err(CompileError::strict(
                "default is ignored in the schema root",
            ));
        }

        // Types.
        let type_value = map.get("type").cloned().unwrap_or(Value::Null);
        let mut types = Vec::new();
        if let Some(raw) = map.get("type") {
            let names = schema_type_names(raw)
                .ok_or_else(|| CompileError::error("type must be JSONType or JSONType[]: "))?;
            for name in &names {
                match DataType::parse(name) {
                    Some(t) => types.push(t),
                    None => {
                        return Err(CompileError::error(format!(
                            "type must be JSONType or JSONType[]: {}",
                            names.join(",")
                        )))
                    }
                }
            }
        }
        match map.get("nullable") {
            Some(Value::Bool(false)) if types.contains(&DataType::Null) => {
                return Err(CompileError::error(
                    "type: null contradicts nullable: false",
                ))
            }
            Some(_) if types.is_empty() => {
                return Err(CompileError::error(
                    "\"nullable\" cannot be used without \"type\"",
                ))
            }
            Some(Value::Bool(true)) if !types.contains(&DataType::Null) => {
                types.push(DataType::Null)
            }
            _ => {}
        }
        let group_used = |g: Group| -> bool {
            GROUP_ORDER
                .iter()
                .find(|(group, _)| *group == g)
                .is_some_and(|(_, kws)| kws.iter().any(|k| map.contains_key(*k)))
        };
        let single_group = match types.as_slice() {
            [t] => match t {
                DataType::Number => Some(Group::Number),
                DataType::String => Some(Group::String),
                DataType::Array => Some(Group::Array),
                DataType::Object => Some(Group::Object),
                _ => None,
            },
            _ => None,
        };
        let type_first = !types.is_empty() && !single_group.is_some_and(group_used);

        // $ref with nothing else: only the reference runs.
        let only_ref = map.contains_key("$ref") && !map.keys().any(|k| k != "$ref" && has_rule(k));
        if only_ref {
            let keyword = self.keyword(schema, map, "$ref", &ctx)?;
            let mut keywords = Vec::new();
            let pending = self.take_pending();
            if !pending.is_empty() {
                keywords.push(Keyword::Eval(pending));
            }
            keywords.extend(keyword);
            return Ok(SchemaNode::Object(Box::new(ObjectSchema {
                path: ctx.path.clone(),
                types,
                type_value,
                type_first,
                groups: vec![GroupCode {
                    group: Group::Any,
                    keywords,
                    type_error: false,
                }],
                defaults: Vec::new(),
                frame: None,
            })));
        }

        // strictTypes (Ajv skips it for meta-schemas).
        let meta = self.meta || is_meta_document(ctx.document);
        if !meta && !types.is_empty() {
            if ctx.data_types.is_empty() {
                ctx.data_types = types.clone();
            } else {
                for t in &types {
                    if !includes_type(&ctx.data_types, *t) {
                        let context: Vec<&str> = ctx.data_types.iter().map(|t| t.name()).collect();
                        return Err(self.strict_types(
                            &ctx,
                            format!(
                                "type \"{}\" not allowed by context \"{}\"",
                                t.name(),
                                context.join(",")
                            ),
                        ));
                    }
                }
                let mut narrowed = Vec::new();
                for t in &ctx.data_types {
                    if includes_type(&types, *t) {
                        narrowed.push(*t);
                    } else if types.contains(&DataType::Integer) && *t == DataType::Number {
                        narrowed.push(DataType::Integer);
                    }
                }
                ctx.data_types = narrowed;
            }
        }
        for (keyword, _, keyword_types) in RULES {
            if meta || keyword_types.is_empty() || !map.contains_key(*keyword) {
                continue;
            }
            if !keyword_types
                .iter()
                .any(|t| has_applicable_type(&ctx.data_types, *t))
            {
                let names: Vec<&str> = keyword_types.iter().map(|t| t.name()).collect();
                return Err(self.strict_types(
                    &ctx,
                    format!(
                        "missing type \"{}\" for keyword \"{keyword}\"",
                        names.join(",")
                    ),
                ));
            }
        }

        let mut groups = Vec::new();
        let mut defaults = Vec::new();
        for (group, names) in GROUP_ORDER {
            if !names.iter().any(|k| map.contains_key(*k)) {
                continue;
            }
            if *group == Group::Object && self.side == Side::Input && !in_meta {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    for key in for_in_keys(properties) {
                        let Some(default) = properties.get(key).and_then(|s| s.get("default"))
                        else {
                            continue;
                        };
                        if ctx.composite {
                            return Err(CompileError::strict(format!(
                                "default is ignored for: {}{}",
                                ctx.data_var,
                                js_property(key)
                            )));
                        }
                        defaults.push((key.clone(), default.clone()));
                    }
                }
            }
            let mut keywords = Vec::new();
            for name in names.iter() {
                if !map.contains_key(*name) {
                    continue;
                }
                if *name == "format" && group.data_type() == Some(DataType::Number) {
                    // format runs in both groups; it is compiled (and checked) in the first.
                    let compiled = self.keyword(schema, map, name, &ctx)?;
                    if let Some(k) = compiled {
                        if matches!(&k, Keyword::Format { format, .. } if format.kind == FormatType::Number)
                        {
                            keywords.push(k);
                        }
                    }
                    continue;
                }
                if *name == "format" {
                    if let Some(k) = self.format_keyword(map, &ctx, true)? {
                        keywords.push(k);
                    }
                    continue;
                }
                let compiled = self.keyword(schema, map, name, &ctx)?;
                let pending = self.take_pending();
                if !pending.is_empty() {
                    keywords.push(Keyword::Eval(pending));
                }
                if let Some(k) = compiled {
                    keywords.push(k);
                }
            }
            let type_error = single_group == Some(*group) && !type_first;
            groups.push(GroupCode {
                group: *group,
                keywords,
                type_error,
            });
        }
        Ok(SchemaNode::Object(Box::new(ObjectSchema {
            path: ctx.path.clone(),
            types,
            type_value,
            type_first,
            groups,
            defaults,
            frame: None,
        })))
    }
}
