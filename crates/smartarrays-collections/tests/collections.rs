//! The collections against std references: random operation sequences (widening, growth,
//! removal, duplicate and edge keys), batched against single operations, the parallel group-by
//! against a fold, bags past 2^32, and every placement on a described two-node machine.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use proptest::prelude::*;
use smartarrays::{ArrayOptions, HugePages, Placement, Runtime, Topology};
use smartarrays_collections::{Bag, Dictionary, Error, Map, Set};

mod common;
use common::two_node_runtime;

fn two_node(placement: Placement) -> ArrayOptions {
    ArrayOptions::new()
        .runtime(two_node_runtime())
        .placement(placement)
        .huge_pages(HugePages::Never)
}

fn placements() -> Vec<Placement> {
    vec![
        Placement::OsDefault,
        Placement::SingleNode(1),
        Placement::Interleaved(vec![]),
        Placement::Replicated,
        Placement::Auto,
    ]
}

fn sorted<K: Ord, V: Ord>(items: impl Iterator<Item = (K, V)>) -> Vec<(K, V)> {
    let mut items: Vec<_> = items.collect();
    items.sort();
    items
}

fn check_map(map: &Map<u64, u64>, reference: &HashMap<u64, u64>) {
    assert_eq!(map.len(), reference.len());
    assert_eq!(
        sorted(map.iter()),
        sorted(reference.iter().map(|(&k, &v)| (k, v)))
    );
    for (&k, &v) in reference {
        assert_eq!(map.get(k), Some(v), "key {k}");
    }
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u64, u64),
    Upsert(u64, u64),
    Remove(u64),
    Get(u64),
}

fn key_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..64,
        0u64..5000,
        Just(0u64),
        Just(u64::MAX),
        Just(u64::MAX - 1),
        any::<u64>(),
        (0u32..64).prop_map(|b| 1u64 << b),
    ]
}

