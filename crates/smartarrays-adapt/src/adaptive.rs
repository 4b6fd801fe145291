//! Re-adaptation at run time (beyond the paper, which suggests it in §6): an iterative workload
//! profiles its first iterations in the uncompressed interleaved configuration, asks the advisor,
//! and restructures its arrays to the chosen configuration while it keeps running.
//!
//! [`AdaptiveArray`] holds a smart array behind an atomically swapped `Arc`: a reader takes a
//! snapshot (`load`) and keeps a complete array for as long as it holds it; a restructure builds
//! the new array fully from a snapshot and only then swaps it in. No reader can see a torn or
//! half-built array, and the values never change, so results do not depend on when the swap
//! happens. The graph crate's adaptive PageRank (`smartarrays_graph::adaptive`, feature `adapt`)
//! runs PageRank this way, restructuring its reverse arrays while iterations go on.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;
use smartarrays::{ArrayOptions, SmartArray};

use crate::error::Result;

/// A smart array that can be restructured while readers use it.
///
/// # Example
/// ```
/// use smartarrays::{ArrayOptions, Placement, SmartArray};
/// use smartarrays_adapt::adaptive::AdaptiveArray;
/// let array = SmartArray::from_fn(1000, &ArrayOptions::new().bits(64), |i| i as u64).unwrap();
/// let adaptive = AdaptiveArray::new(array);
/// let before = adaptive.load(); // a reader's snapshot
/// adaptive.restructure(&ArrayOptions::new().placement(Placement::Interleaved(vec![])).bits(10)).unwrap();
/// assert_eq!(adaptive.load().bits(), 10);
/// assert_eq!(before.bits(), 64); // the old snapshot stays whole while it is held
/// assert_eq!(adaptive.load().to_vec(), before.to_vec());
/// assert_eq!(adaptive.generation(), 1);
/// ```
pub struct AdaptiveArray {
    current: ArcSwap<SmartArray>,
    generation: AtomicU64,
}

impl std::fmt::Debug for AdaptiveArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdaptiveArray")
            .field("current", &*self.current.load())
            .field("generation", &self.generation())
            .finish()
    }
}

impl AdaptiveArray {
    /// Wraps an array.
    pub fn new(array: SmartArray) -> AdaptiveArray {
        AdaptiveArray {
            current: ArcSwap::from_pointee(array),
            generation: AtomicU64::new(0),
        }
    }

    /// The current array; it stays valid and unchanged for as long as the caller holds it.
    pub fn load(&self) -> Arc<SmartArray> {
        self.current.load_full()
    }

    /// Number of restructures so far.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Builds a copy of the current array with `options` (placement, width, runtime) and swaps it
    /// in once complete; returns the array it replaced. A width too narrow for the values is an
    /// error and nothing is swapped.
    pub fn restructure(&self, options: &ArrayOptions) -> Result<Arc<SmartArray>> {
        let source = self.load();
        let rebuilt = SmartArray::from_batches(
            source.len(),
            options,
            |range: Range<usize>, out: &mut [u64]| {
                // The range is in bounds by construction; a failure would leave zeros and is caught
                // by the length check of the unpack itself.
                let _ = source.local().unpack(range.start, out);
            },
        )?;
        let old = self.current.swap(Arc::new(rebuilt));
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smartarrays::{Placement, Runtime};
    use std::sync::atomic::AtomicBool;

    #[test]
    fn readers_never_see_a_torn_array_while_it_is_restructured() {
        let runtime = Arc::new(Runtime::with_threads(2).unwrap());
        let values: Vec<u64> = (0..20_000u64).map(|i| i * 2654435761 % 1_000_003).collect();
        let expected: u64 = values.iter().sum();
        let base = ArrayOptions::new().runtime(Arc::clone(&runtime));
        let adaptive = Arc::new(AdaptiveArray::new(
            SmartArray::from_slice(&values, &base.clone().bits(64)).unwrap(),
        ));
        let stop = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (adaptive, stop) = (Arc::clone(&adaptive), Arc::clone(&stop));
                std::thread::spawn(move || {
                    let mut checks = 0u64;
                    while !stop.load(Ordering::Relaxed) || checks == 0 {
                        let snapshot = adaptive.load();
                        assert_eq!(snapshot.len(), 20_000);
                        assert_eq!(
                            snapshot.sum(),
                            expected,
                            "a reader saw a wrong array at {} bits",
                            snapshot.bits()
                        );
                        checks += 1;
                    }
                    checks
                })
            })
            .collect();
        let placements = [
            Placement::OsDefault,
            Placement::Interleaved(vec![]),
            Placement::Replicated,
            Placement::SingleNode(0),
        ];
        for (round, bits) in [20u32, 64, 33, 21, 63, 40].iter().enumerate() {
            adaptive
                .restructure(
                    &base
                        .clone()
                        .placement(placements[round % 4].clone())
                        .bits(*bits),
                )
                .unwrap();
        }
        assert!(
            adaptive.restructure(&base.clone().bits(19)).is_err(),
            "values need 20 bits"
        );
        stop.store(true, Ordering::Relaxed);
        for reader in readers {
            assert!(reader.join().unwrap() > 0);
        }
        assert_eq!(adaptive.generation(), 6);
        assert_eq!(adaptive.load().to_vec(), values);
    }
}
