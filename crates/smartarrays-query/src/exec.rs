//! Planning and execution: the bound query becomes a tree of push pipelines, one per table.
//! The largest table drives the root pipeline; every other table is a build side (a pipeline
//! of its own whose rows are collected and indexed by its unique join key: a bitmap of the keys
//! with per-word ranks when their range allows, else a hash map of the collections crate) that
//! a parent pipeline probes, after testing the bitmap on the key column's codes in its scan.
//! Text travels as row ids into its column and is read where a text test or a result needs it. Each pipeline runs morsel by morsel on
//! the runtime's workers: a morsel is a range of rows aligned to the codecs' 1024-row blocks;
//! within it, vectors of [`VECTOR`] rows are decoded from the packed arrays, filtered in code
//! space first (constants translated once through the frame's base or the dictionary), then
//! the remaining columns are decoded for the surviving rows only, residual filters and probes
//! run on the decoded batch, and the sink (aggregation or collection) consumes it.

use std::collections::BTreeMap;
use std::sync::Arc;

use smartarrays::{ArrayView, Runtime, SmartArray, Worker};
use smartarrays_collections::Map;
use smartarrays_encodings::kernel::i64_from_key;
use smartarrays_encodings::strings::StringEncoding;
use smartarrays_encodings::{Column, DataType, Encoding, IntEncoding, KeyEncoding, LikePattern};

use crate::bind::{pow10_i64, AggCall, AggFunc, Arith, BExpr, BoundQuery, Cmp};
use crate::budget::{Budget, Scope};
use crate::error::{Position, QueryError, Result};
use crate::value::{overflow, pow10, rescale_i128, ResultSet, Type, Value};
use crate::vector::{Batch, TextTest, VExpr};
use smartarrays_encodings::strings::TextBatch;

mod hashmerge;
mod semi;

/// Rows decoded per step (two codec blocks).
pub const VECTOR: usize = 2048;
/// Rows a worker claims at a time (a multiple of the codec block).
pub const MORSEL: usize = 32 * 1024;
/// A column is read value by value, not unpacked, when fewer than one row in this many survived
/// the code-space filters.
const SPARSE: usize = 16;

fn unsupported<T>(what: impl Into<String>) -> Result<T> {
    Err(QueryError::unsupported(what, Position::default()))
}

// ---------------------------------------------------------------------------------------------
// Scalar evaluation (constants and results).

/// `x op y` for result values of type `ty` (exact, or a double for division).
pub(crate) fn arith_values(op: Arith, x: &Value, y: &Value, ty: Type) -> Result<Value> {
    if matches!(x, Value::Null) || matches!(y, Value::Null) {
        return Ok(Value::Null);
    }
    if ty == Type::Float {
        let (a, b) = (
            x.as_f64().ok_or_else(|| overflow("not a number"))?,
            y.as_f64().ok_or_else(|| overflow("not a number"))?,
        );
        return Ok(Value::Float(match op {
            Arith::Add => a + b,
            Arith::Sub => a - b,
            Arith::Mul => a * b,
            Arith::Div => a / b,
        }));
    }
    let ((a, sa), (b, sb)) = match (x.as_exact(), y.as_exact()) {
        (Some(a), Some(b)) => (a, b),
        _ => {
            return Err(QueryError::type_error(
                "arithmetic on non-numbers",
                Position::default(),
            ))
        }
    };
    let result = match op {
        Arith::Mul => a.checked_mul(b).ok_or_else(|| overflow("a product"))?,
        Arith::Add | Arith::Sub => {
            let s = sa.max(sb);
            let (a, b) = (rescale_i128(a, s - sa)?, rescale_i128(b, s - sb)?);
            if op == Arith::Add {
                a.checked_add(b)
            } else {
                a.checked_sub(b)
            }
            .ok_or_else(|| overflow("a sum"))?
        }
        Arith::Div => unreachable!("division is typed as a double"),
    };
    let scale = ty.scale();
    Ok(match ty {
        Type::Int => Value::Int(result),
        _ => Value::Decimal {
            unscaled: result,
            scale,
        },
    })
}

