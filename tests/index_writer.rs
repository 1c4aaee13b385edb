//! The index writer end to end, through the crate's public core API: what `writeIndex` writes
//! is canonical (re-canonicalizing it changes nothing), hashed as written, and counted up.

use kindgi_handler_runtime_native::canonical::{canonical_json, write_index, IndexWriteRequest};
use kindgi_handler_runtime_native::ids::index_hash;
use std::path::PathBuf;
use std::time::SystemTime;

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kindgi-native-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn written_index_is_canonical_hashed_and_counted() {
    let dir = scratch_dir("roundtrip");
    let path = dir.join("dist").join("index.json");
    let index = r#"{"v":1,"packId":"acme","packVersion":"1.0.0",
        "tools":[{"id":"b","input":{"type":"object","properties":{"z":{},"a":{}}},"output":{},"modulePath":"tools/b.mjs"},
                 {"id":"a","input":{},"output":{},"modulePath":"tools/a.mjs"}],
        "guardrails":[],"agents":[],"flows":[],"env":{"required":["DATABASE_URL"],"optional":[]}}"#;
    let request = |text| IndexWriteRequest {
        text,
        output_path: &path,
        artifact_version: None,
        published_at: Some("2026-09-20T14:32:07.104Z".into()),
        now: SystemTime::now(),
        pid: std::process::id(),
    };
    let first = write_index(request(index)).expect("first write");
    let bytes = std::fs::read(&path).expect("the index exists");
    let text = String::from_utf8(bytes.clone()).expect("UTF-8");
    assert_eq!(
        canonical_json(&text).expect("valid JSON"),
        text,
        "the written index is canonical"
    );
    assert_eq!(first.index_hash, index_hash(&bytes));
    assert_eq!(first.bytes, bytes.len());
    assert!(
        text.find("\"id\": \"a\"") < text.find("\"id\": \"b\""),
        "tools are sorted by id"
    );
    assert!(text.ends_with("}\n"));

    let second = write_index(request(index)).expect("second write");
    let n = |v: &str| v.rsplit('.').next().and_then(|n| n.parse::<u32>().ok());
    assert_eq!(
        n(&second.artifact_version),
        n(&first.artifact_version).map(|n| n + 1)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
