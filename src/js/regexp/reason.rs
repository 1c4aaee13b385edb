//! V8's words for what regress refuses in Unicode mode: regress's errors name the same faults
//! in its own words, mapped here to V8's where the fault is one V8 names the same way.

/// V8's words for a regular expression it refuses, from the regex engine's (`new RegExp`
/// throws them and Ajv passes them on); an error without a known counterpart keeps its own text.
pub fn v8_error_reason(source: &str, reason: &str) -> String {
    let reversed_braces = source.split('{').skip(1).any(|rest| {
        let inner = rest.split('}').next().unwrap_or("");
        match inner.split_once(',') {
            Some((lo, hi)) => {
                matches!((lo.parse::<u64>(), hi.parse::<u64>()), (Ok(lo), Ok(hi)) if lo > hi)
            }
            None => false,
        }
    });
    if reversed_braces
        && matches!(
            reason,
            "Invalid quantifier" | "Invalid braced quantifier" | "Invalid atom character"
        )
    {
        return "numbers out of order in {} quantifier".into();
    }
    let opened = source.matches('(').count();
    let closed = source.matches(')').count();
    let v8 = match reason {
        "Unbalanced parenthesis" if opened > closed => "Unterminated group",
        "Unbalanced parenthesis" => "Unmatched ')'",
        "Unbalanced bracket" => "Unterminated character class",
        "Range values reversed, start char code is greater than end char code." => {
            "Range out of order in character class"
        }
        // A range with a class escape at an end (`[a-\d]`), which only Unicode mode refuses.
        "Invalid character range" => "Invalid character class",
        "Invalid atom character" | "Invalid quantifier" | "Quantifier not allowed here" => {
            "Nothing to repeat"
        }
        "Invalid braced quantifier" => "Incomplete quantifier",
        "Invalid unicode escape" => "Invalid Unicode escape",
        "Invalid character escape" | "Incomplete escape" => "Invalid escape",
        "Unterminated escape" => "\\ at end of pattern",
        "Invalid property name"
        | "Invalid property escape"
        | "Invalid character at property escape start" => "Invalid property name",
        "Duplicate capture group name" => "Duplicate capture group name",
        "Invalid token at named capture group identifier" => "Invalid capture group name",
        "Invalid named backreference syntax" => "Invalid named reference",
        other if other.starts_with("Backreference to invalid named capture group") => {
            "Invalid named capture referenced"
        }
        other => other,
    };
    v8.to_owned()
}
