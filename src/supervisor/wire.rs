//! HTTP/1.1 as the relay speaks it with a child, without I/O: the answer's head and its body
//! framing read from the bytes the child sends. The rules are hyper's client's (which carried
//! the relay's calls before): up to 100 header lines, folded lines unfolded, 1xx answers other
//! than 101 skipped, a chunked body decoded with hyper's grammar and limits. What they refuse
//! is [`Malformed`]; the relay answers it as fetch fails, `fetch failed`.

use crate::service::http::join_into;
use hyper::header::HeaderName;
use std::borrow::Cow;
use std::mem::MaybeUninit;

/// The most header lines an answer's head may have.
pub const MAX_HEADERS: usize = 100;

/// The longest head read: hyper's client read buffer (8 KiB and 4 KiB a header line).
pub const MAX_HEAD: usize = 8192 + 4096 * MAX_HEADERS;

/// The bytes do not make an answer the relay reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed;

/// How an answer's body ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// No body (204, 304, and 1xx heads).
    Empty,
    Length(u64),
    Chunked,
    /// Read to the connection's end, which then carries nothing more.
    UntilClose,
}

/// An answer's head, as far as the relay reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerHead {
    pub status: u16,
    /// The wanted headers it has, each as fetch reads it (Latin-1, repeats joined with `, `).
    pub headers: Vec<(HeaderName, String)>,
    pub framing: Framing,
    /// Whether the connection may carry another call after this answer.
    pub keep_alive: bool,
}

impl AnswerHead {
    /// A 1xx answer ahead of the real one (`100 Continue`, `103 Early Hints`): skipped.
    pub fn is_interim(&self) -> bool {
        (100..200).contains(&self.status)
    }
}

/// Reads the head at the start of `bytes`: `Ok(None)` while it is incomplete, else its length
/// and the head, with `wanted`'s headers. A 101 is malformed: fetch refuses an upgrade nobody
/// asked for. So is a length with a transfer coding, which fetch refuses at once.
pub fn parse_head(
    bytes: &[u8],
    wanted: &[HeaderName],
) -> Result<Option<(usize, AnswerHead)>, Malformed> {
    // Left uninitialised: httparse writes the lines it finds (filling 100 empty ones costs
    // more than parsing a small head).
    let mut lines = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut []);
    let mut config = httparse::ParserConfig::default();
    config.allow_obsolete_multiline_headers_in_responses(true);
    let length = match config.parse_response_with_uninit_headers(&mut response, bytes, &mut lines) {
        Ok(httparse::Status::Complete(length)) => length,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(_) => return Err(Malformed),
    };
    let (Some(status), Some(minor)) = (response.code, response.version) else {
        return Err(Malformed);
    };
    if !(100..=999).contains(&status) || status == 101 {
        return Err(Malformed);
    }
    let interim = AnswerHead {
        status,
        headers: Vec::new(),
        framing: Framing::Empty,
        keep_alive: true,
    };
    if interim.is_interim() {
        return Ok(Some((length, interim)));
    }
    let mut fields = Fields::new(minor, wanted.len());
    for field in &*response.headers {
        fields.add(field.name, &unfold(field.value), wanted);
    }
    let framing = match status {
        _ if fields.coding.is_some() && fields.length.is_some() => return Err(Malformed),
        204 | 304 => Framing::Empty,
        // HTTP/1.0 has no transfer codings.
        _ if fields.coding.is_some() && minor == 0 => return Err(Malformed),
        _ => match (fields.coding, fields.length) {
            (Some(true), _) => Framing::Chunked,
            (Some(false), _) => Framing::UntilClose,
            (None, Some(length)) => Framing::Length(length?),
            (None, None) => Framing::UntilClose,
        },
    };
    let headers = wanted
        .iter()
        .zip(fields.wanted)
        .filter_map(|(name, text)| Some((name.clone(), text?)))
        .collect();
    Ok(Some((
        length,
        AnswerHead {
            status,
            headers,
            framing,
            keep_alive: fields.keep_alive,
        },
    )))
}

