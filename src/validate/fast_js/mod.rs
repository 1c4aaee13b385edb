//! The in-process fast path: a compiled schema written out as a JavaScript function that says
//! only whether a value is valid (filling the input side's defaults as it goes), for a caller
//! that holds the value in JavaScript and would otherwise hand it over as JSON text.
//!
//! The function runs on the JavaScript value itself, as Ajv's generated code does, so it needs
//! no hand-over; it answers `true` (valid) or `false` (not valid, or unsure). Where it cannot
//! judge exactly as [`super::run`] does (an object that is not a plain object or array, a value
//! JSON has no form for where `const`, `enum` or `uniqueItems` compares it), the helpers throw,
//! and the caller asks the full validator, which also writes the issues of an invalid value.
//! Only programs [`shape::Shape`] accepts, whose every keyword has a form here, are written.
//!
//! The helpers the code calls (`kind`, `object`, `array`, `equal`, `unique`, `uniqueScalars`,
//! `ucs2`, `formatter`) are in `lib/validate-fast.js`.

mod regex;
mod shape;

use super::formats::{Format, FormatType};
use super::program::{Comparison, DataType, Group, Keyword, NodeId, Program, SchemaNode};
use crate::json::{write_js_number, write_json_str};
use serde_json::Value;
use shape::Shape;
use std::collections::HashMap;
use std::fmt::Write;

/// The kinds `kind` returns, one bit each (0 never: an unjudgeable value throws).
const NULL: u8 = 1;
const BOOLEAN: u8 = 2;
const NUMBER: u8 = 4;
const STRING: u8 = 8;
const ARRAY: u8 = 16;
const OBJECT: u8 = 32;
/// `uniqueScalars`' bit for integers (a number of kind `NUMBER` with no fraction).
const INTEGER: u8 = 64;

/// The body of `new Function('H', body)`, which returns the validating function; `None` when
/// the schema uses a keyword the fast path does not write (the caller keeps the full validator).
pub fn write(program: &Program) -> Option<String> {
    if program.reads_evaluated || !Shape::of(program).fits() || !every_keyword_written(program) {
        return None;
    }
    let mut writer = Writer {
        program,
        out: String::new(),
        constants: String::new(),
        next_constant: 0,
        shared: HashMap::new(),
        called: vec![program.root],
    };
    // Only the nodes something calls get a function: a leaf written in place at every use
    // needs none.
    let mut written = vec![false; program.nodes.len()];
    while let Some(id) = writer.called.pop() {
        if written.get(id).is_some_and(|done| !done) {
            written[id] = true;
            writer.node(id)?;
        }
    }
    let mut body = String::from(
        "\"use strict\";\nconst { kind, object, array, equal, unique, uniqueScalars, ucs2, formatter, wellFormed } = H;\n",
    );
    body.push_str(&writer.constants);
    body.push_str(&writer.out);
    let _ = writeln!(body, "return n{};", program.root);
    Some(body)
}

struct Writer<'p> {
    program: &'p Program,
    out: String,
    /// Regular expressions and constant values, made once when the function is created.
    constants: String,
    next_constant: usize,
    /// The constant made for each shared expression, so each is made once.
    shared: HashMap<String, String>,
    /// Nodes called from what is written, whose functions are still to be written.
    called: Vec<NodeId>,
}

