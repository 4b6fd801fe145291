//! Tests of the batch-wise construction (`SmartArray::from_batches`) and the parallel in-place
//! rewrite (`F64Array::par_update`) against plain vectors, at every width, odd lengths and every
//! placement (replicas included, on a described multi-node topology).

use std::sync::Arc;

use smartarrays::codec::max_value;
use smartarrays::{
    ArrayOptions, Compression, Error, F64Array, Placement, Runtime, SmartArray, Topology,
};

fn value(i: usize, bits: u32) -> u64 {
    (i as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(17)
        & max_value(bits)
}

fn runtimes() -> Vec<Arc<Runtime>> {
    let described = Arc::new(Topology::uniform(2, 1, 1 << 30).unwrap());
    vec![
        Arc::new(Runtime::with_threads(2).unwrap()),
        Arc::new(Runtime::on_described(described, 3).unwrap()),
    ]
}

#[test]
fn from_batches_matches_a_vector_at_every_width_length_and_placement() {
    for runtime in runtimes() {
        for placement in Placement::all(runtime.topology()) {
            for bits in 1..=64u32 {
                for len in [0usize, 1, 63, 64, 65, 1023, 1025, 70_001] {
                    let expected: Vec<u64> = (0..len).map(|i| value(i, bits)).collect();
                    let options = ArrayOptions::new()
                        .placement(placement.clone())
                        .runtime(Arc::clone(&runtime))
                        .bits(bits);
                    let array = SmartArray::from_batches(len, &options, |range, out| {
                        assert_eq!(range.len(), out.len());
                        for (slot, i) in out.iter_mut().zip(range) {
                            *slot = value(i, bits);
                        }
                    })
                    .unwrap();
                    assert_eq!(array.bits(), bits);
                    for replica in 0..array.replica_count() {
                        assert_eq!(
                            array.replica(replica).to_vec(),
                            expected,
                            "bits {bits} len {len} {placement}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn from_batches_picks_the_minimal_width_and_refuses_misfits() {
    let auto = SmartArray::from_batches(
        100_000,
        &ArrayOptions::new().compression(Compression::Minimal),
        |range, out| {
            for (slot, i) in out.iter_mut().zip(range) {
                *slot = i as u64 % 5000;
            }
        },
    )
    .unwrap();
    assert_eq!(auto.bits(), 13);
    assert_eq!(auto.get(99_999).unwrap(), 99_999 % 5000);
    let misfit = SmartArray::from_batches(200_000, &ArrayOptions::new().bits(8), |range, out| {
        for (slot, i) in out.iter_mut().zip(range) {
            *slot = if i == 150_000 || i == 190_000 { 256 } else { 1 };
        }
    });
    assert_eq!(
        misfit.unwrap_err(),
        Error::ValueTooWide {
            index: 150_000,
            value: 256,
            bits: 8,
            max: 255
        }
    );
}

#[test]
fn par_update_rewrites_every_batch_once_and_updates_replicas() {
    for runtime in runtimes() {
        for placement in Placement::all(runtime.topology()) {
            for len in [0usize, 1, 63, 65, 1025, 100_003] {
                for batch in [1usize, 64, 1000, 1 << 16] {
                    let options = ArrayOptions::new()
                        .placement(placement.clone())
                        .runtime(Arc::clone(&runtime));
                    let mut array = F64Array::from_fn(len, &options, |i| i as f64).unwrap();
                    let touched = array.par_update(
                        batch,
                        || 0usize,
                        |count, _worker, range, values| {
                            assert_eq!(range.len(), values.len());
                            assert_eq!(range.start % batch, 0);
                            for (value, i) in values.iter_mut().zip(range) {
                                assert_eq!(*value, i as f64);
                                *value = i as f64 * 0.5 + 1.0;
                            }
                            count + values.len()
                        },
                        |a, b| a + b,
                    );
                    assert_eq!(touched, len);
                    let expected: Vec<f64> = (0..len).map(|i| i as f64 * 0.5 + 1.0).collect();
                    for replica in 0..array.raw().replica_count() {
                        assert_eq!(
                            array.replica_slice(replica),
                            &expected[..],
                            "{placement} len {len} batch {batch}"
                        );
                    }
                }
            }
        }
    }
}
