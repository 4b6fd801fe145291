//! The parallel group-by build: thread-local pre-aggregation, then a radix-partitioned merge.
//!
//! 1. Each worker claims batches of the input and folds them into a small table of its own
//!    (fixed size, cache resident: the frequent keys of a skewed input stay there). A key that
//!    finds the small table full goes, with its value, into the worker's buffer for the key's
//!    radix partition (top bits of a 64-bit hash). At the end the small table is emptied into
//!    the same buffers. Nothing is shared: no atomics on data, no locks.
//! 2. Partitions belong to nodes (in blocks, by the nodes' worker counts). A worker merges the
//!    buffers of the partitions of its own node first, then helps the others: it folds every
//!    worker's buffer of that partition into a scratch table, then builds the partition's
//!    compact table at the exact size and widths of its distinct keys. Each partition's table
//!    is written by one worker only, on the node that owns it: no remote writes under the
//!    first-touch (`os`) placement.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::hash::route;
use crate::key::Key;
use crate::table::{Storage, Table, PLACE_BATCH};

/// Input indices a worker claims at a time.
const BATCH: usize = 1 << 14;
/// Most slots of a worker's pre-aggregation table (filled to half; 16 bytes each): it grows
/// from small as new keys come, and once at this size, the new keys of a full table spill to
/// the radix partitions while the keys it holds (the early, and in skewed data the frequent
/// ones) keep being folded in place.
const LOCAL_MAX_SLOTS: usize = 1 << 18;
/// Slots a worker's pre-aggregation table starts with.
const LOCAL_FIRST_SLOTS: usize = 1 << 12;
/// Inputs below this size are grouped into one partition.
const PARTITION_THRESHOLD: usize = 1 << 14;
/// Widest key range counted in direct arrays (of `u32` counts: 1 GiB in all).
const DENSE_MAX_RANGE: u64 = 1 << 28;
/// Most workers that split a dense key range (each reads every key once).
const DENSE_MAX_WORKERS: usize = 8;
/// Keys a worker filters to its share of a dense range before counting them.
const DENSE_BATCH: usize = 1024;

/// Code that marks an empty scratch slot; the code itself is kept beside the slots.
const EMPTY: u64 = u64::MAX;

/// An uncompressed open-addressing table for aggregation scratch work: (code, value) pairs
/// in one array (one access per probe), an empty slot marked by [`EMPTY`], filled to half, and
/// grown by doubling up to `max_slots`.
struct Scratch {
    slots: Vec<(u64, u64)>,
    /// The value of the code [`EMPTY`] when present.
    empty_code: Option<u64>,
    len: usize,
    shift: u32,
    max_slots: usize,
}

impl Scratch {
    fn new(slots: usize, max_slots: usize) -> Scratch {
        let slots = slots.next_power_of_two().max(16);
        Scratch {
            slots: vec![(EMPTY, 0); slots],
            empty_code: None,
            len: 0,
            shift: 64 - slots.trailing_zeros(),
            max_slots,
        }
    }