impl Writer<'_> {
    /// The call of node `id`'s function on `var`.
    fn call(&mut self, id: NodeId, var: &str) -> String {
        self.called.push(id);
        format!("n{id}({var})")
    }

    /// A constant made once (`const cN = expr;`), by name.
    fn constant(&mut self, expr: &str) -> String {
        let name = format!("c{}", self.next_constant);
        self.next_constant += 1;
        let _ = writeln!(self.constants, "const {name} = {expr};");
        name
    }

    /// A constant made once for each distinct expression (a RegExp, a format's check).
    fn shared(&mut self, expr: String) -> String {
        if let Some(name) = self.shared.get(&expr) {
            return name.clone();
        }
        let name = self.constant(&expr);
        self.shared.insert(expr, name.clone());
        name
    }

    fn regex(&mut self, source: &str, flags: &str) -> String {
        let mut expr = String::from("new RegExp(");
        write_json_str(&mut expr, &regex::unroll_counts(source));
        expr.push_str(", ");
        write_json_str(&mut expr, flags);
        expr.push(')');
        self.shared(expr)
    }

    /// `pattern`'s test of `var` (`new RegExp(source, "u")`). Where the pattern names surrogate
    /// code points, a string holding a lone surrogate is left to the native validator, which
    /// reads it as a stand-in (`wellFormed` throws for one).
    fn pattern_test(&mut self, source: &str, var: &str) -> String {
        let regex = self.regex(source, "u");
        if names_surrogates(source) {
            format!("(wellFormed({var}) && {regex}.test({var}))")
        } else {
            format!("{regex}.test({var})")
        }
    }

    /// A format's test of `var` (of the format's type): its one regular expression, or its
    /// check from `formatter`.
    fn format_test(&mut self, format: &Format, var: &str) -> String {
        let check = match format.js_regex() {
            Some((source, flags)) => return format!("{}.test({var})", self.regex(source, flags)),
            None => {
                let mut expr = String::from("formatter(");
                write_json_str(&mut expr, format.name);
                expr.push(')');
                self.shared(expr)
            }
        };
        format!("{check}({var})")
    }

    fn node(&mut self, id: NodeId) -> Option<()> {
        let program = self.program;
        let _ = write!(self.out, "function n{id}(v) {{ ");
        match &program.nodes[id] {
            SchemaNode::True | SchemaNode::Pending => self.out.push_str("return true; }\n"),
            SchemaNode::False(_) => self.out.push_str("return false; }\n"),
            SchemaNode::Object(obj) => {
                // One type: the value must be of it, so it is tested first, exactly, and only
                // its group can run. Otherwise the kind is read once (it throws for a value
                // the fast path cannot judge).
                let single = match obj.types.as_slice() {
                    [only] => Some(*only),
                    _ => None,
                };
                match single {
                    Some(only) => {
                        let _ = writeln!(
                            self.out,
                            "\n  if (!({})) return false;",
                            single_test(only, "v")
                        );
                    }
                    None => {
                        self.out.push_str("const k = kind(v);\n");
                        if obj.type_first {
                            let test = types_test(&obj.types);
                            let _ = writeln!(self.out, "  if (!({test})) return false;");
                        }
                    }
                }
                for group in &obj.groups {
                    let kind = group_kind(group.group);
                    match (kind, single) {
                        (None, _) => {
                            for keyword in &group.keywords {
                                self.keyword(keyword, None)?;
                            }
                        }
                        (Some(kind), Some(only)) => {
                            if type_bit(only) == kind {
                                if kind == OBJECT {
                                    self.defaults(&obj.defaults);
                                }
                                for keyword in &group.keywords {
                                    self.keyword(keyword, Some(kind))?;
                                }
                            }
                        }
                        (Some(kind), None) => {
                            // A kind the type test has already refused cannot reach its group.
                            let refused =
                                obj.type_first && !obj.types.iter().any(|t| type_bit(*t) == kind);
                            if refused && !group.type_error {
                                continue;
                            }
                            let before = std::mem::take(&mut self.out);
                            if kind == OBJECT {
                                self.defaults(&obj.defaults);
                            }
                            for keyword in &group.keywords {
                                if self.keyword(keyword, Some(kind)).is_none() {
                                    self.out = before;
                                    return None;
                                }
                            }
                            let block = std::mem::replace(&mut self.out, before);
                            match (block.is_empty(), group.type_error) {
                                (true, false) => {}
                                (true, true) => {
                                    let _ = writeln!(self.out, "  if (k !== {kind}) return false;");
                                }
                                (false, type_error) => {
                                    let _ = write!(self.out, "  if (k === {kind}) {{\n{block}  }}");
                                    if type_error {
                                        self.out.push_str(" else return false;");
                                    }
                                    self.out.push('\n');
                                }
                            }
                        }
                    }
                }
                self.out.push_str("  return true;\n}\n");
            }
        }
        Some(())
    }

    /// Ajv's `useDefaults`: a member that reads `undefined` gets a fresh copy of its default.
    fn defaults(&mut self, defaults: &[(String, Value)]) {
        for (key, default) in defaults {
            let mut member = String::new();
            write_json_str(&mut member, key);
            let mut literal = String::new();
            write_literal(&mut literal, default);
            let _ = writeln!(
                self.out,
                "    if (v[{member}] === undefined) v[{member}] = {literal};"
            );
        }
    }

    /// One keyword's check, as a statement that returns false where the keyword fails. `group`:
    /// the kind the value is known to be (inside a type group).
    fn keyword(&mut self, keyword: &Keyword, group: Option<u8>) -> Option<()> {
        let out = match keyword {
            Keyword::Eval(_) => String::new(),
            Keyword::Ref { target, .. } => format!("if (!{}) return false;", self.call(*target, "v")),
                        Keyword::Const { .. }
            | Keyword::Enum { .. }
            | Keyword::NumberLimit { .. }
            | Keyword::MaxLength { .. }
            | Keyword::MinLength { .. }
            | Keyword::Pattern { .. } => {
                let test = self.pass_test(keyword, "v", None)?;
                format!("if (!({test})) return false;")
            }
            Keyword::Not { node, .. } => format!("if ({}) return false;", self.call(*node, "v")),
            Keyword::AnyOf { nodes, .. } => {
                // Every branch runs, as in Ajv's code: `|` rather than `||`.
                let calls: Vec<String> = nodes.iter().map(|n| self.call(*n, "v")).collect();
                format!("if (!({})) return false;", calls.join(" | "))
            }
            Keyword::OneOf { nodes, .. } => {
                // Once two pass, the rest are not run (Ajv's code nests them in an `else`).
                let mut text = String::from("{ let passed = 0;");
                for node in nodes {
                    let call = self.call(*node, "v");
                    let _ = write!(text, " if ({call} && ++passed === 2) return false;");
                }
                text.push_str(" if (passed !== 1) return false; }");
                text
            }
            Keyword::AllOf { nodes, .. } => {
                let calls: Vec<String> =
                    nodes.iter().map(|n| format!("!{}", self.call(*n, "v"))).collect();
                if calls.is_empty() {
                    String::new()
                } else {
                    format!("if ({}) return false;", calls.join(" || "))
                }
            }
            Keyword::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                let mut clause = |c: &Option<(NodeId, _)>| match c {
                    Some((node, _)) => self.call(*node, "v"),
                    None => "true".into(),
                };
                let (then, otherwise) = (clause(then), clause(otherwise));
                format!(
                    "if (!({} ? {then} : {otherwise})) return false;",
                    self.call(*cond, "v")
                )
            }
            Keyword::MultipleOf { limit, .. } => {
                if limit.value == 0.0 {
                    "return false;".into()
                } else {
                    // Ajv's test: the quotient is what parseInt makes of it.
                    format!(
                        "{{ const q = v / {}; if (q !== parseInt(q)) return false; }}",
                        number(limit.value)
                    )
                }
            }
            Keyword::Format { format, .. } => {
                let applies = match format.kind {
                    FormatType::String => STRING,
                    FormatType::Number => NUMBER,
                };
                if group.is_some_and(|g| g != applies) || format.is_unchecked() {
                    String::new()
                } else {
                    let test = self.format_test(format, "v");
                    if group == Some(applies) {
                        format!("if (!{test}) return false;")
                    } else {
                        format!("if (k === {applies} && !{test}) return false;")
                    }
                }
            }
            Keyword::FormatLimit { .. } => return None,
            Keyword::MaxItems { limit, .. } => {
                format!("if (v.length > {}) return false;", number(limit.value))
            }
            Keyword::MinItems { limit, .. } => {
                format!("if (v.length < {}) return false;", number(limit.value))
            }
            Keyword::MaxProperties { limit, .. } => format!(
                "if (Object.keys(v).length > {}) return false;",
                number(limit.value)
            ),
            Keyword::MinProperties { limit, .. } => format!(
                "if (Object.keys(v).length < {}) return false;",
                number(limit.value)
            ),
            Keyword::PrefixItems { nodes } => {
                let mut text = String::new();
                for (i, node) in nodes.iter().enumerate() {
                    if let Some(node) = node {
                                                let check = self.check(*node, "m");
                        let _ = write!(
                            text,
                            "if (v.length > {i}) {{ const m = v[{i}]; if (!{check}) return false; }} "
                        );
                    }
                }
                text
            }
            Keyword::Items {
                node,
                from,
                false_after_prefix,
                ..
            } => match node {
                                Some(node) => format!(
                    "for (let i = {from}; i < v.length; i++) {{ const m = v[i]; if (!{}) return false; }}",
                    self.check(*node, "m")
                ),
                None if *false_after_prefix => format!("if (v.length > {from}) return false;"),
                None => String::new(),
            },
            Keyword::Contains { node, min, max, .. } => {
                let max_text = max.map(number);
                let mut text = String::from("{ let count = 0;");
                match node {
                    None => text.push_str(" count = v.length;"),
                    Some(node) => {
                        let stop = match &max_text {
                            None => format!("count >= {}", number(*min)),
                            Some(max) => format!("count > {max}"),
                        };
                        let call = self.call(*node, "v[i]");
                        let _ = write!(
                            text,
                            " for (let i = 0; i < v.length; i++) if ({call} && (++count, {stop})) break;"
                        );
                    }
                }
                let _ = write!(text, " if (count < {}", number(*min));
                if let Some(max) = max_text {
                    let _ = write!(text, " || count > {max}");
                }
                text.push_str(") return false; }");
                text
            }
            Keyword::UniqueItems { scalar_types, .. } => match scalar_types {
                Some(types) => format!(
                    "if (!uniqueScalars(v, {})) return false;",
                    types.iter().fold(0, |bits, t| bits | scalar_bit(*t))
                ),
                None => "if (!unique(v)) return false;".into(),
            },
            Keyword::UnevaluatedItems { .. }
            | Keyword::UnevaluatedProperties { .. }
            | Keyword::DynamicAnchor { .. }
            | Keyword::DynamicRef { .. } => return None,
            Keyword::Required { names, .. } => match any_missing(names) {
                Some(missing) => format!("if ({missing}) return false;"),
                None => String::new(),
            },
            Keyword::PropertyNames { node, .. } => {
                format!(
                    "for (const key in v) if (!{}) return false;",
                    self.check(*node, "key")
                )
            }
            Keyword::AdditionalProperties {
                node,
                is_false,
                props,
                patterns,
                ..
            } => {
                if node.is_none() && !is_false {
                    String::new()
                } else {
                    let mut declared: Vec<String> = props
                        .iter()
                        .map(|p| format!("key === {}", js_str(p)))
                        .collect();
                    for pattern in patterns {
                        declared.push(self.pattern_test(&pattern.source, "key"));
                    }
                    let skip = if declared.is_empty() {
                        String::new()
                    } else {
                        format!("if ({}) continue; ", declared.join(" || "))
                    };
                    let check = match node {
                        Some(node) if !is_false => {
                            format!("const m = v[key]; if (!{}) return false;", self.check(*node, "m"))
                        }
                        _ => "return false;".into(),
                    };
                    format!("for (const key in v) {{ {skip}{check} }}")
                }
            }
            Keyword::Properties { props } => {
                let mut text = String::new();
                for (key, node, _) in props {
                    if let Some(node) = node {
                        let _ = write!(
                            text,
                            "{{ const m = v[{}]; if (m !== undefined && !{}) return false; }} ",
                            js_str(key),
                            self.check(*node, "m")
                        );
                    }
                }
                text
            }
            Keyword::PatternProperties { patterns, .. } => {
                let mut text = String::new();
                for (pattern, node) in patterns {
                    if let Some(node) = node {
                        let test = self.pattern_test(&pattern.source, "key");
                        let check = self.check(*node, "m");
                        let _ = write!(
                            text,
                            "for (const key in v) if ({test}) {{ const m = v[key]; if (!{check}) return false; }} "
                        );
                    }
                }
                text
            }
            Keyword::DependentRequired { deps, .. } => {
                let mut text = String::new();
                for (property, names) in deps {
                    if let Some(missing) = any_missing(names) {
                        let _ = write!(
                            text,
                            "if (v[{}] !== undefined && ({missing})) return false; ",
                            js_str(property)
                        );
                    }
                }
                text
            }
            Keyword::DependentSchemas { deps } => {
                let mut text = String::new();
                for (property, node, _) in deps {
                    let call = self.call(*node, "v");
                    let _ = write!(
                        text,
                        "if (v[{}] !== undefined && !{call}) return false; ",
                        js_str(property)
                    );
                }
                text
            }
        };
        if !out.is_empty() {
            let _ = writeln!(self.out, "    {out}");
        }
        Some(())
    }

    /// The call that checks `var` against node `id`: the node's test written in place where it
    /// is one expression (a scalar type and its simple keywords), as Ajv's code inlines it.
    fn check(&mut self, id: NodeId, var: &str) -> String {
        match self.leaf_test(id, var) {
            Some(test) => test,
            None => self.call(id, var),
        }
    }

    fn leaf_test(&mut self, id: NodeId, var: &str) -> Option<String> {
        let program = self.program;
        let obj = match &program.nodes[id] {
            SchemaNode::True => return Some("true".into()),
            SchemaNode::Object(obj) => obj,
            _ => return None,
        };
        let [only] = obj.types.as_slice() else {
            return None;
        };
        let kind = type_bit(*only);
        if kind == ARRAY || kind == OBJECT || !obj.defaults.is_empty() {
            return None;
        }
        let mut tests = vec![single_test(*only, var)];
        for group in &obj.groups {
            let group_kind = group_kind(group.group);
            if group_kind.is_some_and(|g| g != kind) {
                continue;
            }
            for keyword in &group.keywords {
                if matches!(keyword, Keyword::Eval(_)) {
                    continue;
                }
                tests.push(self.pass_test(keyword, var, group_kind)?);
            }
        }
        Some(format!("({})", tests.join(" && ")))
    }

    /// What a keyword that is one expression tests of `var` to pass; `None` for the others.
    /// `kind`: the kind `var` is known to be (inside a type group).
    fn pass_test(&mut self, keyword: &Keyword, var: &str, kind: Option<u8>) -> Option<String> {
        Some(match keyword {
            Keyword::Const { value, .. } => self.equals(value, var),
            Keyword::Enum { values, .. } => {
                let tests: Vec<String> =
                    values.iter().map(|value| self.equals(value, var)).collect();
                if tests.is_empty() {
                    "false".into()
                } else {
                    format!("({})", tests.join(" || "))
                }
            }
            Keyword::NumberLimit { cmp, limit, .. } => {
                let op = match cmp {
                    Comparison::Max => "<=",
                    Comparison::Min => ">=",
                    Comparison::ExclusiveMax => "<",
                    Comparison::ExclusiveMin => ">",
                };
                format!("{var} {op} {}", number(limit.value))
            }
            // A string of n code units holds at least n / 2 code points.
            Keyword::MaxLength { limit, .. } => format!(
                "({var}.length <= {0} || ucs2({var}) <= {0})",
                number(limit.value)
            ),
            Keyword::MinLength { limit, .. } => format!(
                "({var}.length >= 2 * {0} || ({var}.length >= {0} && ucs2({var}) >= {0}))",
                number(limit.value)
            ),
            Keyword::Pattern { pattern, .. } => self.pattern_test(&pattern.source, var),
            Keyword::Format { format, .. } if kind.is_some() => {
                let applies = match format.kind {
                    FormatType::String => STRING,
                    FormatType::Number => NUMBER,
                };
                if kind != Some(applies) || format.is_unchecked() {
                    "true".into()
                } else {
                    self.format_test(format, var)
                }
            }
            _ => return None,
        })
    }

    /// A test that `var` equals `value` as Ajv compares (`===`, fast-deep-equal for objects).
    fn equals(&mut self, value: &Value, var: &str) -> String {
        match value {
            Value::Object(_) | Value::Array(_) => {
                let mut literal = String::new();
                write_literal(&mut literal, value);
                let constant = self.constant(&literal);
                format!("equal({var}, {constant})")
            }
            other => {
                let mut literal = String::new();
                write_literal(&mut literal, other);
                format!("{var} === {literal}")
            }
        }
    }
}

