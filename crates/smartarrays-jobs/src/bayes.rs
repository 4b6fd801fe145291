//! Multinomial naive Bayes: train per-class word counts on labelled review lines, then classify
//! lines by the class of largest log-probability.
//!
//! A review line is `LABEL<TAB>TEXT`; words are the pieces of the text between spaces (bytes:
//! any encoding works). The model maps each word to an id (a hash table read by every worker
//! at once) and keeps the smoothed log-probabilities in one dense array indexed by word id,
//! word-major (the classes' values of a word share a cache line), an [`F64Array`] with
//! [`Placement::Replicated`]: one copy per NUMA node, each classifying worker reading its
//! node's copy ([`BayesModel::replicas`]; one on a one-node machine):
//! `log P(w|c) = ln(N_cw + alpha) - ln(N_c + alpha * V)` with `V` the vocabulary size, and
//! `log P(c) = ln(docs_c / docs)`, as scikit-learn's `MultinomialNB` (`fit_prior=True`). A line
//! scores `log P(c) + sum over its words of log P(w|c)`, every occurrence counted, words outside
//! the vocabulary skipped; ties go to the first class in label order.
//!
//! The study's job (BigDataBench's Spark naive Bayes) multiplies raw probabilities of each
//! line's *distinct* words, with 0.0001 for a word the model lacks. Products of hundreds of
//! probabilities below 1 underflow to 0 in `f64`, after which every class ties; sums of logs do
//! not, so long reviews are classified too.

use std::io::Write;

use smartarrays::{ArrayOptions, F64Array, Placement};

use crate::error::{JobError, Result};
use crate::input::{lines, words, Fault, Input};
use crate::options::{fold_chunks, map_indexed_on, ChunkState, JobOptions};
use crate::words::{LocalWords, WordIndex};
use smartarrays::memory::prefetch::{prefetch, CacheLevel};

/// Laplace smoothing (scikit-learn's default `alpha`).
pub const LAPLACE: f64 = 1.0;

/// A trained multinomial naive Bayes model.
pub struct BayesModel {
    labels: Vec<String>,
    words: WordIndex,
    log_prior: Vec<f64>,
    log_prob: F64Array,
    alpha: f64,
}

impl std::fmt::Debug for BayesModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BayesModel")
            .field("labels", &self.labels)
            .field("vocabulary", &self.words.len())
            .field("alpha", &self.alpha)
            .field("replicas", &self.replicas())
            .finish()
    }
}

impl BayesModel {
    /// The class labels, sorted (class `i` is `labels()[i]`).
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Number of distinct training words.
    pub fn vocabulary(&self) -> usize {
        self.words.len()
    }

    /// The smoothing.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// `ln P(class)`.
    pub fn log_prior(&self) -> &[f64] {
        &self.log_prior
    }

    /// `ln P(word | class)` for every class, or `None` for a word outside the vocabulary.
    pub fn log_prob(&self, word: &str) -> Option<&[f64]> {
        let classes = self.labels.len();
        let code = self.words.get(word.as_bytes())? as usize;
        Some(&self.log_prob.as_slice()[code * classes..(code + 1) * classes])
    }

    /// Copies of the log-probabilities (one per NUMA node: a [`Placement::Replicated`] array).
    pub fn replicas(&self) -> usize {
        self.log_prob.raw().replica_count()
    }

    /// The class of a text (its words between spaces).
    pub fn predict(&self, text: &str) -> u32 {
        let mut scores = self.log_prior.clone();
        let table = self.log_prob.as_slice();
        self.score(table, text.as_bytes(), &mut scores, &mut Scratch::default());
        argmax(&scores)
    }

    /// Adds the log-probabilities of the words of `text` to `scores`: the words' ids are looked
    /// up as a batch, then their rows (of `table`, a replica of the log-probabilities) are
    /// prefetched, then summed, so the cache misses of a line overlap.
    fn score<'a>(
        &self,
        table: &[f64],
        text: &'a [u8],
        scores: &mut [f64],
        scratch: &mut Scratch<'a>,
    ) {
        let classes = scores.len();
        scratch.words.clear();
        scratch.words.extend(words(text));
        self.words.get_many(&scratch.words, &mut scratch.ids);
        for &code in scratch.ids.iter().flatten() {
            prefetch(table, code as usize * classes, CacheLevel::L1);
        }
        for &code in scratch.ids.iter().flatten() {
            let row = &table[code as usize * classes..][..classes];
            for (s, p) in scores.iter_mut().zip(row) {
                *s += p;
            }
        }
        scratch.words.clear();
    }

    /// Bytes held by the word ids (keys, table slots) and the probability arrays.
    pub fn memory_bytes(&self) -> usize {
        self.words.memory_bytes() + (self.log_prob.len() + self.log_prior.len()) * 8
    }
}

