//! Compiling a schema the way Ajv's code generator walks it: the same keyword order, the same
//! strict-mode refusals raised in the same order (the first one is the error), the same
//! `schemaPath`s, and `$ref`s inlined where Ajv inlines them. A schema location is built in
//! `schema.rs`, its keywords by vocabulary in the files named after them, the evaluated-properties
//! bookkeeping in `evaluated.rs`.

mod applicator;
mod core;
mod evaluated;
mod format;
mod schema;
mod unevaluated;
mod validation;

#[cfg(test)]
mod tests;

use super::error::CompileError;
use super::evaluated::{EvaluatedItems, EvaluatedOp, EvaluatedProps, Frame};
use super::issue::escape_fragment;
use super::keywords::{has_rule, is_known_keyword};
use super::metaschemas::{is_meta_document, META_VALUES};
use super::program::{DataType, Keyword, Limit, NodeId, Pattern, Program, SchemaNode, Side};
use super::resources::{collect_resources, contains_ptr, Resources};
use super::value;
use crate::js::{for_in_keys, number_to_string, regexp};
use crate::json::holds_stand_in;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

/// Compiles `schema` (already through [`super::schema_check::check_schema`]) for `side`.
pub fn compile(schema: &Value, side: Side) -> Result<Program, CompileError> {
    compile_document(schema, side, &META_VALUES, false)
}

/// Compiles `root` as a function of its own, with `extra` documents its references may reach;
/// `meta` when `root` is the meta-schema.
pub(super) fn compile_document<'s>(
    root: &'s Value,
    side: Side,
    extra: &'s [Value],
    meta: bool,
) -> Result<Program, CompileError> {
    let mut compiler = Compiler::new(root, side, extra, meta)?;
    let base = compiler.resources.root_base.clone();
    let entry = compiler.call(root, &base, root)?;
    Ok(Program {
        nodes: compiler.nodes,
        root: entry,
        reads_evaluated: compiler.reads_evaluated,
    })
}

/// A schema key as Ajv writes it into an error's schema path (`escapeFragment`), whose
/// `encodeURIComponent` throws on a lone surrogate (here a stand-in): the schema does not
/// compile.
fn schema_fragment(key: &str) -> Result<String, CompileError> {
    if holds_stand_in(key) {
        return Err(CompileError {
            name: "URIError",
            message: "URI malformed".into(),
        });
    }
    Ok(escape_fragment(key))
}

/// Why `new RegExp(source, flags)` does not compile, as the schema's error: V8's `SyntaxError`,
/// or a pattern V8 runs that the engine here cannot run as V8 does (Ajv compiles it).
fn pattern_error(source: &str, flags: &str, error: regexp::PatternError) -> CompileError {
    match error {
        regexp::PatternError::V8(reason) => CompileError {
            name: "SyntaxError",
            message: format!("Invalid regular expression: /{source}/{flags}: {reason}"),
        },
        regexp::PatternError::Unsupported(construct) => CompileError {
            name: "Error",
            message: format!(
                "Unsupported regular expression: /{source}/{flags}: {}. V8 compiles it, but the service's regular expression engine cannot match it as V8 does",
                construct.describe()
            ),
        },
    }
}

/// The state one schema location accumulates while its keywords compile.
#[derive(Debug, Clone)]
struct EvaluatedSoFar {
    props: EvaluatedProps,
    items: EvaluatedItems,
    /// Ops to run before the keyword being compiled.
    pending: Vec<EvaluatedOp>,
}

/// What a schema location is compiled with: Ajv's `SchemaCxt` fields that matter here.
#[derive(Clone)]
struct SchemaContext {
    path: String,
    /// `it.baseId`: where references resolve from.
    base: String,
    /// `schemaEnv.baseId`: what strict-mode messages print before the path.
    env_base: String,
    /// The function (compiled schema root) this location belongs to.
    function: NodeId,
    /// The document (`schemaEnv.root`) it belongs to, for dynamic anchors.
    document: *const Value,
    data_types: Vec<DataType>,
    composite: bool,
    /// The generated data variable's name, for "default is ignored for: data1.x".
    data_var: String,
    /// `it.definedProperties`, shared by the schemas at one data level.
    defined: Rc<RefCell<HashSet<String>>>,
    /// Properties whose subschema Ajv creates and that the `properties` bug records.
    function_root: bool,
}

struct Compiler<'s> {
    side: Side,
    /// Compiling the meta-schema: no strictTypes (Ajv skips it for meta-schemas).
    meta: bool,
    root: &'s Value,
    /// `$dynamicAnchor` names met so far, per document (Ajv's `root.dynamicAnchors`).
    dynamic_anchors: HashMap<*const Value, HashSet<String>>,
    nodes: Vec<SchemaNode>,
    /// Schemas compiled as functions of their own (the root, non-inlined `$ref` targets).
    called: HashMap<*const Value, NodeId>,
    patterns: HashMap<String, Arc<Pattern>>,
    /// Ajv names each new data variable `data0`, `data1`, … within a function.
    data_vars: usize,
    /// Evaluated-tracking variables declared so far in the function being compiled.
    frame_vars: usize,
    /// The evaluated state of each schema location being compiled, innermost last.
    eval: Vec<EvaluatedSoFar>,
    /// The final evaluated state of each compiled subschema.
    states: HashMap<NodeId, (EvaluatedProps, EvaluatedItems)>,
    /// What each finished function reports as evaluated (Ajv's `validate.evaluated`).
    finished: HashMap<NodeId, Frame>,
    /// See [`Program::reads_evaluated`].
    reads_evaluated: bool,
    resources: Resources<'s>,
}

