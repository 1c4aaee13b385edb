//! Discovery globs, with the TypeScript package's semantics: a pattern becomes the same
//! JavaScript regular expression source (`globToRegex`), run here by regress in JavaScript's
//! non-unicode mode over UTF-16 code units, so `?` and `*` match what V8 matches.
//!
//! Syntax: `**` (any depth, none included), `*` (within one segment), `?` (one code unit),
//! `{a,b}` alternation. Inside braces only the regex metacharacters the TypeScript escaper
//! knows are escaped, so `*` and `?` there act as regex quantifiers, as they do in TypeScript.

use std::fmt;
use std::sync::OnceLock;

/// Characters that make a path segment a wildcard segment (for the static prefix).
const GLOB_CHARS: [char; 4] = ['*', '?', '{', '['];

/// Test and spec files sit next to primitives and are never primitives.
pub const TEST_FILE_PATTERN: &str = r"\.(test|spec)\.(ts|js|mjs|cjs)$";

/// The anchored JavaScript regex source for `pattern`.
pub fn glob_regex_source(pattern: &str) -> String {
    let units: Vec<u16> = pattern.encode_utf16().collect();
    String::from_utf16_lossy(&glob_regex_source_utf16(&units))
}

/// [`glob_regex_source`] over UTF-16 code units, as JavaScript strings are (a lone surrogate
/// in a pattern stays one).
pub fn glob_regex_source_utf16(pattern: &[u16]) -> Vec<u16> {
    let unit = |c: char| c as u16;
    let mut out: Vec<u16> = vec![unit('^')];
    let push = |out: &mut Vec<u16>, text: &str| out.extend(text.encode_utf16());
    let mut i = 0;
    while i < pattern.len() {
        let c = pattern[i];
        if c == unit('*') && pattern.get(i + 1) == Some(&unit('*')) {
            // `**/` may match no segment at all; any other `**` matches anything.
            if pattern.get(i + 2) == Some(&unit('/')) {
                push(&mut out, "(?:.*/)?");
                i += 3;
            } else {
                push(&mut out, ".*");
                i += 2;
            }
        } else if c == unit('*') {
            push(&mut out, "[^/]*");
            i += 1;
        } else if c == unit('?') {
            push(&mut out, "[^/]");
            i += 1;
        } else if let Some(close) = (c == unit('{'))
            .then(|| pattern[i..].iter().position(|&u| u == unit('}')))
            .flatten()
        {
            push(&mut out, "(?:");
            for (at, option) in pattern[i + 1..i + close]
                .split(|&u| u == unit(','))
                .enumerate()
            {
                if at > 0 {
                    out.push(unit('|'));
                }
                escape_regex(&mut out, option);
            }
            out.push(unit(')'));
            i += close + 1;
        } else {
            escape_regex(&mut out, &pattern[i..=i]);
            i += 1;
        }
    }
    out.push(unit('$'));
    out
}

/// The TypeScript escaper's set: `.+^$()|[]\{}` (not `*`, `?` or `/`).
fn escape_regex(out: &mut Vec<u16>, text: &[u16]) {
    for &u in text {
        if u < 0x80 && ".+^$()|[]\\{}".contains(char::from(u as u8)) {
            out.push(u16::from(b'\\'));
        }
        out.push(u);
    }
}

/// The regex source regress compiles: every unit past ASCII written as a `(?:\uXXXX)` group,
/// so that in non-unicode mode the pattern and the path are both UTF-16 code units (regress
/// reads two adjacent surrogate escapes as one character even there; a group keeps them
/// apart, as V8 does, and a quantifier after one still takes only that unit).
fn regress_source(source: &[u16]) -> String {
    let mut out = String::with_capacity(source.len());
    for &u in source {
        if u < 0x80 {
            out.push(char::from(u as u8));
        } else {
            out.push_str(&format!("(?:\\u{u:04X})"));
        }
    }
    out
}

/// The directory segments before the first wildcard segment, `/`-joined; `""` is the pack
/// root. A pattern with no wildcard names a file, so its prefix is that file's directory.
pub fn glob_static_prefix(pattern: &str) -> String {
    let segments: Vec<&str> = pattern.split('/').collect();
    let first_glob = segments
        .iter()
        .position(|s| s.contains(GLOB_CHARS.as_slice()));
    let dirs = match first_glob {
        Some(at) => &segments[..at],
        None => &segments[..segments.len().saturating_sub(1)],
    };
    dirs.iter()
        .filter(|s| !s.is_empty() && **s != ".")
        .copied()
        .collect::<Vec<_>>()
        .join("/")
}

/// The folders to walk or watch for `patterns`: each static prefix once, in code-unit order,
/// without those inside another (`[""]` is the pack root).
pub fn discovery_roots<S: AsRef<str>>(patterns: &[S]) -> Vec<String> {
    let mut prefixes: Vec<String> = patterns
        .iter()
        .map(|p| glob_static_prefix(p.as_ref()))
        .collect();
    prefixes.sort_by(|a, b| crate::json::cmp_utf16(a, b));
    prefixes.dedup();
    prefixes
        .iter()
        .filter(|p| {
            !prefixes.iter().any(|other| {
                other != *p && (other.is_empty() || p.starts_with(&format!("{other}/")))
            })
        })
        .cloned()
        .collect()
}

/// A pattern JavaScript's `RegExp` would refuse (an unbalanced quantifier inside braces, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    pub pattern: String,
    pub message: String,
}

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Invalid discovery pattern {:?}: {}",
            self.pattern, self.message
        )
    }
}

impl std::error::Error for GlobError {}

