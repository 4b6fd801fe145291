//! The workers' hash aggregation tables merged by hash partitions, in parallel.
//!
//! Each worker's groups are sorted into `P` partitions by a hash of (a function of) their
//! packed keys, the workers' tables in parallel; then each partition merges its groups from
//! all the workers into a table of its own, the partitions in parallel. No key is in two
//! partitions, so the partitions' tables together are the merged groups. Routing on a part
//! of the key (the packed key with one field removed, for
//! [`crate::exec::Plan::run_prefix_counts`]) keeps every group of a key prefix in one
//! partition, so work per prefix can run per partition too ([`count_prefixes`]).

use smartarrays::{ArrayOptions, Runtime};
use smartarrays_collections::Map;

use super::{AggPlan, Groups, HashState};
use crate::budget::Scope;
use crate::error::Result;
use crate::value::Value;

/// Fewer groups than this (all workers together) are merged on one thread: partitioning
/// costs more than it saves.
pub(super) const PARALLEL_MERGE_GROUPS: usize = 1 << 14;

/// A 64-bit finalizer (every bit of the input moves the top bits that pick a partition).
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The partition of `route` value `r` among `1 << bits`.
fn partition_of(r: u64, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        (mix(r) >> (64 - bits)) as usize
    }
}

/// Merges `states` (two or more workers' tables) into one table per hash partition of
/// `route(key)`, in parallel; keys stay in hash maps. Groups and carried keys combine as in
/// [`HashState::absorb`]. The partitions come back in partition order, empty ones left out.
pub(super) fn merge_hashed(
    states: &[HashState],
    aggs: &[AggPlan],
    runtime: &Runtime,
    budget: &Scope<'_>,
    group_bytes: usize,
    same: &(dyn Fn(usize, &Value, &Value) -> Result<bool> + Sync),
    route: &(dyn Fn(u64) -> u64 + Sync),
) -> Result<Vec<HashState>> {
    let groups: usize = states.iter().map(|s| s.keys.len()).sum();
    let bits = (runtime.threads() * 8).next_power_of_two().trailing_zeros();
    let partitions = 1usize << bits;
    budget.reserve(
        &|| format!("the parallel merge of {groups} groups"),
        groups * (4 + group_bytes + 24),
    )?;
    // Per worker table (in parallel), its groups by partition.
    let buckets: Vec<Vec<Vec<u32>>> = per_partition(runtime, states.len(), |w| {
        let mut b = vec![Vec::new(); partitions];
        for (g, &code) in states[w].keys.iter().enumerate() {
            b[partition_of(route(code), bits)].push(g as u32);
        }
        Ok(Some(b))
    })?;
    let widest = states
        .iter()
        .flat_map(|s| s.keys.iter().copied())
        .max()
        .unwrap_or(0);
    per_partition(runtime, partitions, |p| {
        let rows: usize = buckets.iter().map(|b| b[p].len()).sum();
        if rows == 0 {
            return Ok(None);
        }
        // Sized for every group and the widest key at once: no rebuilds.
        let map = Map::with_capacity(rows, widest, rows as u32, &ArrayOptions::new())?;
        let mut into = HashState {
            map,
            direct: None,
            groups: Groups::new(aggs, 0),
            keys: Vec::with_capacity(rows),
            carried: Vec::with_capacity(rows),
            others: Vec::new(),
        };
        for (w, b) in buckets.iter().enumerate() {
            for &g in &b[p] {
                into.absorb(&states[w], g as usize, aggs, same)?;
            }
        }
        Ok(Some(into))
    })
}

/// Runs `work(p)` for every partition `p` of `0..partitions` on the runtime's workers (each
/// worker claims partitions one at a time) and returns their results in partition order,
/// the `None`s left out; the first error (by partition) if any failed.
pub(super) fn per_partition<T: Send>(
    runtime: &Runtime,
    partitions: usize,
    work: impl Fn(usize) -> Result<Option<T>> + Sync,
) -> Result<Vec<T>> {
    let mut done: Vec<(usize, Result<T>)> = runtime.map_reduce(
        0..partitions,
        1,
        Vec::new,
        |mut acc, _worker, range| {
            for p in range {
                match work(p) {
                    Ok(Some(t)) => acc.push((p, Ok(t))),
                    Ok(None) => {}
                    Err(e) => acc.push((p, Err(e))),
                }
            }
            acc
        },
        |mut a, b| {
            a.extend(b);
            a
        },
    );
    done.sort_by_key(|(p, _)| *p);
    done.into_iter().map(|(_, t)| t).collect()
}

/// Per distinct `prefix(key)` among the keys of `states`: the first key seen with it and how
/// many keys have it. When `states` are partitions whose keys share no `prefix` value across
/// partitions ([`merge_hashed`] routed on `prefix`), each partition is counted on its own, in
/// parallel; otherwise on this thread. The pairs come back in no particular order.
pub(super) fn count_prefixes(
    states: &[HashState],
    prefix: &(dyn Fn(u64) -> u64 + Sync),
    disjoint: bool,
    runtime: &Runtime,
) -> Result<Vec<(u64, i128)>> {
    let count = |states: &[HashState]| -> Result<Vec<(u64, i128)>> {
        let keys: usize = states.iter().map(|s| s.keys.len()).sum();
        let widest = states
            .iter()
            .flat_map(|s| s.keys.iter().map(|&k| prefix(k)))
            .max()
            .unwrap_or(0);
        // Room for a quarter of the keys' prefixes before it grows.
        let mut index: Map<u64, u32> =
            Map::with_capacity(keys / 4, widest, keys as u32, &ArrayOptions::new())?;
        let mut found: Vec<(u64, i128)> = Vec::new();
        for state in states {
            for &code in &state.keys {
                let key = prefix(code);
                match index.get(key) {
                    Some(g) => found[g as usize].1 += 1,
                    None => {
                        index.insert(key, found.len() as u32)?;
                        found.push((code, 1));
                    }
                }
            }
        }
        Ok(found)
    };
    if !disjoint || states.len() <= 1 {
        return count(states);
    }
    runtime.map_reduce(
        0..states.len(),
        1,
        || Ok(Vec::new()),
        |acc: Result<Vec<(u64, i128)>>, _worker, range| {
            let mut acc = acc?;
            acc.extend(count(&states[range])?);
            Ok(acc)
        },
        |a, b| {
            let mut a = a?;
            a.extend(b?);
            Ok(a)
        },
    )
}