    #[inline(always)]
    fn home(&self, code: u64) -> usize {
        ((code ^ (code >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// Folds `(code, value)` in; `Ok(false)` when the code is new and the table is full at
    /// its largest size.
    #[inline(always)]
    fn add(
        &mut self,
        code: u64,
        value: u64,
        combine: &impl Fn(u64, u64, u64) -> Result<u64>,
    ) -> Result<bool> {
        if code == EMPTY {
            self.empty_code = Some(match self.empty_code {
                Some(old) => combine(code, old, value)?,
                None => value,
            });
            return Ok(true);
        }
        let mask = self.slots.len() - 1;
        let mut index = self.home(code);
        loop {
            let slot = &mut self.slots[index];
            if slot.0 == code {
                slot.1 = combine(code, slot.1, value)?;
                return Ok(true);
            }
            if slot.0 == EMPTY {
                break;
            }
            index = (index + 1) & mask;
        }
        if 2 * (self.len + 1) > self.slots.len() {
            if 2 * self.slots.len() > self.max_slots {
                return Ok(false);
            }
            self.grow();
            return self.add(code, value, combine);
        }
        self.slots[index] = (code, value);
        self.len += 1;
        Ok(true)
    }

    fn grow(&mut self) {
        let mut grown = Scratch::new(self.slots.len() * 2, self.max_slots);
        let mask = grown.slots.len() - 1;
        for &pair in &self.slots {
            if pair.0 != EMPTY {
                let mut index = grown.home(pair.0);
                while grown.slots[index].0 != EMPTY {
                    index = (index + 1) & mask;
                }
                grown.slots[index] = pair;
            }
        }
        grown.len = self.len;
        grown.empty_code = self.empty_code;
        *self = grown;
    }

    fn pairs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.slots
            .iter()
            .copied()
            .filter(|pair| pair.0 != EMPTY)
            .chain(self.empty_code.map(|value| (EMPTY, value)))
    }
}

/// Radix bits of the partitions for `entries` grouped entries on `workers` workers.
fn partition_bits(entries: usize, workers: usize) -> u32 {
    if entries < PARTITION_THRESHOLD {
        0
    } else {
        (workers * 4).next_power_of_two().trailing_zeros().max(4)
    }
}

/// The partition of `code` among `2^part_bits` (the same routing as [`crate::Map`]'s).
#[inline(always)]
fn part_of(code: u64, part_bits: u32) -> usize {
    if part_bits == 0 {
        0
    } else {
        (route(code) >> (64 - part_bits)) as usize
    }
}

/// Groups `len` inputs (`code_of(i)`, `value_of(i)`) by code, combining the values of equal
/// codes with `combine(code, earlier, later)`. Returns the partition bits and one table per
/// partition.
pub(crate) fn group_by(
    storage: &std::sync::Arc<Storage>,
    len: usize,
    code_of: impl Fn(usize) -> u64 + Sync,
    value_of: impl Fn(usize) -> u64 + Sync,
    combine: impl Fn(u64, u64, u64) -> Result<u64> + Sync,
) -> Result<(u32, Vec<Table>)> {
    let runtime = &storage.runtime;
    let workers = runtime.workers();
    let part_bits = partition_bits(len, workers.len());
    let parts = 1usize << part_bits;
    let part_of = |code: u64| part_of(code, part_bits);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let fail = |error: Error| {
        if let Ok(mut slot) = failure.lock() {
            slot.get_or_insert(error);
        }
    };

    // Phase 1: pre-aggregate per worker, spill to per-worker partition buffers.
    let cursor = AtomicUsize::new(0);
    let buffers: Vec<Vec<Vec<(u64, u64)>>> = runtime.on_each_worker(|_worker| {
        let mut local = Scratch::new(LOCAL_FIRST_SLOTS.min(len * 2), LOCAL_MAX_SLOTS);
        let mut spill: Vec<Vec<(u64, u64)>> = vec![Vec::new(); parts];
        'claim: loop {
            let start = cursor.fetch_add(BATCH, Ordering::Relaxed);
            if start >= len {
                break;
            }
            for i in start..(start + BATCH).min(len) {
                let (code, value) = (code_of(i), value_of(i));
                match local.add(code, value, &combine) {
                    Ok(true) => {}
                    Ok(false) => spill[part_of(code)].push((code, value)),
                    Err(error) => {
                        fail(error);
                        break 'claim;
                    }
                }
            }
        }
        for (code, value) in local.pairs() {
            spill[part_of(code)].push((code, value));
        }
        spill
    });
    if let Some(error) = failure.lock().ok().and_then(|mut f| f.take()) {
        return Err(error);
    }

    let tables = build_partitions(storage, parts, &buffers, &combine)?;
    Ok((part_bits, tables))
}

/// Phase 2: builds one table per partition from the workers' buffers of (code, value) pairs.
/// Partitions are owned in blocks per node; each is merged by one worker, own node first: it
/// folds the partition's pairs from every worker with `combine`, then builds the table.
fn build_partitions(
    storage: &std::sync::Arc<Storage>,
    parts: usize,
    buffers: &[Vec<Vec<(u64, u64)>>],
    combine: &(impl Fn(u64, u64, u64) -> Result<u64> + Sync),
) -> Result<Vec<Table>> {
    let runtime = &storage.runtime;
    let workers = runtime.workers();
    let mut nodes: Vec<(usize, usize)> = Vec::new(); // (node, workers)
    for worker in workers {
        match nodes.last_mut() {
            Some((node, count)) if *node == worker.node => *count += 1,
            _ => nodes.push((worker.node, 1)),
        }
    }
    let mut owned: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut before = 0;
    for (index, &(_, count)) in nodes.iter().enumerate() {
        let first = parts * before / workers.len();
        before += count;
        let end = parts * before / workers.len();
        owned[index] = (first..end).collect();
    }
    let cursors: Vec<AtomicUsize> = nodes.iter().map(|_| AtomicUsize::new(0)).collect();
    let built: Vec<Vec<(usize, Result<Table>)>> = runtime.on_each_worker(|worker| {
        let own = nodes
            .iter()
            .position(|&(n, _)| n == worker.node)
            .unwrap_or(0);
        let mut done = Vec::new();
        for offset in 0..nodes.len() {
            let index = (own + offset) % nodes.len();
            loop {
                let claim = cursors[index].fetch_add(1, Ordering::Relaxed);
                let Some(&part) = owned[index].get(claim) else {
                    break;
                };
                let total: usize = buffers.iter().map(|b| b[part].len()).sum();
                let mut scratch = Scratch::new(total.min(1 << 12), usize::MAX);
                let mut result = Ok(());
                'merge: for buffer in buffers {
                    for &(code, value) in &buffer[part] {
                        if let Err(error) = scratch.add(code, value, combine) {
                            result = Err(error);
                            break 'merge;
                        }
                    }
                }
                let table = result.and_then(|()| {
                    let pairs: Vec<(u64, u64)> = scratch.pairs().collect();
                    Table::from_distinct(std::sync::Arc::clone(storage), &pairs)
                });
                done.push((part, table));
            }
        }
        done
    });
    let mut tables: Vec<Option<Table>> = (0..parts).map(|_| None).collect();
    for (part, table) in built.into_iter().flatten() {
        tables[part] = Some(table?);
    }
    let tables = tables
        .into_iter()
        .map(|t| {
            t.map_or_else(
                || Table::from_distinct(std::sync::Arc::clone(storage), &[]),
                Ok,
            )
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(tables)
}

/// Counts keys by code in direct arrays when their codes are dense: the range from the least
/// to the greatest code is no longer than the input (so the `u32` counters take no more memory
/// than a 4-byte key per input) and at most [`DENSE_MAX_RANGE`].
///
/// 1. Each worker owns a contiguous share of the range and reads every key once, counting those
///    in its share with one indexed increment (no hashing, no probing, no spill).
/// 2. The result has one radix partition per worker (rounded up to a power of two; one table
///    for one worker). Each worker scans every worker's counters, keeps the nonzero ones routed
///    to its own partitions (already distinct), sizes their tables exactly and places them.
///    Each table is written by the one worker that owns it.
///
/// `Ok(None)` when the codes are not dense, there are more than [`DENSE_MAX_WORKERS`] workers
/// (each reads the whole input), or the counters cannot be allocated: the caller then groups by
/// hashing.
pub(crate) fn count_dense<K: Key>(
    storage: &std::sync::Arc<Storage>,
    keys: &[K],
) -> Result<Option<(u32, Vec<Table>)>> {
    let runtime = &storage.runtime;
    let workers = runtime.workers().len().max(1);
    let len = keys.len();
    if len == 0 || u32::try_from(len).is_err() || workers > DENSE_MAX_WORKERS {
        return Ok(None);
    }
    let bounds = runtime.on_each_worker(|worker| {
        let first = len * worker.index / workers;
        let end = len * (worker.index + 1) / workers;
        keys[first..end]
            .iter()
            .fold((u64::MAX, 0u64), |(lo, hi), key| {
                let code = key.to_code();
                (lo.min(code), hi.max(code))
            })
    });
    let (lo, hi) = bounds
        .into_iter()
        .fold((u64::MAX, 0), |(lo, hi), (l, h)| (lo.min(l), hi.max(h)));
    // `span` is the range less one, so `0..=u64::MAX` does not overflow.
    let span = hi - lo;
    if span >= (len as u64).min(DENSE_MAX_RANGE) {
        return Ok(None);
    }
    let range = span + 1;
    // A worker's share: its first code and its width (`start + width - 1 <= hi`, no overflow).
    let share = |index: usize| {
        let first = range * index as u64 / workers as u64;
        let end = range * (index as u64 + 1) / workers as u64;
        (lo + first, (end - first) as usize)
    };
    // Phase 1: each worker counts the keys of its share of the range.
    let counters: Vec<Option<Vec<u32>>> = runtime.on_each_worker(|worker| {
        let (start, width) = share(worker.index);
        let mut counts: Vec<u32> = Vec::new();
        counts.try_reserve_exact(width).ok()?;
        counts.resize(width, 0);
        if workers == 1 {
            for key in keys {
                counts[(key.to_code() - start) as usize] += 1;
            }
        } else {
            // Filter without branching (most keys are another worker's), then count the
            // batch's keys of this share.
            let mut mine = [0u32; DENSE_BATCH];
            for batch in keys.chunks(DENSE_BATCH) {
                let mut kept = 0;
                for key in batch {
                    let offset = key.to_code().wrapping_sub(start);
                    mine[kept] = offset as u32;
                    kept += usize::from(offset < width as u64);
                }
                for &offset in &mine[..kept] {
                    counts[offset as usize] += 1;
                }
            }
        }
        Some(counts)
    });
    let Some(counters) = counters.into_iter().collect::<Option<Vec<Vec<u32>>>>() else {
        return Ok(None);
    };
    // Phase 2: each worker builds the tables of its block of partitions.
    let part_bits = workers.next_power_of_two().trailing_zeros();
    let parts = 1usize << part_bits;
    let nonzero = |visit: &mut dyn FnMut(u64, u64)| {
        for (index, counts) in counters.iter().enumerate() {
            let (start, _) = share(index);
            for (offset, &count) in counts.iter().enumerate() {
                if count != 0 {
                    visit(start + offset as u64, u64::from(count));
                }
            }
        }
    };
    let built: Vec<Result<Vec<Table>>> = runtime.on_each_worker(|worker| {
        let first = parts * worker.index / workers;
        let end = parts * (worker.index + 1) / workers;
        let mine = |code: u64| {
            part_of(code, part_bits)
                .checked_sub(first)
                .filter(|&p| p < end - first)
        };
        let mut sizes = vec![(0u64, 0u64, 0u64); end - first];
        nonzero(&mut |code, count| {
            if let Some(p) = mine(code) {
                let size = &mut sizes[p];
                *size = (size.0 + 1, size.1 | code, size.2 | count);
            }
        });
        let mut tables = sizes
            .iter()
            .map(|&(entries, keys, counts)| {
                Table::for_distinct(std::sync::Arc::clone(storage), entries, keys, counts)
            })
            .collect::<Result<Vec<Table>>>()?;
        // Pairs gathered per partition and placed a batch at a time (prefetched).
        let mut pending: Vec<Vec<(u64, u64)>> = vec![Vec::with_capacity(PLACE_BATCH); tables.len()];
        let mut complete = vec![true; tables.len()];
        nonzero(&mut |code, count| {
            if let Some(p) = mine(code) {
                pending[p].push((code, count));
                if pending[p].len() == PLACE_BATCH {
                    complete[p] &= tables[p].place_codes(&pending[p]);
                    pending[p].clear();
                }
            }
        });
        for (p, batch) in pending.iter().enumerate() {
            complete[p] &= tables[p].place_codes(batch);
        }
        // A cluster that found no slot within reach: that table again with twice the buckets.
        for p in 0..tables.len() {
            while !complete[p] {
                tables[p] = tables[p].doubled_empty()?;
                let table = &mut tables[p];
                let mut done = true;
                nonzero(&mut |code, count| {
                    if done && mine(code) == Some(p) {
                        done = table.place_codes(&[(code, count)]);
                    }
                });
                complete[p] = done;
            }
        }
        Ok(tables)
    });
    let mut tables = Vec::with_capacity(parts);
    for block in built {
        tables.extend(block?);
    }
    Ok(Some((part_bits, tables)))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use smartarrays::{ArrayOptions, Runtime};

    use super::*;
    use crate::map::storage_of;

    fn storage(threads: usize) -> Arc<Storage> {
        let runtime = Arc::new(Runtime::with_threads(threads).unwrap());
        storage_of(&ArrayOptions::new().runtime(runtime)).unwrap()
    }

    fn counted(part_bits: u32, tables: &[Table]) -> HashMap<u64, u64> {
        let mut counts = HashMap::new();
        for (part, table) in tables.iter().enumerate() {
            for (code, count) in table.entries(0) {
                assert_eq!(
                    part_of(code, part_bits),
                    part,
                    "code {code} in partition {part}"
                );
                assert!(counts.insert(code, count).is_none(), "code {code} twice");
            }
        }
        counts
    }

    fn reference(keys: &[u64]) -> HashMap<u64, u64> {
        let mut counts = HashMap::new();
        for &key in keys {
            *counts.entry(key).or_insert(0) += 1;
        }
        counts
    }

    #[test]
    fn dense_counts_match_a_fold_at_edge_sizes_and_extremes() {
        for threads in [1, 2, 3] {
            let storage = storage(threads);
            for n in [1usize, 2, 63, 64, 65, 1023, 1025, 70_000] {
                let inputs: [Vec<u64>; 4] = [
                    (0..n as u64).map(|i| i * 7 % n as u64).collect(),
                    vec![42; n],
                    vec![u64::MAX; n],
                    (0..n as u64).map(|i| u64::MAX - i % 5).collect(),
                ];
                for keys in inputs {
                    let (part_bits, tables) = count_dense(&storage, &keys)
                        .unwrap()
                        .unwrap_or_else(|| panic!("{threads} threads, {n} keys: not dense"));
                    assert_eq!(tables.len(), 1 << part_bits);
                    assert_eq!(counted(part_bits, &tables), reference(&keys));
                }
            }
        }
    }

    #[test]
    fn dense_stops_where_the_range_passes_the_input() {
        let storage = storage(2);
        assert!(count_dense::<u64>(&storage, &[]).unwrap().is_none());
        // 1025 keys over exactly 1025 codes: dense; one code further: not.
        let mut keys: Vec<u64> = (1000..2025).collect();
        let (part_bits, tables) = count_dense(&storage, &keys).unwrap().unwrap();
        assert_eq!(counted(part_bits, &tables), reference(&keys));
        keys[0] = 2025;
        keys[1] = 999;
        keys.pop();
        keys.push(5000);
        assert!(count_dense(&storage, &keys).unwrap().is_none());
        assert!(count_dense(&storage, &[0u64, u64::MAX]).unwrap().is_none());
        let signed = [i64::MIN, i64::MAX, 0];
        assert!(count_dense(&storage, &signed).unwrap().is_none());
        let narrow = [-3i64, 3, -3, 0, 2, -1, 1, 1];
        let (part_bits, tables) = count_dense(&storage, &narrow).unwrap().unwrap();
        let codes: Vec<u64> = narrow.iter().map(|k| Key::to_code(*k)).collect();
        assert_eq!(counted(part_bits, &tables), reference(&codes));
    }
}

#[cfg(test)]
mod scratch_tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn scratch_folds_spills_at_its_cap_and_keeps_the_sentinel_code() {
        let sum = |_: u64, a: u64, b: u64| Ok(a + b);
        let mut scratch = Scratch::new(16, 64);
        let mut reference: HashMap<u64, u64> = HashMap::new();
        let mut spilled = 0;
        // 32 keys fit at half of 64 slots; then new keys spill and held ones still fold.
        for round in 0..3u64 {
            for key in (0..40u64)
                .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .chain([EMPTY, 0, u64::MAX - 1])
            {
                if scratch.add(key, round + 1, &sum).unwrap() {
                    *reference.entry(key).or_insert(0) += round + 1;
                } else {
                    spilled += 1;
                }
            }
        }
        assert_eq!(scratch.slots.len(), 64, "grew to its cap and no further");
        assert_eq!(scratch.len, 32);
        // 41 distinct codes besides the sentinel (0 comes twice), 32 held.
        assert_eq!(spilled, 3 * (41 - 32));
        let mut pairs: Vec<(u64, u64)> = scratch.pairs().collect();
        pairs.sort_unstable();
        let mut expected: Vec<(u64, u64)> = reference.into_iter().collect();
        expected.sort_unstable();
        assert_eq!(pairs, expected);
        assert!(
            pairs.contains(&(EMPTY, 6)),
            "u64::MAX is a key like any other"
        );

        let mut unbounded = Scratch::new(16, usize::MAX);
        for key in 0..1025u64 {
            assert!(unbounded.add(key, 1, &sum).unwrap());
        }
        assert_eq!(unbounded.pairs().count(), 1025);
        let overflow = |key: u64, a: u64, b: u64| {
            a.checked_add(b).ok_or(Error::CountOverflow {
                key,
                count: a,
                add: b,
            })
        };
        let mut counts = Scratch::new(16, 16);
        assert!(counts.add(EMPTY, u64::MAX, &overflow).unwrap());
        assert!(counts.add(EMPTY, 1, &overflow).is_err());
    }
}
