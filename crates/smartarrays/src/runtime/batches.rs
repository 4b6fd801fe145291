//! Disjoint mutable batches: a slice cut into pieces that the batches of a parallel loop claim,
//! each piece by exactly one batch, like rayon's `par_chunks_mut` but for the runtime's own
//! node-aware batch claiming. The runtime owns this so that no caller assembles its own
//! `Vec<Mutex<&mut [T]>>`.

use std::sync::Mutex;

/// A mutable slice cut into pieces of `piece_len` elements (the last may be shorter), each of
/// which one parallel batch at a time may write.
///
/// Every piece sits behind its own lock, which a batch takes once; batches of a loop claim
/// distinct pieces, so the locks are never contended and cost one atomic operation per batch.
///
/// # Example
/// ```
/// use smartarrays::runtime::DisjointBatches;
/// use smartarrays::Runtime;
/// let runtime = Runtime::with_threads(3).unwrap();
/// let mut squares = vec![0u64; 1000];
/// let batches = DisjointBatches::new(&mut squares, 64);
/// runtime.for_each_batch(0..1000, 64, |_worker, range| {
///     batches.with_batch(&range, |piece| {
///         for (slot, i) in piece.iter_mut().zip(range.clone()) {
///             *slot = (i * i) as u64;
///         }
///     });
/// });
/// drop(batches);
/// assert_eq!(squares[999], 999 * 999);
/// ```
#[derive(Debug)]
pub struct DisjointBatches<'a, T> {
    pieces: Vec<Mutex<&'a mut [T]>>,
    piece_len: usize,
}

impl<'a, T> DisjointBatches<'a, T> {
    /// Cuts `data` into pieces of `piece_len` elements (at least 1).
    pub fn new(data: &'a mut [T], piece_len: usize) -> Self {
        let piece_len = piece_len.max(1);
        DisjointBatches {
            pieces: data.chunks_mut(piece_len).map(Mutex::new).collect(),
            piece_len,
        }
    }

    /// Number of pieces.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// True when the slice was empty.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Runs `work` on piece `index` and returns its result; `None` when there is no such piece,
    /// or when a batch that held it panicked (its contents are then not to be trusted, and the
    /// panic reaches the loop's caller anyway).
    pub fn with_piece<R>(&self, index: usize, work: impl FnOnce(&mut [T]) -> R) -> Option<R> {
        let mut piece = self.pieces.get(index)?.lock().ok()?;
        Some(work(&mut piece))
    }

    /// Runs `work` on the piece that starts at element `range.start` (a batch of a loop whose
    /// batch size is this piece length); see [`DisjointBatches::with_piece`].
    pub fn with_batch<R>(
        &self,
        range: &std::ops::Range<usize>,
        work: impl FnOnce(&mut [T]) -> R,
    ) -> Option<R> {
        debug_assert!(range.start.is_multiple_of(self.piece_len));
        self.with_piece(range.start / self.piece_len, work)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Runtime;

    #[test]
    fn every_element_is_written_once_at_edge_lengths_and_odd_thread_counts() {
        for threads in [1, 3] {
            let runtime = Runtime::with_threads(threads).unwrap();
            for len in [0usize, 1, 63, 64, 65, 1023, 1025] {
                let mut data = vec![0u32; len];
                let batches = DisjointBatches::new(&mut data, 64);
                assert_eq!(batches.len(), len.div_ceil(64));
                runtime.for_each_batch(0..len, 64, |_, range| {
                    let wrote = batches.with_batch(&range, |piece| {
                        assert_eq!(piece.len(), range.len());
                        for slot in piece.iter_mut() {
                            *slot += 1;
                        }
                    });
                    assert!(wrote.is_some());
                });
                drop(batches);
                assert!(data.iter().all(|&v| v == 1), "len {len}, threads {threads}");
            }
        }
    }

    #[test]
    fn a_piece_past_the_end_is_none() {
        let mut data = [1u8; 10];
        let batches = DisjointBatches::new(&mut data, 4);
        assert_eq!(batches.len(), 3);
        assert_eq!(batches.with_piece(2, |p| p.len()), Some(2));
        assert_eq!(batches.with_piece(3, |p| p.len()), None);
        let mut empty: [u8; 0] = [];
        assert!(DisjointBatches::new(&mut empty, 0).is_empty());
    }
}
