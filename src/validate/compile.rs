//! Compiling a schema the way Ajv's code generator walks it: the same keyword order, the same
//! strict-mode refusals raised in the same order (the first one is the error), the same
//! `schemaPath`s, and `$ref`s inlined where Ajv inlines them.

use super::formats::{self, Format, FormatType};
use super::issue::escape_fragment;
use super::js::{self, number_text};
use crate::json::holds_stand_in;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::rc::Rc;
use std::sync::{Arc, LazyLock};

/// Which way a value travels: a tool's input gets its defaults filled, its output does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Input,
    Output,
}

/// Why Ajv would not compile the schema: its error class name and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    /// `Error` or `MissingRefError`.
    pub name: &'static str,
    pub message: String,
}

impl CompileError {
    fn error(message: impl Into<String>) -> Self {
        CompileError {
            name: "Error",
            message: message.into(),
        }
    }

    fn strict(message: impl fmt::Display) -> Self {
        CompileError::error(format!("strict mode: {message}"))
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}

impl std::error::Error for CompileError {}

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

/// JSON Schema's data types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JType {
    Null,
    Boolean,
    Object,
    Array,
    Number,
    Integer,
    String,
}

impl JType {
    fn parse(name: &str) -> Option<JType> {
        Some(match name {
            "null" => JType::Null,
            "boolean" => JType::Boolean,
            "object" => JType::Object,
            "array" => JType::Array,
            "number" => JType::Number,
            "integer" => JType::Integer,
            "string" => JType::String,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            JType::Null => "null",
            JType::Boolean => "boolean",
            JType::Object => "object",
            JType::Array => "array",
            JType::Number => "number",
            JType::Integer => "integer",
            JType::String => "string",
        }
    }
}

/// Ajv's keyword groups, in the order its generated code checks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Any,
    Number,
    String,
    Array,
    Object,
}

impl Group {
    fn data_type(self) -> Option<JType> {
        match self {
            Group::Any => None,
            Group::Number => Some(JType::Number),
            Group::String => Some(JType::String),
            Group::Array => Some(JType::Array),
            Group::Object => Some(JType::Object),
        }
    }
}

/// Every keyword with a rule in Ajv 2020 (with ajv-formats), in registration order, with the
/// group its code runs in (`None`: no code) and the data types it applies to (for strictTypes).
const RULES: &[(&str, Option<Group>, &[JType])] = &[
    ("$dynamicAnchor", Some(Group::Any), &[]),
    ("$dynamicRef", Some(Group::Any), &[]),
    ("$recursiveAnchor", Some(Group::Any), &[]),
    ("$recursiveRef", Some(Group::Any), &[]),
    ("$comment", None, &[]),
    ("id", Some(Group::Any), &[]),
    ("$ref", Some(Group::Any), &[]),
    ("maximum", Some(Group::Number), &[JType::Number]),
    ("minimum", Some(Group::Number), &[JType::Number]),
    ("exclusiveMaximum", Some(Group::Number), &[JType::Number]),
    ("exclusiveMinimum", Some(Group::Number), &[JType::Number]),
    ("multipleOf", Some(Group::Number), &[JType::Number]),
    ("maxLength", Some(Group::String), &[JType::String]),
    ("minLength", Some(Group::String), &[JType::String]),
    ("pattern", Some(Group::String), &[JType::String]),
    ("maxProperties", Some(Group::Object), &[JType::Object]),
    ("minProperties", Some(Group::Object), &[JType::Object]),
    ("required", Some(Group::Object), &[JType::Object]),
    ("maxItems", Some(Group::Array), &[JType::Array]),
    ("minItems", Some(Group::Array), &[JType::Array]),
    ("uniqueItems", Some(Group::Array), &[JType::Array]),
    ("type", None, &[]),
    ("nullable", None, &[]),
    ("const", Some(Group::Any), &[]),
    ("enum", Some(Group::Any), &[]),
    ("not", Some(Group::Any), &[]),
    ("anyOf", Some(Group::Any), &[]),
    ("oneOf", Some(Group::Any), &[]),
    ("allOf", Some(Group::Any), &[]),
    ("if", Some(Group::Any), &[]),
    ("then", Some(Group::Any), &[]),
    ("else", Some(Group::Any), &[]),
    ("propertyNames", Some(Group::Object), &[JType::Object]),
    (
        "additionalProperties",
        Some(Group::Object),
        &[JType::Object],
    ),
    ("dependencies", Some(Group::Object), &[JType::Object]),
    ("properties", Some(Group::Object), &[JType::Object]),
    ("patternProperties", Some(Group::Object), &[JType::Object]),
    ("prefixItems", Some(Group::Array), &[JType::Array]),
    ("items", Some(Group::Array), &[JType::Array]),
    ("contains", Some(Group::Array), &[JType::Array]),
    (
        "format",
        Some(Group::Number),
        &[JType::Number, JType::String],
    ),
    ("dependentRequired", Some(Group::Object), &[JType::Object]),
    ("dependentSchemas", Some(Group::Object), &[JType::Object]),
    ("maxContains", Some(Group::Array), &[JType::Array]),
    ("minContains", Some(Group::Array), &[JType::Array]),
    (
        "unevaluatedProperties",
        Some(Group::Object),
        &[JType::Object],
    ),
    ("unevaluatedItems", Some(Group::Array), &[JType::Array]),
    ("formatMaximum", Some(Group::String), &[JType::String]),
    ("formatMinimum", Some(Group::String), &[JType::String]),
    (
        "formatExclusiveMaximum",
        Some(Group::String),
        &[JType::String],
    ),
    (
        "formatExclusiveMinimum",
        Some(Group::String),
        &[JType::String],
    ),
];

/// The meta-schemas Ajv 2020 knows (a `$schema` naming another is refused).
const KNOWN_META_SCHEMAS: &[&str] = &[
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/meta/core",
    "https://json-schema.org/draft/2020-12/meta/applicator",
    "https://json-schema.org/draft/2020-12/meta/unevaluated",
    "https://json-schema.org/draft/2020-12/meta/validation",
    "https://json-schema.org/draft/2020-12/meta/meta-data",
    "https://json-schema.org/draft/2020-12/meta/format-annotation",
    "https://json-schema.org/draft/2020-12/meta/content",
];

/// Keywords Ajv knows without a rule (they configure or annotate): they neither make a schema
/// "have rules" nor run.
const PLAIN_KEYWORDS: &[&str] = &[
    "$async",
    "$schema",
    "$id",
    "$defs",
    "$vocabulary",
    "definitions",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
];

