//! Index entries built from a primitive's own fields, as the TypeScript indexer builds them:
//! required fields checked by type, optional ones carried only when they have the right type,
//! Zod schemas already converted by JavaScript.

use super::error::{IndexerError, IndexerErrorCode};
use super::flow::load_flow;
use super::{PrimitiveKind, RESERVED_CHECK_IDS};
use crate::json::member;
use crate::validate::{Invalid, Side, Validator};
use serde_json::{Map, Value};

/// A type test for an optional field: the entry carries the field only when it passes.
type Wanted = fn(&Value) -> bool;
const STRING: Wanted = Value::is_string;
const ARRAY: Wanted = Value::is_array;
const OBJECT: Wanted = Value::is_object;
const BOOLEAN: Wanted = Value::is_boolean;

/// Each kind's fields its builder checks itself, and those it carries by type: together what
/// JavaScript reads off the default export (`fields_read`).
const TOOL_CHECKED: &[&str] = &["id", "input", "output"];
const TOOL_CARRIED: &[(&str, Wanted)] = &[
    ("description", STRING),
    ("version", STRING),
    ("effects", ARRAY),
    ("needs", ARRAY),
    ("needsSpec", OBJECT),
    ("sandbox", STRING),
    ("limits", OBJECT),
    ("network", OBJECT),
    ("spec", OBJECT),
    ("mutating", BOOLEAN),
];
const GUARDRAIL_CHECKED: &[&str] = &["id", "kind", "action", "configSchema", "config"];
const GUARDRAIL_CARRIED: &[(&str, Wanted)] = &[
    ("name", STRING),
    ("severity", STRING),
    ("scope", OBJECT),
    ("config", OBJECT),
    ("sandbox", STRING),
    ("limits", OBJECT),
    ("network", OBJECT),
];
const AGENT_CHECKED: &[&str] = &[
    "id",
    "version",
    "name",
    "instructions",
    "capabilities",
    "tools",
];
const AGENT_CARRIED: &[(&str, Wanted)] = &[
    ("retrieval", ARRAY),
    ("guardrails", ARRAY),
    ("parameters", ARRAY),
    ("tags", ARRAY),
    ("settings", ARRAY),
    ("budget", OBJECT),
    ("conversationPolicy", OBJECT),
    ("output", OBJECT),
    ("toolErrors", OBJECT),
    ("modelSettings", OBJECT),
    ("memory", OBJECT),
    ("preferredProvider", STRING),
    ("preferredModel", STRING),
    ("description", STRING),
];
/// What `loadFlow` returns that the index carries.
const FLOW_CARRIED: &[&str] = &[
    "id",
    "version",
    "name",
    "description",
    "nodes",
    "edges",
    "maxParallelism",
    "metadata",
    "output",
];

/// The fields JavaScript reads off a tool's, guardrail's or agent's default export (a flow's
/// is read whole).
pub fn fields_read(kind: PrimitiveKind) -> Vec<&'static str> {
    let (checked, carried) = match kind {
        PrimitiveKind::Tool => (TOOL_CHECKED, TOOL_CARRIED),
        PrimitiveKind::Guardrail => (GUARDRAIL_CHECKED, GUARDRAIL_CARRIED),
        PrimitiveKind::Agent => (AGENT_CHECKED, AGENT_CARRIED),
        PrimitiveKind::Flow => return Vec::new(),
    };
    let mut names: Vec<&str> = checked.to_vec();
    for (name, _) in carried {
        if !names.contains(name) {
            names.push(name);
        }
    }
    names
}

/// The fields of a guardrail's `check` when it is an object.
pub const CHECK_FIELDS: &[&str] = &["id", "configSchema", "configJsonSchema"];

/// A schema JavaScript converted from Zod: the field it came from, and the JSON Schema or why
/// not.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    pub field: String,
    pub result: Result<Value, ZodFailure>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ZodFailure {
    pub message: String,
    pub cause: Option<Value>,
}

/// Converted schemas by the index field they fill (`input`, `output`, `configSchema`).
pub type ConvertedSchemas = std::collections::BTreeMap<String, Converted>;

type Built = Result<Map<String, Value>, IndexerError>;

fn get<'a>(fields: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    member(fields, name)
}

fn string<'a>(fields: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    get(fields, name).and_then(Value::as_str)
}

fn object<'a>(fields: &'a Map<String, Value>, name: &str) -> Option<&'a Map<String, Value>> {
    get(fields, name).and_then(Value::as_object)
}

fn required_string(
    fields: &Map<String, Value>,
    name: &str,
    rel: &str,
) -> Result<String, IndexerError> {
    string(fields, name).map(str::to_owned).ok_or_else(|| {
        IndexerError::manifest(rel, format_args!("'{name}' is missing or not a string"))
    })
}

