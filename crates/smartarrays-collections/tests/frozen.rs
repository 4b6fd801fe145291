//! The frozen map and set against std references: every entry found with its value, absent
//! keys absent (domain ends, keys just past the stored range), batched against single lookups,
//! widths 0..=64, clusters in one bucket, duplicate input, and every placement on a described
//! two-node machine.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use smartarrays::{ArrayOptions, HugePages, Placement};
use smartarrays_collections::{Error, FrozenMap, FrozenSet, Key, Map, Value};

mod common;
use common::two_node_runtime;

/// Checks `map` against `reference`: every entry, `probes` (present or not) singly and in
/// batches of awkward lengths, and the iteration.
fn check<K, V>(map: &FrozenMap<K, V>, reference: &HashMap<K, V>, probes: &[K])
where
    K: Key + Eq + std::hash::Hash + std::fmt::Debug,
    V: Value + Eq + std::fmt::Debug,
{
    assert_eq!(map.len(), reference.len());
    assert_eq!(map.is_empty(), reference.is_empty());
    for (k, v) in reference {
        assert_eq!(map.get(*k), Some(*v), "key {k:?}");
    }
    for k in probes {
        assert_eq!(map.get(*k), reference.get(k).copied(), "probe {k:?}");
        assert_eq!(map.contains_key(*k), reference.contains_key(k));
    }
    let all: Vec<K> = reference
        .keys()
        .copied()
        .chain(probes.iter().copied())
        .collect();
    for batch in [0, 1, 7, 8, 9, 31, 32, 33, 1025] {
        for keys in all
            .chunks(batch.max(1))
            .take(if batch == 0 { 1 } else { 64 })
        {
            let keys = &keys[..batch.min(keys.len())];
            let mut out = vec![None; keys.len()];
            let found = map.get_many(keys, &mut out).unwrap();
            let mut present = vec![false; keys.len()];
            assert_eq!(map.contains_many(keys, &mut present).unwrap(), found);
            for ((k, got), here) in keys.iter().zip(&out).zip(&present) {
                assert_eq!(*got, reference.get(k).copied(), "batch {batch} key {k:?}");
                assert_eq!(*here, got.is_some());
            }
            assert_eq!(found, out.iter().filter(|v| v.is_some()).count());
        }
    }
    let listed: HashMap<K, V> = map.iter().collect();
    assert_eq!(
        listed.len(),
        reference.len(),
        "iteration repeats or drops entries"
    );
    assert_eq!(&listed, reference);
}

fn scattered(n: usize, stride: u64) -> Vec<u64> {
    (0..n as u64).map(|i| i.wrapping_mul(stride)).collect()
}

#[test]
fn edge_sizes_find_every_key_and_no_other() {
    for n in [
        0usize, 1, 2, 3, 4, 5, 63, 64, 65, 127, 128, 129, 1023, 1025, 4097,
    ] {
        let keys = scattered(n, 0x9e37_79b9_7f4a_7c15);
        let values: Vec<u64> = (0..n as u64).map(|i| i * 3 + 1).collect();
        let map = FrozenMap::from_pairs(&keys, &values).unwrap();
        let reference: HashMap<u64, u64> =
            keys.iter().copied().zip(values.iter().copied()).collect();
        let probes: Vec<u64> = scattered(64, 0x1234_5677)
            .into_iter()
            .chain([0, 1, u64::MAX, u64::MAX - 1])
            .collect();
        check(&map, &reference, &probes);
    }
}

#[test]
fn buckets_longer_than_the_branch_free_scan_are_searched_too() {
    // 2^16 buckets for 200,003 entries (about 3 a bucket): the Poisson tail gives buckets of
    // more than 8, which take the one-by-one scan.
    let keys = scattered(200_003, 0x2545_f491_4f6c_dd1d);
    let values: Vec<u64> = keys.iter().map(|k| k >> 40).collect();
    let map = FrozenMap::from_pairs(&keys, &values).unwrap();
    let report = map.memory_report();
    assert!(report.longest_bucket > 8, "{report}");
    let reference: HashMap<u64, u64> = keys.iter().copied().zip(values).collect();
    let probes: Vec<u64> = (0..20_000u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 1)
        .collect();
    check(&map, &reference, &probes);
}

