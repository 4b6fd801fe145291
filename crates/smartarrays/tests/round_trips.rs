//! Round trips of the smart array core: every width 1..=64 x every placement x edge lengths,
//! with `get`, `unpack`, iteration, the chunk visitor and the sums all agreeing with a plain
//! `Vec<u64>`; maximum values at every width; property tests against the same reference.

use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use smartarrays::codec::{self, KernelLevel};
use smartarrays::{
    ArrayOptions, Compression, Error, HugePages, Placement, Runtime, SmartArray, Topology,
};

const LENGTHS: [usize; 10] = [0, 1, 63, 64, 65, 1023, 1024, 1025, 4097, 70_001];

fn runtime() -> Arc<Runtime> {
    static RUNTIME: OnceLock<Arc<Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| Arc::new(Runtime::with_threads(3).unwrap()))
        .clone()
}

/// A runtime on a described two-node machine, so replicated arrays really have two replicas.
fn two_node_runtime() -> Arc<Runtime> {
    static RUNTIME: OnceLock<Arc<Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let topology = Arc::new(Topology::uniform(2, 2, 8 << 30).unwrap());
            Arc::new(Runtime::on_described(topology, 3).unwrap())
        })
        .clone()
}

fn reference(len: usize, bits: u32, salt: u64) -> Vec<u64> {
    let mut state = 0x2545_F491_4F6C_DD1D ^ salt ^ ((bits as u64) << 32);
    (0..len)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Mix in maxima and zeros so every width sees its extremes.
            match i % 17 {
                0 => codec::max_value(bits),
                1 => 0,
                _ => state & codec::max_value(bits),
            }
        })
        .collect()
}

fn check_array(array: &SmartArray, expected: &[u64], context: &str) {
    assert_eq!(array.len(), expected.len(), "{context}");
    let wrapping_sum = expected.iter().fold(0u64, |s, &v| s.wrapping_add(v));
    for replica in 0..array.replica_count() {
        let view = array.replica(replica);
        for (i, &v) in expected.iter().enumerate() {
            assert_eq!(
                view.get(i).unwrap(),
                v,
                "{context} replica {replica} get({i})"
            );
        }
        assert!(
            matches!(view.get(expected.len()), Err(Error::IndexOutOfRange { .. })),
            "{context}"
        );
        assert_eq!(
            view.to_vec(),
            expected,
            "{context} replica {replica} unpack"
        );
        assert_eq!(
            view.iter().collect::<Vec<_>>(),
            expected,
            "{context} replica {replica} iter"
        );
        let mut visited = Vec::with_capacity(expected.len());
        view.for_each_chunk(0..expected.len(), |first, chunk| {
            assert_eq!(first, visited.len());
            visited.extend_from_slice(chunk);
        })
        .unwrap();
        assert_eq!(visited, expected, "{context} replica {replica} chunks");
        assert_eq!(
            view.sum_range(0..expected.len()).unwrap(),
            wrapping_sum,
            "{context} replica {replica} sum"
        );
    }
    assert_eq!(array.par_sum(), wrapping_sum, "{context} par_sum");
    assert_eq!(
        array.par_max(),
        expected.iter().copied().max(),
        "{context} par_max"
    );
    assert_eq!(
        array.par_min(),
        expected.iter().copied().min(),
        "{context} par_min"
    );
}

