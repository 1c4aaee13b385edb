//! The pack service's log settings from `KINDGI_LOG_LEVEL`, `KINDGI_LOG_LEVELS` and
//! `KINDGI_LOG_FORMAT`, with `@kindgi/log`'s messages for a setting it can't honour.

use crate::js::is_js_whitespace;
use crate::log::levels::{Level, SubsystemLevels, LEVEL_NAMES};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Json,
    Pretty { colour: bool },
}

#[derive(Debug, Clone, PartialEq)]
pub struct LogSettings {
    /// Records below this level are not written, unless `levels` says otherwise.
    pub level: Level,
    pub levels: SubsystemLevels,
    pub format: LogFormat,
}

impl Default for LogSettings {
    /// `info`, no per-subsystem levels, JSON: the settings of an empty environment off a
    /// terminal.
    fn default() -> Self {
        LogSettings {
            level: Level::Info,
            levels: SubsystemLevels::default(),
            format: LogFormat::Json,
        }
    }
}

/// The environment variables the settings read.
#[derive(Debug, Clone, Default)]
pub struct LogEnv {
    pub level: Option<String>,
    pub levels: Option<String>,
    pub format: Option<String>,
    pub no_color: Option<String>,
}

impl LogSettings {
    /// The settings, or the message naming the first setting that can't be honoured. `auto`
    /// (or no format) is pretty only on a terminal: a supervisor pipes stderr and always reads
    /// JSON, so development mode (`KINDGI_DEV`) plays no part here.
    pub fn from_env(env: &LogEnv, is_tty: bool) -> Result<LogSettings, String> {
        let level = match env.level.as_deref() {
            None => Level::Info,
            Some(raw) if raw.trim_matches(is_js_whitespace).is_empty() => Level::Info,
            Some(raw) => Level::parse(raw).ok_or_else(|| {
                format!("KINDGI_LOG_LEVEL must be one of {LEVEL_NAMES}, got \"{raw}\".")
            })?,
        };
        let levels = SubsystemLevels::parse(env.levels.as_deref().unwrap_or_default())
            .map_err(|message| format!("KINDGI_LOG_LEVELS: {message}."))?;
        let raw_format = env.format.as_deref().unwrap_or_default();
        let pretty = match raw_format
            .trim_matches(is_js_whitespace)
            .to_lowercase()
            .as_str()
        {
            "" | "auto" => is_tty,
            "json" => false,
            "pretty" => true,
            _ => {
                let shown = env.format.as_deref().unwrap_or("undefined");
                return Err(format!(
                    "KINDGI_LOG_FORMAT must be auto, json or pretty, got \"{shown}\"."
                ));
            }
        };
        let format = if pretty {
            LogFormat::Pretty {
                colour: is_tty && env.no_color.as_deref().unwrap_or_default().is_empty(),
            }
        } else {
            LogFormat::Json
        };
        Ok(LogSettings {
            level,
            levels,
            format,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(level: &str, levels: &str, format: &str) -> LogEnv {
        let some = |s: &str| Some(s.to_owned());
        LogEnv {
            level: some(level),
            levels: some(levels),
            format: some(format),
            no_color: None,
        }
    }

    #[test]
    fn defaults_and_formats() {
        assert_eq!(
            LogSettings::from_env(&LogEnv::default(), false),
            Ok(LogSettings::default())
        );
        let on_tty = LogSettings::from_env(&env(" ", "", " AUTO "), true).unwrap();
        assert_eq!(on_tty.format, LogFormat::Pretty { colour: true });
        let no_color = LogEnv {
            no_color: Some("1".into()),
            ..env("debug", "", "pretty")
        };
        let piped = LogSettings::from_env(&no_color, false).unwrap();
        assert_eq!(piped.format, LogFormat::Pretty { colour: false });
        assert_eq!(piped.level, Level::Debug);
    }

    #[test]
    fn bad_settings_are_named() {
        assert_eq!(
            LogSettings::from_env(&env("loud", "", ""), false),
            Err(
                "KINDGI_LOG_LEVEL must be one of error, warn, info, debug, trace, got \"loud\"."
                    .into()
            )
        );
        assert_eq!(
            LogSettings::from_env(&env("", "pack", ""), false),
            Err("KINDGI_LOG_LEVELS: \"pack\" isn't subsystem=level (levels: error, warn, info, debug, trace).".into())
        );
        assert_eq!(
            LogSettings::from_env(&env("", "billing=debug,pack=warn", "xml"), false),
            Err("KINDGI_LOG_FORMAT must be auto, json or pretty, got \"xml\".".into())
        );
    }
}
