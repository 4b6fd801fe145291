//! Every job against a plain Rust reference on small inputs: empty input, one line, a last line
//! without a newline, chunks as small as one byte (every line on a chunk boundary) and 1 or 3
//! threads; proptest where the input can be anything.

use std::collections::HashMap;

use proptest::prelude::*;
use smartarrays_jobs::*;

fn options(threads: usize, chunk: usize) -> JobOptions {
    JobOptions::threads(threads).unwrap().chunk_bytes(chunk)
}

/// The settings every small input runs under.
fn settings() -> Vec<JobOptions> {
    vec![
        options(1, 1 << 20),
        options(3, 1),
        options(2, 7),
        options(3, 64),
    ]
}

fn reference_lines(text: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if text.is_empty() || text.ends_with(b"\n") {
        lines.pop();
    }
    lines
}

fn reference_wordcount(text: &str) -> Vec<(String, u64)> {
    let mut counts: HashMap<&str, u64> = HashMap::new();
    for word in text.split([' ', '\n']).filter(|w| !w.is_empty()) {
        *counts.entry(word).or_default() += 1;
    }
    let mut pairs: Vec<(String, u64)> = counts
        .into_iter()
        .map(|(w, n)| (w.to_string(), n))
        .collect();
    pairs.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    pairs
}

fn check_wordcount(text: &str) {
    let expected = reference_wordcount(text);
    let input = Input::from_bytes("t", text.as_bytes().to_vec());
    for options in settings() {
        let counts = wordcount(&input, &options).unwrap();
        let found: Vec<(String, u64)> = counts
            .sorted()
            .into_iter()
            .map(|(w, n)| (w.to_string(), n))
            .collect();
        assert_eq!(found, expected, "{options:?} on {text:?}");
        assert_eq!(counts.tokens(), expected.iter().map(|p| p.1).sum::<u64>());
    }
}

fn check_grep(text: &[u8], pattern: &str) {
    let expected: Vec<&[u8]> = reference_lines(text)
        .into_iter()
        .filter(|l| {
            l.windows(pattern.len().max(1))
                .any(|w| w == pattern.as_bytes())
                || pattern.is_empty()
        })
        .collect();
    let input = Input::from_bytes("t", text.to_vec());
    for options in settings() {
        let found = grep(&input, pattern, &options).unwrap();
        let lines: Vec<&[u8]> = found.lines.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(lines, expected, "{options:?} {pattern:?} on {text:?}");
        let mut written = Vec::new();
        found.write_to(&input, &mut written).unwrap();
        let joined: Vec<u8> = expected
            .iter()
            .flat_map(|l| l.iter().copied().chain([b'\n']))
            .collect();
        assert_eq!(written, joined);
    }
}

fn check_sort_lines(text: &[u8]) {
    let mut expected = reference_lines(text);
    expected.sort();
    let input = Input::from_bytes("t", text.to_vec());
    for options in settings() {
        let sorted = sort_lines(&input, &options).unwrap();
        assert_eq!(
            sorted.lines(&input).collect::<Vec<_>>(),
            expected,
            "{options:?}"
        );
    }
}

fn check_sort_keys(keys: &[u64]) {
    let text: String = keys.iter().map(|k| format!("{k}\n")).collect();
    let mut expected = keys.to_vec();
    expected.sort_unstable();
    let input = Input::from_bytes("k", text.into_bytes());
    for options in settings() {
        let sorted = sort_keys(&input, &options).unwrap();
        assert_eq!(sorted.to_vec(), expected, "{options:?}");
        let bits = 64 - expected.last().copied().unwrap_or(0).leading_zeros();
        assert_eq!((sorted.bits, sorted.passes), (bits, bits.div_ceil(8)));
        assert_eq!(
            sorted.keys.bits(),
            bits.max(1),
            "keys packed at the largest key's width"
        );
    }
}

#[test]
fn wordcount_equals_the_reference_on_edge_inputs() {
    for text in [
        "",
        "\n",
        "one",
        "one\n",
        "a b a\nb  a \n\nc",
        "  \n \n",
        "ü é ü\nü",
        "x\ny\nx",
    ] {
        check_wordcount(text);
    }
}

