//! The indexer: config files, discovery and the assembled, written index. Results cross as
//! JSON text (JavaScript parses it), errors as `IndexerError` JSON in the TypeScript member
//! order.

use crate::indexer::assemble::{assemble, write};
use crate::indexer::config::{
    check_config, find_config, language_mismatch, locate_config, read_pyproject, ConfigFormat,
    Language, KINDGI_CONFIG_FILENAMES, KINDGI_JSON_CONFIG_FILENAME, NON_FINITE_MARKER,
    PYPROJECT_FILENAME,
};
use crate::indexer::discover::{discover_files, discover_in_bundle_map, mtime_ms, Patterns};
use crate::indexer::entries::{fields_read, CHECK_FIELDS};
use crate::indexer::glob::{
    discovery_roots, glob_regex_source_utf16, glob_static_prefix, TEST_FILE_PATTERN,
};
use crate::indexer::report::report_json;
use crate::indexer::request::parse_request;
use crate::indexer::{
    messages, IndexerError, IndexerErrorCode, PrimitiveKind, INDEX_ENVELOPE_VERSION,
    KERNEL_PAYLOAD_VERSION, RESERVED_CHECK_IDS,
};
use crate::json::to_js_json;
use napi::bindgen_prelude::Utf16String;
use napi_derive::napi;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

fn error_json(error: &IndexerError) -> String {
    let mut out = String::new();
    error.write_json(&mut out);
    out
}

fn error_member(error: &IndexerError) -> String {
    format!("{{\"error\":{}}}", error_json(error))
}

/// Runs file work off the JS thread. The job does not panic on any input; should it all the
/// same, the caller hears so instead of an answer that is not the job's.
async fn blocking<T: Send + 'static>(job: impl FnOnce() -> T + Send + 'static) -> napi::Result<T> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| napi::Error::from_reason(format!("The indexer's file work stopped: {e}")))
}

/// The indexer's constants and field lists, as JSON (read once by `lib/indexer/constants.js`).
#[napi(js_name = "indexerConstants")]
pub fn indexer_constants() -> String {
    let discovery = |language: Language| {
        let [tools, guardrails, agents, flows] = language.default_discovery();
        json!({ "tools": tools, "guardrails": guardrails, "agents": agents, "flows": flows })
    };
    let jvm: Vec<&str> = Language::ALL
        .into_iter()
        .filter(|l| l.is_jvm())
        .map(Language::as_str)
        .collect();
    to_js_json(&json!({
        "indexEnvelopeVersion": INDEX_ENVELOPE_VERSION,
        "kernelPayloadVersion": KERNEL_PAYLOAD_VERSION,
        "defaultDiscovery": discovery(Language::Node),
        "defaultPythonDiscovery": discovery(Language::Python),
        "defaultJavaDiscovery": discovery(Language::Java),
        "defaultScalaDiscovery": discovery(Language::Scala),
        "configFilenames": KINDGI_CONFIG_FILENAMES,
        "jsonConfigFilename": KINDGI_JSON_CONFIG_FILENAME,
        "pyprojectFilename": PYPROJECT_FILENAME,
        "nonFiniteMarker": NON_FINITE_MARKER,
        "reservedCheckIds": RESERVED_CHECK_IDS,
        "testFilePattern": TEST_FILE_PATTERN,
        "jvmLanguages": jvm,
        "fields": {
            "tool": fields_read(PrimitiveKind::Tool),
            "guardrail": fields_read(PrimitiveKind::Guardrail),
            "agent": fields_read(PrimitiveKind::Agent),
            "check": CHECK_FIELDS,
        },
    }))
}

/// UTF-16 in and out: a pattern's lone surrogates stay as they are, as in JavaScript.
#[napi(js_name = "globRegexSource")]
pub fn glob_regex_source_js(pattern: Utf16String) -> Utf16String {
    Utf16String::from(glob_regex_source_utf16(&pattern))
}

#[napi(js_name = "globStaticPrefix")]
pub fn glob_static_prefix_js(pattern: String) -> String {
    glob_static_prefix(&pattern)
}

