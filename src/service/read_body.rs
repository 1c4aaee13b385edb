//! Reading a request's body whole, under a limit, without allocating ahead of what a budget
//! counted or what arrived.

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Body;

/// The body, or `None` when it is larger than `limit` (read to its end all the same, so the
/// 413 reaches a client still uploading); `arrived` is told of each part as it comes.
///
/// `counted` bytes of a declared length were counted against a budget (the queue's, see
/// `admission.rs`): they are allocated at once, as a large body grown as it arrives would be
/// copied at each doubling and could hold nearly twice its size. Past them, a declared length
/// is believed only as far as [`PRESIZED`]; the buffer then grows with what arrives, never
/// past the declared length, so that a caller that declares a large body and sends nothing
/// holds no more than that.
pub async fn read_body<B: Body<Data = Bytes> + Unpin>(
    mut body: B,
    limit: usize,
    counted: usize,
    arrived: impl Fn(),
) -> Result<Option<Vec<u8>>, B::Error> {
    let declared = body
        .size_hint()
        .exact()
        .and_then(|n| usize::try_from(n).ok())
        .map_or(limit, |n| n.min(limit));
    let mut buffer = Vec::with_capacity(counted.max(PRESIZED).min(declared));
    let mut too_large = false;
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame?.into_data() {
            arrived();
            too_large = too_large || buffer.len() + data.len() > limit;
            if !too_large {
                let needed = buffer.len() + data.len();
                if needed > buffer.capacity() {
                    // Doubling, but never past the declared length (a body longer than it
                    // is hyper's to refuse).
                    let grown = needed.max((2 * buffer.capacity()).min(declared));
                    buffer.reserve_exact(grown - buffer.len());
                }
                buffer.extend_from_slice(&data);
            }
        }
    }
    Ok((!too_large).then_some(buffer))
}

/// How much of a declared length that no budget counted a body's buffer takes at once.
const PRESIZED: usize = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::body::{Frame, SizeHint};
    use std::collections::VecDeque;
    use std::convert::Infallible;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// A body that declares `declared` bytes and sends `parts`.
    struct Declared {
        declared: Option<u64>,
        parts: VecDeque<Bytes>,
    }

    impl Body for Declared {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            Poll::Ready(self.parts.pop_front().map(|part| Ok(Frame::data(part))))
        }

        fn size_hint(&self) -> SizeHint {
            self.declared
                .map_or_else(SizeHint::default, SizeHint::with_exact)
        }
    }

    fn body(declared: Option<u64>, parts: &[&'static [u8]]) -> Declared {
        Declared {
            declared,
            parts: parts.iter().map(|&p| Bytes::from_static(p)).collect(),
        }
    }

    async fn read(body: Declared, limit: usize, counted: usize) -> Option<Vec<u8>> {
        let Ok(read) = read_body(body, limit, counted, || ()).await;
        read
    }

    #[tokio::test]
    async fn a_declared_length_no_budget_counted_is_believed_only_as_far_as_presized() {
        let mib = 1 << 20;
        // Nine MiB declared, one byte sent: the buffer holds no more than `PRESIZED`.
        let read = read(body(Some(9 * mib as u64), &[b"x"]), 10 * mib, 0).await;
        let read = read.expect("within the limit");
        assert_eq!(read, b"x");
        assert!(read.capacity() <= PRESIZED, "{}", read.capacity());
        // Counted against a budget: allocated at once, to its length exactly.
        let read = read_counted(4 * mib).await;
        assert_eq!(read.capacity(), 4 * mib);
    }

    async fn read_counted(length: usize) -> Vec<u8> {
        let part: &'static [u8] = Box::leak(vec![b'a'; length / 4].into_boxed_slice());
        let declared = body(Some(length as u64), &[part, part, part, part]);
        read(declared, 10 << 20, length)
            .await
            .expect("within the limit")
    }

    #[tokio::test]
    async fn a_growing_buffer_never_passes_the_declared_length() {
        let part: &'static [u8] = Box::leak(vec![b'b'; 40_000].into_boxed_slice());
        let parts = [part; 5];
        let read = read(body(Some(200_000), &parts), 1 << 20, 0).await;
        let read = read.expect("within the limit");
        assert_eq!(read.len(), 200_000);
        assert_eq!(read.capacity(), 200_000);
        // With no length declared, it grows as bytes come.
        let read = read_unknown(&parts).await;
        assert_eq!(read.len(), 200_000);
    }

    async fn read_unknown(parts: &[&'static [u8]]) -> Vec<u8> {
        read(body(None, parts), 1 << 20, 0)
            .await
            .expect("within the limit")
    }

    #[tokio::test]
    async fn a_body_past_the_limit_is_read_to_its_end_and_refused() {
        assert_eq!(read(body(None, &[b"abc", b"def"]), 5, 0).await, None);
        assert_eq!(
            read(body(Some(3), &[b"abc"]), 3, 0).await,
            Some(b"abc".to_vec())
        );
    }
}
