//! Vectorised expressions over a decoded batch: every value of an exact number, date or
//! boolean is an `i64` (decimals scaled, dates as days, booleans 0/1, dictionary strings as
//! their codes); free text is kept as strings. Arithmetic is checked: an overflow is an error,
//! never a wrapped value.

use std::sync::Arc;

use smartarrays_encodings::strings::TextBatch;
use smartarrays_encodings::{date, LikePattern};

use crate::bind::Cmp;
use crate::codes::SharedCodes;
use crate::error::{QueryError, Result};

/// A test on text, for strings that are not dictionary-encoded.
#[derive(Clone, Debug)]
pub(crate) enum TextTest {
    Compare(Cmp, String),
    Like(Arc<LikePattern>),
    In(Vec<String>),
    /// The test on `substring(text from start for len)`.
    Substring(i64, Option<i64>, Box<TextTest>),
}

impl TextTest {
    pub(crate) fn matches(&self, text: &str) -> bool {
        match self {
            TextTest::Compare(op, value) => op.holds(text.cmp(value.as_str())),
            TextTest::Like(pattern) => pattern.matches(text),
            TextTest::In(list) => list.iter().any(|v| v == text),
            TextTest::Substring(start, len, test) => {
                test.matches(crate::bind::substring(text, *start, *len))
            }
        }
    }

    /// [`TextTest::matches`] on a text's UTF-8 bytes (a `LIKE` without `_` on the bytes
    /// themselves); bytes that are not UTF-8 match nothing.
    pub(crate) fn matches_bytes(&self, bytes: &[u8]) -> bool {
        match self {
            TextTest::Like(pattern) => pattern.matches_bytes(bytes),
            other => std::str::from_utf8(bytes).is_ok_and(|text| other.matches(text)),
        }
    }

    /// [`TextTest::matches_bytes`] on each string of `batch`, into `verdicts` (a `LIKE`
    /// searches the whole batch at once, see [`LikePattern::matches_batch`]).
    pub(crate) fn matches_batch(&self, batch: &TextBatch, verdicts: &mut [bool]) {
        match self {
            TextTest::Like(pattern) => pattern.matches_batch(batch, verdicts),
            other => {
                for (i, v) in verdicts.iter_mut().enumerate() {
                    *v = other.matches_bytes(batch.get(i));
                }
            }
        }
    }
}

/// A compiled vectorised expression.
#[derive(Clone, Debug)]
pub(crate) enum VExpr {
    Slot(usize),
    Const(i64),
    /// Multiply by a power of ten (to align decimal scales).
    Scale(Box<VExpr>, i64),
    Add(Box<VExpr>, Box<VExpr>),
    Sub(Box<VExpr>, Box<VExpr>),
    Mul(Box<VExpr>, Box<VExpr>),
    Neg(Box<VExpr>),
    Compare(Cmp, Box<VExpr>, Box<VExpr>),
    And(Vec<VExpr>),
    Or(Vec<VExpr>),
    Not(Box<VExpr>),
    /// A dictionary-coded string slot tested through a mask over the dictionary's codes.
    Mask(usize, Arc<Vec<bool>>),
    /// A text slot tested string by string (negated when the flag is set).
    Text(usize, TextTest, bool),
    /// Membership in a sorted set (negated when the flag is set).
    In(Box<VExpr>, Arc<Vec<i64>>, bool),
    /// Membership in a subquery's key set (negated when the flag is set).
    InSet(Box<VExpr>, Arc<crate::keyset::KeySet>, bool),
    Case(Vec<(VExpr, VExpr)>, Box<VExpr>),
    Year(Box<VExpr>),
    /// An exact number at scale `10^-s` (the factor `10^s` given) as the order-preserving key of
    /// its double (how a double slot holds its values), to compare it with doubles.
    DoubleKey(Box<VExpr>, f64),
    /// Whether the group of the first value holds a value other than the second (a correlated
    /// `EXISTS` with an inequality, see [`KeyRanges`]).
    ExistsOther(Box<VExpr>, Box<VExpr>, Arc<KeyRanges>),
    /// The entry of a table at each value (a text's row id to the first row of its string).
    Lookup(Box<VExpr>, Arc<Vec<i64>>),
}

