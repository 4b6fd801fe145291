//! K-means: Lloyd iterations over d-dimensional points after a k-means|| initialisation, as
//! Spark MLlib's `KMeans.train` does by default (the study: k = 8, 4 iterations).
//!
//! Points are read from text, one per line, `d` decimal numbers separated by spaces (the
//! study's `split(' ').map(_.toDouble)`), into one block of `f64` rows per chunk of the file;
//! blocks are the units of every parallel pass. Each pass sums per block and adds the blocks'
//! sums in block order, so the centroids do not depend on the number of threads. The k x d
//! centroids of each Lloyd pass (and of the final cost pass) are an [`F64Array`] with
//! [`Placement::Replicated`]: one copy per NUMA node, each worker reading its node's copy (one
//! copy on a one-node machine; [`KMeansResult::centroid_replicas`] says how many).
//!
//! k-means|| (Bahmani et al.), as MLlib: a first centre drawn at random; then `init_steps`
//! rounds, each updating every point's cost (squared distance to its nearest centre so far: one
//! pass over the points) and keeping each point with probability `min(1, 2k * cost / total)`
//! (one pass over the costs); the candidates are weighted by the points nearest to each (one
//! more pass over the points) and reduced to k by a weighted k-means++ with up to 30 local
//! Lloyd iterations. MLlib 1.x (the study's Spark 1.3) runs 5 rounds, MLlib 2.0 and later 2.
//! Lloyd iterations then keep an empty cluster's centroid where it was (as MLlib does).

use std::io::Write;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};

use smartarrays::{ArrayOptions, F64Array, Placement};

use crate::error::{JobError, Result};
use crate::input::{lines, words, Fault, Input};
use crate::options::{map_indexed, map_indexed_on, JobOptions};

/// Points in rows of `dims` values, in blocks (one per chunk of the file they came from).
#[derive(Clone, Debug, PartialEq)]
pub struct Points {
    dims: usize,
    blocks: Vec<Vec<f64>>,
    firsts: Vec<usize>,
    len: usize,
}

impl Points {
    /// Points from rows of `dims` values laid end to end (one block).
    pub fn from_rows(dims: usize, values: Vec<f64>) -> Result<Points> {
        if dims == 0 || !values.len().is_multiple_of(dims) {
            return Err(JobError::invalid(format!(
                "{} values do not make rows of {dims}",
                values.len()
            )));
        }
        Ok(Points::from_blocks(dims, vec![values]))
    }

    fn from_blocks(dims: usize, blocks: Vec<Vec<f64>>) -> Points {
        let blocks: Vec<Vec<f64>> = blocks.into_iter().filter(|b| !b.is_empty()).collect();
        let mut firsts = Vec::with_capacity(blocks.len());
        let mut len = 0;
        for block in &blocks {
            firsts.push(len);
            len += block.len() / dims.max(1);
        }
        Points {
            dims,
            blocks,
            firsts,
            len,
        }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Values per point (0 for no points read from a file).
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Point `i`.
    ///
    /// # Panics
    /// When `i >= len()`.
    pub fn row(&self, i: usize) -> &[f64] {
        let block = self.firsts.partition_point(|&f| f <= i) - 1;
        let at = (i - self.firsts[block]) * self.dims;
        &self.blocks[block][at..at + self.dims]
    }

    fn rows(&self, block: usize) -> std::slice::ChunksExact<'_, f64> {
        self.blocks[block].chunks_exact(self.dims)
    }
}

