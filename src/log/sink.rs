//! Where finished record lines go. The process's stderr is written by one background thread
//! in batches, so no caller waits on a write and many records share a syscall; lines leave in
//! the order they were queued.
//!
//! Node leaves a piped stderr non-blocking, so a write to a reader that is behind fails with
//! `EAGAIN` part-way through. The writer then waits for the pipe (its own thread, so waiting
//! costs no call anything) and writes the rest: a line is never cut. While it waits, call
//! records queue up to [`QUEUE_BUDGET`]; records past it are dropped whole and counted, and
//! one `warn` record says how many once the writer catches up. Lines from the JS thread
//! (`ctx.log`, lifecycle lines) are never dropped and never wait, as Node queues a write to a
//! full pipe in memory; a lifecycle line waits up to [`FLUSH_WAIT`] to be out (the process may
//! exit right after it).

use crate::log::levels::Level;
use crate::log::record::{assemble, format_json, format_pretty, Entries, RecordParts};
use crate::log::settings::LogFormat;
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime};

/// A destination for complete lines (given without their newline).
pub trait LineSink: Send + Sync {
    /// Queues `line`; a sink that cannot keep up may drop it (and says so).
    fn write(&self, line: &str);
    /// Queues `line` and never drops it: a line from the JS thread.
    fn write_kept(&self, line: &str) {
        self.write(line);
    }
    /// Queues a record made into its line later, in its place among the others; dropped as
    /// [`LineSink::write`] drops lines. Without a writer thread it is made now.
    fn write_later(&self, line: LaterLine) {
        self.write(&line());
    }
    /// Writes out whatever is queued before returning, waiting at most [`FLUSH_WAIT`] for a
    /// reader that is behind.
    fn flush(&self) {}
}

/// A record whose line is made when it is written: a sink with a writer thread makes it there,
/// so the thread that logged pays for the move alone.
pub type LaterLine = Box<dyn FnOnce() -> String + Send>;

impl<F: Fn(&str) + Send + Sync> LineSink for F {
    fn write(&self, line: &str) {
        self(line)
    }
}

pub type Sink = Arc<dyn LineSink>;

/// How long the writer lets lines gather after the first one arrives.
const GATHER: Duration = Duration::from_millis(1);

/// How long a flush waits for a reader that is behind: a lifecycle line before the process
/// goes on (or exits), so a stalled reader delays a SIGTERM's exit by at most this, twice.
pub const FLUSH_WAIT: Duration = Duration::from_millis(250);

/// The most bytes of lines held for stderr (queued, plus a batch still being written) before
/// further records are dropped. A call record is about 400 bytes, so this holds some 40,000
/// of them: at the service's peak (near 25,000 calls a second) a reader may stall for over a
/// second, at ordinary rates far longer, and nothing is lost; an unbounded queue would grow
/// for as long as nothing reads stderr.
pub const QUEUE_BUDGET: usize = 16 * 1024 * 1024;

/// What a record not yet made into its line counts for against the budget (and in the totals
/// a flush compares): about a call record's length.
const LATER_BYTES: usize = 512;

/// The record written where records were dropped: `@kindgi/log`'s shape, subsystem `pack`,
/// level warn, the count as `dropped`, in the format of the service's other lines. Written
/// whatever the levels, as lifecycle lines are: it says lines are missing.
pub fn dropped_record(format: LogFormat, dropped: u64) -> String {
    let message = if dropped == 1 {
        "1 call record was dropped: stderr did not keep up".to_owned()
    } else {
        format!("{dropped} call records were dropped: stderr did not keep up")
    };
    let mut merged = Entries::default();
    merged.set("dropped".into(), dropped.into());
    let record = assemble(RecordParts {
        time: SystemTime::now(),
        level: Level::Warn,
        subsystem: "pack",
        message: &message,
        merged,
        in_message: &["dropped"],
    });
    match format {
        LogFormat::Json => format_json(&record),
        LogFormat::Pretty { colour } => format_pretty(&record, Level::Warn, colour),
    }
}

/// Where the writer's bytes go.
enum Output {
    /// The process's fd 2 (through Rust's handle, which takes a closed fd 2 as a sink).
    Stderr,
    /// A pipe of a test's own.
    #[cfg(test)]
    File(std::fs::File),
}

