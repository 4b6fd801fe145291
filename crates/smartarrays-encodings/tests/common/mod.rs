//! Shared checks: a column against a plain `Vec<Scalar>` reference, every operation.

#![allow(dead_code)]

use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::{Arc, OnceLock};

use smartarrays::{ArrayOptions, Runtime, Topology};
use smartarrays_encodings::{Column, DataType, Predicate, Scalar, Sum, Values};

/// A runtime on a described two-node machine, so replicated columns really have two replicas.
pub fn two_node_runtime() -> Arc<Runtime> {
    static RUNTIME: OnceLock<Arc<Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let topology = Arc::new(Topology::uniform(2, 2, 8 << 30).unwrap());
            Arc::new(Runtime::on_described(topology, 2).unwrap())
        })
        .clone()
}

pub fn two_node_options() -> ArrayOptions {
    ArrayOptions::new().runtime(two_node_runtime())
}

pub fn order(a: &Scalar, b: &Scalar) -> Ordering {
    match (a, b) {
        (Scalar::UInt64(a), Scalar::UInt64(b)) => a.cmp(b),
        (Scalar::Int64(a), Scalar::Int64(b)) => a.cmp(b),
        (Scalar::Float64(a), Scalar::Float64(b)) => a.total_cmp(b),
        (Scalar::Decimal { unscaled: a, .. }, Scalar::Decimal { unscaled: b, .. }) => a.cmp(b),
        (Scalar::Date32(a), Scalar::Date32(b)) => a.cmp(b),
        (Scalar::Utf8(a), Scalar::Utf8(b)) => a.cmp(b),
        (Scalar::Bool(a), Scalar::Bool(b)) => a.cmp(b),
        (a, b) => panic!("cannot order {a:?} and {b:?}"),
    }
}

/// The sum a column of `data_type` holding `expected` must report (`None`: unsupported).
pub fn reference_sum(data_type: DataType, expected: &[Scalar]) -> Option<Sum> {
    let valid = expected.iter().filter(|v| !v.is_null());
    Some(match data_type {
        DataType::UInt64 => Sum::UInt(
            valid
                .map(|v| match v {
                    Scalar::UInt64(v) => *v as u128,
                    _ => unreachable!(),
                })
                .sum(),
        ),
        DataType::Bool => Sum::UInt(valid.filter(|v| **v == Scalar::Bool(true)).count() as u128),
        DataType::Int64 => Sum::Int(
            valid
                .map(|v| match v {
                    Scalar::Int64(v) => *v as i128,
                    _ => unreachable!(),
                })
                .sum(),
        ),
        DataType::Decimal { scale } => Sum::Decimal {
            unscaled: valid
                .map(|v| match v {
                    Scalar::Decimal { unscaled, .. } => *unscaled as i128,
                    _ => unreachable!(),
                })
                .sum(),
            scale,
        },
        DataType::Float64 => Sum::Float(
            valid
                .map(|v| match v {
                    Scalar::Float64(v) => *v,
                    _ => unreachable!(),
                })
                .fold(0.0, |a, b| a + b),
        ),
        DataType::Date32 | DataType::Utf8 => return None,
    })
}

/// Predicates built from the reference's own values (so they select something), plus the
/// null tests.
pub fn predicates_for(expected: &[Scalar]) -> Vec<Predicate> {
    let mut valid: Vec<Scalar> = expected.iter().filter(|v| !v.is_null()).cloned().collect();
    let mut out = vec![Predicate::IsNull, Predicate::IsNotNull];
    if valid.is_empty() {
        return out;
    }
    let first = valid[0].clone();
    let middle = valid[valid.len() / 2].clone();
    let last = valid[valid.len() - 1].clone();
    valid.sort_by(order);
    let (lo, hi) = (
        valid[valid.len() / 4].clone(),
        valid[valid.len() * 3 / 4].clone(),
    );
    out.extend([
        Predicate::Eq(first.clone()),
        Predicate::Eq(middle.clone()),
        Predicate::Eq(Scalar::Null),
        Predicate::between(lo.clone(), hi.clone()),
        Predicate::between(hi.clone(), lo.clone()),
        Predicate::Range {
            lo: Bound::Excluded(lo.clone()),
            hi: Bound::Excluded(hi.clone()),
        },
        Predicate::Range {
            lo: Bound::Unbounded,
            hi: Bound::Included(middle.clone()),
        },
        Predicate::Range {
            lo: Bound::Excluded(middle.clone()),
            hi: Bound::Unbounded,
        },
        Predicate::Range {
            lo: Bound::Unbounded,
            hi: Bound::Unbounded,
        },
        Predicate::In(vec![first, middle, last, Scalar::Null]),
        Predicate::In(valid.iter().step_by(3).take(40).cloned().collect()),
        Predicate::In(Vec::new()),
    ]);
    out
}