/// Reads points: one per line, numbers separated by spaces, the same count on every line (the
/// first line sets it). A line with another count, a word that is not a number, or a number
/// that is not finite is an error naming the line.
///
/// # Example
/// ```
/// use smartarrays_jobs::{read_points, Input, JobOptions};
/// let input = Input::from_bytes("v.txt", b"1 2\n3.5 -4e1\n".to_vec());
/// let points = read_points(&input, &JobOptions::new()).unwrap();
/// assert_eq!((points.len(), points.dims()), (2, 2));
/// assert_eq!(points.row(1), [3.5, -40.0]);
/// ```
pub fn read_points(input: &Input, options: &JobOptions) -> Result<Points> {
    let runtime = options.runtime()?;
    let dims = lines(input.bytes())
        .next()
        .map_or(0, |(_, l)| words(l).count());
    if dims == 0 && !input.is_empty() {
        return Err(input.fault(Fault::new(0, "the first line holds no numbers")));
    }
    let chunks = input.chunks(options.chunk_bytes);
    let stage = options.stage("parse points", input.len() as u64);
    let blocks = map_indexed(&runtime, chunks.len(), |i| {
        let range = chunks[i].clone();
        let mut values = Vec::with_capacity(range.len() / 4);
        for (offset, line) in lines(&input.bytes()[range.clone()]) {
            let fail = |problem: String| Fault::new(range.start + offset, problem);
            let before = values.len();
            for word in words(line) {
                let number = std::str::from_utf8(word)
                    .ok()
                    .and_then(|w| w.parse::<f64>().ok())
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| {
                        fail(format!(
                            "{:?} is not a finite number",
                            String::from_utf8_lossy(word)
                        ))
                    })?;
                values.push(number);
            }
            if values.len() - before != dims {
                return Err(fail(format!(
                    "{} numbers where the first line has {dims}",
                    values.len() - before
                )));
            }
        }
        stage.advance(range.len() as u64);
        Ok(values)
    });
    let blocks = blocks
        .into_iter()
        .collect::<std::result::Result<Vec<_>, Fault>>()
        .map_err(|fault| input.fault(fault))?;
    Ok(Points::from_blocks(dims, blocks))
}

/// The settings of a k-means run.
#[derive(Clone, Debug, PartialEq)]
pub struct KMeansOptions {
    /// Clusters (the study: 8).
    pub k: usize,
    /// Lloyd iterations after the initialisation (the study: 4); all are run.
    pub iterations: usize,
    /// k-means|| rounds (MLlib 1.x: 5; 2.0 and later: 2).
    pub init_steps: usize,
    /// Seed of the initialisation's random draws.
    pub seed: u64,
    /// Initial centroids (`k` rows of `dims` values end to end) instead of k-means||.
    pub initial: Option<Vec<f64>>,
}

impl Default for KMeansOptions {
    fn default() -> Self {
        KMeansOptions {
            k: 8,
            iterations: 4,
            init_steps: 5,
            seed: 1,
            initial: None,
        }
    }
}

/// What a k-means run found and what it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct KMeansResult {
    /// The centroids, `k` rows of `dims` values end to end (fewer rows when the data has fewer
    /// distinct points than k).
    pub centroids: Vec<f64>,
    /// Values per centroid.
    pub dims: usize,
    /// Sum of squared distances from each point to its nearest centroid (MLlib's
    /// `computeCost`).
    pub cost: f64,
    /// Passes over the points made by the initialisation (0 with given centroids).
    pub init_passes: usize,
    /// Distinct k-means|| candidates before they were reduced to k.
    pub candidates: usize,
    /// Lloyd iterations run.
    pub iterations: usize,
    /// Copies of the centroids the Lloyd passes read (one per NUMA node: they are a
    /// [`Placement::Replicated`] smart array).
    pub centroid_replicas: usize,
}

impl KMeansResult {
    /// Number of centroids.
    pub fn k(&self) -> usize {
        self.centroids.len() / self.dims.max(1)
    }

    /// Writes the centroids, one per line, numbers separated by spaces (each in the shortest
    /// text that reads back to the same `f64`).
    pub fn write_to(&self, mut out: impl Write) -> std::io::Result<()> {
        for row in self.centroids.chunks(self.dims.max(1)) {
            let text: Vec<String> = row.iter().map(f64::to_string).collect();
            writeln!(out, "{}", text.join(" "))?;
        }
        Ok(())
    }
}

/// Index and squared distance of the centre nearest to `point` (the first of equals).
#[inline]
pub(crate) fn nearest(point: &[f64], centres: &[f64]) -> (usize, f64) {
    let mut best = (0, f64::INFINITY);
    for (c, centre) in centres.chunks_exact(point.len()).enumerate() {
        let mut d = 0.0;
        for (x, y) in point.iter().zip(centre) {
            let t = x - y;
            d += t * t;
        }
        if d < best.1 {
            best = (c, d);
        }
    }
    best
}

