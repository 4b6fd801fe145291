//! The collections benchmark: `smartarrays-collections` against `hashbrown` with `foldhash`
//! (`HashMap<u64, u64>` and `HashMap<u32, u32>`) and, for the concurrent word count, `dashmap`.
//! One run measures memory per entry, random hit and miss lookups in and out of cache (single
//! and batched), inserts, and a Zipf word count on one and two threads, and prints each figure
//! with its ratio to the baseline and the target it is held to. The baselines are here only:
//! no library crate depends on them.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use foldhash::fast::FixedState;
use smartarrays::{ArrayOptions, Runtime};
use smartarrays_collections::{Bag, FrozenMap, Lookup, Map};

type Brown<K, V> = hashbrown::HashMap<K, V, FixedState>;

/// Sizes of one run.
#[derive(Clone, Debug)]
pub struct Sizes {
    /// Keys of the in-cache tables.
    pub in_cache: usize,
    /// Keys of the out-of-cache tables.
    pub out_of_cache: usize,
    /// Tokens of the word count.
    pub tokens: usize,
    /// Distinct words of the word count.
    pub distinct: usize,
}

/// A 32-bit bijection: distinct inputs give distinct pseudo-random keys.
fn scatter32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// A small seeded generator (xorshift*), so runs are repeatable.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Seconds of the fastest of `runs` calls of `work`.
fn best<T>(runs: usize, mut work: impl FnMut() -> T) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(work());
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn ns(seconds: f64, ops: usize) -> f64 {
    seconds * 1e9 / ops as f64
}

/// One printed comparison: ours against a baseline, lower is better.
fn line(what: &str, ours: f64, base: f64, unit: &str, target: f64) -> String {
    let ratio = ours / base;
    format!(
        "{what:<48} ours {ours:>9.2} {unit:<8} base {base:>9.2} {unit:<8} ratio {ratio:>5.2}x  target <= {target:.2}x  {}",
        if ratio <= target { "met" } else { "MISSED" }
    )
}

/// Best seconds of `runs` passes of: single hits over `probe`, batched hits (4096 keys a
/// call), single misses over `misses`, batched misses. Either of our maps, growable or frozen,
/// answers through the collections' [`Lookup`] trait.
fn lookup_times(
    map: &impl Lookup<u32, u32>,
    probe: &[u32],
    misses: &[u32],
    runs: usize,
) -> [f64; 4] {
    let hit = best(runs, || {
        probe
            .iter()
            .map(|&k| u64::from(map.get(k).unwrap_or(0)))
            .sum::<u64>()
    });
    let mut found = vec![None; 4096];
    let hit_many = best(runs, || {
        let mut sum = 0u64;
        for chunk in probe.chunks(4096) {
            map.get_many(chunk, &mut found[..chunk.len()])
                .expect("get_many");
            sum += found[..chunk.len()]
                .iter()
                .map(|v| u64::from(v.unwrap_or(0)))
                .sum::<u64>();
        }
        sum
    });
    let miss = best(runs, || {
        misses.iter().filter(|&&k| map.contains_key(k)).count()
    });
    let mut present = vec![false; 4096];
    let miss_many = best(runs, || {
        misses
            .chunks(4096)
            .map(|chunk| {
                map.contains_many(chunk, &mut present[..chunk.len()])
                    .expect("contains_many")
            })
            .sum::<usize>()
    });
    [hit, hit_many, miss, miss_many]
}

/// hashbrown `<u32,u32>`'s figures the frozen map is held to (bytes also against `<u64,u64>`).
struct Baseline {
    build: f64,
    bytes: [f64; 2],
    hit: f64,
    miss: f64,
}

