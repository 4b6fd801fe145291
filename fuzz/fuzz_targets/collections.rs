//! Smart collections against the standard library: a sequence of operations from the input
//! (insert, upsert with a combine, remove, get, the batched `_many` forms, bag adds up to the
//! overflow error, parallel group-by builds) on `Map`, `Set` and `Bag`, each answer compared
//! with a `HashMap` / `HashSet`. Keys and values of growing magnitude make the tables widen,
//! bulk inserts make them grow; bad batches must be typed errors that change nothing.
#![no_main]

mod input;

use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::{Arc, OnceLock};

use input::Input;
use libfuzzer_sys::fuzz_target;
use smartarrays::{ArrayOptions, Placement, Runtime, RuntimeOptions, Topology};
use smartarrays_collections::{Bag, Error, Key, Map, Set, Value};

/// Codes of some magnitude, read from the input.
trait Codes {
    /// A code of some magnitude: small ones first in typical inputs, wide ones to widen.
    fn code(&mut self) -> u64;
}

impl Codes for Input<'_> {
    fn code(&mut self) -> u64 {
        match self.byte() % 8 {
            0..=2 => u64::from(self.byte() % 32),
            3 => u64::from(self.byte()),
            4 => u64::from(u16::from_le_bytes([self.byte(), self.byte()])),
            5 => u64::MAX - u64::from(self.byte() % 4),
            6 => (1 << (self.byte() % 64)) + u64::from(self.byte() % 3),
            _ => self.u64(),
        }
    }
}

/// A runtime of two workers on a described two-node machine: replicated collections really
/// have two replicas, and the parallel builders split their work.
fn two_node_runtime() -> Arc<Runtime> {
    static RUNTIME: OnceLock<Arc<Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let options = RuntimeOptions {
                threads: Some(2),
                topology: Some(Arc::new(Topology::uniform(2, 1, 8 << 30).unwrap())),
                no_pinning: true,
            };
            Arc::new(Runtime::new(options).unwrap())
        })
        .clone()
}

fn options(input: &mut Input) -> ArrayOptions {
    let pick = input.byte();
    let options = ArrayOptions::new().placement(match pick % 4 {
        0 => Placement::Replicated,
        1 => Placement::Interleaved(vec![]),
        _ => Placement::OsDefault,
    });
    // The global runtime (this machine) or the described two-node one.
    if pick & 4 != 0 {
        options.runtime(two_node_runtime())
    } else {
        options
    }
}

/// `combine(old, new)` for upserts, chosen by `which`; the reference applies the same one.
fn combine<V: Value>(which: u8) -> impl Fn(V, V) -> V + Sync + Copy {
    move |old: V, new: V| {
        let (a, b) = (old.to_code(), new.to_code());
        V::from_code(match which % 4 {
            0 => b,
            1 => a,
            2 => a.wrapping_add(b),
            _ => a.max(b),
        })
    }
}