fn value_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..4,
        0u64..1 << 20,
        Just(u64::MAX),
        any::<u64>(),
        (0u32..64).prop_map(|b| (1u64 << b) - 1),
    ]
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (key_strategy(), value_strategy()).prop_map(|(k, v)| Op::Insert(k, v)),
        3 => (key_strategy(), value_strategy()).prop_map(|(k, v)| Op::Upsert(k, v)),
        2 => key_strategy().prop_map(Op::Remove),
        2 => key_strategy().prop_map(Op::Get),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn random_operations_match_a_hashmap(ops in prop::collection::vec(op_strategy(), 0..1500)) {
        let mut map: Map<u64, u64> = Map::new().unwrap();
        let mut reference = HashMap::new();
        for op in ops {
            match op {
                Op::Insert(k, v) => prop_assert_eq!(map.insert(k, v).unwrap(), reference.insert(k, v)),
                Op::Upsert(k, v) => {
                    let expected = reference.get(&k).map_or(v, |&old: &u64| old ^ v.rotate_left(7));
                    reference.insert(k, expected);
                    prop_assert_eq!(map.upsert(k, v, |old, new| old ^ new.rotate_left(7)).unwrap(), expected);
                }
                Op::Remove(k) => prop_assert_eq!(map.remove(k), reference.remove(&k)),
                Op::Get(k) => prop_assert_eq!(map.get(k), reference.get(&k).copied()),
            }
        }
        check_map(&map, &reference);
    }

    #[test]
    fn batched_operations_agree_with_single_ones(
        keys in prop::collection::vec(key_strategy(), 0..1100),
        probes in prop::collection::vec(key_strategy(), 0..300),
    ) {
        let values: Vec<u64> = keys.iter().map(|k| k.wrapping_mul(31) >> 3).collect();
        let mut batched: Map<u64, u64> = Map::new().unwrap();
        batched.upsert_many(&keys, &values, |a, b| a.wrapping_add(b)).unwrap();
        let mut single: Map<u64, u64> = Map::new().unwrap();
        let mut reference: HashMap<u64, u64> = HashMap::new();
        for (&k, &v) in keys.iter().zip(&values) {
            single.upsert(k, v, |a, b| a.wrapping_add(b)).unwrap();
            let slot = reference.entry(k).or_insert(0);
            *slot = slot.wrapping_add(v);
        }
        check_map(&batched, &reference);
        check_map(&single, &reference);
        let all: Vec<u64> = probes.iter().chain(&keys).copied().collect();
        let mut out = vec![None; all.len()];
        let hits = batched.get_many(&all, &mut out).unwrap();
        let mut present = vec![false; all.len()];
        prop_assert_eq!(batched.contains_many(&all, &mut present).unwrap(), hits);
        for (i, k) in all.iter().enumerate() {
            prop_assert_eq!(out[i], reference.get(k).copied());
            prop_assert_eq!(out[i], single.get(*k));
            prop_assert_eq!(present[i], reference.contains_key(k));
        }
        prop_assert_eq!(hits, all.iter().filter(|k| reference.contains_key(k)).count());

        let mut set: Set<u64> = Set::new().unwrap();
        set.insert_many(&keys).unwrap();
        let expected: HashSet<u64> = keys.iter().copied().collect();
        prop_assert_eq!(set.len(), expected.len());
        prop_assert_eq!(set.iter().collect::<HashSet<_>>(), expected);
    }

    #[test]
    fn group_by_equals_a_hashmap_fold(
        keys in prop::collection::vec(prop_oneof![0u64..50, 0u64..40_000, any::<u64>()], 0..40_000),
    ) {
        let values: Vec<u32> = keys.iter().map(|&k| (k % 1000) as u32).collect();
        let mut reference: HashMap<u64, u32> = HashMap::new();
        for (&k, &v) in keys.iter().zip(&values) {
            *reference.entry(k).or_insert(0) += v;
        }
        let options = two_node(Placement::OsDefault);
        let map = Map::aggregate_parallel(&keys, &values, |a, b| a + b, &options).unwrap();
        prop_assert_eq!(map.len(), reference.len());
        prop_assert_eq!(sorted(map.iter()), sorted(reference.iter().map(|(&k, &v)| (k, v))));
        let bag = Bag::count_parallel(&keys, &options).unwrap();
        let mut counts: HashMap<u64, u64> = HashMap::new();
        for &k in &keys {
            *counts.entry(k).or_insert(0) += 1;
        }
        prop_assert_eq!(sorted(bag.iter()), sorted(counts.iter().map(|(&k, &v)| (k, v))));
    }
}

#[test]
fn edge_sizes_grow_and_shrink_exactly() {
    for n in [0usize, 1, 63, 64, 65, 1023, 1025, 20_000] {
        let mut map: Map<u64, u64> = Map::new().unwrap();
        let mut reference = HashMap::new();
        for i in 0..n as u64 {
            let key = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i << 40);
            map.insert(key, i).unwrap();
            reference.insert(key, i);
        }
        check_map(&map, &reference);
        assert!(map.get(u64::MAX - 12345).is_none() || reference.contains_key(&(u64::MAX - 12345)));
        let doomed: Vec<u64> = reference.keys().copied().step_by(2).collect();
        for key in doomed {
            assert_eq!(map.remove(key), reference.remove(&key));
            assert_eq!(map.remove(key), None);
        }
        check_map(&map, &reference);
        let set = Set::from_keys(&(0..n as u32).collect::<Vec<_>>()).unwrap();
        assert_eq!(set.len(), n);
        assert!((0..n as u32).all(|k| set.contains(k)));
        assert!(!set.contains(n as u32));
    }
}