#[test]
fn grep_equals_the_reference_on_edge_inputs() {
    let texts: [&[u8]; 7] = [
        b"",
        b"The",
        b"The\n",
        b"no\nThe end\nThere\nthe",
        b"\n\nThe\n\n",
        b"TheThe The\nxThe",
        b"a\r\nThe\r\n",
    ];
    for text in texts {
        for pattern in ["The", "", "e T", "\r"] {
            check_grep(text, pattern);
        }
    }
}

#[test]
fn a_grep_pattern_with_a_newline_is_refused() {
    let input = Input::from_bytes("t", b"a\nb".to_vec());
    assert!(matches!(
        grep(&input, "a\nb", &JobOptions::new()),
        Err(JobError::InvalidArgument(_))
    ));
}

#[test]
fn sort_lines_equals_the_reference_on_edge_inputs() {
    let texts: [&[u8]; 6] = [
        b"",
        b"b",
        b"b\na",
        b"abcdefgh1\nabcdefgh\nabcdefgh0\nabc\n\n",
        b"ab\0\nab\nab\x01\n",
        b"\xff\n\x00\n",
    ];
    for text in texts {
        check_sort_lines(text);
    }
}

#[test]
fn sort_lines_of_many_lines_uses_the_parallel_sample_sort() {
    let mut text = Vec::new();
    for i in 0..40_000u64 {
        let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 50;
        text.extend_from_slice(format!("line{x}\n").as_bytes());
        if i % 1000 == 0 {
            text.extend_from_slice(b"same\n");
        }
    }
    check_sort_lines(&text);
}

#[test]
fn sort_keys_passes_follow_the_width() {
    check_sort_keys(&[]);
    check_sort_keys(&[0, 0, 0]);
    check_sort_keys(&[255, 3, 255, 0]);
    check_sort_keys(&[256, 1]);
    check_sort_keys(&[u32::MAX as u64, 7, 1 << 31]);
    check_sort_keys(&[1 << 32, 5, u32::MAX as u64]);
    check_sort_keys(&[u64::MAX, 0, u64::MAX - 1, 1 << 63]);
    let many: Vec<u64> = (0..50_000u64)
        .map(|i| i.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 29)
        .collect();
    check_sort_keys(&many);
}

#[test]
fn sorted_keys_are_written_in_order_across_blocks() {
    let keys: Vec<u64> = (0..300_000u64).map(|i| i * 3).collect();
    let text: String = keys.iter().rev().map(|k| format!("{k}\n")).collect();
    let sorted = sort_keys(
        &Input::from_bytes("k", text.into_bytes()),
        &options(3, 4096),
    )
    .unwrap();
    let mut out = Vec::new();
    sorted.write_to(&mut out, &options(3, 4096)).unwrap();
    let expected: String = keys.iter().map(|k| format!("{k}\n")).collect();
    assert_eq!(String::from_utf8(out).unwrap(), expected);
}

