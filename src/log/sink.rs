//! Where finished record lines go. The process's stderr is written by one background thread
//! in batches, so a call's record never waits on a write and many records share a syscall;
//! a line written from the JS thread is written at once, after everything queued before it.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// A destination for complete lines (given without their newline).
pub trait LineSink: Send + Sync {
    fn write(&self, line: &str);
    /// Writes out whatever is queued, before returning.
    fn flush(&self) {}
}

impl<F: Fn(&str) + Send + Sync> LineSink for F {
    fn write(&self, line: &str) {
        self(line)
    }
}

pub type Sink = Arc<dyn LineSink>;

/// How long the writer lets lines gather after the first one arrives.
const GATHER: std::time::Duration = std::time::Duration::from_millis(1);

/// Lines queued for stderr.
#[derive(Default)]
struct Queue {
    bytes: Vec<u8>,
}

#[derive(Default)]
struct BatchedStderr {
    queue: Mutex<Queue>,
    queued: Condvar,
    /// Held while bytes taken from the queue are written, so batches leave in queue order.
    writing: Mutex<()>,
}

impl BatchedStderr {
    /// Takes what is queued and writes it; the caller holds `writing`.
    fn write_queued(&self) {
        let bytes = match self.queue.lock() {
            Ok(mut queue) => std::mem::take(&mut queue.bytes),
            Err(_) => return,
        };
        if !bytes.is_empty() {
            // A sink that fails must never fail the code that logged.
            let _ = std::io::stderr().lock().write_all(&bytes);
        }
    }

    fn run_writer(&self) {
        loop {
            // Wait for something to write, then let more gather (a busy service writes a
            // batch a millisecond, not a syscall a record), then take the write order before
            // the bytes.
            if let Ok(queue) = self.queue.lock() {
                let waited = self.queued.wait_while(queue, |q| q.bytes.is_empty());
                drop(waited);
            }
            std::thread::sleep(GATHER);
            if let Ok(_order) = self.writing.lock() {
                self.write_queued();
            }
        }
    }
}

impl LineSink for BatchedStderr {
    fn write(&self, line: &str) {
        if let Ok(mut queue) = self.queue.lock() {
            let was_empty = queue.bytes.is_empty();
            queue.bytes.extend_from_slice(line.as_bytes());
            queue.bytes.push(b'\n');
            if was_empty {
                self.queued.notify_one();
            }
        }
    }

    fn flush(&self) {
        if let Ok(_order) = self.writing.lock() {
            self.write_queued();
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
        let _ = std::io::stderr().lock().write_all(&framed);
    }
}

/// The process's stderr: one writer thread for every logger that writes there.
pub fn stderr_sink() -> Sink {
    static STDERR: OnceLock<Sink> = OnceLock::new();
    STDERR
        .get_or_init(|| {
            let batched = Arc::new(BatchedStderr::default());
            let writer = Arc::clone(&batched);
            let spawned = std::thread::Builder::new()
                .name("kindgi-log".into())
                .spawn(move || writer.run_writer());
            match spawned {
                Ok(_) => batched,
                Err(_) => Arc::new(DirectStderr),
            }
        })
        .clone()
}
