//! Soak test: mixed parallel reads, writes, rebuilds at other thread counts and forked children
//! for a while, every result checked against a `Vec<u64>` reference. Short by default (a few
//! seconds in `cargo test`); `SMARTARRAYS_SOAK_SECS=300 cargo test --release -p smartarrays
//! --test soak` runs it for five minutes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use smartarrays::array::Threads;
use smartarrays::{codec, ArrayOptions, Placement, Runtime, SmartArray, Topology};

/// A small deterministic generator (xorshift), so a failure can be replayed from its seed.
struct Steps(u64);

impl Steps {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn seconds() -> u64 {
    std::env::var("SMARTARRAYS_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4)
}

#[test]
fn mixed_reads_writes_thread_counts_and_forks_stay_correct() {
    let described = Arc::new(
        Runtime::on_described(Arc::new(Topology::uniform(2, 2, 8 << 30).unwrap()), 3).unwrap(),
    );
    let runtimes: Vec<Arc<Runtime>> = vec![
        Arc::new(Runtime::with_threads(1).unwrap()),
        Arc::new(Runtime::with_threads(2).unwrap()),
        Arc::new(Runtime::with_threads(5).unwrap()),
        described,
    ];
    let deadline = Instant::now() + Duration::from_secs(seconds());
    let mut steps = Steps(0x5EED_2026_1124);
    let (mut rounds, mut forks) = (0u64, 0u64);
    while Instant::now() < deadline {
        rounds += 1;
        let bits = steps.below(64) as u32 + 1;
        let len = [0, 1, 63, 64, 65, 1023, 1025, 70_001, 300_007][steps.below(9)];
        let runtime = Arc::clone(&runtimes[steps.below(runtimes.len())]);
        let placements = Placement::all(runtime.topology());
        let placement = placements[steps.below(placements.len())].clone();
        let max = codec::max_value(bits);
        let mut reference: Vec<u64> = (0..len).map(|_| steps.next() & max).collect();
        let options = ArrayOptions::new()
            .bits(bits)
            .placement(placement.clone())
            .runtime(Arc::clone(&runtime));
        let mut array = SmartArray::from_slice(&reference, &options).unwrap();
        let what = format!(
            "round {rounds}: {len} values at {bits} bits, {placement}, {} threads",
            runtime.threads()
        );
        for _ in 0..8 {
            match steps.below(6) {
                0 if len > 0 => {
                    for _ in 0..64 {
                        let (i, v) = (steps.below(len), steps.next() & max);
                        array.set(i, v).unwrap();
                        reference[i] = v;
                    }
                }
                1 => {
                    let other =
                        Threads::Runtime(Arc::clone(&runtimes[steps.below(runtimes.len())]));
                    let sum = reference.iter().fold(0u64, |s, &v| s.wrapping_add(v));
                    let reductions = array.reduce(other);
                    assert_eq!(reductions.sum(), sum, "{what}");
                    assert_eq!(
                        reductions.minmax(),
                        reference
                            .iter()
                            .min()
                            .copied()
                            .zip(reference.iter().max().copied()),
                        "{what}"
                    );
                }
                2 if len > 0 => {
                    let picks: Vec<usize> = (0..257).map(|_| steps.below(len)).collect();
                    let mut out = vec![0u64; picks.len()];
                    array.get_many(&picks, &mut out).unwrap();
                    assert!(
                        picks.iter().zip(&out).all(|(&p, &v)| reference[p] == v),
                        "{what}"
                    );
                }
                3 => {
                    // Rebuilt on another runtime (thread count) from the packed words.
                    let words: Vec<u64> = array
                        .local()
                        .packed_bytes()
                        .chunks(8)
                        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                        .collect();
                    let target = ArrayOptions::new()
                        .runtime(Arc::clone(&runtimes[steps.below(runtimes.len())]));
                    array = SmartArray::from_packed_words(
                        len,
                        bits,
                        &words,
                        &target.placement(Placement::OsDefault),
                    )
                    .unwrap();
                }
                4 if forks < 12 => {
                    forks += 1;
                    let sum = reference.iter().fold(0u64, |s, &v| s.wrapping_add(v));
                    // SAFETY: the child only sums (the runtime restarts its threads there) and
                    // leaves through _exit under an alarm; the parent waits for it.
                    let pid = unsafe { libc::fork() };
                    if pid == 0 {
                        // SAFETY: alarm and _exit have no preconditions.
                        unsafe { libc::alarm(60) };
                        let ok = array.par_sum() == sum;
                        // SAFETY: as above.
                        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
                    }
                    let mut status = 0;
                    // SAFETY: pid is our child; status a local.
                    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
                    assert!(
                        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                        "{what}: child status {status}"
                    );
                }
                _ => assert_eq!(array.to_vec(), reference, "{what}"),
            }
        }
        assert_eq!(array.to_vec(), reference, "{what}");
    }
    assert!(rounds > 0);
    eprintln!(
        "soak: {rounds} rounds and {forks} forks in {} s, every result checked",
        seconds()
    );
}