/// `JSON.stringify` of a schema value in an error message.
fn js_stringify(value: &Value) -> String {
    crate::json::to_js_json(value)
}

/// Ajv's `checkUnknownRules` (strict): the first key, in `for…in` order, that no rule knows.
fn check_unknown(map: &Map<String, Value>) -> Result<(), CompileError> {
    for key in for_in_keys(map) {
        if !is_known_keyword(key) {
            return Err(CompileError::strict(format!("unknown keyword: \"{key}\"")));
        }
    }
    Ok(())
}

/// How Ajv's code generator writes a property access: `.name` or `["name"]`.
fn js_property(key: &str) -> String {
    let identifier = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        format!(".{key}")
    } else {
        format!("[{}]", js_stringify(&Value::String(key.to_owned())))
    }
}

impl<'s> Compiler<'s> {
    fn new(
        root: &'s Value,
        side: Side,
        extra: &'s [Value],
        meta: bool,
    ) -> Result<Self, CompileError> {
        Ok(Compiler {
            side,
            meta,
            root,
            dynamic_anchors: HashMap::new(),
            nodes: Vec::new(),
            called: HashMap::new(),
            patterns: HashMap::new(),
            data_vars: 0,
            frame_vars: 0,
            eval: Vec::new(),
            states: HashMap::new(),
            finished: HashMap::new(),
            reads_evaluated: false,
            resources: collect_resources(root, extra)?,
        })
    }

    /// The document (meta-schema or the schema itself) that `schema` lives in.
    fn document_of(&self, schema: &Value) -> *const Value {
        for document in META_VALUES.iter() {
            if contains_ptr(document, schema) {
                return document as *const Value;
            }
        }
        self.root as *const Value
    }