/// What an answer's header fields say, gathered in one pass over them.
struct Fields {
    /// Whether the last `transfer-encoding` ends in `chunked`, when there is one.
    coding: Option<bool>,
    /// The length every `content-length` value agrees on, when there is one.
    length: Option<Result<u64, Malformed>>,
    keep_alive: bool,
    /// A `connection` line said `close`: no later line keeps the connection open.
    closed: bool,
    /// The text of each wanted header, as fetch reads it.
    wanted: Vec<Option<String>>,
}

impl Fields {
    fn new(minor: u8, wanted: usize) -> Fields {
        Fields {
            coding: None,
            length: None,
            // HTTP/1.1 stays open unless told to close; HTTP/1.0 closes unless told otherwise.
            keep_alive: minor == 1,
            closed: false,
            wanted: vec![None; wanted],
        }
    }

    fn add(&mut self, name: &str, value: &[u8], wanted: &[HeaderName]) {
        if name.eq_ignore_ascii_case("content-length") {
            self.length = Some(match self.length {
                None => agreed_length(value, None),
                Some(Ok(before)) => agreed_length(value, Some(before)),
                Some(Err(malformed)) => Err(malformed),
            });
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            self.coding = Some(ends_chunked(value));
        } else if name.eq_ignore_ascii_case("connection") {
            if has_token(value, "close") {
                self.closed = true;
                self.keep_alive = false;
            } else if !self.keep_alive && !self.closed {
                self.keep_alive = has_token(value, "keep-alive");
            }
        }
        for (slot, wanted) in self.wanted.iter_mut().zip(wanted) {
            if name.eq_ignore_ascii_case(wanted.as_str()) {
                join_into(slot, value);
            }
        }
    }
}

/// A header value with its folded (obs-fold) lines joined by one space each, as hyper unfolds
/// them: each line trimmed, the first only at its end.
fn unfold(value: &[u8]) -> Cow<'_, [u8]> {
    let Some(first_break) = value.iter().position(|&b| b == b'\n') else {
        return Cow::Borrowed(value);
    };
    let mut unfolded = value[..first_break].trim_ascii_end().to_vec();
    for line in value[first_break + 1..].split(|&b| b == b'\n') {
        unfolded.push(b' ');
        unfolded.extend_from_slice(line.trim_ascii());
    }
    Cow::Owned(unfolded)
}

/// A value as text when it is visible ASCII (with spaces and tabs), as hyper's header checks
/// read it; `None` otherwise.
fn visible_text(value: &[u8]) -> Option<&str> {
    let visible = value
        .iter()
        .all(|&b| b == b'\t' || (b' '..=b'~').contains(&b));
    visible.then(|| std::str::from_utf8(value).ok()).flatten()
}

/// Whether a `transfer-encoding` value's last coding is `chunked`.
fn ends_chunked(value: &[u8]) -> bool {
    visible_text(value)
        .and_then(|line| line.rsplit(',').next())
        .is_some_and(|coding| coding.trim().eq_ignore_ascii_case("chunked"))
}

/// Whether a listed value (`connection`) has `token`, in any case.
fn has_token(value: &[u8], token: &str) -> bool {
    visible_text(value).is_some_and(|text| {
        text.split(',')
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    })
}

/// The length a `content-length` value gives, each item of a listed one (`2, 2`) and the
/// `before` of earlier lines agreeing.
fn agreed_length(value: &[u8], before: Option<u64>) -> Result<u64, Malformed> {
    visible_text(value).ok_or(Malformed)?;
    let mut agreed = before;
    for item in value.split(|&b| b == b',') {
        let length = decimal(item.trim_ascii()).ok_or(Malformed)?;
        if agreed.is_some_and(|agreed| agreed != length) {
            return Err(Malformed);
        }
        agreed = Some(length);
    }
    // hyper keeps the two highest values for its own markers.
    agreed.filter(|&n| n < u64::MAX - 1).ok_or(Malformed)
}

