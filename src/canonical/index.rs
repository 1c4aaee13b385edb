//! `writeIndex`: the index's lists sorted by id, `artifactVersion` and `publishedAt` filled in,
//! the canonical text written to a temporary file beside the output and renamed into place.

use super::temp_files::{remove_leftovers, temp_path};
use super::{canonical_object_text, iso_utc_millis, utc_yyyymmdd, Part};
use crate::ids::index_hash_of;
use crate::json::{with_tape, write_js_number, JsonKey, JsonStr, ParseError, Tape, Token};
use std::fmt;
use std::io::{self, IoSlice, Write as _};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The four lists the index keeps sorted by `id`.
pub const SORTED_LISTS: [&str; 4] = ["tools", "guardrails", "agents", "flows"];

pub struct IndexWriteRequest<'a> {
    /// The index as JSON text (what `JSON.stringify` gives for it).
    pub text: &'a str,
    pub output_path: &'a Path,
    /// Pinned by the caller; else the index's own; else `YYYYMMDD.N`.
    pub artifact_version: Option<String>,
    /// Pinned by the caller; else the index's own; else `now`.
    pub published_at: Option<String>,
    pub now: SystemTime,
    /// Names the temporary file, with `now`.
    pub pid: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexWritten {
    pub artifact_version: String,
    pub published_at: String,
    pub index_hash: String,
    pub bytes: usize,
}

#[derive(Debug)]
pub enum IndexWriteError {
    /// The index is not a JSON object.
    NotAnObject,
    /// The text is not JSON, or is nested too deep.
    Parse(ParseError),
    /// Items were handed in pieces for a member that is not one of the sorted lists.
    NotASortedList(String),
    /// A file system step failed; nothing was left at the temporary path.
    Output {
        output_path: PathBuf,
        failure: FsFailure,
    },
}

impl fmt::Display for IndexWriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexWriteError::NotAnObject => write!(f, "the index must be a JSON object"),
            IndexWriteError::Parse(error) => write!(f, "the index is {error}"),
            IndexWriteError::NotASortedList(key) => {
                write!(f, "{key:?} is not one of the lists the index keeps sorted")
            }
            IndexWriteError::Output {
                output_path,
                failure,
            } => {
                write!(f, "Failed to write {}: {failure}", output_path.display())
            }
        }
    }
}

impl std::error::Error for IndexWriteError {}

/// One failed file system call, written as Node's `fs` writes its errors
/// (`Error: ENOTDIR: not a directory, mkdir '/a/b'`), so messages read as the TypeScript ones do.
#[derive(Debug)]
pub struct FsFailure {
    pub syscall: &'static str,
    pub path: PathBuf,
    pub dest: Option<PathBuf>,
    pub cause: io::Error,
}

impl fmt::Display for FsFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Error: {}",
            node_fs_message(&self.cause, self.syscall, &self.path)
        )?;
        if let Some(dest) = &self.dest {
            if node_errno(&self.cause).is_some() {
                write!(f, " -> '{}'", dest.display())?;
            }
        }
        Ok(())
    }
}

/// An `fs` failure's message as Node words it (`ENOENT: no such file or directory, open
/// '/a/b'`), or the error's own text for one libuv names otherwise.
pub fn node_fs_message(error: &io::Error, syscall: &str, path: &Path) -> String {
    match node_errno(error) {
        Some((code, description)) => {
            format!("{code}: {description}, {syscall} '{}'", path.display())
        }
        None => error.to_string(),
    }
}

/// libuv's name and text for the errors a write can meet.
fn node_errno(error: &io::Error) -> Option<(&'static str, &'static str)> {
    use io::ErrorKind::*;
    Some(match error.kind() {
        NotFound => ("ENOENT", "no such file or directory"),
        PermissionDenied if cfg!(unix) && error.raw_os_error() == Some(1) => {
            ("EPERM", "operation not permitted")
        }
        PermissionDenied => ("EACCES", "permission denied"),
        NotADirectory => ("ENOTDIR", "not a directory"),
        IsADirectory => ("EISDIR", "illegal operation on a directory"),
        AlreadyExists => ("EEXIST", "file already exists"),
        StorageFull => ("ENOSPC", "no space left on device"),
        FileTooLarge => ("EFBIG", "file too large"),
        ReadOnlyFilesystem => ("EROFS", "read-only file system"),
        CrossesDevices => ("EXDEV", "cross-device link not permitted"),
        InvalidFilename => ("ENAMETOOLONG", "name too long"),
        ResourceBusy => ("EBUSY", "resource busy or locked"),
        DirectoryNotEmpty => ("ENOTEMPTY", "directory not empty"),
        _ => return None,
    })
}

