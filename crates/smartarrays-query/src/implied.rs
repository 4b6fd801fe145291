//! Filters implied by a disjunction: from `(a1 and b1) or (a2 and b2)`, where `a1` and `a2`
//! test one column `x` and `b1`, `b2` other columns or tables, the filter `a1 or a2` on `x`
//! alone follows (every row that passes the disjunction passes it). TPC-H Q7's
//! `(n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY') or (n1.n_name = 'GERMANY' and n2.n_name =
//! 'FRANCE')` implies `n1.n_name in ('FRANCE', 'GERMANY')` and the same of `n2`, so both nation
//! builds keep two rows and the probes above them drop most rows early, while the disjunction
//! itself still runs where both tables are joined.
//!
//! The planner uses an implied filter only where it becomes a test on one column's codes
//! ([`loose`]); such a test may keep more codes than the filter does (the union of two ranges
//! is their hull), which is safe because the disjunction runs as well.

use crate::bind::BExpr;

/// For every `OR` among `conjuncts` that reads two or more columns, the filters it implies on
/// single columns: `(table, column, filter)`, where `filter` reads only that column.
pub(crate) fn implied_filters(conjuncts: &[BExpr]) -> Vec<(usize, usize, BExpr)> {
    let mut out = Vec::new();
    for c in conjuncts {
        let BExpr::Or(disjuncts) = c else {
            continue;
        };
        let mut columns = Vec::new();
        c.columns(&mut columns);
        if columns.len() < 2 || disjuncts.len() < 2 {
            continue;
        }
        // Each disjunct's conjuncts that read one column only, by that column.
        let parts: Vec<Vec<(usize, usize, BExpr)>> = disjuncts
            .iter()
            .map(|d| {
                let mut list = Vec::new();
                flatten_and(d, &mut list);
                list.into_iter()
                    .filter_map(|p| {
                        let mut used = Vec::new();
                        p.columns(&mut used);
                        match used[..] {
                            [(t, col)] => Some((t, col, (*p).clone())),
                            _ => None,
                        }
                    })
                    .collect()
            })
            .collect();
        for &(t, col) in &columns {
            let mut terms = Vec::with_capacity(disjuncts.len());
            for list in &parts {
                let mine: Vec<BExpr> = list
                    .iter()
                    .filter(|(pt, pc, _)| (*pt, *pc) == (t, col))
                    .map(|(_, _, e)| e.clone())
                    .collect();
                match mine.len() {
                    0 => break,
                    1 => terms.extend(mine),
                    _ => terms.push(BExpr::And(mine)),
                }
            }
            if terms.len() == disjuncts.len() {
                out.push((t, col, BExpr::Or(terms)));
            }
        }
    }
    out
}

fn flatten_and<'e>(e: &'e BExpr, out: &mut Vec<&'e BExpr>) {
    match e {
        BExpr::And(list) => list.iter().for_each(|x| flatten_and(x, out)),
        other => out.push(other),
    }
}

/// A test on one column's codes, combined as sets: [`Loose::union`] and [`Loose::intersect`]
/// may keep more codes than the exact combination, never fewer.
pub(crate) trait Loose: Sized {
    /// A test keeping the codes of both (or more); `None`: no test short of all codes.
    fn union(self, other: Self) -> Option<Self>;
    /// A test keeping the codes kept by both (or more).
    fn intersect(self, other: Self) -> Self;
}