/// The order in which keywords run inside each group (`format` runs in both the number and the
/// string group; the array and object groups have `before` insertions applied).
const GROUP_ORDER: &[(Group, &[&str])] = &[
    (
        Group::Any,
        &[
            "$dynamicAnchor",
            "$dynamicRef",
            "$recursiveAnchor",
            "$recursiveRef",
            "id",
            "$ref",
            "const",
            "enum",
            "not",
            "anyOf",
            "oneOf",
            "allOf",
            "if",
            "then",
            "else",
        ],
    ),
    (
        Group::Number,
        &[
            "maximum",
            "minimum",
            "exclusiveMaximum",
            "exclusiveMinimum",
            "multipleOf",
            "format",
        ],
    ),
    (
        Group::String,
        &[
            "maxLength",
            "minLength",
            "pattern",
            "format",
            "formatMaximum",
            "formatMinimum",
            "formatExclusiveMaximum",
            "formatExclusiveMinimum",
        ],
    ),
    (
        Group::Array,
        &[
            "maxItems",
            "minItems",
            "prefixItems",
            "items",
            "contains",
            "uniqueItems",
            "maxContains",
            "minContains",
            "unevaluatedItems",
        ],
    ),
    (
        Group::Object,
        &[
            "maxProperties",
            "minProperties",
            "required",
            "propertyNames",
            "additionalProperties",
            "dependencies",
            "properties",
            "patternProperties",
            "dependentRequired",
            "dependentSchemas",
            "unevaluatedProperties",
        ],
    ),
];

fn is_known_keyword(key: &str) -> bool {
    PLAIN_KEYWORDS.contains(&key) || RULES.iter().any(|(k, _, _)| *k == key)
}

fn has_rule(key: &str) -> bool {
    RULES.iter().any(|(k, _, _)| *k == key)
}

pub type NodeId = usize;

/// Which properties a schema has evaluated, as Ajv's code generator knows it (`it.props`): not
/// yet any, all, a static set, or a variable of the generated function that holds them at run
/// time. Ajv's `unevaluatedProperties` answers depend on exactly where it switches to a variable.
#[derive(Debug, Clone, PartialEq)]
pub enum PState {
    Undefined,
    True,
    Keys(Vec<String>),
    Var(usize),
}

/// `it.items`: the same for items (a count instead of a set).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IState {
    Undefined,
    True,
    Num(f64),
    Var(usize),
}

/// A static value a variable is set to or merged with.
#[derive(Debug, Clone, PartialEq)]
pub enum PropsValue {
    True,
    Keys(Vec<String>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ItemsValue {
    True,
    Num(f64),
}

/// The run-time bookkeeping Ajv's generated code does for evaluated properties and items: each
/// op is one of its statements, run where the generated code runs it.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalOp {
    /// `var props = true` / `var props = {}; props.a = true; …`
    PropsInit {
        var: usize,
        value: PropsValue,
    },
    /// `if (to !== true) { to = to || {}; to.a = true; … }` (or `to = true`).
    PropsMergeStatic {
        to: usize,
        from: PropsValue,
    },
    /// `if (to !== true && from !== undefined) { … Object.assign(to, from) }`
    PropsMergeVar {
        from: usize,
        to: usize,
    },
    /// `var props = validate.evaluated.props` after a call.
    PropsFromCall {
        var: usize,
    },
    ItemsInit {
        var: usize,
        value: ItemsValue,
    },
    ItemsMergeStatic {
        to: usize,
        from: ItemsValue,
    },
    ItemsMergeVar {
        from: usize,
        to: usize,
    },
    ItemsFromCall {
        var: usize,
    },
}

/// A compiled function's frame: how many variables it declares, and what it reports as
/// evaluated (static, or the variables that hold it).
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub vars: usize,
    pub props: PState,
    pub items: IState,
}

/// The state one schema location accumulates while its keywords compile.
#[derive(Debug, Clone)]
struct EvalState {
    props: PState,
    items: IState,
    /// Ops to run before the keyword being compiled.
    pending: Vec<EvalOp>,
}

/// A compiled schema location.
#[derive(Debug)]
pub enum Node {
    /// `true`, or an object schema with no rule (always valid).
    True,
    /// `false`, at its schema path.
    False(String),
    Obj(Box<ObjNode>),
    /// A slot being compiled (a recursive reference points here until it is filled).
    Pending,
}

#[derive(Debug)]
pub struct ObjNode {
    /// Ajv's `errSchemaPath` of this schema.
    pub path: String,
    pub types: Vec<JType>,
    /// The raw `type` value, for the type error's params and message.
    pub type_value: Value,
    /// The type is checked before every keyword (several types, or no keyword of its group).
    pub type_first: bool,
    pub groups: Vec<GroupCode>,
    /// Input side: properties' defaults, filled before the object group runs.
    pub defaults: Vec<(String, Value)>,
    /// Set when this schema is a compiled function of its own (the root, a called `$ref`).
    pub frame: Option<Frame>,
}

#[derive(Debug)]
pub struct GroupCode {
    pub group: Group,
    pub keywords: Vec<Keyword>,
    /// Report the type error when the data is not of this group's type.
    pub type_error: bool,
}

/// A number keyword's limit: its value and the text Ajv prints for it.
#[derive(Debug, Clone)]
pub struct Limit {
    pub value: f64,
    pub json: Value,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Max,
    Min,
    ExclusiveMax,
    ExclusiveMin,
}

impl Comparison {
    pub fn ok_str(self) -> &'static str {
        match self {
            Comparison::Max => "<=",
            Comparison::Min => ">=",
            Comparison::ExclusiveMax => "<",
            Comparison::ExclusiveMin => ">",
        }
    }

    pub fn keyword(self, format: bool) -> &'static str {
        match (self, format) {
            (Comparison::Max, false) => "maximum",
            (Comparison::Min, false) => "minimum",
            (Comparison::ExclusiveMax, false) => "exclusiveMaximum",
            (Comparison::ExclusiveMin, false) => "exclusiveMinimum",
            (Comparison::Max, true) => "formatMaximum",
            (Comparison::Min, true) => "formatMinimum",
            (Comparison::ExclusiveMax, true) => "formatExclusiveMaximum",
            (Comparison::ExclusiveMin, true) => "formatExclusiveMinimum",
        }
    }

    /// Whether `ordering` (data against the limit) passes.
    pub fn passes(self, ordering: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Comparison::Max => ordering != Greater,
            Comparison::Min => ordering != Less,
            Comparison::ExclusiveMax => ordering == Less,
            Comparison::ExclusiveMin => ordering == Greater,
        }
    }
}

/// A compiled ECMAScript regular expression (`new RegExp(source, "u")`).
pub struct Pattern {
    pub source: String,
    pub regex: regress::Regex,
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "/{}/u", self.source)
    }
}

impl Pattern {
    pub fn test(&self, text: &str) -> bool {
        self.regex.find(text).is_some()
    }
}

