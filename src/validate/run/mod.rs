//! Walking a compiled schema over a value, reporting what Ajv's generated code reports (with
//! `allErrors`): every error, in the order the code meets them, composite keywords dropping
//! the errors of the branches they no longer need.

use super::compile::{
    EvalOp, GroupCode, IState, ItemsValue, JType, Keyword, Limit, Node, NodeId, ObjNode, PState,
    Program, PropsValue,
};
use super::formats::FormatType;
use super::issue::{escape_pointer, params, Issue};
use super::js::{self, Lookup};
use crate::json::{member, member_mut};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Schemas entered on one value without descending into it: past this the schema recurses
/// forever (`{"$ref": "#"}` and kin), where Ajv's generated code overflows the stack.
const MAX_SAME_VALUE_DEPTH: usize = 64;
/// Schemas entered in all, values included: a bound on this thread's stack (a level takes
/// about a kilobyte; tokio's workers have two megabytes).
const MAX_TOTAL_DEPTH: usize = 700;

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

pub fn validate(program: &Program, value: &mut Value) -> Result<Vec<DefaultApplied>, Invalid> {
    validate_data(program, Data::Json(value), false).0
}

/// [`validate`], where a member marked `throws` (see [`js::THROWS`]) throws when Ajv's
/// generated code would read it: the first such marker read ends the run and is returned.
pub fn validate_reading(
    program: &Program,
    value: &mut Value,
) -> Result<Result<Vec<DefaultApplied>, Invalid>, Value> {
    match validate_data(program, Data::Json(value), true) {
        (_, Some(threw)) => Err(threw),
        (result, None) => Ok(result),
    }
}

fn validate_data(
    program: &Program,
    data: Data<'_>,
    reading: bool,
) -> (Result<Vec<DefaultApplied>, Invalid>, Option<Value>) {
    let mut run = Run {
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
        last_call: (RProps::Undefined, RItems::Undefined),
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
    (result, run.threw)
}

/// A value being validated: JSON, or a JavaScript value of no JSON type (`undefined`, or the
/// function JavaScript finds on `Object.prototype` when a schema names `toString`): every type
/// check and every comparison fails on it, and only untyped keywords run.
enum Data<'v> {
    Json(&'v mut Value),
    NonJson,
}

impl Data<'_> {
    fn json(&self) -> Option<&Value> {
        match self {
            Data::Json(v) => Some(v),
            Data::NonJson => None,
        }
    }

    fn reborrow(&mut self) -> Data<'_> {
        match self {
            Data::Json(v) => Data::Json(v),
            Data::NonJson => Data::NonJson,
        }
    }
}

/// A run-time evaluated-properties variable (`props` in Ajv's generated code).
#[derive(Debug, Clone, Default, PartialEq)]
enum RProps {
    #[default]
    Undefined,
    True,
    Set(HashSet<String>),
}

/// A run-time evaluated-items variable: `undefined`, `true` or a count.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum RItems {
    #[default]
    Undefined,
    True,
    Num(f64),
}

impl RItems {
    /// JavaScript's `a > b` with a number `a` (this) and `b` a variable's value.
    fn greater_than_items(self, other: RItems) -> bool {
        match (self, other) {
            (RItems::Num(a), RItems::Num(b)) => a > b,
            (RItems::Num(a), RItems::True) => a > 1.0,
            _ => false,
        }
    }
}

fn props_value(value: &PropsValue) -> RProps {
    match value {
        PropsValue::True => RProps::True,
        PropsValue::Keys(keys) => RProps::Set(keys.iter().cloned().collect()),
    }
}

fn items_value(value: ItemsValue) -> RItems {
    match value {
        ItemsValue::True => RItems::True,
        ItemsValue::Num(n) => RItems::Num(n),
    }
}

/// `if (to !== true) { to = to || {}; Object.assign(to, from) }` (`from === true` makes it true).
fn merge_props(to: &mut RProps, from: &RProps) {
    match (to as &RProps, from) {
        (RProps::True, _) | (_, RProps::Undefined) => {}
        (_, RProps::True) => *to = RProps::True,
        (RProps::Undefined, RProps::Set(keys)) => *to = RProps::Set(keys.clone()),
        (RProps::Set(_), RProps::Set(keys)) => {
            if let RProps::Set(set) = to {
                set.extend(keys.iter().cloned());
            }
        }
    }
}

/// `if (to !== true) to = from === true ? true : to > from ? to : from`.
fn merge_items(to: &mut RItems, from: RItems) {
    if *to == RItems::True {
        return;
    }
    *to = match from {
        RItems::True => RItems::True,
        RItems::Undefined => *to,
        RItems::Num(f) => match *to {
            RItems::Num(t) if t > f => RItems::Num(t),
            _ => RItems::Num(f),
        },
    };
}

