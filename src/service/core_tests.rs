//! `PackService`'s admission as a transport drives it.

use super::*;
use crate::service::admission::{MAX_WAITING, QUEUE_BUDGET};
use crate::service::test_service::empty_service;

/// The empty test service, warm: it takes calls.
fn service() -> Arc<PackService> {
    let service = empty_service();
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
