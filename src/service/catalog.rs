//! What the pack service serves, read once from `index.json`: its tools by id and version,
//! its checks by check id, and the `/v1/info` body.
//!
//! The TypeScript service trusts everything in the index past `v === 1`; a malformed entry
//! there fails on the first call that touches it. Here every entry the service uses is checked
//! at boot, so a bad index is a `boot-failed` problem list instead. The envelope's `packId`,
//! `packVersion` and `artifactVersion` are only reported, so, as in TypeScript, they may be
//! anything or absent.

use crate::js::js_string;
use crate::json::{
    parse_with_lone_surrogates, restore_lone_surrogates_if, to_js_json, write_json_str,
};
use crate::protocol::{PackErrorCode, PackErrorMessage};
use crate::service::tool_io::{CompiledSchema, SchemaCompiler};
use crate::validate::Side;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// One indexed tool version.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// Where the entry stands in the index's `tools`.
    pub position: usize,
    pub id: String,
    pub version: Option<String>,
    pub module_path: String,
    /// The indexed `input` schema, compiled (input side: defaults filled).
    pub input: CompiledSchema,
    /// The indexed `output` schema, compiled.
    pub output: CompiledSchema,
}

/// One indexed guardrail, as a check the service runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// Where the entry stands in the index's `guardrails`.
    pub position: usize,
    /// `checkId`, else the guardrail's `id`: what a `check-invoke` names.
    pub id: String,
    pub module_path: String,
}

#[derive(Debug, Clone)]
pub struct Catalog {
    /// The envelope's fields as the index holds them (absent: `None`), for `/v1/info`.
    pack_id: Option<Value>,
    pack_version: Option<Value>,
    artifact_version_value: Option<Value>,
    /// `kindgi-artifact-version`: the index's `artifactVersion` as Node writes a header value
    /// (`String(value)`); `None` where Node writes none or throws (`undefined`, an empty list).
    pub artifact_version: Option<String>,
    /// Whether the index held lone surrogates (as stand-ins here: see `json::surrogates`).
    lone_surrogates: bool,
    /// Distinct tool keys (`id@version`, or `id`), in first-insertion order; on a repeated key
    /// the last entry wins.
    tools: Vec<Arc<Tool>>,
    tool_keys: HashMap<String, usize>,
    /// Every entry per id, in index order, repeats included: a call naming no version runs
    /// its id's only entry itself, even one whose key a later entry took (`a@1` beside `a`
    /// version `1`), as in TypeScript.
    versions: HashMap<String, Vec<Arc<Tool>>>,
    /// Distinct check ids in first-insertion order, last entry winning.
    checks: Vec<Arc<Check>>,
    check_keys: HashMap<String, usize>,
}

/// A tool's key: its id and version, or its id alone when it has no version.
fn tool_key(id: &str, version: Option<&str>) -> String {
    match version {
        Some(v) => format!("{id}@{v}"),
        None => id.to_owned(),
    }
}

/// The deepest nesting read from the index, counted from its top: serde_json's recursion limit
/// (the 128th container is refused), which keeps every recursive walk of a schema shallow.
const MAX_INDEX_DEPTH: usize = 128;

/// `kindgi-artifact-version` for the index's `artifactVersion`: Node writes `String(value)` and
/// throws on `undefined` (the TypeScript service then answers 500; here it is left out, as
/// every value Node refuses is).
fn artifact_version_header(value: Option<&Value>) -> Option<String> {
    match value {
        None => None,
        // Node writes one header per item, so none for an empty list.
        Some(Value::Array(items)) if items.is_empty() => None,
        Some(value) => Some(js_string(Some(value))),
    }
}

