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
use crate::table::{Storage, Table};

/// Input indices a worker claims at a time.
const BATCH: usize = 1 << 14;
/// Slots of a worker's pre-aggregation table (filled to half).
const LOCAL_SLOTS: usize = 1 << 16;
/// Inputs below this size are grouped into one partition.
const PARTITION_THRESHOLD: usize = 1 << 14;

/// An uncompressed open-addressing table for aggregation scratch work.
struct Scratch {
    slots: Vec<(u64, u64)>,
    used: Vec<bool>,
    len: usize,
    shift: u32,
    growable: bool,
}

impl Scratch {
    fn new(slots: usize, growable: bool) -> Scratch {
        let slots = slots.next_power_of_two().max(16);
        Scratch {
            slots: vec![(0, 0); slots],
            used: vec![false; slots],
            len: 0,
            shift: 64 - slots.trailing_zeros(),
            growable,
        }
    }

    #[inline(always)]
    fn home(&self, code: u64) -> usize {
        ((code ^ (code >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// Folds `(code, value)` in; `Ok(false)` when the code is new and a fixed table is full.
    #[inline(always)]
    fn add(
        &mut self,
        code: u64,
        value: u64,
        combine: &impl Fn(u64, u64, u64) -> Result<u64>,
    ) -> Result<bool> {
        let mask = self.slots.len() - 1;
        let mut index = self.home(code);
        loop {
            if !self.used[index] {
                break;
            }
            let slot = &mut self.slots[index];
            if slot.0 == code {
                slot.1 = combine(code, slot.1, value)?;
                return Ok(true);
            }
            index = (index + 1) & mask;
        }
        if 2 * (self.len + 1) > self.slots.len() {
            if !self.growable {
                return Ok(false);
            }
            self.grow();
            return self.add(code, value, combine);
        }
        self.used[index] = true;
        self.slots[index] = (code, value);
        self.len += 1;
        Ok(true)
    }

    fn grow(&mut self) {
        let old = std::mem::replace(self, Scratch::new(self.slots.len() * 2, true));
        for (pair, used) in old.slots.into_iter().zip(old.used) {
            if used {
                let mask = self.slots.len() - 1;
                let mut index = self.home(pair.0);
                while self.used[index] {
                    index = (index + 1) & mask;
                }
                self.used[index] = true;
                self.slots[index] = pair;
                self.len += 1;
            }
        }
    }

    fn pairs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.slots
            .iter()
            .zip(&self.used)
            .filter(|(_, &used)| used)
            .map(|(&pair, _)| pair)
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
    let part_bits = if len < PARTITION_THRESHOLD {
        0
    } else {
        (workers.len() * 4)
            .next_power_of_two()
            .trailing_zeros()
            .max(4)
    };
    let parts = 1usize << part_bits;
    let part_of = |code: u64| {
        if part_bits == 0 {
            0
        } else {
            (route(code) >> (64 - part_bits)) as usize
        }
    };
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let fail = |error: Error| {
        if let Ok(mut slot) = failure.lock() {
            slot.get_or_insert(error);
        }
    };

    // Phase 1: pre-aggregate per worker, spill to per-worker partition buffers.
    let cursor = AtomicUsize::new(0);
    let buffers: Vec<Vec<Vec<(u64, u64)>>> = runtime.on_each_worker(|_worker| {
        let mut local = Scratch::new(LOCAL_SLOTS.min(len.next_power_of_two() * 2), false);
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

    // Phase 2: partitions in blocks per node; each merged by one worker, own node first.
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
                let mut scratch = Scratch::new(total.min(1 << 12), true);
                let mut result = Ok(());
                'merge: for buffer in &buffers {
                    for &(code, value) in &buffer[part] {
                        if let Err(error) = scratch.add(code, value, &combine) {
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
    Ok((part_bits, tables))
}