/// Evaluates an expression over one result row (group keys or collected values, aggregates).
fn eval_row(e: &BExpr, keys: &[Value], aggs: &[Value]) -> Result<Value> {
    Ok(match e {
        BExpr::Literal(v, _) => v.clone(),
        BExpr::Key(i, _) => keys[*i].clone(),
        BExpr::Agg(i, _) => aggs[*i].clone(),
        BExpr::Arith(op, a, b, ty) => arith_values(
            *op,
            &eval_row(a, keys, aggs)?,
            &eval_row(b, keys, aggs)?,
            *ty,
        )?,
        BExpr::Neg(a, _) => match eval_row(a, keys, aggs)? {
            Value::Int(v) => Value::Int(-v),
            Value::Decimal { unscaled, scale } => Value::Decimal {
                unscaled: -unscaled,
                scale,
            },
            Value::Float(v) => Value::Float(-v),
            other => other,
        },
        BExpr::Compare(op, a, b) => {
            let (x, y) = (eval_row(a, keys, aggs)?, eval_row(b, keys, aggs)?);
            if x == Value::Null || y == Value::Null {
                Value::Null
            } else {
                Value::Bool(op.holds(x.sort_cmp(&y)))
            }
        }
        BExpr::And(list) => {
            let mut all = true;
            for x in list {
                all &= eval_row(x, keys, aggs)? == Value::Bool(true);
            }
            Value::Bool(all)
        }
        BExpr::Or(list) => {
            let mut any = false;
            for x in list {
                any |= eval_row(x, keys, aggs)? == Value::Bool(true);
            }
            Value::Bool(any)
        }
        BExpr::Not(a) => match eval_row(a, keys, aggs)? {
            Value::Bool(b) => Value::Bool(!b),
            other => other,
        },
        BExpr::Like {
            expr,
            pattern,
            negated,
        } => match eval_row(expr, keys, aggs)? {
            Value::Str(s) => Value::Bool(LikePattern::new(pattern)?.matches(&s) != *negated),
            other => other,
        },
        BExpr::InList {
            expr,
            list,
            negated,
        } => {
            let x = eval_row(expr, keys, aggs)?;
            Value::Bool(list.iter().any(|v| x.sort_cmp(v).is_eq()) != *negated)
        }
        BExpr::InSet { expr, set, negated } => {
            let x = eval_row(expr, keys, aggs)?;
            let key = match x {
                Value::Date(d) => i64::from(d),
                Value::Int(v) | Value::Decimal { unscaled: v, .. } => match i64::try_from(v) {
                    Ok(k) => k,
                    Err(_) => return Ok(Value::Bool(*negated)),
                },
                other => return Ok(other),
            };
            Value::Bool(set.contains(key) != *negated)
        }
        BExpr::Case {
            whens, otherwise, ..
        } => {
            for (w, t) in whens {
                if eval_row(w, keys, aggs)? == Value::Bool(true) {
                    return eval_row(t, keys, aggs);
                }
            }
            eval_row(otherwise, keys, aggs)?
        }
        BExpr::Substring { expr, start, len } => match eval_row(expr, keys, aggs)? {
            Value::Str(text) => Value::Str(crate::bind::substring(&text, *start, *len).to_string()),
            other => other,
        },
        BExpr::ExtractYear(a) => match eval_row(a, keys, aggs)? {
            Value::Date(d) => Value::Int(i128::from(
                smartarrays_encodings::date::civil_from_days(d).0,
            )),
            other => other,
        },
        BExpr::Column { .. } | BExpr::ExistsOther { .. } => {
            unreachable!("columns are bound below the aggregation")
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Scanning a column: decoding packed codes and translating constants into code space.

/// How a column's values come out of its encoding.
enum Decode<'a> {
    /// value = base + code (bit-packed: base 0; frame of reference: its base).
    Packed { array: &'a SmartArray, base: i64 },
    /// value = dictionary[code].
    Dict {
        array: &'a SmartArray,
        values: Vec<i64>,
    },
    /// A string dictionary: the value is the code (the dictionary is sorted).
    StrCodes { array: &'a SmartArray },
    /// Any other integer encoding: decoded to order-preserving keys.
    Keys {
        encoding: &'a dyn KeyEncoding,
        signed: bool,
    },
    /// Text that is not dictionary-encoded (FSST): decoded to strings.
    Text { column: &'a Column },
}

impl Decode<'_> {
    fn of(column: &Column) -> Result<Decode<'_>> {
        let signed = column.data_type() != DataType::Bool;
        let from_key = |k: u64| if signed { i64_from_key(k) } else { k as i64 };
        Ok(match column.encoding() {
            Encoding::Keys(IntEncoding::BitPacked(b)) => Decode::Packed {
                array: b.array(),
                base: from_key(0),
            },
            Encoding::Keys(IntEncoding::Frame(f)) => Decode::Packed {
                array: f.offsets(),
                base: from_key(f.base()),
            },
            Encoding::Keys(IntEncoding::Dictionary(d)) => Decode::Dict {
                array: d.codes(),
                values: d.values().iter().map(|&k| from_key(k)).collect(),
            },
            Encoding::Keys(other) => Decode::Keys {
                encoding: other.as_dyn(),
                signed,
            },
            Encoding::Strings(StringEncoding::Dictionary(d)) => {
                Decode::StrCodes { array: d.codes() }
            }
            Encoding::Strings(_) => Decode::Text { column },
            // Doubles as their order-preserving keys (compared, not computed with).
            Encoding::Alp(a) => Decode::Keys {
                encoding: a,
                signed: true,
            },
        })
    }

    fn array(&self) -> Option<&SmartArray> {
        match self {
            Decode::Packed { array, .. }
            | Decode::Dict { array, .. }
            | Decode::StrCodes { array } => Some(array),
            _ => None,
        }
    }

    fn describe(&self) -> String {
        match self {
            Decode::Packed { array, base } => {
                if *base == 0 || *base == i64::MIN {
                    format!("bit-packed {} bits", array.bits())
                } else {
                    format!("frame of reference {} bits", array.bits())
                }
            }
            Decode::Dict { array, values } => {
                format!(
                    "dictionary of {} values, {} bits",
                    values.len(),
                    array.bits()
                )
            }
            Decode::StrCodes { array } => format!("string dictionary, {} bits", array.bits()),
            Decode::Keys { encoding, .. } => format!("{} (decoded to keys)", encoding.name()),
            Decode::Text { column } => format!("{} strings", column.encoding_kind().name()),
        }
    }

    /// Decodes the raw codes of rows `start..start + out.len()`.
    fn codes(&self, view: Option<&ArrayView<'_>>, start: usize, out: &mut [u64]) -> Result<()> {
        match (self, view) {
            (Decode::Keys { encoding, .. }, _) => encoding.unpack(start, out)?,
            (_, Some(view)) => view.unpack(start, out)?,
            _ => unreachable!("text columns have no codes"),
        }
        Ok(())
    }

    /// The value of a raw code.
    #[inline(always)]
    fn value(&self, code: u64) -> i64 {
        match self {
            Decode::Packed { base, .. } => base.wrapping_add(code as i64),
            Decode::Dict { values, .. } => values[code as usize],
            Decode::StrCodes { .. } => code as i64,
            Decode::Keys { signed, .. } => {
                if *signed {
                    i64_from_key(code)
                } else {
                    code as i64
                }
            }
            Decode::Text { .. } => 0,
        }
    }

    /// The codes whose values lie in `lo..=hi`.
    fn code_range(&self, lo: i64, hi: i64) -> CodeTest {
        if lo > hi {
            return CodeTest::Nothing;
        }
        match self {
            Decode::Packed { base, array } => {
                let lo = (i128::from(lo) - i128::from(*base)).max(0);
                let hi = i128::from(hi) - i128::from(*base);
                let top = if array.bits() >= 64 {
                    i128::from(u64::MAX)
                } else {
                    (1i128 << array.bits()) - 1
                };
                if hi < 0 || lo > top {
                    CodeTest::Nothing
                } else {
                    CodeTest::Range(lo as u64, hi.min(top) as u64)
                }
            }
            Decode::Dict { values, .. } => {
                let first = values.partition_point(|&v| v < lo);
                let end = values.partition_point(|&v| v <= hi);
                if first >= end {
                    CodeTest::Nothing
                } else {
                    CodeTest::Range(first as u64, end as u64 - 1)
                }
            }
            Decode::Keys { signed, .. } => {
                let key = |v: i64| {
                    if *signed {
                        smartarrays_encodings::kernel::key_from_i64(v)
                    } else {
                        v.max(0) as u64
                    }
                };
                if !*signed && hi < 0 {
                    return CodeTest::Nothing;
                }
                CodeTest::Range(key(lo), key(hi))
            }
            Decode::StrCodes { .. } | Decode::Text { .. } => CodeTest::Nothing,
        }
    }
}

/// The FSST rows of a text column, if it is one.
fn fsst_of(column: &Column) -> Option<&smartarrays_encodings::strings::FsstStrings> {
    match column.encoding() {
        Encoding::Strings(StringEncoding::Fsst(f)) => Some(f),
        _ => None,
    }
}

/// A filter on raw codes.
#[derive(Clone, Debug)]
enum CodeTest {
    Nothing,
    Range(u64, u64),
    Mask(Arc<Vec<bool>>),
}

impl CodeTest {
    /// The share of a column's codes this test keeps, assuming codes spread evenly over the
    /// code space (the dictionary's size, or the packed width's range): it orders the tests.
    fn kept_share(&self, decode: &Decode<'_>) -> f64 {
        let space = match decode {
            Decode::Dict { values, .. } => values.len() as f64,
            Decode::Packed { array, .. } | Decode::StrCodes { array } => {
                2f64.powi(array.bits() as i32)
            }
            _ => return 1.0,
        };
        match self {
            CodeTest::Nothing => 0.0,
            CodeTest::Range(lo, hi) => ((hi - lo) as f64 + 1.0) / space.max(1.0),
            CodeTest::Mask(m) => m.iter().filter(|&&b| b).count() as f64 / m.len().max(1) as f64,
        }
        .min(1.0)
    }

    fn describe(&self) -> String {
        match self {
            CodeTest::Nothing => "no code can match".to_string(),
            CodeTest::Range(lo, hi) => format!("codes {lo}..={hi}"),
            CodeTest::Mask(m) => format!(
                "{} of {} dictionary codes",
                m.iter().filter(|&&b| b).count(),
                m.len()
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The physical plan.

/// What a slot of a pipeline's batch holds.
#[derive(Clone, Debug)]
enum SlotKind {
    /// An exact number, date or boolean.
    Int(Type),
    /// Codes into a sorted string dictionary.
    Dict(Arc<Vec<String>>),
    /// Text: the batch carries the row ids of the strings in their table's column (the
    /// pipeline's `text_columns`), and the strings themselves only where a text test reads them.
    Text,
}

/// A column a pipeline reads from its own table.
struct ScanColumn<'a> {
    name: String,
    decode: Decode<'a>,
    slot: usize,
    /// Code-space tests (applied before anything else is decoded).
    tests: Vec<CodeTest>,
    /// Tests of an FSST text column's rows (negated when the flag is set), run in the scan on
    /// the vector's surviving rows decompressed one after the other into one reused buffer
    /// (searched at once), after the code-space and semi-join filters: no string is built.
    text_tests: Vec<(TextTest, bool, String)>,
    /// Whether later stages read its values.
    materialize: bool,
}

/// A probe into a build side: keep the rows whose key is in the build's table, and gather the
/// build's columns into this pipeline's slots.
struct Probe<'a> {
    key_slot: usize,
    /// The build's slot that `key_slot` meets.
    build_key: usize,
    /// Further key columns of a multi-column key, (this pipeline's slot, build slot): the key
    /// is then the columns' offsets in their build ranges, combined into one integer.
    extra: Vec<(usize, usize)>,
    label: String,
    build: Box<Pipeline<'a>>,
    /// (build slot, this pipeline's slot) for every column the build delivers.
    gather: Vec<(usize, usize)>,
}

/// One pipeline: scan, code-space filters, residual filters, probes, more filters, sink.
struct Pipeline<'a> {
    table_name: String,
    rows: usize,
    scans: Vec<ScanColumn<'a>>,
    /// Stages after the scan, in order.
    stages: Vec<Stage<'a>>,
    slots: Vec<SlotKind>,
    /// Per slot: the column a text slot's row ids point into.
    text_columns: Vec<Option<&'a Column>>,
    /// Per slot: whether a text test reads its strings (else only its row ids travel).
    needs_strings: Vec<bool>,
    /// Semi-join filters run in the scan: (scan column, probe ordinal) for every probe whose
    /// key is a column this pipeline scans. Its build's key bitmap drops the rows without a
    /// partner before any other column is decoded (the probe itself runs later, on fewer rows).
    semi: Vec<(usize, usize)>,
    /// (table, column) -> slot.
    slot_of: BTreeMap<(usize, usize), usize>,
    /// The scan columns with code-space tests, most selective first (estimated from the
    /// share of the code space a test keeps): later ones are tested on the survivors only.
    filter_order: Vec<usize>,
}

enum Stage<'a> {
    Filter(VExpr, String),
    Probe(Probe<'a>),
}

/// Built index of a build side.
struct Built {
    index: BuildIndex,
    /// A bitmap of the keys over `min..`, tested before the index (it fits in cache where the
    /// index may not, and rejects most rows of a selective build cheaply).
    bits: Option<(i64, Vec<u64>)>,
    /// The build's columns, in the order of its rows (for `Rank`: in key order).
    ints: Vec<Vec<i64>>,
    /// For a multi-column key: each key column's (minimum, width) over the build's rows.
    composite: Vec<(i64, i64)>,
}

/// Combines multi-column keys into one integer: column `i`'s offset `v - min_i` in its range
/// of `width_i` values, mixed radix. A value outside its column's build range can have no
/// partner and becomes `i64::MIN`, a key no build row has.
fn combine_keys(columns: &[&[i64]], ranges: &[(i64, i64)], out: &mut Vec<i64>) {
    out.clear();
    let rows = columns.first().map_or(0, |c| c.len());
    out.resize(rows, 0);
    for (column, &(min, width)) in columns.iter().zip(ranges) {
        for (k, &v) in out.iter_mut().zip(column.iter()) {
            let offset = i128::from(v) - i128::from(min);
            *k = if *k == i64::MIN || offset < 0 || offset >= i128::from(width) {
                i64::MIN
            } else {
                // In range: the product of the widths was checked to fit when the build ran.
                *k * width + offset as i64
            };
        }
    }
}

/// The (minimum, width) of every key column of a build, checking that the product of the
/// widths fits in 63 bits (else the combined key cannot be formed: an error naming the join).
fn composite_ranges(columns: &[&[i64]], label: &str) -> Result<Vec<(i64, i64)>> {
    let mut ranges = Vec::with_capacity(columns.len());
    let mut product: i64 = 1;
    for column in columns {
        let Some((min, max)) = column
            .iter()
            .fold(None, |acc: Option<(i64, i64)>, &v| match acc {
                None => Some((v, v)),
                Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
            })
        else {
            // No build rows: an empty range, so nothing matches.
            return Ok(vec![(0, 0); columns.len()]);
        };
        let width = i64::try_from(i128::from(max) - i128::from(min) + 1).ok();
        product = match width.and_then(|w| product.checked_mul(w)) {
            Some(p) => p,
            None => {
                return Err(QueryError::unsupported(
                    format!(
                        "a join on {label} whose key columns' value ranges multiply past 2^63 (they are combined into one 64-bit key)"
                    ),
                    Position::default(),
                ))
            }
        };
        ranges.push((min, width.unwrap_or(0)));
    }
    Ok(ranges)
}

/// Key to build row.
enum BuildIndex {
    /// Keys spread thinly over a range too wide for a bitmap: the collections crate's hash map.
    Hash(Map<i64, u32>),
    /// Keys within a range the bitmap covers: the build's rows are in key order, and a key's
    /// row is its rank among the keys, the ones in the words before its own (`before`, per
    /// word) plus those below it in its word.
    Rank { before: Vec<u32> },
}

impl Built {
    /// The build row of every key (`None`: no match).
    fn lookup(&self, keys: &[i64], found: &mut Vec<Option<u32>>) -> Result<()> {
        found.clear();
        match (&self.index, &self.bits) {
            (BuildIndex::Hash(map), _) => {
                found.resize(keys.len(), None);
                map.get_many(keys, found)?;
            }
            (BuildIndex::Rank { before }, Some((min, words))) => {
                found.extend(keys.iter().map(|&k| {
                    let bit = (k as u64).wrapping_sub(*min as u64);
                    let w = (bit / 64) as usize;
                    let word = *words.get(w)?;
                    let below = word & ((1u64 << (bit % 64)) - 1);
                    ((word >> (bit % 64)) & 1 == 1).then(|| before[w] + below.count_ones())
                }))
            }
            (BuildIndex::Rank { .. }, None) => found.resize(keys.len(), None),
        }
        Ok(())
    }
}

/// Bits of key space a join bitmap may take (16 MiB).
const JOIN_BITMAP_BITS: u64 = 1 << 27;

/// Indexes a build side's rows by their key column `key` (which must be unique); the columns
/// come back reordered where the index needs it.
fn build_index(
    mut columns: Vec<Vec<i64>>,
    key: usize,
    runtime: &Arc<Runtime>,
    label: &str,
) -> Result<Built> {
    let duplicate = || QueryError::DuplicateBuildKey {
        column: label.to_string(),
    };
    let keys = &columns[key];
    let (min, max) = keys
        .iter()
        .fold((i64::MAX, i64::MIN), |(lo, hi), &k| (lo.min(k), hi.max(k)));
    let span = if keys.is_empty() {
        0
    } else {
        (i128::from(max) - i128::from(min) + 1) as u128
    };
    if keys.is_empty() || span <= u128::from(JOIN_BITMAP_BITS) {
        let mut words = vec![0u64; (span as usize).div_ceil(64)];
        for &k in keys {
            let bit = (k - min) as usize;
            let word = &mut words[bit / 64];
            if (*word >> (bit % 64)) & 1 == 1 {
                return Err(duplicate());
            }
            *word |= 1 << (bit % 64);
        }
        let mut before = Vec::with_capacity(words.len());
        let mut total = 0u32;
        for w in &words {
            before.push(total);
            total += w.count_ones();
        }
        // Rows into key order (nothing to move when they already are, like a sorted key).
        if keys.windows(2).any(|w| w[0] > w[1]) {
            let rank: Vec<u32> = keys
                .iter()
                .map(|&k| {
                    let bit = (k - min) as u64;
                    let word = words[(bit / 64) as usize];
                    before[(bit / 64) as usize] + (word & ((1u64 << (bit % 64)) - 1)).count_ones()
                })
                .collect();
            for column in columns.iter_mut() {
                if column.len() != rank.len() {
                    continue;
                }
                let mut sorted = vec![0i64; column.len()];
                for (&r, &v) in rank.iter().zip(column.iter()) {
                    sorted[r as usize] = v;
                }
                *column = sorted;
            }
        }
        return Ok(Built {
            index: BuildIndex::Rank { before },
            bits: Some((min, words)),
            ints: columns,
            composite: Vec::new(),
        });
    }
    // Built in parallel (thread-local pre-aggregation, radix partitions); a key seen twice
    // leaves fewer entries than rows.
    let rows: Vec<u32> = (0..keys.len() as u32).collect();
    let options = smartarrays::ArrayOptions::new().runtime(Arc::clone(runtime));
    let map: Map<i64, u32> = Map::aggregate_parallel(keys, &rows, |a, _| a, &options)?;
    if map.len() != keys.len() {
        return Err(duplicate());
    }
    Ok(Built {
        index: BuildIndex::Hash(map),
        bits: None,
        ints: columns,
        composite: Vec::new(),
    })
}

// ---------------------------------------------------------------------------------------------
// Compiling bound expressions against a pipeline's slots.

fn slot_kind_of(column: &Column, decode: &Decode<'_>) -> Result<SlotKind> {
    let ty = Type::of(column.data_type()).ok_or_else(|| {
        QueryError::unsupported(
            format!("columns of type {}", column.data_type()),
            Position::default(),
        )
    })?;
    Ok(match (ty, column.encoding()) {
        (Type::Str, Encoding::Strings(StringEncoding::Dictionary(d))) => {
            SlotKind::Dict(Arc::new(d.values().to_vec()))
        }
        (Type::Str, _) => {
            debug_assert!(matches!(decode, Decode::Text { .. }));
            SlotKind::Text
        }
        (ty, _) => SlotKind::Int(ty),
    })
}

struct Compiler<'p> {
    slot_of: &'p BTreeMap<(usize, usize), usize>,
    slots: &'p [SlotKind],
}

impl Compiler<'_> {
    fn slot(&self, e: &BExpr) -> Option<usize> {
        match e {
            BExpr::Column { table, column, .. } => self.slot_of.get(&(*table, *column)).copied(),
            _ => None,
        }
    }

    /// Compiles `e` to a vectorised expression at the scale of its type.
    fn compile(&self, e: &BExpr) -> Result<VExpr> {
        Ok(match e {
            BExpr::Column { .. } => {
                let slot = self.slot(e).ok_or_else(|| {
                    QueryError::unsupported("a column outside its pipeline", Position::default())
                })?;
                match &self.slots[slot] {
                    SlotKind::Int(_) => VExpr::Slot(slot),
                    _ => return unsupported("text values inside arithmetic or as results of CASE"),
                }
            }
            BExpr::Literal(v, _) => VExpr::Const(match v {
                Value::Int(x) => i64::try_from(*x).map_err(|_| overflow("a constant"))?,
                Value::Decimal { unscaled, .. } => {
                    i64::try_from(*unscaled).map_err(|_| overflow("a constant"))?
                }
                Value::Date(d) => i64::from(*d),
                Value::Bool(b) => i64::from(*b),
                _ => return unsupported("this constant in a row expression"),
            }),
            BExpr::Arith(op, a, b, ty) => {
                if [a.ty(), b.ty(), *ty].contains(&Type::Float) {
                    return unsupported("computing with doubles before aggregation");
                }
                let (x, y) = (self.compile(a)?, self.compile(b)?);
                match op {
                    Arith::Mul => VExpr::Mul(Box::new(x), Box::new(y)),
                    Arith::Add | Arith::Sub => {
                        let s = ty.scale();
                        let x = scaled(x, s - a.ty().scale());
                        let y = scaled(y, s - b.ty().scale());
                        if *op == Arith::Add {
                            VExpr::Add(Box::new(x), Box::new(y))
                        } else {
                            VExpr::Sub(Box::new(x), Box::new(y))
                        }
                    }
                    Arith::Div => return unsupported("division before aggregation"),
                }
            }
            BExpr::Neg(a, _) => VExpr::Neg(Box::new(self.compile(a)?)),
            BExpr::Compare(op, a, b) => {
                if a.ty() == Type::Str || b.ty() == Type::Str {
                    return self.text_test(a, b, *op);
                }
                if a.ty() == Type::Float || b.ty() == Type::Float {
                    // Doubles compare as their order-preserving keys; an exact side is turned
                    // into its double's key first (as SQL engines cast decimals to doubles).
                    let key = |e: &BExpr| -> Result<VExpr> {
                        Ok(match (e, e.ty()) {
                            (BExpr::Literal(Value::Float(f), _), _) => {
                                VExpr::Const(crate::vector::double_key(*f))
                            }
                            (BExpr::Column { .. }, Type::Float) => self.compile(e)?,
                            (_, t) if t.is_exact() => VExpr::DoubleKey(
                                Box::new(self.compile(e)?),
                                pow10_i64(t.scale()) as f64,
                            ),
                            _ => return unsupported("computing with doubles before aggregation"),
                        })
                    };
                    return Ok(VExpr::Compare(*op, Box::new(key(a)?), Box::new(key(b)?)));
                }
                let s = a.ty().scale().max(b.ty().scale());
                let x = scaled(self.compile(a)?, s - a.ty().scale());
                let y = scaled(self.compile(b)?, s - b.ty().scale());
                VExpr::Compare(*op, Box::new(x), Box::new(y))
            }
            BExpr::And(list) => VExpr::And(
                list.iter()
                    .map(|x| self.compile(x))
                    .collect::<Result<_>>()?,
            ),
            BExpr::Or(list) => VExpr::Or(
                list.iter()
                    .map(|x| self.compile(x))
                    .collect::<Result<_>>()?,
            ),
            BExpr::Not(a) => VExpr::Not(Box::new(self.compile(a)?)),
            BExpr::Like {
                expr,
                pattern,
                negated,
            } => {
                let like = Arc::new(LikePattern::new(pattern)?);
                self.string_predicate(expr, TextTest::Like(like), *negated)?
            }
            BExpr::InList {
                expr,
                list,
                negated,
            } => {
                if expr.ty() == Type::Str {
                    let strings = list
                        .iter()
                        .map(|v| match v {
                            Value::Str(s) => Ok(s.clone()),
                            _ => unsupported("mixed IN lists"),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    self.string_predicate(expr, TextTest::In(strings), *negated)?
                } else {
                    if expr.ty() == Type::Float {
                        return unsupported("IN lists of doubles");
                    }
                    let s = expr.ty().scale();
                    let mut set = Vec::new();
                    for v in list {
                        let (u, vs) = v
                            .as_exact()
                            .or(match v {
                                Value::Date(d) => Some((i128::from(*d), 0)),
                                _ => None,
                            })
                            .ok_or_else(|| {
                                QueryError::type_error(
                                    "IN list of another type",
                                    Position::default(),
                                )
                            })?;
                        if vs <= s {
                            set.push(
                                i64::try_from(rescale_i128(u, s - vs)?)
                                    .map_err(|_| overflow("a constant"))?,
                            );
                        } else if u % pow10(u32::from(vs - s)) == 0 {
                            set.push(
                                i64::try_from(u / pow10(u32::from(vs - s)))
                                    .map_err(|_| overflow("a constant"))?,
                            );
                        }
                    }
                    set.sort_unstable();
                    set.dedup();
                    VExpr::In(Box::new(self.compile(expr)?), Arc::new(set), *negated)
                }
            }
            BExpr::InSet { expr, set, negated } => {
                VExpr::InSet(Box::new(self.compile(expr)?), Arc::clone(set), *negated)
            }
            BExpr::Case {
                whens,
                otherwise,
                ty,
            } => {
                let s = ty.scale();
                let mut compiled = Vec::new();
                for (w, t) in whens {
                    compiled.push((
                        self.compile(w)?,
                        scaled(self.compile(t)?, s - t.ty().scale()),
                    ));
                }
                VExpr::Case(
                    compiled,
                    Box::new(scaled(self.compile(otherwise)?, s - otherwise.ty().scale())),
                )
            }
            BExpr::ExtractYear(a) => VExpr::Year(Box::new(self.compile(a)?)),
            BExpr::ExistsOther { key, value, groups } => VExpr::ExistsOther(
                Box::new(self.compile(key)?),
                Box::new(self.compile(value)?),
                Arc::clone(groups),
            ),
            BExpr::Substring { .. } => {
                return unsupported("SUBSTRING outside text tests and results without GROUP BY")
            }
            BExpr::Key(..) | BExpr::Agg(..) => {
                unreachable!("keys and aggregates are above the pipelines")
            }
        })
    }

    fn text_test(&self, a: &BExpr, b: &BExpr, op: Cmp) -> Result<VExpr> {
        match (a, b) {
            (x, BExpr::Literal(Value::Str(s), _)) => {
                self.string_predicate(x, TextTest::Compare(op, s.clone()), false)
            }
            (BExpr::Literal(Value::Str(s), _), x) => {
                self.string_predicate(x, TextTest::Compare(op.flip(), s.clone()), false)
            }
            _ => unsupported("comparing two text expressions"),
        }
    }

    fn string_predicate(&self, e: &BExpr, test: TextTest, negated: bool) -> Result<VExpr> {
        // A test on a substring tests each string's substring.
        if let BExpr::Substring { expr, start, len } = e {
            let test = TextTest::Substring(*start, *len, Box::new(test));
            return self.string_predicate(expr, test, negated);
        }
        let slot = self.slot(e).ok_or_else(|| {
            QueryError::unsupported("text predicates on expressions", Position::default())
        })?;
        Ok(match &self.slots[slot] {
            SlotKind::Dict(dictionary) => VExpr::Mask(
                slot,
                Arc::new(
                    dictionary
                        .iter()
                        .map(|s| test.matches(s) != negated)
                        .collect(),
                ),
            ),
            SlotKind::Text => VExpr::Text(slot, test, negated),
            SlotKind::Int(_) => return unsupported("a text predicate on a number"),
        })
    }
}

fn scaled(e: VExpr, by: u8) -> VExpr {
    if by == 0 {
        e
    } else if let VExpr::Const(c) = e {
        match c.checked_mul(pow10_i64(by)) {
            Some(v) => VExpr::Const(v),
            None => VExpr::Scale(Box::new(VExpr::Const(c)), pow10_i64(by)),
        }
    } else {
        VExpr::Scale(Box::new(e), pow10_i64(by))
    }
}

/// The inclusive range, in the column's units (scale `scale`), of values `v` with
/// `v op literal`; `None` when no value can match, or the literal is not a number or date.
fn value_range(op: Cmp, scale: u8, literal: &Value) -> Option<Option<(i64, i64)>> {
    let (u, ls) = match literal {
        Value::Date(d) => (i128::from(*d), 0),
        other => other.as_exact()?,
    };
    let m = scale.max(ls);
    let big = u * pow10(u32::from(m - ls));
    let f = pow10(u32::from(m - scale));
    let floor = big.div_euclid(f);
    let ceil = -(-big).div_euclid(f);
    let (lo, hi): (i128, i128) = match op {
        Cmp::Lt => (i128::MIN, ceil - 1),
        Cmp::Le => (i128::MIN, floor),
        Cmp::Gt => (floor + 1, i128::MAX),
        Cmp::Ge => (ceil, i128::MAX),
        Cmp::Eq => {
            if big.rem_euclid(f) != 0 {
                return Some(None);
            }
            (floor, floor)
        }
        Cmp::Ne => return None,
    };
    let lo = lo.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    let hi = hi.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    Some(if (lo as i128) > (hi as i128) {
        None
    } else {
        Some((lo, hi))
    })
}

// ---------------------------------------------------------------------------------------------
// Planning.

/// A planned query: the root pipeline (with its build sides) and what is done with its output.
pub(crate) struct Plan<'a> {
    root: Pipeline<'a>,
    sink: SinkPlan,
    query: BoundQuery<'a>,
}

/// The root pipeline's sink.
enum SinkPlan {
    /// Aggregation on direct arrays: the group is `sum(code_i * stride_i)` over small
    /// dictionaries' codes.
    Direct {
        keys: Vec<(usize, usize)>, // (slot, stride)
        groups: usize,
        aggs: Vec<AggPlan>,
        key_kinds: Vec<SlotKind>,
    },
    /// Aggregation on the collections crate's hash map.
    Hash(HashSink),
    /// No aggregation: collect the expressions' values.
    Collect {
        exprs: Vec<KeySource>,
        kinds: Vec<SlotKind>,
    },
}

/// A hash aggregation's keys and aggregates: packed keys, plus keys that must be functionally
/// dependent on them (checked on every row).
struct HashSink {
    packed: Vec<(VExpr, i64, u32)>,   // (key, minimum, bits)
    carried: Vec<(KeySource, usize)>, // (how to read it, key index)
    packed_index: Vec<usize>,
    aggs: Vec<AggPlan>,
    key_kinds: Vec<SlotKind>,
    single_signed: bool,
}

#[derive(Clone, Debug)]
enum KeySource {
    Expr(VExpr),
    Text(usize),
}

struct AggPlan {
    func: AggFunc,
    arg: Option<VExpr>,
    ty: Type,
    scale: u8,
}

impl<'a> Plan<'a> {
    pub(crate) fn new(query: BoundQuery<'a>) -> Result<Plan<'a>> {
        let tables = query.tables.len();
        // Classify the conjuncts.
        let mut local: Vec<Vec<BExpr>> = vec![Vec::new(); tables];
        let mut edges: Vec<(usize, usize, usize, usize)> = Vec::new(); // (t1, c1, t2, c2)
        let mut residual: Vec<BExpr> = Vec::new();
        for c in &query.conjuncts {
            let used = c.tables();
            match (used.len(), c) {
                (0, _) => residual.push(c.clone()),
                (1, _) => local[used[0]].push(c.clone()),
                (2, BExpr::Compare(Cmp::Eq, a, b))
                    if matches!(
                        (a.as_ref(), b.as_ref()),
                        (BExpr::Column { ty: ta, .. }, BExpr::Column { ty: tb, .. }) if ta == tb && *ta != Type::Str
                    ) =>
                {
                    if let (
                        BExpr::Column {
                            table: t1,
                            column: c1,
                            ..
                        },
                        BExpr::Column {
                            table: t2,
                            column: c2,
                            ..
                        },
                    ) = (a.as_ref(), b.as_ref())
                    {
                        edges.push((*t1, *c1, *t2, *c2));
                    }
                }
                _ => residual.push(c.clone()),
            }
        }
        // The join tree: the largest table at the root; build sides hang off their parent by
        // an edge whose build column looks unique (checked exactly when the build runs).
        // A table none of whose join columns looks unique cannot be a build side: the largest
        // of those is the root (a derived table of groups can outgrow its partner).
        let can_build = |t: usize| {
            edges.iter().any(|&(t1, c1, t2, c2)| {
                (t1 == t && looks_unique(&query, t1, c1))
                    || (t2 == t && looks_unique(&query, t2, c2))
            }) || composite_build(&query, &edges, t)
        };
        let root = (0..tables)
            .filter(|&t| !can_build(t))
            .max_by_key(|&t| query.tables[t].table.rows())
            .or_else(|| (0..tables).max_by_key(|&t| query.tables[t].table.rows()))
            .unwrap_or(0);
        let mut parent: Vec<Option<(usize, usize, usize)>> = vec![None; tables]; // (parent, parent col, own col)
        let mut order = vec![root];
        let mut used_edges = vec![false; edges.len()];
        // Further key columns of a multi-column join: per child, (parent col, own col).
        let mut extra_keys: Vec<Vec<(usize, usize)>> = vec![Vec::new(); tables];
        while order.len() < tables {
            let mut chosen = None;
            for (i, &(t1, c1, t2, c2)) in edges.iter().enumerate() {
                if used_edges[i] {
                    continue;
                }
                for (p, pc, ch, cc) in [(t1, c1, t2, c2), (t2, c2, t1, c1)] {
                    if order.contains(&p) && !order.contains(&ch) && looks_unique(&query, ch, cc) {
                        chosen = Some((i, p, pc, ch, cc));
                        break;
                    }
                }
                if chosen.is_some() {
                    break;
                }
            }
            if chosen.is_none() {
                // A multi-column key: all equalities between a table not yet joined and one
                // that is, when their columns together look unique (Q9's partsupp).
                if let Some((first, p, ch, more)) =
                    composite_edge(&query, &edges, &used_edges, &order)
                {
                    let (_, pc, _, cc) = oriented(edges[first], p);
                    for &j in &more {
                        let (_, pcj, _, ccj) = oriented(edges[j], p);
                        extra_keys[ch].push((pcj, ccj));
                        used_edges[j] = true;
                    }
                    chosen = Some((first, p, pc, ch, cc));
                }
            }
            let (i, p, pc, ch, cc) = match chosen {
                Some(chosen) => chosen,
                None => return Err(no_build_side(&query, &edges, &used_edges, &order)),
            };
            used_edges[i] = true;
            // Every other equality between the same two tables joins the key too: a column
            // that only looked unique (a duplicate the estimate missed) is then no error as
            // long as the columns together are unique.
            for j in 0..edges.len() {
                let (a, _, b, _) = edges[j];
                if !used_edges[j] && ((a, b) == (p, ch) || (a, b) == (ch, p)) {
                    let (_, pcj, _, ccj) = oriented(edges[j], p);
                    extra_keys[ch].push((pcj, ccj));
                    used_edges[j] = true;
                }
            }
            parent[ch] = Some((p, pc, cc));
            order.push(ch);
        }
        // Edges not used for the tree are filters once both sides are there.
        for (i, &(t1, c1, t2, c2)) in edges.iter().enumerate() {
            if !used_edges[i] {
                let ty = column_type(&query, t1, c1);
                residual.push(BExpr::Compare(
                    Cmp::Eq,
                    Box::new(BExpr::Column {
                        table: t1,
                        column: c1,
                        ty,
                    }),
                    Box::new(BExpr::Column {
                        table: t2,
                        column: c2,
                        ty,
                    }),
                ));
            }
        }
        // Every column read above its table's own filters.
        let mut above: Vec<(usize, usize)> = Vec::new();
        for e in residual.iter().chain(&query.keys) {
            e.columns(&mut above);
        }
        for a in &query.aggregates {
            if let Some(arg) = &a.arg {
                arg.columns(&mut above);
            }
        }
        for (t, keys) in extra_keys.iter().enumerate() {
            if let Some((pt, _, _)) = parent[t] {
                for &(pc, cc) in keys {
                    for col in [(pt, pc), (t, cc)] {
                        if !above.contains(&col) {
                            above.push(col);
                        }
                    }
                }
            }
        }
        for (t, p) in parent.iter().enumerate() {
            if let Some((pt, pc, cc)) = p {
                if !above.contains(&(*pt, *pc)) {
                    above.push((*pt, *pc));
                }
                if !above.contains(&(t, *cc)) {
                    above.push((t, *cc));
                }
            }
        }
        let children: Vec<Vec<usize>> = (0..tables)
            .map(|t| {
                (0..tables)
                    .filter(|&c| parent[c].map(|p| p.0) == Some(t))
                    .collect()
            })
            .collect();
        let mut residual_left = residual;
        let root_pipeline = build_pipeline(
            &query,
            root,
            &local,
            &children,
            &parent,
            &extra_keys,
            &above,
            &mut residual_left,
        )?;
        if !residual_left.is_empty() {
            return unsupported("a filter that could not be placed");
        }
        let mut root_pipeline = root_pipeline;
        add_implied_tests(
            &mut root_pipeline,
            &query,
            &crate::implied::implied_filters(&query.conjuncts),
        );
        let sink = plan_sink(&query, &root_pipeline)?;
        if let SinkPlan::Direct { aggs, .. } | SinkPlan::Hash(HashSink { aggs, .. }) = &sink {
            let mut text_slots = Vec::new();
            for a in aggs {
                if let Some(e) = &a.arg {
                    e.text_slots(&mut text_slots);
                }
            }
            for s in text_slots {
                root_pipeline.needs_strings[s] = true;
            }
        }
        Ok(Plan {
            root: root_pipeline,
            sink,
            query,
        })
    }

    /// The plan as text: the tables' placements, pipelines, encodings, code-space filters,
    /// joins, sink.
    pub(crate) fn explain(&self) -> String {
        let mut out = String::new();
        for t in &self.query.tables {
            out.push_str(&format!(
                "table {}: {}\n",
                t.alias,
                t.table
                    .placement_reason()
                    .map_or_else(|| t.table.placement().to_string(), str::to_string)
            ));
        }
        let mut counter = 0;
        explain_pipeline(&self.root, &mut out, &mut counter, 0);
        let sink = match &self.sink {
            SinkPlan::Direct { groups, aggs, .. } => format!(
                "aggregate on a direct array of {groups} groups (dictionary codes of the keys), {} aggregates, 128-bit sums",
                aggs.len()
            ),
            SinkPlan::Hash(HashSink { packed, carried, aggs, .. }) => format!(
                "hash aggregate (collections Map, thread-local tables merged) on {} packed keys ({} bits){}, {} aggregates, 128-bit sums",
                packed.len(),
                packed.iter().map(|p| p.2).sum::<u32>(),
                if carried.is_empty() { String::new() } else { format!(", {} dependent keys checked per row", carried.len()) },
                aggs.len()
            ),
            SinkPlan::Collect { exprs, .. } => format!("collect {} values per row", exprs.len()),
        };
        out.push_str(&format!("  sink: {sink}\n"));
        if self.query.having.is_some() {
            out.push_str("then: having\n");
        }
        if !self.query.order_by.is_empty() {
            out.push_str(&format!(
                "then: sort on {} keys\n",
                self.query.order_by.len()
            ));
        }
        if let Some(limit) = self.query.limit {
            out.push_str(&format!("then: limit {limit}\n"));
        }
        out
    }
}

fn column_type(query: &BoundQuery<'_>, table: usize, column: usize) -> Type {
    Type::of(
        query.tables[table].table.columns()[column]
            .column
            .data_type(),
    )
    .unwrap_or(Type::Int)
}

/// An edge `(t1, c1, t2, c2)` seen from `parent`'s side: (parent, parent col, child, child col).
fn oriented(edge: (usize, usize, usize, usize), parent: usize) -> (usize, usize, usize, usize) {
    let (t1, c1, t2, c2) = edge;
    if t1 == parent {
        (t1, c1, t2, c2)
    } else {
        (t2, c2, t1, c1)
    }
}

/// Two or more unused equalities between one table already in the join tree (`order`) and one
/// not yet in it, whose child columns together look unique: (first edge, parent, child, the
/// other edges).
fn composite_edge(
    query: &BoundQuery<'_>,
    edges: &[(usize, usize, usize, usize)],
    used: &[bool],
    order: &[usize],
) -> Option<(usize, usize, usize, Vec<usize>)> {
    for (i, &(t1, _, t2, _)) in edges.iter().enumerate() {
        if used[i] {
            continue;
        }
        for (p, ch) in [(t1, t2), (t2, t1)] {
            if !order.contains(&p) || order.contains(&ch) {
                continue;
            }
            let same: Vec<usize> = (0..edges.len())
                .filter(|&j| {
                    let (a, _, b, _) = edges[j];
                    !used[j] && ((a, b) == (p, ch) || (a, b) == (ch, p))
                })
                .collect();
            if same.len() < 2 {
                continue;
            }
            let columns: Vec<usize> = same.iter().map(|&j| oriented(edges[j], p).3).collect();
            if columns_look_unique(query, ch, &columns) {
                return Some((same[0], p, ch, same[1..].to_vec()));
            }
        }
    }
    None
}

/// The error for a join no table can be added to: a table whose join columns towards the
/// tables already joined are counted exactly and repeat is named (the query is fine, the data
/// has duplicate build keys); otherwise the shape itself is unsupported.
fn no_build_side(
    query: &BoundQuery<'_>,
    edges: &[(usize, usize, usize, usize)],
    used: &[bool],
    order: &[usize],
) -> QueryError {
    for (i, &(t1, _, t2, _)) in edges.iter().enumerate() {
        if used[i] {
            continue;
        }
        for (p, ch) in [(t1, t2), (t2, t1)] {
            if !order.contains(&p) || order.contains(&ch) {
                continue;
            }
            let pairs: Vec<(usize, usize)> = (0..edges.len())
                .filter(|&j| {
                    let (a, _, b, _) = edges[j];
                    !used[j] && ((a, b) == (p, ch) || (a, b) == (ch, p))
                })
                .map(|j| {
                    let (_, pc, _, cc) = oriented(edges[j], p);
                    (pc, cc)
                })
                .collect();
            let child = query.tables[ch].table;
            let picked: Vec<&crate::table::TableColumn> =
                pairs.iter().map(|&(_, cc)| &child.columns()[cc]).collect();
            if crate::table::exact_rows_unique(&picked) == Some(false) {
                let parent = &query.tables[p];
                let label = pairs
                    .iter()
                    .map(|&(pc, cc)| {
                        format!(
                            "{}.{} = {}.{}",
                            parent.alias,
                            parent.table.columns()[pc].name,
                            query.tables[ch].alias,
                            child.columns()[cc].name
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" and ");
                return QueryError::DuplicateBuildKey { column: label };
            }
        }
    }
    QueryError::unsupported(
        "this join shape (every table but the largest needs an equality with a unique key of it, or equalities whose columns together are unique)",
        Position::default(),
    )
}

/// Whether a table's rows look unique on several columns together: counted exactly for a
/// small table, else the product of the columns' distinct estimates against the rows.
fn columns_look_unique(query: &BoundQuery<'_>, table: usize, columns: &[usize]) -> bool {
    let t = query.tables[table].table;
    let picked: Vec<&crate::table::TableColumn> =
        columns.iter().map(|&c| &t.columns()[c]).collect();
    crate::table::exact_rows_unique(&picked).unwrap_or_else(|| {
        let distinct = picked
            .iter()
            .fold(1f64, |acc, c| acc * c.distinct_estimate() as f64);
        distinct >= 0.9 * t.rows() as f64
    })
}

/// Whether a table's join columns towards one partner table, two or more of them, look
/// unique together (it can then be that partner's build side).
fn composite_build(
    query: &BoundQuery<'_>,
    edges: &[(usize, usize, usize, usize)],
    t: usize,
) -> bool {
    let mut by_partner: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &(t1, c1, t2, c2) in edges {
        if t1 == t && t2 != t {
            by_partner.entry(t2).or_default().push(c1);
        } else if t2 == t && t1 != t {
            by_partner.entry(t1).or_default().push(c2);
        }
    }
    by_partner
        .values()
        .any(|columns| columns.len() >= 2 && columns_look_unique(query, t, columns))
}

fn looks_unique(query: &BoundQuery<'_>, table: usize, column: usize) -> bool {
    let t = query.tables[table].table;
    let distinct = t.columns()[column].distinct_estimate();
    if t.rows() <= crate::table::EXACT_DISTINCT_ROWS {
        // Counted exactly: unique means unique.
        distinct == t.rows() as u64
    } else {
        distinct as f64 >= 0.9 * t.rows() as f64
    }
}

fn explain_pipeline(p: &Pipeline<'_>, out: &mut String, counter: &mut usize, depth: usize) {
    *counter += 1;
    let me = *counter;
    let pad = "  ".repeat(depth);
    out.push_str(&format!(
        "{pad}pipeline {me}: scan {} ({} rows; morsels of {MORSEL} rows on codec-block boundaries, vectors of {VECTOR})\n",
        p.table_name, p.rows
    ));
    for s in &p.scans {
        for t in &s.tests {
            out.push_str(&format!(
                "{pad}  filter in code space: {} [{}] {}\n",
                s.name,
                s.decode.describe(),
                t.describe()
            ));
        }
    }
    for s in &p.scans {
        for (_, _, text) in &s.text_tests {
            out.push_str(&format!(
                "{pad}  filter in the scan on decompressed bytes (one buffer per vector): {text}\n"
            ));
        }
    }
    let decoded: Vec<String> = p
        .scans
        .iter()
        .filter(|s| s.materialize)
        .map(|s| format!("{} [{}]", s.name, s.decode.describe()))
        .collect();
    if !decoded.is_empty() {
        out.push_str(&format!(
            "{pad}  decode surviving rows: {}\n",
            decoded.join(", ")
        ));
    }
    for stage in &p.stages {
        match stage {
            Stage::Filter(_, text) => out.push_str(&format!("{pad}  filter: {text}\n")),
            Stage::Probe(probe) => {
                out.push_str(&format!(
                    "{pad}  probe join on {} (build side: the pipeline below; its unique keys in a bitmap with per-word ranks when their range allows, else a collections Map)\n",
                    probe.label
                ));
                explain_pipeline(&probe.build, out, counter, depth + 2);
            }
        }
    }
}

fn describe_expr(e: &BExpr, query: &BoundQuery<'_>) -> String {
    match e {
        BExpr::Column { table, column, .. } => {
            query.tables[*table].table.columns()[*column].name.clone()
        }
        BExpr::Literal(v, Type::Str) => format!("'{v}'"),
        BExpr::Literal(v, Type::Date) => format!("date '{v}'"),
        BExpr::Literal(v, _) => v.to_string(),
        BExpr::Key(i, _) => format!("key{i}"),
        BExpr::Agg(i, _) => format!("agg{i}"),
        BExpr::Arith(op, a, b, _) => {
            let sym = match op {
                Arith::Add => "+",
                Arith::Sub => "-",
                Arith::Mul => "*",
                Arith::Div => "/",
            };
            format!(
                "({} {sym} {})",
                describe_expr(a, query),
                describe_expr(b, query)
            )
        }
        BExpr::Neg(a, _) => format!("-{}", describe_expr(a, query)),
        BExpr::Compare(op, a, b) => {
            format!(
                "{} {} {}",
                describe_expr(a, query),
                op.symbol(),
                describe_expr(b, query)
            )
        }
        BExpr::And(list) => list
            .iter()
            .map(|x| describe_expr(x, query))
            .collect::<Vec<_>>()
            .join(" and "),
        BExpr::Or(list) => format!(
            "({})",
            list.iter()
                .map(|x| describe_expr(x, query))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
        BExpr::Not(a) => format!("not ({})", describe_expr(a, query)),
        BExpr::Like {
            expr,
            pattern,
            negated,
        } => format!(
            "{} {}like '{pattern}'",
            describe_expr(expr, query),
            if *negated { "not " } else { "" }
        ),
        BExpr::InList {
            expr,
            list,
            negated,
        } => format!(
            "{} {}in ({})",
            describe_expr(expr, query),
            if *negated { "not " } else { "" },
            list.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        BExpr::InSet { expr, set, negated } => format!(
            "{} {}in the subquery's {}",
            describe_expr(expr, query),
            if *negated { "not " } else { "" },
            set.describe()
        ),
        BExpr::Case { .. } => "case ... end".to_string(),
        BExpr::ExtractYear(a) => format!("extract(year from {})", describe_expr(a, query)),
        BExpr::ExistsOther { key, value, groups } => format!(
            "the group of {} holds a value other than {} (min and max of {} groups)",
            describe_expr(key, query),
            describe_expr(value, query),
            groups.len()
        ),
        BExpr::Substring { expr, start, len } => match len {
            Some(len) => format!(
                "substring({} from {start} for {len})",
                describe_expr(expr, query)
            ),
            None => format!("substring({} from {start})", describe_expr(expr, query)),
        },
    }
}

/// The code-space form of a conjunct on one column of the scanned table: (column, test).
fn code_test<'s, 'a>(
    e: &BExpr,
    decode_of: &dyn Fn(usize) -> Option<(usize, &'s Decode<'a>, Type)>,
) -> Option<(usize, CodeTest)> {
    match e {
        BExpr::Compare(op, a, b) => {
            let (col, lit, op) = match (a.as_ref(), b.as_ref()) {
                (BExpr::Column { column, .. }, BExpr::Literal(v, _)) => (*column, v, *op),
                (BExpr::Literal(v, _), BExpr::Column { column, .. }) => (*column, v, op.flip()),
                _ => return None,
            };
            let (index, decode, ty) = decode_of(col)?;
            match (ty, decode) {
                (Type::Str, Decode::StrCodes { .. }) => None, // handled as a mask below
                (Type::Str, _) | (Type::Bool, _) | (Type::Float, _) => None,
                (_, Decode::Text { .. }) => None,
                _ => {
                    let range = value_range(op, ty.scale(), lit)?;
                    Some((
                        index,
                        match range {
                            None => CodeTest::Nothing,
                            Some((lo, hi)) => decode.code_range(lo, hi),
                        },
                    ))
                }
            }
        }
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
fn build_pipeline<'a>(
    query: &BoundQuery<'a>,
    table: usize,
    local: &[Vec<BExpr>],
    children: &[Vec<usize>],
    parent: &[Option<(usize, usize, usize)>],
    extra_keys: &[Vec<(usize, usize)>],
    above: &[(usize, usize)],
    residual: &mut Vec<BExpr>,
) -> Result<Pipeline<'a>> {
    let t = query.tables[table].table;
    let mut pipeline = Pipeline {
        table_name: t.name().to_string(),
        rows: t.rows(),
        scans: Vec::new(),
        stages: Vec::new(),
        slots: Vec::new(),
        text_columns: Vec::new(),
        needs_strings: Vec::new(),
        semi: Vec::new(),
        slot_of: BTreeMap::new(),
        filter_order: Vec::new(),
    };
    // Columns of this table read anywhere.
    let mut own: Vec<usize> = Vec::new();
    for e in &local[table] {
        let mut cols = Vec::new();
        e.columns(&mut cols);
        own.extend(cols.into_iter().map(|(_, c)| c));
    }
    own.extend(above.iter().filter(|(tt, _)| *tt == table).map(|&(_, c)| c));
    own.sort_unstable();
    own.dedup();
    for &c in &own {
        let column = &t.columns()[c].column;
        let decode = Decode::of(column)?;
        let kind = slot_kind_of(column, &decode)?;
        let slot = pipeline.slots.len();
        pipeline
            .text_columns
            .push(matches!(kind, SlotKind::Text).then_some(column));
        pipeline.slots.push(kind);
        pipeline.slot_of.insert((table, c), slot);
        pipeline.scans.push(ScanColumn {
            name: t.columns()[c].name.clone(),
            decode,
            slot,
            tests: Vec::new(),
            text_tests: Vec::new(),
            materialize: false,
        });
    }
    // Local conjuncts: code space where possible, else residual filters on decoded rows.
    let mut filters: Vec<BExpr> = Vec::new();
    for e in &local[table] {
        let scans = &pipeline.scans;
        let lookup = |c: usize| -> Option<(usize, &Decode<'a>, Type)> {
            let i = scans
                .iter()
                .position(|s| pipeline.slot_of.get(&(table, c)) == Some(&s.slot))?;
            Some((i, &scans[i].decode, column_type(query, table, c)))
        };
        if let Some((i, test)) = code_test(e, &lookup) {
            pipeline.scans[i].tests.push(test);
            continue;
        }
        // Text predicates on a dictionary column become a mask over its codes.
        let compiler = Compiler {
            slot_of: &pipeline.slot_of,
            slots: &pipeline.slots,
        };
        match compiler.compile(e) {
            Ok(VExpr::Mask(slot, mask)) => {
                if let Some(i) = pipeline.scans.iter().position(|s| s.slot == slot) {
                    pipeline.scans[i].tests.push(CodeTest::Mask(mask));
                    continue;
                }
            }
            // A test of FSST text: on the decompressed bytes of each row, in the scan.
            Ok(VExpr::Text(slot, test, negated)) => {
                if let Some(i) = pipeline.scans.iter().position(|s| {
                    s.slot == slot
                        && matches!(&s.decode, Decode::Text { column } if fsst_of(column).is_some())
                }) {
                    pipeline.scans[i]
                        .text_tests
                        .push((test, negated, describe_expr(e, query)));
                    continue;
                }
            }
            _ => {}
        }
        filters.push(e.clone());
    }
    for e in filters {
        let mut cols = Vec::new();
        e.columns(&mut cols);
        for (_, c) in cols {
            if let Some(s) = pipeline
                .scans
                .iter_mut()
                .find(|s| pipeline.slot_of.get(&(table, c)) == Some(&s.slot))
            {
                s.materialize = true;
            }
        }
        pipeline.push_filter(&e, query)?;
    }
    for s in pipeline.scans.iter_mut() {
        let c = t.column_index(&s.name).unwrap_or(0);
        if above.contains(&(table, c)) {
            s.materialize = true;
        }
    }
    // Build sides.
    let mut available: Vec<usize> = vec![table];
    for &child in &children[table] {
        let (_, parent_col, child_col) = parent[child].expect("a child has a parent");
        let build = build_pipeline(
            query, child, local, children, parent, extra_keys, above, residual,
        )?;
        let key_slot = pipeline.slot_of[&(table, parent_col)];
        let mut gather = Vec::new();
        for (&(tt, c), &build_slot) in &build.slot_of {
            if above.contains(&(tt, c)) && !pipeline.slot_of.contains_key(&(tt, c)) {
                let slot = pipeline.slots.len();
                pipeline.slots.push(build.slots[build_slot].clone());
                pipeline.text_columns.push(build.text_columns[build_slot]);
                pipeline.slot_of.insert((tt, c), slot);
                gather.push((build_slot, slot));
            }
        }
        let pair = |pc: usize, cc: usize| {
            format!(
                "{}.{} = {}.{}",
                query.tables[table].alias,
                t.columns()[pc].name,
                query.tables[child].alias,
                query.tables[child].table.columns()[cc].name
            )
        };
        let label = std::iter::once((parent_col, child_col))
            .chain(extra_keys[child].iter().copied())
            .map(|(pc, cc)| pair(pc, cc))
            .collect::<Vec<_>>()
            .join(" and ");
        let delivered = |cc: usize| {
            build.slot_of.get(&(child, cc)).copied().ok_or_else(|| {
                QueryError::unsupported("a build key that is not delivered", Position::default())
            })
        };
        let build_key = delivered(child_col)?;
        let mut extra = Vec::new();
        for &(pc, cc) in &extra_keys[child] {
            extra.push((pipeline.slot_of[&(table, pc)], delivered(cc)?));
        }
        available.extend(subtree(child, children));
        pipeline.stages.push(Stage::Probe(Probe {
            key_slot,
            build_key,
            extra,
            label,
            build: Box::new(build),
            gather,
        }));
        // Residual filters whose tables are all here now.
        pipeline.push_ready_filters(residual, &available, query)?;
    }
    if parent[table].is_none() {
        // The root: constant filters, and any left (single-table queries).
        pipeline.push_ready_filters(residual, &available, query)?;
    }
    let mut ordinal = 0;
    for stage in &pipeline.stages {
        if let Stage::Probe(probe) = stage {
            if let Some(i) = pipeline.scans.iter().position(|s| {
                s.slot == probe.key_slot
                    && probe.extra.is_empty()
                    && matches!(s.decode, Decode::Packed { .. } | Decode::Dict { .. })
            }) {
                pipeline.semi.push((i, ordinal));
            }
            ordinal += 1;
        }
    }
    order_filters(&mut pipeline);
    pipeline.needs_strings = vec![false; pipeline.slots.len()];
    let mut text_slots = Vec::new();
    for stage in &pipeline.stages {
        if let Stage::Filter(e, _) = stage {
            e.text_slots(&mut text_slots);
        }
    }
    for s in text_slots {
        pipeline.needs_strings[s] = true;
    }
    Ok(pipeline)
}

impl Pipeline<'_> {
    /// Compiles `e` on this pipeline's slots and appends it as a filter stage.
    fn push_filter(&mut self, e: &BExpr, query: &BoundQuery<'_>) -> Result<()> {
        let compiled = Compiler {
            slot_of: &self.slot_of,
            slots: &self.slots,
        }
        .compile(e)?;
        self.stages
            .push(Stage::Filter(compiled, describe_expr(e, query)));
        Ok(())
    }

    /// Moves the filters of `residual` whose tables are all `available` here, in order, as
    /// filter stages.
    fn push_ready_filters(
        &mut self,
        residual: &mut Vec<BExpr>,
        available: &[usize],
        query: &BoundQuery<'_>,
    ) -> Result<()> {
        let mut i = 0;
        while i < residual.len() {
            if residual[i].tables().iter().all(|t| available.contains(t)) {
                let e = residual.remove(i);
                self.push_filter(&e, query)?;
            } else {
                i += 1;
            }
        }
        Ok(())
    }
}

/// Merges each scan column's code-space tests of one kind into one (`x >= a and x < b`: one
/// range, so each vector is compacted once per column), then orders the columns with tests,
/// most selective first.
fn order_filters(pipeline: &mut Pipeline<'_>) {
    use crate::implied::Loose;
    for scan in pipeline.scans.iter_mut() {
        let mut merged: Vec<CodeTest> = Vec::with_capacity(scan.tests.len());
        for test in scan.tests.drain(..) {
            let same = merged.iter().position(|m| {
                matches!(
                    (m, &test),
                    (CodeTest::Range(..), CodeTest::Range(..))
                        | (CodeTest::Nothing, _)
                        | (_, CodeTest::Nothing)
                ) || matches!((m, &test), (CodeTest::Mask(a), CodeTest::Mask(b)) if a.len() == b.len())
            });
            match same {
                Some(k) => {
                    let m = std::mem::replace(&mut merged[k], CodeTest::Nothing);
                    merged[k] = m.intersect(test);
                }
                None => merged.push(test),
            }
        }
        if merged.iter().any(|t| matches!(t, CodeTest::Nothing)) {
            merged = vec![CodeTest::Nothing];
        }
        scan.tests = merged;
    }
    let mut order: Vec<(f64, usize)> = pipeline
        .scans
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.tests.is_empty())
        .map(|(i, s)| {
            let kept: f64 = s.tests.iter().map(|t| t.kept_share(&s.decode)).product();
            (kept, i)
        })
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    pipeline.filter_order = order.into_iter().map(|(_, i)| i).collect();
}

/// Adds the filters that disjunctions imply on single columns ([`crate::implied`]) to the
/// scans of `p` and its build sides, as code-space tests (which may keep more codes than the
/// filter: the disjunction itself still runs above). A filter without such a test is left out.
fn add_implied_tests(
    p: &mut Pipeline<'_>,
    query: &BoundQuery<'_>,
    implied: &[(usize, usize, BExpr)],
) {
    for stage in p.stages.iter_mut() {
        if let Stage::Probe(probe) = stage {
            add_implied_tests(&mut probe.build, query, implied);
        }
    }
    let mut added = false;
    for (table, column, e) in implied {
        let Some(&slot) = p.slot_of.get(&(*table, *column)) else {
            continue;
        };
        let Some(i) = p.scans.iter().position(|s| s.slot == slot) else {
            continue;
        };
        let ty = column_type(query, *table, *column);
        let test = {
            let scans = &p.scans;
            let lookup = |c: usize| (c == *column).then(|| (i, &scans[i].decode, ty));
            let compiler = Compiler {
                slot_of: &p.slot_of,
                slots: &p.slots,
            };
            crate::implied::loose(e, &|leaf: &BExpr| {
                if let Some((_, test)) = code_test(leaf, &lookup) {
                    return Some(test);
                }
                match compiler.compile(leaf) {
                    Ok(VExpr::Mask(s, mask)) if s == slot => Some(CodeTest::Mask(mask)),
                    _ => None,
                }
            })
        };
        if let Some(test) = test {
            p.scans[i].tests.push(test);
            added = true;
        }
    }
    if added {
        order_filters(p);
    }
}

impl crate::implied::Loose for CodeTest {
    fn union(self, other: CodeTest) -> Option<CodeTest> {
        Some(match (self, other) {
            (CodeTest::Nothing, x) | (x, CodeTest::Nothing) => x,
            (CodeTest::Range(a, b), CodeTest::Range(c, d)) => CodeTest::Range(a.min(c), b.max(d)),
            (CodeTest::Mask(a), CodeTest::Mask(b)) if a.len() == b.len() => CodeTest::Mask(
                Arc::new(a.iter().zip(b.iter()).map(|(x, y)| *x || *y).collect()),
            ),
            _ => return None,
        })
    }

    fn intersect(self, other: CodeTest) -> CodeTest {
        match (self, other) {
            (CodeTest::Nothing, _) | (_, CodeTest::Nothing) => CodeTest::Nothing,
            (CodeTest::Range(a, b), CodeTest::Range(c, d)) => {
                if a.max(c) > b.min(d) {
                    CodeTest::Nothing
                } else {
                    CodeTest::Range(a.max(c), b.min(d))
                }
            }
            (CodeTest::Mask(a), CodeTest::Mask(b)) if a.len() == b.len() => CodeTest::Mask(
                Arc::new(a.iter().zip(b.iter()).map(|(x, y)| *x && *y).collect()),
            ),
            (x, _) => x,
        }
    }
}

fn subtree(t: usize, children: &[Vec<usize>]) -> Vec<usize> {
    let mut out = vec![t];
    for &c in &children[t] {
        out.extend(subtree(c, children));
    }
    out
}

fn plan_sink(query: &BoundQuery<'_>, root: &Pipeline<'_>) -> Result<SinkPlan> {
    let compiler = Compiler {
        slot_of: &root.slot_of,
        slots: &root.slots,
    };
    let key_kind = |e: &BExpr| -> SlotKind {
        match compiler.slot(e) {
            Some(s) => root.slots[s].clone(),
            None => SlotKind::Int(e.ty()),
        }
    };
    let key_source = |e: &BExpr| -> Result<KeySource> {
        match compiler.slot(e).map(|s| (s, &root.slots[s])) {
            Some((s, SlotKind::Text)) => Ok(KeySource::Text(s)),
            Some((s, _)) => Ok(KeySource::Expr(VExpr::Slot(s))),
            None => Ok(KeySource::Expr(compiler.compile(e)?)),
        }
    };
    if !query.aggregated {
        return Ok(SinkPlan::Collect {
            exprs: query.keys.iter().map(key_source).collect::<Result<_>>()?,
            kinds: query.keys.iter().map(key_kind).collect(),
        });
    }
    let aggs = query
        .aggregates
        .iter()
        .map(|a: &AggCall| {
            Ok(AggPlan {
                func: a.func,
                arg: a.arg.as_ref().map(|x| compiler.compile(x)).transpose()?,
                ty: a.ty,
                scale: a.arg.as_ref().map_or(0, |x| x.ty().scale()),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let key_kinds: Vec<SlotKind> = query.keys.iter().map(key_kind).collect();
    // Direct arrays when every key is a small dictionary's code.
    let mut direct = Vec::new();
    let mut groups = 1usize;
    for e in &query.keys {
        match compiler.slot(e).map(|s| (s, &root.slots[s])) {
            Some((s, SlotKind::Dict(d))) if groups.saturating_mul(d.len().max(1)) <= 1 << 16 => {
                direct.push((s, groups));
                groups *= d.len().max(1);
            }
            _ => break,
        }
    }
    if direct.len() == query.keys.len() {
        return Ok(SinkPlan::Direct {
            keys: direct,
            groups,
            aggs,
            key_kinds,
        });
    }
    // Hash: pack the keys whose range is known into 64 bits; carry the others.
    let mut packed = Vec::new();
    let mut packed_index = Vec::new();
    let mut carried = Vec::new();
    let mut bits_used = 0u32;
    for (i, e) in query.keys.iter().enumerate() {
        let range = match (compiler.slot(e).map(|s| &root.slots[s]), e) {
            (Some(SlotKind::Dict(d)), _) => Some((0i64, d.len() as i64)),
            (Some(SlotKind::Int(_)), BExpr::Column { table, column, .. }) => {
                let col = &query.tables[*table].table.columns()[*column].column;
                match col.min_max()? {
                    Some((lo, hi)) => scalar_i64(&lo).zip(scalar_i64(&hi)),
                    None => Some((0, 0)),
                }
            }
            // The year of a date column: its range is the years of the column's ends (Q9).
            (_, BExpr::ExtractYear(inner)) => match inner.as_ref() {
                BExpr::Column { table, column, .. } => {
                    let col = &query.tables[*table].table.columns()[*column].column;
                    let year = |d: i64| {
                        i32::try_from(d)
                            .ok()
                            .map(|d| smartarrays_encodings::date::civil_from_days(d).0)
                    };
                    match col.min_max()? {
                        Some((lo, hi)) => scalar_i64(&lo)
                            .and_then(year)
                            .zip(scalar_i64(&hi).and_then(year)),
                        None => Some((0, 0)),
                    }
                }
                _ => None,
            },
            _ => None,
        };
        match range {
            Some((lo, hi)) => {
                let span = (i128::from(hi) - i128::from(lo)) as u128;
                let bits = 128 - span.leading_zeros();
                if bits_used + bits <= 63 {
                    bits_used += bits;
                    packed.push((
                        compiler.compile(e).or_else(|_| match compiler.slot(e) {
                            Some(s) => Ok(VExpr::Slot(s)),
                            None => unsupported("this group key"),
                        })?,
                        lo,
                        bits,
                    ));
                    packed_index.push(i);
                    continue;
                }
                carried.push((key_source(e)?, i));
            }
            None if packed.is_empty()
                && !matches!(key_kind(e), SlotKind::Text)
                && i == 0
                && query.keys.len() == 1 =>
            {
                return Ok(SinkPlan::Hash(HashSink {
                    packed: vec![(compiler.compile(e)?, 0, 64)],
                    carried: Vec::new(),
                    packed_index: vec![0],
                    aggs,
                    key_kinds,
                    single_signed: true,
                }));
            }
            None => carried.push((key_source(e)?, i)),
        }
    }
    if packed.is_empty() {
        // Only text (Q21's `group by s_name`): the first text key becomes the row id of its
        // string's first row in the column (equal strings, one id), packed in the bits of the
        // column's rows.
        let text = carried.iter().position(
            |(source, _)| matches!(source, KeySource::Text(s) if root.text_columns[*s].is_some()),
        );
        let Some(c) = text else {
            return unsupported("grouping only by text or by expressions of unknown range");
        };
        let (source, i) = carried.remove(c);
        let KeySource::Text(slot) = source else {
            unreachable!("found as text above")
        };
        let column = root.text_columns[slot].expect("found with its column above");
        let rows = column.len();
        let strings = match column.take(&(0..rows).collect::<Vec<_>>())?.values {
            smartarrays_encodings::Values::Utf8(v) => v,
            _ => return unsupported("text that does not decode to strings"),
        };
        let mut first: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
        let canonical: Vec<i64> = strings
            .iter()
            .enumerate()
            .map(|(r, text)| *first.entry(text.as_str()).or_insert(r as i64))
            .collect();
        let bits = (64 - (rows.max(1) as u64).leading_zeros()).max(1);
        packed.push((
            VExpr::Lookup(Box::new(VExpr::Slot(slot)), Arc::new(canonical)),
            0,
            bits,
        ));
        packed_index.push(i);
    }
    Ok(SinkPlan::Hash(HashSink {
        packed,
        carried,
        packed_index,
        aggs,
        key_kinds,
        single_signed: false,
    }))
}

fn scalar_i64(s: &smartarrays_encodings::Scalar) -> Option<i64> {
    use smartarrays_encodings::Scalar;
    match s {
        Scalar::Int64(v) => Some(*v),
        Scalar::Decimal { unscaled, .. } => Some(*unscaled),
        Scalar::Date32(d) => Some(i64::from(*d)),
        Scalar::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Execution.

/// Per-worker scratch space of a pipeline.
struct Scratch {
    codes: Vec<Vec<u64>>,
    decoded: Vec<bool>,
    selection: Vec<u32>,
    /// Row numbers of the selection, for an encoding's random reads.
    rows: Vec<usize>,
    /// The survivors of range tests run on packed codes, a bit per row of the vector.
    mask: Vec<u64>,
    other_mask: Vec<u64>,
    batch: Batch,
    flags: Vec<i64>,
    /// Decompressed text of the rows a text test reads, and per row its verdicts.
    texts: TextBatch,
    keep: Vec<bool>,
    verdicts: Vec<bool>,
}

impl Scratch {
    fn new(p: &Pipeline<'_>) -> Scratch {
        Scratch {
            codes: vec![vec![0; VECTOR]; p.scans.len()],
            decoded: vec![false; p.scans.len()],
            selection: Vec::with_capacity(VECTOR),
            rows: Vec::with_capacity(VECTOR),
            mask: vec![0; VECTOR / 64],
            other_mask: vec![0; VECTOR / 64],
            batch: Batch::with_slots(p.slots.len()),
            flags: Vec::with_capacity(VECTOR),
            texts: TextBatch::default(),
            keep: Vec::with_capacity(VECTOR),
            verdicts: Vec::with_capacity(VECTOR),
        }
    }
}

/// Runs `pipeline` over its table, handing every non-empty batch to `consume`, in parallel;
/// the sink states of the workers are combined with `combine`.
fn run_pipeline<'a, S: Send>(
    pipeline: &Pipeline<'a>,
    builds: &[Option<Arc<Built>>],
    runtime: &Runtime,
    init: impl Fn() -> S + Sync,
    consume: impl Fn(&mut S, &Batch) -> Result<()> + Sync,
    combine: impl Fn(S, S) -> Result<S>,
) -> Result<S> {
    run_pipeline_filtered(pipeline, builds, &[], runtime, init, consume, combine)
}

/// [`run_pipeline`] with further semi-join filters on its scan columns: `(scan column, built
/// side)` pairs whose key bitmaps drop rows in the scan, like the pipeline's own `semi`.
fn run_pipeline_filtered<'a, S: Send>(
    pipeline: &Pipeline<'a>,
    builds: &[Option<Arc<Built>>],
    pushed: &[(usize, Arc<Built>)],
    runtime: &Runtime,
    init: impl Fn() -> S + Sync,
    consume: impl Fn(&mut S, &Batch) -> Result<()> + Sync,
    combine: impl Fn(S, S) -> Result<S>,
) -> Result<S> {
    let semi: Vec<(usize, &Built)> = pipeline
        .semi
        .iter()
        .filter_map(|&(i, probe)| builds[probe].as_deref().map(|b| (i, b)))
        .chain(pushed.iter().map(|(i, b)| (*i, b.as_ref())))
        .filter(|(_, b)| b.bits.is_some())
        .collect();
    let semi = &semi[..];
    let result = runtime.map_reduce(
        0..pipeline.rows,
        MORSEL,
        || Ok((init(), Scratch::new(pipeline))),
        |state: Result<(S, Scratch)>, worker: &Worker, range| {
            let (mut sink, mut scratch) = state?;
            run_morsel(
                pipeline,
                builds,
                semi,
                worker,
                range,
                &mut scratch,
                &mut |batch| consume(&mut sink, batch),
            )?;
            Ok((sink, scratch))
        },
        |a: Result<(S, Scratch)>, b: Result<(S, Scratch)>| match (a, b) {
            (Ok((a, scratch)), Ok((b, _))) => Ok((combine(a, b)?, scratch)),
            (Err(e), _) | (_, Err(e)) => Err(e),
        },
    );
    result.map(|(s, _)| s)
}

fn run_morsel(
    p: &Pipeline<'_>,
    builds: &[Option<Arc<Built>>],
    semi: &[(usize, &Built)],
    worker: &Worker,
    range: std::ops::Range<usize>,
    s: &mut Scratch,
    consume: &mut dyn FnMut(&Batch) -> Result<()>,
) -> Result<()> {
    let views: Vec<Option<ArrayView<'_>>> = p
        .scans
        .iter()
        .map(|c| c.decode.array().map(|a| a.for_worker(worker)))
        .collect();
    let mut start = range.start;
    while start < range.end {
        let n = (range.end - start).min(VECTOR);
        s.decoded.iter_mut().for_each(|d| *d = false);
        s.selection.clear();
        let mut all = true;
        // Whether `s.mask` holds the survivors (not yet turned into `s.selection`).
        let mut masked = false;
        // Code-space filters, most selective first; once few rows are left, the later columns
        // are read just for them instead of unpacking the vector.
        for &i in &p.filter_order {
            let scan = &p.scans[i];
            // While many rows are left, a range test runs on the packed codes into a bitmap
            // (decoded and compared in registers), ANDed with the survivors'.
            if let (Some(view), [CodeTest::Range(lo, hi)]) = (views[i].as_ref(), &scan.tests[..]) {
                let words = n.div_ceil(64);
                let fused = if all {
                    view.range_mask(start, n, *lo, *hi, &mut s.mask)?;
                    true
                } else if masked && count_ones(&s.mask[..words]) * SPARSE >= n {
                    view.range_mask(start, n, *lo, *hi, &mut s.other_mask)?;
                    for (a, b) in s.mask[..words].iter_mut().zip(&s.other_mask) {
                        *a &= b;
                    }
                    true
                } else {
                    false
                };
                if fused {
                    all = false;
                    masked = true;
                    if s.mask[..words].iter().all(|&w| w == 0) {
                        s.selection.clear();
                        masked = false;
                        break;
                    }
                    continue;
                }
            }
            if masked {
                mask_to_selection(&s.mask[..n.div_ceil(64)], &mut s.selection);
                masked = false;
                if s.selection.is_empty() {
                    break;
                }
            }
            if let (false, Some(view)) = (all, views[i].as_ref()) {
                if s.selection.len() * SPARSE < n {
                    for test in &scan.tests {
                        match test {
                            CodeTest::Nothing => s.selection.clear(),
                            CodeTest::Range(lo, hi) => {
                                let (lo, span) = (*lo, hi - lo);
                                compact(&mut s.selection, |j| {
                                    view.value(start + j as usize).wrapping_sub(lo) <= span
                                });
                            }
                            CodeTest::Mask(mask) => compact(&mut s.selection, |j| {
                                mask[view.value(start + j as usize) as usize]
                            }),
                        }
                    }
                    if s.selection.is_empty() {
                        break;
                    }
                    continue;
                }
            }
            scan.decode
                .codes(views[i].as_ref(), start, &mut s.codes[i][..n])?;
            s.decoded[i] = true;
            let codes = &s.codes[i];
            for test in &scan.tests {
                if all {
                    s.selection.clear();
                    s.selection.extend(0..n as u32);
                    all = false;
                }
                match test {
                    CodeTest::Nothing => s.selection.clear(),
                    CodeTest::Range(lo, hi) => {
                        let (lo, span) = (*lo, hi - lo);
                        compact(&mut s.selection, |j| {
                            codes[j as usize].wrapping_sub(lo) <= span
                        });
                    }
                    CodeTest::Mask(mask) => {
                        compact(&mut s.selection, |j| mask[codes[j as usize] as usize])
                    }
                }
            }
            if !all && s.selection.is_empty() {
                break;
            }
        }
        if masked {
            mask_to_selection(&s.mask[..n.div_ceil(64)], &mut s.selection);
        }
        // Semi-join filters: the builds' key bitmaps, on the key column's codes.
        for &(i, built) in semi {
            if !all && s.selection.is_empty() {
                break;
            }
            let Some((min, words)) = built.bits.as_ref() else {
                continue;
            };
            let scan = &p.scans[i];
            if all {
                s.selection.clear();
                s.selection.extend(0..n as u32);
                all = false;
            }
            let test = |v: i64| {
                let bit = (v as u64).wrapping_sub(*min as u64);
                words
                    .get((bit / 64) as usize)
                    .is_some_and(|w| (w >> (bit % 64)) & 1 == 1)
            };
            if !s.decoded[i] && s.selection.len() * SPARSE < n {
                if let Some(view) = views[i].as_ref() {
                    let decode = &scan.decode;
                    compact(&mut s.selection, |j| {
                        test(decode.value(view.value(start + j as usize)))
                    });
                    continue;
                }
            }
            if !s.decoded[i] {
                scan.decode
                    .codes(views[i].as_ref(), start, &mut s.codes[i][..n])?;
                s.decoded[i] = true;
            }
            let codes = &s.codes[i];
            match &scan.decode {
                Decode::Packed { base, .. } => {
                    // bit = base + code - min: one subtraction per row.
                    let offset = (*base as u64).wrapping_sub(*min as u64);
                    let limit = words.len() as u64 * 64;
                    compact(&mut s.selection, |j| {
                        let bit = codes[j as usize].wrapping_add(offset);
                        bit < limit && (words[(bit / 64) as usize] >> (bit % 64)) & 1 == 1
                    });
                }
                decode => compact(&mut s.selection, |j| test(decode.value(codes[j as usize]))),
            }
        }
        // Tests of FSST text, on each surviving row's decompressed bytes.
        for scan in &p.scans {
            if scan.text_tests.is_empty() || (!all && s.selection.is_empty()) {
                continue;
            }
            let Decode::Text { column } = &scan.decode else {
                continue;
            };
            let Some(fsst) = fsst_of(column) else {
                continue;
            };
            if all {
                s.selection.clear();
                s.selection.extend(0..n as u32);
                all = false;
            }
            // The survivors' text one after the other: each test searches it at once.
            fsst.decompress_selected(start, &s.selection, &mut s.texts)?;
            s.keep.clear();
            s.keep.resize(s.selection.len(), true);
            s.verdicts.resize(s.selection.len(), false);
            for (test, negated, _) in &scan.text_tests {
                test.matches_batch(&s.texts, &mut s.verdicts[..s.selection.len()]);
                for (k, &v) in s.keep.iter_mut().zip(&s.verdicts) {
                    *k &= v != *negated;
                }
            }
            let mut kept = 0;
            for i in 0..s.selection.len() {
                s.selection[kept] = s.selection[i];
                kept += usize::from(s.keep[i]);
            }
            s.selection.truncate(kept);
        }
        if all || !s.selection.is_empty() {
            let rows = if all { n } else { s.selection.len() };
            s.batch.len = rows;
            // Decode the surviving rows of the other columns.
            for (i, scan) in p.scans.iter().enumerate() {
                if !scan.materialize {
                    continue;
                }
                if let Decode::Text { column } = &scan.decode {
                    let ids = &mut s.batch.ints[scan.slot];
                    ids.clear();
                    if all {
                        ids.extend(start as i64..(start + n) as i64);
                    } else {
                        ids.extend(s.selection.iter().map(|&j| (start + j as usize) as i64));
                    }
                    let texts = &mut s.batch.texts[scan.slot];
                    texts.clear();
                    if !p.needs_strings[scan.slot] {
                        continue;
                    }
                    if all {
                        if let smartarrays_encodings::Values::Utf8(v) =
                            column.unpack(start..start + n)?.values
                        {
                            *texts = v;
                        }
                    } else {
                        let ids: Vec<usize> =
                            s.selection.iter().map(|&j| start + j as usize).collect();
                        if let smartarrays_encodings::Values::Utf8(v) = column.take(&ids)?.values {
                            *texts = v;
                        }
                    }
                    continue;
                }
                if !s.decoded[i] {
                    // Few survivors: read just their codes instead of unpacking the vector.
                    if let (false, Some(view)) = (all, views[i].as_ref()) {
                        if s.selection.len() * SPARSE < n {
                            let out = &mut s.batch.ints[scan.slot];
                            out.clear();
                            out.extend(
                                s.selection
                                    .iter()
                                    .map(|&j| scan.decode.value(view.value(start + j as usize))),
                            );
                            continue;
                        }
                    }
                    // The same through the encoding's own random reads (a delta-encoded sorted
                    // key: a block start plus the packed differences before the row).
                    if let (false, Decode::Keys { encoding, .. }) = (all, &scan.decode) {
                        if s.selection.len() * SPARSE < n {
                            s.rows.clear();
                            s.rows
                                .extend(s.selection.iter().map(|&j| start + j as usize));
                            let keys = encoding.take(&s.rows)?;
                            let out = &mut s.batch.ints[scan.slot];
                            out.clear();
                            out.extend(keys.iter().map(|&k| scan.decode.value(k)));
                            continue;
                        }
                    }
                    scan.decode
                        .codes(views[i].as_ref(), start, &mut s.codes[i][..n])?;
                }
                let codes = &s.codes[i];
                let out = &mut s.batch.ints[scan.slot];
                out.clear();
                match (&scan.decode, all) {
                    (Decode::Packed { base, .. }, true) => {
                        let base = *base;
                        out.extend(codes[..n].iter().map(|&c| base.wrapping_add(c as i64)))
                    }
                    (Decode::Packed { base, .. }, false) => {
                        let base = *base;
                        out.extend(
                            s.selection
                                .iter()
                                .map(|&j| base.wrapping_add(codes[j as usize] as i64)),
                        )
                    }
                    (d, true) => out.extend(codes[..n].iter().map(|&c| d.value(c))),
                    (d, false) => {
                        out.extend(s.selection.iter().map(|&j| d.value(codes[j as usize])))
                    }
                }
            }
            if run_stages(p, builds, &mut s.batch, &mut s.flags)? {
                consume(&s.batch)?;
            }
        }
        start += n;
    }
    Ok(())
}

fn count_ones(words: &[u64]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

/// The row ids of the bits set in `words`, in order.
fn mask_to_selection(words: &[u64], selection: &mut Vec<u32>) {
    selection.clear();
    for (w, &word) in words.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            selection.push(w as u32 * 64 + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
}

/// Keeps the row ids that pass `keep`, in order, without branches.
#[inline(always)]
fn compact(selection: &mut Vec<u32>, keep: impl Fn(u32) -> bool) {
    let mut kept = 0;
    for i in 0..selection.len() {
        let j = selection[i];
        selection[kept] = j;
        kept += usize::from(keep(j));
    }
    selection.truncate(kept);
}

/// Residual filters and probes on a decoded batch; `false` when no row is left.
fn run_stages(
    p: &Pipeline<'_>,
    builds: &[Option<Arc<Built>>],
    batch: &mut Batch,
    flags: &mut Vec<i64>,
) -> Result<bool> {
    let mut probe_index = 0;
    for stage in &p.stages {
        if batch.len == 0 {
            return Ok(false);
        }
        match stage {
            Stage::Filter(e, _) => {
                e.eval(batch, flags)?;
                batch.keep(flags);
            }
            Stage::Probe(probe) => {
                let built = builds[probe_index].as_ref().expect("builds run first");
                probe_index += 1;
                // (A multi-column key's bitmap is over combined keys: tested in `lookup`.)
                if let (Some((min, words)), true) = (&built.bits, probe.extra.is_empty()) {
                    flags.clear();
                    flags.extend(batch.ints[probe.key_slot][..batch.len].iter().map(|&k| {
                        let bit = (k as u64).wrapping_sub(*min as u64);
                        words
                            .get((bit / 64) as usize)
                            .map_or(0, |w| ((w >> (bit % 64)) & 1) as i64)
                    }));
                    batch.keep(flags);
                    if batch.len == 0 {
                        return Ok(false);
                    }
                }
                let mut combined = Vec::new();
                let keys = if probe.extra.is_empty() {
                    &batch.ints[probe.key_slot][..batch.len]
                } else {
                    let columns: Vec<&[i64]> = std::iter::once(probe.key_slot)
                        .chain(probe.extra.iter().map(|&(slot, _)| slot))
                        .map(|s| &batch.ints[s][..batch.len])
                        .collect();
                    combine_keys(&columns, &built.composite, &mut combined);
                    &combined[..]
                };
                let mut found = Vec::with_capacity(keys.len());
                built.lookup(keys, &mut found)?;
                flags.clear();
                flags.extend(found.iter().map(|f| i64::from(f.is_some())));
                batch.keep(flags);
                let rows: Vec<usize> = found.iter().flatten().map(|&r| r as usize).collect();
                for &(from, to) in &probe.gather {
                    let source = &built.ints[from];
                    let out = &mut batch.ints[to];
                    out.clear();
                    out.extend(rows.iter().map(|&r| source[r]));
                    if p.needs_strings[to] {
                        batch.texts[to] = texts_of(p.text_columns[to], out)?;
                    }
                }
            }
        }
    }
    Ok(batch.len > 0)
}

/// Runs the build sides of `p` (recursively), returning their hash tables in stage order.
///
/// Sideways semi-join filters: once a build with a key bitmap is done, a later build joined
/// on the same column of `p` (Q9's `partsupp`, on `l_partkey` like the filtered `part`) keeps
/// only the rows whose key is in that bitmap, since every row of `p` without a partner there is
/// dropped before it reaches the later probe (all joins are inner joins). Q9's `partsupp` build
/// shrinks to the rows of green parts.
fn run_builds(
    p: &Pipeline<'_>,
    runtime: &Arc<Runtime>,
    budget: &Scope<'_>,
) -> Result<Vec<Option<Arc<Built>>>> {
    let mut out = Vec::new();
    // (slot of `p`, built side whose key bitmap that slot's surviving values all pass).
    let mut known: Vec<(usize, Arc<Built>)> = Vec::new();
    for stage in &p.stages {
        if let Stage::Probe(probe) = stage {
            let build = &probe.build;
            let inner = run_builds(build, runtime, budget)?;
            let operator = || format!("the hash build of {} ({})", build.table_name, probe.label);
            // The build key is the slot the parent's key column meets: the child's join column.
            let key_slot = probe.build_key;
            let slots = build.slots.len();
            let mut pushed: Vec<(usize, Arc<Built>)> = Vec::new();
            for (parent_slot, build_slot) in std::iter::once((probe.key_slot, probe.build_key))
                .chain(probe.extra.iter().copied())
            {
                let Some(i) = build.scans.iter().position(|s| {
                    s.slot == build_slot
                        && !matches!(s.decode, Decode::Text { .. } | Decode::StrCodes { .. })
                }) else {
                    continue;
                };
                for (slot, built) in &known {
                    if *slot == parent_slot {
                        pushed.push((i, Arc::clone(built)));
                    }
                }
            }
            let collected = run_pipeline_filtered(
                build,
                &inner,
                &pushed,
                runtime,
                || vec![Vec::new(); slots],
                |state: &mut Vec<Vec<i64>>, batch| {
                    budget.reserve(&operator, batch.len * 8 * slots)?;
                    for (s, column) in state.iter_mut().enumerate() {
                        if batch.ints[s].len() == batch.len {
                            column.extend_from_slice(&batch.ints[s])
                        }
                    }
                    Ok(())
                },
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        x.extend(y);
                    }
                    Ok(a)
                },
            )?;
            // The index: a bitmap with ranks and the rows in key order, or a hash map.
            let rows = collected.first().map_or(0, Vec::len);
            budget.reserve(&operator, rows * 8 * (slots + 4))?;
            let built = if probe.extra.is_empty() {
                build_index(collected, key_slot, runtime, &probe.label)?
            } else {
                let mut collected = collected;
                let columns: Vec<&[i64]> = std::iter::once(key_slot)
                    .chain(probe.extra.iter().map(|&(_, slot)| slot))
                    .map(|s| &collected[s][..])
                    .collect();
                let ranges = composite_ranges(&columns, &probe.label)?;
                let mut combined = Vec::new();
                combine_keys(&columns, &ranges, &mut combined);
                let key = collected.len();
                collected.push(combined);
                let mut built = build_index(collected, key, runtime, &probe.label)?;
                built.composite = ranges;
                built
            };
            let built = Arc::new(built);
            if built.bits.is_some() && probe.extra.is_empty() {
                known.push((probe.key_slot, Arc::clone(&built)));
            }
            out.push(Some(built));
        }
    }
    Ok(out)
}

/// The strings at `rows` of a text column.
fn texts_of(column: Option<&Column>, rows: &[i64]) -> Result<Vec<String>> {
    let Some(column) = column else {
        return Ok(vec![String::new(); rows.len()]);
    };
    let ids: Vec<usize> = rows.iter().map(|&r| r as usize).collect();
    match column.take(&ids)?.values {
        smartarrays_encodings::Values::Utf8(v) => Ok(v),
        _ => unsupported("text that does not decode to strings"),
    }
}

/// Replaces the row ids of the `deferred` text keys by their strings.
fn materialize_texts(
    rows: &mut [(Vec<Value>, Vec<Value>)],
    deferred: &[&(usize, Option<&Column>)],
) -> Result<()> {
    for &&(k, column) in deferred {
        let ids: Vec<i64> = rows
            .iter()
            .map(|(keys, _)| match keys[k] {
                Value::Int(id) => id as i64,
                _ => 0,
            })
            .collect();
        for ((keys, _), text) in rows.iter_mut().zip(texts_of(column, &ids)?) {
            keys[k] = Value::Str(text);
        }
    }
    Ok(())
}

/// Every group key an expression over result rows reads.
fn key_refs(e: &BExpr, out: &mut Vec<usize>) {
    match e {
        BExpr::Key(i, _) => out.push(*i),
        BExpr::Column { .. } | BExpr::Literal(..) | BExpr::Agg(..) => {}
        BExpr::Arith(_, a, b, _) | BExpr::Compare(_, a, b) => {
            key_refs(a, out);
            key_refs(b, out);
        }
        BExpr::Neg(a, _) | BExpr::Not(a) | BExpr::ExtractYear(a) => key_refs(a, out),
        BExpr::Substring { expr, .. } => key_refs(expr, out),
        BExpr::ExistsOther { key, value, .. } => {
            key_refs(key, out);
            key_refs(value, out);
        }
        BExpr::Like { expr, .. } | BExpr::InList { expr, .. } | BExpr::InSet { expr, .. } => {
            key_refs(expr, out)
        }
        BExpr::And(list) | BExpr::Or(list) => list.iter().for_each(|x| key_refs(x, out)),
        BExpr::Case {
            whens, otherwise, ..
        } => {
            for (w, t) in whens {
                key_refs(w, out);
                key_refs(t, out);
            }
            key_refs(otherwise, out);
        }
    }
}

/// Whether rows `a` and `b` of a text column hold the same string.
fn same_text(column: Option<&Column>, a: i64, b: i64) -> Result<bool> {
    let texts = texts_of(column, &[a, b])?;
    Ok(texts[0] == texts[1])
}

/// The accumulators of every group: per aggregate a 128-bit sum (or min, max), then the
/// group's row count (columns have no nulls, so every aggregate counts every row).
#[derive(Clone)]
struct Groups {
    acc: Vec<i128>,
    width: usize,
    /// Scratch of the few-groups path: rows ordered by group, where each group starts.
    partial: Vec<i64>,
    order: Vec<u32>,
    starts: Vec<usize>,
}

impl Groups {
    fn new(aggs: &[AggPlan], groups: usize) -> Groups {
        let width = aggs.len() + 1;
        let mut g = Groups {
            acc: Vec::with_capacity(width * groups),
            width,
            partial: Vec::new(),
            order: Vec::new(),
            starts: Vec::new(),
        };
        for _ in 0..groups {
            g.push_group(aggs);
        }
        g
    }

    fn push_group(&mut self, aggs: &[AggPlan]) {
        for a in aggs {
            self.acc.push(match a.func {
                AggFunc::Min => i128::MAX,
                AggFunc::Max => i128::MIN,
                _ => 0,
            });
        }
        self.acc.push(0);
    }

    fn len(&self) -> usize {
        self.acc.len() / self.width
    }

    /// Appends a copy of group `from` of `other` (a new group holding exactly its values).
    fn push_copy(&mut self, other: &Groups, from: usize) {
        let w = self.width;
        self.acc
            .extend_from_slice(&other.acc[from * w..(from + 1) * w]);
    }

    /// Adds the batch's rows to groups `ids`. With `few` groups (a direct array), the rows are
    /// sorted by group once per vector and each group's sum runs in 64 bits when no partial
    /// sum of the vector can overflow (else in 128 bits).
    fn update(
        &mut self,
        aggs: &[AggPlan],
        batch: &Batch,
        ids: &[u32],
        values: &mut Vec<i64>,
        few: bool,
    ) -> Result<()> {
        let w = self.width;
        let groups = self.len();
        if few && groups > 1 {
            // A counting sort of the rows by group, shared by every aggregate.
            self.starts.clear();
            self.starts.resize(groups + 1, 0);
            for &g in ids {
                self.starts[g as usize + 1] += 1;
            }
            for g in 0..groups {
                self.starts[g + 1] += self.starts[g];
            }
            self.partial.clear();
            self.partial
                .extend(self.starts[..groups].iter().map(|&s| s as i64));
            self.order.clear();
            self.order.resize(ids.len(), 0);
            for (row, &g) in ids.iter().enumerate() {
                let slot = &mut self.partial[g as usize];
                self.order[*slot as usize] = row as u32;
                *slot += 1;
            }
        }
        for (k, a) in aggs.iter().enumerate() {
            let Some(e) = &a.arg else { continue };
            if a.func == AggFunc::Count {
                continue;
            }
            e.eval(batch, values)?;
            let values = &values[..ids.len()];
            match a.func {
                AggFunc::Min => {
                    for (&g, &v) in ids.iter().zip(values) {
                        let slot = &mut self.acc[g as usize * w + k];
                        *slot = (*slot).min(i128::from(v));
                    }
                }
                AggFunc::Max => {
                    for (&g, &v) in ids.iter().zip(values) {
                        let slot = &mut self.acc[g as usize * w + k];
                        *slot = (*slot).max(i128::from(v));
                    }
                }
                _ if few && fits_in_64_bits(values) => {
                    // No partial sum of this vector can overflow: plain sums, which vectorise.
                    if groups == 1 {
                        self.acc[k] +=
                            i128::from(values.iter().fold(0i64, |a, &v| a.wrapping_add(v)));
                    } else {
                        // Rows by group (built once per vector): one running sum per group.
                        for g in 0..groups {
                            let rows = &self.order[self.starts[g]..self.starts[g + 1]];
                            let sum = rows
                                .iter()
                                .fold(0i64, |a, &r| a.wrapping_add(values[r as usize]));
                            self.acc[g * w + k] += i128::from(sum);
                        }
                    }
                }
                _ => {
                    for (&g, &v) in ids.iter().zip(values) {
                        self.acc[g as usize * w + k] += i128::from(v);
                    }
                }
            }
        }
        if few && groups == 1 {
            self.acc[w - 1] += ids.len() as i128;
        } else if few {
            for g in 0..groups {
                self.acc[g * w + w - 1] += (self.starts[g + 1] - self.starts[g]) as i128;
            }
        } else {
            for &g in ids {
                self.acc[g as usize * w + w - 1] += 1;
            }
        }
        Ok(())
    }

    /// Merges group `from` of `other` into group `into`.
    fn merge_group(
        &mut self,
        into: usize,
        other: &Groups,
        from: usize,
        aggs: &[AggPlan],
    ) -> Result<()> {
        let w = self.width;
        for (k, a) in aggs.iter().enumerate() {
            let (x, y) = (into * w + k, from * w + k);
            self.acc[x] = match a.func {
                AggFunc::Min => self.acc[x].min(other.acc[y]),
                AggFunc::Max => self.acc[x].max(other.acc[y]),
                _ => self.acc[x]
                    .checked_add(other.acc[y])
                    .ok_or_else(|| overflow("a 128-bit sum"))?,
            };
        }
        self.acc[into * w + w - 1] += other.acc[from * w + w - 1];
        Ok(())
    }

    /// The accumulator of aggregate `k` of group `g` (a sum, minimum or maximum, unscaled).
    fn raw(&self, g: usize, k: usize) -> i128 {
        self.acc[g * self.width + k]
    }

    fn rows(&self, g: usize) -> i128 {
        self.acc[g * self.width + self.width - 1]
    }

    fn values(&self, g: usize, aggs: &[AggPlan]) -> Vec<Value> {
        (0..aggs.len()).map(|k| self.value(g, k, aggs)).collect()
    }

    /// Aggregate `k` of group `g`.
    fn value(&self, g: usize, k: usize, aggs: &[AggPlan]) -> Value {
        let count = self.rows(g);
        let a = &aggs[k];
        let v = self.acc[g * self.width + k];
        match a.func {
            AggFunc::Count => Value::Int(count),
            _ if count == 0 => Value::Null,
            AggFunc::Avg => {
                Value::Float(v as f64 / count as f64 / pow10(u32::from(a.scale)) as f64)
            }
            _ => match a.ty {
                Type::Decimal(s) => Value::Decimal {
                    unscaled: v,
                    scale: s,
                },
                Type::Date => Value::Date(v as i32),
                _ => Value::Int(v),
            },
        }
    }
}

/// The error for an aggregate that does not fit the 64 bits of an integer column.
fn overflow_i64(v: i128) -> QueryError {
    QueryError::Overflow(format!("{v} does not fit 64 bits"))
}

/// Whether no sum of these values (at most 2^31 of them) can leave 64 bits.
fn fits_in_64_bits(values: &[i64]) -> bool {
    let (lo, hi) = values
        .iter()
        .fold((0i64, 0i64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let largest = lo.unsigned_abs().max(hi.unsigned_abs()) as u128;
    largest * values.len() as u128 <= i64::MAX as u128
}

fn key_value(kind: &SlotKind, v: i64) -> Value {
    match kind {
        SlotKind::Int(Type::Decimal(s)) => Value::Decimal {
            unscaled: i128::from(v),
            scale: *s,
        },
        SlotKind::Int(Type::Date) => Value::Date(v as i32),
        SlotKind::Int(Type::Bool) => Value::Bool(v != 0),
        SlotKind::Int(Type::Float) => Value::Float(crate::vector::double_of_key(v)),
        SlotKind::Int(_) => Value::Int(i128::from(v)),
        SlotKind::Dict(d) => Value::Str(d.get(v as usize).cloned().unwrap_or_default()),
        SlotKind::Text => Value::Null,
    }
}

/// Hash aggregation state of one worker.
struct HashState {
    map: Map<u64, u32>,
    /// When the packed keys take few bits: the group of every packed key, `u32::MAX` for
    /// none, used instead of `map`.
    direct: Option<Vec<u32>>,
    groups: Groups,
    /// Per group: the packed key, and the carried keys' values.
    keys: Vec<u64>,
    carried: Vec<Vec<Value>>,
    /// The other workers' tables, gathered for the merge.
    others: Vec<HashState>,
}

impl HashState {
    fn get_many(&self, codes: &[u64], found: &mut [Option<u32>]) -> Result<()> {
        match &self.direct {
            Some(direct) => {
                for (f, &c) in found.iter_mut().zip(codes) {
                    *f = Some(direct[c as usize]).filter(|&g| g != u32::MAX);
                }
            }
            None => {
                self.map.get_many(codes, found)?;
            }
        }
        Ok(())
    }

    fn get(&self, code: u64) -> Option<u32> {
        match &self.direct {
            Some(direct) => Some(direct[code as usize]).filter(|&g| g != u32::MAX),
            None => self.map.get(code),
        }
    }

    fn insert(&mut self, code: u64, group: u32) -> Result<()> {
        match &mut self.direct {
            Some(direct) => direct[code as usize] = group,
            None => {
                self.map.insert(code, group)?;
            }
        }
        Ok(())
    }
}

impl HashState {
    /// An empty table of merged groups (room for `expected`), read in order and never
    /// looked up (no index).
    fn merged(aggs: &[AggPlan], expected: usize) -> Result<HashState> {
        let mut groups = Groups::new(aggs, 0);
        groups.acc.reserve(expected * groups.width);
        Ok(HashState {
            map: Map::new()?,
            direct: None,
            groups,
            keys: Vec::with_capacity(expected),
            carried: Vec::new(),
            others: Vec::new(),
        })
    }

    /// Adds group `from` of `other` (its accumulators, and its key when new here); carried
    /// keys must agree (`same` compares one carried key's two values).
    fn absorb(
        &mut self,
        other: &HashState,
        from: usize,
        aggs: &[AggPlan],
        same: &dyn Fn(usize, &Value, &Value) -> Result<bool>,
    ) -> Result<()> {
        match self.get(other.keys[from]) {
            Some(into) => self.merge_into(into as usize, other, from, aggs, same),
            None => {
                let into = self.push_from(other, from);
                self.insert(other.keys[from], into as u32)
            }
        }
    }

    /// Appends group `from` of `other` as a new group (key, carried keys and accumulators),
    /// without indexing it; returns its number here.
    fn push_from(&mut self, other: &HashState, from: usize) -> usize {
        let into = self.keys.len();
        self.keys.push(other.keys[from]);
        // Tables without carried keys keep no per-group entries for them.
        if let Some(carried) = other.carried.get(from) {
            self.carried.push(carried.clone());
        }
        self.groups.push_copy(&other.groups, from);
        into
    }

    /// Adds group `from` of `other` to group `into`, whose key is the same; carried keys
    /// must agree (`same` compares one carried key's two values).
    fn merge_into(
        &mut self,
        into: usize,
        other: &HashState,
        from: usize,
        aggs: &[AggPlan],
        same: &dyn Fn(usize, &Value, &Value) -> Result<bool>,
    ) -> Result<()> {
        if let (Some(mine), Some(theirs)) = (self.carried.get(into), other.carried.get(from)) {
            for (c, (x, y)) in mine.iter().zip(theirs).enumerate() {
                if !same(c, x, y)? {
                    return unsupported(
                        "grouping by more than 64 bits of keys that are not determined by the others",
                    );
                }
            }
        }
        self.groups.merge_group(into, &other.groups, from, aggs)
    }
}

/// Merges the workers' aggregation tables: with one, nothing to do; with few groups, on this
/// thread; with keys in hash maps, or `route` given, by hash partitions in parallel
/// ([`hashmerge::merge_hashed`]: the groups of one partition have equal `route(key)` hashes
/// modulo the partitions); else (direct arrays of packed keys) the key space is cut into `P`
/// ranges and each range, in parallel, walks its keys through every worker's direct array
/// and merges their groups in key order (a table with no index: merged tables are only
/// read in order). The result is one table per partition, their keys disjoint.
fn merge_partitioned(
    mut states: Vec<HashState>,
    aggs: &[AggPlan],
    runtime: &Runtime,
    budget: &Scope<'_>,
    group_bytes: usize,
    same: &(dyn Fn(usize, &Value, &Value) -> Result<bool> + Sync),
    route: Option<&(dyn Fn(u64) -> u64 + Sync)>,
) -> Result<Vec<HashState>> {
    if states.len() <= 1 {
        return Ok(states);
    }
    let groups: usize = states.iter().map(|s| s.keys.len()).sum();
    let space = states[0].direct.as_ref().map_or(0, Vec::len);
    if groups >= hashmerge::PARALLEL_MERGE_GROUPS
        && runtime.threads() > 1
        && (space == 0 || route.is_some())
    {
        let identity = |code: u64| code;
        return hashmerge::merge_hashed(
            &states,
            aggs,
            runtime,
            budget,
            group_bytes,
            same,
            route.unwrap_or(&identity),
        );
    }
    if groups < hashmerge::PARALLEL_MERGE_GROUPS || space == 0 || runtime.threads() == 1 {
        // Few groups: merging them on one thread is cheaper than partitioning.
        let mut first = states.remove(0);
        for other in &states {
            for from in 0..other.keys.len() {
                first.absorb(other, from, aggs, same)?;
            }
        }
        return Ok(vec![first]);
    }
    let partitions = (runtime.threads() * 8).next_power_of_two().min(space);
    let span = space.div_ceil(partitions);
    budget.reserve(
        &|| format!("the parallel merge of {groups} groups"),
        groups * group_bytes,
    )?;
    // Each partition walks its range of keys through every worker's direct array: the
    // merged groups come out in key order, and no array or bucket of them is built.
    hashmerge::per_partition(runtime, partitions, |p| {
        let keys = (p * span).min(space)..((p + 1) * span).min(space);
        let mut into = HashState::merged(aggs, groups.div_ceil(partitions))?;
        let slices: Vec<&[u32]> = states
            .iter()
            .map(|s| s.direct.as_deref().map_or(&[][..], |d| &d[keys.clone()]))
            .collect();
        // Runs of 16 keys that no worker holds are passed over at once.
        for run in (0..keys.len()).step_by(16) {
            let end = (run + 16).min(keys.len());
            if slices
                .iter()
                .all(|d| d[run..end].iter().fold(u32::MAX, |a, &g| a & g) == u32::MAX)
            {
                continue;
            }
            for offset in run..end {
                let mut target = None;
                for (state, direct) in states.iter().zip(&slices) {
                    let g = direct[offset];
                    if g == u32::MAX {
                        continue;
                    }
                    match target {
                        None => target = Some(into.push_from(state, g as usize)),
                        Some(t) => into.merge_into(t, state, g as usize, aggs, same)?,
                    }
                }
            }
        }
        Ok((!into.keys.is_empty()).then_some(into))
    })
}

/// Groups a worker's hash map of packed keys has room for before it first grows.
const MAP_START_GROUPS: usize = 1 << 12;

/// Packed group keys of at most this many bits index a direct array of groups (when that
/// array is not much larger than the table).
const DIRECT_GROUP_BITS: u32 = 25;

impl<'a> Plan<'a> {
    /// The hash aggregation's keys and aggregates, when the plan's sink is one.
    fn hash_sink(&self) -> Option<&HashSink> {
        match &self.sink {
            SinkPlan::Hash(hash) => Some(hash),
            _ => None,
        }
    }

    /// The hash aggregation's groups (its sink must be [`SinkPlan::Hash`]): the workers'
    /// tables merged, one per partition of the key space.
    fn hash_groups(
        &self,
        builds: &[Option<Arc<Built>>],
        runtime: &Arc<Runtime>,
        budget: &Scope<'_>,
    ) -> Result<Vec<HashState>> {
        self.hash_groups_routed(builds, runtime, budget, None)
    }

    /// [`Plan::hash_groups`], the workers' tables merged by hash partitions of `route(key)`
    /// when `route` is given (and the merge is parallel): the keys of one partition then
    /// share their `route` values with no other partition.
    fn hash_groups_routed(
        &self,
        builds: &[Option<Arc<Built>>],
        runtime: &Arc<Runtime>,
        budget: &Scope<'_>,
        route: Option<&(dyn Fn(u64) -> u64 + Sync)>,
    ) -> Result<Vec<HashState>> {
        let Some(HashSink {
            packed,
            carried,
            aggs,
            key_kinds,
            single_signed,
            ..
        }) = self.hash_sink()
        else {
            unreachable!("hash_groups of a plan without a hash aggregation")
        };
        let bits: u32 = packed.iter().map(|p| p.2).sum();
        let direct = !*single_signed
            && bits <= DIRECT_GROUP_BITS
            && (1usize << bits) <= (4 * self.root.rows).max(1 << 16);
        let operator = || {
            format!(
                "the hash aggregation on {} packed key bits{}",
                bits,
                if direct {
                    " (direct array per worker)"
                } else {
                    ""
                }
            )
        };
        // Per group: accumulators, the packed key, carried keys, the map's entry.
        let group_bytes = (aggs.len() + 1) * 16
            + 8
            + carried.len() * std::mem::size_of::<Value>()
            + if direct { 0 } else { 24 };
        let init = || -> Result<HashState> {
            if direct {
                budget.reserve(&operator, (1usize << bits) * 4)?;
            }
            // A hash map starts at the packed keys' full width (and room for a few thousand
            // groups): inserts never rebuild it to widen its keys.
            let map = if direct {
                Map::new()?
            } else {
                let widest = if *single_signed || bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                let start = MAP_START_GROUPS.min(self.root.rows.max(1));
                Map::with_capacity(
                    start,
                    widest,
                    start as u32,
                    &smartarrays::ArrayOptions::new(),
                )?
            };
            // A direct array's groups are at most its keys and the rows: room for that many
            // up front (address space only; pages are touched as groups come), so the
            // group vectors never move (a copy of every group so far) as they grow.
            let room = if direct {
                (1usize << bits).min(self.root.rows)
            } else {
                0
            };
            // Where the address space is not granted, the vectors just grow as they go.
            let mut groups = Groups::new(aggs, 0);
            let _ = groups.acc.try_reserve(room * groups.width);
            let mut keys = Vec::new();
            let _ = keys.try_reserve(room);
            Ok(HashState {
                map,
                direct: direct.then(|| vec![u32::MAX; 1usize << bits]),
                groups,
                keys,
                carried: Vec::new(),
                others: Vec::new(),
            })
        };
        let state = run_pipeline(
            &self.root,
            builds,
            runtime,
            || {
                (
                    init(),
                    Vec::<u64>::new(),
                    Vec::<i64>::new(),
                    (Vec::<u32>::new(), Vec::<Option<u32>>::new()),
                )
            },
            |(state, codes, values, (ids, found)), batch| {
                let state = match state {
                    Ok(s) => s,
                    // The worker's table could not be made (its budget): that error.
                    Err(e) => {
                        return Err(std::mem::replace(e, QueryError::Overflow(String::new())))
                    }
                };
                codes.clear();
                codes.resize(batch.len, 0);
                let mut shift = 0;
                for (e, min, bits) in packed {
                    e.eval(batch, values)?;
                    for (c, &v) in codes.iter_mut().zip(values.iter()) {
                        *c |= if *single_signed {
                            v as u64
                        } else {
                            (v.wrapping_sub(*min) as u64) << shift
                        };
                    }
                    shift += bits;
                }
                // Carried keys: text is compared in place, other values decoded.
                let mut carried_values: Vec<Option<Vec<Value>>> = Vec::new();
                for (source, k) in carried {
                    carried_values.push(match source {
                        KeySource::Text(_) => None,
                        KeySource::Expr(x) => {
                            x.eval(batch, values)?;
                            Some(
                                values
                                    .iter()
                                    .map(|&v| key_value(&key_kinds[*k], v))
                                    .collect(),
                            )
                        }
                    });
                }
                // Text is carried as the row id of its string; two ids are compared
                // by their strings only when they differ.
                let carried_at = |c: usize, r: usize| -> Value {
                    match (&carried[c].0, &carried_values[c]) {
                        (KeySource::Text(s), _) => Value::Int(i128::from(batch.ints[*s][r])),
                        (_, Some(v)) => v[r].clone(),
                        _ => Value::Null,
                    }
                };
                let same = |stored: &Value, c: usize, r: usize| -> Result<bool> {
                    Ok(match (&carried[c].0, &carried_values[c], stored) {
                        (KeySource::Text(s), _, Value::Int(id)) => {
                            let row = batch.ints[*s][r];
                            i128::from(row) == *id
                                || same_text(self.root.text_columns[*s], row, *id as i64)?
                        }
                        (_, Some(v), stored) => v[r] == *stored,
                        _ => false,
                    })
                };
                found.clear();
                found.resize(codes.len(), None);
                state.get_many(codes, found)?;
                let groups_before = state.keys.len();
                ids.clear();
                if carried.is_empty() {
                    // Keys alone: a row with its predecessor's key (sorted input such
                    // as Q18's l_orderkey repeats keys in runs) reuses its group.
                    let mut last: Option<(u64, u32)> = None;
                    for (r, &code) in codes.iter().enumerate() {
                        let id = match last {
                            Some((c, id)) if c == code => id,
                            _ => match found[r].or_else(|| state.get(code)) {
                                Some(id) => id,
                                None => {
                                    let id = state.keys.len() as u32;
                                    state.insert(code, id)?;
                                    state.keys.push(code);
                                    state.groups.push_group(aggs);
                                    id
                                }
                            },
                        };
                        last = Some((code, id));
                        ids.push(id);
                    }
                }
                // (Done above when no keys are carried: `ids` is full then.)
                for (r, &code) in codes.iter().enumerate().skip(ids.len()) {
                    // A key first seen earlier in this batch is not in `found`.
                    let known = found[r].or_else(|| state.get(code));
                    let id = match known {
                        Some(id) => {
                            let stored = &state.carried[id as usize];
                            let mut all_same = true;
                            for (c, value) in stored.iter().enumerate() {
                                all_same &= same(value, c, r)?;
                            }
                            if !all_same {
                                return unsupported(
                                        "grouping by more than 64 bits of keys that are not determined by the others",
                                    );
                            }
                            id
                        }
                        None => {
                            let id = state.keys.len() as u32;
                            state.insert(code, id)?;
                            state.keys.push(code);
                            state
                                .carried
                                .push((0..carried.len()).map(|c| carried_at(c, r)).collect());
                            state.groups.push_group(aggs);
                            id
                        }
                    };
                    ids.push(id);
                }
                // The batch's new groups (at most one vector's worth past the budget).
                budget.reserve(&operator, (state.keys.len() - groups_before) * group_bytes)?;
                state.groups.update(aggs, batch, ids, values, false)
            },
            // Workers' tables are kept apart here and merged below, in parallel.
            |(a, x, y, z), (b, _, _, _)| {
                let (mut a, mut b) = (a?, b?);
                let more = std::mem::take(&mut b.others);
                a.others.push(b);
                a.others.extend(more);
                Ok((Ok(a), x, y, z))
            },
        )?;
        let mut first = state.0?;
        let mut states = std::mem::take(&mut first.others);
        states.insert(0, first);
        let same_carried = |c: usize, x: &Value, y: &Value| -> Result<bool> {
            Ok(x == y
                || match (&carried[c].0, x, y) {
                    (KeySource::Text(s), Value::Int(x), Value::Int(y)) => {
                        same_text(self.root.text_columns[*s], *x as i64, *y as i64)?
                    }
                    _ => false,
                })
        };
        merge_partitioned(
            states,
            aggs,
            runtime,
            budget,
            group_bytes,
            &same_carried,
            route,
        )
    }

    /// The types of the query's output columns.
    pub(crate) fn output_types(&self) -> Vec<Type> {
        self.query.outputs.iter().map(|(_, e)| e.ty()).collect()
    }

    /// A grouped query's result as integer columns, straight from the aggregation's groups
    /// (no rows of [`Value`]s): each output a group key or an aggregate (not `avg`) of an
    /// integer, decimal (unscaled, at its type's scale) or date (days) type, without HAVING,
    /// ORDER BY or LIMIT. `Ok(None)` for any other query (run it with [`Plan::run`]).
    pub(crate) fn run_int_columns(
        &self,
        runtime: &Arc<Runtime>,
        budget: &Budget,
    ) -> Result<Option<Vec<Vec<i64>>>> {
        let Some(HashSink {
            packed,
            carried,
            packed_index,
            aggs,
            key_kinds,
            single_signed,
        }) = self.hash_sink()
        else {
            return Ok(None);
        };
        let q = &self.query;
        let integral = |t: Type| t.is_exact() || t == Type::Date;
        // Per output: Ok(packed position of a key) or Err(aggregate).
        let mut sources = Vec::with_capacity(q.outputs.len());
        for (_, e) in &q.outputs {
            sources.push(match e {
                BExpr::Key(i, ty) if integral(*ty) => {
                    match (packed_index.iter().position(|p| p == i), &key_kinds[*i]) {
                        (Some(p), SlotKind::Int(t)) if t == ty => Ok(p),
                        _ => return Ok(None),
                    }
                }
                BExpr::Agg(k, ty) if integral(*ty) && aggs[*k].func != AggFunc::Avg => Err(*k),
                _ => return Ok(None),
            });
        }
        if !carried.is_empty() || q.having.is_some() || !q.order_by.is_empty() || q.limit.is_some()
        {
            return Ok(None);
        }
        let budget = budget.scope();
        let builds = run_builds(&self.root, runtime, &budget)?;
        let merged = self.hash_groups(&builds, runtime, &budget)?;
        let groups: usize = merged.iter().map(|s| s.keys.len()).sum();
        budget.reserve(
            &|| format!("the {} integer columns of {groups} groups", sources.len()),
            groups * sources.len() * 8,
        )?;
        // Each packed key's (shift, mask, minimum).
        let mut fields = Vec::with_capacity(packed.len());
        let mut shift = 0;
        for &(_, min, bits) in packed {
            let mask = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            fields.push((shift, mask, min));
            shift += bits;
        }
        let too_wide = |v: i128| overflow_i64(v);
        let mut columns = Vec::with_capacity(sources.len());
        for source in &sources {
            let mut column = Vec::with_capacity(groups);
            for state in &merged {
                match *source {
                    Ok(p) => {
                        let (shift, mask, min) = fields[p];
                        column.extend(state.keys.iter().map(|&code| {
                            if *single_signed {
                                code as i64
                            } else {
                                ((code >> shift) & mask) as i64 + min
                            }
                        }));
                    }
                    Err(k) => {
                        for id in 0..state.keys.len() {
                            let v = match aggs[k].func {
                                AggFunc::Count => state.groups.rows(id),
                                _ => state.groups.raw(id, k),
                            };
                            column.push(i64::try_from(v).map_err(|_| too_wide(v))?);
                        }
                    }
                }
            }
            columns.push(column);
        }
        Ok(Some(columns))
    }

    /// Whether [`Plan::run_prefix_counts`] answers this plan with `prefix` keys: a hash
    /// grouping on packed keys alone (none carried), without HAVING, ORDER BY or LIMIT, whose
    /// outputs are group keys, the first `prefix` of them and the last together every key
    /// once, the last one not among the first.
    pub(crate) fn prefix_countable(&self, prefix: usize) -> bool {
        self.prefix_count_fields(prefix).is_some()
    }

    /// The packed field of the last output's key, when [`Plan::prefix_countable`].
    fn prefix_count_fields(&self, prefix: usize) -> Option<usize> {
        let HashSink {
            carried,
            packed_index,
            key_kinds,
            ..
        } = self.hash_sink()?;
        let q = &self.query;
        if prefix == 0
            || q.outputs.len() != prefix + 1
            || !carried.is_empty()
            || q.having.is_some()
            || !q.order_by.is_empty()
            || q.limit.is_some()
        {
            return None;
        }
        let mut keys = Vec::with_capacity(q.outputs.len());
        for (_, e) in &q.outputs {
            match e {
                BExpr::Key(i, _) => keys.push(*i),
                _ => return None,
            }
        }
        let last = keys[prefix];
        if keys[..prefix].contains(&last) {
            return None;
        }
        let mut covered = vec![false; key_kinds.len()];
        for &k in &keys {
            covered[k] = true;
        }
        if covered.contains(&false) || packed_index.len() != key_kinds.len() {
            return None;
        }
        packed_index.iter().position(|&i| i == last)
    }

    /// `select k_1, .., k_n, count(*) from (this plan) group by k_1, .., k_n` where this plan
    /// groups by `k_1, .., k_n, x` and outputs them in that order (`prefix` = n): the number of
    /// distinct `x` per group of the first keys, counted on the groups' packed keys (the
    /// field of `x` removed) without building the plan's rows. `Ok(None)` unless
    /// [`Plan::prefix_countable`]. Rows in no particular order; the count is an integer.
    pub(crate) fn run_prefix_counts(
        &self,
        prefix: usize,
        runtime: &Arc<Runtime>,
        budget: &Budget,
    ) -> Result<Option<ResultSet>> {
        let Some(field) = self.prefix_count_fields(prefix) else {
            return Ok(None);
        };
        let Some(HashSink {
            packed,
            packed_index,
            key_kinds,
            single_signed,
            ..
        }) = self.hash_sink()
        else {
            return Ok(None);
        };
        let budget = budget.scope();
        // Each packed key's (shift, mask, minimum).
        let mut fields = Vec::with_capacity(packed.len());
        let mut shift = 0u32;
        for &(_, min, bits) in packed {
            let mask = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            fields.push((shift, mask, min));
            shift += bits;
        }
        // The packed key without the field of `x` (with one key only, `x` alone: no field
        // is left, and `prefix` > 0 rules that out).
        let (x_shift, x_mask, _) = fields[field];
        let single = *single_signed;
        let without_x = move |code: u64| -> u64 {
            if single {
                return 0;
            }
            let low = if x_shift == 0 {
                0
            } else {
                code & (u64::MAX >> (64 - x_shift))
            };
            let high_shift = x_shift + x_mask.count_ones();
            let high = if high_shift >= 64 {
                0
            } else {
                code >> high_shift
            };
            low | if x_shift >= 64 { 0 } else { high << x_shift }
        };
        let builds = run_builds(&self.root, runtime, &budget)?;
        // Merged by partitions of the prefix: each prefix's groups in one partition, counted
        // there, the partitions in parallel.
        let merged = self.hash_groups_routed(&builds, runtime, &budget, Some(&without_x))?;
        let groups: usize = merged.iter().map(|s| s.keys.len()).sum();
        budget.reserve(
            &|| format!("the prefix counts of {groups} groups"),
            groups * 24,
        )?;
        // Per prefix group: the first full packed key seen and the count.
        let found = hashmerge::count_prefixes(&merged, &without_x, true, runtime)?;
        let mut rows: Vec<(Vec<Value>, Vec<Value>)> = Vec::with_capacity(found.len());
        for &(code, count) in &found {
            let mut key_values = vec![Value::Null; key_kinds.len()];
            for (p, &(shift, mask, min)) in fields.iter().enumerate() {
                let i = packed_index[p];
                let raw = if *single_signed {
                    code as i64
                } else {
                    ((code >> shift) & mask) as i64 + min
                };
                key_values[i] = match key_kinds[i] {
                    SlotKind::Text => Value::Int(i128::from(raw)),
                    _ => key_value(&key_kinds[i], raw),
                };
            }
            rows.push((key_values, vec![Value::Int(count)]));
        }
        let mut deferred = Vec::new();
        for (p, (e, _, _)) in packed.iter().enumerate() {
            if let VExpr::Lookup(inner, _) = e {
                if let VExpr::Slot(s) = inner.as_ref() {
                    deferred.push((packed_index[p], self.root.text_columns[*s]));
                }
            }
        }
        materialize_texts(&mut rows, &deferred.iter().collect::<Vec<_>>())?;
        let q = &self.query;
        let out = rows
            .into_iter()
            .map(|(keys, count)| {
                let mut row = q.outputs[..prefix]
                    .iter()
                    .map(|(_, e)| eval_row(e, &keys, &[]))
                    .collect::<Result<Vec<Value>>>()?;
                row.extend(count);
                Ok(row)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut names: Vec<String> = q.outputs[..prefix].iter().map(|(n, _)| n.clone()).collect();
        names.push(String::new());
        let mut types: Vec<Type> = q.outputs[..prefix].iter().map(|(_, e)| e.ty()).collect();
        types.push(Type::Int);
        Ok(Some(ResultSet {
            names,
            types,
            rows: out,
        }))
    }

    /// Runs the plan on `runtime`'s workers.
    pub(crate) fn run(&self, runtime: &Arc<Runtime>, budget: &Budget) -> Result<ResultSet> {
        let budget = budget.scope();
        let budget = &budget;
        let builds = run_builds(&self.root, runtime, budget)?;
        let mut deferred = Vec::new();
        let rows: Vec<(Vec<Value>, Vec<Value>)> = match &self.sink {
            SinkPlan::Collect { exprs, kinds } => {
                let collected = run_pipeline(
                    &self.root,
                    &builds,
                    runtime,
                    Vec::new,
                    |rows: &mut Vec<Vec<Value>>, batch| {
                        budget.reserve(
                            &|| "the rows a query collects".to_string(),
                            batch.len * (24 + exprs.len() * std::mem::size_of::<Value>()),
                        )?;
                        let mut columns: Vec<Vec<Value>> = Vec::new();
                        let mut values = Vec::new();
                        for (e, kind) in exprs.iter().zip(kinds) {
                            columns.push(match e {
                                KeySource::Text(s) => texts_of(
                                    self.root.text_columns[*s],
                                    &batch.ints[*s][..batch.len],
                                )?
                                .into_iter()
                                .map(Value::Str)
                                .collect(),
                                KeySource::Expr(x) => {
                                    x.eval(batch, &mut values)?;
                                    values.iter().map(|&v| key_value(kind, v)).collect()
                                }
                            });
                        }
                        for r in 0..batch.len {
                            rows.push(columns.iter().map(|c| c[r].clone()).collect());
                        }
                        Ok(())
                    },
                    |mut a, b| {
                        a.extend(b);
                        Ok(a)
                    },
                )?;
                collected.into_iter().map(|r| (r, Vec::new())).collect()
            }
            SinkPlan::Direct {
                keys,
                groups,
                aggs,
                key_kinds,
            } => {
                let group_bytes = (aggs.len() + 1) * 16;
                let operator =
                    || format!("the aggregation's direct array of {groups} groups (per worker)");
                let state = run_pipeline(
                    &self.root,
                    &builds,
                    runtime,
                    || {
                        let reserved = budget.reserve(&operator, groups * group_bytes);
                        (reserved, Groups::new(aggs, *groups), Vec::new(), Vec::new())
                    },
                    |(reserved, g, ids, values): &mut (Result<()>, Groups, Vec<u32>, Vec<i64>),
                     batch| {
                        // The worker's array could not be counted in the budget: that error.
                        std::mem::replace(reserved, Ok(()))?;
                        ids.clear();
                        ids.resize(batch.len, 0);
                        for &(slot, stride) in keys {
                            for (id, &c) in ids.iter_mut().zip(&batch.ints[slot][..batch.len]) {
                                *id += (c as usize * stride) as u32;
                            }
                        }
                        g.update(aggs, batch, ids, values, true)
                    },
                    |(ra, mut a, x, y), (rb, b, _, _)| {
                        ra?;
                        rb?;
                        for i in 0..a.len() {
                            a.merge_group(i, &b, i, aggs)?;
                        }
                        Ok((Ok(()), a, x, y))
                    },
                )?;
                state.0?;
                let g = state.1;
                let mut out = Vec::new();
                for id in 0..g.len() {
                    if g.rows(id) == 0 && !keys.is_empty() {
                        continue;
                    }
                    let key_values = keys
                        .iter()
                        .zip(key_kinds)
                        .map(|(&(_, stride), kind)| {
                            let size = match kind {
                                SlotKind::Dict(d) => d.len().max(1),
                                _ => 1,
                            };
                            key_value(kind, ((id / stride) % size) as i64)
                        })
                        .collect();
                    out.push((key_values, g.values(id, aggs)));
                }
                out
            }
            SinkPlan::Hash(HashSink {
                packed,
                carried,
                packed_index,
                aggs,
                key_kinds,
                single_signed,
            }) => {
                let merged = self.hash_groups(&builds, runtime, budget)?;
                // A HAVING on aggregates alone drops its groups before their keys are built.
                let early_having = self.query.having.as_ref().filter(|h| {
                    let mut keys = Vec::new();
                    key_refs(h, &mut keys);
                    keys.is_empty()
                });
                // `aggregate op constant` (Q18's `sum(l_quantity) > 300`): one value per group.
                let threshold = match early_having {
                    Some(BExpr::Compare(op, a, b)) => match (a.as_ref(), b.as_ref()) {
                        (BExpr::Agg(i, _), BExpr::Literal(v, _)) => Some((*i, *op, v)),
                        (BExpr::Literal(v, _), BExpr::Agg(i, _)) => Some((*i, op.flip(), v)),
                        _ => None,
                    },
                    _ => None,
                };
                // The same test on the raw accumulator, the constant scaled once (exact sums,
                // minima, maxima and counts against an exact constant).
                let raw_threshold = threshold.and_then(|(k, op, constant)| {
                    let a = &aggs[k];
                    let bound = match (a.func, a.ty, constant) {
                        (AggFunc::Avg, ..) => return None,
                        (AggFunc::Count, _, Value::Int(c)) => *c,
                        (AggFunc::Count, ..) => return None,
                        (_, Type::Int, Value::Int(c)) => *c,
                        (_, Type::Decimal(s), Value::Int(c)) => {
                            c.checked_mul(pow10(u32::from(s)))?
                        }
                        (_, Type::Decimal(s), Value::Decimal { unscaled, scale })
                            if *scale <= s =>
                        {
                            unscaled.checked_mul(pow10(u32::from(s - scale)))?
                        }
                        _ => return None,
                    };
                    Some((k, op, bound, a.func == AggFunc::Count))
                });
                // Each partition's groups are tested and made rows on its own, in parallel.
                let rows_of = |state: &HashState| -> Result<Vec<(Vec<Value>, Vec<Value>)>> {
                    let mut out = Vec::new();
                    for (id, &code) in state.keys.iter().enumerate() {
                        if let Some((k, op, bound, is_count)) = raw_threshold {
                            let rows = state.groups.rows(id);
                            let v = if is_count {
                                rows
                            } else {
                                state.groups.raw(id, k)
                            };
                            if (rows == 0 && !is_count) || !op.holds(v.cmp(&bound)) {
                                continue;
                            }
                        } else if let Some((k, op, constant)) = threshold {
                            let v = state.groups.value(id, k, aggs);
                            if v == Value::Null
                                || *constant == Value::Null
                                || !op.holds(v.sort_cmp(constant))
                            {
                                continue;
                            }
                        }
                        let agg_values = state.groups.values(id, aggs);
                        if let (Some(h), None) = (early_having, threshold) {
                            if eval_row(h, &[], &agg_values)? != Value::Bool(true) {
                                continue;
                            }
                        }
                        let mut key_values = vec![Value::Null; key_kinds.len()];
                        let mut shift = 0;
                        for (p, &(_, min, bits)) in packed.iter().enumerate() {
                            let i = packed_index[p];
                            let raw = if *single_signed {
                                code as i64
                            } else {
                                let mask = if bits >= 64 {
                                    u64::MAX
                                } else {
                                    (1u64 << bits) - 1
                                };
                                ((code >> shift) & mask) as i64 + min
                            };
                            // A packed text key is its string's row id (read in `finish`).
                            key_values[i] = match key_kinds[i] {
                                SlotKind::Text => Value::Int(i128::from(raw)),
                                _ => key_value(&key_kinds[i], raw),
                            };
                            shift += bits;
                        }
                        for (c, (_, i)) in carried.iter().enumerate() {
                            key_values[*i] = state.carried[id][c].clone();
                        }
                        out.push((key_values, agg_values));
                    }
                    Ok(out)
                };
                let out: Vec<(Vec<Value>, Vec<Value>)> =
                    hashmerge::per_partition(runtime, merged.len(), |p| {
                        rows_of(&merged[p]).map(Some)
                    })?
                    .into_iter()
                    .flatten()
                    .collect();
                // The carried texts' strings are read in `finish`, for the rows it keeps.
                for (source, i) in carried {
                    if let KeySource::Text(s) = source {
                        deferred.push((*i, self.root.text_columns[*s]));
                    }
                }
                for (p, (e, _, _)) in packed.iter().enumerate() {
                    if let VExpr::Lookup(inner, _) = e {
                        if let VExpr::Slot(s) = inner.as_ref() {
                            deferred.push((packed_index[p], self.root.text_columns[*s]));
                        }
                    }
                }
                out
            }
        };
        self.finish(rows, &deferred)
    }

    /// HAVING, ORDER BY, LIMIT and the output expressions over the result rows. `deferred`
    /// names the group keys that still hold a text's row id in its column: their strings are
    /// read only for the rows left after LIMIT (or before, where HAVING or ORDER BY reads them).
    fn finish(
        &self,
        mut rows: Vec<(Vec<Value>, Vec<Value>)>,
        deferred: &[(usize, Option<&Column>)],
    ) -> Result<ResultSet> {
        let q = &self.query;
        let mut early = Vec::new();
        if let Some(h) = &q.having {
            key_refs(h, &mut early);
        }
        for (e, _) in &q.order_by {
            key_refs(e, &mut early);
        }
        let (now, later): (Vec<_>, Vec<_>) = deferred.iter().partition(|(k, _)| early.contains(k));
        materialize_texts(&mut rows, &now)?;
        let mut kept = Vec::new();
        for (keys, aggs) in rows {
            if let Some(h) = &q.having {
                if eval_row(h, &keys, &aggs)? != Value::Bool(true) {
                    continue;
                }
            }
            let sort: Vec<Value> = q
                .order_by
                .iter()
                .map(|(e, _)| eval_row(e, &keys, &aggs))
                .collect::<Result<_>>()?;
            kept.push((sort, (keys, aggs)));
        }
        let order = |(a, _): &(Vec<Value>, _), (b, _): &(Vec<Value>, _)| {
            for (i, (_, desc)) in q.order_by.iter().enumerate() {
                let o = a[i].sort_cmp(&b[i]);
                let o = if *desc { o.reverse() } else { o };
                if o.is_ne() {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        };
        match q.limit {
            // Top N: select the first N, then sort only them (stable: ties keep their order).
            Some(limit) if limit < kept.len() => {
                if limit == 0 {
                    kept.clear();
                } else {
                    kept.select_nth_unstable_by(limit - 1, order);
                    kept.truncate(limit);
                }
            }
            _ => {}
        }
        kept.sort_by(order);
        let mut rows: Vec<(Vec<Value>, Vec<Value>)> = kept.into_iter().map(|(_, r)| r).collect();
        materialize_texts(&mut rows, &later)?;
        let mut out = Vec::with_capacity(rows.len());
        for (keys, aggs) in &rows {
            out.push(
                q.outputs
                    .iter()
                    .map(|(_, e)| eval_row(e, keys, aggs))
                    .collect::<Result<Vec<Value>>>()?,
            );
        }
        Ok(ResultSet {
            names: q.outputs.iter().map(|(n, _)| n.clone()).collect(),
            types: q.outputs.iter().map(|(_, e)| e.ty()).collect(),
            rows: out,
        })
    }
}
