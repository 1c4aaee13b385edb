//! A pack service for the core's unit tests: an empty pack, whose runner never settles a call.

use crate::env::PackEnvCheck;
use crate::service::call::{Call, CallAbort, RunFuture, Runner};
use crate::service::catalog::Catalog;
use crate::service::core::{PackService, ServiceOptions};
use std::sync::Arc;

/// Runs nothing: a call it is handed stays in flight.
pub struct NeverRuns;

impl Runner for NeverRuns {
    fn run(&self, _call: Call, _abort: CallAbort) -> RunFuture {
        Box::pin(std::future::pending())
    }
}

/// A service of an empty pack (token `t`, 4 places, 1 KiB bodies) on [`NeverRuns`].
pub fn empty_service() -> Arc<PackService> {
    let index = serde_json::json!({
        "v": 1, "packId": "p", "packVersion": "1.0.0", "artifactVersion": "1",
        "tools": [], "guardrails": [], "agents": [], "flows": []
    });
    let catalog = Catalog::from_index(&index).expect("an empty index is valid");
    Arc::new(PackService::new(
        ServiceOptions {
            catalog,
            token: "t".into(),
            tenant: None,
            max_concurrency: 4,
            max_body_bytes: 1024,
            default_timeout_ms: 1000,
            env_check: PackEnvCheck::Strict,
            missing_env: Vec::new(),
            index_hash: None,
            records: None,
            share_call_bindings: false,
            js_threads: Arc::default(),
            stall_limit: None,
        },
        Arc::new(NeverRuns),
        None,
    ))
}