/// Writes the index and says what was written.
pub fn write_index(request: IndexWriteRequest<'_>) -> Result<IndexWritten, IndexWriteError> {
    let text = request.text;
    with_tape(text, |index| {
        if !matches!(index.token(Tape::ROOT), Token::Object { .. }) {
            return Err(IndexWriteError::NotAnObject);
        }
        let members = index
            .members(Tape::ROOT)
            .map(|(key, value)| (key, Part::Value(value)))
            .collect();
        // Two-space indentation roughly doubles a compact document.
        write_members(&index, members, request, text.len() * 2 + 16)
    })
    .map_err(IndexWriteError::Parse)?
}

/// Writes the index made of `members` (values from `index`, the tape of `request.text`): the
/// lists given as tape values sorted, the versions filled in. `capacity` is room for the text.
pub(super) fn write_members<'t>(
    index: &Tape<'t>,
    members: Vec<(JsonKey<'t>, Part<'_>)>,
    request: IndexWriteRequest<'_>,
    capacity: usize,
) -> Result<IndexWritten, IndexWriteError> {
    // Rebound so that its parts may borrow the versions made below.
    let mut members: Vec<(JsonKey<'t>, Part<'_>)> = members;
    for list in SORTED_LISTS {
        sort_by_id(index, &mut members, list);
    }
    let artifact_version = match request
        .artifact_version
        .or_else(|| own_string(index, "artifactVersion"))
    {
        Some(pinned) => pinned,
        None => next_artifact_version(request.output_path, request.now),
    };
    let published_at = request
        .published_at
        .or_else(|| own_string(index, "publishedAt"))
        .unwrap_or_else(|| iso_utc_millis(request.now));
    set_string(&mut members, "artifactVersion", &artifact_version);
    set_string(&mut members, "publishedAt", &published_at);

    let text = canonical_object_text(index, &members, capacity);
    let millis = request
        .now
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    let bytes = text.len();
    let pieces: Vec<&[u8]> = text.pieces().into_iter().map(str::as_bytes).collect();
    let (written, index_hash) = write_and_hash(request.output_path, &pieces, request.pid, millis);
    written.map_err(|failure| IndexWriteError::Output {
        output_path: request.output_path.to_path_buf(),
        failure,
    })?;
    Ok(IndexWritten {
        artifact_version,
        published_at,
        index_hash,
        bytes,
    })
}

/// Writes the bytes of `pieces`, one after another, to `output_path` and hashes them, the two
/// at once: they take about as long, and the hash of a failed write is simply not used.
fn write_and_hash(
    output_path: &Path,
    pieces: &[&[u8]],
    pid: u32,
    millis: u128,
) -> (Result<(), FsFailure>, String) {
    std::thread::scope(|scope| {
        let hashing = std::thread::Builder::new()
            .name("kindgi-index-hash".into())
            .spawn_scoped(scope, || index_hash_of(pieces));
        let written = write_atomically(output_path, pieces, pid, millis);
        // Without a thread (none could be started, or it ended early) the hash is made here.
        let hash = hashing
            .ok()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_else(|| index_hash_of(pieces));
        (written, hash)
    })
}

/// The top-level string member `key`, decoded.
fn own_string(index: &Tape<'_>, key: &str) -> Option<String> {
    let at = index.get(Tape::ROOT, key)?;
    index
        .string_units(at)
        .map(|units| String::from_utf16_lossy(&units))
}

/// Replaces every `key` member with one string member (the writer sorts keys anyway).
fn set_string<'t>(members: &mut Vec<(JsonKey<'_>, Part<'t>)>, key: &'static str, value: &'t str) {
    members.retain(|(k, _)| !k.is(key));
    members.push((
        JsonStr {
            raw: key,
            escaped: false,
        },
        Part::Text(value),
    ));
}

