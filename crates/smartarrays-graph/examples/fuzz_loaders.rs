//! Randomized fuzzing of the three loaders (SNAP edge list, Matrix Market, binary format) with
//! arbitrary bytes and mutations of valid files, for a fixed time; stands in for cargo-fuzz,
//! which needs a nightly toolchain. Any panic is a failure: the input is saved and the run
//! exits non-zero. Binary inputs are also re-checksummed after mutation so the structural
//! checks behind the checksums get exercised.
//!
//! usage: cargo run --release -p smartarrays-graph --example fuzz_loaders -- [seconds] [seed]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};
use smartarrays::Runtime;
use smartarrays_graph::io::{parse_binary, parse_edge_list, parse_matrix_market, save_binary};
use smartarrays_graph::{build, generate, EdgeList, GraphOptions, Keep, Variant};
use xxhash_rust::xxh3::xxh3_64;

const TOKENS: &[&[u8]] = &[
    b"0",
    b"1",
    b"-1",
    b"4294967295",
    b"4294967296",
    b"18446744073709551615",
    b"18446744073709551616",
    b"99999999999999999999999",
    b" ",
    b"\t",
    b"\n",
    b"\r\n",
    b"#",
    b"%",
    b"% x\n",
    b"%%MatrixMarket matrix coordinate pattern general\n",
    b"symmetric",
    b"real",
    b"1.5e3",
    b"nan",
    b"inf",
    b"Nodes: 7",
    b"\x00",
    b"\xff",
    b"SAGRAPH\0",
];

fn mutate(rng: &mut Xoshiro256PlusPlus, input: &mut Vec<u8>) {
    for _ in 0..rng.random_range(1..6) {
        let len = input.len();
        match rng.random_range(0..7) {
            0 if len > 0 => {
                let at = rng.random_range(0..len);
                input[at] ^= 1 << rng.random_range(0..8);
            }
            1 if len > 0 => {
                let at = rng.random_range(0..len);
                input[at] = rng.next_u64() as u8;
            }
            2 => {
                let at = rng.random_range(0..=len);
                let token = TOKENS[rng.random_range(0..TOKENS.len())];
                input.splice(at..at, token.iter().copied());
            }
            3 if len > 0 => {
                let start = rng.random_range(0..len);
                let end = (start + rng.random_range(1..64)).min(len);
                input.drain(start..end);
            }
            4 if len > 0 => {
                let start = rng.random_range(0..len);
                let end = (start + rng.random_range(1..64)).min(len);
                let copy = input[start..end].to_vec();
                let at = rng.random_range(0..=input.len());
                input.splice(at..at, copy);
            }
            5 => input.truncate(rng.random_range(0..=len)),
            _ => {
                let at = rng.random_range(0..=len);
                let bytes: Vec<u8> = (0..rng.random_range(1..16))
                    .map(|_| rng.next_u64() as u8)
                    .collect();
                input.splice(at..at, bytes);
            }
        }
    }
}

/// Recomputes the binary format's array and header checksums after a mutation.
fn fix_checksums(input: &mut [u8]) {
    if input.len() < 48 {
        return;
    }
    let count = u32::from_le_bytes(input[32..36].try_into().unwrap_or([0; 4])) as usize;
    if count > 4 || input.len() < 40 + 48 * count + 8 {
        return;
    }
    for i in 0..count {
        let at = 40 + 48 * i;
        let offset = u64::from_le_bytes(input[at + 16..at + 24].try_into().unwrap_or([0; 8]));
        let size = u64::from_le_bytes(input[at + 24..at + 32].try_into().unwrap_or([0; 8]));
        if let Some(end) = offset
            .checked_add(size)
            .filter(|&e| e <= input.len() as u64)
        {
            let sum = xxh3_64(&input[offset as usize..end as usize]);
            input[at + 32..at + 40].copy_from_slice(&sum.to_le_bytes());
        }
    }
    let end = 40 + 48 * count;
    let sum = xxh3_64(&input[..end]);
    input[end..end + 8].copy_from_slice(&sum.to_le_bytes());
}