/// The read-only [`FrozenMap<u32, u32>`] on the same keys: built from the pairs (against
/// hashbrown's inserts of them), bytes per entry, then single and batched hits and misses.
fn frozen(
    keys: &[u32],
    values: &[u32],
    probe: &[u32],
    misses: &[u32],
    base: Baseline,
    (label, target, runs): (&str, f64, usize),
    out: &mut Vec<String>,
) {
    let n = keys.len();
    let mut map = None;
    let t_build = best(1, || {
        map = None;
        map = Some(FrozenMap::from_pairs(keys, values).expect("frozen map"));
    });
    let map = map.expect("built");
    let bytes = map.memory_bytes() as f64 / n as f64;
    let report = map.memory_report();
    let [hit, hit_many, miss, miss_many] = lookup_times(&map, probe, misses, runs);
    out.push(format!("{label}: frozen map: {report}"));
    out.push(line(
        &format!("{label}: frozen build (vs <u32,u32> inserts)"),
        ns(t_build, n),
        ns(base.build, n),
        "ns/op",
        1.5,
    ));
    for (name, peer) in [("<u64,u64>", base.bytes[0]), ("<u32,u32>", base.bytes[1])] {
        out.push(line(
            &format!("{label}: frozen bytes/entry (vs {name})"),
            bytes,
            peer,
            "B",
            1.0 / 3.0,
        ));
    }
    for (name, ours, peer, goal) in [
        ("hit, single get", hit, base.hit, target.max(1.5)),
        ("hit, get_many", hit_many, base.hit, target),
        ("miss, single", miss, base.miss, target.max(1.5)),
        ("miss, contains_many", miss_many, base.miss, target),
    ] {
        out.push(line(
            &format!("{label}: frozen {name} (vs <u32,u32>)"),
            ns(ours, n),
            ns(peer, n),
            "ns/op",
            goal,
        ));
    }
}

/// Lookups and inserts at `n` keys (u32 keys scattered over the whole range, values below
/// 2^20); `target` is the lookup ratio to reach. Each table is built, measured and dropped
/// before the next, and the inputs stay `u32` (widened where a `u64` table reads them), so
/// 1e8 keys need about 4 GiB at the peak (the inputs and hashbrown `<u64,u64>`). Ours is a
/// `Map<u32, u32>`: the table stores the same codes whatever the key and value types.
fn tables(n: usize, label: &str, target: f64, out: &mut Vec<String>) {
    let keys: Vec<u32> = (0..n as u32).map(scatter32).collect();
    let mut rng = Rng(0x1234_5678 ^ n as u64);
    let values: Vec<u32> = (0..n).map(|_| (rng.next() >> 44) as u32).collect();
    let probe: Vec<u32> = {
        let mut order: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            order.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
        order.iter().map(|&i| keys[i as usize]).collect()
    };
    let misses: Vec<u32> = (n as u32..2 * n as u32).map(scatter32).collect();
    let runs = if n <= 2_000_000 { 3 } else { 1 };

    // hashbrown <u64,u64>: inserts from empty (growing as it goes), then hits and misses.
    let mut brown64: Brown<u64, u64> = Brown::default();
    let t_brown64 = best(1, || {
        brown64 = Brown::default();
        for (&k, &v) in keys.iter().zip(&values) {
            brown64.insert(u64::from(k), u64::from(v));
        }
    });
    let b64 = brown64.allocation_size() as f64 / n as f64;
    let hb64 = best(runs, || {
        probe
            .iter()
            .map(|&k| brown64.get(&u64::from(k)).copied().unwrap_or(0))
            .sum::<u64>()
    });
    let mb64 = best(runs, || {
        misses
            .iter()
            .filter(|&&k| brown64.contains_key(&u64::from(k)))
            .count()
    });
    drop(brown64);

    // hashbrown <u32,u32>.
    let mut brown32: Brown<u32, u32> = Brown::default();
    let t_brown32 = best(1, || {
        brown32 = Brown::default();
        for (&k, &v) in keys.iter().zip(&values) {
            brown32.insert(k, v);
        }
    });
    let b32 = brown32.allocation_size() as f64 / n as f64;
    let hb32 = best(runs, || {
        probe
            .iter()
            .map(|k| u64::from(brown32.get(k).copied().unwrap_or(0)))
            .sum::<u64>()
    });
    let mb32 = best(runs, || {
        misses.iter().filter(|&&k| brown32.contains_key(&k)).count()
    });
    drop(brown32);

    // Ours: single inserts from empty, then every lookup.
    let mut ours: Map<u32, u32> = Map::new().expect("map");
    let t_ours = best(1, || {
        ours = Map::new().expect("map");
        for (&k, &v) in keys.iter().zip(&values) {
            ours.insert(k, v).expect("insert");
        }
    });
    let ours_bytes = ours.memory_bytes() as f64 / n as f64;
    let report = ours.memory_report();
    let [ho, hm, mo, mm] = lookup_times(&ours, probe.as_slice(), &misses, runs);
    drop(ours);
    let t_ours_many = best(1, || {
        let mut map: Map<u32, u32> = Map::new().expect("map");
        map.insert_many(&keys, &values).expect("insert");
        map.len()
    });

    frozen(
        &keys,
        &values,
        &probe,
        &misses,
        Baseline {
            build: t_brown32,
            bytes: [b64, b32],
            hit: hb32,
            miss: mb32,
        },
        (label, target, runs),
        out,
    );

    out.push(line(
        &format!("{label}: insert, single (vs <u64,u64>)"),
        ns(t_ours, n),
        ns(t_brown64, n),
        "ns/op",
        1.5,
    ));
    out.push(line(
        &format!("{label}: insert, single (vs <u32,u32>)"),
        ns(t_ours, n),
        ns(t_brown32, n),
        "ns/op",
        1.5,
    ));
    out.push(line(
        &format!("{label}: insert, batched (vs <u64,u64>)"),
        ns(t_ours_many, n),
        ns(t_brown64, n),
        "ns/op",
        1.5,
    ));
    out.push(line(
        &format!("{label}: insert, batched (vs <u32,u32>)"),
        ns(t_ours_many, n),
        ns(t_brown32, n),
        "ns/op",
        1.5,
    ));
    out.push(format!("{label}: memory report: {report}"));
    out.push(line(
        &format!("{label}: bytes/entry (vs <u64,u64>)"),
        ours_bytes,
        b64,
        "B",
        1.0 / 3.0,
    ));
    out.push(line(
        &format!("{label}: bytes/entry (vs <u32,u32>)"),
        ours_bytes,
        b32,
        "B",
        1.0 / 3.0,
    ));
    out.push(line(
        &format!("{label}: hit, single get (vs <u64,u64>)"),
        ns(ho, n),
        ns(hb64, n),
        "ns/op",
        target.max(1.5),
    ));
    out.push(line(
        &format!("{label}: hit, get_many (vs <u64,u64>)"),
        ns(hm, n),
        ns(hb64, n),
        "ns/op",
        target,
    ));
    out.push(line(
        &format!("{label}: hit, get_many (vs <u32,u32>)"),
        ns(hm, n),
        ns(hb32, n),
        "ns/op",
        target,
    ));
    out.push(line(
        &format!("{label}: miss, single (vs <u64,u64>)"),
        ns(mo, n),
        ns(mb64, n),
        "ns/op",
        target.max(1.5),
    ));
    out.push(line(
        &format!("{label}: miss, contains_many (vs <u64,u64>)"),
        ns(mm, n),
        ns(mb64, n),
        "ns/op",
        target,
    ));
}

