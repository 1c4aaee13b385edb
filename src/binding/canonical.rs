//! The index writer: canonical JSON text, `writeIndex`, `indexHash`.

use super::errors::{from_napi, JsError, NativeError, NativeErrorCode};
use crate::canonical::{
    canonical_json, write_index, FsFailure, IndexPieces, IndexWriteRequest, IndexWritten,
    ListPieces,
};
use crate::ids::index_hash;
use crate::json::{push_utf16_units, string_from_units, utf16_units};
use napi::bindgen_prelude::{Buffer, Env, PromiseRaw, Uint8Array, Utf16String};
use napi::JsString;
use napi_derive::napi;
use std::path::Path;
use std::sync::{mpsc, Mutex};
use std::time::SystemTime;
use tokio::sync::oneshot;

/// The canonical text of JSON text, as UTF-8 bytes (the JS layer hands over
/// `Buffer.from(JSON.stringify(value))`: node encodes faster than napi's string copy).
#[napi(js_name = "canonicalJsonText")]
pub fn canonical_json_text<'env>(env: &'env Env, text: &[u8]) -> Result<JsString<'env>, JsError> {
    let text = utf8(text)?;
    let canonical = canonical_json(text).map_err(NativeError::from)?;
    js_string(env, canonical).map_err(from_napi)
}

fn utf8(bytes: &[u8]) -> Result<&str, NativeError> {
    std::str::from_utf8(bytes).map_err(|e| {
        NativeError::new(
            NativeErrorCode::InvalidJsonValue,
            format!("The JSON text is not UTF-8: {e}"),
        )
    })
}

/// A JavaScript string of `text`. V8 decodes UTF-8 slowly but copies Latin-1 and UTF-16 as they
/// are, so the text goes over as Latin-1 when every character fits (the usual index) and as
/// UTF-16 otherwise.
fn js_string(env: &Env, text: String) -> napi::Result<JsString<'_>> {
    if text.is_ascii() {
        return env.create_string_latin1(text.as_bytes());
    }
    if text.chars().all(|c| u32::from(c) <= 0xFF) {
        let latin1: Vec<u8> = text.chars().map(|c| u32::from(c) as u8).collect();
        return env.create_string_latin1(&latin1);
    }
    env.create_string_utf16(utf16_units(&text))
}

#[napi(object)]
pub struct WriteIndexOutcome {
    pub artifact_version: Option<String>,
    pub published_at: Option<String>,
    pub index_hash: Option<String>,
    pub bytes: Option<u32>,
    /// Set when the write failed: a `NativeErrorCode`.
    pub error_code: Option<String>,
    pub error_message: Option<String>,
}

/// Writes the index (as JSON text in UTF-8 bytes: `Buffer.from` encodes a large string faster
/// than napi's string copy) off the JS thread. Failures come back as data: a rejected promise
/// from an async binding cannot carry a stable `code`, so the JS layer throws them.
#[napi(js_name = "writeIndexText")]
pub async fn write_index_text(
    text: Buffer,
    output_path: String,
    artifact_version: Option<String>,
    published_at: Option<String>,
) -> napi::Result<WriteIndexOutcome> {
    let job = move || {
        let text = utf8(&text)?;
        write_index(IndexWriteRequest {
            text,
            output_path: Path::new(&output_path),
            artifact_version,
            published_at,
            now: SystemTime::now(),
            pid: std::process::id(),
        })
        .map_err(NativeError::from)
    };
    let written = tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| napi::Error::from_reason(format!("The index writer stopped: {e}")))?;
    Ok(outcome(written))
}

fn outcome(written: Result<IndexWritten, NativeError>) -> WriteIndexOutcome {
    match written {
        Ok(w) => WriteIndexOutcome {
            artifact_version: Some(w.artifact_version),
            published_at: Some(w.published_at),
            index_hash: Some(w.index_hash),
            bytes: Some(u32::try_from(w.bytes).unwrap_or(u32::MAX)),
            error_code: None,
            error_message: None,
        },
        Err(error) => WriteIndexOutcome {
            artifact_version: None,
            published_at: None,
            index_hash: None,
            bytes: None,
            error_code: Some(error.code.as_str().to_owned()),
            error_message: Some(error.message),
        },
    }
}

/// A thread that reads what the JS thread sends it, one piece at a time, until the last.
struct PieceThread<T> {
    /// Gone once the last piece is sent or the call abandoned, which ends the thread.
    pieces: Mutex<Option<mpsc::Sender<T>>>,
}