#[test]
fn every_width_every_placement_every_edge_length() {
    for (runtime, label) in [
        (runtime(), "this machine"),
        (two_node_runtime(), "two described nodes"),
    ] {
        let placements = Placement::all(runtime.topology());
        for bits in 1..=64 {
            for &len in &LENGTHS {
                let expected = reference(len, bits, len as u64);
                for placement in &placements {
                    let options = ArrayOptions::new()
                        .placement(placement.clone())
                        .bits(bits)
                        .runtime(Arc::clone(&runtime));
                    let array = SmartArray::from_slice(&expected, &options).unwrap();
                    let context = format!("{label}: bits {bits} len {len} placement {placement}");
                    assert_eq!(array.bits(), bits);
                    let replicas = if *placement == Placement::Replicated {
                        runtime.topology().nodes().len()
                    } else {
                        1
                    };
                    assert_eq!(array.replica_count(), replicas, "{context}");
                    // Full checks on the lengths that stress chunk edges; sums only on the long one.
                    if len <= 4097 || bits % 7 == 0 {
                        check_array(&array, &expected, &context);
                    } else {
                        assert_eq!(
                            array.par_sum(),
                            expected.iter().fold(0u64, |s, &v| s.wrapping_add(v)),
                            "{context}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn automatic_width_is_minimal_and_exact_width_refuses_misfits() {
    for bits in 1..=64u32 {
        let max = codec::max_value(bits);
        let array =
            SmartArray::from_slice(&[0, max, 1], &ArrayOptions::new().runtime(runtime())).unwrap();
        assert_eq!(array.bits(), bits);
        assert_eq!(array.get(1).unwrap(), max);
        if bits < 64 {
            let error = SmartArray::from_slice(
                &[0, max, max + 1, max + 2],
                &ArrayOptions::new().bits(bits).runtime(runtime()),
            )
            .unwrap_err();
            assert_eq!(
                error,
                Error::ValueTooWide {
                    index: 2,
                    value: max + 1,
                    bits,
                    max
                }
            );
            assert!(error
                .to_string()
                .contains(&format!("does not fit in {bits} bits")));
        }
    }
    let empty = SmartArray::from_slice(&[], &ArrayOptions::new().runtime(runtime())).unwrap();
    assert_eq!(
        (empty.len(), empty.bits(), empty.par_sum(), empty.par_max()),
        (0, 1, 0, None)
    );
    // The first misfit is reported even when several batches hold one.
    let mut values = vec![1u64; 300_000];
    values[250_000] = 1 << 20;
    values[70_000] = 1 << 21;
    let error = SmartArray::from_slice(&values, &ArrayOptions::new().bits(20).runtime(runtime()))
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::ValueTooWide {
                index: 70_000,
                value: 2_097_152,
                bits: 20,
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn set_writes_every_replica_and_refuses_bad_input_without_writing() {
    for bits in [1, 7, 32, 33, 63, 64] {
        let expected = reference(1025, bits, 9);
        let options = ArrayOptions::new()
            .placement(Placement::Replicated)
            .bits(bits)
            .runtime(two_node_runtime());
        let mut array = SmartArray::from_slice(&expected, &options).unwrap();
        assert_eq!(array.replica_count(), 2);
        let mut model = expected.clone();
        for (index, value) in [
            (0, codec::max_value(bits)),
            (63, 0),
            (64, 1),
            (1024, codec::max_value(bits) / 2),
        ] {
            array.set(index, value).unwrap();
            model[index] = value;
        }
        check_array(&array, &model, &format!("after set, bits {bits}"));
        assert!(matches!(
            array.set(1025, 0),
            Err(Error::IndexOutOfRange {
                index: 1025,
                len: 1025
            })
        ));
        if bits < 64 {
            assert!(matches!(
                array.set(3, codec::max_value(bits) + 1),
                Err(Error::ValueTooWide { .. })
            ));
        }
        check_array(&array, &model, &format!("after refused set, bits {bits}"));
    }
}

#[test]
fn ranges_and_buffers_are_checked() {
    let array = SmartArray::from_slice(
        &reference(100, 9, 1),
        &ArrayOptions::new().bits(9).runtime(runtime()),
    )
    .unwrap();
    let mut out = vec![0; 10];
    assert!(matches!(
        array.unpack(95, &mut out),
        Err(Error::RangeOutOfBounds {
            start: 95,
            end: 105,
            len: 100
        })
    ));
    assert!(array.unpack(90, &mut out).is_ok());
    assert!(matches!(
        array.local().sum_range(50..101),
        Err(Error::RangeOutOfBounds { .. })
    ));
    let (start, end) = (10, 5);
    assert!(array.for_each_chunk(start..end, |_, _| {}).is_err());
    assert!(matches!(
        SmartArray::from_slice(
            &[1],
            &ArrayOptions::new()
                .compression(Compression::Exactly(0))
                .runtime(runtime())
        ),
        Err(Error::InvalidBitWidth(0))
    ));
    assert!(matches!(
        SmartArray::from_slice(&[1], &ArrayOptions::new().bits(65).runtime(runtime())),
        Err(Error::InvalidBitWidth(65))
    ));
}

#[test]
fn bad_nodes_and_impossible_sizes_are_errors() {
    let missing = runtime().topology().node_ids().iter().max().unwrap() + 1;
    let options = ArrayOptions::new()
        .placement(Placement::SingleNode(missing))
        .runtime(runtime());
    assert!(matches!(
        SmartArray::from_slice(&[1, 2], &options),
        Err(Error::UnknownNode { .. })
    ));
    let options = ArrayOptions::new()
        .placement(Placement::Interleaved(vec![missing]))
        .runtime(runtime());
    assert!(matches!(
        SmartArray::zeroed(10, 3, &options),
        Err(Error::UnknownNode { .. })
    ));
    // More than any node has: refused up front, before touching memory.
    let options = ArrayOptions::new()
        .placement(Placement::SingleNode(0))
        .runtime(runtime());
    assert!(matches!(
        SmartArray::zeroed(1 << 45, 64, &options),
        Err(Error::NotEnoughMemory { node: 0, .. })
    ));
    // An absurd OS-default mapping is refused up front too, before the kernel is asked.
    assert!(matches!(
        SmartArray::zeroed(usize::MAX / 64, 64, &ArrayOptions::new().runtime(runtime())),
        Err(Error::NotEnoughMachineMemory { .. })
    ));
    assert!(matches!(
        SmartArray::zeroed(usize::MAX, 2, &ArrayOptions::new().runtime(runtime())),
        Err(Error::AllocationFailed { .. })
    ));
}

/// Regression (fuzz target `c_abi`, timeout input `00 1a 6f 53`): `sa_array_new` with the minimal
/// width and 1.6e16 values produced every value once to find the width before the memory check,
/// which would have taken hours. Every placement now refuses such a size before the first value.
#[test]
fn minimal_width_of_an_impossible_length_fails_before_producing_values() {
    let calls = std::sync::atomic::AtomicU64::new(0);
    for (placement, runtime) in [
        (Placement::OsDefault, runtime()),
        (Placement::SingleNode(0), runtime()),
        (Placement::Interleaved(vec![]), two_node_runtime()),
        (Placement::Replicated, two_node_runtime()),
    ] {
        for compression in [Compression::Minimal, Compression::Uncompressed] {
            let options = ArrayOptions::new()
                .placement(placement.clone())
                .compression(compression)
                .runtime(runtime.clone());
            let result = SmartArray::from_fn(7_281_152 << 31, &options, |_| {
                calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                0
            });
            assert!(
                matches!(
                    result,
                    Err(Error::NotEnoughMemory { .. } | Error::NotEnoughMachineMemory { .. })
                ),
                "{placement}: {result:?}"
            );
        }
    }
    // The advisor placing an exact width needs the values too: the size is checked first.
    for compression in [Compression::Exactly(8), Compression::Auto] {
        let options = ArrayOptions::new()
            .placement(Placement::Auto)
            .compression(compression)
            .runtime(runtime());
        let result = SmartArray::from_fn(7_281_152 << 31, &options, |_| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            0
        });
        assert!(
            matches!(
                result,
                Err(Error::NotEnoughMemory { .. } | Error::NotEnoughMachineMemory { .. })
            ),
            "auto placement, {compression:?}: {result:?}"
        );
    }
    assert_eq!(
        calls.into_inner(),
        0,
        "no value may be produced for an impossible size"
    );
}

#[test]
fn memory_stays_within_the_packed_size_plus_one_percent_and_a_page_per_replica() {
    let page = smartarrays::memory::page_size() as f64;
    for bits in [1, 3, 10, 31, 33, 50, 63, 64] {
        for len in [0usize, 1, 1000, 1 << 16, 3_000_001] {
            for (placement, runtime) in [
                (Placement::OsDefault, runtime()),
                (Placement::Replicated, two_node_runtime()),
            ] {
                let options = ArrayOptions::new()
                    .placement(placement.clone())
                    .huge_pages(HugePages::Never)
                    .runtime(runtime);
                let array = SmartArray::zeroed(len, bits, &options).unwrap();
                let replicas = array.replica_count() as f64;
                let limit = replicas * (len as f64 * bits as f64 / 8.0 * 1.01 + page);
                assert!(
                    array.memory_bytes() as f64 <= limit,
                    "bits {bits} len {len} {placement}: {} > {limit}",
                    array.memory_bytes()
                );
            }
        }
    }
}

#[test]
fn signed_and_float_arrays_round_trip() {
    use smartarrays::{F64Array, SignedArray};
    let values: Vec<i64> = vec![0, -1, 1, i64::MIN, i64::MAX, -1000, 999, 42];
    let array = SignedArray::from_slice(&values, &ArrayOptions::new().runtime(runtime())).unwrap();
    assert_eq!(array.bits(), 64);
    assert_eq!(array.to_vec(), values);
    assert_eq!(
        array.sum(),
        values.iter().fold(0i64, |s, &v| s.wrapping_add(v))
    );
    let small: Vec<i64> = (-500..500).collect();
    let array = SignedArray::from_slice(
        &small,
        &ArrayOptions::new()
            .placement(Placement::Replicated)
            .runtime(two_node_runtime()),
    )
    .unwrap();
    assert_eq!(array.bits(), 10);
    assert_eq!(
        (0..small.len())
            .map(|i| array.get(i).unwrap())
            .collect::<Vec<_>>(),
        small
    );
    assert_eq!(array.sum(), -500);
    assert!(
        SignedArray::from_slice(&[-513], &ArrayOptions::new().bits(10).runtime(runtime())).is_err()
    );

    for placement in Placement::all(two_node_runtime().topology()) {
        let floats: Vec<f64> = (0..1025).map(|i| i as f64 * 0.25 - 7.0).collect();
        let options = ArrayOptions::new()
            .placement(placement)
            .runtime(two_node_runtime());
        let mut array = F64Array::from_slice(&floats, &options).unwrap();
        assert_eq!(array.to_vec(), floats);
        assert_eq!(array.par_sum(), floats.iter().sum::<f64>());
        array.set(3, f64::NAN).unwrap();
        assert!(array.get(3).unwrap().is_nan());
        for replica in 0..array.raw().replica_count() {
            assert!(array.replica_slice(replica)[3].is_nan());
        }
    }
}

#[test]
fn every_kernel_level_agrees_on_long_unaligned_ranges() {
    for bits in 1..=64u32 {
        let expected = reference(5000, bits, 3);
        let mut words = vec![0u64; codec::storage_words(expected.len(), bits).unwrap()];
        codec::pack_into(&mut words, bits, expected.iter().copied());
        for level in KernelLevel::supported() {
            for (start, end) in [(0, 5000), (1, 4999), (17, 2000), (4090, 5000)] {
                let mut out = vec![0; end - start];
                codec::unpack_range_with(level, &words, bits, start, &mut out);
                assert_eq!(out, &expected[start..end], "bits {bits} {level:?}");
                let sum = expected[start..end]
                    .iter()
                    .fold(0u64, |s, &v| s.wrapping_add(v));
                assert_eq!(
                    codec::sum_range_with(level, &words, bits, start, end),
                    sum,
                    "bits {bits} {level:?}"
                );
            }
        }
    }
}

/// Short and medium ranges at every alignment, ending anywhere up to the array's last value (the
/// SIMD levels decode a partial head or tail group whole from the padded storage).
#[test]
fn every_kernel_level_agrees_on_short_ranges_at_every_alignment() {
    const LENGTHS: [usize; 14] = [0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 1025];
    for bits in 1..=64u32 {
        for total in [1usize, 9, 1100] {
            let expected = reference(total, bits, u64::from(bits) + total as u64);
            let mut words = vec![0u64; codec::storage_words(total, bits).unwrap()];
            codec::pack_into(&mut words, bits, expected.iter().copied());
            for level in KernelLevel::supported() {
                for len in LENGTHS.into_iter().filter(|&len| len <= total) {
                    let last = total - len;
                    let starts = (0..=last.min(17)).chain(last.saturating_sub(9)..=last);
                    for start in starts {
                        let mut out = vec![u64::MAX; len + 1];
                        codec::unpack_range_with(level, &words, bits, start, &mut out[..len]);
                        assert_eq!(
                            &out[..len],
                            &expected[start..start + len],
                            "bits {bits} {level:?} start {start} len {len}"
                        );
                        assert_eq!(out[len], u64::MAX, "wrote past the range");
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn arrays_behave_like_a_vec(bits in 1u32..=64, raw in proptest::collection::vec(any::<u64>(), 0..700),
                                edits in proptest::collection::vec((any::<usize>(), any::<u64>()), 0..20),
                                placement in 0usize..4, start in 0usize..700, count in 0usize..700) {
        let mask = codec::max_value(bits);
        let mut model: Vec<u64> = raw.iter().map(|v| v & mask).collect();
        let runtime = two_node_runtime();
        let placement = Placement::all(runtime.topology())[placement].clone();
        let mut array = SmartArray::from_slice(&model, &ArrayOptions::new().placement(placement).bits(bits).runtime(runtime)).unwrap();
        for (index, value) in edits {
            if model.is_empty() { break; }
            let index = index % model.len();
            let result = array.set(index, value);
            if value <= mask {
                prop_assert!(result.is_ok());
                model[index] = value;
            } else {
                let is_too_wide = matches!(result, Err(Error::ValueTooWide { .. }));
                prop_assert!(is_too_wide);
            }
        }
        prop_assert_eq!(array.to_vec(), model.clone());
        let start = start.min(model.len());
        let end = (start + count).min(model.len());
        let mut out = vec![0; end - start];
        array.unpack(start, &mut out).unwrap();
        prop_assert_eq!(&out[..], &model[start..end]);
        prop_assert_eq!(array.local().sum_range(start..end).unwrap(), model[start..end].iter().fold(0u64, |s, &v| s.wrapping_add(v)));
        for replica in 0..array.replica_count() {
            prop_assert_eq!(array.replica(replica).iter().collect::<Vec<_>>(), model.clone());
        }
    }
}

#[test]
fn many_threads_read_one_array_at_once() {
    for runtime in [runtime(), two_node_runtime()] {
        let expected = reference(100_003, 27, 5);
        let options = ArrayOptions::new()
            .placement(Placement::Replicated)
            .bits(27)
            .runtime(runtime);
        let array = SmartArray::from_slice(&expected, &options).unwrap();
        let total = expected.iter().fold(0u64, |s, &v| s.wrapping_add(v));
        std::thread::scope(|scope| {
            for reader in 0..9 {
                let (array, expected) = (&array, &expected);
                scope.spawn(move || {
                    for i in (reader..expected.len()).step_by(97) {
                        assert_eq!(array.get(i).unwrap(), expected[i]);
                    }
                    assert_eq!(array.sum(), total);
                    assert_eq!(array.par_sum(), total);
                });
            }
        });
    }
}

#[test]
fn packed_words_rebuild_the_same_array_at_every_width_and_placement() {
    for bits in 1..=64u32 {
        for len in [0usize, 1, 63, 64, 65, 1023, 1025] {
            let values = reference(len, bits, 3);
            let options = ArrayOptions::new().bits(bits).runtime(runtime());
            let array = SmartArray::from_slice(&values, &options).unwrap();
            let words: Vec<u64> = array
                .local()
                .packed_bytes()
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(words.len(), (len * bits as usize).div_ceil(64));
            for placement in Placement::all(two_node_runtime().topology()) {
                let target = ArrayOptions::new()
                    .placement(placement.clone())
                    .runtime(two_node_runtime());
                let copy = SmartArray::from_packed_words(len, bits, &words, &target).unwrap();
                assert_eq!(
                    (copy.bits(), copy.to_vec()),
                    (bits, values.clone()),
                    "{bits} {len} {placement}"
                );
            }
            // One word too many or too few is refused, naming both counts.
            let mut longer = words.clone();
            longer.push(0);
            assert!(matches!(
                SmartArray::from_packed_words(len, bits, &longer, &options),
                Err(Error::PackedLengthMismatch { given, expected, .. }) if given == expected + 1
            ));
        }
    }
    assert!(matches!(
        SmartArray::from_packed_words(10, 65, &[0; 11], &ArrayOptions::new()),
        Err(Error::InvalidBitWidth(65))
    ));
}
