//! The keys of a grouped query as a [`KeySet`], straight from its scan: a query `select k
//! from .. where .. group by k` (what a correlated `[NOT] EXISTS` becomes, the subquery of an
//! `IN`) has no aggregates, so each worker only sets the bit of every surviving row's key in a
//! bitmap over the key's range, and the workers' bitmaps are OR-ed. No groups, no hash table,
//! no result rows. Likewise the groups `(k, min(v), max(v))` of a correlated `EXISTS` with an
//! inequality become a [`KeyRanges`] straight from the scan.

use std::sync::Arc;

use smartarrays::Runtime;

use super::{run_builds, run_pipeline, scalar_i64, AggPlan, HashSink, Plan, SlotKind, VExpr};
use crate::bind::{AggCall, AggFunc, BExpr};
use crate::budget::Budget;
use crate::codes::SharedCodes;
use crate::error::Result;
use crate::keyset::KeySet;
use crate::value::Type;
use crate::vector::KeyRanges;

/// The bitmap takes at most this many bits per scanned row (else the grouped path runs).
const BITS_PER_ROW: u64 = 64;
/// Ranges of at most this many bits are always taken (128 KiB per worker).
const SMALL_RANGE_BITS: u32 = 20;

/// A packed grouping key of the hash sink: `(key, minimum, bits)`.
type PackedKey = (VExpr, i64, u32);

impl Plan<'_> {
    /// The hash aggregation's one packed key `(key, minimum, bits)` and its aggregates, when
    /// the plan groups on that one integer key of type `ty` alone (no carried keys, not packed
    /// with its sign) and has no HAVING, ORDER BY or LIMIT.
    fn one_int_key(&self, ty: Type) -> Option<(&PackedKey, &[AggPlan])> {
        let HashSink {
            packed,
            carried,
            aggs,
            key_kinds,
            single_signed,
            ..
        } = self.hash_sink()?;
        let q = &self.query;
        let one = packed.len() == 1
            && carried.is_empty()
            && !*single_signed
            && matches!(&key_kinds[..], [SlotKind::Int(t)] if *t == ty)
            && q.having.is_none()
            && q.order_by.is_empty()
            && q.limit.is_none();
        one.then(|| (&packed[0], aggs.as_slice()))
    }

    /// The query's keys as a set, when it is `select k .. group by k` on one integer, decimal
    /// or date key whose range is small enough for a bitmap per worker, with no HAVING, ORDER
    /// BY or LIMIT; `None` otherwise (then the caller runs it another way).
    pub(crate) fn run_key_set(
        &self,
        runtime: &Arc<Runtime>,
        budget: &Budget,
    ) -> Result<Option<(Type, KeySet)>> {
        let ty = match self.query.outputs.as_slice() {
            [(_, BExpr::Key(0, ty))] if ty.is_exact() || *ty == Type::Date => *ty,
            _ => return Ok(None),
        };
        let Some(((key, min, bits), [])) = self.one_int_key(ty) else {
            return Ok(None);
        };
        let (min, bits) = (*min, *bits);
        let rows = self.root.rows as u64;
        if bits >= 40 || (bits > SMALL_RANGE_BITS && (1u64 << bits) > BITS_PER_ROW * rows) {
            return Ok(None);
        }
        let range = 1u64 << bits;
        let words = range.div_ceil(64) as usize;
        let budget = budget.scope();
        let builds = run_builds(&self.root, runtime, &budget)?;
        let operator = || format!("the key bitmap of {bits} bits per worker (a semi join)");
        let bitmap = run_pipeline(
            &self.root,
            &builds,
            runtime,
            || (Vec::<u64>::new(), Vec::<i64>::new()),
            |(bitmap, values), batch| {
                if bitmap.is_empty() {
                    budget.reserve(&operator, words * 8)?;
                    bitmap.resize(words, 0);
                }
                key.eval(batch, values)?;
                for &v in values.iter() {
                    // Every key lies in its packed range: `v - min < 2^bits`.
                    let at = (v as u64).wrapping_sub(min as u64);
                    bitmap[(at >> 6) as usize] |= 1 << (at & 63);
                }
                Ok(())
            },
            |(mut a, x), (b, _)| {
                if a.is_empty() {
                    return Ok((b, x));
                }
                for (w, o) in a.iter_mut().zip(&b) {
                    *w |= o;
                }
                Ok((a, x))
            },
        )?
        .0;
        let set = if bitmap.is_empty() {
            KeySet::from_keys(&[])
        } else {
            KeySet::from_bitmap(min, range, bitmap)
        };
        Ok(Some((ty, set)))
    }
}