impl Output {
    /// Writes all of `bytes`, waiting whenever the destination is full.
    fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Output::Stderr => {
                let stderr = io::stderr();
                // Held across the waits: Rust's own writes to stderr do not land mid-line.
                let mut locked = stderr.lock();
                write_all_waiting(&mut locked, bytes, || wait_writable(&stderr))
            }
            #[cfg(test)]
            Output::File(file) => write_all_waiting(&mut &*file, bytes, || wait_writable(file)),
        }
    }
}

/// `write_all` for a non-blocking destination: on `WouldBlock`, `wait` until it takes more.
fn write_all_waiting(
    out: &mut impl Write,
    mut bytes: &[u8],
    wait: impl Fn() -> io::Result<()>,
) -> io::Result<()> {
    while !bytes.is_empty() {
        match out.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(written) => bytes = bytes.get(written..).unwrap_or_default(),
            Err(error) => match error.kind() {
                io::ErrorKind::Interrupted => {}
                io::ErrorKind::WouldBlock => wait()?,
                _ => return Err(error),
            },
        }
    }
    Ok(())
}

/// Waits until `fd` can be written (or has failed, which the next write reports).
#[cfg(unix)]
fn wait_writable(fd: &impl std::os::fd::AsFd) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let mut poll = libc::pollfd {
        fd: fd.as_fd().as_raw_fd(),
        events: libc::POLLOUT,
        revents: 0,
    };
    loop {
        // SAFETY: one pollfd that lives across the call; -1 waits as long as it takes.
        let ready = unsafe { libc::poll(&mut poll, 1, -1) };
        if ready >= 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// No poll to wait with: try again shortly.
#[cfg(not(unix))]
fn wait_writable<T>(_: &T) -> io::Result<()> {
    std::thread::sleep(GATHER);
    Ok(())
}

/// Lines queued for the writer.
#[derive(Default)]
struct Queue {
    bytes: Vec<u8>,
    /// Records to be made into lines, each with its place: the length of `bytes` when it came.
    later: Vec<(usize, LaterLine)>,
    /// Bytes taken by a write still going: still held, so still counted against the budget.
    in_flight: usize,
    /// Records dropped since the writer last took the queue. While any are, every record is
    /// dropped, so the count names one gap, between what was taken and what comes next.
    dropped: u64,
    /// Bytes ever queued, and ever written out (or failed): a flush waits for the second to
    /// reach what the first was.
    queued_total: u64,
    written_total: u64,
    /// A flush waits: the writer goes at once instead of letting more gather.
    hurry: bool,
}

impl Queue {
    fn idle(&self) -> bool {
        self.bytes.is_empty() && self.later.is_empty() && self.dropped == 0
    }

    /// The bytes held, records to be made counted at [`LATER_BYTES`].
    fn held(&self) -> usize {
        self.bytes.len() + self.later.len() * LATER_BYTES + self.in_flight
    }

    /// Ends a gap of dropped records: their count is queued where they were.
    fn close_gap(&mut self, format: LogFormat) {
        if self.dropped > 0 {
            let dropped = std::mem::take(&mut self.dropped);
            self.push_line(&dropped_record(format, dropped));
        }
    }

    fn push_line(&mut self, line: &str) {
        self.bytes.extend_from_slice(line.as_bytes());
        self.bytes.push(b'\n');
        self.queued_total += line.len() as u64 + 1;
    }
}

/// Locks `mutex` whatever another thread did with it: the queue is whole bytes and counts.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Batched {
    output: Output,
    budget: usize,
    /// The format of the dropped-records record: the service's lines' format.
    format: Mutex<LogFormat>,
    queue: Mutex<Queue>,
    /// Something was queued (or a flush hurries the writer).
    queued: Condvar,
    /// The writer wrote a batch.
    written: Condvar,
}

impl Batched {
    fn new(output: Output, budget: usize, format: LogFormat) -> Batched {
        Batched {
            output,
            budget,
            format: Mutex::new(format),
            queue: Mutex::default(),
            queued: Condvar::new(),
            written: Condvar::new(),
        }
    }