#[test]
fn widths_follow_the_data_and_widen_without_truncating() {
    let mut map: Map<u64, u64> = Map::new().unwrap();
    map.insert(3, 1).unwrap();
    let narrow = map.memory_report();
    assert!(narrow.value_bits < 8, "{narrow}");
    assert!(narrow.key_bits < 16, "{narrow}");
    for i in 0..1000u64 {
        map.insert(i, i % 7).unwrap();
    }
    map.insert(u64::MAX, u64::MAX).unwrap();
    map.insert(1 << 63, 1 << 40).unwrap();
    let wide = map.memory_report();
    assert_eq!((wide.key_bits, wide.value_bits), (64, 64), "{wide}");
    assert_eq!(map.get(u64::MAX), Some(u64::MAX));
    assert_eq!(map.get(1 << 63), Some(1 << 40));
    assert!((0..1000u64).all(|i| map.get(i) == Some(i % 7)));
    assert_eq!(map.len(), 1002);

    let mut small: Map<u32, u32> = Map::new().unwrap();
    for i in 0..5000u32 {
        small.insert(i, i & 0xff).unwrap();
    }
    let report = small.memory_report();
    assert!(
        report.bucket_bytes as f64 / (report.entries as f64) < 8.0,
        "{report}"
    );
    small.upsert(17, u32::MAX, |a, b| a | b).unwrap();
    assert_eq!(small.get(17), Some(u32::MAX));
    assert_eq!(small.memory_report().value_bits, 32);
    assert!((0..5000u32)
        .filter(|&i| i != 17)
        .all(|i| small.get(i) == Some(i & 0xff)));

    let mut signed: Map<i64, i32> = Map::new().unwrap();
    for k in [i64::MIN, -1, 0, 1, i64::MAX] {
        signed.insert(k, (k % 1000) as i32 - 5).unwrap();
    }
    for k in [i64::MIN, -1, 0, 1, i64::MAX] {
        assert_eq!(signed.get(k), Some((k % 1000) as i32 - 5));
    }
}

#[test]
fn bag_counts_widen_past_32_bits_and_refuse_to_wrap() {
    let mut bag: Bag<u32> = Bag::new().unwrap();
    for k in 0..200u32 {
        bag.add(k, 1).unwrap();
    }
    assert!(bag.memory_report().value_bits < 8);
    bag.add(5, u64::from(u32::MAX)).unwrap();
    bag.add(5, 10).unwrap();
    assert_eq!(bag.count(5), (1u64 << 32) + 10);
    assert!(bag.memory_report().value_bits >= 33);
    for _ in 0..3 {
        bag.add(6, 3 << 31).unwrap();
    }
    assert_eq!(bag.count(6), 1 + 9 * (1u64 << 31));
    assert!((0..200u32)
        .filter(|k| *k != 5 && *k != 6)
        .all(|k| bag.count(k) == 1));
    bag.add(7, u64::MAX - 1).unwrap();
    assert_eq!(bag.count(7), u64::MAX);
    let error = bag.add(7, 1).unwrap_err();
    assert!(
        matches!(
            error,
            Error::CountOverflow {
                key: 7,
                count: u64::MAX,
                add: 1
            }
        ),
        "{error}"
    );
    assert_eq!(bag.count(7), u64::MAX, "unchanged after the refusal");
    assert!(bag.add_many(&[7]).is_err());
    assert_eq!(bag.count(7), u64::MAX);

    let keys = vec![9u64; 3000];
    let counted = Bag::count_parallel(&keys, &ArrayOptions::new()).unwrap();
    assert_eq!(counted.count(9), 3000);
    let mut out = [0u64; 2];
    assert_eq!(counted.count_many(&[9, 10], &mut out).unwrap(), 1);
    assert_eq!(out, [3000, 0]);
}