/// Where in `text` (JSON) nesting first reaches [`MAX_INDEX_DEPTH`], as a path of at most three
/// steps (`tools[2].input`); `None` when it never does. Iterative: the text may be nested
/// far deeper than any stack.
fn too_deep_at(text: &str) -> Option<String> {
    enum Frame {
        Object {
            key: Option<String>,
            expect_key: bool,
        },
        Array(usize),
    }
    let bytes = text.as_bytes();
    let mut frames: Vec<Frame> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                let start = at + 1;
                at = start;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object { key, expect_key }) = frames.last_mut() {
                    if *expect_key {
                        *key = text.get(start..at.min(bytes.len())).map(str::to_owned);
                        *expect_key = false;
                    }
                }
            }
            open @ (b'{' | b'[') => {
                frames.push(if open == b'{' {
                    Frame::Object {
                        key: None,
                        expect_key: true,
                    }
                } else {
                    Frame::Array(0)
                });
                if frames.len() >= MAX_INDEX_DEPTH {
                    let mut path = String::new();
                    for frame in frames.iter().take(3) {
                        match frame {
                            Frame::Object { key: Some(key), .. } => {
                                if !path.is_empty() {
                                    path.push('.');
                                }
                                path.push_str(key);
                            }
                            Frame::Object { key: None, .. } => break,
                            Frame::Array(index) => path.push_str(&format!("[{index}]")),
                        }
                    }
                    return Some(path);
                }
            }
            b'}' | b']' => {
                frames.pop();
            }
            b',' => match frames.last_mut() {
                Some(Frame::Array(index)) => *index += 1,
                Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                None => {}
            },
            _ => {}
        }
        at += 1;
    }
    None
}

/// Collects the problems of one index so a boot failure lists them all.
struct Reader<'a> {
    problems: &'a mut Vec<String>,
}

impl Reader<'_> {
    fn string(&mut self, object: &Map<String, Value>, key: &str, what: &str) -> String {
        match object.get(key) {
            Some(Value::String(s)) => s.clone(),
            _ => {
                self.problems
                    .push(format!("The pack index's {what} has no string `{key}`"));
                String::new()
            }
        }
    }

    fn optional_string(
        &mut self,
        object: &Map<String, Value>,
        key: &str,
        what: &str,
    ) -> Option<String> {
        match object.get(key) {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.problems.push(format!(
                    "The pack index's {what} has a `{key}` that is not a string"
                ));
                None
            }
        }
    }

    fn list<'v>(&mut self, index: &'v Map<String, Value>, key: &str) -> &'v [Value] {
        match index.get(key) {
            Some(Value::Array(items)) => items,
            _ => {
                self.problems
                    .push(format!("The pack index has no `{key}` list"));
                &[]
            }
        }
    }

    fn entry<'v>(&mut self, value: &'v Value, what: &str) -> Option<&'v Map<String, Value>> {
        let object = value.as_object();
        if object.is_none() {
            self.problems
                .push(format!("The pack index's {what} is not an object"));
        }
        object
    }
}

impl Catalog {
    /// Reads `index.json` as JSON text (what the JavaScript side sends of it), or lists
    /// everything wrong with it. Lone surrogates are read as `JSON.parse` reads them.
    pub fn from_index_json(text: &str) -> Result<Catalog, Vec<String>> {
        let (parsed, lone_surrogates) = parse_with_lone_surrogates(text);
        match parsed {
            Ok(index) => {
                let mut catalog = Catalog::from_index(&index)?;
                catalog.lone_surrogates = lone_surrogates;
                Ok(catalog)
            }
            // `JSON.parse` has read the file already: what fails here is its depth.
            Err(error) => Err(vec![match too_deep_at(text) {
                Some(part) => format!(
                    "The pack index's `{part}` is nested deeper than this service reads \
                     ({MAX_INDEX_DEPTH} levels from the index's top)"
                ),
                None => format!("The pack index cannot be read: {error}"),
            }]),
        }
    }

    /// Reads a parsed `index.json`, or lists everything wrong with it.
    pub fn from_index(index: &Value) -> Result<Catalog, Vec<String>> {
        let Some(root) = index.as_object() else {
            return Err(vec![format!(
                "Index envelope v{} is not v1",
                js_string(None)
            )]);
        };
        if root.get("v").and_then(Value::as_f64) != Some(1.0) {
            return Err(vec![format!(
                "Index envelope v{} is not v1",
                js_string(root.get("v"))
            )]);
        }
        let mut problems = Vec::new();
        let mut read = Reader {
            problems: &mut problems,
        };
        let mut catalog = Catalog {
            pack_id: root.get("packId").cloned(),
            pack_version: root.get("packVersion").cloned(),
            artifact_version_value: root.get("artifactVersion").cloned(),
            artifact_version: artifact_version_header(root.get("artifactVersion")),
            lone_surrogates: false,
            tools: Vec::new(),
            tool_keys: HashMap::new(),
            versions: HashMap::new(),
            checks: Vec::new(),
            check_keys: HashMap::new(),
        };
        let mut schemas = SchemaCompiler::new();
        for (at, entry) in read.list(root, "tools").iter().enumerate() {
            let what = format!("tools[{at}]");
            let Some(object) = read.entry(entry, &what) else {
                continue;
            };
            let tool = Tool {
                position: at,
                id: read.string(object, "id", &what),
                version: read.optional_string(object, "version", &what),
                module_path: read.string(object, "modulePath", &what),
                input: schemas.compile(object.get("input"), Side::Input),
                output: schemas.compile(object.get("output"), Side::Output),
            };
            catalog.add_tool(tool);
        }
        schemas.finish();
        for (at, entry) in read.list(root, "guardrails").iter().enumerate() {
            let what = format!("guardrails[{at}]");
            let Some(object) = read.entry(entry, &what) else {
                continue;
            };
            // `g.checkId ?? g.id`, as TypeScript keys its checks: `id` only stands in.
            let id = match object.get("checkId") {
                None | Some(Value::Null) => read.string(object, "id", &what),
                Some(_) => read.string(object, "checkId", &what),
            };
            let check = Check {
                position: at,
                id,
                module_path: read.string(object, "checkModulePath", &what),
            };
            catalog.add_check(check);
        }
        if problems.is_empty() {
            Ok(catalog)
        } else {
            Err(problems)
        }
    }