/// A Zipf(1) sampler over `n` ranks by a cumulative table with a guide index.
fn zipf_tokens(tokens: usize, distinct: usize, seed: u64) -> Vec<u32> {
    let mut cdf = Vec::with_capacity(distinct);
    let mut total = 0.0;
    for rank in 1..=distinct {
        total += 1.0 / rank as f64;
        cdf.push(total);
    }
    let guide_len = distinct;
    let mut guide = Vec::with_capacity(guide_len);
    let mut rank = 0;
    for g in 0..guide_len {
        let u = total * g as f64 / guide_len as f64;
        while cdf[rank] < u {
            rank += 1;
        }
        guide.push(rank);
    }
    let mut rng = Rng(seed);
    (0..tokens)
        .map(|_| {
            let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
            let mut rank = guide[((u * guide_len as f64) as usize).min(guide_len - 1)];
            let target = u * total;
            while rank + 1 < distinct && cdf[rank] < target {
                rank += 1;
            }
            // Spread the ranks over the id space so frequent words are not neighbours.
            scatter32(rank as u32) % (4 * distinct as u32).max(1)
        })
        .collect()
}

fn word_count(sizes: &Sizes, out: &mut Vec<String>) {
    let tokens = zipf_tokens(sizes.tokens, sizes.distinct, 42);
    word_count_of(&tokens, sizes, "", out);
    // The same words spread over the whole u32 range: no direct array applies, every bag
    // hashes.
    let spread: Vec<u32> = tokens.iter().map(|&t| scatter32(t ^ 0x5bd1_e995)).collect();
    word_count_of(&spread, sizes, " (keys spread over u32)", out);
}

