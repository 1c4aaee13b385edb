//! The pack service's process configuration.

use crate::service::config::{arg, parse_workers, read_settings, RawConfig, WORKERS_VAR};
use napi_derive::napi;

/// The variable that sets how many JS threads run pack code.
#[napi(js_name = "PACK_SERVICE_WORKERS_VAR")]
pub const PACK_SERVICE_WORKERS_VAR: &str = WORKERS_VAR;

#[napi(object)]
pub struct ServiceSettingsJs {
    /// The problems, when the configuration is refused.
    pub problems: Option<Vec<String>>,
    /// The raw `--module-root` value (the JS layer resolves paths with Node's rules, and reads
    /// `--index` itself: TypeScript resolves the index before it reads anything else).
    pub module_root_arg: Option<String>,
    pub bundle_map: Option<String>,
    pub host: Option<String>,
    pub token: Option<String>,
    pub port: Option<u32>,
    pub max_concurrency: Option<f64>,
    pub stall_ms: Option<f64>,
    pub env_check: Option<String>,
    pub env_filter: Option<String>,
    /// How many JS threads run pack code (`KINDGI_PACK_SERVICE_WORKERS`).
    pub workers: Option<u32>,
}

/// The variables; for one that is not a string, what TypeScript compares and prints (`RawConfig`).
#[napi(object)]
pub struct ServiceEnvJs {
    pub token: Option<String>,
    pub port: Option<String>,
    pub port_shown: Option<String>,
    pub max_concurrency: Option<String>,
    pub stall_ms: Option<String>,
    pub env_check: Option<String>,
    pub env_check_shown: Option<String>,
    pub env_filter: Option<String>,
    pub env_filter_shown: Option<String>,
    /// `KINDGI_PACK_SERVICE_WORKERS`, and the cores the process may use (`auto`).
    pub workers: Option<String>,
    pub cores: u32,
}

#[napi(js_name = "readPackServiceSettings")]
pub fn read_pack_service_settings(argv: Vec<String>, env: ServiceEnvJs) -> ServiceSettingsJs {
    let raw = RawConfig {
        bundle_map: arg(&argv, "--bundle-map").map(str::to_owned),
        host: arg(&argv, "--host").map(str::to_owned),
        token: env.token,
        port: env.port,
        port_shown: env.port_shown,
        max_concurrency: env.max_concurrency,
        stall_ms: env.stall_ms,
        env_check: env.env_check,
        env_check_shown: env.env_check_shown,
        env_filter: env.env_filter,
        env_filter_shown: env.env_filter_shown,
        workers: env.workers,
        cores: env.cores as usize,
    };
    let mut out = ServiceSettingsJs {
        problems: None,
        module_root_arg: arg(&argv, "--module-root").map(str::to_owned),
        bundle_map: None,
        host: None,
        token: None,
        port: None,
        max_concurrency: None,
        stall_ms: None,
        env_check: None,
        env_filter: None,
        workers: None,
    };
    match read_settings(&raw) {
        Ok(settings) => {
            out.bundle_map = settings.bundle_map;
            out.host = settings.host;
            out.token = Some(settings.token);
            out.port = Some(u32::from(settings.port));
            out.max_concurrency = settings.max_concurrency;
            out.stall_ms = settings.stall_ms;
            out.env_check = Some(settings.env_check.as_str().to_owned());
            out.env_filter = Some(settings.env_filter.as_str().to_owned());
            out.workers = Some(u32::try_from(settings.workers).unwrap_or(u32::MAX));
        }
        Err(problems) => out.problems = Some(problems),
    }
    out
}

/// A `workers` option as `parse_workers` reads it: `workers`, or `refusal` (the rule, after
/// the name JS puts first).
#[napi(object)]
pub struct ServiceWorkersJs {
    pub workers: Option<u32>,
    pub refusal: Option<String>,
}

#[napi(js_name = "packServiceWorkers")]
pub fn pack_service_workers(raw: String, cores: u32) -> ServiceWorkersJs {
    match parse_workers(&raw, cores as usize) {
        Ok(workers) => ServiceWorkersJs {
            workers: Some(u32::try_from(workers).unwrap_or(u32::MAX)),
            refusal: None,
        },
        Err(rule) => ServiceWorkersJs {
            workers: None,
            refusal: Some(rule.into()),
        },
    }
}