/// The variables of one running compiled function.
#[derive(Debug, Default)]
struct FrameValues {
    props: Vec<RProps>,
    items: Vec<RItems>,
}

struct Run<'p> {
    program: &'p Program,
    /// The defaults filled in, in order.
    defaults: Vec<DefaultApplied>,
    errors: Vec<Issue>,
    /// Schemas entered on the current value.
    depth: usize,
    total_depth: usize,
    /// `dynamicAnchors`: the first schema met for each `$dynamicAnchor` name.
    dynamic: HashMap<String, NodeId>,
    /// Set once `depth` passed [`MAX_SAME_VALUE_DEPTH`]: everything after is moot.
    runaway: bool,
    /// Whether reading a `throws` marker throws (else it is a value of no JSON type).
    reading: bool,
    /// The first `throws` marker read: Ajv's code threw there, so everything after is moot.
    threw: Option<Value>,
    /// The variables of the functions running, innermost last.
    frames: Vec<FrameValues>,
    /// What the last function that returned reports as evaluated.
    last_call: (RProps, RItems),
}

fn is_type(value: Option<&Value>, t: JType) -> bool {
    let Some(value) = value else { return false };
    // A marked JavaScript value (undefined, NaN, a BigInt, …) is of no JSON type (with
    // strictNumbers, NaN and ±Infinity are not numbers).
    if js::marker(value).is_some() {
        return false;
    }
    match t {
        JType::Null => value.is_null(),
        JType::Boolean => value.is_boolean(),
        JType::Object => value.is_object(),
        JType::Array => value.is_array(),
        JType::String => value.is_string(),
        JType::Number => value.as_f64().is_some_and(f64::is_finite),
        JType::Integer => value
            .as_f64()
            .is_some_and(|x| x.is_finite() && x.fract() == 0.0),
    }
}

fn limit_json(limit: &Limit) -> Value {
    limit.json.clone()
}

/// One of the count keywords (`maxLength` / `minLength`, `maxItems` / `minItems`,
/// `maxProperties` / `minProperties`): which side it bounds, and the words of its message.
struct Bound {
    max: bool,
    keyword: &'static str,
    /// What is counted: `characters`, `items`, `properties`.
    noun: &'static str,
}

impl Bound {
    fn of(max: bool, (upper, lower): (&'static str, &'static str), noun: &'static str) -> Bound {
        Bound {
            max,
            keyword: if max { upper } else { lower },
            noun,
        }
    }
}

impl<'p> Run<'p> {
    /// Reads a member or item as Ajv's code does (`data.g`, `data[i]`): true when that throws
    /// (a getter that threw while the JS layer marked the value), which ends the run.
    fn throws(&mut self, value: Option<&Value>) -> bool {
        if self.threw.is_some() {
            return true;
        }
        match value {
            Some(value) if self.reading && js::marker(value) == Some(js::THROWS) => {
                self.threw = Some(value.clone());
                true
            }
            _ => false,
        }
    }

    /// `data[name] !== undefined`, reading the member.
    fn has(&mut self, map: &Map<String, Value>, name: &str) -> bool {
        let found = member(map, name);
        !self.throws(found) && !matches!(js::lookup_found(found, name), Lookup::Missing)
    }

