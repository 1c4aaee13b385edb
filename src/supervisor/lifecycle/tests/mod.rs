//! The lifecycle with real shell children: a fake service that writes `listening` on a port of
//! the test's choosing. Starts, swaps, stops and closes here; crashes and restarts in
//! `recovery`, spares in `spare`.

use super::*;
use std::sync::atomic::{AtomicU16, Ordering};

mod recovery;
mod spare;

/// Shell children that listen on a new fake port each start; `crash_after` makes each one
/// exit that long after listening.
fn lifecycle(
    crash_after: Option<&str>,
    max_restarts: u32,
) -> (Arc<Lifecycle>, Arc<Mutex<Vec<SupervisorEvent>>>) {
    lifecycle_waiting(
        crash_after,
        max_restarts,
        InterruptWait::Grace(INTERRUPT_GRACE),
    )
}

/// A child that runs `script` in `/bin/sh` with an empty environment.
fn shell_spec(script: String) -> Pin<Box<dyn Future<Output = Result<ChildSpec, String>> + Send>> {
    Box::pin(async move {
        Ok(ChildSpec {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script],
            env: vec![],
            cwd: None,
        })
    })
}

fn options(
    max_restarts: u32,
    restart_delay: Duration,
    interrupt_wait: InterruptWait,
) -> LifecycleOptions {
    LifecycleOptions {
        boot_timeout: Duration::from_secs(10),
        stop_grace: Duration::from_secs(2),
        max_restarts,
        restart_delay,
        interrupt_wait,
        backlog: Arc::default(),
        spare: false,
    }
}

fn lifecycle_waiting(
    crash_after: Option<&str>,
    max_restarts: u32,
    interrupt_wait: InterruptWait,
) -> (Arc<Lifecycle>, Arc<Mutex<Vec<SupervisorEvent>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&seen);
    let events: EventSink = Arc::new(move |event| {
        if !matches!(
            event,
            SupervisorEvent::Output { .. } | SupervisorEvent::Log { .. }
        ) {
            into.lock().map(|mut s| s.push(event)).ok();
        }
    });
    let next = Arc::new(AtomicU16::new(1000));
    let tail = match crash_after {
        Some(after) => format!("sleep {after}; exit 7"),
        None => "while :; do sleep 0.05; done".into(),
    };
    let launch: Launch = Arc::new(move |index| {
        let port = next.fetch_add(1, Ordering::Relaxed);
        let script = if let Some(marker) = index.strip_prefix("slow:") {
            // Listens only after a while; the marker names it among the processes.
            // (Short sleeps: a killed shell's last one outlives it, holding its pipes.)
            format!("i=0; while [ $i -lt 40 ]; do sleep 0.05; i=$((i+1)); done; echo '{{\"kind\":\"listening\",\"port\":{port}}}' >&2; {tail} # {marker}")
        } else if index == "broken" {
            "echo '{\"kind\":\"boot-failed\",\"problems\":[\"Missing module: a.mjs\"]}' >&2; exit 1"
                .to_owned()
        } else {
            // The trap is set before `listening`: a retire may come the moment it is read.
            // The index names the child among the processes.
            format!("trap 'exit 0' TERM; echo '{{\"kind\":\"listening\",\"port\":{port}}}' >&2; {tail} # {index}")
        };
        shell_spec(script)
    });
    let options = options(max_restarts, Duration::from_millis(10), interrupt_wait);
    (Lifecycle::new(options, launch, events), seen)
}

fn kinds(seen: &Mutex<Vec<SupervisorEvent>>) -> Vec<String> {
    seen.lock()
        .map(|s| {
            s.iter()
                .map(|e| match e {
                    SupervisorEvent::Started { .. } => "started".to_owned(),
                    SupervisorEvent::BootFailed { .. } => "boot-failed".into(),
                    SupervisorEvent::Exited(_) => "exited".into(),
                    SupervisorEvent::Restarting { attempt } => format!("restarting {attempt}"),
                    SupervisorEvent::GaveUp { attempts } => format!("gave-up {attempts}"),
                    SupervisorEvent::Interrupted { .. } => "interrupted".into(),
                    _ => "line".into(),
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn swaps_children_and_keeps_the_old_one_when_a_boot_fails() {
    let (lifecycle, seen) = lifecycle(None, 3);
    let serving = lifecycle.serving();
    assert_eq!(lifecycle.start("a").await, Ok(1000));
    assert_eq!(lifecycle.start("b").await, Ok(1001));
    assert_eq!(
        lifecycle.start("broken").await,
        Err(vec!["Missing module: a.mjs".to_owned()])
    );
    assert_eq!(*serving.borrow(), Some(1001));
    lifecycle.close().await;
    assert_eq!(*serving.borrow(), None);
    assert_eq!(
        lifecycle.start("c").await,
        Err(vec!["The pack service is closing".to_owned()])
    );
    assert_eq!(kinds(&seen), ["started", "started", "boot-failed"]);
}

/// Waits (up to 10 s) until `condition` holds; the caller asserts what it needs after.
async fn until(condition: impl Fn() -> bool) {
    for _ in 0..1000 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The pid of a live process whose command line holds `marker`.
fn pid_with(marker: &str) -> Option<i32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .find(|entry| {
            std::fs::read(entry.path().join("cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
        })
        .and_then(|entry| entry.file_name().to_str()?.parse().ok())
}

fn alive_with(marker: &str) -> bool {
    pid_with(marker).is_some()
}

#[tokio::test]
async fn close_kills_a_child_still_booting_and_waits_for_it() {
    let (lifecycle, seen) = lifecycle(None, 3);
    // No other test's marker holds this one (`stopped-booting-…` holds `booting-…`).
    let marker = format!("closed-while-booting-{}", std::process::id());
    let index = format!("slow:{marker}");
    let (started, ()) = tokio::join!(lifecycle.start(&index), async {
        // Until the child runs, then close while it has not listened yet.
        until(|| alive_with(&marker)).await;
        lifecycle.close().await;
        // close() returned: the booting child is gone already.
        assert!(!alive_with(&marker));
    });
    assert_eq!(started, Err(vec![CLOSING.to_owned()]));
    assert_eq!(*lifecycle.serving().borrow(), None);
    assert_eq!(kinds(&seen), Vec::<String>::new());
}

#[tokio::test]
async fn an_owners_start_stopped_while_it_boots_fails_and_says_so() {
    let (lifecycle, seen) = lifecycle(None, 3);
    let marker = format!("stopped-booting-{}", std::process::id());
    let index = format!("slow:{marker}");
    let (started, ()) = tokio::join!(lifecycle.start(&index), async {
        until(|| alive_with(&marker)).await;
        lifecycle.stop().await;
    });
    assert_eq!(started, Err(vec![STOPPED.to_owned()]));
    assert!(!alive_with(&marker), "its child was retired");
    assert_eq!(*lifecycle.serving().borrow(), None);
    assert_eq!(kinds(&seen), ["boot-failed"]);
    lifecycle.close().await;
}
