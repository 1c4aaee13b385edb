//! Spares: held, released by a start launched alike, killed by any other start, a stop or a
//! close.

use super::*;

/// A lifecycle with `spare`, and every event and line it raises. Its children hold as this
/// package's service does (`heeds_hold`): held, one writes `held <pid>` and waits for a line
/// on stdin. Each listens on [`port_of`] its pid, so a spare's launch is the start's, but
/// for `GENERATION` in its environment, read from the counter given back.
fn spare_lifecycle(
    heeds_hold: bool,
) -> (
    Arc<Lifecycle>,
    Arc<Mutex<Vec<SupervisorEvent>>>,
    Arc<AtomicU16>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&seen);
    let events: EventSink = Arc::new(move |event| {
        into.lock().map(|mut s| s.push(event)).ok();
    });
    let generation = Arc::new(AtomicU16::new(0));
    let read = Arc::clone(&generation);
    let launch: Launch = Arc::new(move |index| {
        let hold = if heeds_hold {
            r#"if [ -n "$KINDGI_PACK_SERVICE_HOLD" ]; then echo "held $$"; read line || exit 0; fi; "#
        } else {
            ""
        };
        let script = format!(
            r#"trap 'exit 0' TERM; {hold}echo "{{\"kind\":\"listening\",\"port\":$(( $$ % 50000 + 10000 ))}}" >&2; while :; do sleep 0.05; done # {index}"#
        );
        let generation = read.load(Ordering::Relaxed).to_string();
        Box::pin(async move {
            Ok(ChildSpec {
                program: "/bin/sh".into(),
                args: vec!["-c".into(), script],
                env: vec![("GENERATION".into(), generation)],
                cwd: None,
            })
        })
    });
    let options = LifecycleOptions {
        spare: true,
        ..options(
            3,
            Duration::from_millis(10),
            InterruptWait::Grace(INTERRUPT_GRACE),
        )
    };
    (Lifecycle::new(options, launch, events), seen, generation)
}

fn port_of(pid: i32) -> u16 {
    u16::try_from(pid % 50000 + 10000).unwrap_or_default()
}

/// Live processes (not zombies) whose command line holds `marker` and whose environment
/// holds the hold: spares, held or released.
fn spares_with(marker: &str) -> Vec<i32> {
    let hold = format!("{}=1", crate::supervisor::child::HOLD_VAR);
    pids_with(marker)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|environ| environ.split(|&b| b == 0).any(|var| var == hold.as_bytes()))
        })
        .collect()
}

/// Live processes (not zombies) whose command line holds `marker`.
fn pids_with(marker: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let status = std::fs::read_to_string(entry.path().join("status")).ok()?;
            let zombie = status
                .lines()
                .any(|l| l.starts_with("State:") && l.contains('Z'));
            (String::from_utf8_lossy(&cmdline).contains(marker) && !zombie).then_some(pid)
        })
        .collect()
}

/// The spare held for `marker` once there is one other than those in `not`, and `lifecycle`
/// holds it (its process shows before the lifecycle stores it, and a start meanwhile would
/// not find it).
async fn new_spare(lifecycle: &Lifecycle, marker: &str, not: &[i32]) -> i32 {
    let found = || {
        spares_with(marker)
            .into_iter()
            .find(|pid| !not.contains(pid))
    };
    until(|| found().is_some()).await;
    let held = || lifecycle.with_state(|state| state.spare.is_some()) == Some(true);
    until(held).await;
    found().expect("a spare is held")
}

/// The events of [`kinds`], lines left out.
fn raised(seen: &Mutex<Vec<SupervisorEvent>>) -> Vec<String> {
    kinds(seen).into_iter().filter(|k| k != "line").collect()
}