    fn add_tool(&mut self, tool: Tool) {
        let tool = Arc::new(tool);
        self.versions
            .entry(tool.id.clone())
            .or_default()
            .push(Arc::clone(&tool));
        let key = tool_key(&tool.id, tool.version.as_deref());
        match self.tool_keys.get(&key) {
            Some(&at) => self.tools[at] = tool,
            None => {
                self.tool_keys.insert(key, self.tools.len());
                self.tools.push(tool);
            }
        }
    }

    fn add_check(&mut self, check: Check) {
        match self.check_keys.get(&check.id) {
            Some(&at) => self.checks[at] = Arc::new(check),
            None => {
                self.check_keys.insert(check.id.clone(), self.checks.len());
                self.checks.push(Arc::new(check));
            }
        }
    }

    /// The distinct tools, in the order prewarm imports them.
    pub fn tools(&self) -> &[Arc<Tool>] {
        &self.tools
    }

    /// The distinct checks, in the order prewarm imports them.
    pub fn checks(&self) -> &[Arc<Check>] {
        &self.checks
    }

    /// The tool version a call asks for: that version, or, when it names none, the tool's
    /// only version in the pack.
    pub fn find_tool(
        &self,
        id: &str,
        version: Option<&str>,
    ) -> Result<&Arc<Tool>, Box<PackErrorMessage>> {
        let refuse = |code, message: String| {
            let mut error = PackErrorMessage::new(code, message);
            error.tool_id = Some(id.to_owned());
            Box::new(error)
        };
        let Some(versions) = self.versions.get(id) else {
            return Err(refuse(
                PackErrorCode::ToolNotInPack,
                format!("This pack has no tool \"{id}\""),
            ));
        };
        let found = match (version, versions.as_slice()) {
            (None, [only]) => Some(only),
            (None, _) => None,
            (Some(v), _) => self
                .tool_keys
                .get(&tool_key(id, Some(v)))
                .and_then(|&at| self.tools.get(at)),
        };
        if let Some(tool) = found {
            return Ok(tool);
        }
        let have = versions
            .iter()
            .map(|tool| tool.version.as_deref().unwrap_or("unversioned"))
            .collect::<Vec<_>>()
            .join(", ");
        let message = match version {
            None => format!(
                "Tool \"{id}\" has several versions in this pack ({have}); the caller named none"
            ),
            Some(v) => format!("Tool \"{id}\" is {have} in this pack; the caller asked for {v}"),
        };
        Err(refuse(PackErrorCode::ToolVersionMismatch, message))
    }

    pub fn find_check(&self, id: &str) -> Result<&Arc<Check>, Box<PackErrorMessage>> {
        match self.check_keys.get(id) {
            Some(&at) => Ok(&self.checks[at]),
            None => {
                let mut error = PackErrorMessage::new(
                    PackErrorCode::CheckNotInPack,
                    format!("This pack has no check \"{id}\""),
                );
                error.check_id = Some(id.to_owned());
                Err(Box::new(error))
            }
        }
    }

