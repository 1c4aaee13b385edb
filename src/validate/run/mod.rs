//! Walking a compiled schema over a value, reporting what Ajv's generated code reports (with
//! `allErrors`): every error, in the order the code meets them, composite keywords dropping
//! the errors of the branches they no longer need.
//! Each of Ajv's vocabularies runs in the file named after it; the evaluated-properties variables
//! live in `evaluated.rs`.

mod applicator;
mod core;
mod evaluated;
mod format;
mod unevaluated;
mod validation;

use super::evaluated::{EvaluatedItems, EvaluatedProps};
use super::instance::Instance;
use super::issue::{escape_pointer, params, Issue};
use super::program::{DataType, GroupCode, Keyword, NodeId, ObjectSchema, Program, SchemaNode};
use super::value::{self, Lookup};
use crate::js::for_in_keys;
use crate::json::Stack;
use evaluated::{FrameVariables, ItemsVariable, PropsVariable};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Schemas entered on one value before the schema counts as recursing on it without end
/// (`{"$ref": "#"}` and kin), where Ajv's generated code overflows the stack.
const MAX_SAME_VALUE_DEPTH: usize = 64;

/// Schemas entered in all, values included, on `stack`: a bound on its use, sized for a tokio
/// worker's 2 MiB and for the deep stack's 64 MiB (docs/design.md, *Deep values*).
fn max_total_depth(stack: Stack) -> usize {
    match stack {
        Stack::Caller => 700,
        Stack::Deep => 16_000,
    }
}

/// Why a value was not accepted.
#[derive(Debug, Clone, PartialEq)]
pub enum Invalid {
    /// Ajv's error objects, in Ajv's order.
    Issues(Vec<Issue>),
    /// The schema recursed on the value without end; Ajv throws `RangeError: Maximum call stack
    /// size exceeded` here.
    Recursion,
}

/// A default filled in: at the value `pointer` (a JSON pointer), member `key` set to `value`.
#[derive(Debug, Clone, PartialEq)]
pub struct DefaultApplied {
    pub pointer: String,
    pub key: String,
    pub value: Value,
}

pub fn validate<J: Instance>(
    program: &Program,
    value: &mut J,
) -> Result<Vec<DefaultApplied>, Invalid> {
    let (result, _, _) = validate_data(program, Data::Json(value), false, Stack::Caller);
    result
}

/// [`validate`] on `stack`: `None` when the walk went deeper than the caller's stack holds
/// (run it again on [`Stack::Deep`], on a value as it was before); on a deep stack, such a walk
/// is [`Invalid::Recursion`], where Ajv's code, with less stack, has overflowed already.
pub fn validate_on<J: Instance>(
    program: &Program,
    value: &mut J,
    stack: Stack,
) -> Option<Result<Vec<DefaultApplied>, Invalid>> {
    match validate_data(program, Data::Json(value), false, stack) {
        (_, _, true) if stack == Stack::Caller => None,
        (result, _, _) => Some(result),
    }
}

/// [`validate_on`], where a member marked `throws` (see [`value::THROWS`]) throws when Ajv's
/// generated code would read it: the first such marker read ends the run and is returned.
pub fn validate_reading_on(
    program: &Program,
    value: &mut Value,
    stack: Stack,
) -> Option<Result<Result<Vec<DefaultApplied>, Invalid>, Value>> {
    match validate_data(program, Data::Json(value), true, stack) {
        (_, Some(threw), _) => Some(Err(threw)),
        (_, None, true) if stack == Stack::Caller => None,
        (result, None, _) => Some(Ok(result)),
    }
}

