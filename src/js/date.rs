//! A port of V8's `Date.parse` (src/date/dateparser*.{h,cc} and `ParseDateTimeString` of
//! src/date/date.cc, V8 11.3 as in Node 20), which `new Date(string)` uses: an ES5 ISO
//! date-time string, or else the legacy (Safari-compatible) format. Strings are read as UTF-16
//! code units, and a NUL code unit ends the input, as in V8.
//!
//! The only difference: a date-time without a UTC offset is local time in V8; here it is read
//! as UTC (a Node process with `TZ=UTC`).

use super::text::{is_white_space, is_white_space_or_line_terminator};

/// `kNone` (kMaxInt) marks a missing value.
const NONE: i32 = i32::MAX;
/// `kMaxSignificantDigits`: digits of a numeral beyond the ninth significant one are skipped.
const MAX_SIGNIFICANT_DIGITS: usize = 9;
/// `DateCache::kMaxTimeInMs` (TimeClip).
const MAX_TIME_MS: i64 = 864_000_000 * 10_000_000;
const MS_PER_DAY: i64 = 86_400_000;

fn between(x: i32, lo: i32, hi: i32) -> bool {
    lo <= x && x <= hi
}
fn is_minute(x: i32) -> bool {
    between(x, 0, 59)
}
fn is_hour(x: i32) -> bool {
    between(x, 0, 23)
}
fn is_second(x: i32) -> bool {
    between(x, 0, 59)
}
fn is_hour12(x: i32) -> bool {
    between(x, 0, 12)
}
fn is_millisecond(x: i32) -> bool {
    between(x, 0, 999)
}
fn is_month(x: i32) -> bool {
    between(x, 1, 12)
}
fn is_day(x: i32) -> bool {
    between(x, 1, 31)
}

/// `InputReader`: `ch` is the current code unit, 0 at the end.
struct InputReader<'a> {
    buffer: &'a [u16],
    index: usize,
    ch: u32,
}