/// Sorts the list `key` by its items' `id`, stably, by UTF-16 code units (the TypeScript
/// indexer's `a.id < b.id`). A list with an item that has no string `id` is left as it is:
/// JavaScript's comparisons with `undefined` give no consistent order to reproduce.
fn sort_by_id(index: &Tape<'_>, members: &mut [(JsonKey<'_>, Part<'_>)], key: &str) {
    // The member JSON.parse keeps: the last duplicate.
    let Some((_, part)) = members.iter_mut().rev().find(|(k, _)| k.is(key)) else {
        return;
    };
    let Part::Value(list) = *part else { return };
    if !matches!(index.token(list), Token::Array { .. }) {
        return;
    }
    let keyed: Option<Vec<(Vec<u16>, usize)>> = index
        .items(list)
        .map(|item| {
            let id = index.get(item, "id")?;
            Some((index.string_units(id)?, item))
        })
        .collect();
    let Some(mut keyed) = keyed else { return };
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    *part = Part::Items(keyed.into_iter().map(|(_, item)| item).collect());
}

/// `YYYYMMDD.N` for today (UTC): N is one more than the number of the index already at
/// `output_path` when that one is from today, else 1. An unreadable file counts as none.
fn next_artifact_version(output_path: &Path, now: SystemTime) -> String {
    let today = utc_yyyymmdd(now);
    let previous = std::fs::read(output_path)
        .ok()
        .and_then(|bytes| {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            with_tape(&text, |tape| own_string(&tape, "artifactVersion"))
                .ok()
                .flatten()
        })
        .and_then(|version| previous_number(&version, &today));
    let mut out = format!("{today}.");
    write_js_number(&mut out, previous.map_or(1.0, |n| n + 1.0));
    out
}

/// N of `YYYYMMDD.N` when the date is `today`, read as `Number.parseInt` would.
fn previous_number(version: &str, today: &str) -> Option<f64> {
    let (day, n) = version.split_once('.')?;
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if day.len() != 8 || !all_digits(day) || !all_digits(n) || day != today {
        return None;
    }
    // Digits past the double range read as Infinity, which `Number.isFinite` refuses.
    n.parse::<f64>().ok().filter(|n| n.is_finite())
}