/// The keywords' compiled forms; `path` fields are the keyword's `schemaPath`.
#[derive(Debug)]
pub enum Keyword {
    /// `inline`: compiled into the referring schema (its evaluated properties merge always);
    /// otherwise called as a function (they merge when it passes).
    Ref {
        target: NodeId,
        inline: bool,
        merge: Vec<EvalOp>,
    },
    /// Evaluated-properties bookkeeping between keywords.
    Eval(Vec<EvalOp>),
    /// `$dynamicAnchor`: the first one met while validating becomes where `$dynamicRef`s to
    /// its name go.
    DynamicAnchor {
        name: String,
        target: NodeId,
    },
    /// `$dynamicRef: "#name"`: to the dynamic anchor when the document declared one before this
    /// point (Ajv decides that while generating code), else to the enclosing function's schema.
    DynamicRef {
        anchor: String,
        dynamic: bool,
        fallback: NodeId,
        merge_dynamic: Vec<EvalOp>,
        merge: Vec<EvalOp>,
    },
    Const {
        path: String,
        value: Value,
    },
    Enum {
        path: String,
        values: Vec<Value>,
        json: Value,
    },
    Not {
        path: String,
        node: NodeId,
    },
    /// `merges[i]` runs when branch `i` passes.
    AnyOf {
        path: String,
        nodes: Vec<NodeId>,
        merges: Vec<Vec<EvalOp>>,
    },
    OneOf {
        path: String,
        nodes: Vec<NodeId>,
        merges: Vec<Vec<EvalOp>>,
    },
    /// `merges[i]` runs after branch `i`, passed or not.
    AllOf {
        nodes: Vec<NodeId>,
        merges: Vec<Vec<EvalOp>>,
    },
    If {
        path: String,
        cond: NodeId,
        /// Runs after the condition, whatever it answered.
        cond_merge: Vec<EvalOp>,
        then: Option<(NodeId, Vec<EvalOp>)>,
        otherwise: Option<(NodeId, Vec<EvalOp>)>,
    },
    NumberLimit {
        path: String,
        cmp: Comparison,
        limit: Limit,
    },
    MultipleOf {
        path: String,
        limit: Limit,
    },
    Format {
        path: String,
        name: String,
        format: &'static Format,
    },
    FormatLimit {
        path: String,
        cmp: Comparison,
        format: &'static Format,
        limit: String,
    },
    MaxLength {
        path: String,
        limit: Limit,
    },
    MinLength {
        path: String,
        limit: Limit,
    },
    Pattern {
        path: String,
        pattern: Arc<Pattern>,
    },
    MaxItems {
        path: String,
        limit: Limit,
    },
    MinItems {
        path: String,
        limit: Limit,
    },
    PrefixItems {
        nodes: Vec<Option<NodeId>>,
    },
    /// `items`: `node` for the items from `from` on; `false_after_prefix` when it is `false`
    /// after `prefixItems` (a length check).
    Items {
        path: String,
        node: Option<NodeId>,
        from: usize,
        false_after_prefix: bool,
    },
    Contains {
        path: String,
        node: Option<NodeId>,
        min: f64,
        max: Option<f64>,
        min_json: Value,
        max_json: Option<Value>,
    },
    UniqueItems {
        path: String,
        scalar_types: Option<Vec<JType>>,
    },
    UnevaluatedItems {
        path: String,
        node: Option<NodeId>,
        is_false: bool,
        state: IState,
    },
    MaxProperties {
        path: String,
        limit: Limit,
    },
    MinProperties {
        path: String,
        limit: Limit,
    },
    Required {
        path: String,
        names: Vec<String>,
    },
    PropertyNames {
        path: String,
        node: NodeId,
    },
    AdditionalProperties {
        path: String,
        node: Option<NodeId>,
        is_false: bool,
        props: Vec<String>,
        patterns: Vec<Arc<Pattern>>,
    },
    Properties {
        props: Vec<(String, Option<NodeId>, bool)>,
    },
    /// `mark`: the variable that records the matched names (for `unevaluatedProperties`).
    PatternProperties {
        patterns: Vec<(Arc<Pattern>, Option<NodeId>)>,
        mark: Option<usize>,
    },
    DependentRequired {
        path: String,
        deps: Vec<(String, Vec<String>)>,
    },
    /// Each dependency's merge runs when its schema passes.
    DependentSchemas {
        deps: Vec<(String, NodeId, Vec<EvalOp>)>,
    },
    UnevaluatedProperties {
        path: String,
        node: Option<NodeId>,
        is_false: bool,
        state: PState,
    },
}

#[derive(Debug)]
pub struct Program {
    pub nodes: Vec<Node>,
    pub root: NodeId,
    /// Whether an `unevaluatedProperties` or `unevaluatedItems` reads what was evaluated at
    /// run time. Without one, the evaluated-tracking variables are never read, and a run skips
    /// them (the frames, their ops and what each call evaluated).
    pub reads_evaluated: bool,
}

/// The 2020-12 meta-schema and its vocabularies, which Ajv validates every schema against and
/// which a schema may `$ref`.
const META_DOCUMENTS: [&str; 8] = [
    include_str!("meta/schema.json"),
    include_str!("meta/core.json"),
    include_str!("meta/applicator.json"),
    include_str!("meta/unevaluated.json"),
    include_str!("meta/validation.json"),
    include_str!("meta/meta-data.json"),
    include_str!("meta/format-annotation.json"),
    include_str!("meta/content.json"),
];

static META_VALUES: LazyLock<Vec<Value>> = LazyLock::new(|| {
    META_DOCUMENTS
        .iter()
        .filter_map(|text| serde_json::from_str(text).ok())
        .collect()
});

/// The compiled meta-schema (`https://json-schema.org/draft/2020-12/schema`).
static META_PROGRAM: LazyLock<Result<Program, CompileError>> = LazyLock::new(|| {
    let metas = &*META_VALUES;
    let root = metas
        .first()
        .ok_or_else(|| CompileError::error("meta-schema not available"))?;
    let mut compiler = Compiler::new(root, Side::Output, metas, true)?;
    let base = compiler.resources.root_base.clone();
    let entry = compiler.call(root, &base, root)?;
    Ok(Program {
        nodes: compiler.nodes,
        root: entry,
        reads_evaluated: compiler.reads_evaluated,
    })
});