    /// Takes what is queued, the count of dropped records included, and writes it (on the
    /// writer thread, the only one that writes).
    fn write_queued(&self) {
        let (bytes, later) = {
            let mut queue = lock(&self.queue);
            queue.close_gap(*lock(&self.format));
            let bytes = std::mem::take(&mut queue.bytes);
            let later = std::mem::take(&mut queue.later);
            // Counted as they leave the queue, so the budget holds in between.
            queue.in_flight = bytes.len() + later.len() * LATER_BYTES;
            (bytes, later)
        };
        let taken = (bytes.len() + later.len() * LATER_BYTES) as u64;
        let bytes = with_later_lines(bytes, later);
        if !bytes.is_empty() {
            // A sink that fails (a reader gone, a full disk) must never fail the code that
            // logged.
            let _ = self.output.write_all(&bytes);
        }
        drop(bytes);
        let mut queue = lock(&self.queue);
        queue.in_flight = 0;
        queue.written_total += taken;
        self.written.notify_all();
    }

    fn run_writer(&self) {
        loop {
            // Wait for something to write, then let more gather (a busy service writes a
            // batch a millisecond, not a syscall a record) unless a flush waits.
            let hurry = {
                let mut queue = self
                    .queued
                    .wait_while(lock(&self.queue), |queue| queue.idle())
                    .unwrap_or_else(PoisonError::into_inner);
                std::mem::take(&mut queue.hurry)
            };
            if !hurry {
                std::thread::sleep(GATHER);
            }
            self.write_queued();
        }
    }

    /// Queues `line` (or, for [`Line::Later`], the record to make it from); a record (not
    /// `Kept`) past the budget is dropped and counted.
    fn enqueue(&self, line: Line) {
        let mut queue = lock(&self.queue);
        let was_idle = queue.idle();
        let held = queue.held();
        let length = match &line {
            Line::Now(text) | Line::Kept(text) => text.len() + 1,
            Line::Later(_) => LATER_BYTES,
        };
        // A line bigger than the whole budget still goes when nothing else is held.
        let over = queue.dropped > 0 || (held > 0 && held + length > self.budget);
        if over && !matches!(line, Line::Kept(_)) {
            queue.dropped += 1;
        } else {
            // The count stands where the records were, before this line.
            queue.close_gap(*lock(&self.format));
            match line {
                Line::Now(text) | Line::Kept(text) => queue.push_line(text),
                Line::Later(make) => {
                    let at = queue.bytes.len();
                    queue.later.push((at, make));
                    queue.queued_total += LATER_BYTES as u64;
                }
            }
        }
        if was_idle {
            self.queued.notify_one();
        }
    }
}