/// A fast hasher for 64-bit keys (a multiply and a fold of the high half into the low).
#[derive(Clone, Copy, Default)]
pub(crate) struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        let h = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }

    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }
}

/// Per key, the smallest and largest value of a subquery's rows with that key: for
/// `EXISTS (select .. where inner_key = k and inner_value <> v ..)`, the rows of key `k` hold a
/// value other than `v` exactly when there are some and not all of them are `v`, that is when
/// `k` has a group and its minimum or its maximum differs from `v`.
///
/// Keys over a range at most [`DENSE_FACTOR`] times their number (TPC-H's order keys) are
/// held in one array indexed by `key - base`: per key its only value, [`SEVERAL`] when its
/// minimum and maximum differ, or [`ABSENT`]; other keys in a hash map of (min, max).
#[derive(Clone, PartialEq)]
pub(crate) struct KeyRanges {
    len: usize,
    ranges: Ranges,
}

#[derive(Clone, PartialEq)]
enum Ranges {
    Dense {
        base: i64,
        values: Vec<i64>,
    },
    /// Per key of the range from `base`, a code: 0 no rows, 1 several values, else the only
    /// value `vbase + code - 2`.
    Codes {
        base: i64,
        vbase: i64,
        codes: Arc<SharedCodes>,
    },
    Map(std::collections::HashMap<i64, (i64, i64), std::hash::BuildHasherDefault<KeyHasher>>),
}

/// A dense [`KeyRanges`]' entry of a key without rows.
const ABSENT: i64 = i64::MIN;
/// A dense [`KeyRanges`]' entry of a key with more than one distinct value.
const SEVERAL: i64 = i64::MAX;
/// Keys whose range is at most this many times their number are held densely.
const DENSE_FACTOR: u128 = 4;

impl std::fmt::Debug for KeyRanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyRanges({} keys)", self.len)
    }
}

impl KeyRanges {
    /// From the columns of the groups: their keys (distinct), minima and maxima.
    pub(crate) fn from_columns(keys: &[i64], lo: &[i64], hi: &[i64]) -> KeyRanges {
        let len = keys.len();
        let bounds = keys.iter().fold(None, |b: Option<(i64, i64)>, &k| match b {
            None => Some((k, k)),
            Some((a, z)) => Some((a.min(k), z.max(k))),
        });
        // A single value equal to a sentinel cannot be held densely.
        let clash = lo
            .iter()
            .zip(hi)
            .any(|(&a, &b)| a == b && (a == ABSENT || a == SEVERAL));
        if let (Some((first, last)), false) = (bounds, clash) {
            let span = (i128::from(last) - i128::from(first) + 1) as u128;
            if span <= DENSE_FACTOR * len as u128 + 64 {
                let mut values = vec![ABSENT; span as usize];
                for ((&k, &a), &b) in keys.iter().zip(lo).zip(hi) {
                    values[(k - first) as usize] = if a == b { a } else { SEVERAL };
                }
                return KeyRanges {
                    len,
                    ranges: Ranges::Dense {
                        base: first,
                        values,
                    },
                };
            }
        }
        KeyRanges {
            len,
            ranges: Ranges::Map(
                keys.iter()
                    .zip(lo.iter().zip(hi))
                    .map(|(&k, (&a, &b))| (k, (a, b)))
                    .collect(),
            ),
        }
    }