/// Compiles `schema` for `side`, in the order Ajv's `compile` checks things: the schema's
/// shape and `$id`, its resources and anchors, the meta-schema, then the code generator's strict
/// checks.
pub fn compile(schema: &Value, side: Side) -> Result<Program, CompileError> {
    if schema.is_null() {
        // `typeof null` is "object" to Ajv, which then reads its `$id`.
        return Err(CompileError {
            name: "TypeError",
            message: "Cannot read properties of null (reading '$id')".into(),
        });
    }
    if !schema.is_object() && !schema.is_boolean() {
        return Err(CompileError::error("schema must be object or boolean"));
    }
    match schema.get("$id") {
        // Ajv's `normalizeId` calls `.replace` on it.
        Some(id) if !id.is_string() && js_truthy(id) => {
            return Err(CompileError {
                name: "TypeError",
                message: "id.replace is not a function".into(),
            })
        }
        Some(Value::String(id)) => {
            let id = normalize_id(id);
            if META_VALUES
                .iter()
                .any(|m| m.get("$id").and_then(Value::as_str) == Some(id.as_str()))
            {
                return Err(CompileError::error(format!(
                    "schema with key or id \"{id}\" already exists"
                )));
            }
        }
        _ => {}
    }
    // Resources and anchors are collected (and checked) before the meta-schema runs.
    collect_resources(schema, &[])?;
    if let Some(meta) = schema.get("$schema") {
        let Some(name) = meta.as_str() else {
            return Err(CompileError::error("$schema must be a string"));
        };
        if !KNOWN_META_SCHEMAS.contains(&normalize_id(name).as_str()) {
            return Err(CompileError::error(format!(
                "no schema with key or ref \"{name}\""
            )));
        }
    }
    validate_against_meta(schema)?;
    let mut compiler = Compiler::new(schema, side, &META_VALUES, false)?;
    let base = compiler.resources.root_base.clone();
    let root = compiler.call(schema, &base, schema)?;
    Ok(Program {
        nodes: compiler.nodes,
        root,
        reads_evaluated: compiler.reads_evaluated,
    })
}

/// JavaScript truthiness of a JSON value.
fn js_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => js::number(n) != 0.0 && !js::number(n).is_nan(),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// Ajv's `validateSchema`: the schema against the meta-schema, refused with `errorsText`.
fn validate_against_meta(schema: &Value) -> Result<(), CompileError> {
    let program = match &*META_PROGRAM {
        Ok(program) => program,
        Err(error) => return Err(error.clone()),
    };
    let mut copy = schema.clone();
    match super::run::validate(program, &mut copy) {
        Ok(_) => Ok(()),
        Err(super::run::Invalid::Recursion) => Err(CompileError {
            name: "RangeError",
            message: "Maximum call stack size exceeded".into(),
        }),
        Err(super::run::Invalid::Issues(issues)) => {
            let text: Vec<String> = issues
                .iter()
                .map(|i| format!("data{} {}", i.instance_path, i.message))
                .collect();
            Err(CompileError::error(format!(
                "schema is invalid: {}",
                text.join(", ")
            )))
        }
    }
}

/// The schema resources (`$id`s) and anchors of a document, by absolute URI.
struct Resources<'s> {
    /// Target schema and its base URI, by absolute URI.
    by_uri: HashMap<String, (&'s Value, String)>,
    /// The document each resource belongs to (its root), by the resource's base URI.
    root_base: String,
}

fn collect_resources<'s>(
    schema: &'s Value,
    extra: &'s [Value],
) -> Result<Resources<'s>, CompileError> {
    let mut by_uri = HashMap::new();
    // Meta-schemas first: the document's own resources win on a clash.
    for document in extra {
        if std::ptr::eq(document, schema) {
            continue;
        }
        let base = document
            .get("$id")
            .and_then(Value::as_str)
            .map(normalize_id)
            .unwrap_or_default();
        by_uri.insert(base.clone(), (document, base.clone()));
        walk_resources(document, &base, &mut by_uri, true)?;
    }
    let root_base = match schema.get("$id").and_then(Value::as_str) {
        Some(id) => normalize_id(&resolve_uri("", id)),
        None => String::new(),
    };
    by_uri.insert(root_base.clone(), (schema, root_base.clone()));
    walk_resources(schema, &root_base, &mut by_uri, true)?;
    Ok(Resources { by_uri, root_base })
}

/// Keywords whose values `json-schema-traverse` does not treat as schemas.
const NOT_SCHEMA_KEYWORDS: &[&str] = &[
    "default",
    "enum",
    "const",
    "required",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "multipleOf",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
];
/// Keywords holding an array of schemas.
const SCHEMA_ARRAY_KEYWORDS: &[&str] = &["items", "allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords holding a map of schemas.
const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "$defs",
    "definitions",
    "properties",
    "patternProperties",
    "dependencies",
    "dependentSchemas",
];

/// Ajv's `getSchemaRefs`: every `$id` and anchor, by absolute URI, over every key (unknown
/// keywords included); an id or anchor that names two different schemas is refused.
fn walk_resources<'s>(
    schema: &'s Value,
    base: &str,
    by_uri: &mut HashMap<String, (&'s Value, String)>,
    is_root: bool,
) -> Result<(), CompileError> {
    let Value::Object(map) = schema else {
        return Ok(());
    };
    let mut base = base.to_owned();
    let register = |uri: String, base: &str, by_uri: &mut HashMap<String, (&'s Value, String)>| {
        if let Some((existing, _)) = by_uri.get(&uri) {
            if !std::ptr::eq(*existing, schema) && !js::deep_equal(existing, schema) {
                return Err(CompileError::error(format!(
                    "reference \"{uri}\" resolves to more than one schema"
                )));
            }
        }
        by_uri.insert(uri, (schema, base.to_owned()));
        Ok(())
    };
    if !is_root {
        if let Some(id) = map.get("$id").and_then(Value::as_str) {
            base = normalize_id(&resolve_uri(&base, id));
            register(base.clone(), &base.clone(), by_uri)?;
        }
    }
    for anchor_key in ["$anchor", "$dynamicAnchor"] {
        if let Some(anchor) = map.get(anchor_key).and_then(Value::as_str) {
            let valid = anchor
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && anchor
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
            if !valid {
                return Err(CompileError::error(format!("invalid anchor \"{anchor}\"")));
            }
            register(format!("{base}#{anchor}"), &base.clone(), by_uri)?;
        }
    }
    for (key, value) in map {
        if NOT_SCHEMA_KEYWORDS.contains(&key.as_str()) {
            continue;
        }
        match value {
            Value::Array(items) if SCHEMA_ARRAY_KEYWORDS.contains(&key.as_str()) => {
                for item in items {
                    walk_resources(item, &base, by_uri, false)?;
                }
            }
            Value::Object(members) if SCHEMA_MAP_KEYWORDS.contains(&key.as_str()) => {
                for member in members.values() {
                    walk_resources(member, &base, by_uri, false)?;
                }
            }
            Value::Object(_) => walk_resources(value, &base, by_uri, false)?,
            _ => {}
        }
    }
    Ok(())
}

/// `#` and a trailing empty fragment dropped, as Ajv's `normalizeId` does.
fn normalize_id(id: &str) -> String {
    id.strip_suffix('#').unwrap_or(id).to_owned()
}

