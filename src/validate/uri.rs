//! URI reference resolution for `$id` and `$ref`, as Ajv resolves them with `fast-uri`:
//! RFC 3986 section 5.2 (strict: a reference with a scheme is absolute), then the
//! normalisation fast-uri's serialiser applies: scheme and host in lower case, percent-escapes
//! of unreserved characters decoded and the others' hex digits in upper case.

/// A URI reference split as RFC 3986 appendix B splits it.
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn parse(text: &str) -> Parts<'_> {
    let (rest, fragment) = match text.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (text, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    // A scheme is what comes before the first ':' when no '/' comes before it.
    let (scheme, rest) = match rest.find([':', '/']) {
        Some(at) if rest.as_bytes()[at] == b':' && at > 0 => (Some(&rest[..at]), &rest[at + 1..]),
        _ => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(&after[..end]), &after[end..])
        }
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

/// RFC 3986 5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut input = path;
    let mut output = String::with_capacity(path.len());
    while !input.is_empty() {
        if let Some(rest) = input
            .strip_prefix("../")
            .or_else(|| input.strip_prefix("./"))
        {
            input = rest;
        } else if input.starts_with("/./") {
            input = &input[2..];
        } else if input == "/." {
            input = "/";
        } else if input.starts_with("/../") || input == "/.." {
            input = if input == "/.." { "/" } else { &input[3..] };
            let cut = output.rfind('/').unwrap_or(0);
            output.truncate(cut);
        } else if input == "." || input == ".." {
            input = "";
        } else {
            let start = usize::from(input.starts_with('/'));
            let end = input[start..].find('/').map_or(input.len(), |i| i + start);
            output.push_str(&input[..end]);
            input = &input[end..];
        }
    }
    output
}

/// Dot segments removed from a relative path (no scheme, no authority, not starting with `/`)
/// as fast-uri removes them: a `..` that cannot go up is kept, the path never becomes
/// root-relative, and one that would be empty, start with an empty segment or hold a `:` in
/// its first segment stays behind a `.` segment.
fn remove_dot_segments_relative(path: &str) -> String {
    if path.is_empty() || path.starts_with('/') {
        return remove_dot_segments(path);
    }
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len() - 1;
    let mut output: Vec<&str> = Vec::new();
    let mut trailing_directory = false;
    for (at, segment) in segments.iter().enumerate() {
        if *segment == "." || *segment == ".." {
            if *segment == ".." {
                if output.last().is_some_and(|s| *s != "..") {
                    output.pop();
                } else {
                    output.push("..");
                }
            }
            trailing_directory = at == last;
        } else {
            output.push(segment);
        }
    }
    if trailing_directory && output.last() != Some(&"..") {
        output.push("");
    }
    if output
        .first()
        .is_none_or(|first| first.is_empty() || first.contains(':'))
    {
        output.insert(0, ".");
    }
    output.join("/")
}

/// RFC 3986 5.2.3.
fn merge(base: &Parts<'_>, reference_path: &str) -> String {
    if base.authority.is_some() && base.path.is_empty() {
        return format!("/{reference_path}");
    }
    match base.path.rfind('/') {
        Some(at) => format!("{}{reference_path}", &base.path[..=at]),
        None => reference_path.to_owned(),
    }
}

/// `reference` resolved against `base` as they are (fast-uri's `resolve` merges before it
/// normalises), then normalised as fast-uri serialises it.
pub fn resolve(base: &str, reference: &str) -> String {
    let b = parse(base);
    let r = parse(reference);
    let target = if r.scheme.is_some() {
        Parts { path: r.path, ..r }
    } else if r.authority.is_some() {
        Parts {
            scheme: b.scheme,
            ..r
        }
    } else if r.path.is_empty() {
        Parts {
            scheme: b.scheme,
            authority: b.authority,
            path: b.path,
            query: r.query.or(b.query),
            fragment: r.fragment,
        }
    } else {
        let merged = if r.path.starts_with('/') {
            r.path.to_owned()
        } else {
            merge(&b, r.path)
        };
        let path = clean_path(b.scheme.is_none() && b.authority.is_none(), &merged);
        return serialize(&Parts {
            scheme: b.scheme,
            authority: b.authority,
            path: &path,
            query: r.query,
            fragment: r.fragment,
        });
    };
    serialize(&target)
}

/// Dot segments removed: as a relative path when there is no scheme or authority and the
/// path does not start at the root.
fn clean_path(relative: bool, path: &str) -> String {
    if relative && !path.starts_with('/') {
        remove_dot_segments_relative(path)
    } else {
        remove_dot_segments(path)
    }
}

