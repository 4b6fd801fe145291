//! Seeded graph generators: uniform random graphs (every vertex gets `k` out-edges to uniformly
//! drawn targets: the paper's degree-centrality graph) and Kronecker / R-MAT graphs with the
//! Graph500 parameters (A = 0.57, B = 0.19, C = 0.19, D = 0.05, edge factor 16, vertex labels
//! randomly permuted). Edges are generated in parallel in fixed blocks, each block with its own
//! Xoshiro256++ stream seeded from `(seed, block)`, so the output depends only on the seed,
//! never on the thread count.

use std::sync::Arc;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};
use serde::Serialize;
use smartarrays::Runtime;

use crate::error::{GraphError, Result};
use crate::EdgeList;

const BLOCK: usize = 1 << 14;

fn stream(seed: u64, block: usize) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(
        seed ^ (block as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29),
    )
}

/// A seeded pseudo-random permutation of `0..2^bits` (the Graph500 vertex relabelling),
/// computed instead of stored: rounds of multiplication by odd keys and xor-shifts, each a
/// bijection on `bits`-bit numbers, so no permutation table is read at random per edge.
#[derive(Clone, Copy, Debug)]
struct Relabel {
    mask: u64,
    shift: u32,
    keys: [u64; 3],
    offsets: [u64; 3],
}

impl Relabel {
    fn new(bits: u32, seed: u64) -> Relabel {
        let mut rng = stream(seed ^ 0x5EED_0F9E_4100, usize::MAX);
        let mask = if bits == 0 {
            0
        } else {
            u64::MAX >> (64 - bits)
        };
        Relabel {
            mask,
            shift: (bits / 2).max(1),
            keys: [rng.next_u64() | 1, rng.next_u64() | 1, rng.next_u64() | 1],
            offsets: [rng.next_u64(), rng.next_u64(), rng.next_u64()],
        }
    }

    #[inline]
    fn apply(&self, mut x: u64) -> u64 {
        for round in 0..3 {
            x = x
                .wrapping_mul(self.keys[round])
                .wrapping_add(self.offsets[round])
                & self.mask;
            x ^= x >> self.shift;
        }
        x
    }
}

/// R-MAT quadrant probabilities.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RmatParameters {
    /// Probability of the top-left quadrant.
    pub a: f64,
    /// Top-right.
    pub b: f64,
    /// Bottom-left (bottom-right is `1 - a - b - c`).
    pub c: f64,
}

impl RmatParameters {
    /// The Graph500 parameters: 0.57, 0.19, 0.19 (and 0.05).
    pub const GRAPH500: RmatParameters = RmatParameters {
        a: 0.57,
        b: 0.19,
        c: 0.19,
    };
}

/// A uniform random graph: `vertices` vertices, each with `degree` out-edges to uniformly drawn
/// targets (self-loops and repeats possible; drop them when building if unwanted).
pub fn uniform(vertices: u64, degree: u64, seed: u64, directed: bool) -> Result<EdgeList> {
    uniform_with(vertices, degree, seed, directed, &Runtime::global()?)
}

/// [`uniform`] on a given runtime.
pub fn uniform_with(
    vertices: u64,
    degree: u64,
    seed: u64,
    directed: bool,
    runtime: &Arc<Runtime>,
) -> Result<EdgeList> {
    if vertices > u32::MAX as u64 + 1 {
        return Err(GraphError::InvalidArgument(format!(
            "{vertices} vertices: generators make at most 2^32"
        )));
    }
    if vertices == 0 && degree > 0 {
        return Err(GraphError::InvalidArgument(
            "a graph without vertices has no edges".into(),
        ));
    }
    let total = vertices
        .checked_mul(degree)
        .filter(|&t| t <= (1u64 << 40))
        .ok_or_else(|| {
            GraphError::InvalidArgument(format!("{vertices} vertices x {degree} edges is too many"))
        })? as usize;
    crate::budget::check_graph(u128::from(vertices), total as u128)
        .map_err(GraphError::InvalidArgument)?;
    let mut pairs = vec![[0u32; 2]; total];
    runtime.map_reduce_mut(
        &mut pairs,
        BLOCK,
        || (),
        |(), _, range, out| {
            let mut rng = stream(seed, range.start / BLOCK);
            for (slot, index) in out.iter_mut().zip(range) {
                let source = (index as u64 / degree) as u32;
                *slot = [source, rng.random_range(0..vertices) as u32];
            }
        },
        |(), ()| (),
    );
    Ok(EdgeList::from_pairs(vertices, directed, pairs))
}