#[test]
fn every_placement_on_two_nodes_reads_the_same_including_replicas() {
    let keys: Vec<u64> = (0..30_000u64).map(|i| i * 2654435761 % 1_000_003).collect();
    let values: Vec<u64> = keys.iter().map(|k| k % 977).collect();
    let mut reference: HashMap<u64, u64> = HashMap::new();
    for (&k, &v) in keys.iter().zip(&values) {
        *reference.entry(k).or_insert(0) += v;
    }
    for placement in placements() {
        let options = two_node(placement.clone());
        let mut map = Map::aggregate_parallel(&keys, &values, |a, b| a + b, &options).unwrap();
        check_map(&map, &reference);
        let replicas = if placement == Placement::Replicated {
            2
        } else {
            1
        };
        assert_eq!(map.memory_report().replicas, replicas, "{placement}");
        if placement == Placement::Replicated {
            assert_eq!(map.replica_nodes(), vec![Some(0), Some(1)]);
        }
        // Every replica holds every entry, after writes too.
        map.insert(1 << 50, 5).unwrap();
        map.remove(keys[0]);
        let mut expected = reference.clone();
        expected.insert(1 << 50, 5);
        expected.remove(&keys[0]);
        for replica in 0..replicas {
            for (&k, &v) in &expected {
                assert_eq!(
                    map.get_from_replica(replica, k),
                    Some(v),
                    "{placement} replica {replica}"
                );
            }
            assert_eq!(map.get_from_replica(replica, keys[0]), None);
        }
        // Readers on each node's workers use their node's replica and agree.
        let probe: Vec<u64> = expected.keys().copied().take(500).collect();
        let results = map.runtime().on_each_worker(|_| {
            let mut out = vec![None; probe.len()];
            map.get_many(&probe, &mut out).unwrap();
            out
        });
        for out in results {
            assert!(out
                .iter()
                .zip(&probe)
                .all(|(o, k)| *o == expected.get(k).copied()));
        }
        let mut single: Map<u32, u32> = Map::with_options(&options).unwrap();
        for i in 0..3000u32 {
            single.insert(i * 7, i).unwrap();
        }
        assert!(
            (0..3000u32).all(|i| single.get(i * 7) == Some(i)),
            "{placement}"
        );
    }
}

#[test]
fn errors_are_typed_not_panics() {
    // A described machine with 1 MiB per node cannot hold a table for ten million entries:
    // refused before mapping.
    let topology = Arc::new(Topology::uniform(2, 1, 1 << 20).unwrap());
    let runtime = Arc::new(Runtime::on_described(topology, 1).unwrap());
    for placement in placements() {
        let options = ArrayOptions::new()
            .runtime(Arc::clone(&runtime))
            .placement(placement);
        let error =
            Map::<u64, u64>::with_capacity(10_000_000, u64::MAX, u64::MAX, &options).unwrap_err();
        assert!(matches!(error, Error::Memory(_)), "{error}");
        let mut map: Map<u64, u64> = Map::with_options(&options).unwrap();
        let mut failed = None;
        for i in 0..1_000_000u64 {
            if let Err(error) = map.insert(i.wrapping_mul(0x9e37_79b9_7f4a_7c15), i) {
                failed = Some((i, error));
                break;
            }
        }
        let (inserted, error) = failed.expect("runs out of the described memory");
        assert!(matches!(error, Error::Memory(_)), "{error}");
        assert_eq!(
            map.len() as u64,
            inserted,
            "the failed insert changed nothing"
        );
        assert!((0..inserted).all(|i| map.get(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)) == Some(i)));
    }
    let mut map: Map<u64, u64> = Map::new().unwrap();
    assert!(matches!(
        map.insert_many(&[1, 2], &[1]),
        Err(Error::LengthMismatch { keys: 2, values: 1 })
    ));
    assert!(matches!(
        map.get_many(&[1, 2], &mut [None]),
        Err(Error::BufferTooSmall {
            needed: 2,
            given: 1
        })
    ));
    assert!(matches!(
        Map::aggregate_parallel(&[1u64], &[1u64, 2], |a, _| a, &ArrayOptions::new()),
        Err(Error::LengthMismatch { .. })
    ));
}

#[test]
fn readers_share_a_built_map_across_threads() {
    let keys: Vec<u64> = (0..50_000).collect();
    let map = Map::aggregate_parallel(&keys, &keys, |a, _| a, &ArrayOptions::new()).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            let map = &map;
            scope.spawn(move || {
                for k in (t..50_000).step_by(4) {
                    assert_eq!(map.get(k), Some(k));
                }
            });
        }
    });
}

