//! The relay's reader of an answer's head (`supervisor::wire::parse_head`): no panic, a length
//! within the bytes, and the same head whatever follows it.

#![no_main]

use hyper::header::{HeaderName, CONTENT_TYPE, RETRY_AFTER};
use kindgi_handler_runtime_native::supervisor::wire::{parse_head, Framing};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wanted = [
        CONTENT_TYPE,
        RETRY_AFTER,
        HeaderName::from_static("kindgi-artifact-version"),
        HeaderName::from_static("kindgi-duration-ms"),
    ];
    let Ok(Some((length, head))) = parse_head(data, &wanted) else {
        return;
    };
    assert!(length <= data.len());
    assert!((100..=999).contains(&head.status) && head.status != 101);
    if head.is_interim() {
        assert_eq!(head.framing, Framing::Empty);
    }
    for (name, _) in &head.headers {
        assert!(wanted.contains(name));
    }
    // The head ends where it says: alone, or followed by anything, it reads the same.
    let alone = parse_head(&data[..length], &wanted);
    assert_eq!(alone, Ok(Some((length, head.clone()))), "head alone");
    let mut followed = data[..length].to_vec();
    followed.extend_from_slice(b"HTTP/1.1 500 X\r\n\r\n");
    assert_eq!(
        parse_head(&followed, &wanted),
        Ok(Some((length, head))),
        "head followed"
    );
    // Cut short, it is incomplete, never malformed: how the bytes arrive cannot matter.
    for cut in [length / 2, length.saturating_sub(1)] {
        assert_eq!(
            parse_head(&data[..cut], &wanted),
            Ok(None),
            "cut at {cut} of {length}"
        );
    }
});