/// Copies the optional fields that have the wanted type.
fn carry(out: &mut Map<String, Value>, fields: &Map<String, Value>, carried: &[(&str, Wanted)]) {
    for (name, wanted) in carried {
        if let Some(value) = get(fields, name).filter(|v| wanted(v)) {
            out.insert((*name).to_owned(), value.clone());
        }
    }
}

/// Forward slashes, no leading `./`.
pub fn module_path(rel_path: &str) -> String {
    let normalized = rel_path.replace('\\', "/");
    match normalized.strip_prefix("./") {
        Some(rest) => rest.to_owned(),
        None => normalized,
    }
}

pub fn build_tool(fields: &Map<String, Value>, converted: &ConvertedSchemas, rel: &str) -> Built {
    let id = required_string(fields, "id", rel)?;
    let input = tool_schema(fields, converted, "input", rel)?;
    let output = tool_schema(fields, converted, "output", rel)?;
    let mut tool = Map::new();
    tool.insert("id".into(), Value::String(id));
    tool.insert("input".into(), input);
    tool.insert("output".into(), output);
    carry(&mut tool, fields, TOOL_CARRIED);
    tool.insert("modulePath".into(), Value::String(module_path(rel)));
    Ok(tool)
}

/// A tool's `input` or `output`: converted from Zod (`inputZod`, or a Zod schema in `input`
/// itself), else the JSON Schema object given.
fn tool_schema(
    fields: &Map<String, Value>,
    converted: &ConvertedSchemas,
    side: &'static str,
    rel: &str,
) -> Result<Value, IndexerError> {
    if let Some(converted) = converted.get(side) {
        return match &converted.result {
            Ok(schema) => Ok(schema.clone()),
            Err(failure) => Err(zod_failure(
                format!(
                    "{rel}: Zod conversion for '{}' failed: {}",
                    converted.field, failure.message
                ),
                rel,
                converted,
                failure,
            )),
        };
    }
    match get(fields, side) {
        Some(schema @ Value::Object(_)) => Ok(schema.clone()),
        _ => Err(
            IndexerError::manifest(rel, format_args!("'{side}' is missing or not an object"))
                .field(side),
        ),
    }
}

fn zod_failure(
    message: String,
    rel: &str,
    converted: &Converted,
    failure: &ZodFailure,
) -> IndexerError {
    let field: &'static str = match converted.field.as_str() {
        "inputZod" => "inputZod",
        "outputZod" => "outputZod",
        "input" => "input",
        "output" => "output",
        _ => "configSchema",
    };
    IndexerError::new(IndexerErrorCode::ZodConversionFailed, message)
        .at(rel)
        .field(field)
        .cause(failure.cause.clone())
}

/// `check`: the guardrail's check as a string id, or its object's fields.
pub fn build_guardrail(
    fields: &Map<String, Value>,
    check: Option<&Value>,
    converted: &ConvertedSchemas,
    rel: &str,
) -> Built {
    let id = required_string(fields, "id", rel)?;
    let kind = required_string(fields, "kind", rel)?;
    let Some(action) = object(fields, "action") else {
        return Err(IndexerError::manifest(
            rel,
            "'action' is missing or not an object",
        ));
    };
    let check_object = check.and_then(Value::as_object);
    let config_schema = match converted.get("configSchema") {
        Some(converted) => match &converted.result {
            Ok(schema) => Some(schema.clone()),
            Err(failure) => {
                return Err(zod_failure(
                    format!(
                        "Guardrail {id} configSchema Zod conversion failed: {}",
                        failure.message
                    ),
                    rel,
                    converted,
                    failure,
                ))
            }
        },
        None => get(fields, "configSchema")
            .filter(|v| v.is_object())
            .or_else(|| {
                check_object
                    .and_then(|c| member(c, "configSchema"))
                    .filter(|v| v.is_object())
            })
            .or_else(|| {
                check_object
                    .and_then(|c| member(c, "configJsonSchema"))
                    .filter(|v| v.is_object())
            })
            .cloned(),
    };
    check_guardrail_config(&id, get(fields, "config"), config_schema.as_ref(), rel)?;
    let check_id = match check {
        Some(Value::String(id)) => Some(id.clone()),
        _ => check_object
            .and_then(|c| member(c, "id"))
            .and_then(Value::as_str)
            .map(str::to_owned),
    };
    let id_for_builtin = id.clone();
    let mut guardrail = Map::new();
    guardrail.insert("id".into(), Value::String(id));
    guardrail.insert("kind".into(), Value::String(kind));
    guardrail.insert("action".into(), Value::Object(action.clone()));
    guardrail.insert("checkModulePath".into(), Value::String(module_path(rel)));
    // A guardrail naming a built-in check (or, with none named, one whose own id is a built-in
    // check's) is marked, so a runtime knows its file ships no check of its own.
    if RESERVED_CHECK_IDS.contains(&check_id.as_deref().unwrap_or(id_for_builtin.as_str())) {
        guardrail.insert("checkBuiltIn".into(), Value::Bool(true));
    }
    if let Some(check_id) = check_id {
        guardrail.insert("checkId".into(), Value::String(check_id));
    }
    if let Some(schema) = config_schema {
        guardrail.insert("configSchema".into(), schema);
    }
    carry(&mut guardrail, fields, GUARDRAIL_CARRIED);
    Ok(guardrail)
}