/// A uniform draw in [0, 1) for (seed, step, point), the same whatever thread draws it.
fn draw(seed: u64, step: u64, point: u64) -> f64 {
    let mut z =
        seed ^ step.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ point.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Runs k-means on `points`.
///
/// # Example
/// ```
/// use smartarrays_jobs::{kmeans, JobOptions, KMeansOptions, Points};
/// let points = Points::from_rows(1, vec![0.0, 1.0, 10.0, 11.0]).unwrap();
/// let given = KMeansOptions { k: 2, initial: Some(vec![0.0, 5.0]), ..KMeansOptions::default() };
/// let result = kmeans(&points, &given, &JobOptions::new()).unwrap();
/// assert_eq!(result.centroids, [0.5, 10.5]);
/// assert_eq!(result.cost, 1.0);
/// ```
pub fn kmeans(
    points: &Points,
    settings: &KMeansOptions,
    options: &JobOptions,
) -> Result<KMeansResult> {
    let dims = points.dims;
    if settings.k == 0 {
        return Err(JobError::invalid("k-means needs k of at least 1"));
    }
    let (mut centroids, init_passes, candidates) = match &settings.initial {
        Some(given) => {
            if dims == 0 || given.len() != settings.k * dims {
                return Err(JobError::invalid(format!(
                    "{} initial values are not {} centroids of {dims} values",
                    given.len(),
                    settings.k
                )));
            }
            (given.clone(), 0, 0)
        }
        None if points.is_empty() => {
            return Err(JobError::invalid("k-means|| needs at least one point"));
        }
        None => kmeans_parallel_init(points, settings, options)?,
    };
    let runtime = options.runtime()?;
    let k = centroids.len() / dims.max(1);
    let replicated = ArrayOptions::new()
        .placement(Placement::Replicated)
        .runtime(std::sync::Arc::clone(&runtime));
    let stage = options.stage("k-means", settings.iterations as u64);
    for _ in 0..settings.iterations {
        let shared = F64Array::from_slice(&centroids, &replicated)?;
        let per_block = map_indexed_on(&runtime, points.blocks.len(), |worker, b| {
            let centroids = shared.for_worker(worker);
            let mut sums = vec![0.0; k * dims];
            let mut counts = vec![0u64; k];
            for point in points.rows(b) {
                let (c, _) = nearest(point, centroids);
                counts[c] += 1;
                for (s, x) in sums[c * dims..(c + 1) * dims].iter_mut().zip(point) {
                    *s += x;
                }
            }
            (sums, counts)
        });
        let mut sums = vec![0.0; k * dims];
        let mut counts = vec![0u64; k];
        for (block_sums, block_counts) in per_block {
            for (s, x) in sums.iter_mut().zip(block_sums) {
                *s += x;
            }
            for (n, m) in counts.iter_mut().zip(block_counts) {
                *n += m;
            }
        }
        for c in 0..k {
            if counts[c] > 0 {
                for j in 0..dims {
                    centroids[c * dims + j] = sums[c * dims + j] / counts[c] as f64;
                }
            }
        }
        stage.advance(1);
    }
    drop(stage);
    let shared = F64Array::from_slice(&centroids, &replicated)?;
    let centroid_replicas = shared.raw().replica_count();
    let cost = map_indexed_on(&runtime, points.blocks.len(), |worker, b| {
        let centroids = shared.for_worker(worker);
        points.rows(b).map(|p| nearest(p, centroids).1).sum::<f64>()
    })
    .into_iter()
    .sum();
    Ok(KMeansResult {
        centroids,
        dims,
        cost,
        init_passes,
        candidates,
        iterations: settings.iterations,
        centroid_replicas,
    })
}

/// k-means|| (see the module docs): the k initial centroids, the passes over the points it
/// made, and the number of distinct candidates.
fn kmeans_parallel_init(
    points: &Points,
    settings: &KMeansOptions,
    options: &JobOptions,
) -> Result<(Vec<f64>, usize, usize)> {
    let runtime = options.runtime()?;
    let dims = points.dims;
    let k = settings.k;
    let first = (draw(settings.seed, u64::MAX, 0) * points.len() as f64) as usize;
    let mut candidates: Vec<f64> = points.row(first.min(points.len() - 1)).to_vec();
    let mut fresh = candidates.clone();
    let mut costs: Vec<Vec<f64>> = points
        .blocks
        .iter()
        .map(|b| vec![f64::INFINITY; b.len() / dims])
        .collect();
    let mut passes = 0;
    let stage = options.stage("k-means||", settings.init_steps as u64 + 1);
    for step in 0..settings.init_steps {
        // Costs against the newest candidates (a pass over the points).
        let updated = map_indexed(&runtime, points.blocks.len(), |b| {
            let mut block = costs[b].clone();
            let mut sum = 0.0;
            for (cost, point) in block.iter_mut().zip(points.rows(b)) {
                *cost = cost.min(nearest(point, &fresh).1);
                sum += *cost;
            }
            (block, sum)
        });
        passes += 1;
        let mut total = 0.0;
        for (b, (block, sum)) in updated.into_iter().enumerate() {
            costs[b] = block;
            total += sum;
        }
        // Keep each point with probability 2k * cost / total (a pass over the costs).
        let chosen = map_indexed(&runtime, points.blocks.len(), |b| {
            let mut kept = Vec::new();
            for (i, &cost) in costs[b].iter().enumerate() {
                let index = points.firsts[b] + i;
                if total > 0.0
                    && draw(settings.seed, step as u64, index as u64)
                        < 2.0 * k as f64 * cost / total
                {
                    kept.extend_from_slice(points.row(index));
                }
            }
            kept
        });
        fresh = chosen.concat();
        candidates.extend_from_slice(&fresh);
        stage.advance(1);
    }
    // Distinct candidates, in the order found.
    let mut seen = std::collections::HashSet::new();
    let mut distinct = Vec::with_capacity(candidates.len());
    for row in candidates.chunks_exact(dims) {
        let bits: Vec<u64> = row.iter().map(|x| x.to_bits()).collect();
        if seen.insert(bits) {
            distinct.extend_from_slice(row);
        }
    }
    let count = distinct.len() / dims;
    if count <= k {
        return Ok((distinct, passes, count));
    }
    // Weight each candidate by the points nearest to it (a pass over the points).
    let weights = map_indexed(&runtime, points.blocks.len(), |b| {
        let mut weights = vec![0.0; count];
        for point in points.rows(b) {
            weights[nearest(point, &distinct).0] += 1.0;
        }
        weights
    })
    .into_iter()
    .fold(vec![0.0; count], |mut a, b| {
        for (x, y) in a.iter_mut().zip(b) {
            *x += y;
        }
        a
    });
    passes += 1;
    drop(stage);
    Ok((
        local_kmeans_plus_plus(&distinct, &weights, dims, k, settings.seed),
        passes,
        count,
    ))
}

/// MLlib's `LocalKMeans.kMeansPlusPlus`: weighted k-means++ seeding of k of the `candidates`,
/// then up to 30 weighted Lloyd iterations among them (an empty cluster takes a random
/// candidate).
fn local_kmeans_plus_plus(
    candidates: &[f64],
    weights: &[f64],
    dims: usize,
    k: usize,
    seed: u64,
) -> Vec<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut uniform = move || (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let n = weights.len();
    let row = |i: usize| &candidates[i * dims..(i + 1) * dims];
    let pick = |r: f64, scores: &dyn Fn(usize) -> f64| {
        let mut cumulative = 0.0;
        let mut j = 0;
        while j < n && cumulative < r {
            cumulative += scores(j);
            j += 1;
        }
        j.saturating_sub(1)
    };
    let total_weight: f64 = weights.iter().sum();
    let mut centres = Vec::with_capacity(k * dims);
    centres.extend_from_slice(row(pick(uniform() * total_weight, &|j| weights[j])));
    let mut costs: Vec<f64> = (0..n).map(|j| nearest(row(j), &centres).1).collect();
    for _ in 1..k {
        let sum: f64 = costs.iter().zip(weights).map(|(c, w)| c * w).sum();
        let chosen = pick(uniform() * sum, &|j| weights[j] * costs[j]);
        let start = centres.len();
        centres.extend_from_slice(row(chosen));
        for (j, cost) in costs.iter_mut().enumerate() {
            *cost = cost.min(nearest(row(j), &centres[start..]).1);
        }
    }
    let mut closest = vec![usize::MAX; n];
    for _ in 0..30 {
        let mut moved = false;
        let mut sums = vec![0.0; k * dims];
        let mut counts = vec![0.0; k];
        for j in 0..n {
            let (c, _) = nearest(row(j), &centres);
            for (s, x) in sums[c * dims..(c + 1) * dims].iter_mut().zip(row(j)) {
                *s += weights[j] * x;
            }
            counts[c] += weights[j];
            if closest[j] != c {
                moved = true;
                closest[j] = c;
            }
        }
        if !moved {
            break;
        }
        for c in 0..k {
            if counts[c] == 0.0 {
                let j = ((uniform() * n as f64) as usize).min(n - 1);
                centres[c * dims..(c + 1) * dims].copy_from_slice(row(j));
            } else {
                for d in 0..dims {
                    centres[c * dims + d] = sums[c * dims + d] / counts[c];
                }
            }
        }
    }
    centres
}