#[test]
fn placement_report_lists_every_partition_and_replica() {
    // Before the first insert no memory is mapped: one partition, no replicas.
    let empty: Map<u64, u64> = Map::with_options(&two_node(Placement::Replicated)).unwrap();
    let reports = empty.placement_report().unwrap();
    assert_eq!(reports.len(), 1);
    assert!(reports[0].replicas.is_empty());
    assert_eq!(empty.replica_words(0), vec![&[] as &[u64]]);

    for placement in placements() {
        let options = two_node(placement.clone());
        let mut map: Map<u64, u64> = Map::with_options(&options).unwrap();
        let keys: Vec<u64> = (0..5000).collect();
        map.insert_many(&keys, &keys).unwrap();
        let reports = map.placement_report().unwrap();
        assert_eq!(reports.len(), 1, "{placement:?}");
        let report = &reports[0];
        assert!(report.simulated, "a described topology applies no policy");
        let replicas = if placement == Placement::Replicated {
            2
        } else {
            1
        };
        assert_eq!(report.replicas.len(), replicas, "{placement:?}");
        let intended: Vec<Option<usize>> =
            report.replicas.iter().map(|r| r.intended_node).collect();
        assert_eq!(intended, map.replica_nodes(), "{placement:?}");
        for (index, replica) in report.replicas.iter().enumerate() {
            let words = map.replica_words(index);
            assert_eq!(words.len(), 1);
            assert_eq!(
                replica.pages,
                (words[0].len() * 8).div_ceil(report.page_size)
            );
            // Every bucket was written: every page is resident somewhere.
            assert_eq!(
                replica.pages_not_present, 0,
                "{placement:?} replica {index}"
            );
        }
        assert!(map.replica_words(replicas)[0].is_empty());
        assert!(map.local_replica_index() < replicas);
    }

    // A parallel build: one report per partition, and a bag or set through its map.
    let keys: Vec<u64> = (0..50_000).map(|i| i % 20_000).collect();
    let bag = Bag::count_parallel(&keys, &two_node(Placement::Replicated)).unwrap();
    let reports = bag.as_map().placement_report().unwrap();
    assert_eq!(reports.len(), bag.as_map().partitions());
    assert!(reports.iter().any(|r| r.replicas.len() == 2));
    let set = Set::from_keys_parallel(&keys, &two_node(Placement::Interleaved(vec![]))).unwrap();
    assert!(set
        .as_map()
        .placement_report()
        .unwrap()
        .iter()
        .all(|r| r.replicas.len() <= 1));
}

