//! `readPackServiceConfig`: the pack service process's settings from its arguments and
//! environment, with the TypeScript package's rules, problem texts and problem order.
//!
//! Paths are resolved by the JS layer (Node's `path.resolve` / `path.dirname`, whose platform
//! rules are Node's own); everything else is decided here.

use crate::env::{
    env_check_refusal, env_filter_refusal, parse_pack_env_check, parse_pack_env_filter,
    PackEnvCheck, PackEnvFilter,
};
use crate::js::{is_js_whitespace, js_number};
use crate::json::to_js_json;
use crate::service::http::is_node_header_value;
use serde_json::Value;

pub const PACK_SERVICE_TOKEN_VAR: &str = "KINDGI_PACK_SERVICE_TOKEN";

/// How long pack code may hold the JS thread before `/healthz` answers 503 (`js_pulse`).
pub const STALL_MS_VAR: &str = "KINDGI_PACK_SERVICE_STALL_MS";

/// How many JS threads run pack code (the main thread and `N - 1` worker threads).
pub const WORKERS_VAR: &str = "KINDGI_PACK_SERVICE_WORKERS";

/// The most JS threads `KINDGI_PACK_SERVICE_WORKERS` may ask for ([`WORKERS_RULE`] says it).
pub const MAX_WORKERS: usize = 256;

/// `KINDGI_PACK_SERVICE_WORKERS=auto` on `cores` usable cores: a JS thread per core less a
/// quarter of them for the HTTP side, at least one: a JS thread kept busy by pack code keeps the
/// tokio side busy for a fraction of its own time (docs/benchmarks.md, Workers, measures it).
pub fn auto_workers(cores: usize) -> usize {
    cores.saturating_sub(cores / 4).max(1)
}

/// What a workers setting may hold, after the name of the setting refused.
pub const WORKERS_RULE: &str = "must be auto or a whole number of JS threads from 1 to 256";

/// A workers setting (`KINDGI_PACK_SERVICE_WORKERS`, the JS `workers` option) on `cores`
/// usable cores: `auto`, or a whole number from 1 to [`MAX_WORKERS`] (JavaScript's
/// `Number()` of the text); `Err` with [`WORKERS_RULE`].
pub fn parse_workers(raw: &str, cores: usize) -> Result<usize, &'static str> {
    if raw.trim_matches(is_js_whitespace) == "auto" {
        return Ok(auto_workers(cores));
    }
    let n = js_number(raw);
    if is_integer(n) && (1.0..=MAX_WORKERS as f64).contains(&n) {
        return Ok(n as usize);
    }
    Err(WORKERS_RULE)
}

/// The raw inputs: argument values (`None` when the flag is absent or last) and variables.
///
/// A variable that is not a string is read in JS as TypeScript reads it: `port` and
/// `max_concurrency` carry the text of its `Number()`, and a `*_shown` is how the variable's
/// problem prints it (`JSON.stringify` for PORT, the template's `${value}` for the settings).
#[derive(Debug, Clone, Default)]
pub struct RawConfig {
    pub bundle_map: Option<String>,
    pub host: Option<String>,
    pub token: Option<String>,
    pub port: Option<String>,
    pub port_shown: Option<String>,
    pub max_concurrency: Option<String>,
    /// `KINDGI_PACK_SERVICE_STALL_MS`.
    pub stall_ms: Option<String>,
    pub env_check: Option<String>,
    pub env_check_shown: Option<String>,
    pub env_filter: Option<String>,
    pub env_filter_shown: Option<String>,
    /// `KINDGI_PACK_SERVICE_WORKERS`, and the cores the process may use (for `auto`).
    pub workers: Option<String>,
    pub cores: usize,
}

/// The settings that are not paths.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceSettings {
    /// `--bundle-map`, when given and not empty.
    pub bundle_map: Option<String>,
    pub host: Option<String>,
    pub token: String,
    pub port: u16,
    pub max_concurrency: Option<f64>,
    /// How long pack code may hold the JS thread before `/healthz` answers 503 (0: never).
    pub stall_ms: Option<f64>,
    pub env_check: PackEnvCheck,
    pub env_filter: PackEnvFilter,
    /// How many JS threads run pack code.
    pub workers: usize,
}

