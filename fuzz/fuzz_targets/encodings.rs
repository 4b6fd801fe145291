//! Typed compressed columns against a plain `Vec` reference: the input picks a data type and
//! values (edge values included: i64::MIN/MAX, u64::MAX, NaN payloads, -0.0, infinities,
//! empty and non-ASCII strings, nulls), a column is built with every encoding (forced, and
//! chosen by the sampling compressor), and every operation (get, unpack, take, chunks,
//! sum/min/max, statistics, every filter kind) must agree with plain evaluation; bad indices,
//! ranges and constants must be typed errors.
#![no_main]

mod input;

use std::cmp::Ordering;
use std::ops::{Bound, Range};
use std::sync::{Arc, OnceLock};

use input::Input;
use libfuzzer_sys::fuzz_target;
use smartarrays::{ArrayOptions, Placement, Runtime, RuntimeOptions, Topology};
use smartarrays_encodings::{
    Canonical, Column, ColumnOptions, DataType, EncodingError, EncodingKind, Predicate, Scalar, Sum,
};

/// The runtimes columns are built with: one worker on this machine (parallel kernels without
/// waiting on a loaded machine's scheduler), or two on a described two-node machine, so that
/// replicated columns really have two replicas to build and read.
fn runtime(two_nodes: bool) -> Arc<Runtime> {
    static ONE: OnceLock<Arc<Runtime>> = OnceLock::new();
    static TWO: OnceLock<Arc<Runtime>> = OnceLock::new();
    let (cell, topology, threads) = if two_nodes {
        (
            &TWO,
            Some(Arc::new(Topology::uniform(2, 1, 8 << 30).unwrap())),
            2,
        )
    } else {
        (&ONE, None, 1)
    };
    cell.get_or_init(|| {
        let options = RuntimeOptions {
            threads: Some(threads),
            topology,
            no_pinning: true,
        };
        Arc::new(Runtime::new(options).unwrap())
    })
    .clone()
}

const STRING_PIECES: [&str; 16] = [
    "",
    "a",
    "ab",
    "abc",
    "b",
    "é",
    "日本",
    "%",
    "_",
    "\\",
    "a%b",
    "zz",
    "\u{10FFFF}",
    "\0",
    "A",
    "ab_c",
];
const LIKE_PIECES: [&str; 12] = [
    "%", "_", "a", "b", "é", "\\%", "\\_", "\\\\", "\\", "日", "ab", "c",
];

fn data_type(input: &mut Input) -> DataType {
    match input.byte() % 7 {
        0 => DataType::UInt64,
        1 => DataType::Int64,
        2 => DataType::Float64,
        3 => DataType::Decimal {
            scale: input.byte() % 21,
        },
        4 => DataType::Date32,
        5 => DataType::Utf8,
        _ => DataType::Bool,
    }
}