    /// From per-key codes over the keys `base..base + codes.len()`: 0 for a key without
    /// rows, 1 for one with several values, else `value - vbase + 2` of its only value;
    /// `len` is the number of codes that are not 0.
    pub(crate) fn from_codes(base: i64, vbase: i64, codes: SharedCodes, len: usize) -> KeyRanges {
        debug_assert_eq!(len, codes.codes().iter().filter(|&&c| c != 0).count());
        KeyRanges {
            len,
            ranges: Ranges::Codes {
                base,
                vbase,
                codes: Arc::new(codes),
            },
        }
    }

    /// The number of keys.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the group of `key` holds a value other than `value`.
    pub(crate) fn exists_other(&self, key: i64, value: i64) -> bool {
        match &self.ranges {
            Ranges::Dense { base, values } => {
                let at = (key as u64).wrapping_sub(*base as u64);
                match values.get(at as usize) {
                    None | Some(&ABSENT) => false,
                    Some(&SEVERAL) => true,
                    Some(&only) => only != value,
                }
            }
            Ranges::Codes { base, vbase, codes } => {
                let at = (key as u64).wrapping_sub(*base as u64);
                match codes.codes().get(at as usize) {
                    None | Some(0) => false,
                    Some(1) => true,
                    Some(&c) => (value as u64).wrapping_sub(*vbase as u64) != u64::from(c - 2),
                }
            }
            Ranges::Map(groups) => groups
                .get(&key)
                .is_some_and(|&(lo, hi)| lo != value || hi != value),
        }
    }

    /// [`KeyRanges::exists_other`] of every key in `keys` and value in `values`, written over
    /// the keys as 1 or 0.
    pub(crate) fn exists_other_many(&self, keys: &mut [i64], values: &[i64]) {
        match &self.ranges {
            Ranges::Dense {
                base,
                values: table,
            } => {
                for (k, &v) in keys.iter_mut().zip(values) {
                    let at = (*k as u64).wrapping_sub(*base as u64);
                    *k = i64::from(match table.get(at as usize) {
                        None | Some(&ABSENT) => false,
                        Some(&SEVERAL) => true,
                        Some(&only) => only != v,
                    });
                }
            }
            Ranges::Codes { base, vbase, codes } => {
                let codes = codes.codes();
                for (k, &v) in keys.iter_mut().zip(values) {
                    let at = (*k as u64).wrapping_sub(*base as u64);
                    *k = i64::from(match codes.get(at as usize) {
                        None | Some(0) => false,
                        Some(1) => true,
                        Some(&c) => (v as u64).wrapping_sub(*vbase as u64) != u64::from(c - 2),
                    });
                }
            }
            Ranges::Map(_) => {
                for (k, &v) in keys.iter_mut().zip(values) {
                    *k = i64::from(self.exists_other(*k, v));
                }
            }
        }
    }
}

/// The order-preserving signed key of a double (a double slot's value; -0.0 is 0.0).
pub(crate) fn double_key(x: f64) -> i64 {
    smartarrays_encodings::kernel::i64_from_key(smartarrays_encodings::kernel::key_from_f64(
        x + 0.0,
    ))
}

/// The double of an order-preserving signed key.
pub(crate) fn double_of_key(k: i64) -> f64 {
    smartarrays_encodings::kernel::f64_from_key(smartarrays_encodings::kernel::key_from_i64(k))
}

/// A batch of decoded rows: integer-like slots, and text slots, which always hold the row ids of
/// their text in its table's column (in `ints`) and, only where a text test reads them, the
/// strings themselves (in `texts`).
#[derive(Default)]
pub(crate) struct Batch {
    pub ints: Vec<Vec<i64>>,
    pub texts: Vec<Vec<String>>,
    pub len: usize,
}

impl Batch {
    pub(crate) fn with_slots(slots: usize) -> Batch {
        Batch {
            ints: vec![Vec::new(); slots],
            texts: vec![Vec::new(); slots],
            len: 0,
        }
    }

