//! Crashes, interrupts and restarts.

use super::*;

#[tokio::test]
async fn a_child_that_keeps_crashing_is_given_up_on() {
    let (lifecycle, seen) = lifecycle(Some("0.05"), 2);
    assert!(lifecycle.start("a").await.is_ok());
    until(|| kinds(&seen).iter().any(|k| k.starts_with("gave-up"))).await;
    // Each restart booted, then crashed: still given up on after two in the window.
    assert_eq!(
        kinds(&seen),
        [
            "started",
            "exited",
            "restarting 1",
            "started",
            "exited",
            "restarting 2",
            "started",
            "exited",
            "gave-up 2"
        ]
    );
    assert_eq!(*lifecycle.serving().borrow(), None);
}

/// SUP 113-115: a SIGKILL is a crash at once, a SIGINT only after the grace (a long one
/// here, so the difference cannot be a matter of timing).
#[tokio::test]
async fn only_an_interrupt_waits_before_it_is_a_crash() {
    for (signal, crash_at_once) in [(libc::SIGKILL, true), (libc::SIGINT, false)] {
        let grace = InterruptWait::Grace(Duration::from_secs(600));
        let (lifecycle, seen) = lifecycle_waiting(None, 3, grace);
        let marker = format!("signalled-{signal}-{}", std::process::id());
        assert!(lifecycle.start(&marker).await.is_ok());
        let pid = pid_with(&marker).expect("the child runs");
        // SAFETY: kill(2) only sends a signal, to the child the test started.
        unsafe {
            libc::kill(pid, signal);
        }
        // The exit is seen (the pid is reaped), then given time to be reported.
        let gone = || !std::path::Path::new(&format!("/proc/{pid}")).exists();
        until(gone).await;
        assert!(gone(), "the child ended by signal {signal}");
        if crash_at_once {
            until(|| kinds(&seen).len() > 1).await;
            let seen = kinds(&seen);
            assert!(
                seen.starts_with(&["started".into(), "exited".into()]),
                "{seen:?}"
            );
        } else {
            // Longer than the exit's report can take (`LINES_AFTER_EXIT`, 500 ms).
            tokio::time::sleep(Duration::from_millis(1000)).await;
            assert_eq!(kinds(&seen), ["started"], "SIGINT waits for the grace");
        }
        lifecycle.close().await;
    }
}

/// A child under the owner's steps, started on an index named `tag` and ended by
/// `signal`, once it is gone.
async fn signalled_under_the_owners_steps(
    tag: &str,
    max_restarts: u32,
    signal: i32,
) -> (Arc<Lifecycle>, Arc<Mutex<Vec<SupervisorEvent>>>) {
    let (lifecycle, seen) = lifecycle_waiting(None, max_restarts, InterruptWait::Owner);
    let marker = format!("{tag}-{}", std::process::id());
    assert!(lifecycle.start(&marker).await.is_ok());
    let pid = pid_with(&marker).expect("the child runs");
    // SAFETY: kill(2) only sends a signal, to the child the test started.
    unsafe {
        libc::kill(pid, signal);
    }
    let gone = || !std::path::Path::new(&format!("/proc/{pid}")).exists();
    until(gone).await;
    assert!(gone(), "the child ended by signal {signal}");
    (lifecycle, seen)
}

/// The id of the exit handed to the owner, once it is.
async fn handed_over(seen: &Mutex<Vec<SupervisorEvent>>) -> u32 {
    let id = || {
        seen.lock().ok()?.iter().find_map(|e| match e {
            SupervisorEvent::Interrupted { id } => Some(*id),
            _ => None,
        })
    };
    until(|| id().is_some()).await;
    id().expect("the exit was handed to the owner")
}