/// The answer, what a marker read threw, and whether the walk outgrew `stack`.
fn validate_data<J: Instance>(
    program: &Program,
    data: Data<'_, J>,
    reading: bool,
    stack: Stack,
) -> (Result<Vec<DefaultApplied>, Invalid>, Option<Value>, bool) {
    let mut run = Run {
        max_total_depth: max_total_depth(stack),
        out_of_stack: false,
        reading,
        threw: None,
        defaults: Vec::new(),
        program,
        errors: Vec::new(),
        depth: 0,
        total_depth: 0,
        dynamic: HashMap::new(),
        runaway: false,
        frames: Vec::new(),
        last_call: (PropsVariable::Undefined, ItemsVariable::Undefined),
    };
    let mut path = String::new();
    run.node(program.root, data, &mut path, None);
    let result = if run.runaway {
        Err(Invalid::Recursion)
    } else if run.errors.is_empty() {
        Ok(run.defaults)
    } else {
        Err(Invalid::Issues(run.errors))
    };
    (result, run.threw, run.out_of_stack)
}

/// A value being validated: JSON, or a JavaScript value of no JSON type (`undefined`, or the
/// function JavaScript finds on `Object.prototype` when a schema names `toString`): every type
/// check and every comparison fails on it, and only untyped keywords run.
enum Data<'v, J> {
    Json(&'v mut J),
    NonJson,
}

impl<'v, J: Instance> Data<'v, J> {
    fn json(&self) -> Option<&J> {
        match self {
            Data::Json(v) => Some(v),
            Data::NonJson => None,
        }
    }

    /// The array's items, to validate in place.
    fn items_mut(self) -> Option<&'v mut [J]> {
        match self {
            Data::Json(v) => v.items_mut(),
            Data::NonJson => None,
        }
    }

    /// The value when it is an object, to validate its members in place.
    fn object_mut(self) -> Option<&'v mut J> {
        match self {
            Data::Json(v) if v.is_object() => Some(v),
            _ => None,
        }
    }

    fn reborrow(&mut self) -> Data<'_, J> {
        match self {
            Data::Json(v) => Data::Json(v),
            Data::NonJson => Data::NonJson,
        }
    }
}

struct Run<'p> {
    program: &'p Program,
    /// The defaults filled in, in order.
    defaults: Vec<DefaultApplied>,
    errors: Vec<Issue>,
    /// Schemas entered on the current value.
    depth: usize,
    total_depth: usize,
    /// The bound on `total_depth` on this run's stack.
    max_total_depth: usize,
    /// Set once `total_depth` reached its bound.
    out_of_stack: bool,
    /// `dynamicAnchors`: the first schema met for each `$dynamicAnchor` name.
    dynamic: HashMap<String, NodeId>,
    /// Set once `depth` passed [`MAX_SAME_VALUE_DEPTH`]: everything after is moot.
    runaway: bool,
    /// Whether reading a `throws` marker throws (else it is a value of no JSON type).
    reading: bool,
    /// The first `throws` marker read: Ajv's code threw there, so everything after is moot.
    threw: Option<Value>,
    /// The variables of the functions running, innermost last.
    frames: Vec<FrameVariables>,
    /// What the last function that returned reports as evaluated.
    last_call: (PropsVariable, ItemsVariable),
}

