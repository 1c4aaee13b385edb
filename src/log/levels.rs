//! `@kindgi/log` levels: their names, their order, and the per-subsystem levels of
//! `KINDGI_LOG_LEVELS` (a dotted subsystem inherits its nearest parent's level).

use crate::js::is_js_whitespace;

/// A record's level, least severe first so that `>=` means "at least as severe".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

/// The level names, most severe first, as the error messages list them.
pub const LEVEL_NAMES: &str = "error, warn, info, debug, trace";

impl Level {
    /// Every level, least severe first.
    pub const ALL: [Level; 5] = [
        Level::Trace,
        Level::Debug,
        Level::Info,
        Level::Warn,
        Level::Error,
    ];

    /// The level's number, as `@kindgi/log` numbers them (trace 10 … error 50).
    pub fn rank(self) -> u32 {
        match self {
            Level::Trace => 10,
            Level::Debug => 20,
            Level::Info => 30,
            Level::Warn => 40,
            Level::Error => 50,
        }
    }

    /// Every level's name and rank, least severe first (what `lib/logs.js`'s `RANK` holds).
    pub fn rank_table() -> impl Iterator<Item = (&'static str, u32)> {
        Level::ALL
            .into_iter()
            .map(|level| (level.name(), level.rank()))
    }

    /// A lifecycle record's level by its event: `error` for a boot that failed or a
    /// configuration refused, `info` for the rest.
    pub fn of_lifecycle_event(event: &str) -> Level {
        match event {
            "boot-failed" | "config-invalid" => Level::Error,
            "js-stalled" => Level::Warn,
            _ => Level::Info,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warn",
            Level::Info => "info",
            Level::Debug => "debug",
            Level::Trace => "trace",
        }
    }

    /// Cloud Logging's severity for the level.
    pub fn severity(self) -> &'static str {
        match self {
            Level::Error => "ERROR",
            Level::Warn => "WARNING",
            Level::Info => "INFO",
            Level::Debug | Level::Trace => "DEBUG",
        }
    }

    /// The level's five-character label in the pretty format.
    pub fn label(self) -> &'static str {
        match self {
            Level::Error => "ERROR",
            Level::Warn => "WARN ",
            Level::Info => "INFO ",
            Level::Debug => "DEBUG",
            Level::Trace => "TRACE",
        }
    }

    /// A level's name, case and surrounding whitespace aside.
    pub fn parse(raw: &str) -> Option<Level> {
        match raw.trim_matches(is_js_whitespace).to_lowercase().as_str() {
            "error" => Some(Level::Error),
            "warn" => Some(Level::Warn),
            "info" => Some(Level::Info),
            "debug" => Some(Level::Debug),
            "trace" => Some(Level::Trace),
            _ => None,
        }
    }
}

/// Per-subsystem levels (`kernel=debug,http=warn`); a later entry for a name replaces an
/// earlier one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubsystemLevels(Vec<(String, Level)>);

impl SubsystemLevels {
    /// `KINDGI_LOG_LEVELS`'s form. An entry that is not `name=level` is an error quoting it.
    pub fn parse(raw: &str) -> Result<SubsystemLevels, String> {
        let mut levels = SubsystemLevels::default();
        for entry in raw.split(',') {
            let entry = entry.trim_matches(is_js_whitespace);
            if entry.is_empty() {
                continue;
            }
            let parsed = entry.split_once('=').and_then(|(name, level)| {
                let name = name.trim_matches(is_js_whitespace);
                Some((name, Level::parse(level)?)).filter(|(name, _)| !name.is_empty())
            });
            let Some((name, level)) = parsed else {
                return Err(format!(
                    "\"{entry}\" isn't subsystem=level (levels: {LEVEL_NAMES})"
                ));
            };
            levels.0.retain(|(known, _)| known != name);
            levels.0.push((name.to_owned(), level));
        }
        Ok(levels)
    }

    fn own(&self, subsystem: &str) -> Option<Level> {
        self.0
            .iter()
            .find(|(name, _)| name == subsystem)
            .map(|(_, level)| *level)
    }

    /// The level for `subsystem`: its own entry, else its nearest dotted parent's, else
    /// `fallback`.
    pub fn level_for(&self, subsystem: &str, fallback: Level) -> Level {
        let mut name = subsystem;
        loop {
            if let Some(level) = self.own(name) {
                return level;
            }
            match name.rfind('.') {
                Some(dot) => name = &name[..dot],
                None => return fallback,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_table_is_log_s_own() {
        let table: Vec<_> = Level::rank_table().collect();
        assert_eq!(
            table,
            [
                ("trace", 10),
                ("debug", 20),
                ("info", 30),
                ("warn", 40),
                ("error", 50)
            ]
        );
    }

    #[test]
    fn lifecycle_failures_are_errors() {
        assert_eq!(Level::of_lifecycle_event("boot-failed"), Level::Error);
        assert_eq!(Level::of_lifecycle_event("config-invalid"), Level::Error);
        assert_eq!(Level::of_lifecycle_event("listening"), Level::Info);
        assert_eq!(Level::of_lifecycle_event("missing-env"), Level::Info);
        assert_eq!(Level::of_lifecycle_event("js-stalled"), Level::Warn);
        assert_eq!(Level::of_lifecycle_event("js-resumed"), Level::Info);
    }

    #[test]
    fn parses_levels_loosely() {
        assert_eq!(Level::parse(" WARN "), Some(Level::Warn));
        assert_eq!(Level::parse("loud"), None);
        assert!(Level::Error > Level::Warn && Level::Debug > Level::Trace);
        // The ranks keep the levels' order, and `ALL` lists them in it.
        assert!(Level::ALL
            .windows(2)
            .all(|w| w[0] < w[1] && w[0].rank() < w[1].rank()));
    }

    #[test]
    fn subsystem_levels_inherit_by_dotted_parent() {
        let levels = SubsystemLevels::parse(" kernel=debug, pack = warn,,pack=error").unwrap();
        assert_eq!(
            levels.level_for("kernel.sweeper", Level::Info),
            Level::Debug
        );
        assert_eq!(levels.level_for("pack.tool", Level::Info), Level::Error);
        assert_eq!(levels.level_for("http", Level::Info), Level::Info);
    }

    #[test]
    fn malformed_entries_are_quoted() {
        for bad in ["pack", "=warn", "pack=loud"] {
            assert_eq!(
                SubsystemLevels::parse(&format!("a=info, {bad} ")),
                Err(format!(
                    "\"{bad}\" isn't subsystem=level (levels: error, warn, info, debug, trace)"
                ))
            );
        }
    }
}