/// A map of keys `K` and values `V` against a `HashMap` (codes decide the magnitudes).
fn fuzz_map<K, V>(input: &mut Input)
where
    K: Key + Eq + Hash + Debug,
    V: Value + Eq + Debug,
{
    let options = options(input);
    let mut map: Map<K, V> = if input.byte() % 4 == 0 {
        let entries = input.below(3000);
        let largest_key = K::from_code(input.code());
        let largest_value = V::from_code(input.code());
        Map::with_capacity(entries, largest_key, largest_value, &options).unwrap()
    } else {
        Map::with_options(&options).unwrap()
    };
    let mut reference: HashMap<K, V> = HashMap::new();
    let key = |input: &mut Input| K::from_code(input.code());
    let value = |input: &mut Input| V::from_code(input.code());
    let mut steps = 0;
    while !input.exhausted() && steps < 400 {
        steps += 1;
        match input.byte() % 12 {
            0 => {
                let (k, v) = (key(input), value(input));
                assert_eq!(
                    map.insert(k, v).unwrap(),
                    reference.insert(k, v),
                    "insert {k:?}"
                );
            }
            1 => {
                let (k, v, which) = (key(input), value(input), input.byte());
                let f = combine::<V>(which);
                let want = reference.get(&k).map_or(v, |&old| f(old, v));
                reference.insert(k, want);
                assert_eq!(map.upsert(k, v, f).unwrap(), want, "upsert {k:?}");
            }
            2 => {
                let k = key(input);
                assert_eq!(map.remove(k), reference.remove(&k), "remove {k:?}");
            }
            3 => {
                let k = key(input);
                assert_eq!(map.get(k), reference.get(&k).copied(), "get {k:?}");
                assert_eq!(map.contains_key(k), reference.contains_key(&k));
            }
            4 | 5 => {
                let keys: Vec<K> = (0..input.below(80)).map(|_| key(input)).collect();
                let short = input.byte() % 8 == 0 && !keys.is_empty();
                let room = if short {
                    keys.len() - 1
                } else {
                    keys.len() + input.below(3)
                };
                let want: Vec<Option<V>> = keys.iter().map(|k| reference.get(k).copied()).collect();
                let hits = want.iter().filter(|v| v.is_some()).count();
                if input.byte() % 2 == 0 {
                    let mut out = vec![None; room];
                    match map.get_many(&keys, &mut out) {
                        Ok(n) => {
                            assert!(!short);
                            assert_eq!(n, hits);
                            assert_eq!(&out[..keys.len()], &want[..]);
                        }
                        Err(Error::BufferTooSmall { .. }) => assert!(short),
                        Err(e) => panic!("get_many: {e}"),
                    }
                } else {
                    let mut out = vec![false; room];
                    match map.contains_many(&keys, &mut out) {
                        Ok(n) => {
                            assert!(!short);
                            assert_eq!(n, hits);
                            let present: Vec<bool> = want.iter().map(Option::is_some).collect();
                            assert_eq!(&out[..keys.len()], &present[..]);
                        }
                        Err(Error::BufferTooSmall { .. }) => assert!(short),
                        Err(e) => panic!("contains_many: {e}"),
                    }
                }
            }
            6 | 7 => {
                let keys: Vec<K> = (0..input.below(120)).map(|_| key(input)).collect();
                let mismatch = input.byte() % 8 == 0;
                let count = if mismatch { keys.len() + 1 } else { keys.len() };
                let values: Vec<V> = (0..count).map(|_| value(input)).collect();
                let which = input.byte();
                let upsert = input.byte() % 2 == 0;
                let result = if upsert {
                    map.upsert_many(&keys, &values, combine::<V>(which))
                } else {
                    map.insert_many(&keys, &values)
                };
                if mismatch {
                    assert!(
                        matches!(result, Err(Error::LengthMismatch { .. })),
                        "{result:?}"
                    );
                } else {
                    result.unwrap();
                    let f = combine::<V>(if upsert { which } else { 0 });
                    for (&k, &v) in keys.iter().zip(&values) {
                        let new = reference.get(&k).map_or(v, |&old| f(old, v));
                        reference.insert(k, new);
                    }
                }
            }
            8 => {
                // Many keys at once: the table grows (and maybe widens) several times.
                let base = input.code();
                let step = 1 + input.code() % 1000;
                let v = value(input);
                for i in 0..input.below(3000) as u64 {
                    let k = K::from_code(base.wrapping_add(i.wrapping_mul(step)));
                    assert_eq!(map.insert(k, v).unwrap(), reference.insert(k, v));
                }
            }
            9 => {
                // Remove a batch of present keys (frees slots without tombstones).
                let present: Vec<K> = reference.keys().copied().take(input.below(200)).collect();
                for k in present {
                    assert_eq!(map.remove(k), reference.remove(&k));
                }
            }
            10 => {
                let replicas = map.replica_nodes().len();
                let k = key(input);
                for replica in 0..replicas.max(1) {
                    assert_eq!(map.get_from_replica(replica, k), reference.get(&k).copied());
                }
            }
            _ => check_map(&map, &reference),
        }
        assert_eq!(map.len(), reference.len());
    }
    check_map(&map, &reference);
}

