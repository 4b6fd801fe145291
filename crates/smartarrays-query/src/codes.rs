//! One array of per-key 32-bit value codes shared by all workers of a scan (what
//! `Plan::run_key_ranges` fills): instead of an array per worker over the whole
//! key range, combined entry by entry on one thread after the scan, every worker updates the
//! one array in place. An entry moves only up a small lattice (0: no value yet, a code: one
//! value, 1: several values), so concurrent updates are a compare-and-swap loop that retries
//! only when another worker changed the same entry meanwhile; with one worker plain loads and
//! stores do. Consecutive rows of the same key (a table clustered by the key, such as
//! `lineitem` by `l_orderkey`) are joined in a register first, so a key costs one update per
//! run of rows, not one per row. The array is one zeroed mapping with transparent huge pages
//! advised, so the workers that first touch it fault it in a few 2 MiB pages instead of
//! thousands of 4 KiB ones, and nothing is merged afterwards.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use smartarrays::memory::{self, HugePages, Region, ResolvedPlacement};
use smartarrays::{Placement, Topology};

use crate::error::Result;

/// The entry of a key without a value.
pub(crate) const NONE: u32 = 0;
/// The entry of a key with more than one distinct value.
pub(crate) const SEVERAL: u32 = 1;

/// The join of two entries: `NONE` is the bottom, `SEVERAL` the top, distinct codes meet at
/// the top.
#[inline]
pub(crate) fn join(a: u32, b: u32) -> u32 {
    if a == NONE || a == b {
        b
    } else if b == NONE {
        a
    } else {
        SEVERAL
    }
}

/// Per-key codes over `0..len`, shared by the workers of one scan.
pub(crate) struct SharedCodes {
    region: Region,
    len: usize,
}

impl SharedCodes {
    /// `len` entries, all [`NONE`]: a fresh zeroed mapping as the operating system places
    /// it, huge pages advised; no page is written before a worker touches it.
    pub(crate) fn new(len: usize, topology: &Topology) -> Result<SharedCodes> {
        let placement = ResolvedPlacement::new(Placement::OsDefault)?;
        let mut allocation =
            memory::allocate(topology, &placement, len.div_ceil(2), HugePages::Always)?;
        let region = allocation.regions.swap_remove(0);
        Ok(SharedCodes { region, len })
    }

    /// The array while workers update it; `exclusive` when exactly one worker does (then
    /// plain loads and stores replace compare-and-swap).
    pub(crate) fn updater(&mut self, exclusive: bool) -> CodeUpdater<'_> {
        let codes = &mut bytemuck::cast_slice_mut::<u64, u32>(self.region.words_mut())[..self.len];
        CodeUpdater {
            codes: atomic_view(codes),
            exclusive,
            keys: AtomicUsize::new(0),
        }
    }

    /// The codes (once the workers are done).
    pub(crate) fn codes(&self) -> &[u32] {
        &bytemuck::cast_slice::<u64, u32>(self.region.words())[..self.len]
    }
}

impl PartialEq for SharedCodes {
    fn eq(&self, other: &SharedCodes) -> bool {
        self.codes() == other.codes()
    }
}

/// The shared codes as seen by the workers (see [`SharedCodes::updater`]).
pub(crate) struct CodeUpdater<'a> {
    codes: &'a [AtomicU32],
    exclusive: bool,
    /// Entries that left [`NONE`]: the number of keys with a value.
    keys: AtomicUsize,
}

impl CodeUpdater<'_> {
    /// Joins the code of each row into its key's entry: `at[i]` is the index of row `i`'s
    /// key, `code[i]` its value's code (never [`NONE`]). Panics if an index is out of range.
    pub(crate) fn add(&self, at: impl Iterator<Item = (usize, u32)>) {
        let mut run: Option<(usize, u32)> = None;
        let mut new_keys = 0;
        for (i, c) in at {
            run = match run {
                Some((j, d)) if j == i => Some((j, join(d, c))),
                Some((j, d)) => {
                    new_keys += self.publish(j, d);
                    Some((i, c))
                }
                None => Some((i, c)),
            };
        }
        if let Some((j, d)) = run {
            new_keys += self.publish(j, d);
        }
        if new_keys > 0 {
            self.keys.fetch_add(new_keys, Ordering::Relaxed);
        }
    }

    /// Joins `code` into entry `at`; 1 if the entry was [`NONE`] before, else 0.
    #[inline]
    fn publish(&self, at: usize, code: u32) -> usize {
        let cell = &self.codes[at];
        let mut old = cell.load(Ordering::Relaxed);
        loop {
            let new = join(old, code);
            if new == old {
                return 0;
            }
            if self.exclusive {
                cell.store(new, Ordering::Relaxed);
                return usize::from(old == NONE);
            }
            match cell.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return usize::from(old == NONE),
                Err(now) => old = now,
            }
        }
    }

    /// The number of entries that are not [`NONE`] (read once the workers are done).
    pub(crate) fn keys(&self) -> usize {
        self.keys.load(Ordering::Relaxed)
    }
}

