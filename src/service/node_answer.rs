//! What the node:http glue (`handle` in `lib/pack-service/`) writes, decided here: the status,
//! the headers in the order the TypeScript service writes them, and the body. The glue writes
//! them as given, as the relay's outcome is written; it decides no HTTP of its own.

use crate::service::http::{is_node_header_value, Reply};

/// An answer as node:http writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeAnswer {
    pub status: u16,
    /// Names and values, in writing order.
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

impl NodeAnswer {
    /// A JSON body with its exact length, as the TypeScript service writes every answer.
    pub fn json(status: u16, body: String) -> NodeAnswer {
        NodeAnswer {
            status,
            headers: vec![
                ("content-type", "application/json; charset=utf-8".into()),
                ("content-length", body.len().to_string()),
            ],
            body,
        }
    }

    /// A transport-level answer (probes, info, refusals), with `retry-after` on a 503.
    pub fn reply(reply: Reply) -> NodeAnswer {
        let mut answer = NodeAnswer::json(reply.status, reply.body);
        if reply.retry_after {
            answer.headers.push(("retry-after", "1".into()));
        }
        answer
    }

    /// A protocol message (200), with the call's duration and the pack's artifact version; the
    /// version is left out where Node would throw on it, as the Rust server leaves it out.
    pub fn message(json: String, duration_ms: u128, artifact_version: Option<&str>) -> NodeAnswer {
        let mut answer = NodeAnswer::json(200, json);
        answer
            .headers
            .push(("kindgi-duration-ms", duration_ms.to_string()));
        if let Some(version) = artifact_version.filter(|v| is_node_header_value(v)) {
            answer
                .headers
                .push(("kindgi-artifact-version", version.to_owned()));
        }
        answer
    }

    /// `[name, value, …]`, as the glue reads the headers.
    pub fn flat_headers(&self) -> Vec<String> {
        let mut flat = Vec::with_capacity(self.headers.len() * 2);
        for (name, value) in &self.headers {
            flat.push((*name).to_owned());
            flat.push(value.clone());
        }
        flat
    }
}

/// `content-length` as node:http shows it (`req.headers`), read as a length: digits only, as
/// `Number()` reads them (a length past 2^64 saturates, one past a double's range is none).
pub fn content_length(raw: Option<&str>) -> Option<u64> {
    let digits = raw.filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))?;
    let number: f64 = digits.parse().ok()?;
    // Saturating: a length past u64 is past any cap.
    number.is_finite().then_some(number as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(answer: &NodeAnswer) -> Vec<&str> {
        answer.headers.iter().map(|(name, _)| *name).collect()
    }

    #[test]
    fn replies_carry_their_length_and_a_503_its_retry() {
        let answer = NodeAnswer::reply(Reply::overloaded());
        assert_eq!(answer.status, 503);
        assert_eq!(
            answer.flat_headers(),
            [
                "content-type",
                "application/json; charset=utf-8",
                "content-length",
                "22",
                "retry-after",
                "1"
            ]
        );
        assert_eq!(answer.body, "{\"error\":\"overloaded\"}");
        let large = NodeAnswer::reply(Reply::too_large());
        assert_eq!(
            (large.status, names(&large)),
            (413, vec!["content-type", "content-length"])
        );
        // The length is in bytes, not characters.
        assert_eq!(NodeAnswer::json(500, "\"é\"".into()).headers[1].1, "4");
    }

    #[test]
    fn a_message_names_its_duration_and_a_version_node_can_write() {
        let answer = NodeAnswer::message("{}".into(), 7, Some("v1 é"));
        assert_eq!(
            answer.headers[2..],
            [
                ("kindgi-duration-ms", "7".to_owned()),
                ("kindgi-artifact-version", "v1 é".to_owned())
            ]
        );
        for refused in ["v\n1", "v\u{100}"] {
            let answer = NodeAnswer::message("{}".into(), 0, Some(refused));
            assert_eq!(
                names(&answer),
                ["content-type", "content-length", "kindgi-duration-ms"]
            );
        }
    }

    #[test]
    fn a_length_is_digits_only() {
        assert_eq!(content_length(Some("42")), Some(42));
        assert_eq!(content_length(Some("007")), Some(7));
        for refused in ["", "+5", "-1", "1.5", " 1", "1e3", "٣"] {
            assert_eq!(content_length(Some(refused)), None, "{refused:?}");
        }
        assert_eq!(content_length(None), None);
        assert_eq!(content_length(Some(&"9".repeat(25))), Some(u64::MAX));
        assert_eq!(content_length(Some(&"9".repeat(400))), None);
    }
}