/// `$id` and `$ref` resolution, as Ajv's `fast-uri` resolves them.
fn resolve_uri(base: &str, reference: &str) -> String {
    super::uri::resolve(base, reference)
}

/// What a schema location is compiled with: Ajv's `SchemaCxt` fields that matter here.
#[derive(Clone)]
struct Ctx {
    path: String,
    /// `it.baseId`: where references resolve from.
    base: String,
    /// `schemaEnv.baseId`: what strict-mode messages print before the path.
    env_base: String,
    /// The function (compiled schema root) this location belongs to.
    function: NodeId,
    /// The document (`schemaEnv.root`) it belongs to, for dynamic anchors.
    document: *const Value,
    data_types: Vec<JType>,
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
    nodes: Vec<Node>,
    /// Schemas compiled as functions of their own (the root, non-inlined `$ref` targets).
    called: HashMap<*const Value, NodeId>,
    patterns: HashMap<String, Arc<Pattern>>,
    /// Ajv names each new data variable `data0`, `data1`, … within a function.
    data_vars: usize,
    /// Evaluated-tracking variables declared so far in the function being compiled.
    frame_vars: usize,
    /// The evaluated state of each schema location being compiled, innermost last.
    eval: Vec<EvalState>,
    /// The final evaluated state of each compiled subschema.
    states: HashMap<NodeId, (PState, IState)>,
    /// What each finished function reports as evaluated (Ajv's `validate.evaluated`).
    finished: HashMap<NodeId, Frame>,
    /// See [`Program::reads_evaluated`].
    reads_evaluated: bool,
    resources: Resources<'s>,
}

/// Whether a schema holds a reference or a dynamic anchor anywhere (Ajv's `inlineRef` with
/// the default limit, over its `REF_KEYWORDS`).
fn has_ref(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(k, v)| {
            matches!(
                k.as_str(),
                "$ref" | "$dynamicRef" | "$recursiveRef" | "$dynamicAnchor" | "$recursiveAnchor"
            ) || (!matches!(k.as_str(), "const" | "enum" | "default" | "examples") && has_ref(v))
        }),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