/// A line for [`Batched::enqueue`].
enum Line<'a> {
    Now(&'a str),
    /// Never dropped.
    Kept(&'a str),
    Later(LaterLine),
}

/// `bytes` with each record of `later` made into its line, in its place.
fn with_later_lines(bytes: Vec<u8>, later: Vec<(usize, LaterLine)>) -> Vec<u8> {
    if later.is_empty() {
        return bytes;
    }
    let mut out = Vec::with_capacity(bytes.len() + later.len() * LATER_BYTES);
    let mut copied = 0;
    for (at, make) in later {
        out.extend_from_slice(bytes.get(copied..at).unwrap_or_default());
        copied = at;
        out.extend_from_slice(make().as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(bytes.get(copied..).unwrap_or_default());
    out
}

impl LineSink for Batched {
    fn write(&self, line: &str) {
        self.enqueue(Line::Now(line));
    }

    fn write_kept(&self, line: &str) {
        self.enqueue(Line::Kept(line));
    }

    fn write_later(&self, line: LaterLine) {
        self.enqueue(Line::Later(line));
    }

    fn flush(&self) {
        let deadline = Instant::now() + FLUSH_WAIT;
        let mut queue = lock(&self.queue);
        let mark = queue.queued_total;
        if queue.written_total >= mark {
            return;
        }
        queue.hurry = true;
        self.queued.notify_one();
        while queue.written_total < mark {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            queue = match self.written.wait_timeout(queue, left) {
                Ok((queue, _)) => queue,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

/// Stderr written line by line, by the caller: when the writer thread cannot be started.
struct DirectStderr;

impl LineSink for DirectStderr {
    fn write(&self, line: &str) {
        let mut framed = Vec::with_capacity(line.len() + 1);
        framed.extend_from_slice(line.as_bytes());
        framed.push(b'\n');
        // A sink that fails must never fail the code that logged.
        let _ = Output::Stderr.write_all(&framed);
    }
}

/// Starts `batched`'s writer thread; `None` when no thread can be started.
fn start_writer(batched: &Arc<Batched>) -> Option<()> {
    let writer = Arc::clone(batched);
    std::thread::Builder::new()
        .name("kindgi-log".into())
        .spawn(move || writer.run_writer())
        .ok()
        .map(drop)
}

/// The process's stderr: one writer thread for every logger that writes there. `format` is
/// the format of the record that counts dropped records (the latest settings' format: a
/// process has one).
pub fn stderr_sink(format: LogFormat) -> Sink {
    static STDERR: OnceLock<Option<Arc<Batched>>> = OnceLock::new();
    let batched = STDERR.get_or_init(|| {
        let batched = Arc::new(Batched::new(Output::Stderr, QUEUE_BUDGET, format));
        start_writer(&batched).map(|()| batched)
    });
    match batched {
        Some(batched) => {
            *lock(&batched.format) = format;
            Arc::clone(batched) as Sink
        }
        None => Arc::new(DirectStderr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::io::Read;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::time::Duration;

    /// A pipe whose write end is non-blocking (as Node leaves fd 2) and holds one page.
    fn pipe() -> (std::fs::File, std::fs::File) {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills the two descriptors, which nothing else owns.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: both were just opened and nothing else owns them.
        let [read, write] = fds.map(|fd| unsafe { OwnedFd::from_raw_fd(fd) });
        // SAFETY: fcntl on a descriptor this test owns.
        unsafe {
            libc::fcntl(write.as_raw_fd(), libc::F_SETPIPE_SZ, 4096);
            libc::fcntl(write.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK);
        }
        (read.into(), write.into())
    }

    /// A batched sink writing into a stalled pipe with its writer running, and the read end.
    fn stalled(budget: usize) -> (Arc<Batched>, std::fs::File) {
        let (read, write) = pipe();
        let batched = Arc::new(Batched::new(Output::File(write), budget, LogFormat::Json));
        assert!(start_writer(&batched).is_some());
        (batched, read)
    }

    /// Reads lines from `read` (a few bytes at a time, slowly) until one equals `last`; fails
    /// when nothing comes for 10 s (the line was lost).
    fn read_until(mut read: std::fs::File, last: &str) -> Vec<String> {
        let mut text = Vec::new();
        let mut chunk = [0u8; 3000];
        loop {
            let mut poll = libc::pollfd {
                fd: read.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one pollfd that lives across the call.
            let ready = unsafe { libc::poll(&mut poll, 1, 10_000) };
            assert!(ready > 0, "{last} never came");
            let n = read.read(&mut chunk).unwrap();
            assert!(n > 0, "the pipe closed before {last}");
            text.extend_from_slice(&chunk[..n]);
            if text.ends_with(format!("{last}\n").as_bytes()) {
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        let text = String::from_utf8(text).unwrap();
        text.lines().map(str::to_owned).collect()
    }

    /// Line `n`: its number, then padding of a length that varies, so writes end mid-line.
    fn numbered(n: usize) -> String {
        format!("{{\"n\":{n},\"pad\":\"{}\"}}", "x".repeat(40 + n * 7 % 300))
    }

    fn number(line: &str) -> Option<usize> {
        let value: Value = serde_json::from_str(line).ok()?;
        assert_eq!(
            value["pad"].as_str()?.len(),
            40 + value["n"].as_u64()? as usize * 7 % 300
        );
        Some(value["n"].as_u64()? as usize)
    }

    #[test]
    fn a_reader_that_stalls_gets_every_line_whole_and_in_order() {
        let (sink, read) = stalled(QUEUE_BUDGET);
        let lines = 20_000;
        let writer = std::thread::spawn(move || {
            for n in 0..lines {
                // Lines from the JS thread (never dropped) and records made into lines on the
                // writer's thread keep their place among the rest.
                if n % 2_000 == 1_999 {
                    sink.write_kept(&numbered(n));
                } else if n % 3 == 0 {
                    sink.write_later(Box::new(move || numbered(n)));
                } else {
                    sink.write(&numbered(n));
                }
            }
            sink.write_kept("end");
        });
        // Nothing reads for a while: the pipe fills and the writer meets EAGAIN.
        std::thread::sleep(Duration::from_millis(200));
        let got = read_until(read, "end");
        writer.join().unwrap();
        let numbers: Vec<usize> = got[..got.len() - 1]
            .iter()
            .map(|line| number(line).unwrap_or_else(|| panic!("a cut line: {line}")))
            .collect();
        assert_eq!(numbers, (0..lines).collect::<Vec<_>>());
    }

    #[test]
    fn past_the_budget_whole_records_are_dropped_and_counted() {
        let budget = 64 * 1024;
        let (sink, read) = stalled(budget);
        let lines = 5_000;
        // No reader: the first batch fills the pipe and the writer waits on it; the queue
        // fills to the budget and the rest is dropped, records to be made later as well.
        for n in 0..lines {
            if n % 2 == 0 {
                sink.write_later(Box::new(move || numbered(n)));
            } else {
                sink.write(&numbered(n));
            }
        }
        let reader = std::thread::spawn(move || read_until(read, "end"));
        sink.write_kept("end");
        let got = reader.join().unwrap();
        let mut expected = 0;
        let mut dropped_total = 0;
        for line in &got[..got.len() - 1] {
            if let Some(n) = number(line) {
                assert!(n >= expected, "{n} after {expected}");
                assert_eq!(n, expected, "a gap without its record before {n}");
                expected = n + 1;
                continue;
            }
            let record: Value = serde_json::from_str(line).unwrap();
            let dropped = record["dropped"].as_u64().unwrap();
            assert_eq!(
                record.as_object().unwrap().keys().collect::<Vec<_>>(),
                [
                    "time",
                    "level",
                    "severity",
                    "subsystem",
                    "message",
                    "dropped",
                    "inMessage"
                ]
            );
            assert_eq!(
                (&record["level"], &record["subsystem"], &record["message"]),
                (
                    &Value::from("warn"),
                    &Value::from("pack"),
                    &Value::from(format!(
                        "{dropped} call records were dropped: stderr did not keep up"
                    ))
                )
            );
            dropped_total += dropped;
            expected += dropped as usize;
        }
        assert_eq!(expected, lines, "every record written or counted");
        assert!(dropped_total > 0, "nothing was dropped");
        // Nothing was read while they were written: what got through is what the budget and
        // the pipe held.
        let kept: usize = got
            .iter()
            .filter(|line| number(line).is_some())
            .map(|line| line.len() + 1)
            .sum();
        assert!(kept <= budget + 4096, "{kept} bytes kept");
    }

    #[test]
    fn a_flush_waits_for_records_made_on_the_writer_thread() {
        let (read, write) = pipe();
        let batched = Arc::new(Batched::new(
            Output::File(write),
            QUEUE_BUDGET,
            LogFormat::Json,
        ));
        assert!(start_writer(&batched).is_some());
        let made_on = Arc::new(std::sync::Mutex::new(None));
        let on_writer = Arc::clone(&made_on);
        batched.write_later(Box::new(move || {
            *on_writer.lock().unwrap() = Some(std::thread::current().id());
            "later".to_owned()
        }));
        batched.write("now");
        batched.flush();
        let made_on = *made_on.lock().unwrap();
        assert!(
            made_on.is_some(),
            "the flush came back before the record was made"
        );
        assert_ne!(
            made_on,
            Some(std::thread::current().id()),
            "made where it was logged"
        );
        let mut text = vec![0u8; 64];
        let n = (&read).read(&mut text).unwrap();
        assert_eq!(&text[..n], b"later\nnow\n");
    }

    #[test]
    fn a_line_over_the_budget_goes_when_nothing_else_waits() {
        let (sink, read) = stalled(1024);
        let long = numbered(0) + &" ".repeat(4096);
        sink.write(&long);
        sink.write(&numbered(1));
        let reader = std::thread::spawn(move || read_until(read, "end"));
        sink.write_kept("end");
        let got = reader.join().unwrap();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], long);
        // The next one came while the long one, over the budget, was still held.
        let notice: Value = serde_json::from_str(&got[1]).unwrap();
        assert_eq!(notice["dropped"], 1);
    }

    #[test]
    fn the_dropped_record_in_each_format() {
        let json: Value = serde_json::from_str(&dropped_record(LogFormat::Json, 1)).unwrap();
        assert_eq!(
            json["message"],
            "1 call record was dropped: stderr did not keep up"
        );
        assert_eq!(
            (&json["severity"], &json["dropped"], &json["inMessage"]),
            (
                &Value::from("WARNING"),
                &Value::from(1),
                &serde_json::json!(["dropped"])
            )
        );
        let pretty = dropped_record(LogFormat::Pretty { colour: false }, 7);
        assert!(
            pretty.ends_with(" WARN  [pack] 7 call records were dropped: stderr did not keep up"),
            "{pretty}"
        );
    }
}