    /// The `/v1/info` body, compact: `protocol, packId, packVersion, artifactVersion,
    /// indexHash?, tools, checks, missingEnv`. An envelope field the index lacks is left out
    /// and any other written as the index holds it, as `JSON.stringify` writes TypeScript's;
    /// an empty tool version is left out, as the TypeScript service leaves out every falsy one.
    pub fn info_json(&self, index_hash: Option<&str>, missing_env: &[String]) -> String {
        let mut out = String::with_capacity(256);
        out.push_str("{\"protocol\":2");
        for (key, value) in [
            ("packId", &self.pack_id),
            ("packVersion", &self.pack_version),
            ("artifactVersion", &self.artifact_version_value),
        ] {
            if let Some(value) = value {
                out.push_str(&format!(",\"{key}\":"));
                out.push_str(&to_js_json(value));
            }
        }
        if let Some(hash) = index_hash {
            out.push_str(",\"indexHash\":");
            write_json_str(&mut out, hash);
        }
        out.push_str(",\"tools\":[");
        for (at, tool) in self.tools.iter().enumerate() {
            if at > 0 {
                out.push(',');
            }
            out.push_str("{\"id\":");
            write_json_str(&mut out, &tool.id);
            if let Some(version) = tool.version.as_deref().filter(|v| !v.is_empty()) {
                out.push_str(",\"version\":");
                write_json_str(&mut out, version);
            }
            out.push('}');
        }
        out.push_str("],\"checks\":");
        let ids = self
            .checks
            .iter()
            .map(|c| Value::String(c.id.clone()))
            .collect();
        out.push_str(&to_js_json(&Value::Array(ids)));
        out.push_str(",\"missingEnv\":");
        let names = missing_env.iter().cloned().map(Value::String).collect();
        out.push_str(&to_js_json(&Value::Array(names)));
        out.push('}');
        // Ids and envelope fields holding lone surrogates are written as JavaScript writes them.
        restore_lone_surrogates_if(out, self.lone_surrogates)
    }

