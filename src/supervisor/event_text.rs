//! What the supervisor tells JavaScript, one text per event (JavaScript takes them in batches,
//! a line each: no text holds a line feed, and JSON escapes it). An event for the owner's
//! `onEvent` is its JSON; the rest start with a tag, one letter that no JSON text starts with,
//! which JavaScript reads from here (`supervisorTextTags`):
//! - an output line for `onLog`, after the tag of its stream (as JSON a line of control
//!   characters would be six times as long);
//! - one of the service's own lines, after [`SERVICE_LINE`]: JavaScript parses it into the
//!   event as `lines::service_event` reads it (`JSON.parse` of the line is what TypeScript's
//!   event holds). Writing the parsed event back out here, for JavaScript to parse again, cost
//!   more than the rest of the line's way;
//! - a SIGINT or SIGHUP exit for JavaScript to step through the owner's `nextTurn` before it
//!   is judged, after [`INTERRUPTED`]: its id.

use crate::json::to_js_json;
use crate::supervisor::lifecycle::SupervisorEvent;
use serde_json::json;

/// Before a line the pack wrote on stdout.
pub const STDOUT_LINE: char = 'o';
/// Before a line the pack wrote on stderr that is not one of the service's events.
pub const STDERR_LINE: char = 'e';
/// Before one of the service's own lines (a call, `draining`, a record).
pub const SERVICE_LINE: char = 'l';
/// Before the id of an exit waiting to be judged (`judgeInterrupt`).
pub const INTERRUPTED: char = 'i';

/// `event` as the text JavaScript takes.
pub fn event_text(event: SupervisorEvent) -> String {
    let value = match event {
        SupervisorEvent::Started { port, index_path } => {
            json!({"kind": "started", "port": port, "indexPath": index_path})
        }
        SupervisorEvent::BootFailed { problems } => {
            json!({"kind": "boot-failed", "problems": problems})
        }
        SupervisorEvent::Exited(exit) => {
            json!({"kind": "exited", "code": exit.code, "signal": exit.signal})
        }
        SupervisorEvent::Restarting { attempt } => {
            json!({"kind": "restarting", "attempt": attempt})
        }
        SupervisorEvent::GaveUp { attempts } => json!({"kind": "gave-up", "attempts": attempts}),
        SupervisorEvent::Interrupted { id } => return format!("{INTERRUPTED}{id}"),
        SupervisorEvent::Log { line } => return format!("{SERVICE_LINE}{line}"),
        SupervisorEvent::Output { line, stderr } => {
            let tag = if stderr { STDERR_LINE } else { STDOUT_LINE };
            return format!("{tag}{line}");
        }
    };
    to_js_json(&value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supervisor::child::ChildExit;

    #[test]
    fn events_are_json_and_lines_are_tagged() {
        assert_eq!(
            event_text(SupervisorEvent::Started {
                port: 5,
                index_path: "i.json".into()
            }),
            r#"{"kind":"started","port":5,"indexPath":"i.json"}"#
        );
        assert_eq!(
            event_text(SupervisorEvent::Exited(ChildExit {
                code: None,
                signal: Some("SIGKILL".into())
            })),
            r#"{"kind":"exited","code":null,"signal":"SIGKILL"}"#
        );
        assert_eq!(
            event_text(SupervisorEvent::GaveUp { attempts: 3 }),
            r#"{"kind":"gave-up","attempts":3}"#
        );
        let output = |stderr| SupervisorEvent::Output {
            line: "{x".into(),
            stderr,
        };
        assert_eq!(event_text(output(false)), "o{x");
        assert_eq!(event_text(output(true)), "e{x");
        let line = r#"{"kind":"call"}"#;
        assert_eq!(
            event_text(SupervisorEvent::Log { line: line.into() }),
            format!("l{line}")
        );
        assert_eq!(event_text(SupervisorEvent::Interrupted { id: 7 }), "i7");
    }

    #[test]
    fn no_tag_is_where_json_starts_nor_another_tag() {
        let tags = [STDOUT_LINE, STDERR_LINE, SERVICE_LINE, INTERRUPTED];
        for (at, tag) in tags.iter().enumerate() {
            assert_ne!(*tag, '{');
            assert!(!tags[at + 1..].contains(tag));
        }
    }
}