/// A guardrail's `config` (or `{}` when it has none) against its `configSchema`, on the output
/// side: checked as declared, no defaults filled in.
fn check_guardrail_config(
    id: &str,
    config: Option<&Value>,
    schema: Option<&Value>,
    rel: &str,
) -> Result<(), IndexerError> {
    let fail = |message: String| {
        IndexerError::manifest(rel, format_args!("guardrail {id}'s config {message}"))
            .field("config")
    };
    if config.is_some_and(|c| !c.is_object()) {
        return Err(fail("must be an object".into()));
    }
    let Some(schema) = schema else { return Ok(()) };
    let validator = Validator::compile(schema, Side::Output).map_err(|e| {
        fail(format!(
            "can't be checked: its configSchema doesn't compile: {}",
            e.message
        ))
    })?;
    let mut value = config.cloned().unwrap_or_else(|| Value::Object(Map::new()));
    match validator.validate(&mut value) {
        Ok(()) => Ok(()),
        Err(Invalid::Issues(issues)) => {
            let first = issues.first();
            let at = match first {
                Some(issue) if !issue.instance_path.is_empty() => {
                    format!(" at {}", issue.instance_path)
                }
                _ => String::new(),
            };
            let message = first.map_or("invalid", |issue| issue.message.as_str());
            Err(fail(format!("doesn't fit its configSchema{at}: {message}")))
        }
        Err(Invalid::Recursion) => Err(fail(
            "can't be checked: its configSchema doesn't compile: Maximum call stack size exceeded"
                .into(),
        )),
    }
}

/// `{ prompt, version }`, both strings.
pub fn is_prompt_ref(value: Option<&Value>) -> bool {
    value.and_then(Value::as_object).is_some_and(|o| {
        member(o, "prompt").is_some_and(Value::is_string)
            && member(o, "version").is_some_and(Value::is_string)
    })
}

pub fn build_agent(fields: &Map<String, Value>, rel: &str) -> Built {
    let id = required_string(fields, "id", rel)?;
    let version = required_string(fields, "version", rel)?;
    let name = required_string(fields, "name", rel)?;
    let instructions =
        get(fields, "instructions").filter(|v| v.is_string() || is_prompt_ref(Some(v)));
    let Some(instructions) = instructions else {
        return Err(IndexerError::manifest(
            rel,
            "'instructions' is missing, or neither a string nor a prompt block { prompt, version }",
        ));
    };
    let array = |name: &str| get(fields, name).filter(|v| v.is_array());
    let Some(capabilities) = array("capabilities") else {
        return Err(IndexerError::manifest(
            rel,
            "'capabilities' is missing or not an array",
        ));
    };
    let Some(tools) = array("tools") else {
        return Err(IndexerError::manifest(
            rel,
            "'tools' is missing or not an array",
        ));
    };
    let mut agent = Map::new();
    agent.insert("id".into(), Value::String(id));
    agent.insert("version".into(), Value::String(version));
    agent.insert("name".into(), Value::String(name));
    agent.insert("instructions".into(), instructions.clone());
    agent.insert("capabilities".into(), capabilities.clone());
    agent.insert("tools".into(), tools.clone());
    carry(&mut agent, fields, AGENT_CARRIED);
    agent.insert("modulePath".into(), Value::String(module_path(rel)));
    Ok(agent)
}

/// A flow, checked as `@kindgi/flow` loads it, with every field it carries.
pub fn build_flow(raw: &Value, rel: &str) -> Built {
    let loaded = load_flow(raw).map_err(|e| IndexerError::manifest(rel, e.message))?;
    let mut flow = Map::new();
    for name in FLOW_CARRIED {
        if let Some(value) = member(&loaded, name) {
            flow.insert((*name).to_owned(), value.clone());
        }
    }
    flow.insert(
        "kernelPayloadVersion".into(),
        Value::from(super::KERNEL_PAYLOAD_VERSION),
    );
    flow.insert("modulePath".into(), Value::String(module_path(rel)));
    Ok(flow)
}
