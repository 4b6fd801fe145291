//! Tests of the neighbour-difference scans (`ArrayView::unpack_differences` and
//! `unpack_paired_differences`, the degree kernels of CSR offsets) against plain vectors: every
//! width, edge lengths and starts, every placement on a described 2-node machine (each replica
//! read), range errors, and a property test over random arrays.

use std::sync::Arc;

use proptest::prelude::*;
use smartarrays::codec::{max_value, Combine};
use smartarrays::{ArrayOptions, Error, Placement, Runtime, SmartArray, Topology};

fn value(i: usize, bits: u32, seed: u64) -> u64 {
    (i as u64 ^ seed)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(23)
        & max_value(bits)
}

fn expected(values: &[u64], start: usize, count: usize) -> Vec<u64> {
    (start..start + count)
        .map(|i| values[i + 1].wrapping_sub(values[i]))
        .collect()
}

#[test]
fn differences_match_a_vector_at_every_width_length_and_placement() {
    let described = Arc::new(Topology::uniform(2, 1, 1 << 30).unwrap());
    let runtime = Arc::new(Runtime::on_described(described, 3).unwrap());
    for placement in Placement::all(runtime.topology()) {
        for bits in 1..=64u32 {
            for len in [1usize, 2, 63, 64, 65, 1023, 1025] {
                let (a, b): (Vec<u64>, Vec<u64>) = (0..len)
                    .map(|i| (value(i, bits, 1), value(i, bits.max(9) - 8, 2)))
                    .unzip();
                let options = ArrayOptions::new()
                    .placement(placement.clone())
                    .runtime(Arc::clone(&runtime));
                let first = SmartArray::from_slice(&a, &options.clone().bits(bits)).unwrap();
                let second = SmartArray::from_slice(&b, &options.bits(bits.max(9) - 8)).unwrap();
                for replica in 0..first.replica_count() {
                    let (view, other) = (
                        first.replica(replica),
                        second.replica(replica.min(second.replica_count() - 1)),
                    );
                    for start in
                        [0usize, 1, 7, 8, 64, len / 2, len - 1].map(|start| start.min(len - 1))
                    {
                        let count = len - 1 - start;
                        let mut out = vec![u64::MAX; count];
                        view.unpack_differences(start, &mut out, Combine::Overwrite)
                            .unwrap();
                        assert_eq!(
                            out,
                            expected(&a, start, count),
                            "bits {bits} len {len} start {start} {placement}"
                        );
                        view.unpack_differences(start, &mut out, Combine::Add)
                            .unwrap();
                        let doubled: Vec<u64> = expected(&a, start, count)
                            .iter()
                            .map(|d| d.wrapping_mul(2))
                            .collect();
                        assert_eq!(
                            out, doubled,
                            "add: bits {bits} len {len} start {start} {placement}"
                        );
                        view.unpack_paired_differences(other, start, &mut out)
                            .unwrap();
                        let paired: Vec<u64> = expected(&a, start, count)
                            .iter()
                            .zip(expected(&b, start, count))
                            .map(|(x, y)| x.wrapping_add(y))
                            .collect();
                        assert_eq!(
                            out, paired,
                            "paired: bits {bits} len {len} start {start} {placement}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn differences_past_the_end_are_range_errors_and_leave_the_output_alone() {
    let array = SmartArray::from_slice(&[1, 4, 9, 16], &ArrayOptions::new().bits(5)).unwrap();
    let short = SmartArray::from_slice(&[0, 1], &ArrayOptions::new()).unwrap();
    let mut out = [7u64; 3];
    // Three differences need four values from `start`: start 1 reaches index 4, past the end.
    let error = array
        .local()
        .unpack_differences(1, &mut out, Combine::Overwrite)
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::RangeOutOfBounds {
                start: 1,
                end: 5,
                len: 4
            }
        ),
        "{error}"
    );
    assert!(array
        .local()
        .unpack_paired_differences(short.local(), 0, &mut out)
        .is_err());
    assert_eq!(out, [7, 7, 7]);
    // No differences need no values: any start up to the length is accepted.
    array
        .local()
        .unpack_differences(4, &mut [], Combine::Overwrite)
        .unwrap();
    assert!(array
        .local()
        .unpack_differences(5, &mut [], Combine::Overwrite)
        .is_err());
    array
        .local()
        .unpack_differences(0, &mut out, Combine::Overwrite)
        .unwrap();
    assert_eq!(out, [3, 5, 7]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn differences_of_random_offsets_match_a_vector(
        steps in prop::collection::vec(0u64..5000, 1..3000),
        extra_bits in 0u32..6,
        start_share in 0.0f64..1.0,
    ) {
        // Monotone offsets, like a CSR graph's, stored at their minimal width or a little more.
        let offsets: Vec<u64> = steps.iter().scan(0u64, |total, step| { *total += step; Some(*total) }).collect();
        let reverse: Vec<u64> = offsets.iter().enumerate().map(|(i, &o)| o / 3 + i as u64).collect();
        let minimal = smartarrays::codec::bits_needed(*offsets.last().unwrap());
        let first = SmartArray::from_slice(&offsets, &ArrayOptions::new().bits((minimal + extra_bits).min(64))).unwrap();
        let second = SmartArray::from_slice(&reverse, &ArrayOptions::new()).unwrap();
        let start = ((offsets.len() - 1) as f64 * start_share) as usize;
        let count = offsets.len() - 1 - start;
        let mut out = vec![0u64; count];
        first.local().unpack_differences(start, &mut out, Combine::Overwrite).unwrap();
        prop_assert_eq!(&out, &expected(&offsets, start, count));
        first.local().unpack_paired_differences(second.local(), start, &mut out).unwrap();
        let paired: Vec<u64> = expected(&offsets, start, count).iter().zip(expected(&reverse, start, count)).map(|(x, y)| x.wrapping_add(y)).collect();
        prop_assert_eq!(out, paired);
    }
}