/// Under the owner's steps a SIGINT waits for the owner however long it takes; judged, it
/// is a crash whose events come back in order, not sent, and whose restart goes on.
#[tokio::test]
async fn the_owner_judges_an_interrupt_once_and_takes_its_events() {
    let (lifecycle, seen) = signalled_under_the_owners_steps("owner-sigint", 3, libc::SIGINT).await;
    let id = handed_over(&seen).await;
    // Far past the grace a SIGINT waits without the owner's steps.
    tokio::time::sleep(INTERRUPT_GRACE * 5).await;
    assert_eq!(kinds(&seen), ["started", "interrupted"]);
    assert_eq!(*lifecycle.serving().borrow(), Some(1000), "not judged yet");
    assert_eq!(
        lifecycle.judge_interrupt(id),
        [
            SupervisorEvent::Exited(ChildExit {
                code: None,
                signal: Some("SIGINT".into())
            }),
            SupervisorEvent::Restarting { attempt: 1 }
        ]
    );
    assert_eq!(lifecycle.judge_interrupt(id), [], "judged once");
    until(|| kinds(&seen).len() == 3).await;
    assert_eq!(kinds(&seen), ["started", "interrupted", "started"]);
    assert_eq!(*lifecycle.serving().borrow(), Some(1001));
    lifecycle.close().await;
}

/// With no restarts allowed the judged crash is given up on in the same step.
#[tokio::test]
async fn a_judged_interrupt_with_no_restarts_left_is_given_up_on_at_once() {
    let (lifecycle, seen) = signalled_under_the_owners_steps("owner-sighup", 0, libc::SIGHUP).await;
    let id = handed_over(&seen).await;
    assert_eq!(
        lifecycle.judge_interrupt(id),
        [
            SupervisorEvent::Exited(ChildExit {
                code: None,
                signal: Some("SIGHUP".into())
            }),
            SupervisorEvent::GaveUp { attempts: 0 }
        ]
    );
    assert_eq!(*lifecycle.serving().borrow(), None);
    lifecycle.close().await;
}

/// What the owner did before its steps ran (closing, stopping, new code) makes the exit
/// no crash, by the rule every exit is judged by.
#[tokio::test]
async fn an_interrupt_judged_after_a_close_stop_or_start_is_no_crash() {
    for then in ["begin_close", "stop", "start"] {
        let tag = format!("owner-then-{then}");
        let (lifecycle, seen) = signalled_under_the_owners_steps(&tag, 3, libc::SIGINT).await;
        let id = handed_over(&seen).await;
        match then {
            "begin_close" => lifecycle.begin_close(),
            "stop" => lifecycle.stop().await,
            _ => assert_eq!(lifecycle.start("new").await, Ok(1001)),
        }
        assert_eq!(lifecycle.judge_interrupt(id), [], "after {then}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        let expected: &[&str] = match then {
            "start" => &["started", "interrupted", "started"],
            _ => &["started", "interrupted"],
        };
        assert_eq!(kinds(&seen), expected, "after {then}");
        lifecycle.close().await;
    }
}

/// Under the owner's steps any other end is still a crash at once, and nothing is handed
/// over.
#[tokio::test]
async fn under_the_owners_steps_only_an_interrupt_is_handed_over() {
    let (lifecycle, seen) =
        signalled_under_the_owners_steps("owner-sigkill", 3, libc::SIGKILL).await;
    until(|| kinds(&seen).len() >= 3).await;
    assert_eq!(kinds(&seen)[..3], ["started", "exited", "restarting 1"]);
    lifecycle.close().await;
    assert!(!kinds(&seen).contains(&"interrupted".to_owned()));
}

#[tokio::test]
async fn a_stop_during_a_restarts_boot_leaves_nothing_serving() {
    let (lifecycle, seen) = lifecycle(Some("0.05"), 3);
    let marker = format!("restart-{}", std::process::id());
    assert!(lifecycle.start(&format!("slow:{marker}")).await.is_ok());
    // The child crashes, and its restart is booting (slowly) when the owner stops.
    until(|| kinds(&seen).iter().any(|k| k == "restarting 1") && alive_with(&marker)).await;
    lifecycle.stop().await;
    until(|| !alive_with(&marker)).await;
    assert!(!alive_with(&marker), "the restart's child was retired");
    assert_eq!(kinds(&seen), ["started", "exited", "restarting 1"]);
    assert_eq!(*lifecycle.serving().borrow(), None);
}

