//! The handler runner's failure messages, in the TypeScript runner's words, defined once.
//!
//! Each is a template with named slots (`{id}`, `{path}`, `{thrown}`, `{issue}`). `tool_io`
//! fills them here; the JavaScript runner (`lib/handler-runner.js`) and the pack service's
//! JavaScript side read the templates from native once and fill them there, so text from pack
//! code (which may hold lone surrogates) never crosses to Rust to be formatted.

/// One failure message of the runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunnerMessage {
    ToolInputSchemaRefused,
    ToolInputUnreadable,
    ToolInputInvalid,
    HandlerImportFailed,
    HandlerShapeInvalid,
    HandlerThrew,
    ToolOutputSchemaRefused,
    ToolOutputUnreadable,
    ToolOutputInvalid,
    CheckConfigSchemaRefused,
    CheckConfigUnreadable,
    CheckConfigInvalid,
    CheckImportFailed,
    CheckShapeInvalid,
    CheckThrew,
}

impl RunnerMessage {
    /// Every message, in the order the runner can reach them.
    pub const ALL: [RunnerMessage; 15] = [
        RunnerMessage::ToolInputSchemaRefused,
        RunnerMessage::ToolInputUnreadable,
        RunnerMessage::ToolInputInvalid,
        RunnerMessage::HandlerImportFailed,
        RunnerMessage::HandlerShapeInvalid,
        RunnerMessage::HandlerThrew,
        RunnerMessage::ToolOutputSchemaRefused,
        RunnerMessage::ToolOutputUnreadable,
        RunnerMessage::ToolOutputInvalid,
        RunnerMessage::CheckConfigSchemaRefused,
        RunnerMessage::CheckConfigUnreadable,
        RunnerMessage::CheckConfigInvalid,
        RunnerMessage::CheckImportFailed,
        RunnerMessage::CheckShapeInvalid,
        RunnerMessage::CheckThrew,
    ];

    /// The name JavaScript looks the template up by.
    pub fn name(self) -> &'static str {
        match self {
            RunnerMessage::ToolInputSchemaRefused => "toolInputSchemaRefused",
            RunnerMessage::ToolInputUnreadable => "toolInputUnreadable",
            RunnerMessage::ToolInputInvalid => "toolInputInvalid",
            RunnerMessage::HandlerImportFailed => "handlerImportFailed",
            RunnerMessage::HandlerShapeInvalid => "handlerShapeInvalid",
            RunnerMessage::HandlerThrew => "handlerThrew",
            RunnerMessage::ToolOutputSchemaRefused => "toolOutputSchemaRefused",
            RunnerMessage::ToolOutputUnreadable => "toolOutputUnreadable",
            RunnerMessage::ToolOutputInvalid => "toolOutputInvalid",
            RunnerMessage::CheckConfigSchemaRefused => "checkConfigSchemaRefused",
            RunnerMessage::CheckConfigUnreadable => "checkConfigUnreadable",
            RunnerMessage::CheckConfigInvalid => "checkConfigInvalid",
            RunnerMessage::CheckImportFailed => "checkImportFailed",
            RunnerMessage::CheckShapeInvalid => "checkShapeInvalid",
            RunnerMessage::CheckThrew => "checkThrew",
        }
    }

    /// The message with its slots: `{id}` the tool or check id, `{path}` the module path,
    /// `{thrown}` what was thrown as `Name: message`, `{issue}` the first issue's place.
    pub fn template(self) -> &'static str {
        match self {
            RunnerMessage::ToolInputSchemaRefused => {
                "Tool \"{id}\" input schema failed to compile: {thrown}"
            }
            RunnerMessage::ToolInputUnreadable => "Tool \"{id}\" input cannot be validated: {thrown}",
            RunnerMessage::ToolInputInvalid => "Tool \"{id}\" input failed validation",
            RunnerMessage::HandlerImportFailed => {
                "Failed to import handler module '{path}': {thrown}"
            }
            RunnerMessage::HandlerShapeInvalid => {
                "Handler module '{path}' does not export a handler function (looked for default / handler / run)"
            }
            RunnerMessage::HandlerThrew => "Handler for tool \"{id}\" threw: {thrown}",
            RunnerMessage::ToolOutputSchemaRefused => {
                "Tool \"{id}\" output schema failed to compile: {thrown}"
            }
            RunnerMessage::ToolOutputUnreadable => {
                "Tool \"{id}\" handler produced output that cannot be validated: {thrown}"
            }
            RunnerMessage::ToolOutputInvalid => {
                "Tool \"{id}\" handler produced output that failed validation"
            }
            RunnerMessage::CheckConfigSchemaRefused => {
                "Check \"{id}\" config schema failed to compile: {thrown}"
            }
            RunnerMessage::CheckConfigUnreadable => {
                "Check \"{id}\" config cannot be validated: {thrown}"
            }
            RunnerMessage::CheckConfigInvalid => "Check \"{id}\" config failed validation{issue}",
            RunnerMessage::CheckImportFailed => "Failed to import check module '{path}': {thrown}",
            RunnerMessage::CheckShapeInvalid => {
                "Check module '{path}' does not export a check with .evaluate() (looked for default / check / bare export with evaluate)"
            }
            RunnerMessage::CheckThrew => "Check \"{id}\" evaluate() threw: {thrown}",
        }
    }

    /// The message with its slots filled from `values`; a slot with no value is left as it is.
    pub fn fill(self, values: &[(&str, &str)]) -> String {
        fill(self.template(), values)
    }
}

/// Fills `{name}` slots in one pass: a value that holds a slot's text is not filled again.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let slot = after
            .find('}')
            .map(|close| (&after[..close], &after[close + 1..]));
        match slot.and_then(|(name, tail)| {
            let value = values.iter().find(|(key, _)| *key == name)?.1;
            Some((value, tail))
        }) {
            Some((value, tail)) => {
                out.push_str(value);
                rest = tail;
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_filled_once_and_unknown_ones_kept() {
        assert_eq!(
            RunnerMessage::HandlerThrew.fill(&[("id", "t{id}"), ("thrown", "Error: {thrown}")]),
            "Handler for tool \"t{id}\" threw: Error: {thrown}"
        );
        assert_eq!(fill("a {x} {y} {", &[("x", "1")]), "a 1 {y} {");
        assert_eq!(
            RunnerMessage::CheckConfigInvalid.fill(&[("id", "c"), ("issue", " at /a: bad")]),
            "Check \"c\" config failed validation at /a: bad"
        );
    }

    #[test]
    fn every_message_has_its_own_name_and_only_known_slots() {
        let mut names: Vec<&str> = RunnerMessage::ALL.iter().map(|m| m.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RunnerMessage::ALL.len());
        for message in RunnerMessage::ALL {
            let filled = message.fill(&[("id", ""), ("path", ""), ("thrown", ""), ("issue", "")]);
            assert!(!filled.contains('{'), "{}", message.name());
        }
    }
}