/// Whether every keyword of the program has a form here, called or not (a schema that has one
/// without is the full validator's, wherever the keyword is).
fn every_keyword_written(program: &Program) -> bool {
    program.nodes.iter().all(|node| match node {
        SchemaNode::Object(obj) => obj.groups.iter().flat_map(|g| &g.keywords).all(|k| {
            !matches!(
                k,
                Keyword::FormatLimit { .. }
                    | Keyword::UnevaluatedItems { .. }
                    | Keyword::UnevaluatedProperties { .. }
                    | Keyword::DynamicAnchor { .. }
                    | Keyword::DynamicRef { .. }
            )
        }),
        _ => true,
    })
}

/// The kind a keyword group runs on (`None`: any value).
fn group_kind(group: Group) -> Option<u8> {
    match group {
        Group::Any => None,
        Group::Number => Some(NUMBER),
        Group::String => Some(STRING),
        Group::Array => Some(ARRAY),
        Group::Object => Some(OBJECT),
    }
}

/// `v[name] === undefined` for any of `names`, as Ajv's `required` reads a member; `None` for
/// no names.
fn any_missing(names: &[String]) -> Option<String> {
    let tests: Vec<String> = names
        .iter()
        .map(|n| format!("v[{}] === undefined", js_str(n)))
        .collect();
    (!tests.is_empty()).then(|| tests.join(" || "))
}