    /// Whether the index held lone surrogates: text written from it (a message naming a tool
    /// version, an issue quoting a schema) has stand-ins to write back.
    pub fn lone_surrogates(&self) -> bool {
        self.lone_surrogates
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalog(tools: Value, guardrails: Value) -> Catalog {
        let index = json!({
            "v": 1, "packId": "p", "packVersion": "1.0.0", "artifactVersion": "20260101.1",
            "tools": tools, "guardrails": guardrails, "agents": [], "flows": []
        });
        Catalog::from_index(&index).expect("a valid index")
    }

    #[test]
    fn envelope_problems() {
        let err = |index: Value| Catalog::from_index(&index).err().unwrap_or_default();
        assert_eq!(err(json!({"v": 2})), vec!["Index envelope v2 is not v1"]);
        assert_eq!(err(json!({})), vec!["Index envelope vundefined is not v1"]);
        assert_eq!(err(json!({"v": "1"})), vec!["Index envelope v1 is not v1"]);
        assert_eq!(
            err(json!({"v": [1, null]})),
            vec!["Index envelope v1, is not v1"]
        );
        assert_eq!(err(json!([])), vec!["Index envelope vundefined is not v1"]);
        let problems = err(
            json!({"v": 1, "packId": 3, "packVersion": "1", "artifactVersion": "a",
            "tools": [{"id": "t"}, 7, {"id": "u", "modulePath": "u.mjs", "version": 2}]}),
        );
        assert_eq!(
            problems,
            vec![
                "The pack index's tools[0] has no string `modulePath`",
                "The pack index's tools[1] is not an object",
                "The pack index's tools[2] has a `version` that is not a string",
                "The pack index has no `guardrails` list",
            ]
        );
    }

    #[test]
    fn tool_lookup_by_id_and_version() {
        let c = catalog(
            json!([
                {"id": "a", "modulePath": "a1.mjs", "version": "1"},
                {"id": "a", "modulePath": "a2.mjs", "version": "2"},
                {"id": "b", "modulePath": "b.mjs"},
                {"id": "a", "modulePath": "a1b.mjs", "version": "1"}
            ]),
            json!([]),
        );
        assert_eq!(
            c.find_tool("a", Some("1")).map(|t| &*t.module_path),
            Ok("a1b.mjs")
        );
        assert_eq!(c.find_tool("b", None).map(|t| &*t.module_path), Ok("b.mjs"));
        let message = |r: Result<&Arc<Tool>, Box<PackErrorMessage>>| r.err().map(|e| e.to_json());
        assert_eq!(
            message(c.find_tool("a", None)).as_deref(),
            Some(
                r#"{"v":2,"kind":"error","code":"tool-version-mismatch","message":"Tool \"a\" has several versions in this pack (1, 2, 1); the caller named none","toolId":"a"}"#
            )
        );
        assert_eq!(
            message(c.find_tool("b", Some("1.0.0"))).as_deref(),
            Some(
                r#"{"v":2,"kind":"error","code":"tool-version-mismatch","message":"Tool \"b\" is unversioned in this pack; the caller asked for 1.0.0","toolId":"b"}"#
            )
        );
        assert_eq!(
            message(c.find_tool("zz", None)).as_deref(),
            Some(
                r#"{"v":2,"kind":"error","code":"tool-not-in-pack","message":"This pack has no tool \"zz\"","toolId":"zz"}"#
            )
        );
        // Duplicate keys keep their first position.
        let ids: Vec<_> = c.tools().iter().map(|t| &*t.module_path).collect();
        assert_eq!(ids, ["a1b.mjs", "a2.mjs", "b.mjs"]);
    }

    #[test]
    fn an_id_with_its_only_entry_runs_that_entry_even_when_its_key_was_taken() {
        let c = catalog(
            json!([
                {"id": "a@1", "modulePath": "at.mjs"},
                {"id": "a", "modulePath": "a1.mjs", "version": "1"}
            ]),
            json!([]),
        );
        let module = |id, version| c.find_tool(id, version).map(|t| t.module_path.clone());
        assert_eq!(module("a@1", None), Ok("at.mjs".to_owned()));
        assert_eq!(module("a", None), Ok("a1.mjs".to_owned()));
        // Named by key, the later entry wins, as TypeScript's map of keys has it.
        assert_eq!(module("a", Some("1")), Ok("a1.mjs".to_owned()));
    }

    #[test]
    fn check_lookup_and_info() {
        let c = catalog(
            json!([{"id": "t", "modulePath": "t.mjs", "version": ""}, {"id": "u", "modulePath": "u.mjs", "version": "2"}]),
            json!([
                {"id": "g1", "checkId": "c.one", "checkModulePath": "g1.mjs", "configSchema": {"type": "object"}},
                {"id": "g2", "checkModulePath": "g2.mjs"},
                {"id": "g3", "checkId": "c.one", "checkModulePath": "g3.mjs"}
            ]),
        );
        assert_eq!(c.find_check("c.one").map(|k| &*k.module_path), Ok("g3.mjs"));
        assert_eq!(c.find_check("g2").map(|k| &*k.module_path), Ok("g2.mjs"));
        assert_eq!(
            c.find_check("g1").err().map(|e| e.to_json()).as_deref(),
            Some(
                r#"{"v":2,"kind":"error","code":"check-not-in-pack","message":"This pack has no check \"g1\"","checkId":"g1"}"#
            )
        );
        assert_eq!(
            c.info_json(Some("sha256:ab"), &["A".into()]),
            r#"{"protocol":2,"packId":"p","packVersion":"1.0.0","artifactVersion":"20260101.1","indexHash":"sha256:ab","tools":[{"id":"t"},{"id":"u","version":"2"}],"checks":["c.one","g2"],"missingEnv":["A"]}"#
        );
        assert_eq!(
            c.info_json(None, &[]),
            r#"{"protocol":2,"packId":"p","packVersion":"1.0.0","artifactVersion":"20260101.1","tools":[{"id":"t"},{"id":"u","version":"2"}],"checks":["c.one","g2"],"missingEnv":[]}"#
        );
    }

    #[test]
    fn the_envelope_fields_are_reported_as_the_index_holds_them() {
        let info = |index: Value| {
            let c = Catalog::from_index(&index).expect("TypeScript boots it");
            (c.info_json(None, &[]), c.artifact_version)
        };
        let (body, header) = info(json!({"v": 1, "tools": [], "guardrails": []}));
        assert_eq!(
            body,
            r#"{"protocol":2,"tools":[],"checks":[],"missingEnv":[]}"#
        );
        assert_eq!(header, None);
        let (body, header) = info(
            json!({"v": 1, "packId": "p", "artifactVersion": 5, "tools": [], "guardrails": []}),
        );
        assert_eq!(
            body,
            r#"{"protocol":2,"packId":"p","artifactVersion":5,"tools":[],"checks":[],"missingEnv":[]}"#
        );
        assert_eq!(header.as_deref(), Some("5"));
        // `String(value)`, as Node writes a header value that is not a string.
        for (value, written) in [
            (json!(1e21), Some("1e+21")),
            (json!(null), Some("null")),
            (json!(true), Some("true")),
            (json!({"a": 1}), Some("[object Object]")),
            (json!(["a"]), Some("a")),
            (json!([]), None),
        ] {
            let index = json!({"v": 1, "artifactVersion": value, "tools": [], "guardrails": []});
            assert_eq!(info(index).1.as_deref(), written, "{value}");
        }
    }

    #[test]
    fn a_check_is_keyed_by_check_id_else_id() {
        let c = catalog(
            json!([]),
            json!([
                {"checkId": "c.no-id", "checkModulePath": "a.mjs"},
                {"id": "g.null", "checkId": null, "checkModulePath": "b.mjs"},
                {"id": 7, "checkId": "c.seven", "checkModulePath": "c.mjs"}
            ]),
        );
        let ids: Vec<_> = c.checks().iter().map(|k| &*k.id).collect();
        assert_eq!(ids, ["c.no-id", "g.null", "c.seven"]);
        let problems = Catalog::from_index(&json!({"v": 1, "tools": [], "guardrails": [
            {"checkModulePath": "a.mjs"},
            {"id": "g", "checkId": 3, "checkModulePath": "b.mjs"},
            {"checkId": null, "checkModulePath": "c.mjs"}
        ]}))
        .err();
        assert_eq!(
            problems.unwrap_or_default(),
            [
                "The pack index's guardrails[0] has no string `id`",
                "The pack index's guardrails[1] has no string `checkId`",
                "The pack index's guardrails[2] has no string `id`",
            ]
        );
    }

    #[test]
    fn lone_surrogates_are_read_and_written_back() {
        let text = r#"{"v":1,"packId":"p\ud800","tools":[{"id":"t\udc00","modulePath":"t.mjs","input":{"const":"x\ud83d"},"output":true}],"guardrails":[{"checkId":"c\udfff","checkModulePath":"c.mjs"}]}"#;
        let c = Catalog::from_index_json(text).expect("JSON.parse reads it");
        assert!(c.lone_surrogates());
        assert_eq!(
            c.info_json(None, &[]),
            r#"{"protocol":2,"packId":"p\ud800","tools":[{"id":"t\udc00"}],"checks":["c\udfff"],"missingEnv":[]}"#
        );
        // A request naming the id is read the same way, so it finds the tool.
        let (request, _) = parse_with_lone_surrogates(r#"["t\udc00","x\ud83d"]"#);
        let request = request.expect("JSON");
        let id = request[0].as_str().unwrap_or_default();
        let tool = c.find_tool(id, None).expect("found by its id");
        assert_eq!(
            crate::service::tool_io::check_input(
                &tool.input,
                &mut request[1].clone(),
                id,
                crate::json::Stack::Caller
            ),
            Ok(None)
        );
        let plain = Catalog::from_index_json(r#"{"v":1,"tools":[],"guardrails":[]}"#);
        assert!(!plain.map(|c| c.lone_surrogates()).unwrap_or(true));
    }

    #[test]
    fn nesting_past_the_limit_names_where() {
        let nested = |depth: usize| "[".repeat(depth) + &"]".repeat(depth);
        // The root, `tools`, the entry and `input` are four levels: 124 more is the limit.
        let index = |depth: usize| {
            format!(
                r#"{{"v":1,"tools":[{{"id":"t","modulePath":"t.mjs","input":{},"output":true}}],"guardrails":[]}}"#,
                nested(depth)
            )
        };
        assert!(Catalog::from_index_json(&index(124)).is_ok());
        assert_eq!(
            Catalog::from_index_json(&index(125)).err().unwrap_or_default(),
            ["The pack index's `tools[0].input` is nested deeper than this service reads (128 levels from the index's top)"]
        );
        // Deeper than any stack: found without recursion.
        let deep = format!(
            r#"{{"v":1,"packId":{},"tools":[],"guardrails":[]}}"#,
            nested(1_000_000)
        );
        assert_eq!(
            Catalog::from_index_json(&deep).err().unwrap_or_default(),
            ["The pack index's `packId[0][0]` is nested deeper than this service reads (128 levels from the index's top)"]
        );
        let keys = r#"{"v":1,"tools":[{"id":"a,\"[{","x":1},{"a":{"b":"#.to_owned()
            + &nested(200)
            + "}}]}";
        assert_eq!(too_deep_at(&keys).as_deref(), Some("tools[1].a"));
        assert_eq!(too_deep_at(&index(10)), None);
    }
}