/// Digits only, at least one, as a number that fits.
fn decimal(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |n, &b| {
        let digit = char::from(b).to_digit(10)?;
        n.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

/// hyper's limits on what a chunked body carries besides its data.
const MAX_EXTENSION_BYTES: u64 = 16 * 1024;
const MAX_TRAILER_BYTES: usize = 16 * 1024;

/// Where a chunked body's reading stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChunkState {
    /// Before a chunk's size: a hex digit must come.
    Start,
    Size,
    /// Spaces or tabs after the size.
    SizeSpace,
    Extension,
    SizeLf,
    Data,
    DataCr,
    DataLf,
    /// After the last chunk: the blank line, or trailer fields before it.
    EndCr,
    EndLf,
    Trailer,
    TrailerLf,
    Done,
}

/// Decodes a chunked body as it arrives.
#[derive(Debug, Clone)]
pub struct Chunked {
    state: ChunkState,
    /// The size of the chunk being read, then what is left of its data.
    size: u64,
    extension_bytes: u64,
    /// The trailer section as read (hyper parses it, and refuses the body if it is not one).
    trailer: Vec<u8>,
    trailers: usize,
}

impl Default for Chunked {
    fn default() -> Self {
        Chunked {
            state: ChunkState::Start,
            size: 0,
            extension_bytes: 0,
            trailer: Vec::new(),
            trailers: 0,
        }
    }
}

impl Chunked {
    /// Whether the last chunk and the trailer section have been read.
    pub fn is_done(&self) -> bool {
        self.state == ChunkState::Done
    }

    /// Reads what it can of `input`, appending the data to `body`; gives how many bytes of
    /// `input` it used. Stops at the body's end: what follows belongs to no answer.
    pub fn decode(&mut self, input: &[u8], body: &mut Vec<u8>) -> Result<usize, Malformed> {
        let mut at = 0;
        while at < input.len() && self.state != ChunkState::Done {
            if self.state == ChunkState::Data {
                let available = input.len() - at;
                let take = usize::try_from(self.size).map_or(available, |n| n.min(available));
                body.extend_from_slice(&input[at..at + take]);
                at += take;
                self.size -= take as u64;
                if self.size == 0 {
                    self.state = ChunkState::DataCr;
                }
                continue;
            }
            self.state = self.step(input[at])?;
            at += 1;
        }
        if self.state == ChunkState::Done && !self.trailer.is_empty() {
            let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
            match httparse::parse_headers(&self.trailer, &mut fields) {
                Ok(httparse::Status::Complete(_)) => {}
                _ => return Err(Malformed),
            }
        }
        Ok(at)
    }

    fn step(&mut self, byte: u8) -> Result<ChunkState, Malformed> {
        use ChunkState::*;
        let digit = char::from(byte).to_digit(16);
        Ok(match (self.state, byte) {
            (Start | Size, _) if digit.is_some() => {
                self.size = self
                    .size
                    .checked_mul(16)
                    .and_then(|n| n.checked_add(u64::from(digit.unwrap_or(0))))
                    .ok_or(Malformed)?;
                Size
            }
            (Size | SizeSpace, b'\t' | b' ') => SizeSpace,
            (Size | SizeSpace, b';') => Extension,
            (Size | SizeSpace | Extension, b'\r') => SizeLf,
            (Extension, b'\n') => return Err(Malformed),
            (Extension, _) => {
                self.extension_bytes += 1;
                if self.extension_bytes >= MAX_EXTENSION_BYTES {
                    return Err(Malformed);
                }
                Extension
            }
            (SizeLf, b'\n') if self.size == 0 => EndCr,
            (SizeLf, b'\n') => Data,
            (DataCr, b'\r') => DataLf,
            (DataLf, b'\n') => {
                self.size = 0;
                Start
            }
            (EndCr, b'\r') => self.keep_trailer(byte, EndLf)?,
            (EndLf, b'\n') => self.keep_trailer(byte, Done)?,
            (Trailer, b'\r') => self.keep_trailer(byte, TrailerLf)?,
            (EndCr | Trailer, _) => self.keep_trailer(byte, Trailer)?,
            (TrailerLf, b'\n') => {
                self.trailers += 1;
                if self.trailers > MAX_HEADERS {
                    return Err(Malformed);
                }
                self.keep_trailer(byte, EndCr)?
            }
            _ => return Err(Malformed),
        })
    }

    /// Keeps a byte of the trailer section (once it has a field), then moves on to `next`.
    fn keep_trailer(&mut self, byte: u8, next: ChunkState) -> Result<ChunkState, Malformed> {
        let starts_field = matches!(next, ChunkState::Trailer | ChunkState::TrailerLf);
        if starts_field || !self.trailer.is_empty() {
            if self.trailer.len() >= MAX_TRAILER_BYTES {
                return Err(Malformed);
            }
            self.trailer.push(byte);
        }
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::{CONTENT_TYPE, RETRY_AFTER};

    fn head(text: &str) -> Result<Option<(usize, AnswerHead)>, Malformed> {
        parse_head(text.as_bytes(), &[CONTENT_TYPE, RETRY_AFTER])
    }

    fn framing(text: &str) -> Result<Framing, Malformed> {
        match head(text)? {
            Some((_, head)) => Ok(head.framing),
            None => panic!("incomplete: {text:?}"),
        }
    }

    #[test]
    fn a_head_gives_its_status_wanted_headers_length_and_framing() {
        let text = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-other: 1\r\nretry-after: 1\r\nRetry-After: 2\r\ncontent-length: 2\r\n\r\n{}";
        let Ok(Some((length, answer))) = head(text) else {
            panic!("a head");
        };
        assert_eq!(length, text.len() - 2);
        assert_eq!(
            answer,
            AnswerHead {
                status: 200,
                headers: vec![
                    (CONTENT_TYPE, "application/json".into()),
                    (RETRY_AFTER, "1, 2".into()),
                ],
                framing: Framing::Length(2),
                keep_alive: true,
            }
        );
        // Incomplete until the blank line.
        assert_eq!(head(&text[..20]), Ok(None));
        assert_eq!(head("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n"), Ok(None));
    }

    #[test]
    fn framing_follows_hypers_client() {
        let ok = |fields: &str| framing(&format!("HTTP/1.1 200 OK\r\n{fields}\r\n"));
        assert_eq!(ok(""), Ok(Framing::UntilClose));
        assert_eq!(ok("content-length: 7\r\n"), Ok(Framing::Length(7)));
        assert_eq!(
            ok("content-length: 7, 7\r\ncontent-length: 7\r\n"),
            Ok(Framing::Length(7))
        );
        assert_eq!(ok("content-length: 7, 8\r\n"), Err(Malformed));
        assert_eq!(ok("content-length: +7\r\n"), Err(Malformed));
        assert_eq!(ok("content-length: \r\n"), Err(Malformed));
        assert_eq!(
            ok("content-length: 99999999999999999999\r\n"),
            Err(Malformed)
        );
        assert_eq!(ok("transfer-encoding: chunked\r\n"), Ok(Framing::Chunked));
        assert_eq!(
            ok("transfer-encoding: gzip\r\ntransfer-encoding: gzip, Chunked \r\n"),
            Ok(Framing::Chunked)
        );
        assert_eq!(
            ok("transfer-encoding: chunked, gzip\r\n"),
            Ok(Framing::UntilClose)
        );
        // fetch refuses a length with any coding.
        assert_eq!(
            ok("transfer-encoding: chunked\r\ncontent-length: 2\r\n"),
            Err(Malformed)
        );
        let no_body =
            |status: u16| framing(&format!("HTTP/1.1 {status} X\r\ncontent-length: 5\r\n\r\n"));
        assert_eq!(no_body(204), Ok(Framing::Empty));
        assert_eq!(no_body(304), Ok(Framing::Empty));
        assert_eq!(no_body(205), Ok(Framing::Length(5)));
        assert_eq!(
            framing("HTTP/1.0 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"),
            Err(Malformed)
        );
    }

    #[test]
    fn heads_hyper_refuses_are_malformed() {
        for text in [
            "NOT HTTP AT ALL\r\n\r\n",
            "HTTP/1.1 099 Low\r\n\r\n",
            "HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\n\r\n",
            "HTTP/2.0 200 OK\r\n\r\n",
            "HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n",
            "HTTP/1.1 200 OK\r\nx: a\u{1}b\r\n\r\n",
        ] {
            assert_eq!(head(text), Err(Malformed), "{text:?}");
        }
        let fields = |n: usize| -> String { (0..n).map(|i| format!("x-{i}: v\r\n")).collect() };
        assert!(head(&format!("HTTP/1.1 200 OK\r\n{}\r\n", fields(100))).is_ok());
        assert_eq!(
            head(&format!("HTTP/1.1 200 OK\r\n{}\r\n", fields(101))),
            Err(Malformed)
        );
    }

    #[test]
    fn interim_answers_are_marked_to_be_skipped() {
        for status in [100, 102, 103, 199] {
            let Ok(Some((length, answer))) = head(&format!("HTTP/1.1 {status} X\r\n\r\nrest"))
            else {
                panic!("{status}");
            };
            assert!(answer.is_interim());
            assert_eq!(length, "HTTP/1.1 100 X\r\n\r\n".len());
        }
    }

    #[test]
    fn folded_lines_are_unfolded_as_hyper_unfolds_them() {
        assert_eq!(unfold(b"plain"), &b"plain"[..]);
        assert_eq!(unfold(b"obs\r\n fold\r\n\t line"), &b"obs fold line"[..]);
        let text = "HTTP/1.1 200 OK\r\ncontent-type: application/json;\r\n charset=utf-8\r\ncontent-length: 0\r\n\r\n";
        let Ok(Some((_, answer))) = head(text) else {
            panic!("a head");
        };
        assert_eq!(
            answer.headers,
            [(CONTENT_TYPE, "application/json; charset=utf-8".to_owned())]
        );
    }

    #[test]
    fn connections_stay_open_as_hyper_keeps_them() {
        let alive = |version: &str, fields: &str| {
            let text = format!("HTTP/{version} 200 OK\r\n{fields}content-length: 0\r\n\r\n");
            match head(&text) {
                Ok(Some((_, answer))) => answer.keep_alive,
                other => panic!("{other:?}"),
            }
        };
        assert!(alive("1.1", ""));
        assert!(!alive("1.1", "connection: Close\r\n"));
        assert!(!alive(
            "1.1",
            "connection: x, close\r\nconnection: keep-alive\r\n"
        ));
        assert!(!alive("1.0", ""));
        assert!(alive("1.0", "connection: keep-alive\r\n"));
        assert!(!alive(
            "1.0",
            "connection: close\r\nconnection: keep-alive\r\n"
        ));
    }

    /// Decodes `input` fed in pieces of `step` bytes.
    fn decode_in_pieces(input: &[u8], step: usize) -> Result<(Vec<u8>, usize, bool), Malformed> {
        let mut chunked = Chunked::default();
        let mut body = Vec::new();
        let mut used = 0;
        let mut pending = Vec::new();
        for piece in input.chunks(step) {
            pending.extend_from_slice(piece);
            let n = chunked.decode(&pending, &mut body)?;
            used += n;
            pending.drain(..n);
            if chunked.is_done() {
                break;
            }
        }
        Ok((body, used, chunked.is_done()))
    }

    #[test]
    fn chunked_bodies_decode_whatever_their_pieces() {
        let input =
            b"5\r\nhello\r\n1;name=value\r\n \r\nA \r\n0123456789\r\n0\r\nx-trailer: 1\r\n\r\nNEXT";
        for step in [1, 2, 3, 7, input.len()] {
            let (body, used, done) = decode_in_pieces(input, step).expect("decodes");
            assert_eq!(body, b"hello 0123456789", "step {step}");
            assert!(done);
            assert_eq!(used, input.len() - 4, "the next bytes are not the body's");
        }
        let unfinished = decode_in_pieces(b"5\r\nhel", 2).expect("decodes");
        assert_eq!((unfinished.0, unfinished.2), (b"hel".to_vec(), false));
    }

    #[test]
    fn chunked_bodies_hyper_refuses_are_malformed() {
        let long_extension = format!("1;{}\r\nx\r\n0\r\n\r\n", "e".repeat(17 * 1024));
        let many_trailers = format!("0\r\n{}\r\n", "t: 1\r\n".repeat(101));
        let long_trailer = format!("0\r\nt: {}\r\n\r\n", "v".repeat(17 * 1024));
        let bad_trailer = "0\r\nnot a field\r\n\r\n";
        for input in [
            &b"\r\n"[..],
            b"g\r\n",
            b";x\r\n",
            b"5 5\r\n",
            b"5\n",
            b"2\r\nabX\r\n",
            b"2\r\nab\rX",
            b"1;a\nb\r\n",
            b"0\r\n\rX",
            b"11111111111111111\r\n",
            long_extension.as_bytes(),
            many_trailers.as_bytes(),
            long_trailer.as_bytes(),
            bad_trailer.as_bytes(),
        ] {
            assert_eq!(
                decode_in_pieces(input, 3).map(|_| ()),
                Err(Malformed),
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }
}
