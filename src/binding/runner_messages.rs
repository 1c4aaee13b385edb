//! The handler runner's failure messages for JavaScript: the templates, read once.

use crate::service::runner_messages::RunnerMessage;
use napi_derive::napi;

#[napi(object)]
pub struct RunnerMessageJs {
    pub name: String,
    /// With `{id}`, `{path}`, `{thrown}` or `{issue}` slots for JavaScript to fill.
    pub template: String,
}

#[napi(js_name = "runnerMessages")]
pub fn runner_messages() -> Vec<RunnerMessageJs> {
    RunnerMessage::ALL
        .iter()
        .map(|message| RunnerMessageJs {
            name: message.name().into(),
            template: message.template().into(),
        })
        .collect()
}