fn outputs(seen: &Mutex<Vec<SupervisorEvent>>) -> Vec<String> {
    seen.lock()
        .map(|s| {
            s.iter()
                .filter_map(|e| match e {
                    SupervisorEvent::Output { line, .. } => Some(line.clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_spare_is_held_then_serves_the_next_start_launched_alike() {
    let (lifecycle, seen, _) = spare_lifecycle(true);
    let index = format!("spare-alike-{}", std::process::id());
    let first = lifecycle.start(&index).await.expect("it boots");
    let spare = new_spare(&lifecycle, &index, &[]).await;
    assert_ne!(port_of(spare), first);
    // Held, it has not listened, and what it wrote waits for its release.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(*lifecycle.serving().borrow(), Some(first));
    assert!(!outputs(&seen).contains(&format!("held {spare}")));
    assert_eq!(lifecycle.start(&index).await, Ok(port_of(spare)));
    assert_eq!(*lifecycle.serving().borrow(), Some(port_of(spare)));
    assert!(outputs(&seen).contains(&format!("held {spare}")));
    // The next one is held in its turn.
    let next = new_spare(&lifecycle, &index, &[spare]).await;
    assert_eq!(raised(&seen), ["started", "started"]);
    lifecycle.close().await;
    assert_eq!(
        pids_with(&index),
        Vec::<i32>::new(),
        "nothing outlives close: {next} included"
    );
}

#[tokio::test]
async fn a_start_launched_otherwise_or_fresh_kills_the_spare_and_spawns_anew() {
    let (lifecycle, seen, generation) = spare_lifecycle(true);
    let index = format!("spare-otherwise-{}", std::process::id());
    assert!(lifecycle.start(&index).await.is_ok());
    let spare = new_spare(&lifecycle, &index, &[]).await;
    generation.store(1, Ordering::Relaxed);
    let port = lifecycle.start(&index).await.expect("it boots");
    assert_ne!(port, port_of(spare));
    assert!(!pids_with(&index).contains(&spare), "the spare was killed");
    // Launched alike again, but fresh: the spare held since is not used either.
    let alike = new_spare(&lifecycle, &index, &[spare]).await;
    let port = lifecycle.start_fresh(&index).await.expect("it boots");
    assert_ne!(port, port_of(alike));
    assert!(!pids_with(&index).contains(&alike), "the spare was killed");
    assert_eq!(raised(&seen), ["started", "started", "started"]);
    lifecycle.close().await;
    assert_eq!(pids_with(&index), Vec::<i32>::new());
}

#[tokio::test]
async fn a_spare_that_dies_is_dropped_without_a_word_and_replaced_after_the_next_start() {
    let (lifecycle, seen, _) = spare_lifecycle(true);
    let index = format!("spare-dies-{}", std::process::id());
    assert!(lifecycle.start(&index).await.is_ok());
    let spare = new_spare(&lifecycle, &index, &[]).await;
    // SAFETY: kill(2) only sends a signal, to the spare the test started.
    unsafe {
        libc::kill(spare, libc::SIGKILL);
    }
    until(|| !pids_with(&index).contains(&spare)).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(raised(&seen), ["started"], "no exit, no restart");
    assert_eq!(
        spares_with(&index),
        Vec::<i32>::new(),
        "none made before the next start"
    );
    let port = lifecycle.start(&index).await.expect("it boots");
    assert_ne!(port, port_of(spare));
    new_spare(&lifecycle, &index, &[spare]).await;
    assert_eq!(raised(&seen), ["started", "started"]);
    lifecycle.close().await;
    assert_eq!(pids_with(&index), Vec::<i32>::new());
}

#[tokio::test]
async fn stop_and_begin_close_kill_the_spare() {
    let (lifecycle, _, _) = spare_lifecycle(true);
    let index = format!("spare-stop-{}", std::process::id());
    assert!(lifecycle.start(&index).await.is_ok());
    new_spare(&lifecycle, &index, &[]).await;
    lifecycle.stop().await;
    assert_eq!(
        pids_with(&index),
        Vec::<i32>::new(),
        "stop leaves no child, held or serving"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        spares_with(&index),
        Vec::<i32>::new(),
        "none made after a stop"
    );
    assert!(lifecycle.start(&index).await.is_ok());
    let spare = new_spare(&lifecycle, &index, &[]).await;
    lifecycle.begin_close();
    until(|| !pids_with(&index).contains(&spare)).await;
    assert!(
        !pids_with(&index).contains(&spare),
        "begin_close kills the spare"
    );
    lifecycle.close().await;
    assert_eq!(pids_with(&index), Vec::<i32>::new());
}

/// A command that does not know the hold boots at once, on the index as it was: its spare
/// is never released, and none follows.
#[tokio::test]
async fn a_spare_that_listens_while_held_is_not_used_and_none_follows() {
    let (lifecycle, seen, _) = spare_lifecycle(false);
    let index = format!("spare-deaf-{}", std::process::id());
    assert!(lifecycle.start(&index).await.is_ok());
    let spare = new_spare(&lifecycle, &index, &[]).await;
    // Given time to write `listening` (it does so first thing) and be read.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let port = lifecycle.start(&index).await.expect("it boots");
    assert_ne!(port, port_of(spare));
    assert!(!pids_with(&index).contains(&spare), "the spare was killed");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(spares_with(&index), Vec::<i32>::new(), "no spare follows");
    assert_eq!(raised(&seen), ["started", "started"]);
    lifecycle.close().await;
}

#[tokio::test]
async fn without_spare_no_child_is_held() {
    let (lifecycle, _) = lifecycle(None, 3);
    let index = format!("no-spare-{}", std::process::id());
    assert!(lifecycle.start(&index).await.is_ok());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(pids_with(&index).len(), 1);
    lifecycle.close().await;
}