/// A type's bit for `uniqueScalars`, where an integer is told from other numbers.
fn scalar_bit(t: DataType) -> u8 {
    match t {
        DataType::Integer => INTEGER,
        other => type_bit(other),
    }
}

fn type_bit(t: DataType) -> u8 {
    match t {
        DataType::Null => NULL,
        DataType::Boolean => BOOLEAN,
        DataType::Number | DataType::Integer => NUMBER,
        DataType::String => STRING,
        DataType::Array => ARRAY,
        DataType::Object => OBJECT,
    }
}

/// Whether `v` is of type `t`, read directly: exact for scalars (a value JSON has no form for is
/// of none, as for the native validator); `object` and `array` throw for an object the fast
/// path cannot judge.
fn single_test(t: DataType, var: &str) -> String {
    match t {
        DataType::Null => format!("{var} === null"),
        DataType::Boolean => format!("typeof {var} === \"boolean\""),
        DataType::Number => format!("(typeof {var} === \"number\" && {var} - {var} === 0)"),
        DataType::Integer => format!("(typeof {var} === \"number\" && {var} % 1 === 0)"),
        DataType::String => format!("typeof {var} === \"string\""),
        DataType::Array => format!("array({var})"),
        DataType::Object => format!("object({var})"),
    }
}

/// Whether the value of kind `k` is of one of `types`.
fn types_test(types: &[DataType]) -> String {
    let tests: Vec<String> = types
        .iter()
        .map(|t| match t {
            DataType::Integer => format!("(k === {NUMBER} && v % 1 === 0)"),
            other => format!("k === {}", type_bit(*other)),
        })
        .collect();
    if tests.is_empty() {
        "true".into()
    } else {
        tests.join(" || ")
    }
}