    /// Keeps the rows whose flag is non-zero, in order (every slot of `len` values).
    pub(crate) fn keep(&mut self, flags: &[i64]) {
        let len = self.len;
        let kept = flags.iter().filter(|&&f| f != 0).count();
        if kept == len {
            return;
        }
        for column in self.ints.iter_mut().filter(|c| c.len() == len) {
            let mut k = 0;
            for i in 0..len {
                column[k] = column[i];
                k += usize::from(flags[i] != 0);
            }
            column.truncate(k);
        }
        for column in self.texts.iter_mut().filter(|c| c.len() == len) {
            let mut i = 0;
            column.retain(|_| {
                i += 1;
                flags[i - 1] != 0
            });
        }
        self.len = kept;
    }
}

fn overflow() -> QueryError {
    QueryError::Overflow("64-bit arithmetic in an expression".to_string())
}

impl VExpr {
    /// Every slot whose strings (not just row ids) the expression reads.
    pub(crate) fn text_slots(&self, out: &mut Vec<usize>) {
        match self {
            VExpr::Text(s, ..) => out.push(*s),
            VExpr::Slot(_) | VExpr::Const(_) | VExpr::Mask(..) => {}
            VExpr::Scale(a, _)
            | VExpr::Neg(a)
            | VExpr::Not(a)
            | VExpr::Year(a)
            | VExpr::DoubleKey(a, _)
            | VExpr::Lookup(a, _) => a.text_slots(out),
            VExpr::In(a, ..) | VExpr::InSet(a, ..) => a.text_slots(out),
            VExpr::ExistsOther(a, b, _) => {
                a.text_slots(out);
                b.text_slots(out);
            }
            VExpr::Add(a, b) | VExpr::Sub(a, b) | VExpr::Mul(a, b) | VExpr::Compare(_, a, b) => {
                a.text_slots(out);
                b.text_slots(out);
            }
            VExpr::And(list) | VExpr::Or(list) => list.iter().for_each(|x| x.text_slots(out)),
            VExpr::Case(whens, otherwise) => {
                for (w, t) in whens {
                    w.text_slots(out);
                    t.text_slots(out);
                }
                otherwise.text_slots(out);
            }
        }
    }

