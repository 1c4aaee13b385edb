//! What the pack service serves, read once from `index.json`: its tools by id and version,
//! its checks by check id, and the `/v1/info` body.
//!
//! The TypeScript service trusts everything in the index past `v === 1`; a malformed entry
//! there fails on the first call that touches it. Here every entry the service uses is checked
//! at boot, so a bad index is a `boot-failed` problem list instead.

use crate::js::js_string;
use crate::json::{to_js_json, write_json_str};
use crate::protocol::{PackErrorCode, PackErrorMessage};
use crate::service::tool_io::CompiledSchema;
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
    pub config_schema: Option<Value>,
}

#[derive(Debug, Clone)]
pub struct Catalog {
    pub pack_id: String,
    pub pack_version: String,
    pub artifact_version: String,
    /// The index's `env` block, for the missing-env and env-filter rules.
    pub env: Option<Value>,
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
        let pack_id = read.string(root, "packId", "envelope");
        let pack_version = read.string(root, "packVersion", "envelope");
        let artifact_version = read.string(root, "artifactVersion", "envelope");

        let mut catalog = Catalog {
            pack_id,
            pack_version,
            artifact_version,
            env: root.get("env").cloned(),
            tools: Vec::new(),
            tool_keys: HashMap::new(),
            versions: HashMap::new(),
            checks: Vec::new(),
            check_keys: HashMap::new(),
        };
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
                input: CompiledSchema::compile(object.get("input"), Side::Input),
                output: CompiledSchema::compile(object.get("output"), Side::Output),
            };
            catalog.add_tool(tool);
        }
        for (at, entry) in read.list(root, "guardrails").iter().enumerate() {
            let what = format!("guardrails[{at}]");
            let Some(object) = read.entry(entry, &what) else {
                continue;
            };
            let id = read.string(object, "id", &what);
            let check_id = read.optional_string(object, "checkId", &what);
            let check = Check {
                position: at,
                id: check_id.unwrap_or(id),
                module_path: read.string(object, "checkModulePath", &what),
                config_schema: object.get("configSchema").cloned(),
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
    /// indexHash?, tools, checks, missingEnv`. An empty tool version is left out, as the
    /// TypeScript service leaves out every falsy one.
    pub fn info_json(&self, index_hash: Option<&str>, missing_env: &[String]) -> String {
        let mut out = String::with_capacity(256);
        out.push_str("{\"protocol\":2,\"packId\":");
        write_json_str(&mut out, &self.pack_id);
        out.push_str(",\"packVersion\":");
        write_json_str(&mut out, &self.pack_version);
        out.push_str(",\"artifactVersion\":");
        write_json_str(&mut out, &self.artifact_version);
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
        out
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
                "The pack index's envelope has no string `packId`",
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
}