#[test]
fn value_widths_from_zero_to_sixty_four() {
    let keys: Vec<u32> = (0..700u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    for bits in 0..=64u32 {
        let top = if bits == 0 {
            0
        } else {
            u64::MAX >> (64 - bits)
        };
        let values: Vec<u64> = (0..700u64)
            .map(|i| if i % 3 == 0 { top } else { i & top })
            .collect();
        let map = FrozenMap::from_pairs(&keys, &values).unwrap();
        assert_eq!(map.memory_report().value_bits, bits.min(64));
        let reference: HashMap<u32, u64> =
            keys.iter().copied().zip(values.iter().copied()).collect();
        check(&map, &reference, &[0, 1, u32::MAX, 12345]);
    }
}

#[test]
fn every_record_width_from_remainder_and_value_widths() {
    // Key domains of 1 to 64 bits against values of 0 to 64: records (remainder and value)
    // from 0 to 128 bits wide, every short-bucket scan's record step among them.
    for key_bits in [1u32, 2, 3, 5, 8, 13, 21, 31, 32, 33, 47, 57, 58, 63, 64] {
        let top = u64::MAX >> (64 - key_bits);
        let n = (top.min(60) + 1) as usize;
        let mut keys: Vec<u64> = (0..n as u64 - 1)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) & top)
            .filter(|&k| k != top)
            .collect();
        keys.push(top);
        for value_bits in 0..=64u32 {
            let vtop = if value_bits == 0 {
                0
            } else {
                u64::MAX >> (64 - value_bits)
            };
            let values: Vec<u64> = (0..keys.len() as u64)
                .map(|i| {
                    if i == 0 {
                        vtop
                    } else {
                        i.wrapping_mul(0x2545_f491) & vtop
                    }
                })
                .collect();
            let map = FrozenMap::from_pairs(&keys, &values).unwrap();
            let report = map.memory_report();
            assert_eq!(report.key_bits, key_bits);
            assert_eq!(report.value_bits, value_bits);
            let reference: HashMap<u64, u64> =
                keys.iter().copied().zip(values.iter().copied()).collect();
            let probes: Vec<u64> = (0..64u64)
                .map(|i| i.wrapping_mul(0x1234_5677_89ab_cdef) & top)
                .chain([top.wrapping_add(1), u64::MAX])
                .collect();
            for k in keys.iter().chain(&probes) {
                assert_eq!(map.get(*k), reference.get(k).copied(), "{report} key {k}");
            }
            let mut out = vec![None; probes.len()];
            map.get_many(&probes, &mut out).unwrap();
            for (k, got) in probes.iter().zip(&out) {
                assert_eq!(*got, reference.get(k).copied(), "{report} key {k}");
            }
        }
    }
}

#[test]
fn keys_at_the_domain_ends_and_just_outside_the_stored_range() {
    // u64 keys up to u64::MAX (a 64-bit domain).
    let keys = vec![0u64, 1, u64::MAX, u64::MAX - 1, 1 << 63];
    let values = vec![5u8, 6, 7, 8, 9];
    let map = FrozenMap::from_pairs(&keys, &values).unwrap();
    let reference: HashMap<u64, u8> = keys.iter().copied().zip(values).collect();
    check(
        &map,
        &reference,
        &[2, (1 << 63) + 1, (1 << 63) - 1, u64::MAX - 2],
    );
    // Small keys: a narrow domain; larger probes are outside it and absent.
    let keys: Vec<u16> = (0..200).collect();
    let values: Vec<i32> = (0..200).map(|i| -i).collect();
    let map = FrozenMap::from_pairs(&keys, &values).unwrap();
    assert_eq!(map.memory_report().key_bits, 8);
    let reference: HashMap<u16, i32> = keys.iter().copied().zip(values).collect();
    check(&map, &reference, &[200, 255, 256, 1000, u16::MAX]);
    // Signed keys through zigzag, every u8 key.
    let keys: Vec<i64> = vec![i64::MIN, i64::MAX, -1, 0, 1];
    let map = FrozenMap::from_pairs(&keys, &[1u64, 2, 3, 4, 5]).unwrap();
    let reference: HashMap<i64, u64> = keys.iter().copied().zip([1, 2, 3, 4, 5]).collect();
    check(&map, &reference, &[-2, 2, i64::MIN + 1, i64::MAX - 1]);
    let keys: Vec<u8> = (0..=255).collect();
    let map = FrozenMap::from_pairs(&keys, &keys).unwrap();
    let reference: HashMap<u8, u8> = keys.iter().map(|&k| (k, k)).collect();
    check(&map, &reference, &[]);
}

#[test]
fn every_key_of_a_full_domain_means_zero_bit_remainders() {
    // 2^12 keys of a 12-bit domain: 2^11 buckets, one-bit remainders, every bucket full.
    let keys: Vec<u16> = (0..4096).collect();
    let values: Vec<u16> = keys.iter().map(|k| k ^ 0x5a5).collect();
    let map = FrozenMap::from_pairs(&keys, &values).unwrap();
    let reference: HashMap<u16, u16> = keys.iter().copied().zip(values).collect();
    check(&map, &reference, &[4096, 5000, u16::MAX]);
    let set = FrozenSet::from_keys(&keys).unwrap();
    assert!(keys.iter().all(|&k| set.contains(k)));
    assert!(!set.contains(4096));
}

#[test]
fn readers_share_a_frozen_map_across_threads() {
    fn shareable<T: Send + Sync>(_: &T) {}
    let keys: Vec<u32> = (0..50_000).map(|i| i * 3).collect();
    let map = FrozenMap::from_pairs(&keys, &keys).unwrap();
    shareable(&map);
    std::thread::scope(|scope| {
        for t in 0..3u32 {
            let map = &map;
            scope.spawn(move || {
                for k in (t..150_000).step_by(7) {
                    assert_eq!(map.get(k), (k % 3 == 0).then_some(k));
                }
            });
        }
    });
}

