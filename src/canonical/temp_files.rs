//! The index writer's temporary file, `<output>.tmp-<pid>-<ms>` as the TypeScript writer names
//! it, and the ones earlier writers left: a writer killed between its write and its rename
//! leaves its file for good, so each write removes those of writers to the same output whose
//! process is gone and that nobody has written to for [`UNTOUCHED_FOR`]. The pid alone cannot
//! tell: a writer in another pid namespace (a container sharing the folder) or on another host
//! has a pid that names no process here, or another one, while it writes; its file changes
//! until its rename, which follows its last write at once.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long a temporary file must have gone unwritten before it counts as left behind.
pub const UNTOUCHED_FOR: Duration = Duration::from_secs(60);

/// `<output>.tmp-<pid>-<millis>`.
pub fn temp_path(output_path: &Path, pid: u32, millis: u128) -> PathBuf {
    let mut tmp = OsString::from(output_path.as_os_str());
    tmp.push(format!(".tmp-{pid}-{millis}"));
    PathBuf::from(tmp)
}

/// The pid in the name of a temporary file of `output_name` (`<output_name>.tmp-<pid>-<ms>`).
fn writer_pid(name: &str, output_name: &str) -> Option<u32> {
    let rest = name.strip_prefix(output_name)?.strip_prefix(".tmp-")?;
    let (pid, millis) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(millis) {
        return None;
    }
    pid.parse().ok()
}

/// Removes the temporary files of `output_path` whose writer is gone (never `own_pid`'s) and
/// that were last written [`UNTOUCHED_FOR`] before `now`; the paths removed. Best effort: what
/// cannot be read or removed stays.
pub fn remove_leftovers(output_path: &Path, own_pid: u32, now: SystemTime) -> Vec<PathBuf> {
    let Some(output_name) = output_path.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    let dir = match output_path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| writer_pid(n, output_name)) else {
            continue;
        };
        if pid == own_pid || !process_gone(pid) {
            continue;
        }
        let untouched = entry
            .metadata()
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| now.duration_since(modified).ok())
            .is_some_and(|age| age >= UNTOUCHED_FOR);
        if !untouched {
            continue;
        }
        let path = entry.path();
        if std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

/// Whether no process has this pid (kill(2) with no signal says ESRCH).
#[cfg(unix)]
fn process_gone(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    let sent = unsafe { libc::kill(pid, 0) };
    sent != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Elsewhere a writer's process cannot be looked up: its file stays.
#[cfg(not(unix))]
fn process_gone(_pid: u32) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_writer_from_the_name_of_its_file() {
        assert_eq!(
            writer_pid("index.json.tmp-42-1790000000123", "index.json"),
            Some(42)
        );
        for other in [
            "index.json",
            "index.json.tmp-42",
            "index.json.tmp--1",
            "index.json.tmp-4x-1",
            "index.json.tmp-42-1.bak",
            "other.json.tmp-42-1",
            "index.json.tmp-99999999999999999999-1",
        ] {
            assert_eq!(writer_pid(other, "index.json"), None, "{other}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn removes_the_files_of_writers_gone_and_keeps_the_others() {
        let dir =
            std::env::temp_dir().join(format!("kindgi-native-{}-leftovers", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let output = dir.join("index.json");
        // A child that has exited and been reaped: its pid is gone.
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("true runs");
        let gone = child.id();
        child.wait().expect("true ends");
        let own = std::process::id();
        let files = [
            temp_path(&output, gone, 1),
            temp_path(&output, own, 2),
            // pid 1 is always alive.
            temp_path(&output, 1, 3),
            dir.join("other.json.tmp-1-1"),
            // Gone here, but written a moment ago: a writer this process cannot see.
            temp_path(&output, gone, 4),
        ];
        for file in &files {
            std::fs::write(file, "{}").expect("a file");
        }
        let written = SystemTime::now();
        let long_ago = written - UNTOUCHED_FOR - Duration::from_secs(1);
        for file in &files[..4] {
            let opened = std::fs::File::options().write(true).open(file);
            let file = opened.expect("the file opens");
            file.set_modified(long_ago).expect("its time is set");
        }
        let removed = remove_leftovers(&output, own, written);
        assert_eq!(removed, vec![files[0].clone()]);
        assert!(files[1..].iter().all(|f| f.exists()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