fn check_map<K, V>(map: &Map<K, V>, reference: &HashMap<K, V>)
where
    K: Key + Eq + Hash + Debug,
    V: Value + Eq + Debug,
{
    let entries: HashMap<K, V> = map.iter().collect();
    assert_eq!(entries.len(), map.len(), "iter yields each key once");
    assert_eq!(&entries, reference);
    let report = map.memory_report();
    assert_eq!(report.entries, reference.len());
    let _ = report.to_string();
    for replica in 0..map.replica_nodes().len() {
        for (k, v) in reference.iter().take(16) {
            assert_eq!(
                map.get_from_replica(replica, *k),
                Some(*v),
                "replica {replica}"
            );
        }
    }
}

fn fuzz_set(input: &mut Input) {
    let options = options(input);
    let mut set: Set<u64> = Set::with_options(&options).unwrap();
    let mut reference: HashSet<u64> = HashSet::new();
    let mut steps = 0;
    while !input.exhausted() && steps < 400 {
        steps += 1;
        match input.byte() % 6 {
            0 => {
                let k = input.code();
                assert_eq!(set.insert(k).unwrap(), reference.insert(k));
            }
            1 => {
                let k = input.code();
                assert_eq!(set.remove(k), reference.remove(&k));
            }
            2 => {
                let k = input.code();
                assert_eq!(set.contains(k), reference.contains(&k));
            }
            3 => {
                let keys: Vec<u64> = (0..input.below(200)).map(|_| input.code()).collect();
                set.insert_many(&keys).unwrap();
                reference.extend(&keys);
            }
            4 => {
                let keys: Vec<u64> = (0..input.below(80)).map(|_| input.code()).collect();
                let mut out = vec![false; keys.len()];
                let hits = set.contains_many(&keys, &mut out).unwrap();
                let want: Vec<bool> = keys.iter().map(|k| reference.contains(k)).collect();
                assert_eq!(out, want);
                assert_eq!(hits, want.iter().filter(|&&b| b).count());
                if !keys.is_empty() {
                    let mut short = vec![false; keys.len() - 1];
                    assert!(matches!(
                        set.contains_many(&keys, &mut short),
                        Err(Error::BufferTooSmall { .. })
                    ));
                }
            }
            _ => {
                let keys: HashSet<u64> = set.iter().collect();
                assert_eq!(keys, reference);
            }
        }
        assert_eq!(set.len(), reference.len());
    }
    let keys: HashSet<u64> = set.iter().collect();
    assert_eq!(keys, reference);
    // The same keys through the builders.
    let list: Vec<u64> = reference.iter().copied().collect();
    let built = Set::from_keys(&list).unwrap();
    assert_eq!(built.iter().collect::<HashSet<u64>>(), reference);
    let parallel = Set::from_keys_parallel(&list, &options).unwrap();
    assert_eq!(parallel.iter().collect::<HashSet<u64>>(), reference);
}

