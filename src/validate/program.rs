//! The compiled program: a tree of schema nodes holding the keywords in the order Ajv's generated
//! code checks them. The compiler builds it (`compile/`), the runner walks it (`run/`).

use super::evaluated::{EvaluatedItems, EvaluatedOp, EvaluatedProps, Frame};
use super::formats::Format;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// Which way a value travels: a tool's input gets its defaults filled, its output does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Input,
    Output,
}

/// JSON Schema's data types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    Null,
    Boolean,
    Object,
    Array,
    Number,
    Integer,
    String,
}

impl DataType {
    pub fn parse(name: &str) -> Option<DataType> {
        Some(match name {
            "null" => DataType::Null,
            "boolean" => DataType::Boolean,
            "object" => DataType::Object,
            "array" => DataType::Array,
            "number" => DataType::Number,
            "integer" => DataType::Integer,
            "string" => DataType::String,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            DataType::Null => "null",
            DataType::Boolean => "boolean",
            DataType::Object => "object",
            DataType::Array => "array",
            DataType::Number => "number",
            DataType::Integer => "integer",
            DataType::String => "string",
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
    pub fn data_type(self) -> Option<DataType> {
        match self {
            Group::Any => None,
            Group::Number => Some(DataType::Number),
            Group::String => Some(DataType::String),
            Group::Array => Some(DataType::Array),
            Group::Object => Some(DataType::Object),
        }
    }
}

pub type NodeId = usize;

/// A compiled schema location.
#[derive(Debug)]
pub enum SchemaNode {
    /// `true`, or an object schema with no rule (always valid).
    True,
    /// `false`, at its schema path.
    False(String),
    Object(Box<ObjectSchema>),
    /// A slot being compiled (a recursive reference points here until it is filled).
    Pending,
}

#[derive(Debug)]
pub struct ObjectSchema {
    /// Ajv's `errSchemaPath` of this schema.
    pub path: String,
    pub types: Vec<DataType>,
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
        merge: Vec<EvaluatedOp>,
    },
    /// Evaluated-properties bookkeeping between keywords.
    Eval(Vec<EvaluatedOp>),
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
        merge_dynamic: Vec<EvaluatedOp>,
        merge: Vec<EvaluatedOp>,
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
        merges: Vec<Vec<EvaluatedOp>>,
    },
    OneOf {
        path: String,
        nodes: Vec<NodeId>,
        merges: Vec<Vec<EvaluatedOp>>,
    },
    /// `merges[i]` runs after branch `i`, passed or not.
    AllOf {
        nodes: Vec<NodeId>,
        merges: Vec<Vec<EvaluatedOp>>,
    },
    If {
        path: String,
        cond: NodeId,
        /// Runs after the condition, whatever it answered.
        cond_merge: Vec<EvaluatedOp>,
        then: Option<(NodeId, Vec<EvaluatedOp>)>,
        otherwise: Option<(NodeId, Vec<EvaluatedOp>)>,
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
        scalar_types: Option<Vec<DataType>>,
    },
    UnevaluatedItems {
        path: String,
        node: Option<NodeId>,
        is_false: bool,
        state: EvaluatedItems,
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
        deps: Vec<(String, NodeId, Vec<EvaluatedOp>)>,
    },
    UnevaluatedProperties {
        path: String,
        node: Option<NodeId>,
        is_false: bool,
        state: EvaluatedProps,
    },
}

#[derive(Debug)]
pub struct Program {
    pub nodes: Vec<SchemaNode>,
    pub root: NodeId,
    /// Whether an `unevaluatedProperties` or `unevaluatedItems` reads what was evaluated at
    /// run time. Without one, the evaluated-tracking variables are never read, and a run skips
    /// them (the frames, their ops and what each call evaluated).
    pub reads_evaluated: bool,
}
