//! A pack's config: where it lives (`kindgi.config.*`, a `pyproject.toml` `[tool.kindgi]`
//! table, or a JVM pack's `kindgi.config.json`), reading the data formats, the checks every
//! config passes, and each language's discovery defaults.

use super::error::{IndexerError, IndexerErrorCode};
use crate::json::member;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Config modules looked up at a pack root, in order (`.mts` is the ESM name for a CommonJS
/// app).
pub const KINDGI_CONFIG_FILENAMES: [&str; 5] = [
    "kindgi.config.ts",
    "kindgi.config.mts",
    "kindgi.config.mjs",
    "kindgi.config.js",
    "kindgi.config.cjs",
];
/// A JVM (Java or Scala) pack's config.
pub const KINDGI_JSON_CONFIG_FILENAME: &str = "kindgi.config.json";
/// A Python pack keeps its config in this file's `[tool.kindgi]` table.
pub const PYPROJECT_FILENAME: &str = "pyproject.toml";
/// The key of the object that stands for a TOML `inf`, `-inf` or `nan` in JSON.
pub const NON_FINITE_MARKER: &str = "\u{0}toml";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFormat {
    Module,
    Pyproject,
    Json,
}

impl ConfigFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigFormat::Module => "module",
            ConfigFormat::Pyproject => "pyproject",
            ConfigFormat::Json => "json",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Node,
    Python,
    Java,
    Scala,
}

impl Language {
    pub const ALL: [Language; 4] = [
        Language::Node,
        Language::Python,
        Language::Java,
        Language::Scala,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Language::Node => "node",
            Language::Python => "python",
            Language::Java => "java",
            Language::Scala => "scala",
        }
    }

    pub fn parse(text: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.as_str() == text)
    }

    pub fn is_jvm(self) -> bool {
        matches!(self, Language::Java | Language::Scala)
    }

    /// The discovery patterns used where a config names none, by kind (tools, guardrails,
    /// agents, flows).
    pub fn default_discovery(self) -> [String; 4] {
        let folders = ["tools", "guardrails", "agents", "flows"];
        folders.map(|folder| match self {
            Language::Node => format!("{folder}/**/*.{{ts,js,mjs}}"),
            Language::Python => format!("{folder}/**/*.py"),
            Language::Java => format!("src/main/java/**/{folder}/**/*.java"),
            Language::Scala => format!("src/main/scala/**/{folder}/**/*.scala"),
        })
    }

    /// The indexer of a pack of this language, for one this indexer refuses.
    fn own_indexer(self) -> Option<&'static str> {
        match self {
            Language::Node => None,
            Language::Python => Some("python -m kindgi.pack index"),
            Language::Java | Language::Scala => {
                Some("java -cp <classpath> com.kindgi.pack.Main index")
            }
        }
    }

    /// The language a config of `format` that names none is.
    pub fn default_for(format: ConfigFormat) -> Language {
        match format {
            ConfigFormat::Pyproject => Language::Python,
            _ => Language::Node,
        }
    }
}

/// Where a pack's config lives, and the other config beside a `kindgi.config.json` (a pack has
/// one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub format: ConfigFormat,
    pub conflicts_with: Option<PathBuf>,
}

/// The first `kindgi.config.*` module; else a `kindgi.config.json`; else a `pyproject.toml`
/// with a `[tool.kindgi]` table. A `kindgi.config.json` beside a module or such a table is
/// found with the other named in `conflicts_with`.
pub fn find_config(pack_dir: &Path) -> Option<ConfigFile> {
    let module = KINDGI_CONFIG_FILENAMES
        .iter()
        .map(|name| pack_dir.join(name))
        .find(|path| path.exists());
    let pyproject = || {
        let path = pack_dir.join(PYPROJECT_FILENAME);
        has_kindgi_table(&path).then_some(path)
    };
    let json = pack_dir.join(KINDGI_JSON_CONFIG_FILENAME);
    if json.exists() {
        let conflicts_with = module.or_else(pyproject);
        return Some(ConfigFile {
            path: json,
            format: ConfigFormat::Json,
            conflicts_with,
        });
    }
    if let Some(path) = module {
        return Some(ConfigFile {
            path,
            format: ConfigFormat::Module,
            conflicts_with: None,
        });
    }
    pyproject().map(|path| ConfigFile {
        path,
        format: ConfigFormat::Pyproject,
        conflicts_with: None,
    })
}