fn fuzz_bag(input: &mut Input) {
    let options = options(input);
    let mut bag: Bag<u64> = Bag::with_options(&options).unwrap();
    let mut reference: HashMap<u64, u64> = HashMap::new();
    let mut steps = 0;
    while !input.exhausted() && steps < 400 {
        steps += 1;
        match input.byte() % 6 {
            0 | 1 => {
                let k = input.code();
                let n = match input.byte() % 4 {
                    0 => u64::MAX - u64::from(input.byte()),
                    1 => 1 << 62,
                    _ => u64::from(input.byte()),
                };
                let old = reference.get(&k).copied();
                match (bag.add(k, n), old.unwrap_or(0).checked_add(n)) {
                    (Ok(count), Some(want)) => {
                        assert_eq!(count, want);
                        reference.insert(k, want);
                    }
                    (Err(Error::CountOverflow { key, count, add }), None) => {
                        assert_eq!((key, Some(count), add), (k, old, n));
                    }
                    (got, want) => panic!("add({k}, {n}) to {old:?}: {got:?}, expected {want:?}"),
                }
                assert_eq!(bag.count(k), reference.get(&k).copied().unwrap_or(0));
            }
            2 => {
                let keys: Vec<u64> = (0..input.below(200)).map(|_| input.code()).collect();
                // Refused as a whole only when some count would overflow; compare after.
                let mut want = reference.clone();
                let mut overflow = false;
                for &k in &keys {
                    match want.get(&k).copied().unwrap_or(0).checked_add(1) {
                        Some(c) => {
                            want.insert(k, c);
                        }
                        None => {
                            overflow = true;
                            break;
                        }
                    }
                }
                match bag.add_many(&keys) {
                    Ok(()) => assert!(!overflow),
                    Err(Error::CountOverflow { .. }) => assert!(overflow),
                    Err(e) => panic!("add_many: {e}"),
                }
                // Adds before the overflowing key stay (the batch is applied in order).
                reference = want;
            }
            3 => {
                let k = input.code();
                assert_eq!(bag.remove(k), reference.remove(&k));
            }
            4 => {
                let keys: Vec<u64> = (0..input.below(80)).map(|_| input.code()).collect();
                let mut out = vec![0; keys.len()];
                let hits = bag.count_many(&keys, &mut out).unwrap();
                let want: Vec<u64> = keys
                    .iter()
                    .map(|k| reference.get(k).copied().unwrap_or(0))
                    .collect();
                assert_eq!(out, want);
                assert_eq!(
                    hits,
                    keys.iter().filter(|k| reference.contains_key(k)).count()
                );
            }
            _ => {
                let counts: HashMap<u64, u64> = bag.iter().collect();
                assert_eq!(counts, reference);
            }
        }
        assert_eq!(bag.len(), reference.len());
    }
    let counts: HashMap<u64, u64> = bag.iter().collect();
    assert_eq!(counts, reference);
}

/// The parallel group-by builders against a sequential fold.
fn fuzz_group_by(input: &mut Input) {
    let options = options(input);
    let distinct = 1 + input.below(5000);
    let rows = input.below(20_000);
    let spread = input.code() | 1;
    let mut keys = Vec::with_capacity(rows);
    let mut values = Vec::with_capacity(rows);
    for i in 0..rows {
        let pick = if input.exhausted() {
            (i * 7919) % distinct
        } else {
            input.below(distinct)
        };
        keys.push((pick as u64).wrapping_mul(spread));
        values.push(if input.exhausted() {
            i as u64
        } else {
            input.code()
        });
    }
    let which = input.byte() % 3;
    // Associative and commutative combines only: the result must not depend on the split.
    let f = move |a: u64, b: u64| match which {
        0 => a.wrapping_add(b),
        1 => a.max(b),
        _ => a.min(b),
    };
    let mut want: HashMap<u64, u64> = HashMap::new();
    let mut counts: HashMap<u64, u64> = HashMap::new();
    for (&k, &v) in keys.iter().zip(&values) {
        let next = want.get(&k).map_or(v, |&old| f(old, v));
        want.insert(k, next);
        *counts.entry(k).or_default() += 1;
    }
    let map = Map::aggregate_parallel(&keys, &values, f, &options).unwrap();
    assert_eq!(map.len(), want.len());
    assert_eq!(map.iter().collect::<HashMap<u64, u64>>(), want);
    for (k, v) in want.iter().take(64) {
        assert_eq!(map.get(*k), Some(*v));
    }
    let bag = Bag::count_parallel(&keys, &options).unwrap();
    assert_eq!(bag.iter().collect::<HashMap<u64, u64>>(), counts);
    if !keys.is_empty() {
        assert!(matches!(
            Map::aggregate_parallel(&keys, &values[1..], f, &options),
            Err(Error::LengthMismatch { .. })
        ));
    }
    // The built map stays usable: widen it with a wide key and a wide value.
    let mut map = map;
    map.insert(u64::MAX, u64::MAX).unwrap();
    want.insert(u64::MAX, u64::MAX);
    assert_eq!(map.iter().collect::<HashMap<u64, u64>>(), want);
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    match input.byte() % 6 {
        0 | 1 => fuzz_map::<u64, u64>(&mut input),
        2 => fuzz_map::<i32, u8>(&mut input),
        3 => fuzz_set(&mut input),
        4 => fuzz_bag(&mut input),
        _ => fuzz_group_by(&mut input),
    }
});
