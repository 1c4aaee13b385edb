//! The relay's chunked body decoder (`supervisor::wire::Chunked`): the same answer however the
//! bytes are split, and well-formed bodies decode to their data.

#![no_main]

use kindgi_handler_runtime_native::supervisor::wire::{Chunked, Malformed};
use libfuzzer_sys::fuzz_target;

/// Decodes `pieces` as the relay does: what a call does not use waits for the next piece.
fn decode(pieces: &[&[u8]]) -> Result<(Vec<u8>, bool, Vec<u8>), Malformed> {
    let mut chunked = Chunked::default();
    let (mut body, mut received) = (Vec::new(), Vec::new());
    for piece in pieces {
        received.extend_from_slice(piece);
        let used = chunked.decode(&received, &mut body)?;
        assert!(used <= received.len());
        if !chunked.is_done() {
            assert_eq!(used, received.len(), "stopped short before the end");
        }
        received.drain(..used);
    }
    Ok((body, chunked.is_done(), received))
}

// The input: flags (bit 0 a chunk extension, bit 1 a trailer), a count `n`, `n` cut lengths,
// then the bytes. The cuts split the bytes both as they arrive and into a well-formed body.
fuzz_target!(|data: &[u8]| {
    let [flags, n, rest @ ..] = data else {
        return;
    };
    let (cuts, raw) = rest.split_at(usize::from(*n % 16).min(rest.len()));
    let (extension, trailer) = (flags & 1 != 0, flags & 2 != 0);
    let whole = decode(&[raw]);
    let mut pieces = Vec::new();
    let mut left = raw;
    for &cut in cuts {
        let at = usize::from(cut).min(left.len());
        pieces.push(&left[..at]);
        left = &left[at..];
    }
    pieces.push(left);
    let split = decode(&pieces);
    assert_eq!(whole, split, "whole {raw:?} and split {pieces:?}");

    let mut encoded = Vec::new();
    let mut data = Vec::new();
    for chunk in pieces.iter().filter(|c| !c.is_empty()) {
        encoded.extend_from_slice(format!("{:X}", chunk.len()).as_bytes());
        if extension {
            encoded.extend_from_slice(b" ;name=value");
        }
        encoded.extend_from_slice(b"\r\n");
        encoded.extend_from_slice(chunk);
        encoded.extend_from_slice(b"\r\n");
        data.extend_from_slice(chunk);
    }
    encoded.extend_from_slice(b"0\r\n");
    if trailer {
        encoded.extend_from_slice(b"x-trailer: 1\r\n");
    }
    encoded.extend_from_slice(b"\r\nafter");
    let (body, done, left) = decode(&[&encoded]).expect("a well-formed body decodes");
    assert!(done);
    assert_eq!(body, data);
    assert_eq!(left, b"after");
});