fn word_count_of(tokens: &[u32], sizes: &Sizes, label: &str, out: &mut Vec<String>) {
    let n = tokens.len();
    let base1 = best(1, || {
        let mut counts: Brown<u32, u64> = Brown::default();
        for &t in tokens {
            *counts.entry(t).or_insert(0) += 1;
        }
        counts.len()
    });
    let mut distinct = 0;
    let ours1 = {
        let runtime = Arc::new(Runtime::with_threads(1).expect("runtime"));
        let options = ArrayOptions::new().runtime(runtime);
        best(2, || {
            let bag = Bag::count_parallel(tokens, &options).expect("count");
            distinct = bag.len();
            bag.len()
        })
    };
    let ours2 = {
        let runtime = Arc::new(Runtime::with_threads(2).expect("runtime"));
        let options = ArrayOptions::new().runtime(runtime);
        best(2, || {
            Bag::count_parallel(tokens, &options).expect("count").len()
        })
    };
    let dash2 = best(1, || {
        let counts: dashmap::DashMap<u32, u64, FixedState> = dashmap::DashMap::default();
        std::thread::scope(|scope| {
            for half in tokens.chunks(n.div_ceil(2)) {
                let counts = &counts;
                scope.spawn(move || {
                    for &t in half {
                        *counts.entry(t).or_insert(0) += 1;
                    }
                });
            }
        });
        counts.len()
    });
    out.push(format!(
        "word count{label}: {n} Zipf(1) tokens, {distinct} distinct words seen (of {} ranks)",
        sizes.distinct
    ));
    out.push(line(
        &format!("word count{label}, 1 thread (vs hashbrown <u32,u64>, 1 thread)"),
        ns(ours1, n),
        ns(base1, n),
        "ns/token",
        1.0,
    ));
    out.push(line(
        &format!("word count{label}, 2 threads (vs hashbrown, 1 thread)"),
        ns(ours2, n),
        ns(base1, n),
        "ns/token",
        1.0,
    ));
    out.push(line(
        &format!("word count{label}, 2 threads (vs dashmap, 2 threads)"),
        ns(ours2, n),
        ns(dash2, n),
        "ns/token",
        1.0,
    ));
    let efficiency = ours1 / (2.0 * ours2);
    let probe = crate::measure::parallel_efficiency(&Runtime::with_threads(2).expect("runtime"));
    out.push(format!(
        "word count{label}, parallel efficiency on 2 threads: {efficiency:.2} (speed-up {:.2}x; dashmap 2 threads vs hashbrown 1: {:.2}x); efficiency probe (compute-only, 1.00 = second core free): {probe:.2}",
        ours1 / ours2,
        base1 / dash2
    ));
}

/// Runs every comparison and returns the printed lines.
pub fn run(sizes: &Sizes) -> Vec<String> {
    let mut lines = Vec::new();
    run_with(sizes, |line| lines.push(line.to_string()));
    lines
}

/// Runs every comparison, handing each line to `emit` as soon as its section is done (a long
/// run at 1e8 keys shows its first figures early). A size of 0 skips its section: `in_cache`,
/// `out_of_cache`, or `tokens` (the word count).
pub fn run_with(sizes: &Sizes, mut emit: impl FnMut(&str)) {
    let mut out = Vec::new();
    let mut flush = |out: &mut Vec<String>| out.drain(..).for_each(|line| emit(&line));
    if sizes.in_cache > 0 {
        tables(
            sizes.in_cache,
            &format!("in cache, {} keys", sizes.in_cache),
            1.5,
            &mut out,
        );
        flush(&mut out);
    }
    if sizes.out_of_cache > 0 {
        tables(
            sizes.out_of_cache,
            &format!("out of cache, {} keys", sizes.out_of_cache),
            1.0,
            &mut out,
        );
        flush(&mut out);
    }
    if sizes.tokens > 0 && sizes.distinct > 0 {
        word_count(sizes, &mut out);
        flush(&mut out);
    }
}
