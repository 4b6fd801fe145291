//! `SmartArray::update_atomic_u32` / `update_atomic_u64`: values written in place by several
//! threads at once, at every placement (two described nodes, so replicated arrays have two
//! replicas that must end equal), edge lengths, and the widths that refuse.

use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use smartarrays::{ArrayOptions, Placement, Runtime, SmartArray, Topology};

const LENGTHS: [usize; 9] = [0, 1, 2, 63, 64, 65, 1023, 1025, 70_001];

fn runtimes() -> Vec<(Arc<Runtime>, &'static str)> {
    static TWO_NODES: OnceLock<Arc<Runtime>> = OnceLock::new();
    let two = TWO_NODES.get_or_init(|| {
        let topology = Arc::new(Topology::uniform(2, 2, 8 << 30).unwrap());
        Arc::new(Runtime::on_described(topology, 3).unwrap())
    });
    vec![
        (Arc::new(Runtime::with_threads(2).unwrap()), "this machine"),
        (Arc::clone(two), "two described nodes"),
    ]
}

/// Every replica of `array` holds `expected`.
fn check_replicas(array: &SmartArray, expected: &[u64], context: &str) {
    assert_eq!(array.to_vec(), expected, "{context}");
    for r in 0..array.replica_count() {
        assert_eq!(
            array.replica(r).to_vec(),
            expected,
            "{context}: replica {r}"
        );
    }
}

#[test]
fn values_written_by_threads_reach_every_replica() {
    for (runtime, label) in runtimes() {
        for placement in Placement::all(runtime.topology()) {
            for &len in &LENGTHS {
                for bits in [32u32, 64] {
                    let options = ArrayOptions::new()
                        .placement(placement.clone())
                        .bits(bits)
                        .runtime(Arc::clone(&runtime));
                    let max = if bits == 32 {
                        u64::from(u32::MAX)
                    } else {
                        u64::MAX
                    };
                    let mut array = SmartArray::from_fn(len, &options, |_| max).unwrap();
                    let context = format!("{label}: {placement} len {len} bits {bits}");
                    // Two threads claim the even and odd values; each value i ends as i * 3
                    // (the largest value where i is the last one, to test the top bits).
                    let written = |i: usize| {
                        if i + 1 == len {
                            max - 1
                        } else {
                            i as u64 * 3
                        }
                    };
                    let claimed = if bits == 32 {
                        array.update_atomic_u32(|values| {
                            assert_eq!(values.len(), len, "{context}");
                            std::thread::scope(|scope| {
                                for parity in 0..2 {
                                    scope.spawn(move || {
                                        for i in (parity..values.len()).step_by(2) {
                                            let new = written(i) as u32;
                                            let swapped = values[i].compare_exchange(
                                                u32::MAX,
                                                new,
                                                Ordering::Relaxed,
                                                Ordering::Relaxed,
                                            );
                                            assert!(swapped.is_ok());
                                        }
                                    });
                                }
                            });
                            values.len()
                        })
                    } else {
                        array.update_atomic_u64(|values| {
                            assert_eq!(values.len(), len, "{context}");
                            std::thread::scope(|scope| {
                                for parity in 0..2 {
                                    scope.spawn(move || {
                                        for i in (parity..values.len()).step_by(2) {
                                            values[i].store(written(i), Ordering::Relaxed);
                                        }
                                    });
                                }
                            });
                            values.len()
                        })
                    };
                    assert_eq!(claimed, Some(len), "{context}");
                    let expected: Vec<u64> = (0..len).map(written).collect();
                    check_replicas(&array, &expected, &context);
                    // The other method refuses and leaves the values as they are.
                    let refused = if bits == 32 {
                        array.update_atomic_u64(|_| ()).is_none()
                    } else {
                        array.update_atomic_u32(|_| ()).is_none()
                    };
                    assert!(refused, "{context}: other width");
                    check_replicas(&array, &expected, &context);
                }
            }
        }
    }
}

#[test]
fn other_widths_refuse_without_calling_the_body() {
    for bits in [1u32, 8, 16, 31, 33, 63] {
        let mut array =
            SmartArray::from_fn(100, &ArrayOptions::new().bits(bits), |i| i as u64 & 1).unwrap();
        assert_eq!(array.update_atomic_u32(|_| unreachable!()), None::<()>);
        assert_eq!(array.update_atomic_u64(|_| unreachable!()), None::<()>);
        let expected: Vec<u64> = (0..100).map(|i| i & 1).collect();
        assert_eq!(array.to_vec(), expected, "bits {bits}");
    }
}

#[test]
fn a_panicking_body_still_leaves_the_replicas_equal() {
    for (runtime, label) in runtimes() {
        for placement in Placement::all(runtime.topology()) {
            for bits in [32u32, 64] {
                let options = ArrayOptions::new()
                    .placement(placement.clone())
                    .bits(bits)
                    .runtime(Arc::clone(&runtime));
                let len = 1025;
                let mut array = SmartArray::zeroed(len, bits, &options).unwrap();
                let context = format!("{label}: {placement} bits {bits}");
                // The body writes the first 500 values, then panics.
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if bits == 32 {
                        array.update_atomic_u32(|values| {
                            for (i, value) in values.iter().enumerate().take(500) {
                                value.store(i as u32 + 1, Ordering::Relaxed);
                            }
                            panic!("the body fails half way");
                        });
                    } else {
                        array.update_atomic_u64(|values| {
                            for (i, value) in values.iter().enumerate().take(500) {
                                value.store(u64::MAX - i as u64, Ordering::Relaxed);
                            }
                            panic!("the body fails half way");
                        });
                    }
                }));
                let message = outcome.expect_err(&context);
                assert_eq!(
                    message.downcast_ref::<&str>(),
                    Some(&"the body fails half way"),
                    "{context}: the body's own panic goes on"
                );
                let expected: Vec<u64> = (0..len)
                    .map(|i| match (i < 500, bits) {
                        (false, _) => 0,
                        (true, 32) => i as u64 + 1,
                        (true, _) => u64::MAX - i as u64,
                    })
                    .collect();
                check_replicas(&array, &expected, &context);
            }
        }
    }
}
