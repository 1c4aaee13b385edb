//! The relay's reader of a child's whole answer (`supervisor::relay::read_answer`), from
//! memory: no panic, and the same outcome however the child's bytes arrive.

#![no_main]

use kindgi_handler_runtime_native::supervisor::relay::read_answer;
use libfuzzer_sys::fuzz_target;
use std::future::Future;
use std::pin::{pin, Pin};
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, ReadBuf};

/// The child's bytes, handed out in reads of the given sizes, then the connection's end.
struct Pieces<'a> {
    bytes: &'a [u8],
    sizes: std::iter::Cycle<std::slice::Iter<'a, u16>>,
}

impl AsyncRead for Pieces<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let size = self
            .sizes
            .next()
            .map_or(usize::MAX, |&n| usize::from(n).max(1));
        let n = size.min(self.bytes.len()).min(buf.remaining());
        buf.put_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Poll::Ready(Ok(()))
    }
}

/// Runs the read to its end: every read is ready, so one poll does it.
fn read(bytes: &[u8], sizes: &[u16]) -> impl std::fmt::Debug + PartialEq {
    let mut reader = Pieces {
        bytes,
        sizes: sizes.iter().cycle(),
    };
    let mut received = Vec::new();
    let outcome = {
        let mut future = pin!(read_answer(&mut reader, &mut received));
        let mut cx = Context::from_waker(Waker::noop());
        let Poll::Ready(outcome) = future.as_mut().poll(&mut cx) else {
            panic!("a read from memory waited");
        };
        outcome
    };
    // What the answer did not use, wherever it waits (read already or not); a call that got
    // no whole answer drops its connection, and that with it.
    received.extend_from_slice(reader.bytes);
    if outcome.is_err() {
        received.clear();
    }
    (outcome, received)
}

// The input: a count `n`, `n` read sizes (two bytes each), then the child's bytes.
fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 8) * 2;
    let (sizes, bytes) = rest.split_at(n.min(rest.len()));
    let sizes: Vec<u16> = sizes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    let whole = read(bytes, &[]);
    let split = read(bytes, &sizes);
    assert_eq!(whole, split, "sizes {sizes:?}");
});