#[test]
fn misses_stay_misses_through_filters_removals_and_growth() {
    // Wide values keep few slots per bucket, so these tables carry a filter word per bucket.
    for n in [1usize, 63, 64, 65, 1023, 1025, 50_000] {
        let mut map: Map<u64, u64> = Map::new().unwrap();
        let keys: Vec<u64> = (0..n as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        for &k in &keys {
            map.insert(k, k | 1 << 63).unwrap();
        }
        assert!(map.memory_report().slots_per_bucket <= 16);
        let absent: Vec<u64> = (n as u64..2 * n as u64 + 10)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .chain([u64::MAX, u64::MAX - 1])
            .filter(|k| !keys.contains(k))
            .collect();
        let mut out = vec![false; absent.len()];
        assert_eq!(map.contains_many(&absent, &mut out).unwrap(), 0);
        assert!(absent.iter().all(|&k| map.get(k).is_none()));
        // Removed keys leave their filter bits behind: still absent, and back when reinserted.
        for &k in keys.iter().step_by(3) {
            assert_eq!(map.remove(k), Some(k | 1 << 63));
        }
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(map.get(k), (i % 3 != 0).then_some(k | 1 << 63), "key {k}");
        }
        for &k in keys.iter().step_by(3) {
            assert_eq!(map.insert(k, 7).unwrap(), None);
        }
        let mut found = vec![None; keys.len()];
        assert_eq!(map.get_many(&keys, &mut found).unwrap(), n);
        assert!(keys
            .iter()
            .zip(&found)
            .enumerate()
            .all(|(i, (&k, &v))| { v == Some(if i % 3 == 0 { 7 } else { k | 1 << 63 }) }));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Many keys over the whole `u32` range: tables of thousands of buckets, where the home and
    /// remainder of every key come from one product of the top-aligned hash.
    #[test]
    fn large_u32_maps_match_a_hashmap(
        keys in prop::collection::vec(any::<u32>(), 0..5000),
        probes in prop::collection::vec(any::<u32>(), 0..500),
    ) {
        let mut map: Map<u32, u32> = Map::new().unwrap();
        let mut reference = HashMap::new();
        for (i, &k) in keys.iter().enumerate() {
            let v = k.rotate_left(i as u32 % 32);
            prop_assert_eq!(map.insert(k, v).unwrap(), reference.insert(k, v));
        }
        let mut batched: Map<u32, u32> = Map::new().unwrap();
        let values: Vec<u32> = keys.iter().enumerate().map(|(i, k)| k.rotate_left(i as u32 % 32)).collect();
        batched.insert_many(&keys, &values).unwrap();
        prop_assert_eq!(map.len(), reference.len());
        prop_assert_eq!(batched.len(), reference.len());
        let mut out = vec![None; probes.len() + keys.len()];
        let all: Vec<u32> = probes.iter().chain(&keys).copied().collect();
        let hits = batched.get_many(&all, &mut out).unwrap();
        prop_assert_eq!(hits, all.iter().filter(|k| reference.contains_key(k)).count());
        for (k, found) in all.iter().zip(&out) {
            prop_assert_eq!(map.get(*k), reference.get(k).copied());
            prop_assert_eq!(*found, reference.get(k).copied());
        }
        let mut items: Vec<(u32, u32)> = map.iter().collect();
        items.sort_unstable();
        let mut expected: Vec<(u32, u32)> = reference.into_iter().collect();
        expected.sort_unstable();
        prop_assert_eq!(items, expected);
    }

    /// Interning and lookups agree with a `HashMap<String, u32>` that hands out codes in
    /// first-seen order, for empty, unicode and long strings, across the arrays' growth and
    /// widening.
    #[test]
    fn dictionary_matches_a_hashmap(
        words in prop::collection::vec(
            prop_oneof![
                Just(String::new()),
                "[a-c]{1,3}",
                "\\PC{0,12}",
                (0usize..300).prop_map(|n| "ü".repeat(n)),
            ],
            0..400,
        ),
        absent in prop::collection::vec("[x-z]{4,9}", 0..20),
    ) {
        let mut dictionary = Dictionary::new().unwrap();
        let mut reference: HashMap<String, u32> = HashMap::new();
        for word in &words {
            let next = reference.len() as u32;
            let expected = *reference.entry(word.clone()).or_insert(next);
            prop_assert_eq!(dictionary.intern(word).unwrap(), expected);
        }
        prop_assert_eq!(dictionary.len(), reference.len());
        for (word, &code) in &reference {
            prop_assert_eq!(dictionary.get(word), Some(code));
            prop_assert_eq!(dictionary.resolve(code), Some(word.as_str()));
        }
        for word in &absent {
            prop_assert_eq!(dictionary.get(word), reference.get(word).copied());
        }
        prop_assert_eq!(dictionary.resolve(reference.len() as u32), None);
        // The ends are as wide as the byte capacity needs: at most twice the bytes, or 64.
        let bytes: usize = reference.keys().map(String::len).sum();
        let widest = (64 - (bytes as u64).leading_zeros() + 1).max(7);
        prop_assert!(dictionary.ends_bits() <= widest, "{} > {widest}", dictionary.ends_bits());
        // A replicated dictionary on two nodes gives the same codes, from either replica.
        let mut replicated = Dictionary::with_options(&two_node(Placement::Replicated)).unwrap();
        let codes = replicated.intern_many(words.iter().map(String::as_str)).unwrap();
        for (word, code) in words.iter().zip(codes) {
            prop_assert_eq!(Some(code), reference.get(word).copied());
            prop_assert_eq!(replicated.resolve(code), Some(word.as_str()));
        }
    }
}

#[test]
fn small_tables_are_written_whole_at_their_first_entry_and_large_ones_are_not() {
    // A small table (at most 2 MiB) has every page written by the thread that places its
    // first entry, so later inserts never fault twice on a page; a large one maps only the
    // pages its entries reach.
    let options = ArrayOptions::new().huge_pages(HugePages::Never);
    let mut small = Map::<u64, u64>::with_capacity(100_000, 1 << 40, 1 << 20, &options).unwrap();
    small.insert(7, 1).unwrap();
    let mut large = Map::<u64, u64>::with_capacity(4_000_000, 1 << 40, 1 << 20, &options).unwrap();
    large.insert(7, 1).unwrap();
    for (map, all_present) in [(&small, true), (&large, false)] {
        for report in map.placement_report().unwrap() {
            for replica in &report.replicas {
                assert_eq!(
                    replica.pages_not_present == 0,
                    all_present,
                    "{} pages, {} not present",
                    replica.pages,
                    replica.pages_not_present
                );
            }
        }
        assert_eq!(map.get(7), Some(1));
        assert_eq!(map.get(8), None);
        assert_eq!(map.len(), 1);
    }
    // Growing past the first table moves the entries into a new one, written whole first:
    // the answers stay those of a HashMap.
    let mut grown = Map::<u64, u64>::new().unwrap();
    let mut reference = HashMap::new();
    for i in 0..200_000u64 {
        let key = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
        grown.insert(key, i).unwrap();
        reference.insert(key, i);
    }
    assert_eq!(grown.len(), reference.len());
    for (&k, &v) in &reference {
        assert_eq!(grown.get(k), Some(v));
    }
}

/// Batched lookups against single ones and a `HashMap`, at sizes around the batch window (16)
/// and the edge sizes: in a map whose layout keeps a filter and in a set of small keys whose
/// buckets hold too many slots for one, with absent keys inside and outside the key domain
/// (`u64::MAX`, `1 << 63`) and in empty tables.
#[test]
fn batched_lookups_agree_with_single_ones_at_window_and_edge_sizes() {
    for n in [0usize, 1, 15, 16, 17, 63, 64, 65, 1023, 1025] {
        let keys: Vec<u64> = (0..n as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 24)
            .collect();
        let mut map: Map<u64, u64> = Map::new().unwrap();
        let mut set: Set<u64> = Set::new().unwrap();
        let mut reference = HashMap::new();
        for &k in &keys {
            map.insert(k, k ^ 0x5555).unwrap();
            set.insert(k & 0x3ff).unwrap();
            reference.insert(k, k ^ 0x5555);
        }
        let small: HashSet<u64> = keys.iter().map(|k| k & 0x3ff).collect();
        if n >= 1023 {
            assert!(map.memory_report().slots_per_bucket <= 16, "n {n}");
            assert!(set.memory_report().slots_per_bucket > 16, "n {n}");
        }
        let probes: Vec<u64> = keys
            .iter()
            .copied()
            .chain((0..n as u64 + 3).map(|i| i.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 24))
            .chain((0..n as u64).map(|i| i * 3))
            .chain([0, 1, u64::MAX, u64::MAX - 1, 1 << 63])
            .collect();
        let mut out = vec![None; probes.len()];
        let hits = map.get_many(&probes, &mut out).unwrap();
        let mut present = vec![false; probes.len()];
        assert_eq!(
            map.contains_many(&probes, &mut present).unwrap(),
            hits,
            "n {n}"
        );
        let mut in_set = vec![false; probes.len()];
        let set_hits = set.contains_many(&probes, &mut in_set).unwrap();
        for (i, &k) in probes.iter().enumerate() {
            let expected = reference.get(&k).copied();
            assert_eq!(out[i], expected, "n {n} key {k}");
            assert_eq!(map.get(k), expected, "n {n} key {k}");
            assert_eq!(present[i], expected.is_some(), "n {n} key {k}");
            assert_eq!(in_set[i], small.contains(&k), "n {n} key {k}");
            assert_eq!(set.contains(k), small.contains(&k), "n {n} key {k}");
        }
        let expected_hits = probes.iter().filter(|k| reference.contains_key(k)).count();
        assert_eq!(hits, expected_hits, "n {n}");
        assert_eq!(
            set_hits,
            probes.iter().filter(|k| small.contains(k)).count()
        );
    }
}