/// Key bits up to which [`Plan::run_key_ranges`] keeps one entry per key of the range.
const RANGE_KEY_BITS: u32 = 28;

impl Plan<'_> {
    /// The groups of `select k, min(v), max(v) .. group by k` as a [`KeyRanges`] (what a
    /// correlated `EXISTS` with an inequality becomes, Q21), straight from the scan: the
    /// workers keep, per key of the key's range, a 32-bit code of the values seen (0: none
    /// yet, 1: several, else `v - min(v) + 2`) in one array they share (see `codes`), so
    /// nothing is combined after the scan. `None` when the query has another shape, the key range is sparse or the value's
    /// range does not fit the codes.
    pub(crate) fn run_key_ranges(
        &self,
        runtime: &Arc<Runtime>,
        budget: &Budget,
    ) -> Result<Option<(Vec<Type>, KeyRanges)>> {
        let q = &self.query;
        let integral = |t: Type| t.is_exact() || t == Type::Date;
        let (kty, vty) = match q.outputs.as_slice() {
            [(_, BExpr::Key(0, k)), (_, BExpr::Agg(0, a)), (_, BExpr::Agg(1, b))]
                if integral(*k) && integral(*a) && a == b =>
            {
                (*k, *a)
            }
            _ => return Ok(None),
        };
        let value_column = match q.aggregates.as_slice() {
            [AggCall {
                func: AggFunc::Min,
                arg: Some(a @ BExpr::Column { table, column, .. }),
                ..
            }, AggCall {
                func: AggFunc::Max,
                arg: Some(b),
                ..
            }] if a == b && a.ty() == vty => &q.tables[*table].table.columns()[*column].column,
            _ => return Ok(None),
        };
        let Some(((key, kmin, bits), aggs @ [_, _])) = self.one_int_key(kty) else {
            return Ok(None);
        };
        let (kmin, bits) = (*kmin, *bits);
        let rows = self.root.rows as u64;
        if bits > RANGE_KEY_BITS || (bits > SMALL_RANGE_BITS && (1u64 << bits) > 4 * rows) {
            return Ok(None);
        }
        let (vmin, vmax) = match value_column.min_max()? {
            Some((lo, hi)) => match (scalar_i64(&lo), scalar_i64(&hi)) {
                (Some(lo), Some(hi)) => (lo, hi),
                _ => return Ok(None),
            },
            None => (0, 0),
        };
        if i128::from(vmax) - i128::from(vmin) + 2 > i128::from(u32::MAX) {
            return Ok(None);
        }
        let Some(value) = aggs[0].arg.as_ref() else {
            return Ok(None);
        };
        let entries = 1usize << bits;
        let budget = budget.scope();
        let builds = run_builds(&self.root, runtime, &budget)?;
        budget.reserve(
            &|| format!("the value per key of {bits} bits (an EXISTS)"),
            entries * 4,
        )?;
        // One array shared by the workers (see `codes`): nothing to combine after the scan.
        let mut shared = SharedCodes::new(entries, runtime.topology())?;
        let updater = shared.updater(runtime.threads() == 1);
        run_pipeline(
            &self.root,
            &builds,
            runtime,
            || (Vec::<i64>::new(), Vec::<i64>::new()),
            |(keys, values), batch| {
                key.eval(batch, keys)?;
                value.eval(batch, values)?;
                // Every key lies in its packed range and every value in the column's: the
                // index is below `entries`, the code at least 2.
                updater.add(keys.iter().zip(values.iter()).map(|(&k, &v)| {
                    (
                        (k as u64).wrapping_sub(kmin as u64) as usize,
                        (v as u64).wrapping_sub(vmin as u64) as u32 + 2,
                    )
                }));
                Ok(())
            },
            |a, _| Ok(a),
        )?;
        let keys = updater.keys();
        Ok(Some((
            vec![kty, vty, vty],
            KeyRanges::from_codes(kmin, vmin, shared, keys),
        )))
    }
}