#[test]
fn duplicate_keys_are_refused_naming_the_key() {
    let error = FrozenMap::from_pairs(&[5u32, 9, 5], &[1u32, 2, 3])
        .err()
        .unwrap();
    assert_eq!(error, Error::DuplicateKey { key: 5 });
    assert!(error.to_string().contains("key code 5"));
    assert_eq!(
        FrozenSet::from_keys(&[-3i32, 4, -3]).err().unwrap(),
        Error::DuplicateKey {
            key: Key::to_code(-3i32)
        }
    );
    assert_eq!(
        FrozenMap::from_pairs(&[1u64, 2], &[1u64]).err().unwrap(),
        Error::LengthMismatch { keys: 2, values: 1 }
    );
    let map = FrozenMap::from_pairs(&[1u64, 2], &[1u64, 2]).unwrap();
    let mut out = [None; 1];
    assert_eq!(
        map.get_many(&[1, 2], &mut out).err().unwrap(),
        Error::BufferTooSmall {
            needed: 2,
            given: 1
        }
    );
    let mut present = [false; 1];
    assert!(map.contains_many(&[1, 2], &mut present).is_err());
}

#[test]
fn frozen_from_a_map_matches_it_and_is_smaller() {
    let mut map: Map<u32, u32> = Map::new().unwrap();
    let keys: Vec<u32> = (0..200_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let values: Vec<u32> = (0..200_000u32).map(|i| i % (1 << 20)).collect();
    map.insert_many(&keys, &values).unwrap();
    let frozen = map.freeze().unwrap();
    let reference: HashMap<u32, u32> = keys.iter().copied().zip(values).collect();
    check(&frozen, &reference, &[1, 2, 3, u32::MAX]);
    let report = frozen.memory_report();
    assert!(
        report.bits_per_entry < 0.6 * 8.0 * map.memory_report().bytes_per_entry,
        "{report}"
    );
    // 16-bit remainders (32-bit keys, 2^16 buckets) and 18-bit values, index about 3 bits.
    assert_eq!((report.remainder_bits, report.value_bits), (16, 18));
    assert!(report.index_bits_per_entry < 4.0, "{report}");
}

#[test]
fn every_placement_on_two_nodes_reads_the_same_including_replicas() {
    let keys: Vec<u64> = (0..30_000u64)
        .map(|i| i * 2_654_435_761 % 1_000_003)
        .collect();
    let keys: Vec<u64> = keys
        .into_iter()
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let values: Vec<u64> = keys.iter().map(|k| k % 977).collect();
    let reference: HashMap<u64, u64> = keys.iter().copied().zip(values.iter().copied()).collect();
    for placement in [
        Placement::OsDefault,
        Placement::SingleNode(1),
        Placement::Interleaved(vec![]),
        Placement::Replicated,
        Placement::Auto,
    ] {
        let options = ArrayOptions::new()
            .runtime(two_node_runtime())
            .placement(placement.clone())
            .huge_pages(HugePages::Never);
        let map = FrozenMap::from_pairs_with(&keys, &values, &options).unwrap();
        check(&map, &reference, &[1_000_003, 1_000_004, 0]);
        let replicas = map.replica_count();
        assert_eq!(
            replicas,
            if placement == Placement::Replicated {
                2
            } else {
                1
            }
        );
        for replica in 0..replicas {
            for (k, v) in reference.iter().take(500) {
                assert_eq!(map.get_from_replica(replica, *k), Some(*v), "{placement}");
            }
        }
        assert_eq!(map.memory_report().replicas, replicas);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn frozen_maps_agree_with_hashmap(
        entries in proptest::collection::hash_map(any::<u64>(), any::<u64>(), 0..600),
        shift in 0u32..64,
        probes in proptest::collection::vec(any::<u64>(), 0..64),
    ) {
        // Keys narrowed by `shift`, so the domain width varies from 1 to 64 bits.
        let reference: HashMap<u64, u64> = entries.into_iter().map(|(k, v)| (k >> shift, v)).collect();
        let keys: Vec<u64> = reference.keys().copied().collect();
        let values: Vec<u64> = keys.iter().map(|k| reference[k]).collect();
        let map = FrozenMap::from_pairs(&keys, &values).unwrap();
        let probes: Vec<u64> = probes.into_iter().map(|p| p >> shift).collect();
        check(&map, &reference, &probes);
    }

    #[test]
    fn frozen_sets_agree_with_hashset(
        keys in proptest::collection::hash_set(0u32..5000, 0..700),
        probes in proptest::collection::vec(0u32..6000, 0..100),
    ) {
        let list: Vec<u32> = keys.iter().copied().collect();
        let set = FrozenSet::from_keys(&list).unwrap();
        prop_assert_eq!(set.len(), keys.len());
        for p in &probes {
            prop_assert_eq!(set.contains(*p), keys.contains(p));
        }
        let mut present = vec![false; probes.len()];
        let found = set.contains_many(&probes, &mut present).unwrap();
        prop_assert_eq!(found, probes.iter().filter(|p| keys.contains(p)).count());
        let listed: HashSet<u32> = set.iter().collect();
        prop_assert_eq!(listed, keys);
    }
}
