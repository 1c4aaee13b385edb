//! The child's whole life with real processes: boot, lines, retirement, holds and the
//! processes a wrapper leaves behind.

use super::*;
use crate::supervisor::lines::service_event;
use std::future::pending;
use std::time::Instant;

fn shell(script: &str) -> ChildSpec {
    ChildSpec {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        env: vec![("ONLY".into(), "this".into())],
        cwd: None,
    }
}

fn collect() -> (LineSink, Arc<Mutex<Vec<ChildLine>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&seen);
    let sink: LineSink = Arc::new(move |line| {
        into.lock().map(|mut s| s.push(line)).ok();
    });
    (sink, seen)
}

/// Boots `script`, which must listen, and the lines it writes.
async fn listening(script: &str) -> (Child, Arc<Mutex<Vec<ChildLine>>>) {
    let (sink, seen) = collect();
    let child = boot(
        &shell(script),
        Duration::from_secs(10),
        sink,
        Arc::default(),
        pending(),
    )
    .await
    .expect("it listens");
    (child, seen)
}

/// The lines seen so far.
fn lines(seen: &Mutex<Vec<ChildLine>>) -> Vec<ChildLine> {
    seen.lock().map(|s| s.clone()).unwrap_or_default()
}

#[tokio::test]
async fn boots_on_listening_and_retires_with_sigterm() {
    let (child, seen) = listening(
        // The trap is set before `listening`: a SIGTERM may come the moment it is read.
        r#"trap 'exit 0' TERM; echo "env $ONLY ${HOME:-none}"; echo '{"kind":"call","id":"x"}' >&2; echo plain >&2; echo '{"kind":"listening","port":4321}' >&2; while :; do sleep 0.05; done"#,
    )
    .await;
    assert_eq!(child.port, 4321);
    let ended = child.retire(Duration::from_secs(5)).await;
    assert_eq!(
        ended,
        ChildExit {
            code: Some(0),
            signal: None
        }
    );
    let seen = lines(&seen);
    // Exactly the given environment: no HOME from this process.
    assert!(seen.contains(&ChildLine::Output {
        line: "env this none".into(),
        stderr: false
    }));
    assert!(seen.contains(&ChildLine::Output {
        line: "plain".into(),
        stderr: true
    }));
    assert!(seen.iter().any(
        |l| matches!(l, ChildLine::Event { line } if service_event(line)
            .is_some_and(|event| event["kind"] == "call"))
    ));
}

#[tokio::test]
async fn a_child_that_ignores_sigterm_is_killed_after_the_grace() {
    let (child, _) = listening(
        r#"trap '' TERM; echo '{"kind":"listening","port":1}' >&2; while :; do sleep 0.05; done"#,
    )
    .await;
    let ended = child.retire(Duration::from_millis(200)).await;
    assert_eq!(ended.signal.as_deref(), Some("SIGKILL"));
}

#[tokio::test]
async fn a_child_that_writes_bytes_that_are_not_utf8_still_boots() {
    let (child, seen) = listening(
        r#"trap 'exit 0' TERM; printf 'caf\351\n' >&2; echo '{"kind":"listening","port":4322}' >&2; while :; do sleep 0.05; done"#,
    )
    .await;
    assert_eq!(child.port, 4322);
    child.retire(Duration::from_secs(5)).await;
    assert!(lines(&seen)
        .iter()
        .any(|l| matches!(l, ChildLine::Output { line, stderr: true } if line == "caf\u{fffd}")));
}

/// Whether `pid` names a process that has not exited (a zombie has).
#[cfg(target_os = "linux")]
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            let state = s.lines().find(|l| l.starts_with("State:"))?;
            state.split_whitespace().nth(1).map(|s| s != "Z")
        })
        .unwrap_or(false)
}

