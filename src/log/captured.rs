//! Lines written on one thread while it is inside [`capture`], kept and handed back instead
//! of written. `@kindgi/log` writes synchronously, and callers read what a `log.info()` or
//! `event()` wrote right after it: a JS `write` sink's lines from the JS thread go back to JS
//! this way, in the same call, while lines from other threads are queued to it.

use std::cell::RefCell;

thread_local! {
    /// The lines kept on this thread while it is inside [`capture`].
    static CAPTURED: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Runs `log` and returns the lines [`keep_if_capturing`] kept meanwhile on this thread, if any.
pub fn capture(log: impl FnOnce()) -> Option<Vec<String>> {
    CAPTURED.with(|captured| *captured.borrow_mut() = Some(Vec::new()));
    log();
    CAPTURED
        .with(|captured| captured.borrow_mut().take())
        .filter(|lines| !lines.is_empty())
}

/// Keeps `line` when this thread is inside [`capture`]; false when it is not, and the line is
/// the caller's to write.
pub fn keep_if_capturing(line: &str) -> bool {
    CAPTURED.with(|captured| match captured.borrow_mut().as_mut() {
        Some(lines) => {
            lines.push(line.to_owned());
            true
        }
        None => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_kept_only_inside_a_capture_and_only_on_its_thread() {
        assert!(!keep_if_capturing("before"));
        let kept = capture(|| {
            assert!(keep_if_capturing("one"));
            let elsewhere = std::thread::spawn(|| keep_if_capturing("other thread")).join();
            assert_eq!(elsewhere.ok(), Some(false));
            assert!(keep_if_capturing("two"));
        });
        assert_eq!(kept, Some(vec!["one".to_owned(), "two".to_owned()]));
        assert!(!keep_if_capturing("after"));
        assert_eq!(capture(|| {}), None, "nothing written");
    }
}