/// `argv.indexOf(name)` and the element after it: the first occurrence wins, and a flag given
/// last has no value.
pub fn arg<'a>(argv: &'a [String], name: &str) -> Option<&'a str> {
    let at = argv.iter().position(|a| a == name)?;
    argv.get(at + 1).map(String::as_str)
}

fn is_integer(x: f64) -> bool {
    x.is_finite() && x.fract() == 0.0
}

/// `parsePackServiceToken`: trimmed; `Ok(None)` when empty or unset; printable ASCII only.
pub fn parse_pack_service_token(raw: Option<&str>) -> Result<Option<String>, String> {
    let Some(raw) = raw else { return Ok(None) };
    let token = raw.trim_matches(is_js_whitespace);
    if token.is_empty() {
        return Ok(None);
    }
    if !token.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(format!(
            "{PACK_SERVICE_TOKEN_VAR} may hold only printable ASCII without spaces (it travels in an HTTP header). Use a random value such as `openssl rand -hex 32`."
        ));
    }
    Ok(Some(token.to_owned()))
}

/// What `KINDGI_PACK_TENANT_ID` and `options.tenantId` may hold, after the name that is refused.
pub const TENANT_RULE: &str = "may hold only what an HTTP header can carry: printable ASCII, spaces, tabs and U+0080 to U+00FF (it is matched against kindgi-tenant-id)";

/// A pinned tenant, read as the token is: trimmed as JavaScript trims (a secret stored with a
/// trailing newline), blank is unset. It is compared with `kindgi-tenant-id`, which Node reads
/// trimmed and as Latin-1, so a value holding anything else could never match: `Err` with
/// [`TENANT_RULE`] when no header can carry it.
pub fn parse_pinned_tenant(raw: &str) -> Result<Option<String>, &'static str> {
    let tenant = raw.trim_matches(is_js_whitespace);
    if tenant.is_empty() {
        return Ok(None);
    }
    if !is_node_header_value(tenant) {
        return Err(TENANT_RULE);
    }
    Ok(Some(tenant.to_owned()))
}

