//! The process environment a pack declares (`env: { required, optional }` in `kindgi.config`,
//! carried in `index.json`): the declaration's checks, the names a process lacks, the
//! `KINDGI_PACK_ENV_CHECK` / `KINDGI_PACK_ENV_FILTER` settings, and the names the env filter
//! drops before pack code loads. Messages are the TypeScript package's, word for word.

use crate::json::cmp_utf16;

/// The prefix of the names that configure Kindgi itself; never a pack's.
pub const RESERVED_ENV_PREFIX: &str = "KINDGI_";
/// The variable that sets [`PackEnvCheck`].
pub const PACK_ENV_CHECK_VAR: &str = "KINDGI_PACK_ENV_CHECK";
/// The variable that sets [`PackEnvFilter`].
pub const PACK_ENV_FILTER_VAR: &str = "KINDGI_PACK_ENV_FILTER";
/// `PACK_ENV_NAME` as JavaScript source.
pub const PACK_ENV_NAME_PATTERN: &str = "^[A-Za-z_][A-Za-z0-9_]*$";

/// The platform's own variables, which the env filter keeps (the same lists as the TypeScript,
/// Python and Java pack services).
pub const PLATFORM_ENV_NAMES: &[&str] = &[
    // the process
    "PATH",
    "HOME",
    "HOSTNAME",
    "USER",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "TMP",
    "TEMP",
    "PWD",
    "SHLVL",
    "_",
    "__CF_USER_TEXT_ENCODING",
    // the language runtime
    "NODE_ENV",
    "NODE_VERSION",
    "YARN_VERSION",
    "NODE_OPTIONS",
    "NODE_EXTRA_CA_CERTS",
    "JAVA_HOME",
    "JAVA_VERSION",
    "JAVA_TOOL_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "_JAVA_OPTIONS",
    "VIRTUAL_ENV",
    // the port
    "PORT",
    // network trust
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    // Cloud Run
    "K_SERVICE",
    "K_REVISION",
    "K_CONFIGURATION",
    // AWS
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_EXECUTION_ENV",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_ROLE_ARN",
    "ECS_CONTAINER_METADATA_URI",
    "ECS_CONTAINER_METADATA_URI_V4",
    // Azure
    "IDENTITY_ENDPOINT",
    "IDENTITY_HEADER",
    "MSI_ENDPOINT",
    "MSI_SECRET",
    "AZURE_CLIENT_ID",
    "AZURE_TENANT_ID",
    "AZURE_FEDERATED_TOKEN_FILE",
    "AZURE_AUTHORITY_HOST",
];

/// Prefixes of the platform's own variables, which the env filter keeps.
pub const PLATFORM_ENV_PREFIXES: &[&str] =
    &["LC_", "PYTHON", "OTEL_", "CLOUD_RUN_", "CONTAINER_APP_"];

/// A pack's declared process environment, both lists sorted by code unit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PackEnvDeclaration {
    pub required: Vec<String>,
    pub optional: Vec<String>,
}

/// A config's `env` as JavaScript hands it over: only the types matter to the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvConfig {
    /// `undefined`: nothing declared.
    Absent,
    /// `null`, an array or a primitive.
    NotAnObject,
    Object {
        /// Own enumerable keys other than `required` and `optional`, in `Object.keys` order.
        unknown_keys: Vec<String>,
        required: NameList,
        optional: NameList,
    },
}

/// One of the two lists as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameList {
    Absent,
    /// Not an array, or an array with an item that is not a string.
    NotNames,
    Names(Vec<String>),
}