#[tokio::test]
async fn an_owners_start_during_a_restarts_boot_keeps_the_new_code() {
    let (lifecycle, seen) = lifecycle(Some("0.05"), 3);
    let marker = format!("superseded-{}", std::process::id());
    let slow = format!("slow:{marker}");
    assert!(lifecycle.start(&slow).await.is_ok());
    // The child crashes, and its restart (the old code) is booting when new code starts.
    until(|| kinds(&seen).iter().any(|k| k == "restarting 1") && alive_with(&marker)).await;
    assert!(lifecycle.start("new").await.is_ok());
    // The restart's child boots after that and is retired instead of serving.
    until(|| !alive_with(&marker)).await;
    let old_code_started = seen
        .lock()
        .map(|s| {
            s.iter()
                .filter(|e| matches!(e, SupervisorEvent::Started { index_path, .. } if *index_path == slow))
                .count()
        })
        .unwrap_or_default();
    assert_eq!(
        old_code_started, 1,
        "only the first start served the old code"
    );
    lifecycle.close().await;
}

/// The owner's start begins during a restart's delay and boots in 1 s; the restart of the
/// crashed code begins booting after it, takes 2 s, and comes up last.
#[tokio::test]
async fn a_restart_that_comes_up_after_the_owners_earlier_start_does_not_replace_it() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&seen);
    let events: EventSink = Arc::new(move |event| {
        if matches!(event, SupervisorEvent::Started { .. }) {
            into.lock().map(|mut s| s.push(event)).ok();
        }
    });
    let restarting = Arc::new(tokio::sync::Notify::new());
    let told = Arc::clone(&restarting);
    let events: EventSink = Arc::new(move |event| {
        if matches!(event, SupervisorEvent::Restarting { .. }) {
            told.notify_one();
        }
        events(event);
    });
    let next = Arc::new(AtomicU16::new(2000));
    let launches = Arc::new(AtomicU16::new(0));
    let launch: Launch = Arc::new(move |index| {
        let port = next.fetch_add(1, Ordering::Relaxed);
        let script = if index == "new" {
            format!("trap 'exit 0' TERM; sleep 1; echo '{{\"kind\":\"listening\",\"port\":{port}}}' >&2; while :; do sleep 0.05; done")
        } else if launches.fetch_add(1, Ordering::Relaxed) == 0 {
            // The old code's first child: up at once, then a crash.
            format!("echo '{{\"kind\":\"listening\",\"port\":{port}}}' >&2; sleep 0.2; exit 7")
        } else {
            format!("trap 'exit 0' TERM; sleep 2; echo '{{\"kind\":\"listening\",\"port\":{port}}}' >&2; while :; do sleep 0.05; done")
        };
        shell_spec(script)
    });
    let options = options(
        3,
        Duration::from_millis(300),
        InterruptWait::Grace(INTERRUPT_GRACE),
    );
    let lifecycle = Lifecycle::new(options, launch, events);
    assert_eq!(lifecycle.start("old").await, Ok(2000));
    restarting.notified().await;
    assert_eq!(lifecycle.start("new").await, Ok(2001));
    // Past the restart's boot: it must not have taken the owner's place.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(*lifecycle.serving().borrow(), Some(2001));
    let started = seen
        .lock()
        .map(|s| {
            s.iter()
                .filter_map(|e| match e {
                    SupervisorEvent::Started { index_path, .. } => Some(index_path.clone()),
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    lifecycle.close().await;
    assert_eq!(started, ["old", "new"]);
}

#[tokio::test]
async fn the_owners_start_gives_a_fresh_count_of_restarts() {
    let (lifecycle, seen) = lifecycle(Some("0.05"), 1);
    let gave_up = |n: usize| {
        let seen = Arc::clone(&seen);
        async move {
            let count = || {
                kinds(&seen)
                    .iter()
                    .filter(|k| k.starts_with("gave-up"))
                    .count()
            };
            until(|| count() == n).await;
            assert_eq!(count(), n, "given up on: {:?}", kinds(&seen));
        }
    };
    assert!(lifecycle.start("a").await.is_ok());
    gave_up(1).await;
    // New code from the owner: its crash is restarted once more before it is given up on.
    assert!(lifecycle.start("b").await.is_ok());
    gave_up(2).await;
    let once = [
        "started",
        "exited",
        "restarting 1",
        "started",
        "exited",
        "gave-up 1",
    ];
    assert_eq!(kinds(&seen), [once, once].concat());
}