impl<T: Send + 'static> PieceThread<T> {
    fn start(
        name: &str,
        read: impl FnOnce(mpsc::Receiver<T>) + Send + 'static,
    ) -> napi::Result<Self> {
        let (pieces, received) = mpsc::channel();
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || read(received))
            .map_err(|e| napi::Error::from_reason(format!("Cannot start {name}: {e}")))?;
        Ok(PieceThread {
            pieces: Mutex::new(Some(pieces)),
        })
    }

    /// False when the thread has gone (or the call was abandoned).
    fn send(&self, piece: T) -> bool {
        let Ok(pieces) = self.pieces.lock() else {
            return false;
        };
        pieces
            .as_ref()
            .is_some_and(|pieces| pieces.send(piece).is_ok())
    }

    /// Sends the last piece: the thread ends after it.
    fn send_last(&self, piece: T) -> bool {
        let sent = self.send(piece);
        self.abandon();
        sent
    }

    fn abandon(&self) {
        if let Ok(mut pieces) = self.pieces.lock() {
            pieces.take();
        }
    }
}

fn stopped() -> napi::Error {
    napi::Error::from_reason("The native thread reading the pieces stopped")
}

/// A `writeIndex` call whose index comes in pieces (`IndexPieces`): a thread of its own reads
/// each piece while the JS thread makes the next. The pieces cross as UTF-16, which V8 copies
/// as it is.
#[napi]
pub struct IndexPiecesWriter {
    thread: PieceThread<Piece>,
}

enum Piece {
    Items {
        list: String,
        text: Utf16String,
    },
    Finish {
        rest: Utf16String,
        output_path: String,
        artifact_version: Option<String>,
        published_at: Option<String>,
        written: oneshot::Sender<Result<IndexWritten, NativeError>>,
    },
}

#[napi]
impl IndexPiecesWriter {
    #[napi(constructor)]
    pub fn new() -> napi::Result<Self> {
        Ok(IndexPiecesWriter {
            thread: PieceThread::start("kindgi-index-pieces", read_pieces)?,
        })
    }

    /// The next items of the sorted list `list`, as the JSON text of an array.
    #[napi]
    pub fn items(&self, list: String, text: Utf16String) {
        // A send fails only when the thread has gone, which `finish` reports.
        let _ = self.thread.send(Piece::Items { list, text });
    }

    /// The other top-level members, as the JSON text of an object; writes the index. The last
    /// piece is sent here, on the JS thread, so the promise's future holds nothing of `self`
    /// (see `owned_future`).
    #[napi(ts_return_type = "Promise<WriteIndexOutcome>")]
    pub fn finish<'env>(
        &self,
        env: &'env Env,
        rest: Utf16String,
        output_path: String,
        artifact_version: Option<String>,
        published_at: Option<String>,
    ) -> napi::Result<PromiseRaw<'env, WriteIndexOutcome>> {
        let (written, outcome_of) = oneshot::channel();
        let sent = self.thread.send_last(Piece::Finish {
            rest,
            output_path,
            artifact_version,
            published_at,
            written,
        });
        env.spawn_future(async move {
            if !sent {
                return Err(stopped());
            }
            Ok(outcome(outcome_of.await.map_err(|_| stopped())?))
        })
    }

    /// Ends the call without writing (the JS side could not make a piece).
    #[napi]
    pub fn abandon(&self) {
        self.thread.abandon();
    }
}

/// The thread of an [`IndexPiecesWriter`]: reads pieces until the last, then writes the index.
/// After a piece fails the rest are only received, and the failure is the outcome.
fn read_pieces(received: mpsc::Receiver<Piece>) {
    let mut index = IndexPieces::new();
    let mut failed = None;
    for piece in received {
        match piece {
            Piece::Items { list, text } => {
                if failed.is_none() {
                    failed = decode(&text)
                        .and_then(|text| index.add_items(&list, &text).map_err(NativeError::from))
                        .err();
                }
            }
            Piece::Finish {
                rest,
                output_path,
                artifact_version,
                published_at,
                written,
            } => {
                let result = match failed {
                    Some(error) => Err(error),
                    None => decode(&rest).and_then(|rest| {
                        index
                            .write(IndexWriteRequest {
                                text: &rest,
                                output_path: Path::new(&output_path),
                                artifact_version,
                                published_at,
                                now: SystemTime::now(),
                                pid: std::process::id(),
                            })
                            .map_err(NativeError::from)
                    }),
                };
                // The caller may be gone; nothing is left to tell.
                let _ = written.send(result);
                return;
            }
        }
    }
}

/// A `canonicalJson` call on an object whose large lists come in pieces (`ListPieces`): a
/// thread of its own reads each piece while the JS thread makes the next.
#[napi]
pub struct CanonicalPiecesWriter {
    thread: PieceThread<CanonicalPiece>,
}