/// Whether `name` is an environment variable name (`^[A-Za-z_][A-Za-z0-9_]*$`).
pub fn is_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'_'))
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Validates a config's `env` and normalizes it to what the index carries. `Ok(None)` when
/// nothing is declared. Every problem is reported, joined by `; `.
pub fn resolve_pack_env(config: &EnvConfig) -> Result<Option<PackEnvDeclaration>, String> {
    let (unknown_keys, required, optional) = match config {
        EnvConfig::Absent => return Ok(None),
        EnvConfig::NotAnObject => {
            return Err(
                "`env` must be an object: { required?: string[], optional?: string[] }".into(),
            )
        }
        EnvConfig::Object {
            unknown_keys,
            required,
            optional,
        } => (unknown_keys, required, optional),
    };
    if !unknown_keys.is_empty() {
        let listed: Vec<String> = unknown_keys.iter().map(|k| format!("`{k}`")).collect();
        return Err(format!(
            "`env` takes only `required` and `optional`, not {}",
            listed.join(", ")
        ));
    }
    let mut problems = Vec::new();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for (list, names) in [("required", required), ("optional", optional)] {
        let names = match names {
            NameList::Absent => continue,
            NameList::NotNames => {
                problems.push(format!("`env.{list}` must be a list of names"));
                continue;
            }
            NameList::Names(names) => names,
        };
        for name in names {
            if !is_env_name(name) {
                problems.push(format!(
                    "\"{name}\" in `env.{list}` isn't an environment variable name"
                ));
            } else if name.starts_with(RESERVED_ENV_PREFIX) {
                problems.push(format!(
                    "\"{name}\" in `env.{list}`: `{RESERVED_ENV_PREFIX}*` names configure Kindgi, not the pack"
                ));
            } else if let Some((_, first)) = seen.iter().find(|(n, _)| n == name) {
                problems.push(if *first == list {
                    format!("\"{name}\" is listed twice in `env.{list}`")
                } else {
                    format!("\"{name}\" is in both `env.required` and `env.optional`")
                });
            } else {
                seen.push((name, list));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    let sorted = |names: &NameList| -> Vec<String> {
        let mut names = match names {
            NameList::Names(names) => names.clone(),
            _ => Vec::new(),
        };
        names.sort_by(|a, b| cmp_utf16(a, b));
        names
    };
    let declaration = PackEnvDeclaration {
        required: sorted(required),
        optional: sorted(optional),
    };
    if declaration.required.is_empty() && declaration.optional.is_empty() {
        return Ok(None);
    }
    Ok(Some(declaration))
}

/// How the pack service treats missing required names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackEnvCheck {
    Strict,
    Warn,
}

impl PackEnvCheck {
    pub fn as_str(self) -> &'static str {
        match self {
            PackEnvCheck::Strict => "strict",
            PackEnvCheck::Warn => "warn",
        }
    }
}

/// `KINDGI_PACK_ENV_CHECK`: unset, empty or `strict` is strict; `warn` is warn.
pub fn parse_pack_env_check(raw: Option<&str>) -> Result<PackEnvCheck, String> {
    match raw {
        None | Some("" | "strict") => Ok(PackEnvCheck::Strict),
        Some("warn") => Ok(PackEnvCheck::Warn),
        Some(other) => Err(env_check_refusal(other)),
    }
}

/// The problem with a `KINDGI_PACK_ENV_CHECK` whose text is `shown`.
pub fn env_check_refusal(shown: &str) -> String {
    format!("{PACK_ENV_CHECK_VAR} must be `strict` or `warn`, not \"{shown}\"")
}

/// Whether the pack service drops undeclared variables before pack code loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackEnvFilter {
    On,
    Off,
}

impl PackEnvFilter {
    pub fn as_str(self) -> &'static str {
        match self {
            PackEnvFilter::On => "on",
            PackEnvFilter::Off => "off",
        }
    }
}

/// `KINDGI_PACK_ENV_FILTER`: unset, empty or `on` is on; `off` is off.
pub fn parse_pack_env_filter(raw: Option<&str>) -> Result<PackEnvFilter, String> {
    match raw {
        None | Some("" | "on") => Ok(PackEnvFilter::On),
        Some("off") => Ok(PackEnvFilter::Off),
        Some(other) => Err(env_filter_refusal(other)),
    }
}

/// The problem with a `KINDGI_PACK_ENV_FILTER` whose text is `shown`.
pub fn env_filter_refusal(shown: &str) -> String {
    format!("{PACK_ENV_FILTER_VAR} must be `on` or `off`, not \"{shown}\"")
}

/// Whether the env filter keeps `name` whatever the pack declares.
pub fn is_platform_env(name: &str) -> bool {
    name.starts_with(RESERVED_ENV_PREFIX)
        || PLATFORM_ENV_NAMES.contains(&name)
        || PLATFORM_ENV_PREFIXES
            .iter()
            .any(|prefix| name.starts_with(prefix))
}

