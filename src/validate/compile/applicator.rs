//! The applicator vocabulary: keywords that apply subschemas to the value or its members.

use super::{pattern_error, schema_fragment};
use super::{Compiler, SchemaContext};
use crate::js::{for_in_keys, regexp};
use crate::validate::error::CompileError;
use crate::validate::evaluated::{EvaluatedItems, EvaluatedOp, EvaluatedProps, StaticProps};
use crate::validate::program::Keyword;
use crate::validate::program::{DataType, NodeId, SchemaNode, Side};
use serde_json::{Map, Value};

impl<'s> Compiler<'s> {
    /// The applicator vocabulary: the keywords that apply subschemas.
    pub(super) fn applicator_keyword(
        &mut self,
        map: &'s Map<String, Value>,
        name: &str,
        ctx: &SchemaContext,
    ) -> Result<Option<Keyword>, CompileError> {
        let path = format!("{}/{name}", ctx.path);
        let value = &map[name];
        Ok(Some(match name {
            "not" => {
                if self.always_valid(value)? {
                    return Ok(Some(Keyword::Not {
                        path,
                        node: self.push(SchemaNode::True),
                    }));
                }
                let sub = Self::same_data_ctx(ctx, path.clone(), true);
                Keyword::Not {
                    node: self.subschema(value, sub)?,
                    path,
                }
            }
            "anyOf" | "oneOf" => {
                let list = self.schema_list(map, name)?;
                let mut nodes = Vec::new();
                let mut merges = Vec::new();
                for (i, schema) in list.iter().enumerate() {
                    // oneOf runs no subschema for an always-valid branch, so merges nothing.
                    let skip_merge = name == "oneOf" && self.always_valid(schema)?;
                    let sub = Self::same_data_ctx(ctx, format!("{path}/{i}"), true);
                    let node = self.subschema(schema, sub)?;
                    nodes.push(node);
                    merges.push(match (name, skip_merge) {
                        (_, true) => Vec::new(),
                        ("anyOf", _) => self.merge_valid_evaluated(node),
                        _ => self.merge_evaluated(node, true),
                    });
                }
                if name == "anyOf" {
                    Keyword::AnyOf {
                        path,
                        nodes,
                        merges,
                    }
                } else {
                    Keyword::OneOf {
                        path,
                        nodes,
                        merges,
                    }
                }
            }
            "allOf" => {
                let list = self.schema_list(map, name)?;
                let mut nodes = Vec::new();
                let mut merges = Vec::new();
                for (i, schema) in list.iter().enumerate() {
                    if self.always_valid(schema)? {
                        continue;
                    }
                    let sub = Self::same_data_ctx(ctx, format!("{path}/{i}"), false);
                    let node = self.subschema(schema, sub)?;
                    nodes.push(node);
                    merges.push(self.merge_evaluated(node, false));
                }
                Keyword::AllOf { nodes, merges }
            }
            "if" => {
                if !map.contains_key("then") && !map.contains_key("else") {
                    return Err(CompileError::strict(
                        "\"if\" without \"then\" and \"else\" is ignored",
                    ));
                }
                let has_clause = |key: &str| -> Result<bool, CompileError> {
                    match map.get(key) {
                        Some(schema) => Ok(!self.always_valid(schema)?),
                        None => Ok(false),
                    }
                };
                let (has_then, has_else) = (has_clause("then")?, has_clause("else")?);
                if !has_then && !has_else {
                    return Ok(None);
                }
                // Ajv compiles the condition first, then the clauses.
                let sub = Self::same_data_ctx(ctx, path.clone(), true);
                let cond = self.subschema(value, sub)?;
                // Merged whatever the condition answers (Ajv's `validateIf`).
                let cond_merge = self.merge_evaluated(cond, false);
                let clause =
                    |this: &mut Self,
                     key: &str,
                     wanted: bool|
                     -> Result<Option<(NodeId, Vec<EvaluatedOp>)>, CompileError> {
                        if !wanted {
                            return Ok(None);
                        }
                        let sub = Self::same_data_ctx(ctx, format!("{}/{key}", ctx.path), false);
                        let node = this.subschema(&map[key], sub)?;
                        let merge = this.merge_valid_evaluated(node);
                        Ok(Some((node, merge)))
                    };
                let then = clause(self, "then", has_then)?;
                let otherwise = clause(self, "else", has_else)?;
                Keyword::If {
                    path,
                    cond,
                    cond_merge,
                    then,
                    otherwise,
                }
            }
            "then" | "else" => {
                if !map.contains_key("if") {
                    return Err(CompileError::strict(format!(
                        "\"{name}\" without \"if\" is ignored"
                    )));
                }
                return Ok(None);
            }
            "prefixItems" => {
                let list = self.schema_list(map, name)?;
                let length = list.len() as f64;
                let min_items = map.get("minItems").and_then(Value::as_f64);
                let max_items = map.get("maxItems").and_then(Value::as_f64);
                let full_tuple = min_items == Some(length)
                    && (max_items == Some(length) || map.get("items") == Some(&Value::Bool(false)));
                if !full_tuple {
                    return Err(CompileError::strict(format!(
                        "\"prefixItems\" is {}-tuple, but minItems or maxItems/items are not specified or different at path \"{}\"",
                        list.len(),
                        ctx.path
                    )));
                }
                if !list.is_empty() {
                    let mut ops = Vec::new();
                    let items = self
                        .eval
                        .last()
                        .map_or(EvaluatedItems::Undefined, |s| s.items);
                    if items != EvaluatedItems::True {
                        let merged =
                            self.merge_items(EvaluatedItems::Num(length), items, false, &mut ops);
                        self.set_items(merged);
                        if let Some(state) = self.current() {
                            state.pending.extend(ops);
                        }
                    }
                }
                let mut nodes = Vec::new();
                for (i, schema) in list.iter().enumerate() {
                    if self.always_valid(schema)? {
                        nodes.push(None);
                        continue;
                    }
                    let sub = self.data_ctx(ctx, format!("{path}/{i}"));
                    nodes.push(Some(self.subschema(schema, sub)?));
                }
                Keyword::PrefixItems { nodes }
            }
            "items" => {
                let prefix = map
                    .get("prefixItems")
                    .and_then(Value::as_array)
                    .map(Vec::len);
                let from = prefix.unwrap_or(0);
                self.set_items(EvaluatedItems::True);
                if self.always_valid(value)? {
                    Keyword::Items {
                        path,
                        node: None,
                        from,
                        false_after_prefix: false,
                    }
                } else if prefix.is_some() && value == &Value::Bool(false) {
                    Keyword::Items {
                        path,
                        node: None,
                        from,
                        false_after_prefix: true,
                    }
                } else {
                    let sub = self.data_ctx(ctx, path.clone());
                    let node = self.subschema(value, sub)?;
                    Keyword::Items {
                        path,
                        node: Some(node),
                        from,
                        false_after_prefix: false,
                    }
                }
            }
            "contains" => {
                let min_json = map.get("minContains").cloned();
                let max_json = map.get("maxContains").cloned();
                let min = min_json.as_ref().and_then(Value::as_f64).unwrap_or(1.0);
                let max = max_json.as_ref().and_then(Value::as_f64);
                if max.is_none() && min == 0.0 {
                    return Err(CompileError::strict(
                        "\"minContains\" == 0 without \"maxContains\": \"contains\" keyword ignored",
                    ));
                }
                if max.is_some_and(|max| min > max) {
                    return Err(CompileError::strict(
                        "\"minContains\" > \"maxContains\" is always invalid",
                    ));
                }
                let node = if self.always_valid(value)? {
                    None
                } else {
                    self.set_items(EvaluatedItems::True);
                    let mut sub = self.data_ctx(ctx, path.clone());
                    sub.composite = true;
                    Some(self.subschema(value, sub)?)
                };
                Keyword::Contains {
                    path,
                    node,
                    min,
                    max,
                    min_json: min_json.unwrap_or_else(|| Value::from(1)),
                    max_json,
                }
            }
            "propertyNames" => {
                if self.always_valid(value)? {
                    return Ok(None);
                }
                let mut sub = Self::same_data_ctx(ctx, path.clone(), true);
                sub.data_types = vec![DataType::String];
                Keyword::PropertyNames {
                    node: self.subschema(value, sub)?,
                    path,
                }
            }
            "additionalProperties" => {
                self.set_props(EvaluatedProps::True);
                let is_false = value == &Value::Bool(false);
                if !is_false && self.always_valid(value)? {
                    return Ok(Some(Keyword::AdditionalProperties {
                        path,
                        node: None,
                        is_false: false,
                        props: Vec::new(),
                        patterns: Vec::new(),
                    }));
                }
                let props: Vec<String> = map
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| {
                        for_in_keys(p)
                            .into_iter()
                            .filter(|k| *k != "__proto__")
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                let mut patterns = Vec::new();
                if let Some(Value::Object(pp)) = map.get("patternProperties") {
                    for key in for_in_keys(pp) {
                        if key != "__proto__" {
                            patterns.push(self.pattern(key)?);
                        }
                    }
                }
                let node = if is_false {
                    None
                } else {
                    let sub = self.data_ctx(ctx, path.clone());
                    Some(self.subschema(value, sub)?)
                };
                Keyword::AdditionalProperties {
                    path,
                    node,
                    is_false,
                    props,
                    patterns,
                }
            }
            "dependencies" => return Ok(None),
            "properties" => {
                let Value::Object(properties) = value else {
                    return Err(CompileError::error("properties value must be \"object\""));
                };
                let all: Vec<String> = for_in_keys(properties)
                    .into_iter()
                    .filter(|k| *k != "__proto__")
                    .cloned()
                    .collect();
                ctx.defined.borrow_mut().extend(all.iter().cloned());
                let current = self
                    .eval
                    .last()
                    .map_or(EvaluatedProps::Undefined, |s| s.props.clone());
                if !all.is_empty() && current != EvaluatedProps::True {
                    let mut ops = Vec::new();
                    let merged = self.merge_props(
                        EvaluatedProps::Keys(all.clone()),
                        current,
                        false,
                        &mut ops,
                    );
                    self.set_props(merged);
                    if let Some(state) = self.current() {
                        state.pending.extend(ops);
                    }
                }
                let mut props = Vec::new();
                for key in &all {
                    let schema = &properties[key];
                    if self.always_valid(schema)? {
                        continue;
                    }
                    let has_default = self.side == Side::Input
                        && !ctx.composite
                        && schema.get("default").is_some();
                    let sub = self.data_ctx(ctx, format!("{path}/{}", schema_fragment(key)?));
                    let node = self.subschema(schema, sub)?;
                    props.push((key.clone(), Some(node), has_default));
                }
                Keyword::Properties { props }
            }
            "patternProperties" => {
                let Value::Object(pp) = value else {
                    return Err(CompileError::error(
                        "patternProperties value must be \"object\"",
                    ));
                };
                let keys: Vec<&String> = for_in_keys(pp)
                    .into_iter()
                    .filter(|k| *k != "__proto__")
                    .collect();
                let mut all_valid = true;
                for key in &keys {
                    all_valid &= self.always_valid(&pp[key.as_str()])?;
                }
                let current = self
                    .eval
                    .last()
                    .map_or(EvaluatedProps::Undefined, |s| s.props.clone());
                if keys.is_empty() || (all_valid && current == EvaluatedProps::True) {
                    return Ok(None);
                }
                // Ajv moves what is evaluated so far into a variable, to add the matched names.
                let mark = match current {
                    EvaluatedProps::True => None,
                    EvaluatedProps::Var(var) => Some(var),
                    other => {
                        let var = self.new_var();
                        let value = match other {
                            EvaluatedProps::Keys(keys) => StaticProps::Keys(keys),
                            _ => StaticProps::Keys(Vec::new()),
                        };
                        if let Some(state) = self.current() {
                            state.pending.push(EvaluatedOp::PropsInit { var, value });
                            state.props = EvaluatedProps::Var(var);
                        }
                        Some(var)
                    }
                };
                let mut patterns = Vec::new();
                let declared = map.get("properties").and_then(Value::as_object);
                for key in keys {
                    if let Some(properties) = declared {
                        // Ajv tests these with `new RegExp(pattern)`, without the u flag.
                        let plain = regexp::compile_annex_b(key, regexp::running())
                            .map_err(|error| pattern_error(key, "", error))?;
                        let plain = Some(plain);
                        for prop in for_in_keys(properties) {
                            if plain.as_ref().is_some_and(|r| r.find(prop).is_some()) {
                                return Err(CompileError::strict(format!(
                                    "property {prop} matches pattern {key} (use allowMatchingProperties)"
                                )));
                            }
                        }
                    }
                    let pattern = self.pattern(key)?;
                    let schema = &pp[key];
                    let node = if self.always_valid(schema)? {
                        None
                    } else {
                        let sub = self.data_ctx(ctx, format!("{path}/{}", schema_fragment(key)?));
                        Some(self.subschema(schema, sub)?)
                    };
                    patterns.push((pattern, node));
                }
                Keyword::PatternProperties { patterns, mark }
            }
            "dependentSchemas" => {
                let Value::Object(deps) = value else {
                    return Err(CompileError::error(
                        "dependentSchemas value must be \"object\"",
                    ));
                };
                let mut compiled = Vec::new();
                for key in for_in_keys(deps) {
                    if key == "__proto__" || self.always_valid(&deps[key])? {
                        continue;
                    }
                    let sub = Self::same_data_ctx(
                        ctx,
                        format!("{path}/{}", schema_fragment(key)?),
                        false,
                    );
                    let node = self.subschema(&deps[key], sub)?;
                    let merge = self.merge_valid_evaluated(node);
                    compiled.push((key.clone(), node, merge));
                }
                Keyword::DependentSchemas { deps: compiled }
            }
            _ => return Ok(None),
        }))
    }
}