/// `codes` as atomics, for as long as the exclusive borrow lasts.
fn atomic_view(codes: &mut [u32]) -> &[AtomicU32] {
    const _: () = assert!(
        std::mem::size_of::<AtomicU32>() == std::mem::size_of::<u32>()
            && std::mem::align_of::<AtomicU32>() == std::mem::align_of::<u32>()
    );
    // SAFETY: `AtomicU32` has the same size and bit validity as `u32` and (checked at compile
    // time above) the same alignment, so the slice's memory is a valid `[AtomicU32]` of the
    // same length; the exclusive borrow of `codes` for the returned lifetime means every
    // access meanwhile goes through the atomics (what `AtomicU32::from_mut_slice` does).
    unsafe { &*(codes as *mut [u32] as *const [AtomicU32]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zeroed(len: usize) -> SharedCodes {
        SharedCodes::new(len, &Topology::uniform(1, 2, 1 << 30).unwrap()).unwrap()
    }

    /// Per key: no code, its only code, or SEVERAL, from the set of its distinct codes.
    fn plain(len: usize, rows: &[(usize, u32)]) -> Vec<u32> {
        let mut seen = vec![std::collections::BTreeSet::new(); len];
        for &(i, c) in rows {
            seen[i].insert(c);
        }
        seen.iter()
            .map(|s| match s.len() {
                0 => NONE,
                1 => *s.first().unwrap(),
                _ => SEVERAL,
            })
            .collect()
    }

    #[test]
    fn join_is_a_semilattice() {
        let values = [NONE, SEVERAL, 2, 3, u32::MAX];
        for &a in &values {
            assert_eq!(join(a, a), a);
            assert_eq!(join(NONE, a), a);
            assert_eq!(join(a, SEVERAL), SEVERAL);
            for &b in &values {
                assert_eq!(join(a, b), join(b, a));
                for &c in &values {
                    assert_eq!(join(join(a, b), c), join(a, join(b, c)));
                }
            }
        }
    }

    #[test]
    fn runs_and_edges_match_a_plain_fold() {
        for len in [0usize, 1, 63, 64, 65, 1023, 1025] {
            let rows: Vec<(usize, u32)> = (0..len * 3)
                .map(|r| ((r / 3 + r % 2) % len.max(1), 2 + (r % 5) as u32 / 3))
                .filter(|_| len > 0)
                .collect();
            for exclusive in [true, false] {
                let mut shared = zeroed(len);
                let updater = shared.updater(exclusive);
                updater.add(rows.iter().copied());
                let keys = updater.keys();
                let codes = shared.codes().to_vec();
                let expected = plain(len, &rows);
                assert_eq!(codes, expected, "len {len}");
                assert_eq!(keys, expected.iter().filter(|&&c| c != NONE).count());
            }
        }
    }

    #[test]
    fn concurrent_workers_lose_no_update() {
        // Every worker writes its own code to every entry: all end at SEVERAL, each key is
        // counted once.
        let len = 4096;
        let mut shared = zeroed(len);
        let updater = shared.updater(false);
        std::thread::scope(|s| {
            for w in 0..4u32 {
                let updater = &updater;
                s.spawn(move || {
                    for round in 0..8 {
                        updater.add((0..len).map(|i| ((i * 7 + round) % len, 2 + w)));
                    }
                });
            }
        });
        assert_eq!(updater.keys(), len);
        assert!(shared.codes().iter().all(|&c| c == SEVERAL));
    }

    #[test]
    fn one_code_per_key_stays_that_code() {
        let len = 1025;
        let mut shared = zeroed(len);
        let updater = shared.updater(false);
        std::thread::scope(|s| {
            for _ in 0..3 {
                let updater = &updater;
                s.spawn(move || updater.add((0..len).map(|i| (i, 2 + (i as u32 % 9)))));
            }
        });
        assert_eq!(updater.keys(), len);
        let codes = shared.codes().to_vec();
        assert!(codes
            .iter()
            .enumerate()
            .all(|(i, &c)| c == 2 + (i as u32 % 9)));
    }

    mod prop {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn matches_a_plain_fold(
                len in 1usize..200,
                rows in proptest::collection::vec((0usize..200, 2u32..6), 0..600),
                workers in 1usize..4,
            ) {
                let rows: Vec<(usize, u32)> = rows.into_iter().map(|(i, c)| (i % len, c)).collect();
                let mut shared = zeroed(len);
                let updater = shared.updater(workers == 1);
                let chunk = rows.len().div_ceil(workers).max(1);
                std::thread::scope(|s| {
                    for part in rows.chunks(chunk) {
                        let updater = &updater;
                        s.spawn(move || updater.add(part.iter().copied()));
                    }
                });
                let keys = updater.keys();
                let expected = plain(len, &rows);
                prop_assert_eq!(keys, expected.iter().filter(|&&c| c != NONE).count());
                prop_assert_eq!(shared.codes(), &expected[..]);
            }
        }
    }
}
