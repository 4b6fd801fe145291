//! The `Lookup` trait over all five collections against a `HashMap` reference: one generic
//! check (sizes, hits, misses, single and batched lookups, a short output buffer refused with
//! the crate's typed error, the visit of every entry, memory) run on `Map`, `Set`, `Bag`,
//! `FrozenMap` and `FrozenSet` at the sizes around the batch windows and bucket blocks.

use std::collections::{HashMap, HashSet};
use std::fmt::Debug;

use smartarrays::ArrayOptions;
use smartarrays_collections::{Bag, Error, FrozenMap, FrozenSet, Lookup, Map, Set, Value};

/// Sizes at and around the edges: empty, one, a block of 64 buckets, the batch windows.
const SIZES: [usize; 7] = [0, 1, 63, 64, 65, 1023, 1025];

/// A 64-bit bijection, so distinct indices give distinct scattered keys.
fn scatter(mut x: u64) -> u64 {
    x ^= x >> 31;
    x = x.wrapping_mul(0x7fb5_d329_728e_a185);
    x ^= x >> 27;
    x = x.wrapping_mul(0x81da_def4_bc2d_d44d);
    x ^ (x >> 33)
}

/// `n` distinct keys: small ones, scattered ones and the domain's top.
fn keys(n: usize) -> Vec<u64> {
    (0..n as u64)
        .map(|i| match i % 3 {
            0 => i,
            1 => scatter(i) | 1 << 40,
            _ => u64::MAX - i,
        })
        .collect()
}

/// Keys absent from `keys(n)`: just past each kind of key, and the domain's ends.
fn misses(n: usize) -> Vec<u64> {
    let present: HashSet<u64> = keys(n).into_iter().collect();
    let mut probes: Vec<u64> = (0..n as u64 + 3)
        .map(|i| match i % 3 {
            0 => n as u64 + 3 * i + 2,
            1 => scatter(i + 1_000_000) | 1 << 41,
            _ => u64::MAX - n as u64 - i - 5,
        })
        .collect();
    probes.extend([0, u64::MAX, 1 << 40]);
    probes.retain(|k| !present.contains(k));
    probes
}

/// Everything the trait offers on `table` against `reference`.
fn check<L, V>(what: &str, table: &L, reference: &HashMap<u64, V>)
where
    L: Lookup<u64, V>,
    V: Value + PartialEq + Debug,
{
    let n = reference.len();
    assert_eq!(table.len(), n, "{what}: len");
    assert_eq!(table.is_empty(), n == 0, "{what}: is_empty");
    for (&key, &value) in reference {
        assert_eq!(table.get(key), Some(value), "{what}: get({key})");
        assert!(table.contains_key(key), "{what}: contains_key({key})");
    }
    let misses = misses(n);
    for &key in &misses {
        assert_eq!(table.get(key), None, "{what}: get({key}) of a miss");
        assert!(
            !table.contains_key(key),
            "{what}: contains_key({key}) of a miss"
        );
    }

    // Hits and misses interleaved, in one batch and in batches of awkward lengths.
    let mut probe: Vec<u64> = Vec::new();
    let mut hits = reference.keys().copied();
    for &miss in &misses {
        probe.extend(hits.next());
        probe.push(miss);
    }
    probe.extend(hits);
    for batch in [probe.len(), 1, 15, 16, 17, 33] {
        for keys in probe.chunks(batch.max(1)) {
            let mut values = vec![None; keys.len()];
            let found = table.get_many(keys, &mut values).unwrap();
            let mut present = vec![true; keys.len()];
            assert_eq!(table.contains_many(keys, &mut present).unwrap(), found);
            let mut expected = 0;
            for ((key, got), here) in keys.iter().zip(&values).zip(&present) {
                let want = reference.get(key).copied();
                assert_eq!(*got, want, "{what}: get_many key {key}");
                assert_eq!(*here, want.is_some(), "{what}: contains_many key {key}");
                expected += usize::from(want.is_some());
            }
            assert_eq!(found, expected, "{what}: get_many count");
        }
    }

    // An output shorter than the batch is the typed error, and nothing panics.
    let mut short = vec![None; probe.len() - 1];
    assert_eq!(
        table.get_many(&probe, &mut short),
        Err(Error::BufferTooSmall {
            needed: probe.len(),
            given: probe.len() - 1
        }),
        "{what}: get_many into a short buffer"
    );
    let mut short = vec![false; probe.len() - 1];
    assert!(
        matches!(
            table.contains_many(&probe, &mut short),
            Err(Error::BufferTooSmall { .. })
        ),
        "{what}: contains_many into a short buffer"
    );
    // An empty batch into an empty buffer finds nothing.
    assert_eq!(table.get_many(&[], &mut []), Ok(0));

    // Every entry visited once, with its value.
    let mut seen = HashMap::new();
    table.for_each_entry(|key, value| {
        assert!(
            seen.insert(key, value).is_none(),
            "{what}: {key} visited twice"
        );
    });
    assert_eq!(&seen, reference, "{what}: for_each_entry");

    if n > 0 {
        assert!(table.memory_bytes() > 0, "{what}: memory_bytes");
    }
}

