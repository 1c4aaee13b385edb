//! Identifiers derived from bytes: the index hash a deployment signs, and a call's idempotency
//! key (protocol 2.6.0).

use crate::json::write_json_utf16;
use sha1::{Digest as _, Sha1};
use sha2::Sha256;
use uuid::{Builder, Uuid};

/// The namespace of every idempotency key.
pub const IDEMPOTENCY_KEY_NAMESPACE: Uuid = Uuid::from_bytes([
    0xa7, 0x0d, 0x5b, 0xff, 0xe7, 0x13, 0x43, 0x22, 0xb2, 0xea, 0x9d, 0x5c, 0x49, 0x26, 0xa8, 0x61,
]);

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
pub fn index_hash(bytes: &[u8]) -> String {
    index_hash_of(&[bytes])
}

/// [`index_hash`] of the bytes of `pieces` one after another.
pub fn index_hash_of(pieces: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for piece in pieces {
        hasher.update(piece);
    }
    let digest = hasher.finalize();
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    push_hex(&mut out, &digest);
    out
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 0xF)] as char);
    }
}

/// The idempotency key of a call: the UUID v5 under [`IDEMPOTENCY_KEY_NAMESPACE`] of the UTF-8
/// bytes of `JSON.stringify(parts)`, where `parts` is `[runId, stepScope, toolId]` with the
/// model's call id appended for a call a model asked for. Each part is a JavaScript string as
/// UTF-16 code units, so a lone surrogate hashes as the `\udxxx` escape JavaScript writes.
pub fn idempotency_key(parts: &[&[u16]]) -> String {
    let text = json_array(parts);
    let mut hasher = Sha1::new();
    hasher.update(IDEMPOTENCY_KEY_NAMESPACE.as_bytes());
    hasher.update(text.as_bytes());
    let digest = hasher.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    Builder::from_sha1_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}

/// [`idempotency_key`] of Rust strings.
pub fn idempotency_key_of(parts: &[&str]) -> String {
    let units: Vec<Vec<u16>> = parts.iter().map(|p| p.encode_utf16().collect()).collect();
    let slices: Vec<&[u16]> = units.iter().map(Vec::as_slice).collect();
    idempotency_key(&slices)
}

/// The compact JSON array of strings: no whitespace, non-ASCII as itself.
fn json_array(parts: &[&[u16]]) -> String {
    let mut text = String::from("[");
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        write_json_utf16(&mut text, part);
    }
    text.push(']');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_hash_of_pieces_is_the_hash_of_their_bytes() {
        assert_eq!(index_hash_of(&[b"a", b"", b"bc"]), index_hash(b"abc"));
        assert_eq!(index_hash_of(&[]), index_hash(b""));
    }

    #[test]
    fn index_hash_is_sha256_hex() {
        assert_eq!(
            index_hash(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            index_hash(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn namespace_is_the_protocols() {
        assert_eq!(
            IDEMPOTENCY_KEY_NAMESPACE.to_string(),
            "a70d5bff-e713-4322-b2ea-9d5c4926a861"
        );
    }

    #[test]
    fn idempotency_key_matches_python_uuid5() {
        // python3: uuid.uuid5(NS, json.dumps(parts, separators=(',', ':'), ensure_ascii=False))
        let vectors: &[(&[&str], &str)] = &[
            (
                &["run-1", "step-a", "acme.echo"],
                "46b69b56-d2dc-51b1-b963-0d434bccb15c",
            ),
            (
                &["rün", "step/loop[2]", "acme.tool", "call_1"],
                "c55c4aed-f61a-5d2d-9665-c5fbe748f2a4",
            ),
            (&["r", "s", "t"], "d27fd78f-95a3-55d1-ae23-92fabccb440d"),
        ];
        for (parts, want) in vectors {
            assert_eq!(idempotency_key_of(parts), *want, "{parts:?}");
        }
    }

    #[test]
    fn lone_surrogates_hash_as_their_escape() {
        let lone: &[u16] = &[0x72, 0xD800];
        let escaped: Vec<u16> = "r\\ud800".encode_utf16().collect();
        assert_ne!(
            idempotency_key(&[lone, &[0x73], &[0x74]]),
            idempotency_key(&[&escaped, &[0x73], &[0x74]])
        );
        assert_eq!(json_array(&[lone]), "[\"r\\ud800\"]");
    }
}