fn string(input: &mut Input) -> String {
    let mut text = String::new();
    for _ in 0..input.byte() % 4 {
        let piece = input.byte();
        if piece < 200 {
            text.push_str(STRING_PIECES[usize::from(piece) % STRING_PIECES.len()]);
        } else {
            let bytes: Vec<u8> = (0..piece % 6).map(|_| input.byte()).collect();
            text.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    text
}

/// A fresh non-null value of `data_type`, often an edge value.
fn value(input: &mut Input, data_type: DataType) -> Scalar {
    let pick = input.byte();
    match data_type {
        DataType::UInt64 => Scalar::UInt64(match pick % 8 {
            0 => 0,
            1 => u64::MAX,
            2 => u64::MAX - u64::from(input.byte()),
            3 => 1 << 63,
            4 | 5 => u64::from(input.byte()),
            6 => 1_000_000 + u64::from(input.byte()),
            _ => input.u64(),
        }),
        DataType::Int64 | DataType::Decimal { .. } => {
            let v = match pick % 8 {
                0 => 0,
                1 => i64::MIN,
                2 => i64::MAX,
                3 => i64::MIN + i64::from(input.byte()),
                4 => i64::from(input.byte() as i8),
                5 => -1_000_000 + i64::from(input.byte()),
                6 => i64::MAX - i64::from(input.byte()),
                _ => input.u64() as i64,
            };
            match data_type {
                DataType::Decimal { scale } => Scalar::Decimal { unscaled: v, scale },
                _ => Scalar::Int64(v),
            }
        }
        DataType::Float64 => Scalar::Float64(match pick % 12 {
            0 => f64::NAN,
            1 => f64::from_bits(0x7FF0_0000_0000_0000 | (input.u64() & 0x000F_FFFF_FFFF_FFFF | 1)),
            2 => -f64::from_bits(0x7FF8_0000_0000_0000 | u64::from(input.byte())),
            3 => -0.0,
            4 => 0.0,
            5 => f64::INFINITY,
            6 => f64::NEG_INFINITY,
            7 => f64::from_bits(u64::from(input.byte())),
            8 => f64::MAX,
            9 => f64::from(input.byte() as i8) / 100.0,
            10 => 1000.0 + f64::from(input.byte()) / 8.0,
            _ => f64::from_bits(input.u64()),
        }),
        DataType::Date32 => Scalar::Date32(match pick % 6 {
            0 => i32::MIN,
            1 => i32::MAX,
            2 => 0,
            3 => -719_528 + i32::from(input.byte()),
            _ => 19_000 + i32::from(input.byte()),
        }),
        DataType::Utf8 => Scalar::Utf8(string(input)),
        DataType::Bool => Scalar::Bool(pick % 2 == 1),
    }
}

/// A value of a type other than `data_type` (Decimal of another scale included).
fn mismatched(input: &mut Input, data_type: DataType) -> Scalar {
    match data_type {
        DataType::Decimal { scale } => Scalar::Decimal {
            unscaled: 1,
            scale: scale.wrapping_add(1),
        },
        DataType::UInt64 => Scalar::Int64(i64::from(input.byte())),
        _ => Scalar::UInt64(u64::from(input.byte())),
    }
}

/// The column's values: a few shapes (free, runs, few distinct, near one base) over values
/// from the input, with nulls when asked.
fn values(input: &mut Input, data_type: DataType) -> Vec<Scalar> {
    let shape = input.byte();
    let len = match shape >> 5 {
        0 => 0,
        1..=5 => input.below(64),
        6 => input.below(600),
        _ => 1000 + input.below(1200),
    };
    let null_rate = match (shape >> 2) % 8 {
        0..=3 => 0,
        4 => 255,
        other => other * 30,
    };
    let pool: Vec<Scalar> = (0..1 + input.byte() % 6)
        .map(|_| value(input, data_type))
        .collect();
    let mut out = Vec::with_capacity(len);
    let mut run_left = 0usize;
    let mut current = pool[0].clone();
    for _ in 0..len {
        let v = match shape % 4 {
            // Free values while the input lasts, then the pool.
            0 if !input.exhausted() => value(input, data_type),
            // Runs of pool values.
            1 => {
                if run_left == 0 {
                    current = pool[input.below(pool.len())].clone();
                    run_left = 1 + input.below(300);
                }
                run_left -= 1;
                current.clone()
            }
            _ => pool[input.below(pool.len())].clone(),
        };
        let null = null_rate > 0 && input.byte() < null_rate;
        out.push(if null { Scalar::Null } else { v });
    }
    out
}

/// Total order of two non-null values of one type (doubles by IEEE total order).
fn order(a: &Scalar, b: &Scalar) -> Ordering {
    match (a, b) {
        (Scalar::UInt64(a), Scalar::UInt64(b)) => a.cmp(b),
        (Scalar::Int64(a), Scalar::Int64(b)) => a.cmp(b),
        (Scalar::Float64(a), Scalar::Float64(b)) => a.total_cmp(b),
        (Scalar::Decimal { unscaled: a, .. }, Scalar::Decimal { unscaled: b, .. }) => a.cmp(b),
        (Scalar::Date32(a), Scalar::Date32(b)) => a.cmp(b),
        (Scalar::Utf8(a), Scalar::Utf8(b)) => a.cmp(b),
        (Scalar::Bool(a), Scalar::Bool(b)) => a.cmp(b),
        other => panic!("compared values of two types: {other:?}"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum LikeToken {
    Any,
    One,
    Char(char),
}

/// SQL LIKE, evaluated independently of the crate (`None`: a malformed pattern).
fn like_tokens(pattern: &str) -> Option<Vec<LikeToken>> {
    let mut tokens = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        tokens.push(match c {
            '%' => LikeToken::Any,
            '_' => LikeToken::One,
            '\\' => LikeToken::Char(chars.next()?),
            c => LikeToken::Char(c),
        });
    }
    Some(tokens)
}

fn like(tokens: &[LikeToken], text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    // matched[i][j]: the first i tokens match the first j characters.
    let mut row = vec![false; text.len() + 1];
    row[0] = true;
    for token in tokens {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            next[j] = match token {
                LikeToken::Any => row[j] || (j > 0 && next[j - 1]),
                LikeToken::One => j > 0 && row[j - 1],
                LikeToken::Char(c) => j > 0 && row[j - 1] && text[j - 1] == *c,
            };
        }
        row = next;
    }
    row[text.len()]
}

/// What plain evaluation says a filter must give: rows, or a refusal of a kind.
#[derive(Debug)]
enum Plan {
    Rows(Vec<usize>),
    Refused(&'static str),
}

fn plain_filter(predicate: &Predicate, data_type: DataType, rows: &[Scalar]) -> Plan {
    let typed = |v: &Scalar| v.is_null() || v.data_type() == Some(data_type);
    let constants: Vec<&Scalar> = match predicate {
        Predicate::Eq(v) => vec![v],
        Predicate::In(list) => list.iter().collect(),
        Predicate::Range { lo, hi } => [lo, hi]
            .into_iter()
            .filter_map(|b| match b {
                Bound::Included(v) | Bound::Excluded(v) => Some(v),
                Bound::Unbounded => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    if !constants.iter().all(|v| typed(v)) {
        return Plan::Refused("type mismatch");
    }
    let is_text = data_type == DataType::Utf8;
    let pattern = match predicate {
        Predicate::Prefix(_) | Predicate::Like(_) if !is_text => {
            return Plan::Refused("unsupported")
        }
        Predicate::Like(pattern) => match like_tokens(pattern) {
            Some(tokens) => Some(tokens),
            None => return Plan::Refused("invalid pattern"),
        },
        _ => None,
    };
    let passes = |v: &Scalar| -> bool {
        if v.is_null() {
            return matches!(predicate, Predicate::IsNull);
        }
        match predicate {
            Predicate::IsNull => false,
            Predicate::IsNotNull => true,
            Predicate::Eq(c) => !c.is_null() && order(v, c) == Ordering::Equal,
            Predicate::In(list) => list
                .iter()
                .any(|c| !c.is_null() && order(v, c) == Ordering::Equal),
            Predicate::Range { lo, hi } => {
                let above = match lo {
                    Bound::Included(c) => !c.is_null() && order(v, c).is_ge(),
                    Bound::Excluded(c) => !c.is_null() && order(v, c).is_gt(),
                    Bound::Unbounded => true,
                };
                let below = match hi {
                    Bound::Included(c) => !c.is_null() && order(v, c).is_le(),
                    Bound::Excluded(c) => !c.is_null() && order(v, c).is_lt(),
                    Bound::Unbounded => true,
                };
                above && below
            }
            Predicate::Prefix(prefix) => {
                matches!(v, Scalar::Utf8(s) if s.starts_with(prefix.as_str()))
            }
            Predicate::Like(_) => {
                matches!(v, Scalar::Utf8(s) if like(pattern.as_deref().unwrap_or(&[]), s))
            }
        }
    };
    Plan::Rows(
        rows.iter()
            .enumerate()
            .filter(|(_, v)| passes(v))
            .map(|(i, _)| i)
            .collect(),
    )
}

/// A constant for a predicate: mostly a value of the column, sometimes a fresh one, a null or
/// one of the wrong type.
fn constant(input: &mut Input, data_type: DataType, rows: &[Scalar]) -> Scalar {
    match input.byte() % 16 {
        0 => Scalar::Null,
        1 => mismatched(input, data_type),
        2..=6 => value(input, data_type),
        _ if rows.is_empty() => value(input, data_type),
        _ => rows[input.below(rows.len())].clone(),
    }
}

fn bound(input: &mut Input, data_type: DataType, rows: &[Scalar]) -> Bound<Scalar> {
    match input.byte() % 3 {
        0 => Bound::Unbounded,
        1 => Bound::Included(constant(input, data_type, rows)),
        _ => Bound::Excluded(constant(input, data_type, rows)),
    }
}

fn predicate(input: &mut Input, data_type: DataType, rows: &[Scalar]) -> Predicate {
    match input.byte() % 8 {
        0 => Predicate::Eq(constant(input, data_type, rows)),
        1 | 2 => Predicate::Range {
            lo: bound(input, data_type, rows),
            hi: bound(input, data_type, rows),
        },
        3 => Predicate::In(
            (0..input.byte() % 6)
                .map(|_| constant(input, data_type, rows))
                .collect(),
        ),
        4 => match rows.get(input.below(rows.len().max(1))) {
            Some(Scalar::Utf8(s)) if input.byte() % 2 == 0 => {
                let cut = s.chars().take(input.below(4)).collect::<String>();
                Predicate::Prefix(cut)
            }
            _ => Predicate::Prefix(string(input)),
        },
        5 => Predicate::Like(
            (0..input.byte() % 5)
                .map(|_| LIKE_PIECES[input.below(LIKE_PIECES.len())])
                .collect(),
        ),
        6 => Predicate::IsNull,
        _ => Predicate::IsNotNull,
    }
}

/// The stored value of each row: nulls hold the smallest valid value (what run counts see).
fn stored(rows: &[Scalar]) -> Vec<Scalar> {
    let fill = rows
        .iter()
        .filter(|v| !v.is_null())
        .min_by(|a, b| order(a, b))
        .cloned();
    rows.iter()
        .map(|v| match (v, &fill) {
            (Scalar::Null, Some(fill)) => fill.clone(),
            _ => v.clone(),
        })
        .collect()
}

fn check_canonical(canonical: &Canonical, expected: &[&Scalar], what: &str) {
    assert_eq!(canonical.len(), expected.len(), "{what}: length");
    let has_nulls = expected.iter().any(|v| v.is_null());
    if let Some(validity) = &canonical.validity {
        assert_eq!(validity.len(), expected.len(), "{what}: validity length");
    }
    for (i, want) in expected.iter().enumerate() {
        let valid = canonical.validity.as_ref().is_none_or(|v| v[i]);
        assert_eq!(valid, !want.is_null(), "{what}: validity of row {i}");
        if valid {
            assert_eq!(
                canonical.values.scalar(i).as_ref(),
                Some(*want),
                "{what}: row {i}"
            );
        }
    }
    if !has_nulls && canonical.validity.is_some() {
        assert!(canonical.validity.as_ref().unwrap().iter().all(|&v| v));
    }
}

fn expected_sum(data_type: DataType, rows: &[Scalar]) -> Option<Sum> {
    let valid = rows.iter().filter(|v| !v.is_null());
    Some(match data_type {
        DataType::UInt64 => Sum::UInt(
            valid
                .map(|v| match v {
                    Scalar::UInt64(v) => u128::from(*v),
                    _ => unreachable!(),
                })
                .sum(),
        ),
        DataType::Bool => {
            Sum::UInt(valid.filter(|v| matches!(v, Scalar::Bool(true))).count() as u128)
        }
        DataType::Int64 => Sum::Int(
            valid
                .map(|v| match v {
                    Scalar::Int64(v) => i128::from(*v),
                    _ => unreachable!(),
                })
                .sum(),
        ),
        DataType::Decimal { scale } => Sum::Decimal {
            unscaled: valid
                .map(|v| match v {
                    Scalar::Decimal { unscaled, .. } => i128::from(*unscaled),
                    _ => unreachable!(),
                })
                .sum(),
            scale,
        },
        DataType::Float64 => Sum::Float(valid.fold(0.0, |total, v| match v {
            Scalar::Float64(v) => total + v,
            _ => unreachable!(),
        })),
        DataType::Date32 | DataType::Utf8 => return None,
    })
}

fn same_sum(a: &Sum, b: &Sum) -> bool {
    match (a, b) {
        (Sum::Float(a), Sum::Float(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
        _ => a == b,
    }
}

/// Whether a forced `kind` must build (else it must be refused as not applicable).
fn must_build(data_type: DataType, kind: EncodingKind, rows: &[Scalar]) -> bool {
    let all_equal = stored(rows).windows(2).all(|w| w[0] == w[1]);
    match (data_type, kind) {
        (DataType::Utf8, EncodingKind::Dictionary | EncodingKind::Fsst) => true,
        (DataType::Utf8, _) => false,
        (_, EncodingKind::Fsst) => false,
        (DataType::Float64, EncodingKind::Alp) => true,
        (_, EncodingKind::Alp) => false,
        (_, EncodingKind::Constant) => all_equal,
        // Nulls are only left in an all-null column, whose stored keys are all equal.
        (_, EncodingKind::Delta) => stored(rows).windows(2).all(|w| {
            w[0].is_null() || w[1].is_null() || order(&w[0], &w[1]) != std::cmp::Ordering::Greater
        }),
        _ => true,
    }
}

fn build(data_type: DataType, rows: &[Scalar], options: &ColumnOptions, typed: bool) -> Column {
    let no_nulls = rows.iter().all(|v| !v.is_null());
    let result = if typed && no_nulls {
        macro_rules! collect {
            ($variant:ident) => {
                rows.iter()
                    .map(|v| match v {
                        Scalar::$variant(v) => v.clone(),
                        _ => unreachable!(),
                    })
                    .collect::<Vec<_>>()
            };
        }
        match data_type {
            DataType::UInt64 => Column::from_u64(&collect!(UInt64), options),
            DataType::Int64 => Column::from_i64(&collect!(Int64), options),
            DataType::Float64 => Column::from_f64(&collect!(Float64), options),
            DataType::Date32 => Column::from_dates(&collect!(Date32), options),
            DataType::Utf8 => Column::from_strs(&collect!(Utf8), options),
            DataType::Bool => Column::from_bool(&collect!(Bool), options),
            DataType::Decimal { scale } => {
                let unscaled: Vec<i64> = rows
                    .iter()
                    .map(|v| match v {
                        Scalar::Decimal { unscaled, .. } => *unscaled,
                        _ => unreachable!(),
                    })
                    .collect();
                Column::from_decimal(&unscaled, scale, options)
            }
        }
    } else {
        Column::from_scalars(data_type, rows, options)
    };
    match result {
        Ok(column) => column,
        Err(error) => panic!(
            "building {data_type:?} with {:?}: {error}",
            options.encoding
        ),
    }
}

fn check_column(input: &mut Input, column: &Column, data_type: DataType, rows: &[Scalar]) {
    let len = rows.len();
    let what = format!("{data_type:?} as {}", column.encoding_kind());
    assert_eq!(column.len(), len, "{what}: len");
    assert_eq!(column.data_type(), data_type);
    let nulls = rows.iter().filter(|v| v.is_null()).count();
    assert_eq!(column.null_count(), nulls, "{what}: null count");

    // get: every row of a small column, a sample of a large one, and past the end.
    let step = (len / 64).max(1);
    for i in (0..len).step_by(step).chain([len.saturating_sub(1)]) {
        if i < len {
            assert_eq!(column.get(i).unwrap(), rows[i], "{what}: get({i})");
        }
    }
    for i in [len, len + 1, len + 1023, usize::MAX] {
        assert!(
            matches!(column.get(i), Err(EncodingError::IndexOutOfRange { .. })),
            "{what}: get({i}) past {len}"
        );
    }

    // unpack: everything, and ranges from the input (some backwards or past the end).
    let all = column.unpack(0..len).unwrap();
    check_canonical(&all, &rows.iter().collect::<Vec<_>>(), &what);
    for _ in 0..4 {
        let start = input.below(len + 3);
        let end = input.below(len + 3);
        let result = column.unpack(Range { start, end });
        if start <= end && end <= len {
            let want: Vec<&Scalar> = rows[start..end].iter().collect();
            check_canonical(&result.unwrap(), &want, &what);
        } else {
            assert!(
                matches!(result, Err(EncodingError::RangeOutOfBounds { .. })),
                "{what}: unpack({start}..{end}) of {len}"
            );
        }
    }

    // Chunks cover a range once, in order.
    let (start, end) = {
        let a = input.below(len + 1);
        let b = input.below(len + 1);
        (a.min(b), a.max(b))
    };
    let mut next = start;
    column
        .for_each_chunk(start..end, |first, chunk| {
            assert_eq!(first, next, "{what}: chunk order");
            let want: Vec<&Scalar> = rows[first..first + chunk.len()].iter().collect();
            check_canonical(chunk, &want, &what);
            next = first + chunk.len();
        })
        .unwrap();
    assert_eq!(next, end, "{what}: chunks cover {start}..{end}");
    assert!(column.for_each_chunk(0..len + 1, |_, _| {}).is_err());

    // take: indices from the input (repeats, any order), then one past the end.
    let count = input.below(40);
    let mut indices: Vec<usize> = (0..count).map(|_| input.below(len.max(1))).collect();
    if len > 0 {
        let taken = column.take(&indices).unwrap();
        let want: Vec<&Scalar> = indices.iter().map(|&i| &rows[i]).collect();
        check_canonical(&taken, &want, &what);
    }
    indices.push(len + input.below(3));
    assert!(
        matches!(
            column.take(&indices),
            Err(EncodingError::IndexOutOfRange { .. })
        ),
        "{what}: take past the end"
    );

    // sum, min, max, statistics.
    match (column.sum(), expected_sum(data_type, rows)) {
        (Ok(sum), Some(want)) => assert!(same_sum(&sum, &want), "{what}: sum {sum:?} != {want:?}"),
        (Err(EncodingError::Unsupported { .. }), None) => {}
        (got, want) => panic!("{what}: sum {got:?}, expected {want:?}"),
    }
    let valid: Vec<&Scalar> = rows.iter().filter(|v| !v.is_null()).collect();
    let min = valid.iter().copied().min_by(|a, b| order(a, b)).cloned();
    let max = valid.iter().copied().max_by(|a, b| order(a, b)).cloned();
    let min_max = column.min_max().unwrap();
    assert_eq!(min_max, min.clone().zip(max.clone()), "{what}: min/max");
    assert_eq!(column.min().unwrap(), min, "{what}: min");
    assert_eq!(column.max().unwrap(), max, "{what}: max");
    let stats = column.statistics().unwrap();
    assert_eq!(stats.min, min, "{what}: statistics min");
    assert_eq!(stats.max, max, "{what}: statistics max");
    assert_eq!(stats.null_count, nulls, "{what}: statistics nulls");
    let filled = stored(rows);
    let runs = if len == 0 {
        0
    } else {
        1 + filled.windows(2).filter(|w| w[0] != w[1]).count()
    };
    assert_eq!(stats.run_count, runs, "{what}: run count");
    if valid.is_empty() {
        assert_eq!(stats.distinct_estimate, 0, "{what}: distinct of no values");
    } else {
        assert!(stats.distinct_estimate >= 1, "{what}: distinct estimate");
    }

    // Filters in code space against plain evaluation.
    for _ in 0..8 {
        let predicate = predicate(input, data_type, rows);
        let result = column.filter(&predicate);
        match (result, plain_filter(&predicate, data_type, rows)) {
            (Ok(selection), Plan::Rows(want)) => {
                assert_eq!(selection.rows(), len, "{what}: selection length");
                assert_eq!(selection.count(), want.len(), "{what}: {predicate:?} count");
                assert_eq!(selection.row_ids(), want, "{what}: {predicate:?}");
            }
            (Err(EncodingError::TypeMismatch { .. }), Plan::Refused("type mismatch"))
            | (Err(EncodingError::Unsupported { .. }), Plan::Refused("unsupported"))
            | (Err(EncodingError::InvalidPattern { .. }), Plan::Refused("invalid pattern")) => {}
            (got, want) => panic!("{what}: {predicate:?} gave {got:?}, expected {want:?}"),
        }
    }

    // Reports never fail on an ordinary machine, and name every part.
    let report = column.memory_report();
    let _ = report.to_string();
    let _ = column.explanation().to_string();
    let _ = column.packed_bytes();
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let data_type = data_type(&mut input);
    let rows = values(&mut input, data_type);
    let placement = match input.byte() % 4 {
        0 => Placement::Replicated,
        1 => Placement::Interleaved(vec![]),
        _ => Placement::OsDefault,
    };
    let two_nodes = input.byte() % 2 == 0;
    let array = ArrayOptions::new()
        .placement(placement)
        .runtime(runtime(two_nodes));
    let typed = input.byte() % 2 == 0;

    if let DataType::Decimal { scale } = data_type {
        if scale > 18 {
            let refused = Column::from_scalars(data_type, &rows, &ColumnOptions::new());
            assert!(
                matches!(refused, Err(EncodingError::Decimal { .. })),
                "scale {scale}"
            );
            let refused = Column::from_decimal(&[1], scale, &ColumnOptions::new());
            assert!(
                matches!(refused, Err(EncodingError::Decimal { .. })),
                "scale {scale}"
            );
            return;
        }
    }

    // The compressor's choice (sometimes measuring every candidate), then every encoding forced.
    let chosen = ColumnOptions::new()
        .array(array.clone())
        .measure_all(input.byte() % 4 == 0);
    let column = build(data_type, &rows, &chosen, typed);
    check_column(&mut input, &column, data_type, &rows);
    for kind in [
        EncodingKind::BitPacked,
        EncodingKind::Frame,
        EncodingKind::Dictionary,
        EncodingKind::RunEnd,
        EncodingKind::Delta,
        EncodingKind::Constant,
        EncodingKind::Alp,
        EncodingKind::Fsst,
    ] {
        let options = ColumnOptions::new().array(array.clone()).encoding(kind);
        if must_build(data_type, kind, &rows) {
            let column = build(data_type, &rows, &options, typed);
            assert_eq!(column.encoding_kind(), kind);
            check_column(&mut input, &column, data_type, &rows);
        } else {
            let refused = Column::from_scalars(data_type, &rows, &options);
            assert!(
                matches!(refused, Err(EncodingError::EncodingNotApplicable { .. })),
                "{data_type:?} as {kind}: {refused:?}"
            );
        }
    }
});