impl<'a> InputReader<'a> {
    fn new(buffer: &'a [u16]) -> Self {
        let mut r = InputReader {
            buffer,
            index: 0,
            ch: 0,
        };
        r.next();
        r
    }
    fn position(&self) -> usize {
        self.index
    }
    fn next(&mut self) {
        self.ch = self.buffer.get(self.index).map_or(0, |&u| u32::from(u));
        self.index += 1;
    }
    /// Leading zeros are skipped first, then at most 9 significant digits are kept (the
    /// token length still counts every digit).
    fn read_unsigned_numeral(&mut self) -> i32 {
        let mut n: i32 = 0;
        let mut i = 0;
        while self.ch == u32::from(b'0') {
            self.next();
        }
        while self.is_ascii_digit() {
            if i < MAX_SIGNIFICANT_DIGITS {
                // At most 9 digits: no overflow.
                n = n * 10 + (self.ch - u32::from(b'0')) as i32;
            }
            i += 1;
            self.next();
        }
        n
    }
    /// Reads a word (code units >= 'A' that are not `IsWhiteSpace`); returns its lower-cased 3-unit prefix (zero padded;
    /// `AsciiAlphaToLower` is `c | 0x20`) and its length.
    fn read_word(&mut self) -> ([u32; 3], usize) {
        let mut prefix = [0u32; 3];
        let mut len = 0;
        while self.is_ascii_alpha_or_above() && !self.is_white_space_char() {
            if len < 3 {
                prefix[len] = self.ch | 0x20;
            }
            len += 1;
            self.next();
        }
        (prefix, len)
    }
    fn skip(&mut self, c: u8) -> bool {
        if self.ch == u32::from(c) {
            self.next();
            true
        } else {
            false
        }
    }
    fn skip_white_space(&mut self) -> bool {
        if is_white_space_or_line_terminator(self.ch) {
            self.next();
            true
        } else {
            false
        }
    }
    fn skip_parentheses(&mut self) -> bool {
        if self.ch != u32::from(b'(') {
            return false;
        }
        let mut balance = 0;
        loop {
            if self.ch == u32::from(b')') {
                balance -= 1;
            } else if self.ch == u32::from(b'(') {
                balance += 1;
            }
            self.next();
            if !(balance > 0 && self.ch != 0) {
                break;
            }
        }
        true
    }
    fn is_end(&self) -> bool {
        self.ch == 0
    }
    fn is_ascii_digit(&self) -> bool {
        (u32::from(b'0')..=u32::from(b'9')).contains(&self.ch)
    }
    fn is_ascii_alpha_or_above(&self) -> bool {
        self.ch >= u32::from(b'A')
    }
    fn is_white_space_char(&self) -> bool {
        is_white_space(self.ch)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeywordType {
    Invalid,
    MonthName,
    TimeZoneName,
    TimeSeparator,
    AmPm,
}

/// `KeywordTable::array`.
const KEYWORDS: [([u8; 3], KeywordType, i32); 27] = [
    (*b"jan", KeywordType::MonthName, 1),
    (*b"feb", KeywordType::MonthName, 2),
    (*b"mar", KeywordType::MonthName, 3),
    (*b"apr", KeywordType::MonthName, 4),
    (*b"may", KeywordType::MonthName, 5),
    (*b"jun", KeywordType::MonthName, 6),
    (*b"jul", KeywordType::MonthName, 7),
    (*b"aug", KeywordType::MonthName, 8),
    (*b"sep", KeywordType::MonthName, 9),
    (*b"oct", KeywordType::MonthName, 10),
    (*b"nov", KeywordType::MonthName, 11),
    (*b"dec", KeywordType::MonthName, 12),
    (*b"am\0", KeywordType::AmPm, 0),
    (*b"pm\0", KeywordType::AmPm, 12),
    (*b"ut\0", KeywordType::TimeZoneName, 0),
    (*b"utc", KeywordType::TimeZoneName, 0),
    (*b"z\0\0", KeywordType::TimeZoneName, 0),
    (*b"gmt", KeywordType::TimeZoneName, 0),
    (*b"cdt", KeywordType::TimeZoneName, -5),
    (*b"cst", KeywordType::TimeZoneName, -6),
    (*b"edt", KeywordType::TimeZoneName, -4),
    (*b"est", KeywordType::TimeZoneName, -5),
    (*b"mdt", KeywordType::TimeZoneName, -6),
    (*b"mst", KeywordType::TimeZoneName, -7),
    (*b"pdt", KeywordType::TimeZoneName, -7),
    (*b"pst", KeywordType::TimeZoneName, -8),
    (*b"t\0\0", KeywordType::TimeSeparator, 0),
];

/// `KeywordTable::Lookup`: a word longer than 3 only matches a month name.
fn lookup_keyword(prefix: &[u32; 3], len: usize) -> (KeywordType, i32) {
    for (word, kind, value) in KEYWORDS {
        let matches = prefix
            .iter()
            .zip(word.iter())
            .all(|(&p, &w)| p == u32::from(w));
        if matches && (len <= 3 || kind == KeywordType::MonthName) {
            return (kind, value);
        }
    }
    (KeywordType::Invalid, 0)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Invalid,
    Unknown,
    WhiteSpace,
    Number,
    Symbol,
    EndOfInput,
    Keyword(KeywordType),
}

/// `DateToken`.
#[derive(Debug, Clone, Copy)]
struct Token {
    tag: Tag,
    length: usize,
    value: i32,
}

impl Token {
    fn number(value: i32, length: usize) -> Self {
        Token {
            tag: Tag::Number,
            length,
            value,
        }
    }
    fn symbol(c: u8) -> Self {
        Token {
            tag: Tag::Symbol,
            length: 1,
            value: i32::from(c),
        }
    }
    fn simple(tag: Tag) -> Self {
        Token {
            tag,
            length: 0,
            value: -1,
        }
    }
    fn is_invalid(&self) -> bool {
        self.tag == Tag::Invalid
    }
    fn is_number(&self) -> bool {
        self.tag == Tag::Number
    }
    fn is_white_space(&self) -> bool {
        self.tag == Tag::WhiteSpace
    }
    fn is_end_of_input(&self) -> bool {
        self.tag == Tag::EndOfInput
    }
    fn is_keyword(&self) -> bool {
        matches!(self.tag, Tag::Keyword(_))
    }
    fn is_symbol(&self, c: u8) -> bool {
        self.tag == Tag::Symbol && self.value == i32::from(c)
    }
    fn is_keyword_type(&self, kind: KeywordType) -> bool {
        self.tag == Tag::Keyword(kind)
    }
    fn is_fixed_length_number(&self, length: usize) -> bool {
        self.is_number() && self.length == length
    }
    fn is_ascii_sign(&self) -> bool {
        self.is_symbol(b'-') || self.is_symbol(b'+')
    }
    /// 1 for '+', -1 for '-'.
    fn ascii_sign(&self) -> i32 {
        44 - self.value
    }
    fn is_keyword_z(&self) -> bool {
        self.is_keyword_type(KeywordType::TimeZoneName) && self.length == 1 && self.value == 0
    }
}

/// `DateStringTokenizer`.
struct Tokenizer<'a> {
    input: InputReader<'a>,
    next: Token,
}

impl<'a> Tokenizer<'a> {
    fn new(buffer: &'a [u16]) -> Self {
        let mut input = InputReader::new(buffer);
        let next = Self::scan(&mut input);
        Tokenizer { input, next }
    }
    fn next(&mut self) -> Token {
        let result = self.next;
        self.next = Self::scan(&mut self.input);
        result
    }
    fn peek(&self) -> Token {
        self.next
    }
    fn skip_symbol(&mut self, c: u8) -> bool {
        if self.next.is_symbol(c) {
            self.next = Self::scan(&mut self.input);
            true
        } else {
            false
        }
    }
    fn scan(input: &mut InputReader<'_>) -> Token {
        let pre_pos = input.position();
        if input.is_end() {
            return Token::simple(Tag::EndOfInput);
        }
        if input.is_ascii_digit() {
            let n = input.read_unsigned_numeral();
            return Token::number(n, input.position() - pre_pos);
        }
        for c in [b':', b'-', b'+', b'.', b')'] {
            if input.skip(c) {
                return Token::symbol(c);
            }
        }
        if input.is_ascii_alpha_or_above() && !input.is_white_space_char() {
            let (prefix, length) = input.read_word();
            let (kind, value) = lookup_keyword(&prefix, length);
            return Token {
                tag: Tag::Keyword(kind),
                length,
                value,
            };
        }
        if input.skip_white_space() {
            return Token {
                tag: Tag::WhiteSpace,
                length: input.position() - pre_pos,
                value: -1,
            };
        }
        if input.skip_parentheses() {
            return Token {
                tag: Tag::Unknown,
                length: 1,
                value: -1,
            };
        }
        input.next();
        Token {
            tag: Tag::Unknown,
            length: 1,
            value: -1,
        }
    }
}

/// `ReadMilliseconds`: the first three significant digits of the numeral.
fn read_milliseconds(token: Token) -> i32 {
    let mut number = token.value;
    let mut length = token.length;
    if length == 1 {
        number *= 100;
    } else if length == 2 {
        number *= 10;
    } else if length > 3 {
        length = length.min(MAX_SIGNIFICANT_DIGITS);
        let mut factor = 1;
        while length > 3 {
            factor *= 10;
            length -= 1;
        }
        number /= factor;
    }
    number
}

struct TimeZoneComposer {
    sign: i32,
    hour: i32,
    minute: i32,
}

impl TimeZoneComposer {
    fn set(&mut self, offset_in_hours: i32) {
        self.sign = if offset_in_hours < 0 { -1 } else { 1 };
        self.hour = offset_in_hours * self.sign;
        self.minute = 0;
    }
    fn set_sign(&mut self, sign: i32) {
        self.sign = if sign < 0 { -1 } else { 1 };
    }
    fn is_expecting(&self, n: i32) -> bool {
        self.hour != NONE && self.minute == NONE && is_minute(n)
    }
    fn is_utc(&self) -> bool {
        self.hour == 0 && self.minute == 0
    }
    fn is_empty(&self) -> bool {
        self.hour == NONE
    }
    /// The UTC offset in seconds, None when no zone was given, Err when invalid.
    fn write(&mut self) -> Result<Option<i32>, ()> {
        if self.sign == NONE {
            return Ok(None);
        }
        if self.hour == NONE {
            self.hour = 0;
        }
        if self.minute == NONE {
            self.minute = 0;
        }
        // Unsigned 32-bit arithmetic, wrapping as in V8.
        let total = (self.hour as u32)
            .wrapping_mul(3600)
            .wrapping_add((self.minute as u32).wrapping_mul(60));
        // Smi::kMaxValue with 32-bit Smis (Node on x64 has no pointer compression).
        if total > i32::MAX as u32 {
            return Err(());
        }
        let total = total as i32;
        Ok(Some(if self.sign < 0 { -total } else { total }))
    }
}

struct TimeComposer {
    comp: [i32; 4],
    index: usize,
    hour_offset: i32,
}

impl TimeComposer {
    fn is_empty(&self) -> bool {
        self.index == 0
    }
    fn is_expecting(&self, n: i32) -> bool {
        (self.index == 1 && is_minute(n))
            || (self.index == 2 && is_second(n))
            || (self.index == 3 && is_millisecond(n))
    }
    fn add(&mut self, n: i32) -> bool {
        if self.index < 4 {
            self.comp[self.index] = n;
            self.index += 1;
            true
        } else {
            false
        }
    }
    fn add_final(&mut self, n: i32) -> bool {
        if !self.add(n) {
            return false;
        }
        while self.index < 4 {
            self.comp[self.index] = 0;
            self.index += 1;
        }
        true
    }
    fn set_hour_offset(&mut self, n: i32) {
        self.hour_offset = n;
    }
    /// hour, minute, second, millisecond.
    fn write(&mut self) -> Option<[i32; 4]> {
        while self.index < 4 {
            self.comp[self.index] = 0;
            self.index += 1;
        }
        let [mut hour, minute, second, millisecond] = self.comp;
        if self.hour_offset != NONE {
            if !is_hour12(hour) {
                return None;
            }
            hour %= 12;
            hour += self.hour_offset;
        }
        if !is_hour(hour)
            || !is_minute(minute)
            || !is_second(second)
            || !is_millisecond(millisecond)
        {
            // A 24th hour is allowed if minutes, seconds, and milliseconds are 0.
            if hour != 24 || minute != 0 || second != 0 || millisecond != 0 {
                return None;
            }
        }
        Some([hour, minute, second, millisecond])
    }
}

struct DayComposer {
    comp: [i32; 3],
    index: usize,
    named_month: i32,
    is_iso_date: bool,
}

impl DayComposer {
    fn is_empty(&self) -> bool {
        self.index == 0
    }
    fn add(&mut self, n: i32) -> bool {
        if self.index < 3 {
            self.comp[self.index] = n;
            self.index += 1;
            true
        } else {
            false
        }
    }
    fn set_named_month(&mut self, n: i32) {
        self.named_month = n;
    }
    /// year, month (0-based), day.
    fn write(&mut self) -> Option<[i32; 3]> {
        if self.index < 1 {
            return None;
        }
        // Day and month default to 1.
        while self.index < 3 {
            self.comp[self.index] = 1;
            self.index += 1;
        }
        let mut year = 0; // Default year is 0 (=> 2000) for KJS compatibility.
        let month;
        let day;
        if self.named_month == NONE {
            if self.is_iso_date || (self.index == 3 && !is_day(self.comp[0])) {
                // YMD
                year = self.comp[0];
                month = self.comp[1];
                day = self.comp[2];
            } else {
                // MD(Y)
                month = self.comp[0];
                day = self.comp[1];
                if self.index == 3 {
                    year = self.comp[2];
                }
            }
        } else {
            month = self.named_month;
            if self.index == 1 {
                // MD or DM (unreachable: index is 3 here, as in V8)
                day = self.comp[0];
            } else if !is_day(self.comp[0]) {
                // YMD, MYD, or YDM
                year = self.comp[0];
                day = self.comp[1];
            } else {
                // DMY, MDY, or DYM
                day = self.comp[0];
                year = self.comp[1];
            }
        }
        if !self.is_iso_date {
            if between(year, 0, 49) {
                year += 2000;
            } else if between(year, 50, 99) {
                year += 1900;
            }
        }
        // Smi::IsValid(year) always holds: numerals keep at most 9 digits.
        if !is_month(month) || !is_day(day) {
            return None;
        }
        Some([year, month - 1, day])
    }
}

/// `ParseES5DateTime`: returns the next token for the legacy parser, EndOfInput when done,
/// Invalid when the string is certainly not a date.
fn parse_es5_date_time(
    scanner: &mut Tokenizer<'_>,
    day: &mut DayComposer,
    time: &mut TimeComposer,
    tz: &mut TimeZoneComposer,
) -> Token {
    // Parse mandatory date string: [('-'|'+')yy]yyyy[':'MM[':'DD]]
    if scanner.peek().is_ascii_sign() {
        // Keep the sign token, so we can pass it back to the legacy parser.
        let sign_token = scanner.next();
        if !scanner.peek().is_fixed_length_number(6) {
            return sign_token;
        }
        let sign = sign_token.ascii_sign();
        let year = scanner.next().value;
        if sign < 0 && year == 0 {
            return sign_token;
        }
        day.add(sign * year);
    } else if scanner.peek().is_fixed_length_number(4) {
        day.add(scanner.next().value);
    } else {
        return scanner.next();
    }
    if scanner.skip_symbol(b'-') {
        if !scanner.peek().is_fixed_length_number(2) || !is_month(scanner.peek().value) {
            return scanner.next();
        }
        day.add(scanner.next().value);
        if scanner.skip_symbol(b'-') {
            if !scanner.peek().is_fixed_length_number(2) || !is_day(scanner.peek().value) {
                return scanner.next();
            }
            day.add(scanner.next().value);
        }
    }
    // Check for optional time string: 'T'HH':'mm[':'ss['.'sss]]Z
    if !scanner.peek().is_keyword_type(KeywordType::TimeSeparator) {
        if !scanner.peek().is_end_of_input() {
            return scanner.next();
        }
    } else {
        // ES5 Date Time String time part is present.
        scanner.next();
        if !scanner.peek().is_fixed_length_number(2) || !between(scanner.peek().value, 0, 24) {
            return Token::simple(Tag::Invalid);
        }
        // Allow 24:00[:00[.000]], but no other time starting with 24.
        let hour_is_24 = scanner.peek().value == 24;
        time.add(scanner.next().value);
        if !scanner.skip_symbol(b':') {
            return Token::simple(Tag::Invalid);
        }
        if !scanner.peek().is_fixed_length_number(2)
            || !is_minute(scanner.peek().value)
            || (hour_is_24 && scanner.peek().value > 0)
        {
            return Token::simple(Tag::Invalid);
        }
        time.add(scanner.next().value);
        if scanner.skip_symbol(b':') {
            if !scanner.peek().is_fixed_length_number(2)
                || !is_second(scanner.peek().value)
                || (hour_is_24 && scanner.peek().value > 0)
            {
                return Token::simple(Tag::Invalid);
            }
            time.add(scanner.next().value);
            if scanner.skip_symbol(b'.') {
                if !scanner.peek().is_number() || (hour_is_24 && scanner.peek().value > 0) {
                    return Token::simple(Tag::Invalid);
                }
                // Allow more or less than the mandated three digits.
                time.add(read_milliseconds(scanner.next()));
            }
        }
        // Check for optional timezone designation: 'Z' | ('+'|'-')hh':'mm
        if scanner.peek().is_keyword_z() {
            scanner.next();
            tz.set(0);
        } else if scanner.peek().is_symbol(b'+') || scanner.peek().is_symbol(b'-') {
            tz.set_sign(if scanner.next().is_symbol(b'+') {
                1
            } else {
                -1
            });
            if scanner.peek().is_fixed_length_number(4) {
                // hhmm extension syntax.
                let hourmin = scanner.next().value;
                let hour = hourmin / 100;
                let min = hourmin % 100;
                if !is_hour(hour) || !is_minute(min) {
                    return Token::simple(Tag::Invalid);
                }
                tz.hour = hour;
                tz.minute = min;
            } else {
                // hh:mm standard syntax.
                if !scanner.peek().is_fixed_length_number(2) || !is_hour(scanner.peek().value) {
                    return Token::simple(Tag::Invalid);
                }
                tz.hour = scanner.next().value;
                if !scanner.skip_symbol(b':') {
                    return Token::simple(Tag::Invalid);
                }
                if !scanner.peek().is_fixed_length_number(2) || !is_minute(scanner.peek().value) {
                    return Token::simple(Tag::Invalid);
                }
                tz.minute = scanner.next().value;
            }
        }
        if !scanner.peek().is_end_of_input() {
            return Token::simple(Tag::Invalid);
        }
    }
    // Successfully parsed ES5 Date Time String: date-only forms are UTC, date-time forms
    // local time.
    if tz.is_empty() && time.is_empty() {
        tz.set(0);
    }
    day.is_iso_date = true;
    Token::simple(Tag::EndOfInput)
}

/// The fields of a parsed date: year, month (0-based), day, hour, minute, second,
/// millisecond, and the UTC offset in seconds (None: local time).
struct Parsed {
    ymd: [i32; 3],
    hms: [i32; 4],
    utc_offset: Option<i32>,
}

/// `DateParser::Parse`.
fn parse(units: &[u16]) -> Option<Parsed> {
    let mut scanner = Tokenizer::new(units);
    let mut tz = TimeZoneComposer {
        sign: NONE,
        hour: NONE,
        minute: NONE,
    };
    let mut time = TimeComposer {
        comp: [0; 4],
        index: 0,
        hour_offset: NONE,
    };
    let mut day = DayComposer {
        comp: [0; 3],
        index: 0,
        named_month: NONE,
        is_iso_date: false,
    };

    let next_unhandled_token = parse_es5_date_time(&mut scanner, &mut day, &mut time, &mut tz);
    if next_unhandled_token.is_invalid() {
        return None;
    }
    let mut has_read_number = !day.is_empty();
    // If there's anything left, continue with the legacy parser.
    let mut token = next_unhandled_token;
    while !token.is_end_of_input() {
        if token.is_number() {
            has_read_number = true;
            let n = token.value;
            if scanner.skip_symbol(b':') {
                if scanner.skip_symbol(b':') {
                    // n + "::"
                    if !time.is_empty() {
                        return None;
                    }
                    time.add(n);
                    time.add(0);
                } else {
                    // n + ":"
                    if !time.add(n) {
                        return None;
                    }
                    if scanner.peek().is_symbol(b'.') {
                        scanner.next();
                    }
                }
            } else if scanner.skip_symbol(b'.') && time.is_expecting(n) {
                time.add(n);
                if !scanner.peek().is_number() {
                    return None;
                }
                let ms = read_milliseconds(scanner.next());
                if ms < 0 {
                    return None;
                }
                time.add_final(ms);
            } else if tz.is_expecting(n) {
                tz.minute = n;
            } else if time.is_expecting(n) {
                time.add_final(n);
                // Require end, white space, "Z", "+" or "-" immediately after finalizing
                // time.
                let peek = scanner.peek();
                if !peek.is_end_of_input()
                    && !peek.is_white_space()
                    && !peek.is_keyword_z()
                    && !peek.is_ascii_sign()
                {
                    return None;
                }
            } else {
                if !day.add(n) {
                    return None;
                }
                scanner.skip_symbol(b'-');
            }
        } else if token.is_keyword() {
            let Tag::Keyword(kind) = token.tag else {
                return None;
            };
            let value = token.value;
            if kind == KeywordType::AmPm && !time.is_empty() {
                time.set_hour_offset(value);
            } else if kind == KeywordType::MonthName {
                day.set_named_month(value);
                scanner.skip_symbol(b'-');
            } else if kind == KeywordType::TimeZoneName && has_read_number {
                tz.set(value);
            } else {
                // Garbage words are illegal if a number has been read.
                if has_read_number {
                    return None;
                }
                // The first number has to be separated from garbage words by whitespace
                // or other separators.
                if scanner.peek().is_number() {
                    return None;
                }
            }
        } else if token.is_ascii_sign() && (tz.is_utc() || !time.is_empty()) {
            // Parse UTC offset (only after UTC or time).
            tz.set_sign(token.ascii_sign());
            // The following number may be empty.
            let mut n = 0;
            let mut length = 0;
            if scanner.peek().is_number() {
                let t = scanner.next();
                length = t.length;
                n = t.value;
            }
            has_read_number = true;
            if scanner.peek().is_symbol(b':') {
                tz.hour = n;
                tz.minute = NONE;
            } else if length == 2 || length == 1 {
                // Handle time zones like GMT-8
                tz.hour = n;
                tz.minute = 0;
            } else if length == 4 || length == 3 {
                // Looks like the hhmm format
                tz.hour = n / 100;
                tz.minute = n % 100;
            } else {
                // No need to accept time zones like GMT-12345
                return None;
            }
        } else if (token.is_ascii_sign() || token.is_symbol(b')')) && has_read_number {
            // Extra sign or ')' is illegal if a number has been read.
            return None;
        } else {
            // Ignore other characters and whitespace.
        }
        token = scanner.next();
    }

    let ymd = day.write()?;
    let hms = time.write()?;
    let utc_offset = tz.write().ok()?;
    Some(Parsed {
        ymd,
        hms,
        utc_offset,
    })
}

/// Days from 1970-01-01 to the given proleptic Gregorian date (month 1..=12, any day).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `new Date(string).valueOf()`: the time value in ms, None for NaN (invalid date).
pub fn parse_date_ms(units: &[u16]) -> Option<i64> {
    let p = parse(units)?;
    let [year, month0, day] = p.ymd;
    // MakeDay returns NaN outside kMinYear..kMaxYear; such years are far beyond TimeClip.
    if !(-1_000_000..=1_000_000).contains(&year) {
        return None;
    }
    let days = days_from_civil(i64::from(year), i64::from(month0) + 1, 1) + i64::from(day) - 1;
    let [h, m, s, ms] = p.hms.map(i64::from);
    let time = h * 3_600_000 + m * 60_000 + s * 1000 + ms;
    let mut date = days * MS_PER_DAY + time;
    if let Some(offset) = p.utc_offset {
        date -= i64::from(offset) * 1000;
    }
    // (Local time: ToUTC is the identity in UTC; its range pre-check is looser than TimeClip.)
    if !(-MAX_TIME_MS..=MAX_TIME_MS).contains(&date) {
        return None;
    }
    Some(date)
}
