//! Structured key sets hash as well as random ones: sequential keys, keys that differ only in
//! their high bits, strided keys and keys that are themselves hashes fill a table to the same
//! bucket count as scattered keys (no cluster forces an early growth) and are all found, in
//! the growable map and in the frozen one (which also buckets keys by their hash's top bits).

use smartarrays_collections::{FrozenMap, Map};

const N: u64 = 150_000;

/// A key set's name and its `i`-th key.
type Pattern = (&'static str, fn(u64) -> u64);

/// A 64-bit finaliser: keys that are themselves hashes.
fn scattered(i: u64) -> u64 {
    let mut x = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Inserts `keys` one by one; returns the final bucket count and load after checking every
/// key and a few absent ones.
fn fill(name: &str, keys: &[u64], absent: &[u64]) -> (u64, f64) {
    let mut map: Map<u64, u64> = Map::new().unwrap();
    for (i, &k) in keys.iter().enumerate() {
        map.insert(k, i as u64).unwrap();
    }
    for (i, &k) in keys.iter().enumerate() {
        assert_eq!(map.get(k), Some(i as u64), "{name}: key {k}");
    }
    for &k in absent {
        assert_eq!(map.get(k), None, "{name}: absent key {k}");
    }
    let report = map.memory_report();
    println!("{name}: {report}");
    (report.buckets, report.load)
}

#[test]
fn structured_keys_fill_tables_like_scattered_keys() {
    // Scattered keys over the same domain as each pattern: a table's width follows its
    // largest key, so each pattern is compared with scattered keys of its own width.
    let patterns: [Pattern; 8] = [
        ("sequential", |i| i),
        ("odd", |i| 2 * i + 1),
        ("stride 1000", |i| i * 1000),
        ("stride 2^16", |i| i << 16),
        ("stride 2^32", |i| i << 32),
        ("high bits only", |i| i << 46),
        ("two blocks", |i| if i % 2 == 0 { i } else { (1 << 40) + i }),
        ("hashes", scattered),
    ];
    for (name, pattern) in &patterns {
        let keys: Vec<u64> = (0..N).map(*pattern).collect();
        let largest = keys.iter().copied().max().unwrap();
        let width = 64 - largest.leading_zeros();
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1 << width) - 1
        };
        // Distinct scattered keys of the same width: an odd multiplier and a xorshift are
        // bijections on `width` bits.
        let half = width.div_ceil(2);
        let reference: Vec<u64> = (0..N)
            .map(|i| {
                let x = i.wrapping_mul(0xd6e8_feb8_6659_fd93) & mask;
                x ^ (x >> half)
            })
            .collect();
        let absent: Vec<u64> = (N..N + 64).map(*pattern).collect();
        let (buckets, load) = fill(name, &keys, &absent);
        let values: Vec<u64> = (0..N).collect();
        let frozen = FrozenMap::from_pairs(&keys, &values).unwrap();
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(frozen.get(k), Some(i as u64), "{name}: frozen key {k}");
        }
        assert!(absent.iter().all(|&k| frozen.get(k).is_none()), "{name}");
        let (expected, expected_load) = fill(&format!("{name} (scattered)"), &reference, &[]);
        // The same growth steps: at most one step (5/4) more than scattered keys need.
        assert!(
            buckets * 4 <= expected * 5 + 4,
            "{name}: {buckets} buckets (load {load:.2}) against {expected} for scattered keys \
             (load {expected_load:.2})"
        );
    }
}