    /// `fast-deep-equal(a, b)` as Ajv calls it (`const`, `enum`, `uniqueItems`), reading members
    /// in its order (keys from the last, stopping at the first difference): the answer of
    /// [`js::deep_equal`], or false once a read threw.
    fn equal(&mut self, a: &Value, b: &Value) -> bool {
        // No read can throw: the plain comparison, with no key lists to make.
        if !self.reading {
            return js::deep_equal(a, b);
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
                js::keys(x).into_iter().rev().all(|k| {
                    let (p, q) = (&x[k], &y[k]);
                    !self.throws(Some(p)) && !self.throws(Some(q)) && self.equal(p, q)
                })
            }
            _ => js::deep_equal(a, b),
        }
    }

    /// The pair Ajv's `uniqueItems` reports, `(i, j)`. With scalar item types known it walks down
    /// from the end keeping the last index of each value (so `j > i`); otherwise it compares each
    /// item with every earlier one, from the end (so `j < i`).
    fn duplicate(
        &mut self,
        items: &[Value],
        scalar_types: Option<&[JType]>,
    ) -> Option<(usize, usize)> {
        match scalar_types {
            _ if items.len() < 2 => None,
            Some(types) => {
                let mut seen: HashMap<String, usize> = HashMap::new();
                for i in (0..items.len()).rev() {
                    let item = &items[i];
                    if self.throws(Some(item)) {
                        return None;
                    }
                    if !types.iter().any(|t| is_type(Some(item), *t)) {
                        continue;
                    }
                    let mut key = match item {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => js::number_text(js::number(n)),
                        other => other.to_string(),
                    };
                    if types.len() > 1 && item.is_string() {
                        key.push('_');
                    }
                    if let Some(&j) = seen.get(&key) {
                        return Some((i, j));
                    }
                    seen.insert(key, i);
                }
                None
            }
            None => {
                for i in (1..items.len()).rev() {
                    for j in (0..i).rev() {
                        let (a, b) = (&items[i], &items[j]);
                        if self.throws(Some(a)) || self.throws(Some(b)) {
                            return None;
                        }
                        if self.equal(a, b) {
                            return Some((i, j));
                        }
                    }
                }
                None
            }
        }
    }

    /// A count against its limit, with Ajv's issue (`must NOT have more than 3 items`).
    fn count_within(
        &mut self,
        count: usize,
        limit: &Limit,
        bound: Bound,
        inst: &str,
        path: &str,
        name: Option<&str>,
    ) {
        let count = count as f64;
        let fails = if bound.max {
            count > limit.value
        } else {
            count < limit.value
        };
        if fails {
            let comparison = if bound.max { "more" } else { "fewer" };
            self.error(
                inst,
                path,
                bound.keyword,
                params([("limit", limit_json(limit))]),
                format!(
                    "must NOT have {comparison} than {} {}",
                    limit.text, bound.noun
                ),
                name,
            );
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
    fn node(&mut self, id: NodeId, data: Data<'_>, inst: &mut String, name: Option<&str>) -> bool {
        let before = self.errors.len();
        let program = self.program;
        match &program.nodes[id] {
            Node::True | Node::Pending => {
                self.last_call = (RProps::Undefined, RItems::Undefined);
            }
            Node::False(path) => {
                let path = format!("{path}/false schema");
                self.error(
                    inst,
                    &path,
                    "false schema",
                    Map::new(),
                    "boolean schema is false".into(),
                    name,
                );
                self.last_call = (RProps::Undefined, RItems::Undefined);
            }
            Node::Obj(obj) => {
                if self.threw.is_some() {
                    return false;
                }
                if self.runaway
                    || self.depth >= MAX_SAME_VALUE_DEPTH
                    || self.total_depth >= MAX_TOTAL_DEPTH
                {
                    self.runaway = true;
                    return false;
                }
                self.depth += 1;
                self.total_depth += 1;
                // Variables that nothing reads are not kept: no frame, so their ops find none,
                // and no record of what each call evaluated.
                let frame = obj.frame.as_ref().filter(|_| program.reads_evaluated);
                if let Some(frame) = frame {
                    self.frames.push(FrameValues {
                        props: vec![RProps::Undefined; frame.vars],
                        items: vec![RItems::Undefined; frame.vars],
                    });
                    self.object_node(obj, data, inst, name);
                    let values = self.frames.pop().unwrap_or_default();
                    let props = match &frame.props {
                        PState::Undefined => RProps::Undefined,
                        PState::True => RProps::True,
                        PState::Keys(keys) => RProps::Set(keys.iter().cloned().collect()),
                        PState::Var(var) => values.props.get(*var).cloned().unwrap_or_default(),
                    };
                    let items = match frame.items {
                        IState::Undefined => RItems::Undefined,
                        IState::True => RItems::True,
                        IState::Num(n) => RItems::Num(n),
                        IState::Var(var) => values.items.get(var).copied().unwrap_or_default(),
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

    /// Runs evaluated-tracking ops in the current function's frame.
    fn exec(&mut self, ops: &[EvalOp]) {
        let last_call = &self.last_call;
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        for op in ops {
            match op {
                EvalOp::PropsInit { var, value } => {
                    if let Some(slot) = frame.props.get_mut(*var) {
                        *slot = props_value(value);
                    }
                }
                EvalOp::PropsMergeStatic { to, from } => {
                    if let Some(slot) = frame.props.get_mut(*to) {
                        merge_props(slot, &props_value(from));
                    }
                }
                EvalOp::PropsMergeVar { from, to } => {
                    let source = frame.props.get(*from).cloned().unwrap_or_default();
                    if source != RProps::Undefined {
                        if let Some(slot) = frame.props.get_mut(*to) {
                            merge_props(slot, &source);
                        }
                    }
                }
                EvalOp::PropsFromCall { var } => {
                    if let Some(slot) = frame.props.get_mut(*var) {
                        *slot = last_call.0.clone();
                    }
                }
                EvalOp::ItemsInit { var, value } => {
                    if let Some(slot) = frame.items.get_mut(*var) {
                        *slot = items_value(*value);
                    }
                }
                EvalOp::ItemsMergeStatic { to, from } => {
                    if let Some(slot) = frame.items.get_mut(*to) {
                        merge_items(slot, items_value(*from));
                    }
                }
                EvalOp::ItemsMergeVar { from, to } => {
                    let source = frame.items.get(*from).copied().unwrap_or_default();
                    if source != RItems::Undefined {
                        if let Some(slot) = frame.items.get_mut(*to) {
                            merge_items(slot, source);
                        }
                    }
                }
                EvalOp::ItemsFromCall { var } => {
                    if let Some(slot) = frame.items.get_mut(*var) {
                        *slot = last_call.1;
                    }
                }
            }
        }
    }

    fn frame_props(&self, var: usize) -> RProps {
        self.frames
            .last()
            .and_then(|f| f.props.get(var).cloned())
            .unwrap_or_default()
    }

    fn frame_items(&self, var: usize) -> RItems {
        self.frames
            .last()
            .and_then(|f| f.items.get(var).copied())
            .unwrap_or_default()
    }

    fn type_error(&mut self, obj: &ObjNode, inst: &str, name: Option<&str>) {
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

    fn object_node(
        &mut self,
        obj: &ObjNode,
        mut data: Data<'_>,
        inst: &mut String,
        name: Option<&str>,
    ) {
        if obj.type_first && !obj.types.iter().any(|t| is_type(data.json(), *t)) {
            self.type_error(obj, inst, name);
        }
        for group in &obj.groups {
            match group.group_type() {
                None => self.keywords(group, data.reborrow(), inst, name),
                Some(t) if is_type(data.json(), t) => {
                    if t == JType::Object && !obj.defaults.is_empty() {
                        if let Data::Json(Value::Object(map)) = &mut data {
                            for (key, default) in &obj.defaults {
                                if !self.has(map, key) {
                                    map.insert(key.clone(), default.clone());
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

    fn keywords(
        &mut self,
        group: &GroupCode,
        mut data: Data<'_>,
        inst: &mut String,
        name: Option<&str>,
    ) {
        for keyword in &group.keywords {
            self.keyword(keyword, data.reborrow(), inst, name);
        }
    }

    /// Runs a subschema on the same value; returns whether it passed.
    fn same(&mut self, id: NodeId, data: Data<'_>, inst: &mut String, name: Option<&str>) -> bool {
        self.node(id, data, inst, name)
    }

    /// Runs a subschema on a child value at `segment`.
    fn child(&mut self, id: NodeId, data: Data<'_>, inst: &mut String, segment: &str) -> bool {
        let len = inst.len();
        inst.push('/');
        if segment.contains(['~', '/']) {
            inst.push_str(&escape_pointer(segment));
        } else {
            inst.push_str(segment);
        }
        self.enter_child(id, data, inst, len)
    }

    /// Runs a subschema on array item `index`.
    fn item(&mut self, id: NodeId, data: Data<'_>, inst: &mut String, index: usize) -> bool {
        use std::fmt::Write;
        let len = inst.len();
        let _ = write!(inst, "/{index}");
        self.enter_child(id, data, inst, len)
    }

    fn enter_child(&mut self, id: NodeId, data: Data<'_>, inst: &mut String, len: usize) -> bool {
        // A new value: recursion on it is bounded by the data, not by this counter.
        let depth = std::mem::replace(&mut self.depth, 0);
        let valid = self.node(id, data, inst, None);
        self.depth = depth;
        inst.truncate(len);
        valid
    }

    fn keyword(
        &mut self,
        keyword: &Keyword,
        mut data: Data<'_>,
        inst: &mut String,
        name: Option<&str>,
    ) {
        match keyword {
            Keyword::Eval(ops) => self.exec(ops),
            Keyword::Ref {
                target,
                inline,
                merge,
            } => {
                let valid = self.same(*target, data, inst, name);
                if *inline || valid {
                    self.exec(merge);
                }
            }
            Keyword::DynamicAnchor {
                name: anchor,
                target,
            } => {
                self.dynamic.entry(anchor.clone()).or_insert(*target);
            }
            Keyword::DynamicRef {
                anchor,
                dynamic,
                fallback,
                merge_dynamic,
                merge,
            } => {
                let anchored = if *dynamic {
                    self.dynamic.get(anchor).copied()
                } else {
                    None
                };
                let (target, ops) = match anchored {
                    Some(target) => (target, merge_dynamic),
                    None => (*fallback, merge),
                };
                if self.same(target, data, inst, name) {
                    self.exec(ops);
                }
            }
            Keyword::Const { path, value } => {
                // Ajv compares an object or array with fast-deep-equal, anything else with `===`.
                let equal = match data.json() {
                    None => false,
                    Some(d) if value.is_object() || value.is_array() => self.equal(d, value),
                    Some(d) => js::deep_equal(d, value),
                };
                if !equal {
                    self.error(
                        inst,
                        path,
                        "const",
                        params([("allowedValue", value.clone())]),
                        "must be equal to constant".into(),
                        name,
                    );
                }
            }
            Keyword::Enum { path, values, json } => {
                let found = data.json().is_some_and(|d| {
                    values.iter().any(|v| {
                        if v.is_object() || v.is_array() {
                            self.equal(d, v)
                        } else {
                            js::deep_equal(d, v)
                        }
                    })
                });
                if !found {
                    self.error(
                        inst,
                        path,
                        "enum",
                        params([("allowedValues", json.clone())]),
                        "must be equal to one of the allowed values".into(),
                        name,
                    );
                }
            }
            Keyword::Not { path, node } => {
                let before = self.errors.len();
                let valid = self.same(*node, data, inst, name);
                self.errors.truncate(before);
                if valid {
                    self.error(
                        inst,
                        path,
                        "not",
                        Map::new(),
                        "must NOT be valid".into(),
                        name,
                    );
                }
            }
            Keyword::AnyOf {
                path,
                nodes,
                merges,
            } => {
                let before = self.errors.len();
                let mut any = false;
                for (node, merge) in nodes.iter().zip(merges) {
                    if self.same(*node, data.reborrow(), inst, name) {
                        any = true;
                        self.exec(merge);
                    }
                }
                if any {
                    self.errors.truncate(before);
                } else {
                    self.error(
                        inst,
                        path,
                        "anyOf",
                        Map::new(),
                        "must match a schema in anyOf".into(),
                        name,
                    );
                }
            }
            Keyword::OneOf {
                path,
                nodes,
                merges,
            } => {
                let before = self.errors.len();
                let mut valid = false;
                let mut passing = Value::Null;
                for (i, (node, merge)) in nodes.iter().zip(merges).enumerate() {
                    let ok = self.same(*node, data.reborrow(), inst, name);
                    if i > 0 && ok && valid {
                        // Ajv's generated code nests the rest in the `else` of this check:
                        // once two schemas pass, the others are not even run.
                        valid = false;
                        passing = Value::Array(vec![passing, Value::from(i)]);
                        break;
                    } else if ok {
                        valid = true;
                        passing = Value::from(i);
                        self.exec(merge);
                    }
                }
                if valid {
                    self.errors.truncate(before);
                } else {
                    self.error(
                        inst,
                        path,
                        "oneOf",
                        params([("passingSchemas", passing)]),
                        "must match exactly one schema in oneOf".into(),
                        name,
                    );
                }
            }
            Keyword::AllOf { nodes, merges } => {
                for (node, merge) in nodes.iter().zip(merges) {
                    self.same(*node, data.reborrow(), inst, name);
                    self.exec(merge);
                }
            }
            Keyword::If {
                path,
                cond,
                cond_merge,
                then,
                otherwise,
            } => {
                let before = self.errors.len();
                let passed = self.same(*cond, data.reborrow(), inst, name);
                self.errors.truncate(before);
                self.exec(cond_merge);
                let (clause, keyword) = if passed {
                    (then, "then")
                } else {
                    (otherwise, "else")
                };
                if let Some((clause, merge)) = clause {
                    if self.same(*clause, data, inst, name) {
                        self.exec(merge);
                    } else {
                        self.error(
                            inst,
                            path,
                            "if",
                            params([("failingKeyword", Value::from(keyword))]),
                            format!("must match \"{keyword}\" schema"),
                            name,
                        );
                    }
                }
            }
            Keyword::NumberLimit { path, cmp, limit } => {
                let Some(x) = data.json().and_then(Value::as_f64) else {
                    return;
                };
                let ordering = x.partial_cmp(&limit.value);
                if !ordering.is_some_and(|o| cmp.passes(o)) {
                    self.error(
                        inst,
                        path,
                        cmp.keyword(false),
                        params([
                            ("comparison", Value::from(cmp.ok_str())),
                            ("limit", limit_json(limit)),
                        ]),
                        format!("must be {} {}", cmp.ok_str(), limit.text),
                        name,
                    );
                }
            }
            Keyword::MultipleOf { path, limit } => {
                let Some(x) = data.json().and_then(Value::as_f64) else {
                    return;
                };
                if !js::is_multiple_of(x, limit.value) {
                    self.error(
                        inst,
                        path,
                        "multipleOf",
                        params([("multipleOf", limit_json(limit))]),
                        format!("must be multiple of {}", limit.text),
                        name,
                    );
                }
            }
            Keyword::Format {
                path,
                name: format_name,
                format,
            } => {
                let ok = match (format.kind, data.json()) {
                    (FormatType::String, Some(Value::String(s))) => format.check_str(s),
                    (FormatType::Number, Some(Value::Number(n))) => format.check_number(n),
                    _ => true,
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
                let Some(Value::String(s)) = data.json() else {
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
            Keyword::MaxLength { path, limit } | Keyword::MinLength { path, limit } => {
                let Some(Value::String(s)) = data.json() else {
                    return;
                };
                let max = matches!(keyword, Keyword::MaxLength { .. });
                let bound = Bound::of(max, ("maxLength", "minLength"), "characters");
                self.count_within(js::ucs2_length(s), limit, bound, inst, path, name);
            }
            Keyword::Pattern { path, pattern } => {
                let Some(Value::String(s)) = data.json() else {
                    return;
                };
                if !pattern.test(s) {
                    self.error(
                        inst,
                        path,
                        "pattern",
                        params([("pattern", Value::from(pattern.source.as_str()))]),
                        format!("must match pattern \"{}\"", pattern.source),
                        name,
                    );
                }
            }
            Keyword::MaxItems { path, limit } | Keyword::MinItems { path, limit } => {
                let Some(Value::Array(items)) = data.json() else {
                    return;
                };
                let max = matches!(keyword, Keyword::MaxItems { .. });
                let bound = Bound::of(max, ("maxItems", "minItems"), "items");
                self.count_within(items.len(), limit, bound, inst, path, name);
            }
            Keyword::MaxProperties { path, limit } | Keyword::MinProperties { path, limit } => {
                let Some(Value::Object(map)) = data.json() else {
                    return;
                };
                let max = matches!(keyword, Keyword::MaxProperties { .. });
                let bound = Bound::of(max, ("maxProperties", "minProperties"), "properties");
                self.count_within(map.len(), limit, bound, inst, path, name);
            }
            Keyword::PrefixItems { nodes } => {
                let Data::Json(Value::Array(items)) = data else {
                    return;
                };
                for (i, node) in nodes.iter().enumerate() {
                    let (Some(node), Some(item)) = (node, items.get_mut(i)) else {
                        continue;
                    };
                    if self.throws(Some(item)) {
                        return;
                    }
                    self.item(*node, Data::Json(item), inst, i);
                }
            }
            Keyword::Items {
                path,
                node,
                from,
                false_after_prefix,
            } => {
                let Data::Json(Value::Array(items)) = data else {
                    return;
                };
                match node {
                    Some(node) => {
                        for (i, item) in items.iter_mut().enumerate().skip(*from) {
                            if self.throws(Some(item)) {
                                return;
                            }
                            self.item(*node, Data::Json(item), inst, i);
                        }
                    }
                    None if *false_after_prefix && items.len() > *from => {
                        self.error(
                            inst,
                            path,
                            "items",
                            params([("limit", Value::from(*from))]),
                            format!("must NOT have more than {from} items"),
                            name,
                        );
                    }
                    None => {}
                }
            }
            Keyword::Contains {
                path,
                node,
                min,
                max,
                min_json,
                max_json,
            } => {
                let Data::Json(Value::Array(items)) = data else {
                    return;
                };
                let before = self.errors.len();
                let mut count = 0usize;
                let len = items.len();
                match node {
                    None => count = len,
                    Some(node) => {
                        for (i, item) in items.iter_mut().enumerate() {
                            if self.throws(Some(item)) {
                                return;
                            }
                            if self.item(*node, Data::Json(item), inst, i) {
                                count += 1;
                                if max.is_none() && count as f64 >= *min {
                                    break;
                                }
                                if max.is_some_and(|m| count as f64 > m) {
                                    break;
                                }
                            }
                        }
                    }
                }
                let ok = count as f64 >= *min && max.is_none_or(|m| count as f64 <= m);
                if ok {
                    self.errors.truncate(before);
                } else {
                    let (p, message) = match max_json {
                        None => (
                            params([("minContains", min_json.clone())]),
                            format!(
                                "must contain at least {} valid item(s)",
                                js::number_text(*min)
                            ),
                        ),
                        Some(max_value) => (
                            params([
                                ("minContains", min_json.clone()),
                                ("maxContains", max_value.clone()),
                            ]),
                            format!(
                                "must contain at least {} and no more than {} valid item(s)",
                                js::number_text(*min),
                                js::number_text(max.unwrap_or(0.0))
                            ),
                        ),
                    };
                    self.error(inst, path, "contains", p, message, name);
                }
            }
            Keyword::UniqueItems { path, scalar_types } => {
                let Some(Value::Array(items)) = data.json() else {
                    return;
                };
                if let Some((i, j)) = self.duplicate(items, scalar_types.as_deref()) {
                    self.error(
                        inst,
                        path,
                        "uniqueItems",
                        params([("i", Value::from(i)), ("j", Value::from(j))]),
                        format!(
                            "must NOT have duplicate items (items ## {j} and {i} are identical)"
                        ),
                        name,
                    );
                }
            }
            Keyword::UnevaluatedItems {
                path,
                node,
                is_false,
                state,
            } => {
                let Data::Json(Value::Array(items)) = data else {
                    return;
                };
                // Ajv's `const items = it.items || 0`, read at run time when it is a variable.
                let evaluated = match *state {
                    IState::True => return,
                    IState::Undefined => RItems::Num(0.0),
                    IState::Num(n) => RItems::Num(n),
                    IState::Var(var) => self.frame_items(var),
                };
                let len = items.len();
                if *is_false {
                    if RItems::Num(len as f64).greater_than_items(evaluated) {
                        let (limit, text) = match evaluated {
                            RItems::Num(n) => (Some(Value::from(n as u64)), js::number_text(n)),
                            RItems::True => (Some(Value::Bool(true)), "true".into()),
                            RItems::Undefined => (None, "undefined".into()),
                        };
                        let mut p = Map::new();
                        if let Some(limit) = limit {
                            p.insert("limit".into(), limit);
                        }
                        self.error(
                            inst,
                            path,
                            "unevaluatedItems",
                            p,
                            format!("must NOT have more than {text} items"),
                            name,
                        );
                    }
                } else if let Some(node) = node {
                    let from = match evaluated {
                        RItems::Num(n) if (len as f64) > n => Some(n.max(0.0) as usize),
                        RItems::True if len > 1 => Some(1),
                        _ => None,
                    };
                    if let Some(from) = from {
                        for (i, item) in items.iter_mut().enumerate().skip(from) {
                            if self.throws(Some(item)) {
                                return;
                            }
                            self.item(*node, Data::Json(item), inst, i);
                        }
                    }
                }
            }
            Keyword::Required { path, names } => {
                let Some(Value::Object(map)) = data.json() else {
                    return;
                };
                let missing: Vec<&String> = names.iter().filter(|n| !self.has(map, n)).collect();
                for missing in missing {
                    self.error(
                        inst,
                        path,
                        "required",
                        params([("missingProperty", Value::from(missing.as_str()))]),
                        format!("must have required property '{missing}'"),
                        name,
                    );
                }
            }
            Keyword::PropertyNames { path, node } => {
                let Some(Value::Object(map)) = data.json() else {
                    return;
                };
                let keys: Vec<String> = js::keys(map).into_iter().cloned().collect();
                for key in keys {
                    let mut key_value = Value::String(key.clone());
                    let valid = self.same(*node, Data::Json(&mut key_value), inst, Some(&key));
                    if !valid {
                        self.error(
                            inst,
                            path,
                            "propertyNames",
                            params([("propertyName", Value::from(key.as_str()))]),
                            "property name must be valid".into(),
                            name,
                        );
                    }
                }
            }
            Keyword::AdditionalProperties {
                path,
                node,
                is_false,
                props,
                patterns,
            } => {
                let Data::Json(Value::Object(map)) = data else {
                    return;
                };
                if node.is_none() && !is_false {
                    return;
                }
                let declared = |key: &str| {
                    props.iter().any(|p| p == key) || patterns.iter().any(|p| p.test(key))
                };
                // The usual object has no other member: nothing to list or to visit.
                if map.keys().all(|key| declared(key)) {
                    return;
                }
                let keys: Vec<String> = js::keys(map).into_iter().cloned().collect();
                for key in keys {
                    if declared(&key) {
                        continue;
                    }
                    if *is_false {
                        self.error(
                            inst,
                            path,
                            "additionalProperties",
                            params([("additionalProperty", Value::from(key.as_str()))]),
                            "must NOT have additional properties".into(),
                            name,
                        );
                    } else if let (Some(node), Some(value)) = (node, map.get_mut(&key)) {
                        if self.throws(Some(value)) {
                            return;
                        }
                        self.child(*node, Data::Json(value), inst, &key);
                    }
                }
            }
            Keyword::Properties { props } => {
                let Data::Json(Value::Object(map)) = data else {
                    return;
                };
                for (key, node, _) in props {
                    let Some(node) = node else { continue };
                    let found = member_mut(map, key);
                    if self.throws(found.as_deref()) {
                        return;
                    }
                    match (js::lookup_found(found.as_deref(), key), found) {
                        (Lookup::Missing, _) => {}
                        (Lookup::Inherited, _) => {
                            self.child(*node, Data::NonJson, inst, key);
                        }
                        (Lookup::Own, Some(value)) => {
                            self.child(*node, Data::Json(value), inst, key);
                        }
                        (Lookup::Own, None) => {}
                    }
                }
            }
            Keyword::PatternProperties { patterns, mark } => {
                let Data::Json(Value::Object(map)) = data else {
                    return;
                };
                let keys: Vec<String> = js::keys(map).into_iter().cloned().collect();
                for (pattern, node) in patterns {
                    for key in &keys {
                        if !pattern.test(key) {
                            continue;
                        }
                        if let Some(var) = mark {
                            if let Some(RProps::Set(set)) =
                                self.frames.last_mut().and_then(|f| f.props.get_mut(*var))
                            {
                                set.insert(key.clone());
                            }
                        }
                        if let (Some(node), Some(value)) = (node, map.get_mut(key)) {
                            if self.throws(Some(value)) {
                                return;
                            }
                            self.child(*node, Data::Json(value), inst, key);
                        }
                    }
                }
            }
            Keyword::DependentRequired { path, deps } => {
                let Some(Value::Object(map)) = data.json() else {
                    return;
                };
                for (property, names) in deps {
                    if !self.has(map, property) {
                        continue;
                    }
                    let missing: Vec<&String> =
                        names.iter().filter(|n| !self.has(map, n)).collect();
                    for missing in missing {
                        let noun = if names.len() == 1 {
                            "property"
                        } else {
                            "properties"
                        };
                        let list = names.join(", ");
                        self.error(
                            inst,
                            path,
                            "dependentRequired",
                            params([
                                ("property", Value::from(property.as_str())),
                                ("missingProperty", Value::from(missing.as_str())),
                                ("depsCount", Value::from(names.len())),
                                ("deps", Value::from(list.as_str())),
                            ]),
                            format!("must have {noun} {list} when property {property} is present"),
                            name,
                        );
                    }
                }
            }
            Keyword::DependentSchemas { deps } => {
                for (property, node, merge) in deps {
                    let present =
                        matches!(data.json(), Some(Value::Object(map)) if self.has(map, property));
                    if present && self.same(*node, data.reborrow(), inst, name) {
                        self.exec(merge);
                    }
                }
            }
            Keyword::UnevaluatedProperties {
                path,
                node,
                is_false,
                state,
            } => {
                let Data::Json(Value::Object(map)) = data else {
                    return;
                };
                let evaluated = match state {
                    PState::True => return,
                    PState::Undefined => RProps::Undefined,
                    PState::Keys(keys) => RProps::Set(keys.iter().cloned().collect()),
                    PState::Var(var) => self.frame_props(*var),
                };
                let keys: Vec<String> = js::keys(map)
                    .into_iter()
                    .filter(|k| match &evaluated {
                        RProps::True => false,
                        RProps::Undefined => true,
                        RProps::Set(set) => !set.contains(*k),
                    })
                    .cloned()
                    .collect();
                for key in keys {
                    if *is_false {
                        self.error(
                            inst,
                            path,
                            "unevaluatedProperties",
                            params([("unevaluatedProperty", Value::from(key.as_str()))]),
                            "must NOT have unevaluated properties".into(),
                            name,
                        );
                    } else if let (Some(node), Some(value)) = (node, map.get_mut(&key)) {
                        if self.throws(Some(value)) {
                            return;
                        }
                        self.child(*node, Data::Json(value), inst, &key);
                    }
                }
            }
        }
    }
}

impl GroupCode {
    fn group_type(&self) -> Option<JType> {
        use super::compile::Group;
        match self.group {
            Group::Any => None,
            Group::Number => Some(JType::Number),
            Group::String => Some(JType::String),
            Group::Array => Some(JType::Array),
            Group::Object => Some(JType::Object),
        }
    }
}