/// Buffers reused from line to line: a line's words and their ids.
#[derive(Default)]
struct Scratch<'a> {
    words: Vec<&'a [u8]>,
    ids: Vec<Option<u32>>,
}

fn argmax(scores: &[f64]) -> u32 {
    let mut best = 0;
    for (i, &s) in scores.iter().enumerate() {
        if s > scores[best] {
            best = i;
        }
    }
    best as u32
}

/// The label and the text of a review line; `None` when the line has no tab.
fn split_review(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let tab = memchr::memchr(b'\t', line)?;
    Some((&line[..tab], &line[tab + 1..]))
}

/// A worker's share of the training: its words, labels and counts per (label, word).
#[derive(Default)]
struct Local<'a> {
    words: LocalWords<'a>,
    labels: Vec<&'a [u8]>,
    docs: Vec<u64>,
    counts: Vec<Vec<u64>>,
    fault: Option<Fault>,
    /// A line's words and their codes.
    buffer: Vec<&'a [u8]>,
    codes: Vec<u32>,
}

impl<'a> ChunkState<'a> for Local<'a> {
    fn fault(&mut self) -> &mut Option<Fault> {
        &mut self.fault
    }
}

impl<'a> Local<'a> {
    fn learn(&mut self, chunk: &'a [u8], start: usize) {
        for (offset, line) in lines(chunk) {
            let fail = |problem: &str| Some(Fault::new(start + offset, problem));
            let Some((label, text)) = split_review(line) else {
                self.fault = fail("a review line is LABEL<TAB>TEXT, and this one has no tab");
                return;
            };
            if label.is_empty() {
                self.fault = fail("the label before the tab is empty");
                return;
            }
            let class = match self.labels.iter().position(|&l| l == label) {
                Some(class) => class,
                None => {
                    self.labels.push(label);
                    self.docs.push(0);
                    self.counts.push(Vec::new());
                    self.labels.len() - 1
                }
            };
            self.docs[class] += 1;
            self.buffer.clear();
            self.buffer.extend(words(text));
            self.words.intern_many(&self.buffer, &mut self.codes);
            let counts = &mut self.counts[class];
            counts.resize(self.words.words().len(), 0);
            for &code in &self.codes {
                counts[code as usize] += 1;
            }
        }
    }
}

/// Trains a model on the review lines of `input` with smoothing `alpha` (> 0; [`LAPLACE`] is
/// 1). A line without a tab or with an empty label is an error naming the line.
///
/// # Example
/// ```
/// use smartarrays_jobs::{bayes_train, Input, JobOptions, LAPLACE};
/// let train = Input::from_bytes("r.txt", b"pos\tgreat fun\nneg\tdull boring\npos\tfun fun\n".to_vec());
/// let model = bayes_train(&train, LAPLACE, &JobOptions::new()).unwrap();
/// assert_eq!(model.labels(), ["neg", "pos"]);
/// assert_eq!(model.predict("such fun"), 1);
/// assert_eq!(model.predict("boring"), 0);
/// ```
pub fn bayes_train(input: &Input, alpha: f64, options: &JobOptions) -> Result<BayesModel> {
    if !(alpha > 0.0 && alpha.is_finite()) {
        return Err(JobError::invalid(format!(
            "naive Bayes smoothing alpha must be positive, not {alpha}"
        )));
    }
    let runtime = options.runtime()?;
    let locals = fold_chunks(input, options, &runtime, "train", Local::learn)?;
    let mut labels: Vec<&[u8]> = locals
        .iter()
        .flat_map(|l| l.labels.iter().copied())
        .collect();
    labels.sort_unstable();
    labels.dedup();
    if labels.is_empty() {
        return Err(JobError::invalid(format!(
            "{}: no review lines to train on",
            input.name().display()
        )));
    }
    let classes = labels.len();
    let mut ids = WordIndex::default();
    let mut counts: Vec<u64> = Vec::new(); // word-major: counts[word * classes + class]
    let mut docs = vec![0u64; classes];
    for local in &locals {
        let global_class: Vec<usize> = local
            .labels
            .iter()
            .map(|l| labels.binary_search(l).unwrap_or(0))
            .collect();
        let global_word: Vec<usize> = local
            .words
            .words()
            .iter()
            .map(|&w| {
                let next = ids.len() as u32;
                ids.get_or_insert(w, next) as usize
            })
            .collect();
        counts.resize(ids.len() * classes, 0);
        for (class, class_counts) in local.counts.iter().enumerate() {
            docs[global_class[class]] += local.docs[class];
            for (code, &n) in class_counts.iter().enumerate() {
                counts[global_word[code] * classes + global_class[class]] += n;
            }
        }
    }
    let vocabulary = ids.len();
    let total_docs: u64 = docs.iter().sum();
    let log_prior = docs
        .iter()
        .map(|&d| (d as f64).ln() - (total_docs as f64).ln())
        .collect();
    let mut per_class = vec![0u64; classes];
    for row in counts.chunks(classes) {
        for (total, &n) in per_class.iter_mut().zip(row) {
            *total += n;
        }
    }
    let denominators: Vec<f64> = per_class
        .iter()
        .map(|&n| (n as f64 + alpha * vocabulary as f64).ln())
        .collect();
    let replicated = ArrayOptions::new()
        .placement(Placement::Replicated)
        .runtime(std::sync::Arc::clone(&runtime));
    let log_prob = F64Array::from_fn(counts.len(), &replicated, |i| {
        (counts[i] as f64 + alpha).ln() - denominators[i % classes]
    })?;
    Ok(BayesModel {
        labels: labels
            .into_iter()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect(),
        words: ids,
        log_prior,
        log_prob,
        alpha,
    })
}

