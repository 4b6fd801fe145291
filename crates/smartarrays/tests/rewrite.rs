//! Tests of the in-place parallel rewrite (`SmartArray::rewrite_batches`) against plain vectors:
//! every width 1..=64, edge lengths, every placement (replicas included, on a described 2-node
//! topology), odd thread counts, and what a value too wide for the array does.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use proptest::prelude::*;
use smartarrays::codec::max_value;
use smartarrays::{ArrayOptions, Error, Placement, Runtime, SmartArray, Topology};

fn old_value(i: usize, bits: u32) -> u64 {
    (i as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(17)
        & max_value(bits)
}

fn new_value(i: usize, bits: u32) -> u64 {
    (i as u64 ^ 0x5555)
        .wrapping_mul(0xD1B5_4A32_D192_ED03)
        .rotate_left(29)
        & max_value(bits)
}

fn runtimes() -> Vec<Arc<Runtime>> {
    let described = Arc::new(Topology::uniform(2, 2, 1 << 30).unwrap());
    vec![
        Arc::new(Runtime::with_threads(1).unwrap()),
        Arc::new(Runtime::on_described(described, 3).unwrap()),
    ]
}

fn replicas(array: &SmartArray) -> Vec<Vec<u64>> {
    (0..array.replica_count())
        .map(|r| array.replica(r).to_vec())
        .collect()
}

#[test]
fn rewrite_matches_a_vector_at_every_width_length_and_placement() {
    for runtime in runtimes() {
        for placement in Placement::all(runtime.topology()) {
            for bits in 1..=64u32 {
                for len in [0usize, 1, 63, 64, 65, 1023, 1025, 70_001] {
                    let options = ArrayOptions::new()
                        .placement(placement.clone())
                        .runtime(Arc::clone(&runtime))
                        .bits(bits);
                    let mut array =
                        SmartArray::from_fn(len, &options, |i| old_value(i, bits)).unwrap();
                    let calls = AtomicUsize::new(0);
                    array
                        .rewrite_batches(|range, out| {
                            assert_eq!(range.len(), out.len());
                            assert_eq!(range.start % 1024, 0);
                            assert!(out.len() <= 1024);
                            calls.fetch_add(range.len(), Ordering::Relaxed);
                            for (slot, i) in out.iter_mut().zip(range) {
                                *slot = new_value(i, bits);
                            }
                        })
                        .unwrap();
                    let expected: Vec<u64> = (0..len).map(|i| new_value(i, bits)).collect();
                    assert_eq!(array.bits(), bits);
                    assert_eq!(array.len(), len);
                    // Every value produced once per replica.
                    assert_eq!(
                        calls.into_inner(),
                        len * array.replica_count(),
                        "bits {bits} len {len} {placement}"
                    );
                    for (r, values) in replicas(&array).into_iter().enumerate() {
                        assert_eq!(
                            values, expected,
                            "bits {bits} len {len} {placement} replica {r}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn replicated_arrays_on_two_nodes_rewrite_both_copies() {
    let runtime = &runtimes()[1];
    let options = ArrayOptions::new()
        .placement(Placement::Replicated)
        .runtime(Arc::clone(runtime))
        .bits(17);
    let mut array = SmartArray::from_fn(100_003, &options, |i| old_value(i, 17)).unwrap();
    assert_eq!(array.replica_count(), 2);
    array
        .rewrite_batches(|range, out| {
            for (slot, i) in out.iter_mut().zip(range) {
                *slot = (i as u64 * 7) & max_value(17);
            }
        })
        .unwrap();
    let expected: Vec<u64> = (0..100_003)
        .map(|i| (i as u64 * 7) & max_value(17))
        .collect();
    assert_eq!(replicas(&array), vec![expected.clone(), expected.clone()]);
    // Reads through the public accessors agree too.
    assert_eq!(array.to_vec(), expected);
    assert_eq!(array.get(100_002).unwrap(), expected[100_002]);
}

#[test]
fn repeated_rewrites_keep_the_memory_and_the_values() {
    let mut array = SmartArray::from_fn(5000, &ArrayOptions::new().bits(32), |i| i as u64).unwrap();
    let before = array.replica(0).packed_words().as_ptr();
    for round in 0..5u64 {
        array
            .rewrite_batches(|range, out| {
                for (slot, i) in out.iter_mut().zip(range) {
                    *slot = i as u64 + round;
                }
            })
            .unwrap();
        assert_eq!(array.get(4999).unwrap(), 4999 + round);
    }
    assert_eq!(
        array.replica(0).packed_words().as_ptr(),
        before,
        "rewriting must not reallocate"
    );
}

#[test]
fn a_value_too_wide_is_refused_with_the_lowest_index_and_a_consistent_array() {
    for runtime in runtimes() {
        for placement in Placement::all(runtime.topology()) {
            for bits in [1u32, 7, 8, 31, 32, 33, 63] {
                let len = 200_000usize;
                let options = ArrayOptions::new()
                    .placement(placement.clone())
                    .runtime(Arc::clone(&runtime))
                    .bits(bits);
                let mut array = SmartArray::from_fn(len, &options, |i| old_value(i, bits)).unwrap();
                let too_wide = max_value(bits) + 1;
                let result = array.rewrite_batches(|range, out| {
                    for (slot, i) in out.iter_mut().zip(range) {
                        *slot = if i == 150_000 || i == 70_000 || i == 190_001 {
                            too_wide
                        } else {
                            new_value(i, bits)
                        };
                    }
                });
                assert_eq!(
                    result.unwrap_err(),
                    Error::ValueTooWide {
                        index: 70_000,
                        value: too_wide,
                        bits,
                        max: max_value(bits)
                    }
                );
                // Shape kept, replicas equal, every value rewritten (the misfits cut to the width).
                assert_eq!((array.len(), array.bits()), (len, bits));
                let copies = replicas(&array);
                assert!(
                    copies.windows(2).all(|pair| pair[0] == pair[1]),
                    "{placement} bits {bits}"
                );
                for (i, &value) in copies[0].iter().enumerate() {
                    let new = if [70_000, 150_000, 190_001].contains(&i) {
                        too_wide & max_value(bits)
                    } else {
                        new_value(i, bits)
                    };
                    assert_eq!(value, new, "{placement} bits {bits} index {i}");
                }
            }
        }
    }
}

#[test]
fn the_widest_value_fits_at_64_bits() {
    let mut array = SmartArray::from_fn(65, &ArrayOptions::new().bits(64), |_| 0).unwrap();
    array.rewrite_batches(|_, out| out.fill(u64::MAX)).unwrap();
    assert!(array.to_vec().iter().all(|&v| v == u64::MAX));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn rewrite_equals_a_vector(
        bits in 1u32..=64,
        len in prop_oneof![0usize..200, 4000usize..9000, Just(65_536), Just(65_537)],
        seed in any::<u64>(),
        threads in 1usize..=3,
    ) {
        let runtime = Arc::new(Runtime::with_threads(threads).unwrap());
        let options = ArrayOptions::new().runtime(runtime).bits(bits);
        let mut array = SmartArray::from_fn(len, &options, |i| old_value(i, bits)).unwrap();
        let value = |i: usize| (i as u64 ^ seed).wrapping_mul(0x2545_F491_4F6C_DD1D) & max_value(bits);
        array.rewrite_batches(|range, out| {
            for (slot, i) in out.iter_mut().zip(range) {
                *slot = value(i);
            }
        }).unwrap();
        let expected: Vec<u64> = (0..len).map(value).collect();
        prop_assert_eq!(array.to_vec(), expected);
    }
}