fn json_pointer_get<'s>(root: &'s Value, pointer: &str) -> Option<&'s Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let mut current = root;
    for raw in pointer.strip_prefix('/')?.split('/') {
        let decoded = percent_decode(raw)?;
        let segment = decoded.replace("~1", "/").replace("~0", "~");
        current = match current {
            Value::Object(map) => map.get(&segment)?,
            Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn schema_type_names(value: &Value) -> Option<Vec<&str>> {
    match value {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(items) => items.iter().map(Value::as_str).collect(),
        _ => None,
    }
}

fn includes_type(types: &[JType], t: JType) -> bool {
    types.contains(&t) || (t == JType::Integer && types.contains(&JType::Number))
}

fn has_applicable_type(types: &[JType], keyword_type: JType) -> bool {
    types.contains(&keyword_type)
        || (keyword_type == JType::Number && types.contains(&JType::Integer))
}

/// `JSON.stringify` of a schema value in an error message.
fn js_stringify(value: &Value) -> String {
    crate::json::to_js_json(value)
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

    fn push(&mut self, node: Node) -> NodeId {
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
        let id = self.push(Node::Pending);
        self.called.insert(key, id);
        let saved_vars = std::mem::replace(&mut self.data_vars, 0);
        let saved_frame = std::mem::replace(&mut self.frame_vars, 0);
        let ctx = Ctx {
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
            Node::Obj(mut obj) => {
                obj.frame = Some(frame.clone());
                Node::Obj(obj)
            }
            other => other,
        };
        self.nodes[id] = node;
        self.finished.insert(id, frame);
        Ok(id)
    }

    fn subschema(&mut self, schema: &'s Value, ctx: Ctx) -> Result<NodeId, CompileError> {
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
        ctx: Ctx,
    ) -> Result<(Node, PState, IState), CompileError> {
        self.eval.push(EvalState {
            props: PState::Undefined,
            items: IState::Undefined,
            pending: Vec::new(),
        });
        let built = self.build(schema, ctx);
        let state = self.eval.pop();
        let node = built?;
        let (props, items) = state.map_or((PState::Undefined, IState::Undefined), |s| {
            (s.props, s.items)
        });
        Ok((node, props, items))
    }

    fn current(&mut self) -> Option<&mut EvalState> {
        self.eval.last_mut()
    }

    fn new_var(&mut self) -> usize {
        self.frame_vars += 1;
        self.frame_vars - 1
    }

    /// Ajv's `mergeEvaluated.props(gen, from, to, toName)`: the new state, with the code it
    /// generates in `ops`.
    fn merge_props(
        &mut self,
        from: PState,
        to: PState,
        to_name: bool,
        ops: &mut Vec<EvalOp>,
    ) -> PState {
        let static_value = |state: &PState| match state {
            PState::True => Some(PropsValue::True),
            PState::Keys(keys) => Some(PropsValue::Keys(keys.clone())),
            _ => None,
        };
        let result = match (&from, &to) {
            (_, PState::Undefined) => from.clone(),
            (PState::Var(f), PState::Var(t)) => {
                ops.push(EvalOp::PropsMergeVar { from: *f, to: *t });
                to.clone()
            }
            (_, PState::Var(t)) => {
                if let Some(value) = static_value(&from) {
                    ops.push(EvalOp::PropsMergeStatic {
                        to: *t,
                        from: value,
                    });
                }
                to.clone()
            }
            (PState::Var(f), _) => {
                if let Some(value) = static_value(&to) {
                    ops.push(EvalOp::PropsMergeStatic {
                        to: *f,
                        from: value,
                    });
                }
                from.clone()
            }
            (PState::True, _) => PState::True,
            (PState::Keys(f), PState::Keys(t)) => {
                let mut keys = f.clone();
                for key in t {
                    if !keys.contains(key) {
                        keys.push(key.clone());
                    }
                }
                PState::Keys(keys)
            }
            (_, other) => other.clone(),
        };
        if to_name && !matches!(result, PState::Var(_)) {
            let var = self.new_var();
            let value = match &result {
                PState::True => PropsValue::True,
                PState::Keys(keys) => PropsValue::Keys(keys.clone()),
                _ => PropsValue::Keys(Vec::new()),
            };
            ops.push(EvalOp::PropsInit { var, value });
            return PState::Var(var);
        }
        result
    }

    /// Ajv's `mergeEvaluated.items(gen, from, to, toName)`.
    fn merge_items(
        &mut self,
        from: IState,
        to: IState,
        to_name: bool,
        ops: &mut Vec<EvalOp>,
    ) -> IState {
        let static_value = |state: IState| match state {
            IState::True => Some(ItemsValue::True),
            IState::Num(n) => Some(ItemsValue::Num(n)),
            _ => None,
        };
        let result = match (from, to) {
            (_, IState::Undefined) => from,
            (IState::Var(f), IState::Var(t)) => {
                ops.push(EvalOp::ItemsMergeVar { from: f, to: t });
                to
            }
            (_, IState::Var(t)) => {
                if let Some(value) = static_value(from) {
                    ops.push(EvalOp::ItemsMergeStatic { to: t, from: value });
                }
                to
            }
            (IState::Var(f), _) => {
                if let Some(value) = static_value(to) {
                    ops.push(EvalOp::ItemsMergeStatic { to: f, from: value });
                }
                from
            }
            (IState::True, _) => IState::True,
            (IState::Num(a), IState::Num(b)) => IState::Num(a.max(b)),
            (_, other) => other,
        };
        if to_name && !matches!(result, IState::Var(_)) {
            let var = self.new_var();
            let value = match result {
                IState::True => ItemsValue::True,
                IState::Num(n) => ItemsValue::Num(n),
                _ => ItemsValue::Num(0.0),
            };
            // Ajv's `resultToName` for items is `var items = <value>` (undefined stays undefined).
            if !matches!(result, IState::Undefined) {
                ops.push(EvalOp::ItemsInit { var, value });
            }
            return IState::Var(var);
        }
        result
    }

    /// Ajv's `KeywordCxt.mergeEvaluated(schemaCxt, toName)` of subschema `node` into the
    /// current location; returns the generated code.
    fn merge_evaluated(&mut self, node: NodeId, to_name: bool) -> Vec<EvalOp> {
        let mut ops = Vec::new();
        let (from_props, from_items) = self
            .states
            .get(&node)
            .cloned()
            .unwrap_or((PState::Undefined, IState::Undefined));
        self.merge_state(from_props, from_items, to_name, &mut ops);
        ops
    }

    fn merge_state(
        &mut self,
        from_props: PState,
        from_items: IState,
        to_name: bool,
        ops: &mut Vec<EvalOp>,
    ) {
        let Some(current) = self.eval.last().cloned() else {
            return;
        };
        let mut props = current.props.clone();
        let mut items = current.items;
        if props != PState::True && from_props != PState::Undefined {
            props = self.merge_props(from_props, props, to_name, ops);
        }
        if items != IState::True && from_items != IState::Undefined {
            items = self.merge_items(from_items, items, to_name, ops);
        }
        if let Some(state) = self.current() {
            state.props = props;
            state.items = items;
        }
    }

    /// Ajv's `mergeValidEvaluated`: the merge, run only when the subschema passed.
    fn merge_valid_evaluated(&mut self, node: NodeId) -> Vec<EvalOp> {
        let both_true = self
            .eval
            .last()
            .is_some_and(|s| s.props == PState::True && s.items == IState::True);
        if both_true {
            return Vec::new();
        }
        self.merge_evaluated(node, true)
    }

    /// Ajv's `addEvaluatedFrom` after calling function `target` (in the success branch).
    fn merge_from_call(&mut self, target: Option<NodeId>) -> Vec<EvalOp> {
        let mut ops = Vec::new();
        let Some(current) = self.eval.last().cloned() else {
            return ops;
        };
        let known = target.and_then(|t| self.finished.get(&t).cloned());
        let mut props = current.props.clone();
        let mut items = current.items;
        if props != PState::True {
            match &known {
                Some(frame) if !matches!(frame.props, PState::Var(_)) => {
                    if frame.props != PState::Undefined {
                        props = self.merge_props(frame.props.clone(), props, false, &mut ops);
                    }
                }
                _ => {
                    let var = self.new_var();
                    ops.push(EvalOp::PropsFromCall { var });
                    props = self.merge_props(PState::Var(var), props, true, &mut ops);
                }
            }
        }
        if items != IState::True {
            match &known {
                Some(frame) if !matches!(frame.items, IState::Var(_)) => {
                    if frame.items != IState::Undefined {
                        items = self.merge_items(frame.items, items, false, &mut ops);
                    }
                }
                _ => {
                    let var = self.new_var();
                    ops.push(EvalOp::ItemsFromCall { var });
                    items = self.merge_items(IState::Var(var), items, true, &mut ops);
                }
            }
        }
        if let Some(state) = self.current() {
            state.props = props;
            state.items = items;
        }
        ops
    }

    fn set_props(&mut self, props: PState) {
        if let Some(state) = self.current() {
            state.props = props;
        }
    }

    fn set_items(&mut self, items: IState) {
        if let Some(state) = self.current() {
            state.items = items;
        }
    }

    fn take_pending(&mut self) -> Vec<EvalOp> {
        self.current()
            .map(|s| std::mem::take(&mut s.pending))
            .unwrap_or_default()
    }

    /// A subschema for a new data location: a new data variable, no inherited types.
    /// The schema of `unevaluatedItems` / `unevaluatedProperties`: `false` is checked without a
    /// node, an always-valid schema needs none, anything else is compiled for each member.
    fn unevaluated_schema(
        &mut self,
        value: &'s Value,
        ctx: &Ctx,
        path: &str,
    ) -> Result<(Option<NodeId>, bool), CompileError> {
        let is_false = value == &Value::Bool(false);
        if is_false || self.always_valid(value)? {
            return Ok((None, is_false));
        }
        let sub = self.data_ctx(ctx, path.to_owned());
        Ok((Some(self.subschema(value, sub)?), false))
    }

    fn data_ctx(&mut self, parent: &Ctx, path: String) -> Ctx {
        let var = format!("data{}", self.data_vars);
        self.data_vars += 1;
        // Ajv's `extendSubschemaData` replaces the parent's definedProperties set.
        Ctx {
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

    fn same_data_ctx(parent: &Ctx, path: String, composite: bool) -> Ctx {
        Ctx {
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
        let regex = regress::Regex::with_flags(source, "u").map_err(|e| CompileError {
            name: "SyntaxError",
            message: format!(
                "Invalid regular expression: /{source}/u: {}",
                v8_regex_reason(source, &e.to_string())
            ),
        })?;
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

    fn build(&mut self, schema: &'s Value, mut ctx: Ctx) -> Result<Node, CompileError> {
        let map = match schema {
            Value::Bool(true) => return Ok(Node::True),
            Value::Bool(false) => return Ok(Node::False(ctx.path)),
            Value::Object(map) => map,
            _ => return Err(CompileError::error("schema must be object or boolean")),
        };
        check_unknown(map)?;
        if !map.keys().any(|k| has_rule(k)) {
            return Ok(Node::True);
        }
        if !ctx.function_root {
            if let Some(id) = map.get("$id").and_then(Value::as_str) {
                ctx.base = normalize_id(&resolve_uri(&ctx.base, id));
            }
        }
        let in_meta = self.meta || META_VALUES.iter().any(|m| std::ptr::eq(m, ctx.document));
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
                match JType::parse(name) {
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
            Some(Value::Bool(false)) if types.contains(&JType::Null) => {
                return Err(CompileError::error(
                    "type: null contradicts nullable: false",
                ))
            }
            Some(_) if types.is_empty() => {
                return Err(CompileError::error(
                    "\"nullable\" cannot be used without \"type\"",
                ))
            }
            Some(Value::Bool(true)) if !types.contains(&JType::Null) => types.push(JType::Null),
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
                JType::Number => Some(Group::Number),
                JType::String => Some(Group::String),
                JType::Array => Some(Group::Array),
                JType::Object => Some(Group::Object),
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
            return Ok(Node::Obj(Box::new(ObjNode {
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
        let meta = self.meta || META_VALUES.iter().any(|m| std::ptr::eq(m, ctx.document));
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
                    } else if types.contains(&JType::Integer) && *t == JType::Number {
                        narrowed.push(JType::Integer);
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
                    for key in js::keys(properties) {
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
                if *name == "format" && group.data_type() == Some(JType::Number) {
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
        Ok(Node::Obj(Box::new(ObjNode {
            path: ctx.path.clone(),
            types,
            type_value,
            type_first,
            groups,
            defaults,
            frame: None,
        })))
    }

    fn in_meta(&self, ctx: &Ctx) -> bool {
        self.meta || META_VALUES.iter().any(|m| std::ptr::eq(m, ctx.document))
    }

    fn strict_types(&self, ctx: &Ctx, message: String) -> CompileError {
        CompileError::strict(format!(
            "{message} at \"{}{}\" (strictTypes)",
            ctx.env_base, ctx.path
        ))
    }

    fn format_keyword(
        &mut self,
        map: &'s Map<String, Value>,
        ctx: &Ctx,
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

    fn limit(
        &self,
        map: &Map<String, Value>,
        keyword: &str,
        non_negative_int: bool,
    ) -> Result<Limit, CompileError> {
        match map.get(keyword) {
            Some(Value::Number(n)) => {
                let value = js::number(n);
                let _ = non_negative_int;
                Ok(Limit {
                    value,
                    json: Value::Number(n.clone()),
                    text: number_text(value),
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

    /// Compiles one keyword of the schema at `ctx`, or `None` when it adds no check.
    fn keyword(
        &mut self,
        schema: &'s Value,
        map: &'s Map<String, Value>,
        name: &str,
        ctx: &Ctx,
    ) -> Result<Option<Keyword>, CompileError> {
        let path = format!("{}/{name}", ctx.path);
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
            "const" => Keyword::Const {
                path,
                value: value.clone(),
            },
            "enum" => {
                let Value::Array(values) = value else {
                    return Err(CompileError::error("enum value must be \"array\""));
                };
                if values.is_empty() {
                    return Err(CompileError::error("enum must have non-empty array"));
                }
                Keyword::Enum {
                    path,
                    values: values.clone(),
                    json: value.clone(),
                }
            }
            "not" => {
                if self.always_valid(value)? {
                    return Ok(Some(Keyword::Not {
                        path,
                        node: self.push(Node::True),
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
                     -> Result<Option<(NodeId, Vec<EvalOp>)>, CompileError> {
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
            "maximum" | "minimum" | "exclusiveMaximum" | "exclusiveMinimum" => {
                let cmp = match name {
                    "maximum" => Comparison::Max,
                    "minimum" => Comparison::Min,
                    "exclusiveMaximum" => Comparison::ExclusiveMax,
                    _ => Comparison::ExclusiveMin,
                };
                Keyword::NumberLimit {
                    path,
                    cmp,
                    limit: self.limit(map, name, false)?,
                }
            }
            "multipleOf" => Keyword::MultipleOf {
                path,
                limit: self.limit(map, name, false)?,
            },
            "format" => return self.format_keyword(map, ctx, false),
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
            "maxLength" => Keyword::MaxLength {
                path,
                limit: self.limit(map, name, true)?,
            },
            "minLength" => Keyword::MinLength {
                path,
                limit: self.limit(map, name, true)?,
            },
            "pattern" => {
                let Some(source) = value.as_str() else {
                    return Err(CompileError::error("pattern value must be \"string\""));
                };
                Keyword::Pattern {
                    path,
                    pattern: self.pattern(source)?,
                }
            }
            "maxItems" => Keyword::MaxItems {
                path,
                limit: self.limit(map, name, true)?,
            },
            "minItems" => Keyword::MinItems {
                path,
                limit: self.limit(map, name, true)?,
            },
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
                    let items = self.eval.last().map_or(IState::Undefined, |s| s.items);
                    if items != IState::True {
                        let merged = self.merge_items(IState::Num(length), items, false, &mut ops);
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
                self.set_items(IState::True);
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
                    self.set_items(IState::True);
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
            "uniqueItems" => {
                if value != &Value::Bool(true) {
                    return Ok(None);
                }
                let item_types = map
                    .get("items")
                    .and_then(|items| items.get("type"))
                    .and_then(schema_type_names);
                let scalar_types = item_types.and_then(|names| {
                    let types: Option<Vec<JType>> = names.iter().map(|n| JType::parse(n)).collect();
                    types.filter(|t| {
                        !t.is_empty()
                            && !t.iter().any(|t| matches!(t, JType::Object | JType::Array))
                    })
                });
                Keyword::UniqueItems { path, scalar_types }
            }
            "maxContains" | "minContains" => {
                if !map.contains_key("contains") {
                    return Err(CompileError::strict(format!(
                        "\"{name}\" without \"contains\" is ignored"
                    )));
                }
                return Ok(None);
            }
            "unevaluatedItems" => {
                let state = self.eval.last().map_or(IState::Undefined, |s| s.items);
                if state == IState::True {
                    return Ok(None);
                }
                let (node, is_false) = self.unevaluated_schema(value, ctx, &path)?;
                self.set_items(IState::True);
                self.reads_evaluated |= matches!(state, IState::Var(_));
                Keyword::UnevaluatedItems {
                    path,
                    node,
                    is_false,
                    state,
                }
            }
            "maxProperties" => Keyword::MaxProperties {
                path,
                limit: self.limit(map, name, true)?,
            },
            "minProperties" => Keyword::MinProperties {
                path,
                limit: self.limit(map, name, true)?,
            },
            "required" => {
                let Value::Array(items) = value else {
                    return Err(CompileError::error("required value must be \"array\""));
                };
                let names: Vec<String> = items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect();
                let properties = map.get("properties").and_then(Value::as_object);
                for key in &names {
                    // Ajv reads `properties[key]`: an own key, or one `Object.prototype` answers.
                    let declared = properties.is_some_and(|p| js::has_property(p, key));
                    if !declared && !ctx.defined.borrow().contains(key) {
                        return Err(CompileError::strict(format!(
                            "required property \"{key}\" is not defined at \"{}{}\" (strictRequired)",
                            ctx.env_base, ctx.path
                        )));
                    }
                }
                if names.is_empty() {
                    return Ok(None);
                }
                Keyword::Required { path, names }
            }
            "propertyNames" => {
                if self.always_valid(value)? {
                    return Ok(None);
                }
                let mut sub = Self::same_data_ctx(ctx, path.clone(), true);
                sub.data_types = vec![JType::String];
                Keyword::PropertyNames {
                    node: self.subschema(value, sub)?,
                    path,
                }
            }
            "additionalProperties" => {
                self.set_props(PState::True);
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
                        js::keys(p)
                            .into_iter()
                            .filter(|k| *k != "__proto__")
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                let mut patterns = Vec::new();
                if let Some(Value::Object(pp)) = map.get("patternProperties") {
                    for key in js::keys(pp) {
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
                let all: Vec<String> = js::keys(properties)
                    .into_iter()
                    .filter(|k| *k != "__proto__")
                    .cloned()
                    .collect();
                ctx.defined.borrow_mut().extend(all.iter().cloned());
                let current = self
                    .eval
                    .last()
                    .map_or(PState::Undefined, |s| s.props.clone());
                if !all.is_empty() && current != PState::True {
                    let mut ops = Vec::new();
                    let merged =
                        self.merge_props(PState::Keys(all.clone()), current, false, &mut ops);
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
                let keys: Vec<&String> = js::keys(pp)
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
                    .map_or(PState::Undefined, |s| s.props.clone());
                if keys.is_empty() || (all_valid && current == PState::True) {
                    return Ok(None);
                }
                // Ajv moves what is evaluated so far into a variable, to add the matched names.
                let mark = match current {
                    PState::True => None,
                    PState::Var(var) => Some(var),
                    other => {
                        let var = self.new_var();
                        let value = match other {
                            PState::Keys(keys) => PropsValue::Keys(keys),
                            _ => PropsValue::Keys(Vec::new()),
                        };
                        if let Some(state) = self.current() {
                            state.pending.push(EvalOp::PropsInit { var, value });
                            state.props = PState::Var(var);
                        }
                        Some(var)
                    }
                };
                let mut patterns = Vec::new();
                let declared = map.get("properties").and_then(Value::as_object);
                for key in keys {
                    if let Some(properties) = declared {
                        // Ajv tests these with `new RegExp(pattern)`, without the u flag.
                        let plain = regress::Regex::new(key).map_err(|e| CompileError {
                            name: "SyntaxError",
                            message: format!(
                                "Invalid regular expression: /{key}/: {}",
                                v8_regex_reason(key, &e.to_string())
                            ),
                        })?;
                        let plain = Some(plain);
                        for prop in js::keys(properties) {
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
            "dependentRequired" => {
                let Value::Object(deps) = value else {
                    return Err(CompileError::error(
                        "dependentRequired value must be \"object\"",
                    ));
                };
                let deps = js::keys(deps)
                    .into_iter()
                    .filter(|k| *k != "__proto__")
                    .filter_map(|k| {
                        let names: Vec<String> = deps[k]
                            .as_array()?
                            .iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect();
                        (!names.is_empty()).then(|| (k.clone(), names))
                    })
                    .collect();
                Keyword::DependentRequired { path, deps }
            }
            "dependentSchemas" => {
                let Value::Object(deps) = value else {
                    return Err(CompileError::error(
                        "dependentSchemas value must be \"object\"",
                    ));
                };
                let mut compiled = Vec::new();
                for key in js::keys(deps) {
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
            "unevaluatedProperties" => {
                let state = self
                    .eval
                    .last()
                    .map_or(PState::Undefined, |s| s.props.clone());
                let (node, is_false) = self.unevaluated_schema(value, ctx, &path)?;
                self.set_props(PState::True);
                self.reads_evaluated |= matches!(state, PState::Var(_));
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

    fn reference(&mut self, reference: &str, ctx: &Ctx) -> Result<Keyword, CompileError> {
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
            let sub = Ctx {
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

/// V8's words for a regular expression it refuses, from the regex engine's (`new RegExp`
/// throws them and Ajv passes them on); an error without a known counterpart keeps its own text.
fn v8_regex_reason(source: &str, reason: &str) -> String {
    let reversed_braces = source.split('{').skip(1).any(|rest| {
        let inner = rest.split('}').next().unwrap_or("");
        match inner.split_once(',') {
            Some((lo, hi)) => {
                matches!((lo.parse::<u64>(), hi.parse::<u64>()), (Ok(lo), Ok(hi)) if lo > hi)
            }
            None => false,
        }
    });
    if reversed_braces
        && matches!(
            reason,
            "Invalid quantifier" | "Invalid braced quantifier" | "Invalid atom character"
        )
    {
        return "numbers out of order in {} quantifier".into();
    }
    let opened = source.matches('(').count();
    let closed = source.matches(')').count();
    let v8 = match reason {
        "Unbalanced parenthesis" if opened > closed => "Unterminated group",
        "Unbalanced parenthesis" => "Unmatched ')'",
        "Unbalanced bracket" => "Unterminated character class",
        "Range values reversed, start char code is greater than end char code."
        | "Invalid character range" => "Range out of order in character class",
        "Invalid atom character" | "Invalid quantifier" | "Quantifier not allowed here" => {
            "Nothing to repeat"
        }
        "Invalid braced quantifier" => "Incomplete quantifier",
        "Invalid character escape" | "Invalid unicode escape" | "Incomplete escape" => {
            "Invalid escape"
        }
        "Unterminated escape" => "\\ at end of pattern",
        "Invalid property name"
        | "Invalid property escape"
        | "Invalid character at property escape start" => "Invalid property name",
        "Duplicate capture group name" => "Duplicate capture group name",
        "Invalid token at named capture group identifier" => "Invalid capture group name",
        "Invalid named backreference syntax" => "Invalid named reference",
        other if other.starts_with("Backreference to invalid named capture group") => {
            "Invalid named capture referenced"
        }
        other => other,
    };
    v8.to_owned()
}

/// Whether `needle` is `haystack` or inside it.
fn contains_ptr(haystack: &Value, needle: &Value) -> bool {
    if std::ptr::eq(haystack, needle) {
        return true;
    }
    match haystack {
        Value::Object(map) => map.values().any(|v| contains_ptr(v, needle)),
        Value::Array(items) => items.iter().any(|v| contains_ptr(v, needle)),
        _ => false,
    }
}

/// Ajv's `checkUnknownRules` (strict): the first key, in `for…in` order, that no rule knows.
fn check_unknown(map: &Map<String, Value>) -> Result<(), CompileError> {
    for key in js::keys(map) {
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
