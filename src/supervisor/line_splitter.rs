//! A child's output as lines, split and decoded as Node's `readline` does: a line ends at
//! `\n`, `\r\n` or a lone `\r`, bytes that are not UTF-8 become U+FFFD, and the last line
//! needs no ending. (Stopping at the first bad byte would leave the child's pipe unread: a
//! `listening` line after it never seen, and a child that blocks once the pipe fills.) What a
//! line says is read by `lines`.

use std::time::{Duration, Instant};

/// The longest line passed on, in bytes; the rest of a longer one is dropped. Every line crosses
/// to JavaScript as a string, whose length V8 caps (about 512 Mi characters); this keeps a line,
/// and a record with its line beside it, well under that.
const MAX_LINE: usize = 64 * 1024 * 1024;

/// How long after a read that ends with `\r` a `\n` opening the next read still belongs to
/// it: readline's `crlfDelay`, whose default is 100 ms. Later, the `\n` ends an empty line.
const CRLF_DELAY: Duration = Duration::from_millis(100);

/// Bytes in, lines out.
#[derive(Default)]
pub struct LineSplitter {
    line: Vec<u8>,
    /// When a read ended with a line's `\r`: a `\n` opening the next read within
    /// [`CRLF_DELAY`] ends nothing more.
    cr_at: Option<Instant>,
}

impl LineSplitter {
    /// Splits `bytes`, read at `now`, handing each line it ends to `on_line`.
    pub fn push(&mut self, mut bytes: &[u8], now: Instant, on_line: &mut impl FnMut(String)) {
        if bytes.is_empty() {
            return;
        }
        let just_after_cr = self
            .cr_at
            .take()
            .is_some_and(|at| now.saturating_duration_since(at) <= CRLF_DELAY);
        if just_after_cr && bytes.first() == Some(&b'\n') {
            bytes = &bytes[1..];
        }
        while let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.keep(&bytes[..end]);
            on_line(String::from_utf8_lossy(&self.line).into_owned());
            self.line.clear();
            let crlf = bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n');
            if bytes[end] == b'\r' && end + 1 == bytes.len() {
                self.cr_at = Some(now);
            }
            bytes = &bytes[end + 1 + usize::from(crlf)..];
        }
        self.keep(bytes);
    }

    /// Adds to the line what fits under [`MAX_LINE`].
    fn keep(&mut self, bytes: &[u8]) {
        let room = MAX_LINE.saturating_sub(self.line.len());
        self.line.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// The stream ended: its last line needs no ending.
    pub fn finish(&mut self, on_line: &mut impl FnMut(String)) {
        if !self.line.is_empty() {
            on_line(String::from_utf8_lossy(&self.line).into_owned());
            self.line.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of `chunks`, each read `gap` after the one before.
    fn split_with_gap(chunks: &[&[u8]], gap: Duration) -> Vec<String> {
        let mut lines = Vec::new();
        let mut splitter = LineSplitter::default();
        let mut now = Instant::now();
        for chunk in chunks {
            splitter.push(chunk, now, &mut |line| lines.push(line));
            now += gap;
        }
        splitter.finish(&mut |line| lines.push(line));
        lines
    }

    fn split(chunks: &[&[u8]]) -> Vec<String> {
        split_with_gap(chunks, Duration::ZERO)
    }

    #[test]
    fn lines_split_and_decode_as_readline_does() {
        assert_eq!(
            split(&[b"a\nb\r\nc\rd\n\ne"]),
            ["a", "b", "c", "d", "", "e"]
        );
        // A \r\n split across reads is one ending; \r\r is two.
        assert_eq!(split(&[b"a\r", b"\nb\r", b"\r", b"c"]), ["a", "b", "", "c"]);
        // Unless the \n comes over 100 ms after the \r: then it ends an empty line.
        let late = Duration::from_millis(150);
        assert_eq!(split_with_gap(&[b"a\r", b"\nb"], late), ["a", "", "b"]);
        let soon = Duration::from_millis(100);
        assert_eq!(split_with_gap(&[b"a\r", b"\nb"], soon), ["a", "b"]);
        // Bytes that are not UTF-8 become U+FFFD, and the reading goes on.
        assert_eq!(
            split(&[b"caf\xe9\n\xff\xfeok", b"\n{\"kind\":1}\n"]),
            ["caf\u{fffd}", "\u{fffd}\u{fffd}ok", "{\"kind\":1}"]
        );
        // A character split across reads survives.
        assert_eq!(
            split(&["é".as_bytes()[..1].as_ref(), &"é\n".as_bytes()[1..]]),
            ["é"]
        );
        assert_eq!(split(&[b"", b"x"]), ["x"]);
    }
}