/// The names the env filter drops from an environment: not declared, not `KINDGI_*`, not the
/// platform's. Sorted by code unit.
pub fn undeclared_pack_env<'a>(
    declaration: Option<&PackEnvDeclaration>,
    names: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let declared = |name: &str| {
        declaration.is_some_and(|d| d.required.iter().chain(&d.optional).any(|n| n == name))
    };
    let mut dropped: Vec<String> = names
        .into_iter()
        .filter(|name| !declared(name) && !is_platform_env(name))
        .map(str::to_owned)
        .collect();
    dropped.sort_by(|a, b| cmp_utf16(a, b));
    dropped.dedup();
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> NameList {
        NameList::Names(list.iter().map(|s| s.to_string()).collect())
    }

    fn object(required: NameList, optional: NameList) -> EnvConfig {
        EnvConfig::Object {
            unknown_keys: vec![],
            required,
            optional,
        }
    }

    #[test]
    fn nothing_declared_is_none() {
        assert_eq!(resolve_pack_env(&EnvConfig::Absent), Ok(None));
        assert_eq!(
            resolve_pack_env(&object(NameList::Absent, NameList::Absent)),
            Ok(None)
        );
        assert_eq!(resolve_pack_env(&object(names(&[]), names(&[]))), Ok(None));
    }

    #[test]
    fn lists_are_sorted_by_code_unit() {
        let resolved = resolve_pack_env(&object(
            names(&["b", "A_URL", "B_URL", "_x"]),
            NameList::Absent,
        ));
        assert_eq!(
            resolved,
            Ok(Some(PackEnvDeclaration {
                required: vec!["A_URL".into(), "B_URL".into(), "_x".into(), "b".into()],
                optional: vec![],
            }))
        );
    }

    #[test]
    fn refusals_have_the_typescript_messages() {
        assert_eq!(
            resolve_pack_env(&EnvConfig::NotAnObject),
            Err("`env` must be an object: { required?: string[], optional?: string[] }".into())
        );
        let unknown = EnvConfig::Object {
            unknown_keys: vec!["extra".into(), "more".into()],
            required: NameList::Absent,
            optional: NameList::Absent,
        };
        assert_eq!(
            resolve_pack_env(&unknown),
            Err("`env` takes only `required` and `optional`, not `extra`, `more`".into())
        );
        assert_eq!(
            resolve_pack_env(&object(
                NameList::NotNames,
                names(&["1X", "A-B", "KINDGI_X", "Y", "Y", "Z"])
            )),
            Err([
                "`env.required` must be a list of names",
                "\"1X\" in `env.optional` isn't an environment variable name",
                "\"A-B\" in `env.optional` isn't an environment variable name",
                "\"KINDGI_X\" in `env.optional`: `KINDGI_*` names configure Kindgi, not the pack",
                "\"Y\" is listed twice in `env.optional`",
            ]
            .join("; "))
        );
        assert_eq!(
            resolve_pack_env(&object(names(&["A"]), names(&["A"]))),
            Err("\"A\" is in both `env.required` and `env.optional`".into())
        );
    }

    #[test]
    fn settings_parse_with_exact_messages() {
        assert_eq!(parse_pack_env_check(None), Ok(PackEnvCheck::Strict));
        assert_eq!(parse_pack_env_check(Some("")), Ok(PackEnvCheck::Strict));
        assert_eq!(parse_pack_env_check(Some("warn")), Ok(PackEnvCheck::Warn));
        assert_eq!(
            parse_pack_env_check(Some("WARN")),
            Err("KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not \"WARN\"".into())
        );
        assert_eq!(parse_pack_env_filter(Some("off")), Ok(PackEnvFilter::Off));
        assert_eq!(parse_pack_env_filter(None), Ok(PackEnvFilter::On));
        assert_eq!(
            parse_pack_env_filter(Some("no")),
            Err("KINDGI_PACK_ENV_FILTER must be `on` or `off`, not \"no\"".into())
        );
    }

    #[test]
    fn the_filter_drops_only_undeclared_non_platform_names() {
        let declaration = PackEnvDeclaration {
            required: vec!["DATABASE_URL".into()],
            optional: vec!["LOG".into()],
        };
        let environment = [
            "PATH",
            "DATABASE_URL",
            "LOG",
            "KINDGI_PACK_TENANT_ID",
            "LC_ALL",
            "PYTHONPATH",
            "OTEL_X",
            "AWS_SECRET_ACCESS_KEY",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "b",
            "AZURE_CLIENT_SECRET",
            "PORT",
        ];
        assert_eq!(
            undeclared_pack_env(Some(&declaration), environment),
            vec![
                "AWS_SECRET_ACCESS_KEY",
                "AZURE_CLIENT_SECRET",
                "GOOGLE_APPLICATION_CREDENTIALS",
                "b"
            ]
        );
        assert_eq!(
            undeclared_pack_env(None, ["DATABASE_URL", "HOME"]),
            vec!["DATABASE_URL"]
        );
    }
}