/// Whether a `pyproject.toml` holds a `[tool.kindgi]` table: parsed, or, when it does not
/// parse, when a line opens one (the loader then reports why it does not parse).
fn has_kindgi_table(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    match toml::from_str::<toml::Table>(&text) {
        Ok(document) => document
            .get("tool")
            .and_then(toml::Value::as_table)
            .is_some_and(|tool| tool.contains_key("kindgi")),
        Err(_) => regress::Regex::with_flags(r"^\s*\[tool\.kindgi[\].]", "m")
            .map(|r| r.find(&text).is_some())
            .unwrap_or(false),
    }
}

/// The format a config named explicitly is read as, by its file name.
pub fn explicit_format(path: &Path) -> ConfigFormat {
    let name = path.file_name().map(|n| n.to_string_lossy());
    match name.as_deref() {
        Some(PYPROJECT_FILENAME) => ConfigFormat::Pyproject,
        Some(name) if name.ends_with(".json") => ConfigFormat::Json,
        _ => ConfigFormat::Module,
    }
}

/// Where the config `loadKindgiConfig` reads lives: `config_path` as its name says when it
/// exists, or else the one config at the pack root.
pub fn locate_config(
    pack_dir: &Path,
    config_path: Option<PathBuf>,
) -> Result<(PathBuf, ConfigFormat), IndexerError> {
    match config_path {
        Some(path) if path.exists() => {
            let format = explicit_format(&path);
            Ok((path, format))
        }
        Some(_) => Err(not_found(pack_dir)),
        None => match find_config(pack_dir) {
            None => Err(not_found(pack_dir)),
            Some(file) => match file.conflicts_with {
                Some(other) => Err(two_configs(pack_dir, &other)),
                None => Ok((file.path, file.format)),
            },
        },
    }
}

pub fn not_found(pack_dir: &Path) -> IndexerError {
    IndexerError::new(
        IndexerErrorCode::ConfigNotFound,
        format!(
            "No kindgi.config.{{ts,mts,mjs,js,cjs}}, pyproject.toml with a [tool.kindgi] table, or kindgi.config.json, found at pack root {}",
            pack_dir.display()
        ),
    )
}

/// The refusal of a pack with two configs.
pub fn two_configs(pack_dir: &Path, other: &Path) -> IndexerError {
    let other_name = other
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kind = if other_name == PYPROJECT_FILENAME {
        "Python"
    } else {
        "TypeScript"
    };
    IndexerError::new(
        IndexerErrorCode::ConfigInvalid,
        format!(
            "{} has two pack configs, {KINDGI_JSON_CONFIG_FILENAME} and {other_name}; a pack has one. Keep {KINDGI_JSON_CONFIG_FILENAME} for a Java or Scala pack, or {other_name} for a {kind} one, and remove the other.",
            pack_dir.display()
        ),
    )
    .at(pack_dir.join(KINDGI_JSON_CONFIG_FILENAME).display().to_string())
}

fn parse_failed(path: &Path, message: String) -> IndexerError {
    IndexerError::new(IndexerErrorCode::ConfigParseFailed, message).at(path.display().to_string())
}

/// `Failed to read <file>: <Name>: <message>`, with the cause as the TypeScript loader
/// serialises an Error.
fn read_failed(path: &Path, name: &str, message: String) -> IndexerError {
    let words = format!("{name}: {message}");
    let cause = serde_json::json!({ "name": name, "message": message, "stack": words });
    parse_failed(path, format!("Failed to read {}: {words}", path.display())).cause(Some(cause))
}

fn read_text(path: &Path) -> Result<String, IndexerError> {
    std::fs::read(path)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .map_err(|e| {
            read_failed(
                path,
                "Error",
                crate::canonical::node_fs_message(&e, "open", path),
            )
        })
}

/// The `[tool.kindgi]` table of a `pyproject.toml`, as JSON.
pub fn read_pyproject(path: &Path) -> Result<Map<String, Value>, IndexerError> {
    let text = read_text(path)?;
    let document = toml::from_str::<toml::Table>(&text)
        .map_err(|e| read_failed(path, "TomlError", e.message().to_owned()))?;
    let table = document
        .get("tool")
        .and_then(toml::Value::as_table)
        .and_then(|tool| tool.get("kindgi"))
        .and_then(toml::Value::as_table);
    match table {
        Some(table) => Ok(toml_table(table)),
        None => Err(IndexerError::new(
            IndexerErrorCode::ConfigNotFound,
            format!("{} has no [tool.kindgi] table", path.display()),
        )
        .at(path.display().to_string())),
    }
}

fn toml_table(table: &toml::Table) -> Map<String, Value> {
    table
        .iter()
        .map(|(k, v)| (k.clone(), toml_value(v)))
        .collect()
}

