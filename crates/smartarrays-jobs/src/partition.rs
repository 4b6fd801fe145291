//! Parallel stable partitioning, the step shared by the radix sort (one partition per digit
//! value) and the sample sort of lines (one per range between splitters).
//!
//! The source is cut into one contiguous part per worker. Each part counts its elements per
//! bucket; prefix sums give each (bucket, part) pair its own slice of the destination, in bucket
//! order and, within a bucket, in part order; each part then copies its elements into its
//! slices. The slices are disjoint `&mut` borrows of the destination, so every write is safe
//! Rust, and the order within a bucket is the source order (stable).

use std::ops::Range;
use std::sync::Mutex;

use smartarrays::Runtime;

use crate::options::map_indexed;

/// Equal parts of `0..len`, one per worker (fewer for short inputs).
pub(crate) fn parts(runtime: &Runtime, len: usize) -> Vec<Range<usize>> {
    let count = runtime.threads().min(len.div_ceil(1 << 12)).max(1);
    (0..count)
        .map(|p| len * p / count..len * (p + 1) / count)
        .collect()
}

/// Moves `source` into `destination` grouped by `bucket_of` (values `0..buckets`), keeping the
/// source order within each bucket; returns the bucket sizes.
pub(crate) fn scatter<T: Copy + Send + Sync>(
    runtime: &Runtime,
    source: &[T],
    destination: &mut [T],
    buckets: usize,
    bucket_of: impl Fn(&T) -> usize + Sync,
) -> Vec<usize> {
    assert_eq!(
        source.len(),
        destination.len(),
        "scatter needs equal lengths"
    );
    let parts = parts(runtime, source.len());
    let histograms = map_indexed(runtime, parts.len(), |p| {
        let mut counts = vec![0usize; buckets];
        for x in &source[parts[p].clone()] {
            counts[bucket_of(x)] += 1;
        }
        counts
    });
    // Destination slices, bucket-major: bucket 0 of part 0, of part 1, ..., then bucket 1.
    let mut slices: Vec<Vec<&mut [T]>> =
        parts.iter().map(|_| Vec::with_capacity(buckets)).collect();
    let mut rest = destination;
    for b in 0..buckets {
        for (p, histogram) in histograms.iter().enumerate() {
            let (head, tail) = rest.split_at_mut(histogram[b]);
            slices[p].push(head);
            rest = tail;
        }
    }
    let slices: Vec<Mutex<Vec<&mut [T]>>> = slices.into_iter().map(Mutex::new).collect();
    map_indexed(runtime, parts.len(), |p| {
        let Ok(mut mine) = slices[p].lock() else {
            return;
        };
        let mut fill = vec![0usize; buckets];
        for &x in &source[parts[p].clone()] {
            let b = bucket_of(&x);
            mine[b][fill[b]] = x;
            fill[b] += 1;
        }
    });
    (0..buckets)
        .map(|b| histograms.iter().map(|h| h[b]).sum())
        .collect()
}

/// Runs `work` on consecutive pieces of `data` of the given `sizes`, in parallel.
pub(crate) fn for_each_piece<T: Send>(
    runtime: &Runtime,
    data: &mut [T],
    sizes: &[usize],
    work: impl Fn(&mut [T]) + Sync,
) {
    let mut pieces = Vec::with_capacity(sizes.len());
    let mut rest = data;
    for &size in sizes {
        let (head, tail) = rest.split_at_mut(size);
        pieces.push(Mutex::new(head));
        rest = tail;
    }
    map_indexed(runtime, pieces.len(), |i| {
        if let Ok(mut piece) = pieces[i].lock() {
            work(&mut piece);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_is_a_stable_partition() {
        let runtime = Runtime::with_threads(3).unwrap();
        let source: Vec<(u8, u32)> = (0..20_000u32).map(|i| ((i * 7 % 5) as u8, i)).collect();
        let mut destination = vec![(0, 0); source.len()];
        let sizes = scatter(&runtime, &source, &mut destination, 5, |x| x.0 as usize);
        let mut expected = source.clone();
        expected.sort_by_key(|x| x.0);
        assert_eq!(destination, expected);
        assert_eq!(sizes, [4000; 5]);
    }
}