/// The pids a script wrote on stdout, one per line, once there are `count` of them.
#[cfg(target_os = "linux")]
async fn pids(seen: &Mutex<Vec<ChildLine>>, count: usize) -> Vec<i32> {
    let read = || {
        lines(seen)
            .iter()
            .filter_map(|l| match l {
                ChildLine::Output {
                    line,
                    stderr: false,
                } => line.parse().ok(),
                _ => None,
            })
            .collect::<Vec<i32>>()
    };
    tokio::time::timeout(Duration::from_secs(10), async {
        while read().len() < count {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the script says its pids");
    read()
}

/// Those of `pids` still running; every one of them is SIGKILLed, so a test leaves nothing.
#[cfg(target_os = "linux")]
fn still_running(pids: &[i32]) -> Vec<i32> {
    let running = pids.iter().copied().filter(|&p| running(p)).collect();
    for &pid in pids {
        // SAFETY: kill(2) only sends a signal.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    running
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_wrapper_s_service_is_retired_with_it_before_its_exit_is_reported() {
    // A wrapper script: it exits on SIGTERM without passing it on, leaving a process that
    // holds its stdout and stderr and notes its own SIGTERM in a file.
    let noted = std::env::temp_dir().join(format!(
        "kindgi-child-term-{}-{:?}",
        std::process::id(),
        Instant::now()
    ));
    let (child, seen) = listening(&format!(
        r#"trap 'exit 0' TERM; (trap 'echo term > "{}"; exit 0' TERM; while :; do sleep 0.05; done) & echo "$!"; echo '{{"kind":"listening","port":4323}}' >&2; while :; do sleep 0.05; done"#,
        noted.display()
    ))
    .await;
    let left = pids(&seen, 1).await;
    // The exit report waits for the pipes: the process left behind must have been told
    // to go before the report, not 500 ms after it, once the wait for the pipes gave up.
    let reported = {
        let exit = child.exit.clone();
        let noted = noted.clone();
        tokio::spawn(async move {
            let mut exit = exit;
            let _ = exit.wait_for(Option::is_some).await;
            noted.exists()
        })
    };
    let ended = tokio::time::timeout(
        Duration::from_secs(20),
        child.retire(Duration::from_secs(5)),
    )
    .await
    .expect("the retirement ends");
    let noted_at_report = reported.await.expect("the watcher ends");
    let _ = std::fs::remove_file(&noted);
    assert_eq!(
        still_running(&left),
        Vec::<i32>::new(),
        "the process it left is gone"
    );
    assert_eq!(ended.code, Some(0));
    assert!(
        noted_at_report,
        "it had its SIGTERM before the exit was reported"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn what_a_wrapper_left_that_ignores_sigterm_is_killed_at_the_grace() {
    // The subshell and its sleep both ignore SIGTERM; the wrapper itself ends on it.
    let (child, seen) = listening(
        r#"trap 'exit 0' TERM; (trap '' TERM; sleep 300 & echo "$!"; wait) & echo "$!"; echo '{"kind":"listening","port":4324}' >&2; while :; do sleep 0.05; done"#,
    )
    .await;
    let left = pids(&seen, 2).await;
    let began = Instant::now();
    child.retire(Duration::from_millis(700)).await;
    let took = began.elapsed();
    assert_eq!(still_running(&left), Vec::<i32>::new(), "both were killed");
    assert!(
        took >= Duration::from_millis(600),
        "they were given the grace: {took:?}"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_child_killed_at_its_boot_timeout_takes_what_it_started_along() {
    let (sink, seen) = collect();
    let failed = boot(
        &shell(r#"sleep 300 & echo "$!"; wait"#),
        Duration::from_secs(1),
        sink,
        Arc::default(),
        pending(),
    )
    .await;
    let left = pids(&seen, 1).await;
    assert!(failed.is_err());
    assert_eq!(
        still_running(&left),
        Vec::<i32>::new(),
        "the sleep was killed with the script"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_child_that_exits_while_what_it_started_holds_its_pipes_is_seen_to_exit() {
    // A crash, not a retirement: nobody signals anything, and the exit is still reported.
    let (child, seen) = listening(
        r#"sleep 300 & echo "$!"; echo '{"kind":"listening","port":4325}' >&2; sleep 0.2; exit 3"#,
    )
    .await;
    let left = pids(&seen, 1).await;
    let ended = tokio::time::timeout(Duration::from_secs(10), child.exited()).await;
    still_running(&left);
    assert_eq!(ended.expect("the exit is reported").code, Some(3));
}

#[test]
fn launches_alike_compares_the_environment_in_any_order() {
    let spec = |env: &[(&str, &str)]| ChildSpec {
        env: env
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect(),
        ..shell("true")
    };
    assert!(spec(&[("A", "1"), ("B", "2")]).launches_alike(&spec(&[("B", "2"), ("A", "1")])));
    assert!(!spec(&[("A", "1")]).launches_alike(&spec(&[("A", "2")])));
    assert!(!spec(&[("A", "1")]).launches_alike(&spec(&[("A", "1"), ("B", "2")])));
    let other_args = ChildSpec {
        args: vec!["-c".into(), "false".into()],
        ..spec(&[])
    };
    assert!(!spec(&[]).launches_alike(&other_args));
    let other_folder = ChildSpec {
        cwd: Some("/".into()),
        ..spec(&[])
    };
    assert!(!spec(&[]).launches_alike(&other_folder));
}

/// A held child that writes past [`HELD_BYTES`] before it reads its release: nothing is
/// passed on until the release, then every line in order, and it boots.
#[tokio::test]
async fn a_held_child_says_nothing_until_its_release_then_everything_in_order() {
    let (sink, seen) = collect();
    let spec = ChildSpec {
        env: vec![("PAD".into(), "x".repeat(500))],
        ..shell(
            r#"trap 'exit 0' TERM; [ "$KINDGI_PACK_SERVICE_HOLD" = 1 ] || exit 9; i=0; while [ $i -lt 3000 ]; do echo "$i $PAD"; i=$((i+1)); done; read line || exit 0; echo '{"kind":"listening","port":4330}' >&2; while :; do sleep 0.05; done"#,
        )
    };
    let mut held = spawn(&spec, true, sink, Arc::default())
        .await
        .expect("it spawns");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(lines(&seen), Vec::<ChildLine>::new(), "nothing while held");
    assert!(held.heeds_hold());
    assert!(held.release().await);
    assert!(!held.release().await, "released once");
    let child = held
        .listening(Duration::from_secs(20), pending())
        .await
        .expect("it listens once released");
    assert_eq!(child.port, 4330);
    child.retire(Duration::from_secs(5)).await;
    let numbers: Vec<usize> = lines(&seen)
        .iter()
        .filter_map(|l| match l {
            ChildLine::Output { line, .. } => line.split(' ').next()?.parse().ok(),
            ChildLine::Event { .. } => None,
        })
        .collect();
    assert_eq!(numbers, (0..3000).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_held_child_that_listens_does_not_heed_the_hold() {
    let (sink, seen) = collect();
    let spec = shell(
        r#"trap 'exit 0' TERM; echo '{"kind":"listening","port":4331}' >&2; while :; do sleep 0.05; done"#,
    );
    let held = spawn(&spec, true, sink, Arc::default())
        .await
        .expect("it spawns");
    for _ in 0..500 {
        if !held.heeds_hold() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!held.heeds_hold());
    let gone = held.gone();
    held.kill().await;
    gone.await;
    assert_eq!(
        lines(&seen),
        Vec::<ChildLine>::new(),
        "a killed spare's lines go nowhere"
    );
}

#[tokio::test]
async fn a_held_child_that_is_gone_cannot_be_released() {
    let (sink, _) = collect();
    let mut held = spawn(&shell("exit 0"), true, sink, Arc::default())
        .await
        .expect("it spawns");
    held.gone().await;
    assert!(!held.release().await);
    // Stdin closed before any line (the supervisor let it go): no listening, no hang.
    let (sink, _) = collect();
    let mut waiting = spawn(
        &shell(r#"read line || exit 0; echo '{"kind":"listening","port":4332}' >&2"#),
        true,
        sink,
        Arc::default(),
    )
    .await
    .expect("it spawns");
    drop(waiting.stdin.take());
    let ended = tokio::time::timeout(
        Duration::from_secs(10),
        waiting.listening(Duration::from_secs(10), pending()),
    )
    .await;
    assert_eq!(
        ended.expect("it ends").err(),
        Some(vec![
            "The pack service exited (0) before listening".to_owned()
        ])
    );
}

#[tokio::test]
async fn boot_failures_say_why() {
    let (sink, _) = collect();
    let problems = |spec: ChildSpec, timeout: Duration| {
        let sink = Arc::clone(&sink);
        async move {
            boot(&spec, timeout, sink, Arc::default(), pending())
                .await
                .err()
        }
    };
    let ten_s = Duration::from_secs(10);
    assert_eq!(
        problems(shell(r#"echo '{"time":"t","level":"error","subsystem":"pack","message":"m","problems":["Missing module: a.mjs",2],"event":"boot-failed"}' >&2; exit 1"#), ten_s).await,
        Some(vec!["Missing module: a.mjs".into(), "2".into()])
    );
    assert_eq!(
        problems(shell("exit 3"), ten_s).await,
        Some(vec!["The pack service exited (3) before listening".into()])
    );
    assert_eq!(
        problems(shell("sleep 5"), Duration::from_millis(100)).await,
        Some(vec!["The pack service did not listen within 100 ms".into()])
    );
    // A program that cannot start, in the words of Node's spawn.
    let missing = ChildSpec {
        program: "/no/such/program".into(),
        ..ChildSpec::default()
    };
    assert_eq!(
        problems(missing, ten_s).await,
        Some(vec!["spawn /no/such/program ENOENT".into()])
    );
    // Cancelled (the supervisor closing): killed, and gone before the answer.
    let (pid_tx, pid_rx) = oneshot::channel();
    let pid_sink: LineSink = Arc::new({
        let pid_tx = Mutex::new(Some(pid_tx));
        move |line| {
            if let ChildLine::Output { line, .. } = line {
                if let Some(tx) = pid_tx.lock().ok().and_then(|mut t| t.take()) {
                    let _ = tx.send(line);
                }
            }
        }
    });
    let cancelled = boot(
        &shell("echo $$; exec sleep 30"),
        Duration::from_secs(60),
        pid_sink,
        Arc::default(),
        async {
            tokio::time::sleep(Duration::from_millis(100)).await;
        },
    )
    .await;
    assert_eq!(cancelled.err(), Some(vec![CLOSING.to_owned()]));
    let pid = pid_rx.await.expect("the child said its pid");
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
}

#[test]
fn a_child_with_workers_is_stalled_only_while_every_thread_is_held() {
    let mut held = HeldThreads::default();
    let record = |thread: u64| {
        let mut map = serde_json::Map::new();
        map.insert("thread".into(), thread.into());
        map.insert("threads".into(), 2.into());
        map
    };
    assert!(!held.note(true, &record(1)));
    assert!(held.note(true, &record(0)));
    assert!(!held.note(false, &record(1)));
    assert!(!held.note(false, &record(0)));
    // One thread: its records name none, and each says it all.
    let single = serde_json::Map::new();
    assert!(held.note(true, &single));
    assert!(!held.note(false, &single));
}
