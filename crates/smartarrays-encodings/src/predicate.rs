//! Filters: [`Predicate`] (equality, ranges with open ends, IN-lists, string prefix and SQL
//! `LIKE`, null tests) and the compiled [`LikePattern`]. A column translates a predicate's
//! constants once into its code space (through a frame's base, a dictionary's binary search, a
//! LIKE evaluated once per dictionary entry) and scans only codes; see
//! [`Column::filter`](crate::Column::filter).

use std::ops::{Bound, RangeBounds};

use crate::error::{EncodingError, Result};
use crate::strings::TextBatch;
use crate::types::Scalar;

/// A condition on one column's values. Null rows never pass, except for [`Predicate::IsNull`].
///
/// # Example
/// ```
/// use smartarrays_encodings::{Column, Predicate};
/// let column = Column::from_i64(&[-5, 0, 5, 10], &Default::default()).unwrap();
/// assert_eq!(column.filter(&Predicate::eq(5i64)).unwrap().row_ids(), vec![2]);
/// assert_eq!(column.filter(&Predicate::range(0i64..10)).unwrap().row_ids(), vec![1, 2]);
/// assert_eq!(column.filter(&Predicate::range(..=0i64)).unwrap().row_ids(), vec![0, 1]);
/// assert_eq!(column.filter(&Predicate::is_in([10i64, -5, 99])).unwrap().row_ids(), vec![0, 3]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Predicate {
    /// Equal to the value (nothing passes for a null value).
    Eq(Scalar),
    /// Within the bounds (either may be unbounded).
    Range {
        /// Lower bound.
        lo: Bound<Scalar>,
        /// Upper bound.
        hi: Bound<Scalar>,
    },
    /// Equal to one of the values.
    In(Vec<Scalar>),
    /// Strings that start with the prefix.
    Prefix(String),
    /// Strings that match an SQL `LIKE` pattern (`%` any run, `_` one character, `\` escapes).
    Like(String),
    /// Null rows.
    IsNull,
    /// Valid rows.
    IsNotNull,
}

impl Predicate {
    /// `= value`.
    pub fn eq(value: impl Into<Scalar>) -> Predicate {
        Predicate::Eq(value.into())
    }

    /// Within a Rust range: `Predicate::range(10u64..=20)`, `Predicate::range(..5i64)`,
    /// `Predicate::range(1.5..)`.
    pub fn range<T: Into<Scalar> + Clone>(bounds: impl RangeBounds<T>) -> Predicate {
        let convert = |bound: Bound<&T>| match bound {
            Bound::Included(v) => Bound::Included(v.clone().into()),
            Bound::Excluded(v) => Bound::Excluded(v.clone().into()),
            Bound::Unbounded => Bound::Unbounded,
        };
        Predicate::Range {
            lo: convert(bounds.start_bound()),
            hi: convert(bounds.end_bound()),
        }
    }

    /// `lo <= value <= hi`.
    pub fn between(lo: impl Into<Scalar>, hi: impl Into<Scalar>) -> Predicate {
        Predicate::Range {
            lo: Bound::Included(lo.into()),
            hi: Bound::Included(hi.into()),
        }
    }

    /// `IN (values)`.
    pub fn is_in<T: Into<Scalar>>(values: impl IntoIterator<Item = T>) -> Predicate {
        Predicate::In(values.into_iter().map(Into::into).collect())
    }

    /// Strings starting with `prefix`.
    pub fn prefix(prefix: impl Into<String>) -> Predicate {
        Predicate::Prefix(prefix.into())
    }

    /// Strings matching the SQL `LIKE` pattern.
    pub fn like(pattern: impl Into<String>) -> Predicate {
        Predicate::Like(pattern.into())
    }