fn serialize(parts: &Parts<'_>) -> String {
    let mut out = String::new();
    if let Some(scheme) = parts.scheme {
        out.push_str(&scheme.to_ascii_lowercase());
        out.push(':');
    }
    if let Some(authority) = parts.authority {
        out.push_str("//");
        out.push_str(&normalize_authority(authority));
    }
    let decoded = normalize_escapes(parts.path);
    out.push_str(&clean_path(
        parts.scheme.is_none() && parts.authority.is_none(),
        &decoded,
    ));
    if let Some(query) = parts.query {
        out.push('?');
        out.push_str(&normalize_escapes(query));
    }
    if let Some(fragment) = parts.fragment {
        out.push('#');
        out.push_str(&normalize_escapes(fragment));
    }
    out
}

/// The host in lower case (escapes of unreserved characters decoded first, the others' hex
/// digits still upper case); user information and port as they are.
fn normalize_authority(authority: &str) -> String {
    let (userinfo, host_port) = match authority.rfind('@') {
        Some(at) => (&authority[..=at], &authority[at + 1..]),
        None => ("", authority),
    };
    format!(
        "{userinfo}{}",
        normalize_escapes(&normalize_escapes(host_port).to_ascii_lowercase())
    )
}

fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-._~".contains(&byte)
}

/// `%XX` of an unreserved character decoded; any other escape's hex digits in upper case.
fn normalize_escapes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < bytes.len() {
        let escape = (bytes[at] == b'%')
            .then(|| text.get(at + 1..at + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok().map(|byte| (hex, byte)));
        match escape {
            Some((_, byte)) if is_unreserved(byte) => {
                out.push(char::from(byte));
                at += 3;
            }
            Some((hex, _)) => {
                out.push('%');
                out.push_str(&hex.to_ascii_uppercase());
                at += 3;
            }
            None => {
                let next = text[at..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[at..at + next]);
                at += next;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::resolve;

    /// RFC 3986 5.4.1 and 5.4.2, with fast-uri's answers (the same as the RFC's).
    #[test]
    fn rfc_3986_examples() {
        let base = "http://a/b/c/d;p?q";
        for (reference, wanted) in [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"),
            ("g;x", "http://a/b/c/g;x"),
            ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("../../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            (".g", "http://a/b/c/.g"),
            ("g..", "http://a/b/c/g.."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("./g/.", "http://a/b/c/g/"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
            ("g;x=1/../y", "http://a/b/c/y"),
            ("g?y/./x", "http://a/b/c/g?y/./x"),
            ("g?y/../x", "http://a/b/c/g?y/../x"),
            ("g#s/./x", "http://a/b/c/g#s/./x"),
            ("g#s/../x", "http://a/b/c/g#s/../x"),
            ("http:g", "http:g"),
        ] {
            assert_eq!(resolve(base, reference), wanted, "{reference}");
        }
    }

    #[test]
    fn normalised_as_fast_uri_serialises() {
        assert_eq!(resolve("HTTP://EXAMPLE.com/a", "b"), "http://example.com/b");
        assert_eq!(resolve("http://a/b", "HTTP://X.COM/Y"), "http://x.com/Y");
        assert_eq!(
            resolve("http://USER@A.com:80/x", "y"),
            "http://USER@a.com:80/y"
        );
        assert_eq!(
            resolve("http://a/%41b/c", "d%2fe%7Ef"),
            "http://a/Ab/d%2Fe~f"
        );
        assert_eq!(resolve("urn:uuid:1234", "#foo"), "urn:uuid:1234#foo");
        assert_eq!(resolve("urn:a:b", "c"), "urn:c");
        assert_eq!(resolve("http://a", "g"), "http://a/g");
        assert_eq!(resolve("http://a", "?q"), "http://a?q");
        assert_eq!(resolve("", "foo.json"), "foo.json");
        assert_eq!(resolve("a/b/c", "../d"), "a/d");
        assert_eq!(resolve("x", "/../y"), "/y");
        assert_eq!(resolve("%41/../schema", "#"), "schema#");
        assert_eq!(resolve("schema/a", "./../.."), "..");
        assert_eq!(
            resolve("a?a#b", "./uuid:1/schema?a#b"),
            "./uuid:1/schema?a#b"
        );
        assert_eq!(resolve("http://a/b", "g:h/../i"), "g:/i");
        assert_eq!(resolve("tag:x,y:/a/b", "c"), "tag:x,y:/a/c");
        assert_eq!(resolve("HTTP://%41/../%7e#", "?q"), "http://a/~?q");
        assert_eq!(resolve("http://%2f/..", ""), "http://%2F/");
    }
}