/// A compiled discovery pattern.
#[derive(Debug)]
pub struct Glob {
    regex: regress::Regex,
}

impl Glob {
    /// A pattern as JavaScript holds it: UTF-16 code units, lone surrogates included.
    pub fn from_utf16(pattern: &[u16]) -> Result<Glob, GlobError> {
        let source = regress_source(&glob_regex_source_utf16(pattern));
        let regex = regress::Regex::with_flags(&source, "").map_err(|e| GlobError {
            pattern: String::from_utf16_lossy(pattern),
            message: e.to_string(),
        })?;
        Ok(Glob { regex })
    }

    /// Whether the whole `/`-separated relative path matches.
    pub fn is_match(&self, rel_path: &str) -> bool {
        let units: Vec<u16> = rel_path.encode_utf16().collect();
        self.regex.find_from_ucs2(&units, 0).next().is_some()
    }
}

/// Whether `rel_path` is a test or spec file: [`TEST_FILE_PATTERN`], the one rule JavaScript's
/// `TEST_FILE_REGEX` is made from.
pub fn is_test_file(rel_path: &str) -> bool {
    static TEST_FILE: OnceLock<Option<regress::Regex>> = OnceLock::new();
    TEST_FILE
        .get_or_init(|| regress::Regex::new(TEST_FILE_PATTERN).ok())
        .as_ref()
        .is_some_and(|regex| regex.find(rel_path).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(pattern: &str) -> Result<Glob, GlobError> {
        Glob::from_utf16(&pattern.encode_utf16().collect::<Vec<u16>>())
    }

    fn matches(pattern: &str, path: &str) -> bool {
        glob(pattern).map(|g| g.is_match(path)).unwrap_or(false)
    }

    #[test]
    fn regex_source_is_the_typescript_one() {
        assert_eq!(
            glob_regex_source("tools/**/*.{ts,js,mjs}"),
            r"^tools/(?:.*/)?[^/]*\.(?:ts|js|mjs)$"
        );
        assert_eq!(glob_regex_source("a/**"), "^a/.*$");
        assert_eq!(glob_regex_source("a?b"), "^a[^/]b$");
        assert_eq!(glob_regex_source("a{b"), r"^a\{b$");
        assert_eq!(glob_regex_source("{a.b,(c)}"), r"^(?:a\.b|\(c\))$");
        assert_eq!(glob_regex_source("x+y[1]"), r"^x\+y\[1\]$");
        // A lone surrogate stays one code unit.
        assert_eq!(
            glob_regex_source_utf16(&[0xD800, u16::from(b'*')]),
            [
                &[u16::from(b'^'), 0xD800][..],
                &"[^/]*$".encode_utf16().collect::<Vec<_>>()
            ]
            .concat()
        );
    }

    #[test]
    fn default_patterns_match_at_any_depth() {
        let p = "tools/**/*.{ts,js,mjs}";
        assert!(matches(p, "tools/echo.ts"));
        assert!(matches(p, "tools/a/b/echo.mjs"));
        assert!(!matches(p, "tools/echo.cjs"));
        assert!(!matches(p, "other/tools/echo.ts"));
        assert!(!matches(p, "tools"));
    }

    #[test]
    fn single_star_and_question_stay_in_one_segment() {
        assert!(matches("src/*.js", "src/a.js"));
        assert!(!matches("src/*.js", "src/a/b.js"));
        assert!(matches("a?.js", "ab.js"));
        assert!(!matches("a?.js", "a/.js"));
        // `?` matches one UTF-16 code unit, as in JavaScript: an astral character is two.
        assert!(!matches("a?.js", "a😀.js"));
        assert!(matches("a??.js", "a😀.js"));
        // Literal characters past ASCII, astral ones too, match themselves.
        assert!(matches("ab/𝒳.mjs", "ab/𝒳.mjs"));
        assert!(matches("ab/{😀x,é}.mjs", "ab/é.mjs"));
        assert!(matches("ab/😀*.mjs", "ab/😀z.mjs"));
    }

    #[test]
    fn double_star_stops_at_line_terminators_as_dot_does() {
        assert!(!matches("a/**", "a/b\nc"));
        assert!(matches("a/*", "a/b\nc"));
    }

    #[test]
    fn brace_options_are_regex_text() {
        assert!(matches("x.{a*,b}", "x.aaa"));
        assert!(matches("x.{a*,b}", "x."));
        assert!(glob("{*}").is_err());
    }

    #[test]
    fn static_prefix_and_roots() {
        assert_eq!(glob_static_prefix("kindgi/tools/**/*.ts"), "kindgi/tools");
        assert_eq!(glob_static_prefix("**/*.ts"), "");
        assert_eq!(glob_static_prefix("./tools/x.ts"), "tools");
        assert_eq!(glob_static_prefix("x.ts"), "");
        assert_eq!(glob_static_prefix("a/[b]/c"), "a");
        assert_eq!(
            discovery_roots(&["tools/**", "tools/sub/*.ts", "flows/*.ts", "flowsy/*.ts"]),
            vec!["flows", "flowsy", "tools"]
        );
        assert_eq!(discovery_roots(&["**/*.ts", "tools/*.ts"]), vec![""]);
    }

    #[test]
    fn test_files() {
        assert!(is_test_file("tools/echo.test.ts"));
        assert!(is_test_file("tools/echo.spec.cjs"));
        assert!(!is_test_file("tools/echo.test.tsx"));
        assert!(!is_test_file("tools/test.ts"));
        assert!(is_test_file("a.spec.mjs"));
    }
}
