//! How many items or members each array and object of a JSON text holds, counted before it is
//! parsed, so that a parse can allocate every list at its size.
//!
//! A list grown by doubling is copied at each step, and the allocator keeps the buffers it
//! left for a while: a long array's tree peaks at several times its final size. Counting is a
//! scan of the structure alone (strings are skipped eight bytes at a time), well below the
//! cost of the parse.

use super::grammar::MAX_DEPTH;
use super::scan::plain_len;

/// The item or member count of every array and object of `text`, in the order they open. For
/// a text that is not JSON the counts are only hints (a parse refuses it anyway), and never
/// more than its items hold bytes: a separator with nothing before it counts nothing, and
/// nothing past `MAX_DEPTH` is counted, so that `{,,,…}` or `[[[…` cannot make a parse
/// reserve more than the text could fill.
pub fn container_sizes(text: &str) -> Vec<u32> {
    let bytes = text.as_bytes();
    let mut sizes: Vec<u32> = Vec::new();
    // The open containers: their place in `sizes`, and whether anything was read in them
    // since they opened or since their last separator.
    let mut open: Vec<(usize, bool)> = Vec::new();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        at += 1;
        match byte {
            b' ' | b'\t' | b'\n' | b'\r' | b':' => continue,
            b',' => {
                if let Some((index, item)) = open.last_mut() {
                    if *item {
                        add_one(&mut sizes, *index);
                        *item = false;
                    }
                }
                continue;
            }
            b']' | b'}' => {
                // The last item has no comma after it.
                if let Some((index, true)) = open.pop() {
                    add_one(&mut sizes, index);
                }
                continue;
            }
            _ => {}
        }
        if let Some((_, nonempty)) = open.last_mut() {
            *nonempty = true;
        }
        match byte {
            b'[' | b'{' => {
                if open.len() >= MAX_DEPTH {
                    break;
                }
                open.push((sizes.len(), false));
                sizes.push(0);
            }
            b'"' => at = string_end(bytes, at),
            _ => {}
        }
    }
    sizes
}

fn add_one(sizes: &mut [u32], index: usize) {
    if let Some(size) = sizes.get_mut(index) {
        *size = size.saturating_add(1);
    }
}

/// Where the string whose content starts at `at` ends (after its closing quote).
fn string_end(bytes: &[u8], mut at: usize) -> usize {
    loop {
        at += plain_len(bytes.get(at..).unwrap_or_default());
        match bytes.get(at) {
            None => return at,
            Some(b'"') => return at + 1,
            // An escape: its next byte is never the end.
            Some(b'\\') => at += 2,
            // A control character (not JSON): read on.
            Some(_) => at += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_container_in_the_order_it_opens() {
        assert_eq!(container_sizes("[]"), vec![0]);
        assert_eq!(container_sizes(" [ ] "), vec![0]);
        assert_eq!(container_sizes("[1, 2 ,3]"), vec![3]);
        assert_eq!(container_sizes("{}"), vec![0]);
        assert_eq!(
            container_sizes(r#"{"a": [1, [], {"b": null}], "c": {}}"#),
            vec![2, 3, 0, 1, 0]
        );
        assert_eq!(container_sizes("[[[]], [[1, 2]]]"), vec![2, 1, 0, 1, 2]);
        assert_eq!(container_sizes("7"), Vec::<u32>::new());
    }

    #[test]
    fn strings_are_skipped_whatever_they_hold() {
        assert_eq!(container_sizes(r#"["a,b]", "\"[{,", "\\", "x"]"#), vec![4]);
        assert_eq!(container_sizes(r#"{"k,\"}": "v]"}"#), vec![1]);
        // A long string, past the eight-byte steps.
        let long = format!(r#"["{}", 1]"#, ",".repeat(100));
        assert_eq!(container_sizes(&long), vec![2]);
    }

    #[test]
    fn text_that_is_not_json_gives_hints_and_no_panic() {
        for text in ["[1,", "]]]", "{\"a", "[\"\\", ",,,", "[}", "\"\u{1}\""] {
            let _ = container_sizes(text);
        }
        assert_eq!(container_sizes("[1,,2]"), vec![2]);
    }

    #[test]
    fn separators_alone_and_depth_past_the_limit_count_nothing() {
        assert_eq!(
            container_sizes(&format!("{{{}}}", ",".repeat(1000))),
            vec![0]
        );
        assert_eq!(
            container_sizes(&format!("[{}1]", ",".repeat(1000))),
            vec![1]
        );
        let deep = "[".repeat(MAX_DEPTH * 3);
        assert_eq!(container_sizes(&deep).len(), MAX_DEPTH);
    }
}