#[test]
fn every_collection_answers_through_the_trait() {
    for n in SIZES {
        let keys = keys(n);
        let values: Vec<u64> = (0..n as u64).map(|i| i * 37 % 1000).collect();
        let pairs: HashMap<u64, u64> = keys.iter().copied().zip(values.iter().copied()).collect();
        let units: HashMap<u64, ()> = keys.iter().map(|&k| (k, ())).collect();
        assert_eq!(pairs.len(), n);

        let mut map: Map<u64, u64> = Map::new().unwrap();
        map.insert_many(&keys, &values).unwrap();
        check(&format!("Map of {n}"), &map, &pairs);

        let frozen = FrozenMap::from_pairs(&keys, &values).unwrap();
        check(&format!("FrozenMap of {n}"), &frozen, &pairs);

        let mut set: Set<u64> = Set::new().unwrap();
        set.insert_many(&keys).unwrap();
        check(&format!("Set of {n}"), &set, &units);

        let frozen_set = FrozenSet::from_keys(&keys).unwrap();
        check(&format!("FrozenSet of {n}"), &frozen_set, &units);

        // Key i is counted 1 + i % 4 times, in one go and in parallel.
        let tokens: Vec<u64> = keys
            .iter()
            .enumerate()
            .flat_map(|(i, &k)| std::iter::repeat_n(k, 1 + i % 4))
            .collect();
        let counts: HashMap<u64, u64> = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, 1 + i as u64 % 4))
            .collect();
        let mut bag: Bag<u64> = Bag::new().unwrap();
        bag.add_many(&tokens).unwrap();
        check(&format!("Bag of {n}"), &bag, &counts);
        let parallel = Bag::count_parallel(&tokens, &ArrayOptions::new()).unwrap();
        check(&format!("parallel Bag of {n}"), &parallel, &counts);
    }
}

#[test]
fn a_parallel_map_of_many_partitions_answers_through_the_trait() {
    let keys = keys(100_000);
    let values: Vec<u64> = (0..keys.len() as u64).map(|i| i % 7).collect();
    let map = Map::aggregate_parallel(&keys, &values, |_, b| b, &ArrayOptions::new()).unwrap();
    assert!(map.partitions() > 1, "{map:?}");
    let pairs: HashMap<u64, u64> = keys.iter().copied().zip(values).collect();
    check("parallel Map", &map, &pairs);
}

#[test]
fn the_trait_serves_as_an_object() {
    let mut map: Map<u64, u64> = Map::new().unwrap();
    map.insert(3, 30).unwrap();
    let frozen = map.freeze().unwrap();
    let tables: [&dyn Lookup<u64, u64>; 2] = [&map, &frozen];
    for table in tables {
        assert_eq!(
            (table.len(), table.get(3), table.get(4)),
            (1, Some(30), None)
        );
        let mut out = [None; 2];
        assert_eq!(table.get_many(&[4, 3], &mut out), Ok(1));
        assert_eq!(out, [None, Some(30)]);
    }
}