fn write_atomically(
    output_path: &Path,
    pieces: &[&[u8]],
    pid: u32,
    millis: u128,
) -> Result<(), FsFailure> {
    let fail = |syscall, path: &Path, dest: Option<&Path>, cause| FsFailure {
        syscall,
        path: path.to_path_buf(),
        dest: dest.map(Path::to_path_buf),
        cause,
    };
    if let Some(dir) = output_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| fail("mkdir", dir, None, e))?;
    }
    // Before this write, so that the space they hold is free for it.
    remove_leftovers(output_path, pid, SystemTime::now());
    let tmp = temp_path(output_path, pid, millis);
    let result = write_file(&tmp, pieces)
        .map_err(|(syscall, e)| fail(syscall, &tmp, None, e))
        .and_then(|()| {
            std::fs::rename(&tmp, output_path)
                .map_err(|e| fail("rename", &tmp, Some(output_path), e))
        });
    if result.is_err() {
        // Best effort: the write error is what the caller needs.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `std::fs::write` of the bytes of `pieces`, a system call for many pieces at once; a failure
/// names its call as Node's `fs` does (`open` or `write`).
fn write_file(path: &Path, pieces: &[&[u8]]) -> Result<(), (&'static str, io::Error)> {
    // The most buffers one `writev` takes on Linux (`IOV_MAX`).
    const MOST: usize = 1024;
    let mut file = std::fs::File::create(path).map_err(|e| ("open", e))?;
    for group in pieces.chunks(MOST) {
        let mut slices: Vec<IoSlice<'_>> = group.iter().map(|p| IoSlice::new(p)).collect();
        let mut slices = &mut slices[..];
        IoSlice::advance_slices(&mut slices, 0);
        while !slices.is_empty() {
            match file.write_vectored(slices) {
                Ok(0) => return Err(("write", io::ErrorKind::WriteZero.into())),
                Ok(n) => IoSlice::advance_slices(&mut slices, n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(("write", e)),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::index_hash;
    use std::time::Duration;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kindgi-native-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn request<'a>(text: &'a str, path: &'a Path, now: SystemTime) -> IndexWriteRequest<'a> {
        IndexWriteRequest {
            text,
            output_path: path,
            artifact_version: None,
            published_at: None,
            now,
            pid: 7,
        }
    }

    // 2026-09-21T14:13:20.123Z
    fn day_one() -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(1_790_000_000_123)
    }

    #[test]
    fn a_previous_number_past_the_double_range_starts_the_day_over() {
        let huge = format!("20260921.2{}", "0".repeat(308));
        assert_eq!(previous_number(&huge, "20260921"), None);
        assert_eq!(previous_number("20260921.7", "20260921"), Some(7.0));
        let long = format!("20260921.{}", "9".repeat(25));
        assert_eq!(previous_number(&long, "20260921"), Some(1e25));
    }

    #[test]
    fn sorts_lists_fills_versions_and_counts_up() {
        let dir = scratch("count");
        let path = dir.join("nested").join("index.json");
        let text = r#"{"v":1,"tools":[{"id":"b"},{"id":"a","n":1},{"id":"a","n":2}],"guardrails":[],"agents":[],"flows":[]}"#;
        let first = write_index(request(text, &path, day_one())).unwrap();
        assert_eq!(first.artifact_version, "20260921.1");
        assert_eq!(first.published_at, "2026-09-21T14:13:20.123Z");
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(first.bytes, written.len());
        assert_eq!(first.index_hash, index_hash(written.as_bytes()));
        let order: Vec<usize> = ["\"b\"", "\"n\": 1", "\"n\": 2"]
            .iter()
            .map(|s| written.find(s).unwrap())
            .collect();
        assert!(order[1] < order[2] && order[2] < order[0], "{written}");

        let second = write_index(request(text, &path, day_one())).unwrap();
        assert_eq!(second.artifact_version, "20260921.2");
        let next_day = day_one() + Duration::from_secs(86_400);
        assert_eq!(
            write_index(request(text, &path, next_day))
                .unwrap()
                .artifact_version,
            "20260922.1"
        );
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "a temporary file was left behind");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pinned_and_own_versions_win() {
        let dir = scratch("pinned");
        let path = dir.join("index.json");
        let text = r#"{"artifactVersion":"own-1","publishedAt":"then"}"#;
        let own = write_index(request(text, &path, day_one())).unwrap();
        assert_eq!(
            (own.artifact_version.as_str(), own.published_at.as_str()),
            ("own-1", "then")
        );
        let mut pinned = request(text, &path, day_one());
        pinned.artifact_version = Some("pinned-v42".into());
        pinned.published_at = Some("2026-09-20T14:32:07.104Z".into());
        let written = write_index(pinned).unwrap();
        assert_eq!(written.artifact_version, "pinned-v42");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "{\n  \"artifactVersion\": \"pinned-v42\",\n  \"publishedAt\": \"2026-09-20T14:32:07.104Z\"\n}\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unreadable_previous_index_counts_as_none() {
        let dir = scratch("unreadable");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("index.json");
        for previous in [
            "not json",
            "null",
            "{\"artifactVersion\":\"20260921.x\"}",
            "{\"artifactVersion\":7}",
        ] {
            std::fs::write(&path, previous).unwrap();
            assert_eq!(
                write_index(request("{}", &path, day_one()))
                    .unwrap()
                    .artifact_version,
                "20260921.1"
            );
        }
        std::fs::write(&path, "{\"artifactVersion\":\"20260921.41\"}").unwrap();
        assert_eq!(
            write_index(request("{}", &path, day_one()))
                .unwrap()
                .artifact_version,
            "20260921.42"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_path_under_a_file_fails_with_nodes_message_and_leaves_nothing() {
        let dir = scratch("under-file");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("file");
        std::fs::write(&file, "x").unwrap();
        let path = file.join("sub").join("index.json");
        let error = write_index(request("{}", &path, day_one())).unwrap_err();
        let message = error.to_string();
        let expected = format!(
            "Failed to write {}: Error: ENOTDIR: not a directory, mkdir '{}'",
            path.display(),
            file.join("sub").display()
        );
        assert_eq!(message, expected);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn refuses_what_is_not_an_object() {
        let path = PathBuf::from("unused.json");
        assert!(matches!(
            write_index(request("[1]", &path, day_one())),
            Err(IndexWriteError::NotAnObject)
        ));
        assert!(matches!(
            write_index(request("{", &path, day_one())),
            Err(IndexWriteError::Parse(_))
        ));
    }
}