fn text_seeds() -> Vec<Vec<u8>> {
    let mut seeds = vec![
        b"# Directed graph\n# Nodes: 5 Edges: 3\n0 1\n1\t2\n3 4 1.5\n".to_vec(),
        b"% comment\n\n0 0\r\n2 1\n".to_vec(),
        b"%%MatrixMarket matrix coordinate pattern general\n% c\n4 4 3\n1 2\n2 3\n4 1\n".to_vec(),
        b"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.5\n3 3 -1e3\n".to_vec(),
        b"%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n2 1 1.0 2.0\n".to_vec(),
    ];
    let mut list = String::new();
    for (s, t) in generate::uniform(50, 3, 1, true).unwrap().iter() {
        list.push_str(&format!("{s} {t}\n"));
    }
    seeds.push(list.into_bytes());
    seeds
}

fn binary_seeds(folder: &Path) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, (directed, variant)) in [
        (true, Variant::U),
        (false, Variant::VE),
        (true, Variant::VE),
        (false, Variant::V),
    ]
    .into_iter()
    .enumerate()
    {
        let edges = generate::kronecker(6, 4, i as u64, directed).unwrap();
        let graph = build(
            edges,
            &GraphOptions::variant(variant).duplicates(Keep::Drop),
        )
        .unwrap();
        let path = folder.join(format!("seed{i}.sag"));
        save_binary(&graph, &path).unwrap();
        seeds.push(std::fs::read(&path).unwrap());
    }
    let empty = build(EdgeList::new(true), &GraphOptions::default()).unwrap();
    let path = folder.join("empty.sag");
    save_binary(&empty, &path).unwrap();
    seeds.push(std::fs::read(&path).unwrap());
    seeds
}

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(60);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let folder = std::env::temp_dir().join(format!("smartarrays-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let runtime = Arc::new(Runtime::with_threads(2).unwrap());
    let options = GraphOptions::variant(Variant::VE).runtime(Arc::clone(&runtime));
    let texts = text_seeds();
    let binaries = binary_seeds(&folder);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    std::panic::set_hook(Box::new(|_| {}));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut runs, mut accepted, mut failures) = ([0u64; 3], [0u64; 3], 0u64);
    let name = Path::new("fuzz-input");
    while Instant::now() < deadline {
        for loader in 0..3 {
            let mut input = match rng.random_range(0..10) {
                0 => (0..rng.random_range(0..256))
                    .map(|_| rng.next_u64() as u8)
                    .collect(),
                _ if loader == 2 => binaries[rng.random_range(0..binaries.len())].clone(),
                _ => texts[rng.random_range(0..texts.len())].clone(),
            };
            mutate(&mut rng, &mut input);
            if loader == 2 && rng.random_range(0..2) == 0 {
                fix_checksums(&mut input);
            }
            let outcome = catch_unwind(AssertUnwindSafe(|| -> bool {
                match loader {
                    0 | 1 => {
                        let parsed = if loader == 0 {
                            parse_edge_list(&input, name, true, &runtime)
                        } else {
                            parse_matrix_market(&input, name, &runtime)
                        };
                        match parsed {
                            // Ids define the vertex count; only build what fits a fuzzing run.
                            Ok(edges) if edges.vertices() <= 1 << 20 => {
                                build(edges, &options).is_ok()
                            }
                            Ok(_) => true,
                            Err(error) => {
                                assert!(!error.to_string().is_empty());
                                false
                            }
                        }
                    }
                    _ => parse_binary(&input, name, &options).is_ok(),
                }
            }));
            runs[loader] += 1;
            match outcome {
                Ok(true) => accepted[loader] += 1,
                Ok(false) => {}
                Err(_) => {
                    failures += 1;
                    let path = folder.join(format!("crash-{loader}-{failures}.bin"));
                    std::fs::write(&path, &input).unwrap();
                    eprintln!(
                        "PANIC in loader {loader}; input saved to {}",
                        path.display()
                    );
                }
            }
        }
    }
    println!(
        "fuzzed {seconds} s: snap {} inputs ({} accepted), mtx {} ({} accepted), binary {} ({} accepted); {failures} panics",
        runs[0], accepted[0], runs[1], accepted[1], runs[2], accepted[2]
    );
    if failures > 0 {
        std::process::exit(1);
    }
    let _ = std::fs::remove_dir_all(&folder);
}