    fn push(&mut self, node: SchemaNode) -> NodeId {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Compiles `schema` as a function of its own (the root, or a `$ref` target Ajv does not
    /// inline): its paths start at `#`, its data variables at `data0`. `base` is its resource's
    /// base URI.
    fn call(
        &mut self,
        schema: &'s Value,
        base: &str,
        _document_hint: &Value,
    ) -> Result<NodeId, CompileError> {
        let key = schema as *const Value;
        if let Some(&id) = self.called.get(&key) {
            return Ok(id);
        }
        let id = self.push(SchemaNode::Pending);
        self.called.insert(key, id);
        let saved_vars = std::mem::replace(&mut self.data_vars, 0);
        let saved_frame = std::mem::replace(&mut self.frame_vars, 0);
        let ctx = SchemaContext {
            path: "#".into(),
            base: base.to_owned(),
            env_base: base.to_owned(),
            function: id,
            document: self.document_of(schema),
            data_types: Vec::new(),
            composite: false,
            data_var: "data".into(),
            defined: Rc::new(RefCell::new(HashSet::new())),
            function_root: true,
        };
        let (node, props, items) = self.build_tracked(schema, ctx)?;
        let frame = Frame {
            vars: self.frame_vars,
            props,
            items,
        };
        self.data_vars = saved_vars;
        self.frame_vars = saved_frame;
        let node = match node {
            SchemaNode::Object(mut obj) => {
                obj.frame = Some(frame.clone());
                SchemaNode::Object(obj)
            }
            other => other,
        };
        self.nodes[id] = node;
        self.finished.insert(id, frame);
        Ok(id)
    }

    fn subschema(&mut self, schema: &'s Value, ctx: SchemaContext) -> Result<NodeId, CompileError> {
        let (node, props, items) = self.build_tracked(schema, ctx)?;
        let id = self.push(node);
        self.states.insert(id, (props, items));
        Ok(id)
    }

    /// Builds a schema location with its own evaluated state (Ajv's subschema `it` starts with
    /// none), and says what it ended with.
    fn build_tracked(
        &mut self,
        schema: &'s Value,
        ctx: SchemaContext,
    ) -> Result<(SchemaNode, EvaluatedProps, EvaluatedItems), CompileError> {
        self.eval.push(EvaluatedSoFar {
            props: EvaluatedProps::Undefined,
            items: EvaluatedItems::Undefined,
            pending: Vec::new(),
        });
        let built = self.build(schema, ctx);
        let state = self.eval.pop();
        let node = built?;
        let (props, items) = state.map_or(
            (EvaluatedProps::Undefined, EvaluatedItems::Undefined),
            |s| (s.props, s.items),
        );
        Ok((node, props, items))
    }

    fn data_ctx(&mut self, parent: &SchemaContext, path: String) -> SchemaContext {
        let var = format!("data{}", self.data_vars);
        self.data_vars += 1;
        // Ajv's `extendSubschemaData` replaces the parent's definedProperties set.
        SchemaContext {
            path,
            base: parent.base.clone(),
            env_base: parent.env_base.clone(),
            function: parent.function,
            document: parent.document,
            data_types: Vec::new(),
            composite: parent.composite,
            data_var: var,
            defined: Rc::new(RefCell::new(HashSet::new())),
            function_root: false,
        }
    }

    fn same_data_ctx(parent: &SchemaContext, path: String, composite: bool) -> SchemaContext {
        SchemaContext {
            path,
            base: parent.base.clone(),
            env_base: parent.env_base.clone(),
            function: parent.function,
            document: parent.document,
            data_types: parent.data_types.clone(),
            composite: parent.composite || composite,
            data_var: parent.data_var.clone(),
            defined: parent.defined.clone(),
            function_root: false,
        }
    }

    fn pattern(&mut self, source: &str) -> Result<Arc<Pattern>, CompileError> {
        if let Some(p) = self.patterns.get(source) {
            return Ok(p.clone());
        }
        let regex = regexp::compile_unicode(source, regexp::running())
            .map_err(|error| pattern_error(source, "u", error))?;
        let pattern = Arc::new(Pattern {
            source: source.to_owned(),
            regex,
        });
        self.patterns.insert(source.to_owned(), pattern.clone());
        Ok(pattern)
    }

    /// Ajv's `alwaysValidSchema`: `true`, `{}`, or an object with no rule (after the
    /// unknown-keyword check, which it runs).
    fn always_valid(&self, schema: &Value) -> Result<bool, CompileError> {
        match schema {
            Value::Bool(b) => Ok(*b),
            Value::Object(map) if map.is_empty() => Ok(true),
            Value::Object(map) => {
                check_unknown(map)?;
                Ok(!map.keys().any(|k| has_rule(k)))
            }
            _ => Ok(false),
        }
    }

    fn in_meta(&self, ctx: &SchemaContext) -> bool {
        self.meta || is_meta_document(ctx.document)
    }

    fn strict_types(&self, ctx: &SchemaContext, message: String) -> CompileError {
        CompileError::strict(format!(
            "{message} at \"{}{}\" (strictTypes)",
            ctx.env_base, ctx.path
        ))
    }

    fn limit(
        &self,
        map: &Map<String, Value>,
        keyword: &str,
        non_negative_int: bool,
    ) -> Result<Limit, CompileError> {
        match map.get(keyword) {
            Some(Value::Number(n)) => {
                let value = value::number(n);
                let _ = non_negative_int;
                Ok(Limit {
                    value,
                    json: Value::Number(n.clone()),
                    text: number_to_string(value),
                })
            }
            _ => Err(CompileError::error(format!(
                "{keyword} value must be \"number\""
            ))),
        }
    }

    fn schema_list(
        &self,
        map: &'s Map<String, Value>,
        keyword: &str,
    ) -> Result<&'s Vec<Value>, CompileError> {
        match map.get(keyword) {
            Some(Value::Array(items)) => Ok(items),
            _ => Err(CompileError::error(format!(
                "{keyword} value must be \"array\""
            ))),
        }
    }

    /// Compiles one keyword of the schema at `ctx`, or `None` when it adds no check; each of
    /// Ajv's vocabularies has its own file.
    fn keyword(
        &mut self,
        schema: &'s Value,
        map: &'s Map<String, Value>,
        name: &str,
        ctx: &SchemaContext,
    ) -> Result<Option<Keyword>, CompileError> {
        match name {
            "id" | "$ref" | "$dynamicAnchor" | "$recursiveAnchor" | "$dynamicRef"
            | "$recursiveRef" => self.core_keyword(schema, map, name, ctx),
            "const" | "enum" | "maximum" | "minimum" | "exclusiveMaximum" | "exclusiveMinimum"
            | "multipleOf" | "maxLength" | "minLength" | "pattern" | "maxItems" | "minItems"
            | "uniqueItems" | "maxContains" | "minContains" | "maxProperties" | "minProperties"
            | "required" | "dependentRequired" => self.validation_keyword(map, name, ctx),
            "not"
            | "anyOf"
            | "oneOf"
            | "allOf"
            | "if"
            | "then"
            | "else"
            | "prefixItems"
            | "items"
            | "contains"
            | "propertyNames"
            | "additionalProperties"
            | "dependencies"
            | "properties"
            | "patternProperties"
            | "dependentSchemas" => self.applicator_keyword(map, name, ctx),
            "format" => self.format_keyword(map, ctx, false),
            "formatMaximum"
            | "formatMinimum"
            | "formatExclusiveMaximum"
            | "formatExclusiveMinimum" => self.format_limit_keyword(map, name, ctx),
            "unevaluatedItems" | "unevaluatedProperties" => {
                self.unevaluated_keyword(map, name, ctx)
            }
            _ => Ok(None),
        }
    }
}