    /// The plain, one-value form of the predicate on a valid value (`None`: a null value).
    /// Slow; the reference the columns' code-space evaluation is tested against.
    pub fn matches(&self, value: &Scalar) -> Result<bool> {
        use std::cmp::Ordering;
        let order = |a: &Scalar, b: &Scalar| -> Option<Ordering> {
            Some(match (a, b) {
                (Scalar::UInt64(a), Scalar::UInt64(b)) => a.cmp(b),
                (Scalar::Int64(a), Scalar::Int64(b)) => a.cmp(b),
                (Scalar::Float64(a), Scalar::Float64(b)) => a.total_cmp(b),
                (
                    Scalar::Decimal {
                        unscaled: a,
                        scale: s,
                    },
                    Scalar::Decimal {
                        unscaled: b,
                        scale: t,
                    },
                ) if s == t => a.cmp(b),
                (Scalar::Date32(a), Scalar::Date32(b)) => a.cmp(b),
                (Scalar::Utf8(a), Scalar::Utf8(b)) => a.cmp(b),
                (Scalar::Bool(a), Scalar::Bool(b)) => a.cmp(b),
                _ => return None,
            })
        };
        if value.is_null() {
            return Ok(matches!(self, Predicate::IsNull));
        }
        Ok(match self {
            Predicate::IsNull => false,
            Predicate::IsNotNull => true,
            Predicate::Eq(c) => order(value, c) == Some(Ordering::Equal),
            Predicate::In(list) => list
                .iter()
                .any(|c| order(value, c) == Some(Ordering::Equal)),
            Predicate::Range { lo, hi } => {
                let above = match lo {
                    Bound::Included(c) => order(value, c).is_some_and(|o| o.is_ge()),
                    Bound::Excluded(c) => order(value, c).is_some_and(|o| o.is_gt()),
                    Bound::Unbounded => true,
                };
                let below = match hi {
                    Bound::Included(c) => order(value, c).is_some_and(|o| o.is_le()),
                    Bound::Excluded(c) => order(value, c).is_some_and(|o| o.is_lt()),
                    Bound::Unbounded => true,
                };
                above && below
            }
            Predicate::Prefix(prefix) => {
                matches!(value, Scalar::Utf8(s) if s.starts_with(prefix.as_str()))
            }
            Predicate::Like(pattern) => {
                let pattern = LikePattern::new(pattern)?;
                matches!(value, Scalar::Utf8(s) if pattern.matches(s))
            }
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    AnyRun,
    AnyOne,
    Literal(char),
}

/// A compiled SQL `LIKE` pattern: `%` matches any run of characters (also none), `_` exactly
/// one character (a Unicode scalar value), `\` makes the next character literal.
///
/// # Example
/// ```
/// use smartarrays_encodings::LikePattern;
/// let pattern = LikePattern::new("gr_y%\\%").unwrap();
/// assert!(pattern.matches("grey 100%"));
/// assert!(!pattern.matches("grey 100"));
/// assert_eq!(LikePattern::new("abc%").unwrap().as_prefix(), Some("abc".to_string()));
/// assert!(LikePattern::new("bad\\").is_err());
/// ```
#[derive(Clone, Debug)]
pub struct LikePattern {
    tokens: Vec<Token>,
    /// For a pattern without `_`: its literal runs between the `%`s (the first and last may be
    /// empty: then the pattern starts or ends with `%`). Such a pattern is matched by
    /// substring search, without decoding the text into characters.
    segments: Option<Vec<String>>,
    /// A substring searcher for each segment between the first and the last (for
    /// [`LikePattern::matches_bytes`]).
    finders: Vec<memchr::memmem::Finder<'static>>,
}

impl LikePattern {
    /// Compiles `pattern`; a trailing `\` is an [`EncodingError::InvalidPattern`].
    pub fn new(pattern: &str) -> Result<LikePattern> {
        let mut tokens = Vec::new();
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            tokens.push(match c {
                '%' if tokens.last() == Some(&Token::AnyRun) => continue,
                '%' => Token::AnyRun,
                '_' => Token::AnyOne,
                '\\' => {
                    Token::Literal(chars.next().ok_or_else(|| EncodingError::InvalidPattern {
                        pattern: pattern.to_string(),
                        reason: "it ends with an escape character",
                    })?)
                }
                c => Token::Literal(c),
            });
        }
        let segments = (!tokens.contains(&Token::AnyOne)).then(|| {
            let mut segments = vec![String::new()];
            for t in &tokens {
                match t {
                    Token::Literal(c) => segments.last_mut().expect("one at least").push(*c),
                    _ => segments.push(String::new()),
                }
            }
            segments
        });
        let finders = match &segments {
            Some(s) if s.len() > 2 => s[1..s.len() - 1]
                .iter()
                .map(|m| memchr::memmem::Finder::new(m.as_bytes()).into_owned())
                .collect(),
            _ => Vec::new(),
        };
        Ok(LikePattern {
            tokens,
            segments,
            finders,
        })
    }

    /// Whether the UTF-8 text `bytes` matches: a pattern without `_` is matched on the bytes
    /// themselves (prefix, suffix, and each middle literal found left to right with a
    /// prebuilt substring searcher), any other after reading the bytes as text. Bytes that
    /// are not UTF-8 match no pattern with `_`.
    pub fn matches_bytes(&self, bytes: &[u8]) -> bool {
        let Some(segments) = &self.segments else {
            return std::str::from_utf8(bytes).is_ok_and(|text| self.matches(text));
        };
        let (first, rest) = segments.split_first().expect("one segment at least");
        let Some((last, _)) = rest.split_last() else {
            return bytes == first.as_bytes();
        };
        // (Empty ends are not compared: a call to compare no bytes is not free.)
        if bytes.len() < first.len() + last.len()
            || !first.is_empty() && !bytes.starts_with(first.as_bytes())
            || !last.is_empty() && !bytes.ends_with(last.as_bytes())
        {
            return false;
        }
        let mut between = &bytes[first.len()..bytes.len() - last.len()];
        for finder in &self.finders {
            match finder.find(between) {
                Some(at) => between = &between[at + finder.needle().len()..],
                None => return false,
            }
        }
        true
    }

    /// Whether each string of `batch` matches, into `verdicts` (one per string). A pattern
    /// without `_` that has a literal between two `%`s looks for its longest such literal
    /// through the whole batch at once (a string without it cannot match) and tests only the
    /// strings where it is found; any other pattern tests string by string with
    /// [`LikePattern::matches_bytes`].
    ///
    /// ```
    /// use smartarrays_encodings::strings::TextBatch;
    /// use smartarrays_encodings::LikePattern;
    /// let pattern = LikePattern::new("%special%requests%").unwrap();
    /// let batch = TextBatch::from_strings(&["special requests", "requests special", "specia", "l requests"]);
    /// let mut verdicts = vec![false; batch.len()];
    /// pattern.matches_batch(&batch, &mut verdicts);
    /// assert_eq!(verdicts, [true, false, false, false]);
    /// ```
    pub fn matches_batch(&self, batch: &TextBatch, verdicts: &mut [bool]) {
        assert_eq!(verdicts.len(), batch.len(), "one verdict per string");
        let Some(guide) = self.finders.iter().max_by_key(|f| f.needle().len()) else {
            for (i, v) in verdicts.iter_mut().enumerate() {
                *v = self.matches_bytes(batch.get(i));
            }
            return;
        };
        verdicts.fill(false);
        let (bytes, ends) = (batch.bytes(), batch.ends());
        let width = guide.needle().len();
        let (mut from, mut row) = (0, 0);
        while let Some(found) = guide.find(&bytes[from..]) {
            let at = from + found;
            // The string holding the literal's first byte (empty strings end where they start).
            while ends[row] <= at {
                row += 1;
            }
            if at + width <= ends[row] {
                verdicts[row] = self.matches_bytes(batch.get(row));
                from = ends[row];
            } else {
                // Across two strings: look again from the next byte.
                from = at + 1;
            }
        }
    }

    /// The literal prefix when the pattern is `literal%` (then a sorted dictionary answers
    /// it with one code range).
    pub fn as_prefix(&self) -> Option<String> {
        let (last, literals) = self.tokens.split_last()?;
        if *last != Token::AnyRun {
            return None;
        }
        literals
            .iter()
            .map(|t| match t {
                Token::Literal(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    /// Whether `text` matches (greedy with backtracking to the last `%`: O(text x pattern)
    /// at worst, linear for the usual patterns).
    pub fn matches(&self, text: &str) -> bool {
        if let Some(segments) = &self.segments {
            return matches_segments(segments, text);
        }
        let text: Vec<char> = text.chars().collect();
        let (mut t, mut p) = (0usize, 0usize);
        let mut resume: Option<(usize, usize)> = None;
        while t < text.len() {
            match self.tokens.get(p) {
                Some(Token::AnyRun) => {
                    resume = Some((p, t));
                    p += 1;
                }
                Some(Token::AnyOne) => {
                    t += 1;
                    p += 1;
                }
                Some(Token::Literal(c)) if *c == text[t] => {
                    t += 1;
                    p += 1;
                }
                _ => match resume {
                    Some((star, from)) => {
                        p = star + 1;
                        t = from + 1;
                        resume = Some((star, from + 1));
                    }
                    None => return false,
                },
            }
        }
        self.tokens[p..].iter().all(|t| *t == Token::AnyRun)
    }
}

/// A `%`-only pattern: the first segment is a prefix, the last a suffix (not overlapping it),
/// and those between are found left to right in what lies between (leftmost is enough: a later
/// match can only leave less room for the rest).
fn matches_segments(segments: &[String], text: &str) -> bool {
    let (first, rest) = segments.split_first().expect("one segment at least");
    let Some((last, middle)) = rest.split_last() else {
        return text == first;
    };
    if text.len() < first.len() + last.len()
        || !text.starts_with(first.as_str())
        || !text.ends_with(last.as_str())
    {
        return false;
    }
    // Both ends are on character boundaries: they are the ends of whole literal strings.
    let mut between = &text[first.len()..text.len() - last.len()];
    for segment in middle {
        match between.find(segment.as_str()) {
            Some(at) => between = &between[at + segment.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_agrees_with_hand_checked_cases() {
        let cases = [
            ("%", "", true),
            ("_", "", false),
            ("_", "é", true),
            ("a%b%c", "aXbYc", true),
            ("a%b%c", "aXcYb", false),
            ("%ab", "aab", true),
            ("%a_", "banana", false),
            ("%n_", "banana", true),
            ("a\\%", "a%", true),
            ("a\\%", "ab", false),
            ("a\\_", "a_", true),
            ("", "", true),
            ("", "x", false),
            ("%%x%%", "yyxyy", true),
            ("%green%", "forest green lace", true),
            ("%green%", "gree n", false),
            ("%green%", "green", true),
            ("ab%ba", "aba", false),
            ("ab%ba", "abba", true),
            ("a%a%a", "aa", false),
            ("a%a%a", "aaa", true),
            ("%é%", "café", true),
            ("é%", "café", false),
            ("%x%y", "xy", true),
            ("%x%y", "yx", false),
            ("x", "x", true),
            ("x%", "", false),
        ];
        for (pattern, text, expected) in cases {
            assert_eq!(
                LikePattern::new(pattern).unwrap().matches(text),
                expected,
                "{pattern} on {text}"
            );
        }
        assert_eq!(LikePattern::new("a_%").unwrap().as_prefix(), None);
        assert!(LikePattern::new("a%b").unwrap().segments.is_some());
        assert!(LikePattern::new("a_b").unwrap().segments.is_none());
        assert_eq!(
            LikePattern::new("%").unwrap().as_prefix(),
            Some(String::new())
        );
    }

    proptest::proptest! {
        /// Substring search agrees with the character-by-character matcher on `%` patterns.
        #[test]
        fn segments_agree_with_the_general_matcher(pattern in "[ab%é]{0,7}", text in "[abé]{0,9}") {
            let fast = LikePattern::new(&pattern).unwrap();
            proptest::prop_assert!(fast.segments.is_some());
            let general = LikePattern { tokens: fast.tokens.clone(), segments: None, finders: Vec::new() };
            proptest::prop_assert_eq!(fast.matches(&text), general.matches(&text), "{} on {}", pattern, text);
            proptest::prop_assert_eq!(fast.matches_bytes(text.as_bytes()), general.matches(&text), "bytes: {} on {}", pattern, text);
        }

        /// On bytes, any pattern (also with `_`) agrees with the matcher on text.
        #[test]
        fn bytes_agree_with_text(pattern in "[ab%_é]{0,7}", text in "[abé]{0,9}") {
            let like = LikePattern::new(&pattern).unwrap();
            proptest::prop_assert_eq!(like.matches_bytes(text.as_bytes()), like.matches(&text), "{} on {}", pattern, text);
        }
    }
}