/// Whether a pattern's source names a surrogate code point (`\uD800`–`\uDFFF`, or in braces).
fn names_surrogates(source: &str) -> bool {
    let mut rest = source;
    while let Some(at) = rest.find("\\u") {
        rest = &rest[at + 2..];
        let digits: String = match rest.strip_prefix('{') {
            Some(braced) => braced.chars().take_while(char::is_ascii_hexdigit).collect(),
            None => rest.chars().take(4).collect(),
        };
        if u32::from_str_radix(&digits, 16).is_ok_and(|unit| (0xD800..=0xDFFF).contains(&unit)) {
            return true;
        }
    }
    false
}

fn number(x: f64) -> String {
    let mut out = String::from("(");
    write_js_number(&mut out, x);
    out.push(')');
    out
}

fn js_str(s: &str) -> String {
    let mut out = String::new();
    write_json_str(&mut out, s);
    out
}

/// A JSON value as a JavaScript expression that makes a fresh copy of it. A member named
/// `__proto__` is written as a computed key, which makes a member rather than a prototype.
fn write_literal(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            out.push('(');
            write_js_number(out, n.as_f64().unwrap_or(f64::NAN));
            out.push(')');
        }
        Value::String(s) => write_json_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_literal(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, member)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if key == "__proto__" {
                    out.push('[');
                    write_json_str(out, key);
                    out.push(']');
                } else {
                    write_json_str(out, key);
                }
                out.push(':');
                write_literal(out, member);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests;