/// Writes `index` in decimal (`write!` goes through the formatting machinery, once an item).
fn push_index(out: &mut String, index: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = index;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

fn is_type<J: Instance>(value: Option<&J>, t: DataType) -> bool {
    let Some(value) = value else { return false };
    // A marked JavaScript value (undefined, NaN, a BigInt, …) is of no JSON type (with
    // strictNumbers, NaN and ±Infinity are not numbers).
    if value.marker().is_some() {
        return false;
    }
    match t {
        DataType::Null => value.is_null(),
        DataType::Boolean => value.as_bool().is_some(),
        DataType::Object => value.is_object(),
        DataType::Array => value.items().is_some(),
        DataType::String => value.as_str().is_some(),
        DataType::Number => value.as_f64().is_some_and(f64::is_finite),
        DataType::Integer => value
            .as_f64()
            .is_some_and(|x| x.is_finite() && x.fract() == 0.0),
    }
}

impl<'p> Run<'p> {
    /// Reads a member or item as Ajv's code does (`data.g`, `data[i]`): true when that throws
    /// (a getter that threw while the JS layer marked the value), which ends the run.
    fn throws<J: Instance>(&mut self, value: Option<&J>) -> bool {
        if self.threw.is_some() {
            return true;
        }
        match value {
            Some(value) if self.reading && value.marker() == Some(value::THROWS) => {
                self.threw = Some(value.to_value());
                true
            }
            _ => false,
        }
    }

    /// `data[name] !== undefined` on an object, reading the member.
    fn has<J: Instance>(&mut self, object: &J, name: &str) -> bool {
        let found = object.get(name);
        !self.throws(found)
            && !matches!(
                value::lookup_marked(found.map(J::marker), name),
                Lookup::Missing
            )
    }

    /// [`Run::equal`] of a value and one from the schema (`const`, `enum`).
    fn equal_to<J: Instance>(&mut self, data: &J, schema: &Value) -> bool {
        match data.as_value() {
            Some(data) if self.reading => self.equal(data, schema),
            _ => data.equals(schema),
        }
    }

    /// [`Run::equal`] of two items (`uniqueItems`).
    fn equal_items<J: Instance>(&mut self, a: &J, b: &J) -> bool {
        match (a.as_value(), b.as_value()) {
            (Some(a), Some(b)) if self.reading => self.equal(a, b),
            _ => a.same_as(b),
        }
    }

    /// `fast-deep-equal(a, b)` as Ajv calls it (`const`, `enum`, `uniqueItems`), reading members
    /// in its order (keys from the last, stopping at the first difference): the answer of
    /// [`value::deep_equal`], or false once a read threw.
    fn equal(&mut self, a: &Value, b: &Value) -> bool {
        // No read can throw: the plain comparison, with no key lists to make.
        if !self.reading {
            return value::deep_equal(a, b);
        }
        match (a, b) {
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len()
                    && (0..x.len()).rev().all(|i| {
                        !self.throws(Some(&x[i]))
                            && !self.throws(Some(&y[i]))
                            && self.equal(&x[i], &y[i])
                    })
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() || !x.keys().all(|k| y.contains_key(k)) {
                    return false;
                }
                for_in_keys(x).into_iter().rev().all(|k| {
                    let (p, q) = (&x[k], &y[k]);
                    !self.throws(Some(p)) && !self.throws(Some(q)) && self.equal(p, q)
                })
            }
            _ => value::deep_equal(a, b),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn error(
        &mut self,
        instance: &str,
        schema_path: &str,
        keyword: &'static str,
        params: Map<String, Value>,
        message: String,
        property_name: Option<&str>,
    ) {
        self.errors.push(Issue {
            instance_path: instance.to_owned(),
            schema_path: schema_path.to_owned(),
            keyword,
            params,
            message,
            property_name: property_name.map(str::to_owned),
        });
    }

    /// Validates `data` against node `id`; valid when it added no error. A node that is a
    /// compiled function of its own runs with fresh variables and leaves what it evaluated in
    /// `last_call`.
    fn node<J: Instance>(
        &mut self,
        id: NodeId,
        data: Data<'_, J>,
        inst: &mut String,
        name: Option<&str>,
    ) -> bool {
        let before = self.errors.len();
        let program = self.program;
        match &program.nodes[id] {
            SchemaNode::True | SchemaNode::Pending => {
                self.last_call = (PropsVariable::Undefined, ItemsVariable::Undefined);
            }
            SchemaNode::False(path) => {
                let path = format!("{path}/false schema");
                self.error(
                    inst,
                    &path,
                    "false schema",
                    Map::new(),
                    "boolean schema is false".into(),
                    name,
                );
                self.last_call = (PropsVariable::Undefined, ItemsVariable::Undefined);
            }
            SchemaNode::Object(obj) => {
                if self.threw.is_some() {
                    return false;
                }
                if self.runaway || self.depth >= MAX_SAME_VALUE_DEPTH {
                    self.runaway = true;
                    return false;
                }
                if self.total_depth >= self.max_total_depth {
                    self.runaway = true;
                    self.out_of_stack = true;
                    return false;
                }
                self.depth += 1;
                self.total_depth += 1;
                // Variables that nothing reads are not kept: no frame, so their ops find none,
                // and no record of what each call evaluated.
                let frame = obj.frame.as_ref().filter(|_| program.reads_evaluated);
                if let Some(frame) = frame {
                    self.frames.push(FrameVariables {
                        props: vec![PropsVariable::Undefined; frame.vars],
                        items: vec![ItemsVariable::Undefined; frame.vars],
                    });
                    self.object_node(obj, data, inst, name);
                    let values = self.frames.pop().unwrap_or_default();
                    let props = match &frame.props {
                        EvaluatedProps::Undefined => PropsVariable::Undefined,
                        EvaluatedProps::True => PropsVariable::True,
                        EvaluatedProps::Keys(keys) => {
                            PropsVariable::Set(keys.iter().cloned().collect())
                        }
                        EvaluatedProps::Var(var) => {
                            values.props.get(*var).cloned().unwrap_or_default()
                        }
                    };
                    let items = match frame.items {
                        EvaluatedItems::Undefined => ItemsVariable::Undefined,
                        EvaluatedItems::True => ItemsVariable::True,
                        EvaluatedItems::Num(n) => ItemsVariable::Num(n),
                        EvaluatedItems::Var(var) => {
                            values.items.get(var).copied().unwrap_or_default()
                        }
                    };
                    self.last_call = (props, items);
                } else {
                    self.object_node(obj, data, inst, name);
                }
                self.depth -= 1;
                self.total_depth -= 1;
            }
        }
        self.errors.len() == before
    }

    fn type_error(&mut self, obj: &ObjectSchema, inst: &str, name: Option<&str>) {
        let message = match &obj.type_value {
            Value::String(s) => format!("must be {s}"),
            Value::Array(items) => {
                let names: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                format!("must be {}", names.join(","))
            }
            _ => "must be".into(),
        };
        let path = format!("{}/type", obj.path);
        self.error(
            inst,
            &path,
            "type",
            params([("type", obj.type_value.clone())]),
            message,
            name,
        );
    }

    fn object_node<J: Instance>(
        &mut self,
        obj: &ObjectSchema,
        mut data: Data<'_, J>,
        inst: &mut String,
        name: Option<&str>,
    ) {
        if obj.type_first && !obj.types.iter().any(|t| is_type(data.json(), *t)) {
            self.type_error(obj, inst, name);
        }
        for group in &obj.groups {
            match group.group.data_type() {
                None => self.keywords(group, data.reborrow(), inst, name),
                Some(t) if is_type(data.json(), t) => {
                    if t == DataType::Object && !obj.defaults.is_empty() {
                        if let Data::Json(object) = &mut data {
                            for (key, default) in &obj.defaults {
                                if !self.has(&**object, key) {
                                    object.insert_default(key, default);
                                    self.defaults.push(DefaultApplied {
                                        pointer: inst.clone(),
                                        key: key.clone(),
                                        value: default.clone(),
                                    });
                                }
                            }
                        }
                    }
                    self.keywords(group, data.reborrow(), inst, name)
                }
                Some(_) => {
                    if group.type_error {
                        self.type_error(obj, inst, name);
                    }
                }
            }
        }
    }

    fn keywords<J: Instance>(
        &mut self,
        group: &GroupCode,
        mut data: Data<'_, J>,
        inst: &mut String,
        name: Option<&str>,
    ) {
        for keyword in &group.keywords {
            self.keyword(keyword, data.reborrow(), inst, name);
        }
    }

    /// Runs a subschema on the same value; returns whether it passed.
    fn same<J: Instance>(
        &mut self,
        id: NodeId,
        data: Data<'_, J>,
        inst: &mut String,
        name: Option<&str>,
    ) -> bool {
        self.node(id, data, inst, name)
    }

    /// Runs a subschema on a child value at `segment`.
    fn child<J: Instance>(
        &mut self,
        id: NodeId,
        data: Data<'_, J>,
        inst: &mut String,
        segment: &str,
    ) -> bool {
        let len = inst.len();
        inst.push('/');
        if segment.bytes().any(|b| b == b'~' || b == b'/') {
            inst.push_str(&escape_pointer(segment));
        } else {
            inst.push_str(segment);
        }
        self.enter_child(id, data, inst, len)
    }

    /// Runs a subschema on array item `index`.
    fn item<J: Instance>(
        &mut self,
        id: NodeId,
        data: Data<'_, J>,
        inst: &mut String,
        index: usize,
    ) -> bool {
        let len = inst.len();
        inst.push('/');
        push_index(inst, index);
        self.enter_child(id, data, inst, len)
    }

    fn enter_child<J: Instance>(
        &mut self,
        id: NodeId,
        data: Data<'_, J>,
        inst: &mut String,
        len: usize,
    ) -> bool {
        // A new value: recursion on it is bounded by the data, not by this counter.
        let depth = std::mem::replace(&mut self.depth, 0);
        let valid = self.node(id, data, inst, None);
        self.depth = depth;
        inst.truncate(len);
        valid
    }

    /// Runs one keyword; each of Ajv's vocabularies has its own file.
    fn keyword<J: Instance>(
        &mut self,
        keyword: &Keyword,
        data: Data<'_, J>,
        inst: &mut String,
        name: Option<&str>,
    ) {
        match keyword {
            Keyword::Eval(ops) => self.exec(ops),
            Keyword::Ref { .. } | Keyword::DynamicAnchor { .. } | Keyword::DynamicRef { .. } => {
                self.core_keyword(keyword, data, inst, name)
            }
            Keyword::Const { .. }
            | Keyword::Enum { .. }
            | Keyword::NumberLimit { .. }
            | Keyword::MultipleOf { .. }
            | Keyword::MaxLength { .. }
            | Keyword::MinLength { .. }
            | Keyword::Pattern { .. }
            | Keyword::MaxItems { .. }
            | Keyword::MinItems { .. }
            | Keyword::MaxProperties { .. }
            | Keyword::MinProperties { .. }
            | Keyword::UniqueItems { .. }
            | Keyword::Required { .. }
            | Keyword::DependentRequired { .. } => {
                self.validation_keyword(keyword, data, inst, name)
            }
            Keyword::Not { .. }
            | Keyword::AnyOf { .. }
            | Keyword::OneOf { .. }
            | Keyword::AllOf { .. }
            | Keyword::If { .. }
            | Keyword::PrefixItems { .. }
            | Keyword::Items { .. }
            | Keyword::Contains { .. }
            | Keyword::PropertyNames { .. }
            | Keyword::AdditionalProperties { .. }
            | Keyword::Properties { .. }
            | Keyword::PatternProperties { .. }
            | Keyword::DependentSchemas { .. } => {
                self.applicator_keyword(keyword, data, inst, name)
            }
            Keyword::Format { .. } | Keyword::FormatLimit { .. } => {
                self.format_keyword(keyword, data, inst, name)
            }
            Keyword::UnevaluatedItems { .. } | Keyword::UnevaluatedProperties { .. } => {
                self.unevaluated_keyword(keyword, data, inst, name)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::push_index;

    #[test]
    fn indices_are_written_in_decimal() {
        for index in [0, 7, 10, 99, 100, 797, 65_535, usize::MAX] {
            let mut out = String::from("/a/");
            push_index(&mut out, index);
            assert_eq!(out, format!("/a/{index}"));
        }
    }
}
