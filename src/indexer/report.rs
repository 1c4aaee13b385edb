//! The run's report as JSON text for `runIndexer`: its members in the TypeScript order, without
//! `outputPath` (JavaScript has it).

use super::assemble::Assembled;
use crate::json::write_json_str;

/// The report of an index written as `artifact_version` at `published_at`.
pub fn report_json(
    pack_id: &str,
    pack_version: &str,
    assembled: &Assembled,
    artifact_version: &str,
    published_at: &str,
) -> String {
    let mut out = String::from("{\"packId\":");
    write_json_str(&mut out, pack_id);
    out.push_str(",\"packVersion\":");
    write_json_str(&mut out, pack_version);
    out.push_str(",\"artifactVersion\":");
    write_json_str(&mut out, artifact_version);
    out.push_str(",\"publishedAt\":");
    write_json_str(&mut out, published_at);
    let [tools, guardrails, agents, flows] = assembled.counts;
    out.push_str(&format!(
        ",\"counts\":{{\"tools\":{tools},\"guardrails\":{guardrails},\"agents\":{agents},\"flows\":{flows}}},\"fileErrors\":["
    ));
    for (at, error) in assembled.file_errors.iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        error.write_json(&mut out);
    }
    out.push_str("],\"warnings\":[");
    for (at, warning) in assembled.warnings.iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        warning.write_json(&mut out);
    }
    out.push_str("]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::assemble::IndexerWarning;
    use crate::indexer::{IndexerError, IndexerErrorCode};
    use serde_json::Map;

    #[test]
    fn the_report_s_members_come_in_the_typescript_order() {
        let assembled = Assembled {
            index: Map::new(),
            counts: [2, 1, 0, 3],
            file_errors: vec![IndexerError::new(IndexerErrorCode::ConfigInvalid, "bad")],
            warnings: vec![IndexerWarning {
                code: "w",
                message: "m".into(),
                file_path: "f.ts".into(),
            }],
        };
        let mut errors = String::new();
        assembled.file_errors[0].write_json(&mut errors);
        let mut warnings = String::new();
        assembled.warnings[0].write_json(&mut warnings);
        assert_eq!(
            report_json(
                "p\"1",
                "1.0.0",
                &assembled,
                "a1",
                "2026-01-01T00:00:00.000Z"
            ),
            format!(
                r#"{{"packId":"p\"1","packVersion":"1.0.0","artifactVersion":"a1","publishedAt":"2026-01-01T00:00:00.000Z","counts":{{"tools":2,"guardrails":1,"agents":0,"flows":3}},"fileErrors":[{errors}],"warnings":[{warnings}]}}"#
            )
        );
    }
}