/// The code-space test of `e`, an expression on one column, that keeps every code of a value
/// `e` holds for (and maybe more): `leaf` gives the exact test of a comparison, `None` where
/// it has none. `And` keeps the tests of the parts that have one; `Or` needs a test of every
/// part. `None`: no test short of all codes.
pub(crate) fn loose<T: Loose>(e: &BExpr, leaf: &dyn Fn(&BExpr) -> Option<T>) -> Option<T> {
    match e {
        BExpr::Or(list) => {
            let mut tests = list.iter().map(|x| loose(x, leaf));
            let first = tests.next()??;
            tests.try_fold(first, |acc, t| acc.union(t?))
        }
        BExpr::And(list) => list
            .iter()
            .filter_map(|x| loose(x, leaf))
            .reduce(|a, t| a.intersect(t)),
        other => leaf(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bind::Cmp;
    use crate::value::{Type, Value};

    fn col(table: usize, column: usize) -> BExpr {
        BExpr::Column {
            table,
            column,
            ty: Type::Int,
        }
    }

    fn eq(table: usize, column: usize, v: i128) -> BExpr {
        BExpr::Compare(
            Cmp::Eq,
            Box::new(col(table, column)),
            Box::new(BExpr::Literal(Value::Int(v), Type::Int)),
        )
    }

    /// Inclusive ranges of integers as the test type.
    #[derive(Debug, PartialEq)]
    struct R(i128, i128);

    impl Loose for R {
        fn union(self, o: R) -> Option<R> {
            Some(R(self.0.min(o.0), self.1.max(o.1)))
        }
        fn intersect(self, o: R) -> R {
            R(self.0.max(o.0), self.1.min(o.1))
        }
    }

    fn leaf(e: &BExpr) -> Option<R> {
        match e {
            BExpr::Compare(Cmp::Eq, _, b) => match b.as_ref() {
                BExpr::Literal(Value::Int(v), _) => Some(R(*v, *v)),
                _ => None,
            },
            _ => None,
        }
    }

    #[test]
    fn a_disjunction_over_two_tables_implies_a_filter_on_each() {
        let or = BExpr::Or(vec![
            BExpr::And(vec![eq(0, 1, 10), eq(1, 1, 20)]),
            BExpr::And(vec![eq(0, 1, 20), eq(1, 1, 10)]),
        ]);
        let implied = implied_filters(&[or]);
        assert_eq!(implied.len(), 2);
        assert_eq!((implied[0].0, implied[0].1), (0, 1));
        assert_eq!((implied[1].0, implied[1].1), (1, 1));
        assert_eq!(loose(&implied[0].2, &leaf), Some(R(10, 20)));
    }

    #[test]
    fn a_column_missing_from_one_disjunct_implies_nothing() {
        let or = BExpr::Or(vec![
            BExpr::And(vec![eq(0, 1, 10), eq(1, 1, 20)]),
            eq(1, 1, 30),
        ]);
        let implied = implied_filters(&[or]);
        assert_eq!(implied.len(), 1);
        assert_eq!((implied[0].0, implied[0].1), (1, 1));
        assert_eq!(loose(&implied[0].2, &leaf), Some(R(20, 30)));
        // One column only: nothing new (the disjunction is its own filter).
        assert!(implied_filters(&[BExpr::Or(vec![eq(0, 1, 1), eq(0, 1, 2)])]).is_empty());
        // A conjunction is no disjunction.
        assert!(implied_filters(&[BExpr::And(vec![eq(0, 1, 1), eq(1, 1, 2)])]).is_empty());
    }

    #[test]
    fn loose_tests_keep_parts_with_a_test_and_need_one_in_every_disjunct() {
        let other = BExpr::Compare(Cmp::Lt, Box::new(col(0, 1)), Box::new(col(0, 1)));
        // And: the part without a test is dropped (a superset).
        assert_eq!(
            loose(&BExpr::And(vec![eq(0, 1, 5), other.clone()]), &leaf),
            Some(R(5, 5))
        );
        // Or: a part without a test means no test at all.
        assert_eq!(
            loose(&BExpr::Or(vec![eq(0, 1, 5), other.clone()]), &leaf),
            None
        );
        assert_eq!(loose(&BExpr::And(vec![other]), &leaf), None);
        assert_eq!(
            loose(
                &BExpr::Or(vec![eq(0, 1, 5), eq(0, 1, 9), eq(0, 1, 7)]),
                &leaf
            ),
            Some(R(5, 9))
        );
    }
}