/// The classes a model gives the lines of an input, and how many lines' own labels agree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Predictions {
    /// The class of every line, in order (an index into [`BayesModel::labels`]).
    pub classes: Vec<u32>,
    /// Lines whose label (before a tab) is one of the model's labels.
    pub labelled: u64,
    /// Labelled lines classified as their label says.
    pub correct: u64,
}

impl Predictions {
    /// Share of labelled lines classified correctly (`None` without labelled lines).
    pub fn accuracy(&self) -> Option<f64> {
        (self.labelled > 0).then(|| self.correct as f64 / self.labelled as f64)
    }

    /// Writes one predicted label per line.
    pub fn write_to(&self, model: &BayesModel, mut out: impl Write) -> std::io::Result<()> {
        for &class in &self.classes {
            out.write_all(model.labels[class as usize].as_bytes())?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// Classifies every line of `input`: the text after the first tab (a line without one is all
/// text).
///
/// # Example
/// ```
/// use smartarrays_jobs::{bayes_classify, bayes_train, Input, JobOptions, LAPLACE};
/// let train = Input::from_bytes("r.txt", b"pos\tgreat fun\nneg\tdull boring\n".to_vec());
/// let model = bayes_train(&train, LAPLACE, &JobOptions::new()).unwrap();
/// let test = Input::from_bytes("t.txt", b"pos\tfun fun\nneg\tso dull\nboring\n".to_vec());
/// let predicted = bayes_classify(&model, &test, &JobOptions::new()).unwrap();
/// assert_eq!(predicted.classes, [1, 0, 0]);
/// assert_eq!((predicted.correct, predicted.labelled), (2, 2));
/// ```
pub fn bayes_classify(
    model: &BayesModel,
    input: &Input,
    options: &JobOptions,
) -> Result<Predictions> {
    let runtime = options.runtime()?;
    let chunks = input.chunks(options.chunk_bytes);
    let stage = options.stage("classify", input.len() as u64);
    let parts = map_indexed_on(&runtime, chunks.len(), |worker, i| {
        let range = chunks[i].clone();
        let table = model.log_prob.for_worker(worker);
        let mut part = Predictions::default();
        let mut scores = vec![0.0; model.labels.len()];
        let mut scratch = Scratch::default();
        for (_, line) in lines(&input.bytes()[range.clone()]) {
            let (label, text) = split_review(line).map_or((None, line), |(l, t)| (Some(l), t));
            scores.copy_from_slice(&model.log_prior);
            model.score(table, text, &mut scores, &mut scratch);
            let class = argmax(&scores);
            part.classes.push(class);
            if let Some(label) =
                label.and_then(|l| model.labels.iter().position(|m| m.as_bytes() == l))
            {
                part.labelled += 1;
                part.correct += u64::from(label == class as usize);
            }
        }
        stage.advance(range.len() as u64);
        part
    });
    let mut all = Predictions::default();
    for part in parts {
        all.classes.extend(part.classes);
        all.labelled += part.labelled;
        all.correct += part.correct;
    }
    Ok(all)
}