/// A Kronecker (R-MAT) graph with `2^scale` vertices and `edge_factor * 2^scale` edges, with the
/// Graph500 parameters and randomly permuted vertex labels.
///
/// # Example
/// ```
/// let edges = smartarrays_graph::generate::kronecker(10, 16, 1, true).unwrap();
/// assert_eq!((edges.vertices(), edges.len()), (1024, 16 * 1024));
/// assert_eq!(edges, smartarrays_graph::generate::kronecker(10, 16, 1, true).unwrap());
/// ```
pub fn kronecker(scale: u32, edge_factor: u64, seed: u64, directed: bool) -> Result<EdgeList> {
    rmat_with(
        scale,
        edge_factor,
        RmatParameters::GRAPH500,
        seed,
        directed,
        &Runtime::global()?,
    )
}

/// R-MAT with any parameters, on a given runtime.
pub fn rmat_with(
    scale: u32,
    edge_factor: u64,
    parameters: RmatParameters,
    seed: u64,
    directed: bool,
    runtime: &Arc<Runtime>,
) -> Result<EdgeList> {
    if scale > 32 {
        return Err(GraphError::InvalidArgument(format!(
            "scale {scale}: at most 32 (2^32 vertices)"
        )));
    }
    let RmatParameters { a, b, c } = parameters;
    if !(a >= 0.0 && b >= 0.0 && c >= 0.0 && a + b + c <= 1.0) {
        return Err(GraphError::InvalidArgument(format!(
            "R-MAT parameters {a}, {b}, {c} must be probabilities summing to at most 1"
        )));
    }
    let vertices = 1u64 << scale;
    let total = vertices
        .checked_mul(edge_factor)
        .filter(|&t| t <= (1u64 << 40))
        .ok_or_else(|| {
            GraphError::InvalidArgument(format!(
                "scale {scale} x edge factor {edge_factor} is too many edges"
            ))
        })? as usize;
    crate::budget::check_graph(u128::from(vertices), total as u128).map_err(|p| {
        GraphError::InvalidArgument(format!("scale {scale} x edge factor {edge_factor}: {p}"))
    })?;
    // Thresholds on 16-bit uniform draws.
    let scale16 = |p: f64| (p * 65536.0).round() as u32;
    let (ta, tab, tabc) = (scale16(a), scale16(a + b), scale16(a + b + c));
    let relabel = Relabel::new(scale, seed);
    let mut pairs = vec![[0u32; 2]; total];
    runtime.map_reduce_mut(
        &mut pairs,
        BLOCK,
        || (),
        |(), _, range, out| {
            let mut rng = stream(seed, range.start / BLOCK);
            for slot in out.iter_mut() {
                let (mut source, mut target) = (0u64, 0u64);
                let mut bits = 0u64;
                for level in 0..scale {
                    if level % 4 == 0 {
                        bits = rng.next_u64();
                    }
                    let draw = (bits & 0xFFFF) as u32;
                    bits >>= 16;
                    // Quadrants [0, ta) top-left, [ta, tab) top-right, [tab, tabc) bottom-left,
                    // the rest bottom-right; computed without branches.
                    let down = (draw >= tab) as u64;
                    let right = ((draw >= ta) ^ (draw >= tab) ^ (draw >= tabc)) as u64;
                    source = (source << 1) | down;
                    target = (target << 1) | right;
                }
                *slot = [relabel.apply(source) as u32, relabel.apply(target) as u32];
            }
        },
        |(), ()| (),
    );
    Ok(EdgeList::from_pairs(vertices, directed, pairs))
}

#[cfg(test)]
mod tests {
    use super::Relabel;

    #[test]
    fn relabelling_is_a_permutation_at_every_small_width() {
        for bits in 0..=16u32 {
            let relabel = Relabel::new(bits, bits as u64 * 7 + 1);
            let mut seen = vec![false; 1 << bits];
            for x in 0..(1u64 << bits) {
                let y = relabel.apply(x) as usize;
                assert!(!seen[y], "bits {bits}: {x} collides");
                seen[y] = true;
            }
        }
    }
}