/// Reads the settings; every problem, in the TypeScript order, when any is wrong.
pub fn read_settings(raw: &RawConfig) -> Result<ServiceSettings, Vec<String>> {
    let mut problems = Vec::new();
    if raw.bundle_map.as_deref() == Some("") {
        problems.push("--bundle-map needs a path".to_owned());
    }
    if raw.host.as_deref() == Some("") {
        problems.push("--host needs an address".to_owned());
    }
    let token = match parse_pack_service_token(raw.token.as_deref()) {
        Ok(Some(token)) => Some(token),
        Ok(None) => {
            problems.push(format!("{PACK_SERVICE_TOKEN_VAR} is required"));
            None
        }
        Err(message) => {
            problems.push(message);
            None
        }
    };
    let port = js_number(raw.port.as_deref().unwrap_or("8080"));
    if !is_integer(port) || !(0.0..=65535.0).contains(&port) {
        let shown = match (&raw.port_shown, &raw.port) {
            (Some(shown), _) => shown.clone(),
            (None, Some(port)) => to_js_json(&Value::String(port.clone())),
            (None, None) => "undefined".to_owned(),
        };
        problems.push(format!("PORT must be a port number, got {shown}"));
    }
    let max_concurrency = raw.max_concurrency.as_deref().map(js_number);
    if max_concurrency.is_some_and(|n| !is_integer(n) || n < 1.0) {
        problems.push("KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer".to_owned());
    }
    let stall_ms = raw.stall_ms.as_deref().map(js_number);
    if stall_ms.is_some_and(|n| !is_integer(n) || n < 0.0) {
        problems.push(format!(
            "{STALL_MS_VAR} must be a whole number of milliseconds from 0 up (0 turns the check off)"
        ));
    }
    // A variable that is not a string is refused whatever its text: TypeScript compares with `===`.
    let env_check = match &raw.env_check_shown {
        Some(shown) => Err(env_check_refusal(shown)),
        None => parse_pack_env_check(raw.env_check.as_deref()),
    }
    .map_err(|m| problems.push(m))
    .ok();
    let env_filter = match &raw.env_filter_shown {
        Some(shown) => Err(env_filter_refusal(shown)),
        None => parse_pack_env_filter(raw.env_filter.as_deref()),
    }
    .map_err(|m| problems.push(m))
    .ok();
    // After TypeScript's own variables: it has no workers.
    let workers = match raw.workers.as_deref() {
        None => Ok(1),
        Some(text) => parse_workers(text, raw.cores),
    }
    .map_err(|rule| problems.push(format!("{WORKERS_VAR} {rule}")))
    .ok();
    match (token, env_check, env_filter, workers) {
        (Some(token), Some(env_check), Some(env_filter), Some(workers)) if problems.is_empty() => {
            Ok(ServiceSettings {
                bundle_map: raw.bundle_map.clone().filter(|b| !b.is_empty()),
                host: raw.host.clone().filter(|h| !h.is_empty()),
                token,
                port: port.abs() as u16,
                // Concurrency beyond u32 is as good as unlimited.
                max_concurrency,
                stall_ms,
                env_check,
                env_filter,
                workers,
            })
        }
        _ => Err(problems),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_tenant_is_trimmed_blank_is_none_and_what_no_header_carries_is_refused() {
        assert_eq!(parse_pinned_tenant(" acme\n"), Ok(Some("acme".to_owned())));
        assert_eq!(parse_pinned_tenant("\u{feff} \t"), Ok(None));
        assert_eq!(parse_pinned_tenant("a\tb é"), Ok(Some("a\tb é".to_owned())));
        for bad in ["a\u{0}b", "a\u{7f}", "a\rb", "tenant\u{100}", "\u{fffd}"] {
            assert_eq!(parse_pinned_tenant(bad), Err(TENANT_RULE), "{bad:?}");
        }
    }

    #[test]
    fn workers_are_one_by_default_auto_by_cores_or_a_whole_number() {
        let with = |value: Option<&str>, cores: usize| {
            read_settings(&RawConfig {
                workers: value.map(str::to_owned),
                cores,
                ..raw(Some("t"))
            })
            .map(|s| s.workers)
        };
        assert_eq!(with(None, 16), Ok(1));
        assert_eq!(with(Some(" 3 "), 1), Ok(3));
        assert_eq!(with(Some("auto"), 2), Ok(2));
        assert_eq!(with(Some("auto"), 8), Ok(6));
        assert_eq!(with(Some("auto"), 0), Ok(1));
        assert_eq!(with(Some("256"), 1), Ok(MAX_WORKERS));
        assert!(WORKERS_RULE.ends_with(&format!("to {MAX_WORKERS}")));
        for bad in ["0", "-2", "1.5", "two", "", "AUTO", "257"] {
            assert_eq!(
                with(Some(bad), 4),
                Err(vec![format!(
                    "{WORKERS_VAR} must be auto or a whole number of JS threads from 1 to 256"
                )]),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_stall_limit_is_a_whole_number_of_milliseconds_from_0_up() {
        let with = |value: &str| {
            read_settings(&RawConfig {
                stall_ms: Some(value.to_owned()),
                ..raw(Some("t"))
            })
        };
        assert_eq!(with("0").map(|s| s.stall_ms), Ok(Some(0.0)));
        assert_eq!(with(" 2500 ").map(|s| s.stall_ms), Ok(Some(2500.0)));
        for bad in ["-1", "1.5", "soon", "Infinity"] {
            assert_eq!(
                with(bad),
                Err(vec![format!("{STALL_MS_VAR} must be a whole number of milliseconds from 0 up (0 turns the check off)")]),
                "{bad}"
            );
        }
        assert_eq!(read_settings(&raw(Some("t"))).map(|s| s.stall_ms), Ok(None));
    }

    fn raw(token: Option<&str>) -> RawConfig {
        RawConfig {
            token: token.map(str::to_owned),
            ..RawConfig::default()
        }
    }

    #[test]
    fn arguments_take_the_first_occurrence_and_need_a_value() {
        let argv: Vec<String> = ["--index", "a", "--index", "b", "--host"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(arg(&argv, "--index"), Some("a"));
        assert_eq!(arg(&argv, "--host"), None);
        assert_eq!(arg(&argv, "--bundle-map"), None);
    }

    #[test]
    fn problems_in_order_with_typescript_texts() {
        assert_eq!(
            read_settings(&raw(None)),
            Err(vec!["KINDGI_PACK_SERVICE_TOKEN is required".to_owned()])
        );
        assert_eq!(
            read_settings(&raw(Some(" \n"))),
            Err(vec!["KINDGI_PACK_SERVICE_TOKEN is required".to_owned()])
        );
        let spaced = read_settings(&raw(Some("two words"))).unwrap_err();
        assert_eq!(spaced, vec!["KINDGI_PACK_SERVICE_TOKEN may hold only printable ASCII without spaces (it travels in an HTTP header). Use a random value such as `openssl rand -hex 32`.".to_owned()]);
        let all = RawConfig {
            bundle_map: Some(String::new()),
            host: Some(String::new()),
            token: None,
            port: Some("x".into()),
            max_concurrency: Some("0".into()),
            env_check: Some("loose".into()),
            env_filter: Some("no".into()),
            ..RawConfig::default()
        };
        assert_eq!(
            read_settings(&all).unwrap_err(),
            vec![
                "--bundle-map needs a path",
                "--host needs an address",
                "KINDGI_PACK_SERVICE_TOKEN is required",
                "PORT must be a port number, got \"x\"",
                "KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer",
                "KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not \"loose\"",
                "KINDGI_PACK_ENV_FILTER must be `on` or `off`, not \"no\"",
            ]
        );
    }

    #[test]
    fn reads_good_settings() {
        let mut good = raw(Some("secret-token\n"));
        good.port = Some("0".into());
        good.max_concurrency = Some("4".into());
        let settings = read_settings(&good).unwrap();
        assert_eq!(settings.token, "secret-token");
        assert_eq!(settings.port, 0);
        assert_eq!(settings.max_concurrency, Some(4.0));
        assert_eq!(settings.env_check, PackEnvCheck::Strict);
        assert_eq!(settings.env_filter, PackEnvFilter::On);
        assert_eq!(read_settings(&raw(Some("t"))).unwrap().port, 8080);
    }

    #[test]
    fn values_that_are_not_strings_are_told_as_shown() {
        let mut other = raw(Some("t"));
        // Number(NaN) is refused and JSON.stringify(NaN) is `null`.
        other.port = Some("NaN".into());
        other.port_shown = Some("null".into());
        // Refused whatever their text: TypeScript compares the value with `===`.
        other.env_check = Some("warn".into());
        other.env_check_shown = Some("warn".into());
        other.env_filter_shown = Some(String::new());
        assert_eq!(
            read_settings(&other).unwrap_err(),
            vec![
                "PORT must be a port number, got null",
                "KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not \"warn\"",
                "KINDGI_PACK_ENV_FILTER must be `on` or `off`, not \"\"",
            ]
        );
        // A value that is a valid port needs no problem, whatever it shows as.
        let mut good = raw(Some("t"));
        good.port = Some("1".into());
        good.port_shown = Some("true".into());
        assert_eq!(read_settings(&good).unwrap().port, 1);
    }

    #[test]
    fn a_refused_setting_reads_the_same_whether_a_string_or_not() {
        for text in ["loose", "5", "a\0b"] {
            let mut string = raw(Some("t"));
            string.env_check = Some(text.into());
            string.env_filter = Some(text.into());
            let mut other = raw(Some("t"));
            other.env_check_shown = Some(text.into());
            other.env_filter_shown = Some(text.into());
            assert_eq!(read_settings(&string), read_settings(&other), "{text:?}");
        }
        // A string holding NUL is printed as it is, escaped where JSON escapes it.
        let mut nul = raw(Some("t"));
        nul.port = Some("80\0".into());
        nul.env_check = Some("warn\0".into());
        assert_eq!(
            read_settings(&nul).unwrap_err(),
            vec![
                "PORT must be a port number, got \"80\\u0000\"",
                "KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not \"warn\0\"",
            ]
        );
    }
}
