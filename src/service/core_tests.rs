//! `PackService`'s admission as a transport drives it.

use super::*;
use crate::env::PackEnvCheck;
use crate::service::admission::{MAX_WAITING, QUEUE_BUDGET};
use crate::service::call::{Call, CallAbort, RunFuture, Runner};
use crate::service::catalog::Catalog;

struct NeverRuns;

impl Runner for NeverRuns {
    fn run(&self, _call: Call, _abort: CallAbort) -> RunFuture {
        Box::pin(std::future::pending())
    }
}

fn service() -> Arc<PackService> {
    let index = serde_json::json!({
        "v": 1, "packId": "p", "packVersion": "1.0.0", "artifactVersion": "1",
        "tools": [], "guardrails": [], "agents": [], "flows": []
    });
    let catalog = Catalog::from_index(&index).expect("an empty index is valid");
    let service = Arc::new(PackService::new(
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
    ));
    service.admission().set_warm(true);
    service
}

fn invoke_head() -> RequestHead {
    RequestHead {
        method: "POST".into(),
        target: "/v1/invoke".into(),
        token: Some("t".into()),
        tenant: None,
        content_type: Some("application/json".into()),
        content_length: Some(2),
        timeout_ms: None,
        traceparent: None,
    }
}

#[tokio::test]
async fn past_the_most_requests_waiting_at_their_heads_the_next_is_refused_at_once() {
    let service = service();
    // The budget spent: every request waits at its head.
    let _spent = service.admission().queue(QUEUE_BUDGET);
    let mut waits = tokio::task::JoinSet::new();
    for _ in 0..MAX_WAITING {
        let service = Arc::clone(&service);
        waits.spawn(async move {
            matches!(
                service.begin_when_room(&invoke_head()).await,
                Begin::Reply(_)
            )
        });
    }
    while service.admission().waiting() < MAX_WAITING {
        tokio::task::yield_now().await;
    }
    let head = invoke_head();
    let next = tokio::time::timeout(Duration::from_secs(5), service.begin_when_room(&head));
    match next.await {
        Ok(Begin::Reply(reply)) => assert_eq!(reply, Reply::overloaded()),
        Ok(Begin::Invoke(_)) => panic!("admitted past the budget"),
        Err(_) => panic!("it waited instead of being refused"),
    }
    // The ones waiting leave when the service stops taking calls.
    service.admission().stop_taking_calls();
    while let Some(answered) = waits.join_next().await {
        assert_eq!(answered.ok(), Some(true));
    }
}
