//! A fixed workload for counting instructions per operation under callgrind (which does not
//! depend on the machine's load): `collections_instructions WHAT KEYS OPS`, where WHAT is one of
//! `ours-hit`, `ours-miss`, `ours-insert`, `ours-insert-many`, `brown-hit`, `brown-miss`,
//! `brown-insert`, and for strings `dict-hit` (a `Dictionary` lookup of an interned word) and
//! `brown-dict-hit` (the same words in a hashbrown `HashMap<String, u32>` with foldhash). Run it at two `OPS` counts and divide the difference in instructions by the
//! difference in operations:
//!
//! ```text
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/collections_instructions ours-hit 1000000 1000000
//! ```

use std::hint::black_box;

use foldhash::fast::FixedState;
use smartarrays_collections::{Dictionary, FrozenMap, Map};

type Brown = hashbrown::HashMap<u64, u64, FixedState>;

fn scatter32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// One lookup of ours, kept out of line so its instructions can be read on their own.
#[inline(never)]
fn ours_get(map: &Map<u64, u64>, key: u64) -> Option<u64> {
    map.get(key)
}

/// One lookup of the frozen map's, out of line like [`ours_get`].
#[inline(never)]
fn frozen_get(map: &FrozenMap<u64, u64>, key: u64) -> Option<u64> {
    map.get(key)
}

/// One lookup of hashbrown's, out of line like [`ours_get`].
#[inline(never)]
fn brown_get(map: &Brown, key: u64) -> Option<u64> {
    map.get(&key).copied()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map_or("ours-hit", String::as_str);
    let number = |i: usize, default: usize| {
        args.get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .map_or(default, |v| v as usize)
    };
    let n = number(2, 1_000_000);
    let ops = number(3, 1_000_000);
    let keys: Vec<u64> = (0..n as u32).map(|i| u64::from(scatter32(i))).collect();
    let values: Vec<u64> = keys.iter().map(|k| k >> 12).collect();
    let probes: Vec<u64> = (0..ops)
        .map(|i| {
            let i = (i as u64).wrapping_mul(0x9e37_79b9) as usize % n;
            if what.ends_with("miss") {
                u64::from(scatter32((n + i) as u32))
            } else {
                keys[i]
            }
        })
        .collect();
    let result: u64 = match what {
        "ours-hit" | "ours-miss" => {
            let mut map: Map<u64, u64> = Map::new().expect("map");
            map.insert_many(&keys, &values).expect("insert");
            probes.iter().map(|&k| ours_get(&map, k).unwrap_or(1)).sum()
        }
        "frozen-hit" | "frozen-miss" => {
            let map: FrozenMap<u64, u64> = FrozenMap::from_pairs(&keys, &values).expect("freeze");
            probes
                .iter()
                .map(|&k| frozen_get(&map, k).unwrap_or(1))
                .sum()
        }
        "brown-hit" | "brown-miss" => {
            let map: Brown = keys.iter().copied().zip(values.iter().copied()).collect();
            probes
                .iter()
                .map(|&k| brown_get(&map, k).unwrap_or(1))
                .sum()
        }
        "ours-insert" => {
            let mut map: Map<u64, u64> = Map::new().expect("map");
            for (&k, &v) in keys.iter().zip(&values).take(ops) {
                map.insert(k, v).expect("insert");
            }
            map.len() as u64
        }
        "ours-insert-many" => {
            let mut map: Map<u64, u64> = Map::new().expect("map");
            map.insert_many(&keys[..ops.min(n)], &values[..ops.min(n)])
                .expect("insert");
            map.len() as u64
        }
        "brown-insert" => {
            let mut map = Brown::default();
            for (&k, &v) in keys.iter().zip(&values).take(ops) {
                map.insert(k, v);
            }
            map.len() as u64
        }
        "dict-hit" | "brown-dict-hit" => {
            let words: Vec<String> = keys.iter().map(|k| format!("word{k:x}")).collect();
            let order: Vec<usize> = (0..ops)
                .map(|i| (i as u64).wrapping_mul(0x9e37_79b9) as usize % n)
                .collect();
            if what == "dict-hit" {
                let mut dictionary = Dictionary::new().expect("dictionary");
                for word in &words {
                    dictionary.intern(word).expect("intern");
                }
                order
                    .iter()
                    .map(|&i| u64::from(dictionary.get(&words[i]).unwrap_or(1)))
                    .sum()
            } else {
                let map: hashbrown::HashMap<String, u32, FixedState> = words
                    .iter()
                    .enumerate()
                    .map(|(i, w)| (w.clone(), i as u32))
                    .collect();
                order
                    .iter()
                    .map(|&i| u64::from(map.get(words[i].as_str()).copied().unwrap_or(1)))
                    .sum()
            }
        }
        other => panic!("unknown workload {other}"),
    };
    println!("{what} {n} {ops}: {}", black_box(result));
}