#[test]
fn a_malformed_key_names_its_line() {
    for (text, line) in [
        (&b"1\n2\nx\n"[..], 3),
        (b"1\n\n3", 2),
        (b"18446744073709551616", 1),
        (b"1\n-2", 2),
        (b" 1", 1),
    ] {
        let input = Input::from_bytes("keys.txt", text.to_vec());
        for options in settings() {
            match sort_keys(&input, &options) {
                Err(JobError::Parse {
                    line: found, file, ..
                }) => {
                    assert_eq!((found, file.to_str()), (line, Some("keys.txt")), "{text:?}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }
}

#[test]
fn wordcount_of_text_that_is_not_utf8_names_the_line() {
    let input = Input::from_bytes("t", b"ok\nfine words\nbad \xff here\nok".to_vec());
    for options in settings() {
        match wordcount(&input, &options) {
            Err(JobError::Parse { line, .. }) => assert_eq!(line, 3),
            other => panic!("{other:?}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn wordcount_equals_the_reference(text in "[ab T\n]{0,60}") {
        check_wordcount(&text);
    }

    #[test]
    fn grep_equals_the_reference(text in proptest::collection::vec(prop_oneof![Just(b'T'), Just(b'h'), Just(b'e'), Just(b'\n'), Just(b' ')], 0..80)) {
        check_grep(&text, "The");
        check_grep(&text, "e");
    }

    #[test]
    fn sort_lines_equals_the_reference(text in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(0u8), Just(b'\n')], 0..120)) {
        check_sort_lines(&text);
    }

    #[test]
    fn sort_keys_equals_the_reference(keys in proptest::collection::vec(any::<u64>().prop_map(|k| k >> (k % 64)), 0..200)) {
        check_sort_keys(&keys);
    }
}

// ---- naive Bayes ---------------------------------------------------------------------------

/// Plain multinomial naive Bayes: HashMaps of counts, scikit-learn's formulas.
struct ReferenceModel {
    labels: Vec<String>,
    log_prior: Vec<f64>,
    log_prob: HashMap<String, Vec<f64>>,
}

fn reference_train(text: &str, alpha: f64) -> ReferenceModel {
    let mut labels: Vec<String> = Vec::new();
    let mut docs: HashMap<String, u64> = HashMap::new();
    let mut counts: HashMap<(String, String), u64> = HashMap::new();
    let mut vocabulary: Vec<String> = Vec::new();
    for line in text.lines() {
        let (label, review) = line.split_once('\t').unwrap();
        if !labels.iter().any(|l| l == label) {
            labels.push(label.to_string());
        }
        *docs.entry(label.to_string()).or_default() += 1;
        for word in review.split(' ').filter(|w| !w.is_empty()) {
            if !vocabulary.iter().any(|v| v == word) {
                vocabulary.push(word.to_string());
            }
            *counts
                .entry((label.to_string(), word.to_string()))
                .or_default() += 1;
        }
    }
    labels.sort();
    let total: u64 = docs.values().sum();
    let log_prior = labels
        .iter()
        .map(|l| (docs[l] as f64).ln() - (total as f64).ln())
        .collect();
    let class_total: Vec<u64> = labels
        .iter()
        .map(|l| {
            counts
                .iter()
                .filter(|((c, _), _)| c == l)
                .map(|(_, n)| n)
                .sum()
        })
        .collect();
    let v = vocabulary.len() as f64;
    let log_prob = vocabulary
        .iter()
        .map(|w| {
            let row = labels
                .iter()
                .zip(&class_total)
                .map(|(l, &n)| {
                    let c = counts.get(&(l.clone(), w.clone())).copied().unwrap_or(0) as f64;
                    (c + alpha).ln() - (n as f64 + alpha * v).ln()
                })
                .collect();
            (w.clone(), row)
        })
        .collect();
    ReferenceModel {
        labels,
        log_prior,
        log_prob,
    }
}

fn reference_predict(model: &ReferenceModel, text: &str) -> usize {
    let mut scores = model.log_prior.clone();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if let Some(row) = model.log_prob.get(word) {
            for (s, p) in scores.iter_mut().zip(row) {
                *s += p;
            }
        }
    }
    let mut best = 0;
    for (i, &s) in scores.iter().enumerate() {
        if s > scores[best] {
            best = i;
        }
    }
    best
}

#[test]
fn bayes_equals_the_reference_on_generated_reviews() {
    let data = DataOptions {
        bytes: 60_000,
        vocabulary: 300,
        classes: 3,
        ..DataOptions::new(DataKind::Reviews)
    };
    let mut train = Vec::new();
    generate(&data, &mut train, &JobOptions::new()).unwrap();
    let mut test = Vec::new();
    generate(
        &DataOptions {
            seed: 2,
            bytes: 20_000,
            ..data
        },
        &mut test,
        &JobOptions::new(),
    )
    .unwrap();
    let train_text = String::from_utf8(train.clone()).unwrap();
    let test_text = String::from_utf8(test.clone()).unwrap();
    for alpha in [LAPLACE, 0.25] {
        let reference = reference_train(&train_text, alpha);
        let expected: Vec<u32> = test_text
            .lines()
            .map(|l| reference_predict(&reference, l.split_once('\t').unwrap().1) as u32)
            .collect();
        for options in [options(1, 1 << 20), options(3, 500)] {
            let model =
                bayes_train(&Input::from_bytes("train", train.clone()), alpha, &options).unwrap();
            assert_eq!(model.labels(), reference.labels);
            assert_eq!(model.vocabulary(), reference.log_prob.len());
            for (a, b) in model.log_prior().iter().zip(&reference.log_prior) {
                assert!((a - b).abs() < 1e-12);
            }
            for (word, row) in &reference.log_prob {
                for (a, b) in model.log_prob(word).unwrap().iter().zip(row) {
                    assert!((a - b).abs() < 1e-12, "{word}: {a} {b}");
                }
            }
            let predicted =
                bayes_classify(&model, &Input::from_bytes("test", test.clone()), &options).unwrap();
            assert_eq!(predicted.classes, expected);
            assert_eq!(predicted.labelled, expected.len() as u64);
            assert!(
                predicted.accuracy().unwrap() > 0.6,
                "{:?}",
                predicted.accuracy()
            );
        }
    }
}

#[test]
fn bayes_edge_inputs() {
    let model = bayes_train(
        &Input::from_bytes("r", b"a\tx y\nb\t".to_vec()),
        LAPLACE,
        &JobOptions::new(),
    )
    .unwrap();
    assert_eq!(model.labels(), ["a", "b"]);
    let nodes = JobOptions::new()
        .runtime()
        .unwrap()
        .topology()
        .nodes()
        .len();
    assert_eq!(model.replicas(), nodes, "one copy of the model per node");
    let wordless = bayes_train(
        &Input::from_bytes("w", b"a\t\nb\t \n".to_vec()),
        LAPLACE,
        &JobOptions::threads(3).unwrap(),
    )
    .unwrap();
    assert_eq!((wordless.vocabulary(), wordless.predict("x y")), (0, 0));
    let empty = bayes_classify(
        &model,
        &Input::from_bytes("e", Vec::new()),
        &JobOptions::new(),
    )
    .unwrap();
    assert!(empty.classes.is_empty() && empty.accuracy().is_none());
    // No tab: all text, unlabelled. Unknown words: the prior decides (a tie goes to the first).
    let found = bayes_classify(
        &model,
        &Input::from_bytes("t", b"x\nzzz\nb\tx".to_vec()),
        &JobOptions::new(),
    )
    .unwrap();
    assert_eq!(found.classes, [0, 0, 0]);
    assert_eq!((found.labelled, found.correct), (1, 0));
    assert!(matches!(
        bayes_train(
            &Input::from_bytes("e", Vec::new()),
            LAPLACE,
            &JobOptions::new()
        ),
        Err(JobError::InvalidArgument(_))
    ));
    assert!(matches!(
        bayes_train(
            &Input::from_bytes("r", b"a\tx".to_vec()),
            0.0,
            &JobOptions::new()
        ),
        Err(JobError::InvalidArgument(_))
    ));
    for (text, line) in [
        (&b"a\tx\nno tab here\n"[..], 2),
        (b"a\tx\n\ty\n", 2),
        (b"a\tx\n\xff y\n", 2),
    ] {
        match bayes_train(
            &Input::from_bytes("r", text.to_vec()),
            LAPLACE,
            &options(3, 1),
        ) {
            Err(JobError::Parse { line: found, .. }) => assert_eq!(found, line, "{text:?}"),
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

// ---- k-means -------------------------------------------------------------------------------

/// Plain Lloyd iterations, point by point.
fn reference_lloyd(
    points: &[Vec<f64>],
    mut centres: Vec<Vec<f64>>,
    iterations: usize,
) -> (Vec<Vec<f64>>, f64) {
    let nearest = |p: &[f64], centres: &[Vec<f64>]| {
        let mut best = (0, f64::INFINITY);
        for (c, centre) in centres.iter().enumerate() {
            let d: f64 = p.iter().zip(centre).map(|(x, y)| (x - y) * (x - y)).sum();
            if d < best.1 {
                best = (c, d);
            }
        }
        best
    };
    for _ in 0..iterations {
        let mut sums = vec![vec![0.0; centres[0].len()]; centres.len()];
        let mut counts = vec![0usize; centres.len()];
        for p in points {
            let (c, _) = nearest(p, &centres);
            counts[c] += 1;
            for (s, x) in sums[c].iter_mut().zip(p) {
                *s += x;
            }
        }
        for c in 0..centres.len() {
            if counts[c] > 0 {
                centres[c] = sums[c].iter().map(|s| s / counts[c] as f64).collect();
            }
        }
    }
    let cost = points.iter().map(|p| nearest(p, &centres).1).sum();
    (centres, cost)
}

fn generated_points(bytes: u64, dims: usize) -> (Vec<u8>, Vec<Vec<f64>>) {
    let mut text = Vec::new();
    let data = DataOptions {
        bytes,
        dims,
        ..DataOptions::new(DataKind::Vectors)
    };
    generate(&data, &mut text, &JobOptions::new()).unwrap();
    let rows = String::from_utf8(text.clone())
        .unwrap()
        .lines()
        .map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect())
        .collect();
    (text, rows)
}

#[test]
fn kmeans_from_given_centroids_equals_plain_lloyd() {
    let (text, rows) = generated_points(200_000, 5);
    let initial: Vec<Vec<f64>> = (0..8).map(|i| rows[i * 37].clone()).collect();
    let (expected, expected_cost) = reference_lloyd(&rows, initial.clone(), 4);
    for options in [options(1, 1 << 20), options(3, 4096)] {
        let points = read_points(&Input::from_bytes("v", text.clone()), &options).unwrap();
        assert_eq!((points.len(), points.dims()), (rows.len(), 5));
        let settings = KMeansOptions {
            initial: Some(initial.concat()),
            ..KMeansOptions::default()
        };
        let result = kmeans(&points, &settings, &options).unwrap();
        assert_eq!(
            (result.k(), result.init_passes, result.iterations),
            (8, 0, 4)
        );
        // the centroids are a replicated smart array: one copy per node of this machine
        let nodes = options.runtime().unwrap().topology().nodes().len();
        assert_eq!(result.centroid_replicas, nodes);
        for (a, b) in result.centroids.iter().zip(expected.concat()) {
            assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} {b}");
        }
        assert!((result.cost - expected_cost).abs() <= 1e-9 * expected_cost);
    }
}

#[test]
fn kmeans_parallel_init_is_deterministic_and_finds_the_clusters() {
    let (text, rows) = generated_points(300_000, 4);
    let run = |threads| {
        let options = options(threads, 8192);
        let points = read_points(&Input::from_bytes("v", text.clone()), &options).unwrap();
        kmeans(&points, &KMeansOptions::default(), &options).unwrap()
    };
    let one = run(1);
    assert_eq!(one, run(3), "the threads must not change the result");
    assert_eq!((one.k(), one.init_passes), (8, 6)); // 5 rounds + the weighting pass
    assert!(one.candidates > 8);
    // Around 8 centres with unit noise in 4 dimensions: about 4 per point when each is found.
    let per_point = one.cost / rows.len() as f64;
    assert!(per_point < 12.0, "cost per point {per_point}");
}

#[test]
fn kmeans_edge_inputs() {
    let none = read_points(&Input::from_bytes("v", Vec::new()), &JobOptions::new()).unwrap();
    assert!(none.is_empty());
    assert!(matches!(
        kmeans(&none, &KMeansOptions::default(), &JobOptions::new()),
        Err(JobError::InvalidArgument(_))
    ));
    // Fewer distinct points than k: every distinct point is a centroid.
    let few = read_points(
        &Input::from_bytes("v", b"1 1\n1 1\n2 2".to_vec()),
        &JobOptions::new(),
    )
    .unwrap();
    let result = kmeans(&few, &KMeansOptions::default(), &JobOptions::new()).unwrap();
    assert_eq!(result.k(), 2);
    assert_eq!(result.cost, 0.0);
    let zero = KMeansOptions {
        k: 0,
        ..KMeansOptions::default()
    };
    assert!(matches!(
        kmeans(&few, &zero, &JobOptions::new()),
        Err(JobError::InvalidArgument(_))
    ));
    let wrong = KMeansOptions {
        k: 2,
        initial: Some(vec![0.0; 3]),
        ..KMeansOptions::default()
    };
    assert!(matches!(
        kmeans(&few, &wrong, &JobOptions::new()),
        Err(JobError::InvalidArgument(_))
    ));
    for (text, line) in [
        (&b"1 2\n3\n"[..], 2),
        (b"1 2\n3 x\n", 2),
        (b"1 2\n3 4 5", 2),
        (b"\n1 2", 1),
        (b"1 2\n\n", 2),
        (b"1 NaN\n", 1),
    ] {
        match read_points(&Input::from_bytes("v", text.to_vec()), &options(3, 1)) {
            Err(JobError::Parse { line: found, .. }) => assert_eq!(found, line, "{text:?}"),
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

// ---- generators and files ------------------------------------------------------------------

#[test]
fn generators_do_not_depend_on_threads_and_stop_at_a_line_end() {
    for kind in [
        DataKind::Text,
        DataKind::Reviews,
        DataKind::Vectors,
        DataKind::Keys,
    ] {
        let data = DataOptions {
            bytes: 300_000,
            vocabulary: 1000,
            ..DataOptions::new(kind)
        };
        let mut one = Vec::new();
        let written = generate(&data, &mut one, &options(1, 1)).unwrap();
        let mut three = Vec::new();
        generate(&data, &mut three, &options(3, 1)).unwrap();
        assert_eq!(one, three, "{kind:?}");
        assert_eq!(written as usize, one.len());
        assert!(one.len() >= 300_000 && one.ends_with(b"\n"));
        let without_last = &one[..one.len() - 1];
        let last_line_start = without_last.iter().rposition(|&b| b == b'\n').unwrap() + 1;
        assert!(
            last_line_start < 300_000,
            "{kind:?} goes past the first line end after the size"
        );
    }
    let mut nothing = Vec::new();
    assert_eq!(
        generate(
            &DataOptions {
                bytes: 0,
                ..DataOptions::new(DataKind::Text)
            },
            &mut nothing,
            &JobOptions::new()
        )
        .unwrap(),
        0
    );
    let bad = DataOptions {
        key_bits: 65,
        ..DataOptions::new(DataKind::Keys)
    };
    assert!(matches!(
        generate(&bad, Vec::new(), &JobOptions::new()),
        Err(JobError::InvalidArgument(_))
    ));
}

#[test]
fn generated_text_has_the_study_pattern_and_keys_fit_their_width() {
    let mut text = Vec::new();
    generate(
        &DataOptions {
            bytes: 200_000,
            ..DataOptions::new(DataKind::Text)
        },
        &mut text,
        &JobOptions::new(),
    )
    .unwrap();
    let input = Input::from_bytes("t", text);
    let lines = input.bytes().iter().filter(|&&b| b == b'\n').count();
    let kept = grep(&input, STUDY_PATTERN, &JobOptions::new())
        .unwrap()
        .len();
    assert!(
        kept * 10 > lines && kept * 10 < lines * 9,
        "{kept} of {lines} lines hold The"
    );
    let mut keys = Vec::new();
    generate(
        &DataOptions {
            bytes: 100_000,
            key_bits: 20,
            ..DataOptions::new(DataKind::Keys)
        },
        &mut keys,
        &JobOptions::new(),
    )
    .unwrap();
    let sorted = sort_keys(&Input::from_bytes("k", keys), &JobOptions::new()).unwrap();
    assert_eq!((sorted.bits, sorted.passes), (20, 3));
}

#[test]
fn files_are_mapped_and_an_empty_file_has_no_lines() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("text.txt");
    let written = generate_file(
        &DataOptions {
            bytes: 50_000,
            ..DataOptions::new(DataKind::Text)
        },
        &path,
        &JobOptions::new(),
    )
    .unwrap();
    let input = Input::open(&path).unwrap();
    assert_eq!(input.len() as u64, written);
    let populated = Input::open_populated(&path).unwrap();
    assert_eq!(populated.bytes(), input.bytes());
    let text = std::str::from_utf8(input.bytes()).unwrap().to_string();
    check_wordcount(&text);
    let empty = folder.path().join("empty.txt");
    std::fs::write(&empty, b"").unwrap();
    let input = Input::open(&empty).unwrap();
    assert!(input.is_empty());
    assert_eq!(wordcount(&input, &JobOptions::new()).unwrap().distinct(), 0);
    assert!(grep(&input, "The", &JobOptions::new()).unwrap().is_empty());
    assert!(sort_lines(&input, &JobOptions::new()).unwrap().is_empty());
    assert!(matches!(
        Input::open(folder.path().join("missing")),
        Err(JobError::Io { .. })
    ));
}

#[test]
fn progress_reaches_the_total() {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<(String, u64, u64)>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let options = options(2, 100).progress(Arc::new(move |stage: &str, done, total| {
        sink.lock().unwrap().push((stage.to_string(), done, total));
    }));
    let input = Input::from_bytes("t", b"The a\nb c\n".repeat(100));
    grep(&input, "The", &options).unwrap();
    let seen = seen.lock().unwrap();
    assert!(seen
        .iter()
        .all(|(s, done, total)| s == "grep" && done <= total));
    assert_eq!(seen.last().map(|e| (e.1, e.2)), Some((1000, 1000)));
}