fn toml_value(value: &toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => match serde_json::Number::from_f64(*f) {
            Some(number) => Value::Number(number),
            // JSON has no infinities or NaN: a marker, which JavaScript turns back into one.
            None => {
                let name = if f.is_nan() {
                    "nan"
                } else if *f > 0.0 {
                    "inf"
                } else {
                    "-inf"
                };
                serde_json::json!({ NON_FINITE_MARKER: name })
            }
        },
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(items) => Value::Array(items.iter().map(toml_value).collect()),
        toml::Value::Table(table) => Value::Object(toml_table(table)),
    }
}

/// What the checks read of a config: its `pack` and `language`, as JSON.
pub fn check_config(
    record: &Map<String, Value>,
    path: &Path,
    format: ConfigFormat,
) -> Result<Language, IndexerError> {
    let shown = path.display();
    let pack = member(record, "pack").filter(|p| p.is_object());
    let Some(pack) = pack else {
        return Err(parse_failed(
            path,
            format!("Config file {shown}: 'pack' field is missing or not an object"),
        ));
    };
    let non_empty = |name: &str| {
        pack.as_object()
            .and_then(|p| member(p, name))
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    for name in ["id", "version"] {
        if !non_empty(name) {
            return Err(parse_failed(
                path,
                format!("Config file {shown}: 'pack.{name}' is missing or not a non-empty string"),
            ));
        }
    }
    let declared = member(record, "language");
    let language = declared.and_then(Value::as_str).and_then(Language::parse);
    if format == ConfigFormat::Json {
        // A JVM pack's config always says which JVM language.
        return language.filter(|l| l.is_jvm()).ok_or_else(|| {
            parse_failed(
                path,
                format!("Config file {shown}: {KINDGI_JSON_CONFIG_FILENAME} is a JVM pack's config; it says \"language\": \"java\" or \"scala\""),
            )
        });
    }
    match (declared, language) {
        (None, _) => Ok(Language::default_for(format)),
        (Some(_), Some(language @ (Language::Node | Language::Python))) => Ok(language),
        (Some(_), _) => Err(parse_failed(
            path,
            format!("Config file {shown}: 'language' must be \"node\" or \"python\""),
        )),
    }
}

/// The refusal of a pack the Node indexer cannot index; `None` for a Node pack.
pub fn language_mismatch(pack_dir: &Path, language: Language) -> Option<IndexerError> {
    let own = language.own_indexer()?;
    Some(IndexerError::new(
        IndexerErrorCode::LanguageMismatch,
        format!(
            "{} is a {} pack; index it with its own indexer ({own})",
            pack_dir.display(),
            language.as_str(),
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kindgi-config-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("mkdir");
        dir
    }

    #[test]
    fn a_config_is_located_by_its_path_or_at_the_pack_root() {
        let dir = scratch("locate");
        let code =
            |located: Result<(PathBuf, ConfigFormat), IndexerError>| located.err().map(|e| e.code);
        assert_eq!(
            code(locate_config(&dir, None)),
            Some(IndexerErrorCode::ConfigNotFound)
        );
        let named = dir.join("custom.json");
        assert_eq!(
            code(locate_config(&dir, Some(named.clone()))),
            Some(IndexerErrorCode::ConfigNotFound)
        );
        fs::write(&named, "{}").expect("write");
        assert_eq!(
            locate_config(&dir, Some(named.clone())).ok(),
            Some((named, ConfigFormat::Json))
        );
        fs::write(dir.join("kindgi.config.mjs"), "").expect("write");
        assert_eq!(
            locate_config(&dir, None).ok(),
            Some((dir.join("kindgi.config.mjs"), ConfigFormat::Module))
        );
        fs::write(dir.join("kindgi.config.json"), "{}").expect("write");
        assert!(locate_config(&dir, None).is_err(), "two configs");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn lookup_order_and_conflicts() {
        let dir = scratch("lookup");
        assert_eq!(find_config(&dir), None);
        fs::write(dir.join("pyproject.toml"), "[project]\nname = \"app\"\n").expect("write");
        assert_eq!(find_config(&dir), None);
        fs::write(
            dir.join("pyproject.toml"),
            "[tool.kindgi.pack]\nid = \"a\nversion = \"1\"\n",
        )
        .expect("write");
        assert_eq!(
            find_config(&dir).map(|f| f.format),
            Some(ConfigFormat::Pyproject)
        );
        fs::write(dir.join("kindgi.config.js"), "").expect("write");
        fs::write(dir.join("kindgi.config.mjs"), "").expect("write");
        let found = find_config(&dir).expect("found");
        assert_eq!(found.path, dir.join("kindgi.config.mjs"));
        fs::write(dir.join("kindgi.config.json"), "{}").expect("write");
        let found = find_config(&dir).expect("found");
        assert_eq!(found.format, ConfigFormat::Json);
        assert_eq!(found.conflicts_with, Some(dir.join("kindgi.config.mjs")));
        let refusal = two_configs(&dir, &dir.join("pyproject.toml"));
        assert!(refusal.message.ends_with(
            "kindgi.config.json and pyproject.toml; a pack has one. Keep kindgi.config.json for a Java or Scala pack, or pyproject.toml for a Python one, and remove the other."
        ));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn pyproject_table_becomes_the_config() {
        let dir = scratch("pyproject");
        let path = dir.join("pyproject.toml");
        fs::write(&path, "[tool.kindgi]\nproject = \"p\"\n[tool.kindgi.pack]\nid = \"a\"\nversion = \"1\"\n[[tool.kindgi.providers]]\npreset = \"x\"\nmaxOutputTokens = 16384\n").expect("write");
        let table = read_pyproject(&path).expect("reads");
        assert_eq!(
            Value::Object(table.clone()),
            serde_json::json!({"project": "p", "pack": {"id": "a", "version": "1"}, "providers": [{"preset": "x", "maxOutputTokens": 16384}]})
        );
        assert_eq!(
            check_config(&table, &path, ConfigFormat::Pyproject),
            Ok(Language::Python)
        );
        fs::write(&path, "[tool.kindgi.pack]\nid = \"a\n").expect("write");
        let error = read_pyproject(&path).expect_err("broken");
        assert_eq!(error.code, IndexerErrorCode::ConfigParseFailed);
        assert!(error.message.starts_with("Failed to read "));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn json_configs_are_jvm_packs() {
        let path = Path::new("kindgi.config.json");
        for (value, wanted) in [
            (serde_json::json!({"pack": {"id": "a", "version": "1"}}), "kindgi.config.json is a JVM pack's config; it says \"language\": \"java\" or \"scala\""),
            (serde_json::json!({"language": "node", "pack": {"id": "a", "version": "1"}}), "it says \"language\": \"java\" or \"scala\""),
            (serde_json::json!({"language": "java", "pack": {"id": "a"}}), "'pack.version' is missing"),
        ] {
            let error = check_config(value.as_object().expect("object"), path, ConfigFormat::Json).expect_err("refused");
            assert_eq!(error.code, IndexerErrorCode::ConfigParseFailed);
            assert!(error.message.contains(wanted), "{}", error.message);
        }
        let scala = serde_json::json!({"language": "scala", "pack": {"id": "a", "version": "1"}});
        assert_eq!(
            check_config(scala.as_object().expect("object"), path, ConfigFormat::Json),
            Ok(Language::Scala)
        );
    }

    #[test]
    fn toml_infinities_and_nan_cross_as_markers() {
        let dir = scratch("nonfinite");
        let path = dir.join("pyproject.toml");
        fs::write(
            &path,
            "[tool.kindgi]\na = inf\nb = -inf\nc = nan\nd = 1.5\n",
        )
        .expect("write");
        let table = read_pyproject(&path).expect("reads");
        assert_eq!(
            Value::Object(table),
            serde_json::json!({"a": {NON_FINITE_MARKER: "inf"}, "b": {NON_FINITE_MARKER: "-inf"}, "c": {NON_FINITE_MARKER: "nan"}, "d": 1.5})
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn checks_every_config_passes() {
        let path = Path::new("kindgi.config.mjs");
        let check =
            |v: Value| check_config(v.as_object().expect("object"), path, ConfigFormat::Module);
        assert_eq!(
            check(serde_json::json!({"pack": {"id": "a", "version": "1"}})),
            Ok(Language::Node)
        );
        let message = |v: Value| check(v).map_err(|e| e.message).expect_err("refused");
        assert!(message(serde_json::json!({})).contains("'pack' field is missing or not an object"));
        assert!(
            message(serde_json::json!({"pack": {"version": "1"}})).contains("'pack.id' is missing")
        );
        assert!(
            message(serde_json::json!({"pack": {"id": "a", "version": ""}}))
                .contains("'pack.version' is missing")
        );
        assert!(message(
            serde_json::json!({"pack": {"id": "a", "version": "1"}, "language": "java"})
        )
        .contains("'language' must be \"node\" or \"python\""));
        assert_eq!(language_mismatch(Path::new("/p"), Language::Node), None);
        assert_eq!(
            language_mismatch(Path::new("/p"), Language::Scala).map(|e| e.message).unwrap_or_default(),
            "/p is a scala pack; index it with its own indexer (java -cp <classpath> com.kindgi.pack.Main index)"
        );
        assert_eq!(
            Language::Java.default_discovery()[0],
            "src/main/java/**/tools/**/*.java"
        );
        assert_eq!(
            Language::Node.default_discovery()[3],
            "flows/**/*.{ts,js,mjs}"
        );
    }
}
