//! Which files are a pack's primitives: each discovery pattern's static prefix walked (never
//! `node_modules`, dot entries or symbolic links), or a bundle map's source paths, classified
//! by the first pattern that matches them, test files left out, sorted by code unit.

use super::glob::{glob_static_prefix, is_test_file, Glob, GlobError};
use super::PrimitiveKind;
use crate::json::cmp_utf16;
use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// A file to import, by its `/`-separated path relative to the pack folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveredFile {
    pub rel_path: String,
    /// The kind its folder promises (`tools/…` must be a tool); `None` for a file a custom
    /// pattern found, whose kind its default export's shape decides.
    pub expected_kind: Option<PrimitiveKind>,
}

/// The four patterns, in the order that decides a file two of them match, as UTF-16 code units
/// (a JavaScript string's, lone surrogates kept).
pub type Patterns = [(PrimitiveKind, Vec<u16>); 4];

/// Walks `pack_dir` for the files the patterns match.
pub fn discover_files(
    pack_dir: &Path,
    patterns: &Patterns,
) -> Result<Vec<DiscoveredFile>, GlobError> {
    let mut found = Found::default();
    for (kind, pattern) in patterns {
        let glob = Glob::from_utf16(pattern)?;
        let mut matches = Vec::new();
        let prefix = glob_static_prefix(&String::from_utf16_lossy(pattern));
        walk(pack_dir, &prefix, &glob, &mut matches);
        for rel in matches {
            found.classify(rel, *kind);
        }
    }
    Ok(found.sorted())
}

/// The bundle map's source paths that the patterns match, classified as a walk would.
pub fn discover_in_bundle_map(
    sources: &[String],
    patterns: &Patterns,
) -> Result<Vec<DiscoveredFile>, GlobError> {
    let mut found = Found::default();
    for (kind, pattern) in patterns {
        let glob = Glob::from_utf16(pattern)?;
        for rel in sources.iter().filter(|rel| glob.is_match(rel)) {
            found.classify(rel.clone(), *kind);
        }
    }
    Ok(found.sorted())
}

fn walk(root: &Path, rel: &str, glob: &Glob, matches: &mut Vec<String>) {
    let dir = if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel)
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "node_modules" || name.starts_with('.') {
            continue;
        }
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        // The entry's own type: a symbolic link is neither, as with Node's `Dirent`.
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            walk(root, &child, glob, matches);
        } else if file_type.is_file() && glob.is_match(&child) {
            matches.push(child);
        }
    }
}

/// Files seen so far, each with the kind of the first pattern that matched it.
#[derive(Default)]
struct Found {
    files: Vec<DiscoveredFile>,
    seen: HashSet<String>,
}

impl Found {
    fn classify(&mut self, rel_path: String, kind: PrimitiveKind) {
        if is_test_file(&rel_path) || !self.seen.insert(rel_path.clone()) {
            return;
        }
        let first_segment = rel_path.split('/').next().unwrap_or_default();
        let expected_kind = (first_segment == kind.default_folder()).then_some(kind);
        self.files.push(DiscoveredFile {
            rel_path,
            expected_kind,
        });
    }

    fn sorted(mut self) -> Vec<DiscoveredFile> {
        self.files
            .sort_by(|a, b| cmp_utf16(&a.rel_path, &b.rel_path));
        self.files
    }
}

/// Node's `mtimeMs` of `path` (`fs.stat`), when it exists.
pub fn mtime_ms(path: &Path) -> Option<f64> {
    let modified = fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    Some(node_mtime_ms(since))
}

/// Node's `mtimeMs` for a time `since` the epoch: seconds times 1e3 plus nanoseconds over
/// 1e6, in doubles.
fn node_mtime_ms(since: Duration) -> f64 {
    since.as_secs() as f64 * 1e3 + f64::from(since.subsec_nanos()) / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mtime_is_in_milliseconds_as_node_counts_them() {
        assert_eq!(node_mtime_ms(Duration::new(2, 500_500_000)), 2500.5);
        assert_eq!(node_mtime_ms(Duration::new(1, 250_000)), 1000.25);
        assert_eq!(mtime_ms(Path::new("/no/such/file")), None);
    }
    use std::fs;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn patterns(tools: &str) -> Patterns {
        [
            (PrimitiveKind::Tool, units(tools)),
            (
                PrimitiveKind::Guardrail,
                units("guardrails/**/*.{ts,js,mjs}"),
            ),
            (PrimitiveKind::Agent, units("agents/**/*.{ts,js,mjs}")),
            (PrimitiveKind::Flow, units("flows/**/*.{ts,js,mjs}")),
        ]
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("kindgi-discover-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn touch(root: &Path, rel: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        fs::write(path, "export default {}").expect("write");
    }

    #[test]
    fn walks_prefixes_skipping_modules_dots_and_tests() {
        let dir = scratch("walk");
        for rel in [
            "tools/b.ts",
            "tools/a/deep.mjs",
            "tools/a.test.ts",
            "tools/node_modules/x.ts",
            "tools/.hidden/y.ts",
            "tools/.z.ts",
            "tools/readme.md",
            "guardrails/g.js",
            "elsewhere/t.ts",
        ] {
            touch(&dir, rel);
        }
        let files = discover_files(&dir, &patterns("tools/**/*.{ts,js,mjs}")).expect("globs");
        let rels: Vec<_> = files.iter().map(|f| f.rel_path.as_str()).collect();
        assert_eq!(rels, ["guardrails/g.js", "tools/a/deep.mjs", "tools/b.ts"]);
        assert!(files.iter().all(|f| f
            .expected_kind
            .is_some_and(|k| f.rel_path.starts_with(k.default_folder()))));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn custom_patterns_leave_the_kind_to_the_shape_and_the_first_pattern_wins() {
        let dir = scratch("custom");
        touch(&dir, "src/x.ts");
        touch(&dir, "guardrails/g.ts");
        let mut p = patterns("src/*.ts");
        p[2].1 = units("**/*.ts");
        let files = discover_files(&dir, &p).expect("globs");
        assert_eq!(
            files,
            vec![
                DiscoveredFile {
                    rel_path: "guardrails/g.ts".into(),
                    expected_kind: Some(PrimitiveKind::Guardrail)
                },
                DiscoveredFile {
                    rel_path: "src/x.ts".into(),
                    expected_kind: None
                },
            ]
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_are_not_followed() {
        let dir = scratch("links");
        touch(&dir, "real/t.ts");
        fs::create_dir_all(dir.join("tools")).expect("mkdir");
        std::os::unix::fs::symlink(dir.join("real"), dir.join("tools/linked")).expect("link");
        std::os::unix::fs::symlink(dir.join("real/t.ts"), dir.join("tools/t.ts")).expect("link");
        let files = discover_files(&dir, &patterns("tools/**/*.ts")).expect("globs");
        assert!(files.is_empty());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn bundle_map_sources_are_classified_alike() {
        let sources = vec![
            "tools/z.ts".to_string(),
            "tools/a.test.ts".into(),
            "other/o.ts".into(),
            "tools/a.ts".into(),
        ];
        let files =
            discover_in_bundle_map(&sources, &patterns("tools/**/*.{ts,js,mjs}")).expect("globs");
        let rels: Vec<_> = files.iter().map(|f| f.rel_path.as_str()).collect();
        assert_eq!(rels, ["tools/a.ts", "tools/z.ts"]);
    }
}