#[napi(js_name = "discoveryRoots")]
pub fn discovery_roots_js(patterns: Vec<String>) -> Vec<String> {
    discovery_roots(&patterns)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `{"name","format","conflictsWith"?}` (file names, which JavaScript joins to the folder as
/// `path.join` does) or `null`.
#[napi(js_name = "findKindgiConfig")]
pub async fn find_kindgi_config(pack_dir: String) -> napi::Result<String> {
    let found = blocking(move || find_config(Path::new(&pack_dir))).await?;
    Ok(match found {
        None => "null".into(),
        Some(file) => {
            let mut out = Map::new();
            out.insert("name".into(), Value::String(file_name(&file.path)));
            out.insert("format".into(), Value::String(file.format.as_str().into()));
            if let Some(other) = file.conflicts_with {
                out.insert("conflictsWith".into(), Value::String(file_name(&other)));
            }
            to_js_json(&Value::Object(out))
        }
    })
}

fn format_of(name: &str) -> ConfigFormat {
    match name {
        "pyproject" => ConfigFormat::Pyproject,
        "json" => ConfigFormat::Json,
        _ => ConfigFormat::Module,
    }
}

/// Where a config lives for `loadKindgiConfig`: `{"file": {"path","format"}}` or `{"error"}`.
/// `configPath`, when given, is read as its name says; else the pack root is searched.
#[napi(js_name = "locateKindgiConfig")]
pub async fn locate_kindgi_config(
    pack_dir: String,
    config_path: Option<String>,
) -> napi::Result<String> {
    let located =
        blocking(move || locate_config(Path::new(&pack_dir), config_path.map(PathBuf::from)))
            .await?;
    Ok(match located {
        Ok((path, format)) => to_js_json(
            &json!({ "file": { "path": path.display().to_string(), "format": format.as_str() } }),
        ),
        Err(error) => error_member(&error),
    })
}

/// A `pyproject.toml`'s `[tool.kindgi]` table: `{"record"}` (a TOML `inf` or `nan` as a
/// `NON_FINITE_MARKER` object) or `{"error"}`.
#[napi(js_name = "readPyprojectConfig")]
pub async fn read_pyproject_config(path: String) -> napi::Result<String> {
    Ok(
        match blocking(move || read_pyproject(Path::new(&path))).await? {
            Ok(record) => format!("{{\"record\":{}}}", to_js_json(&Value::Object(record))),
            Err(error) => error_member(&error),
        },
    )
}

/// The checks every config passes, on `{pack, language}` as JSON: `{"language"}` (the pack's)
/// with `"filled": true` when the config names none and its format's default is not Node's
/// (a `pyproject.toml` table is a Python pack's), or `{"error"}`.
#[napi(js_name = "checkKindgiConfig")]
pub fn check_kindgi_config(projection: String, path: String, format: String) -> String {
    let record = match serde_json::from_str::<Value>(&projection) {
        Ok(Value::Object(record)) => record,
        _ => Map::new(),
    };
    let format = format_of(&format);
    match check_config(&record, Path::new(&path), format) {
        Ok(language) => {
            let filled = !record.contains_key("language") && language != Language::Node;
            format!(
                "{{\"language\":\"{}\",\"filled\":{filled}}}",
                language.as_str()
            )
        }
        Err(error) => error_member(&error),
    }
}

/// The refusal of a pack this indexer does not index, or `null` for a Node pack.
#[napi(js_name = "languageRefusal")]
pub fn language_refusal(pack_dir: String, language: String) -> Option<String> {
    let language = Language::parse(&language)?;
    language_mismatch(Path::new(&pack_dir), language).map(|error| error_json(&error))
}

/// The config's env problems as the indexer reports them.
#[napi(js_name = "configEnvRefusal")]
pub fn config_env_refusal(message: String) -> String {
    error_json(&messages::config_env_invalid(&message))
}

#[napi(object)]
pub struct DiscoveredJs {
    pub rel_path: String,
    pub expected_kind: Option<String>,
    /// `fs.stat`'s `mtimeMs` of the file imported (its bundle, given a map), when it exists.
    pub mtime_ms: Option<f64>,
}

#[napi(object)]
pub struct DiscoveryOutcome {
    pub files: Vec<DiscoveredJs>,
    /// `discovery-empty`, or a pattern regress refused, as `IndexerError` JSON.
    pub error: Option<String>,
}

/// Discovers the pack's files: walked under `packDir`, or, given a bundle map (its keys, in
/// `Object.keys` order, and each key's bundle or `null`), its sources, each stat'ed at its
/// bundle under `moduleRoot`. `patterns` are the four kinds' (tools, guardrails, agents, flows).
#[napi(js_name = "discoverPackFiles")]
pub async fn discover_pack_files(
    pack_dir: String,
    patterns: Vec<Utf16String>,
    bundle_sources: Option<Vec<String>>,
    bundles: Option<Vec<Option<String>>>,
    module_root: String,
) -> napi::Result<DiscoveryOutcome> {
    let [tools, guardrails, agents, flows]: [Vec<u16>; 4] = patterns
        .iter()
        .map(|p| p.to_vec())
        .collect::<Vec<_>>()
        .try_into()
        .map_err(|_| napi::Error::from_reason("discoverPackFiles takes four patterns"))?;
    let patterns: Patterns = [
        (PrimitiveKind::Tool, tools),
        (PrimitiveKind::Guardrail, guardrails),
        (PrimitiveKind::Agent, agents),
        (PrimitiveKind::Flow, flows),
    ];
    blocking(move || {
        let pack_dir = PathBuf::from(pack_dir);
        let found = match &bundle_sources {
            Some(sources) => discover_in_bundle_map(sources, &patterns),
            None => discover_files(&pack_dir, &patterns),
        };
        let files = match found {
            Ok(files) => files,
            Err(error) => {
                let error = IndexerError::new(IndexerErrorCode::ConfigInvalid, error.to_string())
                    .field("discovery");
                return DiscoveryOutcome {
                    files: Vec::new(),
                    error: Some(error_json(&error)),
                };
            }
        };
        if files.is_empty() {
            let error = messages::discovery_empty(&pack_dir, bundle_sources.is_some());
            return DiscoveryOutcome {
                files: Vec::new(),
                error: Some(error_json(&error)),
            };
        }
        let bundle_of = |rel: &str| -> Option<&String> {
            let at = bundle_sources.as_ref()?.iter().position(|s| s == rel)?;
            bundles.as_ref()?.get(at)?.as_ref()
        };
        let module_root = PathBuf::from(module_root);
        let files = files
            .into_iter()
            .map(|file| {
                let path = match bundle_of(&file.rel_path) {
                    Some(bundle) => module_root.join(bundle),
                    None => pack_dir.join(&file.rel_path),
                };
                DiscoveredJs {
                    mtime_ms: mtime_ms(&path),
                    rel_path: file.rel_path,
                    expected_kind: file.expected_kind.map(|k| k.as_str().to_owned()),
                }
            })
            .collect();
        DiscoveryOutcome { files, error: None }
    })
    .await
}

#[napi(object)]
pub struct AssembleOutcome {
    /// The report's body (`counts`, `fileErrors`, `warnings`, the versions) as JSON.
    pub report: Option<String>,
    /// `output-write-failed` as `IndexerError` JSON.
    pub error: Option<String>,
    /// Milliseconds spent building and checking the entries, and writing.
    pub validate_ms: f64,
    pub write_ms: f64,
}

/// Builds, checks, sorts and writes the index from what JavaScript found in each file.
#[napi(js_name = "assembleIndex")]
pub async fn assemble_index(
    request: String,
    output_path: String,
    artifact_version: Option<String>,
    published_at: Option<String>,
) -> napi::Result<AssembleOutcome> {
    let request = parse_request(&request).map_err(|e| napi::Error::from_reason(e.to_string()))?;
    blocking(move || {
        let started = Instant::now();
        let assembled = assemble(
            &request.pack_id,
            &request.pack_version,
            request.env.as_ref(),
            &request.files,
        );
        let validated = Instant::now();
        let output = Path::new(&output_path);
        let written = write(
            &assembled,
            output,
            artifact_version,
            published_at,
            SystemTime::now(),
        );
        let validate_ms = (validated - started).as_secs_f64() * 1e3;
        let write_ms = validated.elapsed().as_secs_f64() * 1e3;
        match written {
            Ok(written) => AssembleOutcome {
                report: Some(report_json(
                    &request.pack_id,
                    &request.pack_version,
                    &assembled,
                    &written.artifact_version,
                    &written.published_at,
                )),
                error: None,
                validate_ms,
                write_ms,
            },
            Err(error) => AssembleOutcome {
                report: None,
                error: Some(error_json(&messages::output_write_failed(output, &error))),
                validate_ms,
                write_ms,
            },
        }
    })
    .await
}