enum CanonicalPiece {
    Items {
        list: String,
        text: Utf16String,
    },
    Finish {
        rest: Utf16String,
        canonical: mpsc::Sender<Result<JsText, NativeError>>,
    },
}

#[napi]
impl CanonicalPiecesWriter {
    #[napi(constructor)]
    pub fn new() -> napi::Result<Self> {
        Ok(CanonicalPiecesWriter {
            thread: PieceThread::start("kindgi-canonical-pieces", read_canonical_pieces)?,
        })
    }

    /// The next items of the top-level list `list` (a key JSON writes as it is), as the JSON
    /// text of an array.
    #[napi]
    pub fn items(&self, list: String, text: Utf16String) {
        // A send fails only when the thread has gone, which `finish` reports.
        let _ = self.thread.send(CanonicalPiece::Items { list, text });
    }

    /// The other top-level members, as the JSON text of an object; the canonical text.
    #[napi]
    pub fn finish<'env>(
        &self,
        env: &'env Env,
        rest: Utf16String,
    ) -> Result<JsString<'env>, JsError> {
        let (canonical, canonical_of) = mpsc::channel();
        if !self
            .thread
            .send_last(CanonicalPiece::Finish { rest, canonical })
        {
            return Err(from_napi(stopped()));
        }
        let text = canonical_of.recv().map_err(|_| from_napi(stopped()))??;
        match text {
            JsText::Latin1(bytes) => env.create_string_latin1(&bytes),
            JsText::Utf16(units) => env.create_string_utf16(&units),
        }
        .map_err(from_napi)
    }

    /// Ends the call (the JS side could not make a piece).
    #[napi]
    pub fn abandon(&self) {
        self.thread.abandon();
    }
}

/// The thread of a [`CanonicalPiecesWriter`], as [`read_pieces`] is an [`IndexPiecesWriter`]'s.
fn read_canonical_pieces(received: mpsc::Receiver<CanonicalPiece>) {
    let mut lists = ListPieces::new();
    let mut failed = None;
    for piece in received {
        match piece {
            CanonicalPiece::Items { list, text } => {
                if failed.is_none() {
                    failed = decode(&text)
                        .and_then(|text| lists.add_items(&list, &text).map_err(NativeError::from))
                        .err();
                }
            }
            CanonicalPiece::Finish { rest, canonical } => {
                let result = match failed {
                    Some(error) => Err(error),
                    None => decode(&rest).and_then(|rest| {
                        let text = lists.canonical_text(&rest).map_err(NativeError::from)?;
                        Ok(js_text(&text.pieces()))
                    }),
                };
                // The caller may be gone; nothing is left to tell.
                let _ = canonical.send(result);
                return;
            }
        }
    }
}

/// Text made ready for V8 off the JS thread (see [`js_string`]).
enum JsText {
    Latin1(Vec<u8>),
    Utf16(Vec<u16>),
}

/// The text of `pieces`, one after another, as Latin-1 when every character fits, else UTF-16.
fn js_text(pieces: &[&str]) -> JsText {
    let len: usize = pieces.iter().map(|piece| piece.len()).sum();
    if pieces.iter().all(|piece| piece.is_ascii()) {
        let mut bytes = Vec::with_capacity(len);
        for piece in pieces {
            bytes.extend_from_slice(piece.as_bytes());
        }
        return JsText::Latin1(bytes);
    }
    let chars = || pieces.iter().flat_map(|piece| piece.chars());
    if chars().all(|c| u32::from(c) <= 0xFF) {
        return JsText::Latin1(chars().map(|c| u32::from(c) as u8).collect());
    }
    let mut units = Vec::with_capacity(len);
    for piece in pieces {
        push_utf16_units(&mut units, piece);
    }
    JsText::Utf16(units)
}

fn decode(units: &[u16]) -> Result<String, NativeError> {
    string_from_units(units).ok_or_else(|| {
        NativeError::new(
            NativeErrorCode::InvalidJsonValue,
            "The JSON text holds a lone surrogate",
        )
    })
}

#[napi(js_name = "indexHashBytes")]
pub fn index_hash_bytes(bytes: Uint8Array) -> String {
    index_hash(&bytes)
}

#[napi(js_name = "indexHashFile")]
pub fn index_hash_file(path: String) -> Result<String, JsError> {
    let bytes = std::fs::read(&path).map_err(|cause| {
        let failure = FsFailure {
            syscall: "open",
            path: path.clone().into(),
            dest: None,
            cause,
        };
        NativeError::new(
            NativeErrorCode::IndexReadFailed,
            format!("Cannot read {path}: {failure}"),
        )
    })?;
    Ok(index_hash(&bytes))
}

#[napi(js_name = "maxJsonDepth")]
pub fn max_json_depth() -> u32 {
    crate::json::MAX_DEPTH as u32
}