fn scalars_of(values: &Values, validity: &Option<Vec<bool>>) -> Vec<Scalar> {
    (0..values.len())
        .map(|i| match validity {
            Some(valid) if !valid[i] => Scalar::Null,
            _ => values.scalar(i).unwrap(),
        })
        .collect()
}

/// Checks every operation of `column` against `expected`.
pub fn check(column: &Column, expected: &[Scalar], context: &str) {
    let n = expected.len();
    assert_eq!(column.len(), n, "{context}: len");
    for (i, value) in expected.iter().enumerate() {
        assert_eq!(&column.get(i).unwrap(), value, "{context}: get({i})");
    }
    assert!(column.get(n).is_err(), "{context}: get past the end");
    let all = column.unpack(0..n).unwrap();
    assert_eq!(
        scalars_of(&all.values, &all.validity),
        expected,
        "{context}: unpack"
    );
    if n > 2 {
        let part = column.unpack(1..n - 1).unwrap();
        assert_eq!(
            scalars_of(&part.values, &part.validity),
            &expected[1..n - 1],
            "{context}: unpack part"
        );
    }
    assert!(
        column.unpack(0..n + 1).is_err(),
        "{context}: unpack past the end"
    );
    let mut visited = Vec::new();
    column
        .for_each_chunk(0..n, |first, rows| {
            assert_eq!(first, visited.len());
            visited.extend(scalars_of(&rows.values, &rows.validity));
        })
        .unwrap();
    assert_eq!(visited, expected, "{context}: chunks");
    let indices: Vec<usize> = (0..n).rev().step_by(7).chain((0..n).step_by(5)).collect();
    let taken = column.take(&indices).unwrap();
    let want: Vec<Scalar> = indices.iter().map(|&i| expected[i].clone()).collect();
    assert_eq!(
        scalars_of(&taken.values, &taken.validity),
        want,
        "{context}: take"
    );
    assert!(column.take(&[n]).is_err(), "{context}: take past the end");

    let mut valid: Vec<Scalar> = expected.iter().filter(|v| !v.is_null()).cloned().collect();
    valid.sort_by(order);
    let stats = column.statistics().unwrap();
    assert_eq!(stats.min, valid.first().cloned(), "{context}: min");
    assert_eq!(stats.max, valid.last().cloned(), "{context}: max");
    assert_eq!(stats.null_count, n - valid.len(), "{context}: nulls");
    let mut distinct = valid.clone();
    distinct.dedup_by(|a, b| order(a, b) == Ordering::Equal);
    if distinct.len() < 1000 {
        assert_eq!(
            stats.distinct_estimate,
            distinct.len() as u64,
            "{context}: distinct"
        );
    }
    if stats.null_count == 0 {
        let runs = expected.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(n > 0);
        assert_eq!(stats.run_count, runs, "{context}: runs");
    }
    match (column.sum(), reference_sum(column.data_type(), expected)) {
        (Ok(Sum::Float(got)), Some(Sum::Float(want))) => {
            assert!(
                got.to_bits() == want.to_bits()
                    || (got.is_nan() && want.is_nan())
                    || (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{context}: sum {got} vs {want}"
            )
        }
        (Ok(got), Some(want)) => assert_eq!(got, want, "{context}: sum"),
        (Err(_), None) => {}
        (got, want) => panic!("{context}: sum {got:?}, expected {want:?}"),
    }
    for predicate in predicates_for(expected) {
        let selection = column.filter(&predicate).unwrap();
        let want: Vec<usize> = (0..n)
            .filter(|&i| predicate.matches(&expected[i]).unwrap())
            .collect();
        assert_eq!(selection.row_ids(), want, "{context}: filter {predicate:?}");
    }
}