    /// Evaluates over the batch's `batch.len` rows into `out`.
    pub(crate) fn eval(&self, batch: &Batch, out: &mut Vec<i64>) -> Result<()> {
        let n = batch.len;
        out.clear();
        match self {
            VExpr::Slot(s) => out.extend_from_slice(&batch.ints[*s][..n]),
            VExpr::Const(c) => out.resize(n, *c),
            VExpr::Scale(a, f) => {
                a.eval(batch, out)?;
                let mut bad = false;
                for v in out.iter_mut() {
                    let (r, o) = v.overflowing_mul(*f);
                    *v = r;
                    bad |= o;
                }
                if bad {
                    return Err(overflow());
                }
            }
            VExpr::Add(a, b) | VExpr::Sub(a, b) | VExpr::Mul(a, b) | VExpr::Compare(_, a, b) => {
                a.eval(batch, out)?;
                let mut right = Vec::with_capacity(n);
                // A constant on the right is used as it is, without a vector of copies.
                let constant = match b.as_ref() {
                    VExpr::Const(c) => Some(*c),
                    _ => {
                        b.eval(batch, &mut right)?;
                        None
                    }
                };
                binary(self, out, &right, constant)?;
            }
            VExpr::Neg(a) => {
                a.eval(batch, out)?;
                let mut bad = false;
                for v in out.iter_mut() {
                    let (r, o) = v.overflowing_neg();
                    *v = r;
                    bad |= o;
                }
                if bad {
                    return Err(overflow());
                }
            }
            VExpr::And(list) | VExpr::Or(list) => {
                let and = matches!(self, VExpr::And(_));
                list[0].eval(batch, out)?;
                let mut other = Vec::with_capacity(n);
                for e in &list[1..] {
                    e.eval(batch, &mut other)?;
                    for (o, x) in out.iter_mut().zip(&other) {
                        *o = if and { *o & *x } else { *o | *x };
                    }
                }
            }
            VExpr::Not(a) => {
                a.eval(batch, out)?;
                out.iter_mut().for_each(|v| *v ^= 1);
            }
            VExpr::Mask(s, mask) => out.extend(
                batch.ints[*s][..n]
                    .iter()
                    .map(|&c| i64::from(mask[c as usize])),
            ),
            VExpr::Text(s, test, negated) => out.extend(
                batch.texts[*s][..n]
                    .iter()
                    .map(|t| i64::from(test.matches(t) != *negated)),
            ),
            VExpr::In(a, set, negated) => {
                a.eval(batch, out)?;
                // The set is sorted: a binary search where a scan would be long.
                if set.len() <= 8 {
                    out.iter_mut()
                        .for_each(|v| *v = i64::from(set.contains(v) != *negated));
                } else {
                    out.iter_mut()
                        .for_each(|v| *v = i64::from(set.binary_search(v).is_ok() != *negated));
                }
            }
            VExpr::InSet(a, set, negated) => {
                a.eval(batch, out)?;
                set.test_many(out, *negated);
            }
            VExpr::Case(whens, otherwise) => {
                otherwise.eval(batch, out)?;
                let mut decided = vec![false; n];
                let (mut condition, mut result) = (Vec::new(), Vec::new());
                for (when, then) in whens {
                    when.eval(batch, &mut condition)?;
                    then.eval(batch, &mut result)?;
                    for i in 0..n {
                        if !decided[i] && condition[i] != 0 {
                            out[i] = result[i];
                            decided[i] = true;
                        }
                    }
                }
            }
            VExpr::ExistsOther(key, value, groups) => {
                key.eval(batch, out)?;
                let mut values = Vec::with_capacity(n);
                value.eval(batch, &mut values)?;
                groups.exists_other_many(out, &values);
            }
            VExpr::Lookup(a, table) => {
                a.eval(batch, out)?;
                out.iter_mut().for_each(|v| *v = table[*v as usize]);
            }
            VExpr::Year(a) => {
                a.eval(batch, out)?;
                out.iter_mut()
                    .for_each(|d| *d = date::civil_from_days(*d as i32).0);
            }
            VExpr::DoubleKey(a, factor) => {
                a.eval(batch, out)?;
                out.iter_mut()
                    .for_each(|v| *v = double_key(*v as f64 / factor));
            }
        }
        Ok(())
    }
}

fn binary(e: &VExpr, out: &mut [i64], right: &[i64], constant: Option<i64>) -> Result<()> {
    macro_rules! apply {
        ($f:expr) => {{
            #[allow(unused_mut)]
            let mut f = $f;
            match constant {
                Some(c) => out.iter_mut().for_each(|a| *a = f(*a, c)),
                None => out.iter_mut().zip(right).for_each(|(a, b)| *a = f(*a, *b)),
            }
        }};
    }
    macro_rules! checked {
        ($op:ident) => {{
            let mut bad = false;
            apply!(|a: i64, b: i64| {
                let (r, o) = a.$op(b);
                bad |= o;
                r
            });
            if bad {
                return Err(overflow());
            }
        }};
    }
    match e {
        VExpr::Add(..) => checked!(overflowing_add),
        VExpr::Sub(..) => checked!(overflowing_sub),
        VExpr::Mul(..) => checked!(overflowing_mul),
        VExpr::Compare(op, ..) => match op {
            Cmp::Eq => apply!(|a, b| i64::from(a == b)),
            Cmp::Ne => apply!(|a, b| i64::from(a != b)),
            Cmp::Lt => apply!(|a, b| i64::from(a < b)),
            Cmp::Le => apply!(|a, b| i64::from(a <= b)),
            Cmp::Gt => apply!(|a, b| i64::from(a > b)),
            Cmp::Ge => apply!(|a, b| i64::from(a >= b)),
        },
        _ => unreachable!("binary() is called for binary operators only"),
    }
    Ok(())
}
