//! PageRank, pull-based over reverse edges, Jacobi style (each iteration reads only the previous
//! iteration's ranks), as in the paper's §5.2 and the usual C++ suites: every iteration first
//! writes each vertex's contribution `rank / out_degree` (one vertex pass), then each vertex
//! sums the contributions of its in-neighbours (one pass over `rbegin`/`redge`).
//!
//! `rank' = (1 - d) / n + d * (sum of in-neighbour contributions + dangling / n)`, where
//! `dangling` is the rank held by vertices without out-edges: spread uniformly by default (as
//! networkx does, so ranks keep summing to 1), or left out ([`Dangling::Drop`], as some C++
//! suites do). Iteration stops when the sum of absolute rank changes is below the tolerance, or
//! after the maximum number of iterations (reported as not converged).
//!
//! Ranks, sums and changes are `f64`. The contributions, which the pull gathers in random
//! order, are `f64` by default or `f32` with [`Precision::F32`] (as GAPBS stores its scores):
//! half the bytes, so more of them stay in cache, at a relative rounding of 2^-24 per
//! contribution (ranks then agree with the `f64` ones to about 1e-7 of their value). `f32`
//! rounding keeps the change from falling much below 1e-7, so once it is under
//! [`F32_CHANGE_FLOOR`] the remaining iterations (tight tolerances only) use `f64`. The gather
//! prefetches the contributions of the neighbours a few dozen edges ahead. On large graphs the
//! contributions are kept in the graph's degree order ([`CellOrder`]), so the most-read ones
//! share cache lines.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use smartarrays::{ArrayOptions, F64Array, Runtime, SmartArray};

use smartarrays::memory::prefetch::CacheLevel;

use crate::access::{
    f64_for_worker, gather_sum_ahead, gather_sum_trusted, sum_one_exit, values, with_window,
    worth_prefetching, AsIndex, Direct, EdgeWindow, Targets, PREFETCH_DISTANCE,
};
use crate::error::{GraphError, Result};
use crate::graph::property_bits;

use crate::degree_order::DegreeOrder;
use crate::Graph;

pub use crate::access::Contribution;

/// Vertices per parallel batch of the PageRank passes.
pub const BATCH: usize = 2048;

/// What to do with the rank of vertices without out-edges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Dangling {
    /// Spread it uniformly over all vertices (networkx's default).
    #[default]
    Spread,
    /// Leave it out (ranks then sum to less than 1).
    Drop,
}

impl std::str::FromStr for Dangling {
    type Err = GraphError;

    /// Parses `spread` or `drop`.
    fn from_str(text: &str) -> Result<Dangling> {
        match text.trim().to_ascii_lowercase().as_str() {
            "spread" => Ok(Dangling::Spread),
            "drop" => Ok(Dangling::Drop),
            _ => Err(GraphError::InvalidArgument(format!(
                "dangling {text:?}: expected spread or drop"
            ))),
        }
    }
}

impl std::fmt::Display for Dangling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Dangling::Spread => "spread",
            Dangling::Drop => "drop",
        })
    }
}

/// How PageRank stores the per-iteration contributions (`rank / out-degree`) it gathers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Precision {
    /// `f64` contributions: results equal to the plain `f64` formula's, at twice the gather's
    /// memory traffic.
    F64,
    /// `f32` contributions (the default): half the memory traffic of the gather, the step that
    /// bounds PageRank's speed (GAPBS stores its scores as `f32` too); ranks and sums stay
    /// `f64`. While the change of an iteration is above [`F32_CHANGE_FLOOR`] (1e-5)
    /// contributions are `f32`, and ranks agree with the `F64` ones to about 1e-7 of their
    /// value, far below what the default tolerance of 1e-3 leaves; for a tighter tolerance the
    /// remaining iterations use `f64`, so any tolerance is reached as with `F64`.
    #[default]
    F32,
}

impl std::str::FromStr for Precision {
    type Err = GraphError;

    /// Parses `f64` (or `double`) and `f32` (or `single`, `float`).
    fn from_str(text: &str) -> Result<Precision> {
        match text.trim().to_ascii_lowercase().as_str() {
            "f64" | "double" => Ok(Precision::F64),
            "f32" | "single" | "float" => Ok(Precision::F32),
            _ => Err(GraphError::InvalidArgument(format!(
                "precision {text:?}: expected f64 or f32"
            ))),
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Precision::F64 => "f64",
            Precision::F32 => "f32",
        })
    }
}

/// PageRank settings.
#[derive(Clone, Debug, Serialize)]
pub struct PageRankOptions {
    /// Damping factor `d` (default 0.85).
    pub damping: f64,
    /// Stop when the sum of absolute rank changes of an iteration is below this (default 1e-3).
    pub tolerance: f64,
    /// Stop after this many iterations even if not converged (default 1000).
    pub max_iterations: usize,
    /// Dangling vertices (default: spread).
    pub dangling: Dangling,
    /// Precision of the gathered contributions (default: `f32`, see [`Precision`]).
    pub contributions: Precision,
    /// Order of the contribution cells the pull gathers (default: chosen from the graph's
    /// size, see [`CellOrder`]).
    pub cell_order: CellOrder,
}

/// Where [`pagerank`] and [`pagerank_gauss_seidel`] keep each vertex's contribution cell.
/// Ranks and the order vertices are visited in are the same either way; only the cells the
/// pull gathers move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum CellOrder {
    /// [`CellOrder::Degree`] when the `f32` cells outgrow a core's share of the cache
    /// (more than [`CELL_ORDER_ABOVE`] vertices) and the ids fit 32 bits, else
    /// [`CellOrder::Vertex`].
    #[default]
    Auto,
    /// Cell `v` belongs to vertex `v`.
    Vertex,
    /// Cells by decreasing out-degree, so the most-read ones share cache lines. The run first
    /// copies the incoming lists with every id renamed to its cell (as many bytes as the lists,
    /// freed at the end; on a scale-22 Kronecker graph about 0.2-0.4 s at one thread), then
    /// every sweep gathers from them.
    Degree,
}

/// Vertices above which [`CellOrder::Auto`] picks [`CellOrder::Degree`]: their `f32` cells
/// (1 MiB) no longer fit a core's share of the cache.
pub const CELL_ORDER_ABOVE: usize = 1 << 18;

impl CellOrder {
    /// The order a run on `n` vertices uses: `Auto` resolved.
    pub fn resolve(self, n: usize) -> CellOrder {
        match self {
            CellOrder::Auto if n > CELL_ORDER_ABOVE && (n as u64) < u64::from(u32::MAX) => {
                CellOrder::Degree
            }
            CellOrder::Auto => CellOrder::Vertex,
            chosen => chosen,
        }
    }
}

impl std::str::FromStr for CellOrder {
    type Err = GraphError;

    /// Parses `auto`, `vertex` or `degree`.
    fn from_str(text: &str) -> Result<CellOrder> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(CellOrder::Auto),
            "vertex" => Ok(CellOrder::Vertex),
            "degree" => Ok(CellOrder::Degree),
            _ => Err(GraphError::InvalidArgument(format!(
                "cell order {text:?}: expected auto, vertex or degree"
            ))),
        }
    }
}

impl std::fmt::Display for CellOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CellOrder::Auto => "auto",
            CellOrder::Vertex => "vertex",
            CellOrder::Degree => "degree",
        })
    }
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions {
            damping: 0.85,
            tolerance: 1e-3,
            max_iterations: 1000,
            dangling: Dangling::Spread,
            contributions: Precision::F32,
            cell_order: CellOrder::Auto,
        }
    }
}

impl PageRankOptions {
    /// The rank every vertex of an `n`-vertex graph starts an iteration's sum from: the
    /// teleport share, plus each vertex's share of the `dangling` rank when it is spread.
    fn base(&self, dangling: f64, n: usize) -> f64 {
        let d = self.damping;
        let spread = if self.dangling == Dangling::Spread {
            d * dangling / n as f64
        } else {
            0.0
        };
        (1.0 - d) / n as f64 + spread
    }

    /// Refuses a damping outside `[0, 1)`, a negative or NaN tolerance, and zero iterations.
    pub fn check(&self) -> Result<()> {
        if !(0.0..1.0).contains(&self.damping) {
            return Err(GraphError::InvalidArgument(format!(
                "damping {} must be in [0, 1)",
                self.damping
            )));
        }
        if self.tolerance.is_nan() || self.tolerance < 0.0 {
            return Err(GraphError::InvalidArgument(format!(
                "tolerance {} must be at least 0",
                self.tolerance
            )));
        }
        if self.max_iterations == 0 {
            return Err(GraphError::InvalidArgument(
                "max iterations must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// One iteration's progress.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Iteration {
    /// 1-based iteration number.
    pub iteration: usize,
    /// Sum of absolute rank changes.
    pub change: f64,
    /// Seconds the iteration took.
    pub seconds: f64,
}

/// How a PageRank run went.
#[derive(Clone, Debug, Serialize)]
pub struct PageRankSummary {
    /// Iterations run.
    pub iterations: usize,
    /// Whether the change fell below the tolerance.
    pub converged: bool,
    /// The last iteration's change.
    pub change: f64,
    /// Every iteration.
    pub history: Vec<Iteration>,
    /// The contribution cells' order the run used ([`CellOrder::Vertex`] or
    /// [`CellOrder::Degree`]).
    pub cell_order: CellOrder,
}

impl PageRankSummary {
    /// Adds iteration `iteration` (begun at `started`, with this `change`) to the history,
    /// tells `on_iteration`, and marks the run converged when the change is below `tolerance`.
    fn record(
        &mut self,
        iteration: usize,
        change: f64,
        started: Instant,
        tolerance: f64,
        on_iteration: &mut dyn FnMut(&Iteration),
    ) {
        let step = Iteration {
            iteration,
            change,
            seconds: started.elapsed().as_secs_f64(),
        };
        on_iteration(&step);
        self.history.push(step);
        self.iterations = iteration;
        self.change = change;
        self.converged = change < tolerance;
    }
}

/// Ranks and the run's summary.
#[derive(Debug)]
pub struct PageRankResult {
    /// Rank of every vertex (placed like the graph's properties).
    pub ranks: F64Array,
    /// Out-degrees used (the paper's out-degree vertex property, at the properties' width).
    pub out_degrees: SmartArray,
    /// Iterations, convergence.
    pub summary: PageRankSummary,
}

/// The two passes of an iteration over some storage (smart arrays, or the plain vectors of the
/// experiments' baseline): the hook through which [`iterate`] runs PageRank on any storage.
pub trait RankState {
    /// Writes every contribution; returns the dangling rank.
    fn spread(&mut self) -> f64;
    /// Writes every new rank from the contributions; returns the sum of absolute changes.
    fn pull(&mut self, base: f64, damping: f64) -> f64;
}

/// Below this change, [`Precision::F32`] runs go on with `f64` contributions: `f32` rounding
/// makes the change of an iteration jitter around 1e-7, so tighter tolerances could never be
/// reached with it (the runs would stop at the maximum iteration count).
pub const F32_CHANGE_FLOOR: f64 = 1e-5;

/// A summary before the first iteration.
pub fn start_summary(n: usize) -> PageRankSummary {
    let empty = n == 0;
    PageRankSummary {
        iterations: 0,
        converged: empty,
        change: if empty { 0.0 } else { f64::INFINITY },
        history: Vec::new(),
        cell_order: CellOrder::Vertex,
    }
}

/// Whether a run in `precision` that has reached `summary` must go on with `f64`
/// contributions (and if so, marks it not converged yet): an `f32` run stops at
/// [`F32_CHANGE_FLOOR`], and a tighter tolerance is then met in `f64`. (A small `f32` change
/// alone would not do: `f32` rounding has fixed points of its own, about 1e-7 of a rank away
/// from the true ones.)
pub fn continue_in_f64(
    precision: Precision,
    summary: &mut PageRankSummary,
    options: &PageRankOptions,
) -> bool {
    let go_on = precision == Precision::F32
        && options.tolerance < F32_CHANGE_FLOOR
        && summary.iterations > 0
        && summary.iterations < options.max_iterations;
    if go_on {
        summary.converged = false;
    }
    go_on
}

/// The iteration loop shared by smart arrays and the plain baseline: goes on from `summary`
/// until the change falls below the tolerance (or, in `f32`, below [`F32_CHANGE_FLOOR`]) or
/// the maximum iteration count is reached.
pub fn iterate(
    state: &mut impl RankState,
    n: usize,
    options: &PageRankOptions,
    precision: Precision,
    summary: &mut PageRankSummary,
    on_iteration: &mut dyn FnMut(&Iteration),
) {
    if summary.converged {
        return;
    }
    let d = options.damping;
    let threshold = if precision == Precision::F32 {
        options.tolerance.max(F32_CHANGE_FLOOR)
    } else {
        options.tolerance
    };
    for iteration in summary.iterations + 1..=options.max_iterations {
        let started = Instant::now();
        let dangling = state.spread();
        let change = state.pull(options.base(dangling, n), d);
        summary.record(iteration, change, started, options.tolerance, on_iteration);
        if change < threshold {
            break;
        }
    }
}

/// `DANGLES[degree.min(3)]`: 1 for a vertex without out-edges, else 0.
pub(crate) const DANGLES: [f64; 4] = [1.0, 0.0, 0.0, 0.0];

/// Contributions of a batch: `out[i] = ranks[i] / degree[i]`; returns the rank of the batch's
/// vertices without out-edges.
#[inline]
pub fn contributions<T: Copy + Into<u64>, C: Contribution>(
    degrees: &[T],
    ranks: &[f64],
    out: &mut [C],
) -> f64 {
    // Without a branch on the degree (it mispredicted about once in three vertices on
    // Kronecker graphs, whose many isolated vertices lie scattered): the rank goes to the
    // contribution or to the dangling sum through a factor 1 or 0 (exact for finite ranks),
    // read from a table indexed by the degree capped at 3 (a select, bit mask or converted
    // comparison the compiler turns back into the branch).
    let mut dangling = 0.0;
    for ((slot, &degree), &rank) in out.iter_mut().zip(degrees).zip(ranks) {
        let degree: u64 = degree.into();
        let dangles = DANGLES[degree.min(3) as usize];
        dangling += rank * dangles;
        // Through i64 (one instruction; degrees are far below 2^63).
        *slot = C::from_f64(rank / degree.max(1) as i64 as f64 * (1.0 - dangles));
    }
    dangling
}

/// New ranks of a batch: `offsets` are the batch's `rbegin` values (one more than vertices).
#[inline]
pub(crate) fn pull<W: EdgeWindow, C: Contribution>(
    window: &mut W,
    offsets: &[u64],
    contributions: &[C],
    ranks: &mut [f64],
    base: f64,
    damping: f64,
) -> f64 {
    // SAFETY: with `CHECKED` true every read is bounds-checked.
    unsafe { pull_with::<true, W, C>(window, offsets, contributions, ranks, base, damping) }
}

/// [`pull`] without bounds checks on `contributions`.
///
/// # Safety
/// Every id the window yields must be below `contributions.len()` (a [`Graph`]'s neighbour
/// ids against one contribution per vertex).
#[inline]
pub(crate) unsafe fn pull_trusted<W: EdgeWindow, C: Contribution>(
    window: &mut W,
    offsets: &[u64],
    contributions: &[C],
    ranks: &mut [f64],
    base: f64,
    damping: f64,
) -> f64 {
    // SAFETY: the caller guarantees every id is below `contributions.len()`.
    unsafe { pull_with::<false, W, C>(window, offsets, contributions, ranks, base, damping) }
}

/// [`pull`] (`CHECKED`) or [`pull_trusted`], with software prefetch of the contributions when
/// they outgrow the cache ([`worth_prefetching`]).
///
/// # Safety
/// With `CHECKED` false, every id the window yields must be below `contributions.len()`.
#[inline(always)]
unsafe fn pull_with<const CHECKED: bool, W: EdgeWindow, C: Contribution>(
    window: &mut W,
    offsets: &[u64],
    contributions: &[C],
    ranks: &mut [f64],
    base: f64,
    damping: f64,
) -> f64 {
    // SAFETY: passed on from the caller (checked reads, or ids in range).
    unsafe {
        if worth_prefetching(contributions) {
            pull_loop::<true, CHECKED, W, C>(window, offsets, contributions, ranks, base, damping)
        } else {
            pull_loop::<false, CHECKED, W, C>(window, offsets, contributions, ranks, base, damping)
        }
    }
}

/// The loop of [`pull_with`].
///
/// # Safety
/// As [`pull_with`].
#[inline(always)]
unsafe fn pull_loop<const PREFETCH: bool, const CHECKED: bool, W: EdgeWindow, C: Contribution>(
    window: &mut W,
    offsets: &[u64],
    contributions: &[C],
    ranks: &mut [f64],
    base: f64,
    damping: f64,
) -> f64 {
    let mut change = 0.0;
    for (i, rank) in ranks.iter_mut().enumerate() {
        let (mut s, t) = (offsets[i] as usize, offsets[i + 1] as usize);
        let mut sum = 0.0;
        // No separate test for an empty list (it mispredicted about once a vertex on
        // Kronecker graphs): the gather takes an empty piece.
        loop {
            let (piece, ahead) = window.piece_ahead(s, t);
            sum += if CHECKED {
                gather_sum_ahead::<PREFETCH, _, _>(piece, ahead, contributions)
            } else {
                // SAFETY: the caller guarantees the ids are below `contributions.len()`.
                unsafe { gather_sum_trusted::<PREFETCH, _, _>(piece, ahead, contributions) }
            };
            s += piece.len();
            if s >= t {
                break;
            }
        }
        let new = base + damping * sum;
        change += (new - *rank).abs();
        *rank = new;
    }
    change
}

/// New ranks of a batch (the pull pass) over neighbour ids held in a plain `&[u32]`, read in
/// place: `offsets` are the batch's `rbegin` values (one more than vertices), indexing `ids`;
/// returns the sum of absolute rank changes. The kernel PageRank runs on smart arrays, its
/// prefetching gather included.
#[inline]
pub fn pull_ids<C: Contribution>(
    ids: &[u32],
    offsets: &[u64],
    contributions: &[C],
    ranks: &mut [f64],
    base: f64,
    damping: f64,
) -> f64 {
    pull(
        &mut Direct(ids),
        offsets,
        contributions,
        ranks,
        base,
        damping,
    )
}

/// Words of an `F64Array` holding `n` contributions of type `C` (two `f32` per word).
pub(crate) fn contribution_words<C: Contribution>(n: usize) -> usize {
    (n * std::mem::size_of::<C>()).div_ceil(8)
}

/// PageRank on a graph; `on_iteration` sees every iteration as it ends (for progress).
///
/// # Example
/// ```
/// use smartarrays_graph::{build, pagerank, EdgeList, GraphOptions, PageRankOptions, Precision};
/// let graph = build(EdgeList::from_pairs(3, true, vec![[0, 1], [1, 2], [2, 0]]), &GraphOptions::default()).unwrap();
/// let result = pagerank(&graph, &PageRankOptions::default(), |_| {}).unwrap();
/// assert!(result.summary.converged);
/// for v in 0..3 {
///     // f32 contributions (the default) round at about 1e-7 of a rank.
///     assert!((result.ranks.get(v).unwrap() - 1.0 / 3.0).abs() < 1e-6);
/// }
/// // f64 contributions give the exact formula's ranks.
/// let exact = PageRankOptions { contributions: Precision::F64, ..PageRankOptions::default() };
/// let result = pagerank(&graph, &exact, |_| {}).unwrap();
/// assert!((result.ranks.get(0).unwrap() - 1.0 / 3.0).abs() < 1e-12);
/// ```
pub fn pagerank(
    graph: &Graph,
    options: &PageRankOptions,
    mut on_iteration: impl FnMut(&Iteration),
) -> Result<PageRankResult> {
    options.check()?;
    let n = graph.vertices();
    let runtime = Arc::clone(graph.runtime());
    let properties = graph.properties();
    let array_options = ArrayOptions::new()
        .placement(properties.placement.clone())
        .runtime(Arc::clone(&runtime));
    let out_degrees = out_degree_array(graph, &array_options)?;
    let ranks = F64Array::from_fn(n, &array_options, |_| 1.0 / n as f64)?;
    let mut summary = start_summary(n);
    let order = match options.cell_order.resolve(n) {
        CellOrder::Degree => graph.degree_order()?,
        _ => None,
    };
    // The out-degree of each cell's vertex, for the contributions pass in cell order.
    let cells = order.map(|order| {
        let degrees = out_degrees.to_vec();
        let by_cell = order
            .vertex_of
            .iter()
            .map(|&v| degrees[v as usize])
            .collect();
        Cells { order, by_cell }
    });
    if cells.is_some() {
        summary.cell_order = CellOrder::Degree;
    }
    let cells = cells.as_ref();
    let mut ranks = match options.contributions {
        Precision::F64 => run::<f64>(
            graph,
            cells,
            &out_degrees,
            ranks,
            &array_options,
            options,
            &mut summary,
            &mut on_iteration,
        )?,
        Precision::F32 => run::<f32>(
            graph,
            cells,
            &out_degrees,
            ranks,
            &array_options,
            options,
            &mut summary,
            &mut on_iteration,
        )?,
    };
    if continue_in_f64(options.contributions, &mut summary, options) {
        ranks = run::<f64>(
            graph,
            cells,
            &out_degrees,
            ranks,
            &array_options,
            options,
            &mut summary,
            &mut on_iteration,
        )?;
    }
    Ok(PageRankResult {
        ranks,
        out_degrees,
        summary,
    })
}

/// The out-degree of every vertex, at the properties' width.
fn out_degree_array(graph: &Graph, array_options: &ArrayOptions) -> Result<SmartArray> {
    let begin = graph.begin();
    Ok(SmartArray::from_batches(
        graph.vertices(),
        &array_options
            .clone()
            .bits(property_bits(graph.properties(), graph.max_out_degree())),
        |range, out| {
            crate::access::with_scratch(|buffer, _| {
                let offsets = values(begin.local(), range.start..range.end + 1, buffer);
                for (slot, pair) in out.iter_mut().zip(offsets.windows(2)) {
                    *slot = pair[1] - pair[0];
                }
            })
        },
    )?)
}

/// Iterates with contributions of type `C` from `summary` on; returns the ranks.
/// The Jacobi iteration's cells in degree order: the order, and each cell's out-degree.
struct Cells<'g> {
    order: &'g DegreeOrder,
    by_cell: Vec<u64>,
}

#[allow(clippy::too_many_arguments)]
fn run<C: Contribution>(
    graph: &Graph,
    cells: Option<&Cells<'_>>,
    out_degrees: &SmartArray,
    ranks: F64Array,
    array_options: &ArrayOptions,
    options: &PageRankOptions,
    summary: &mut PageRankSummary,
    on_iteration: &mut dyn FnMut(&Iteration),
) -> Result<F64Array> {
    let n = graph.vertices();
    // Contributions of type C packed into 64-bit words (two f32 per word), placed like the
    // other vertex properties.
    let contributions = F64Array::from_fn(contribution_words::<C>(n), array_options, |_| 0.0)?;
    let mut state = SmartRanks::<C> {
        graph,
        cells,
        out_degrees,
        ranks,
        contributions,
        kind: PhantomData,
    };
    iterate(&mut state, n, options, C::PRECISION, summary, on_iteration);
    Ok(state.ranks)
}

struct SmartRanks<'g, C> {
    graph: &'g Graph,
    cells: Option<&'g Cells<'g>>,
    out_degrees: &'g SmartArray,
    ranks: F64Array,
    contributions: F64Array,
    kind: PhantomData<C>,
}

/// The contributions of type `C` an `F64Array` of packed words holds for `n` vertices.
fn contribution_slice<C: Contribution>(words: &[f64], n: usize) -> &[C] {
    &bytemuck::cast_slice(words)[..n]
}

impl<C: Contribution> RankState for SmartRanks<'_, C> {
    fn spread(&mut self) -> f64 {
        let (ranks, degrees, n) = (&self.ranks, self.out_degrees, self.graph.vertices());
        let cells = self.cells;
        let per_word = 8 / std::mem::size_of::<C>();
        self.contributions
            .par_update(
                BATCH / per_word,
                || (0.0, Vec::new(), Vec::new()),
                |(dangling, mut buffer, mut gathered), worker, words, out| {
                    // Word range -> cell range (the last word may hold one unused f32).
                    let range = words.start * per_word..(words.end * per_word).min(n);
                    let out: &mut [C] = &mut bytemuck::cast_slice_mut(out)[..range.len()];
                    let ranks = f64_for_worker(ranks, worker);
                    let lost = match cells {
                        // Cell c is vertex c's.
                        None => {
                            let degrees =
                                values(degrees.for_worker(worker), range.clone(), &mut buffer);
                            contributions(degrees, &ranks[range], out)
                        }
                        // Cell c is the c-th vertex by degree: its rank gathered first.
                        Some(cells) => {
                            gathered.clear();
                            gathered.extend(
                                cells.order.vertex_of[range.clone()]
                                    .iter()
                                    .map(|&v| ranks[v as usize]),
                            );
                            contributions(&cells.by_cell[range], &gathered, out)
                        }
                    };
                    (dangling + lost, buffer, gathered)
                },
                |a, b| (a.0 + b.0, Vec::new(), Vec::new()),
            )
            .0
    }

    fn pull(&mut self, base: f64, damping: f64) -> f64 {
        let (contributions, n) = (&self.contributions, self.graph.vertices());
        let incoming = self.graph.incoming();
        let lists = self
            .cells
            .map_or(incoming.targets(), |cells| &cells.order.targets);
        let ordered = self.cells.is_some();
        // As in the Gauss-Seidel sweep: packed lists in degree order go through the AVX2
        // gather a decoded batch at a time (f32 contributions only).
        let narrowing = ordered && std::mem::size_of::<C>() == 4;
        self.ranks
            .par_update(
                BATCH,
                || (0.0, Vec::new(), Vec::new(), Narrowed::default()),
                |(change, mut offsets_buffer, mut edges_buffer, mut narrowed),
                 worker,
                 range,
                 ranks| {
                    let contributions =
                        contribution_slice::<C>(f64_for_worker(contributions, worker), n);
                    let offsets = values(
                        incoming.offsets().for_worker(worker),
                        range.start..range.end + 1,
                        &mut offsets_buffer,
                    );
                    let targets = Targets::of(lists.for_worker(worker));
                    let (targets, offsets) = narrowed.apply(narrowing, targets, offsets);
                    let limit = offsets[offsets.len() - 1] as usize;
                    if let Some(delta) = pull_simd(
                        targets,
                        offsets,
                        contributions,
                        ranks,
                        base,
                        damping,
                        ordered,
                    ) {
                        return (change + delta, offsets_buffer, edges_buffer, narrowed);
                    }
                    let delta = with_window!(targets, &mut edges_buffer, limit, |window| {
                        // SAFETY: the window yields the graph's neighbour ids, all below
                        // `n` (checked when the graph was built or loaded), and
                        // `contributions` holds `n` values.
                        unsafe {
                            pull_trusted(&mut window, offsets, contributions, ranks, base, damping)
                        }
                    });
                    (change + delta, offsets_buffer, edges_buffer, narrowed)
                },
                |a, b| (a.0 + b.0, Vec::new(), Vec::new(), Narrowed::default()),
            )
            .0
    }
}

/// The pull of a batch through the AVX2 gather ([`crate::pull_x86`]) where it applies: 32-bit
/// ids read in place, `f32` contributions small enough to gather without prefetch
/// ([`worth_prefetching`]) or `ordered` by degree (the most-read ones then stay in the near
/// caches), a CPU with AVX2. `None` otherwise (the caller runs the scalar pull).
#[inline]
fn pull_simd<C: Contribution>(
    targets: Targets<'_>,
    offsets: &[u64],
    contributions: &[C],
    ranks: &mut [f64],
    base: f64,
    damping: f64,
    ordered: bool,
) -> Option<f64> {
    // `Contribution` is sealed to `f64` and `f32`: four bytes means `f32`.
    let (Targets::U32(ids), 4) = (targets, std::mem::size_of::<C>()) else {
        return None;
    };
    let contributions: &[f32] = bytemuck::cast_slice(contributions);
    if worth_prefetching(contributions) && !ordered {
        return None;
    }
    // SAFETY: the ids are the graph's neighbour ids, all below `n` (checked when the graph was
    // built or loaded), and `contributions` holds `n` values.
    unsafe { crate::pull_x86::pull_u32_f32(ids, offsets, contributions, ranks, base, damping) }
}

/// Sum of the contributions of `ids` read from shared cells (`f64` bits); with `PREFETCH`,
/// prefetching the cell of the id [`crate::access::PREFETCH_DISTANCE`] positions further in
/// `ahead`.
///
/// # Safety
/// Every id in `ahead` (so every id in `ids`) must be below `cells.len()`.
#[inline(always)]
unsafe fn gather_shared<const PREFETCH: bool, I: AsIndex, S: SharedCell>(
    ids: &[I],
    ahead: &[I],
    cells: &[S],
) -> f64 {
    let mut partial = [0.0f64; 4];
    let read = |id: I| {
        debug_assert!(id.at() < cells.len());
        // SAFETY: the caller guarantees every id is below `cells.len()`.
        unsafe { cells.get_unchecked(id.at()) }.read()
    };
    if !PREFETCH {
        // One mispredicted exit per vertex, as in the Jacobi gather
        // (`crate::access::gather_one_exit`): quads, then the rest from `ahead` times 1 or 0.
        return sum_one_exit(ids, ahead, read);
    }
    let mut chunks = ids.chunks_exact(4);
    let mut j = 0;
    for quad in &mut chunks {
        if PREFETCH {
            if let Some(next) = ahead.get(j + PREFETCH_DISTANCE) {
                smartarrays::memory::prefetch::prefetch(cells, next.at(), CacheLevel::L1);
            }
        }
        partial[0] += read(quad[0]);
        partial[1] += read(quad[1]);
        partial[2] += read(quad[2]);
        partial[3] += read(quad[3]);
        j += 4;
    }
    let mut sum = (partial[0] + partial[1]) + (partial[2] + partial[3]);
    for &id in chunks.remainder() {
        sum += read(id);
    }
    sum
}

/// PageRank by Gauss-Seidel iteration: the same formula and stopping rule as [`pagerank`],
/// but each vertex's new rank is used as soon as it is computed (its contribution is rewritten
/// at once, so vertices pulled later in the same sweep already see it). Whether that reaches a
/// tolerance in fewer iterations depends on the graph: on an undirected scale-12 Kronecker
/// graph (tolerance 1e-4, dangling rank dropped) it took 17 iterations where Jacobi took 9,
/// on the directed one 13 where Jacobi took 27; see `docs/graph.md`. Vertices are swept in parallel batches, so a batch sees the
/// new ranks of the batches already done by other workers and the iterates (not the limit)
/// depend slightly on scheduling. The dangling rank spread in an iteration is the one held at
/// its start. Contributions follow `options.contributions` as in [`pagerank`] (`f32` cells until
/// the change is below [`F32_CHANGE_FLOOR`], then `f64`). The cells are kept in the order
/// `options.cell_order` resolves to: on large graphs by decreasing out-degree through the
/// graph's degree order ([`Graph::prepare_degree_order`], built on first use), which changes
/// where the cells lie but not the sweep or its results. Ranks agree with
/// [`pagerank`]'s for the same tolerance: both stop within a few tolerances (L1) of the same
/// fixed point.
///
/// # Example
/// ```
/// use smartarrays_graph::{build, generate, pagerank, pagerank_gauss_seidel, GraphOptions, PageRankOptions};
/// let graph = build(generate::kronecker(10, 8, 1, true)?, &GraphOptions::default())?;
/// let options = PageRankOptions { tolerance: 1e-6, ..PageRankOptions::default() };
/// let jacobi = pagerank(&graph, &options, |_| {})?;
/// let gauss_seidel = pagerank_gauss_seidel(&graph, &options, |_| {})?;
/// assert!(gauss_seidel.summary.converged);
/// let (a, b) = (jacobi.ranks.to_vec(), gauss_seidel.ranks.to_vec());
/// let distance: f64 = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).sum();
/// assert!(distance < 10.0 * options.tolerance);
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
pub fn pagerank_gauss_seidel(
    graph: &Graph,
    options: &PageRankOptions,
    mut on_iteration: impl FnMut(&Iteration),
) -> Result<PageRankResult> {
    options.check()?;
    let n = graph.vertices();
    let runtime = Arc::clone(graph.runtime());
    let array_options = ArrayOptions::new()
        .placement(graph.properties().placement.clone())
        .runtime(Arc::clone(&runtime));
    let out_degrees = out_degree_array(graph, &array_options)?;
    let mut ranks = F64Array::from_fn(n, &array_options, |_| 1.0 / n as f64)?;
    let degrees = out_degrees.to_vec();
    // Contribution cells: f32 while the change is above the floor (the default precision), then
    // f64, as in the Jacobi iteration.
    let contribution = |v: usize, rank: f64| {
        if degrees[v] == 0 {
            0.0
        } else {
            rank / degrees[v] as f64
        }
    };
    let cell_order = options.cell_order.resolve(n);
    let order = match cell_order {
        CellOrder::Degree => graph.degree_order()?,
        _ => None,
    };
    // The vertex whose contribution cell `c` holds.
    let vertex = |c: usize| order.map_or(c, |o| o.vertex_of[c] as usize);
    let first = |c: usize| contribution(vertex(c), 1.0 / n as f64);
    let mut narrow: Option<Vec<AtomicU32>> =
        (options.contributions == Precision::F32).then(|| shared_cells(&runtime, n, first));
    let mut wide: Vec<AtomicU64> = Vec::new();
    if narrow.is_none() {
        wide = shared_cells(&runtime, n, first);
    }
    // Counted from the degrees already decoded (reading them back through the array's
    // iterator cost about 4 M instructions at scale 18).
    let mut dangling = degrees.iter().filter(|&&d| d == 0).count() as f64 / n.max(1) as f64;
    let mut summary = start_summary(n);
    summary.cell_order = if order.is_some() {
        CellOrder::Degree
    } else {
        CellOrder::Vertex
    };
    let d = options.damping;
    for iteration in 1..=options.max_iterations {
        if summary.converged {
            break;
        }
        if narrow.is_some() && summary.iterations > 0 && summary.change < F32_CHANGE_FLOOR {
            // f32 rounding would keep the change from falling further: go on in f64.
            narrow = None;
            let current = ranks.to_vec();
            wide = shared_cells(&runtime, n, |c| {
                let v = vertex(c);
                contribution(v, current[v])
            });
        }
        let started = Instant::now();
        let base = options.base(dangling, n);
        let spreading = options.dangling == Dangling::Spread;
        let (change, next_dangling) = match &narrow {
            Some(cells) => sweep(
                graph,
                order,
                &mut ranks,
                &out_degrees,
                cells,
                base,
                d,
                spreading,
            ),
            None => sweep(
                graph,
                order,
                &mut ranks,
                &out_degrees,
                &wide,
                base,
                d,
                spreading,
            ),
        };
        dangling = next_dangling;
        summary.record(
            iteration,
            change,
            started,
            options.tolerance,
            &mut on_iteration,
        );
    }
    Ok(PageRankResult {
        ranks,
        out_degrees,
        summary,
    })
}

/// A contribution shared between the workers of a Gauss-Seidel sweep: `f64` or `f32` bits in
/// an atomic word.
pub(crate) trait SharedCell: Send + Sync {
    fn new(value: f64) -> Self;
    fn read(&self) -> f64;
    fn write(&self, value: f64);
    /// The cells as `f32` cells, when they are.
    fn narrow(cells: &[Self]) -> Option<&[AtomicU32]>
    where
        Self: Sized,
    {
        let _ = cells;
        None
    }
}

impl SharedCell for AtomicU64 {
    fn new(value: f64) -> Self {
        AtomicU64::new(value.to_bits())
    }
    #[inline(always)]
    fn read(&self) -> f64 {
        f64::from_bits(self.load(Ordering::Relaxed))
    }
    #[inline(always)]
    fn write(&self, value: f64) {
        self.store(value.to_bits(), Ordering::Relaxed)
    }
}

impl SharedCell for AtomicU32 {
    fn new(value: f64) -> Self {
        AtomicU32::new((value as f32).to_bits())
    }
    #[inline(always)]
    fn read(&self) -> f64 {
        f64::from(f32::from_bits(self.load(Ordering::Relaxed)))
    }
    #[inline(always)]
    fn write(&self, value: f64) {
        self.store((value as f32).to_bits(), Ordering::Relaxed)
    }
    fn narrow(cells: &[Self]) -> Option<&[AtomicU32]> {
        Some(cells)
    }
}

/// `n` shared cells holding `value(v)`, written in parallel batches (written serially, the
/// first cells of a Gauss-Seidel run took about 7 M instructions at scale 18 while the other
/// workers waited).
fn shared_cells<S: SharedCell>(
    runtime: &Runtime,
    n: usize,
    value: impl Fn(usize) -> f64 + Sync,
) -> Vec<S> {
    let cells: Vec<S> = (0..n).map(|_| S::new(0.0)).collect();
    runtime.for_each_batch(0..n, BATCH * 8, |_, range| {
        for v in range {
            cells[v].write(value(v));
        }
    });
    cells
}

/// One Gauss-Seidel sweep: every vertex's new rank from the current cells, its cell rewritten
/// at once; returns the change and, with `spread`, the rank of vertices without out-edges
/// (else 0).
#[allow(clippy::too_many_arguments)]
fn sweep<S: SharedCell>(
    graph: &Graph,
    order: Option<&DegreeOrder>,
    ranks: &mut F64Array,
    degrees_array: &SmartArray,
    cells: &[S],
    base: f64,
    d: f64,
    spread: bool,
) -> (f64, f64) {
    let incoming = graph.incoming();
    // Packed lists in degree order are decoded a batch at a time for the AVX2 gather, which
    // beats the scalar windows there (V+E, scale 22: 1.37-1.43 s against 1.54-1.61 s).
    let narrowing = order.is_some() && S::narrow(cells).is_some();
    let (change, dangling, ..) = ranks.par_update(
        BATCH,
        || {
            (
                0.0,
                0.0,
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Narrowed::default(),
            )
        },
        |(
            change,
            dangling,
            mut offsets_buffer,
            mut degree_buffer,
            mut edges_buffer,
            mut narrowed,
        ),
         worker,
         range,
         ranks| {
            let offsets = values(
                incoming.offsets().for_worker(worker),
                range.start..range.end + 1,
                &mut offsets_buffer,
            );
            let degrees = values(
                degrees_array.for_worker(worker),
                range.clone(),
                &mut degree_buffer,
            );
            let lists = order.map_or(incoming.targets(), |o| &o.targets);
            let targets = Targets::of(lists.for_worker(worker));
            let mine = Mine::of(order, range.clone());
            let (targets, offsets) = narrowed.apply(narrowing, targets, offsets);
            let limit = offsets[offsets.len() - 1] as usize;
            if let Some((delta, lost)) = sweep_simd(
                targets, offsets, degrees, cells, mine, ranks, base, d, spread,
            ) {
                return (
                    change + delta,
                    dangling + lost,
                    offsets_buffer,
                    degree_buffer,
                    edges_buffer,
                    narrowed,
                );
            }
            let (delta, lost) = with_window!(targets, &mut edges_buffer, limit, |window| {
                let prefetching = worth_prefetching(cells);
                let (w, first) = (&mut window, mine);
                // SAFETY: the window yields the graph's neighbour ids, all below its vertex
                // count (checked when it was built or loaded), and `cells` holds one cell per
                // vertex.
                unsafe {
                    match (prefetching, spread) {
                        (true, true) => sweep_batch::<true, true, _, _>(
                            w, offsets, degrees, cells, first, ranks, base, d,
                        ),
                        (true, false) => sweep_batch::<true, false, _, _>(
                            w, offsets, degrees, cells, first, ranks, base, d,
                        ),
                        (false, true) => sweep_batch::<false, true, _, _>(
                            w, offsets, degrees, cells, first, ranks, base, d,
                        ),
                        (false, false) => sweep_batch::<false, false, _, _>(
                            w, offsets, degrees, cells, first, ranks, base, d,
                        ),
                    }
                }
            });
            (
                change + delta,
                dangling + lost,
                offsets_buffer,
                degree_buffer,
                edges_buffer,
                narrowed,
            )
        },
        |a, b| (a.0 + b.0, a.1 + b.1, a.2, a.3, a.4, a.5),
    );
    (change, dangling)
}

/// A batch of a Gauss-Seidel sweep through the AVX2 gather ([`crate::pull_x86`]) where it
/// applies, at any number of workers (its gather reads the shared cells as relaxed atomic
/// loads): 32-bit ids read in place, `f32` cells too few to prefetch ([`worth_prefetching`]),
/// a CPU with AVX2. `None` otherwise (the caller runs the scalar sweep).
#[allow(clippy::too_many_arguments)]
#[inline]
fn sweep_simd<S: SharedCell>(
    targets: Targets<'_>,
    offsets: &[u64],
    degrees: &[u64],
    cells: &[S],
    first: Mine<'_>,
    ranks: &mut [f64],
    base: f64,
    d: f64,
    spread: bool,
) -> Option<(f64, f64)> {
    let (Targets::U32(ids), Some(cells)) = (targets, S::narrow(cells)) else {
        return None;
    };
    // Cells in degree order are gathered without prefetching: the most-read ones stay in the
    // near caches (scale 22: 1.98 s against 2.10-2.38 s with the prefetching scalar sweep).
    if worth_prefetching(cells) && matches!(first, Mine::From(_)) {
        return None;
    }
    // SAFETY: the ids are the graph's neighbour ids, all below its vertex count (checked when
    // it was built or loaded), and `cells` holds one cell per vertex.
    unsafe {
        if spread {
            crate::pull_x86::sweep_u32_f32::<true>(
                ids, offsets, degrees, cells, first, ranks, base, d,
            )
        } else {
            crate::pull_x86::sweep_u32_f32::<false>(
                ids, offsets, degrees, cells, first, ranks, base, d,
            )
        }
    }
}

/// One batch of a Gauss-Seidel sweep (vertices from `first` on; `offsets` and `degrees` are
/// the batch's); returns the change and, with `SPREAD`, the rank of vertices without out-edges
/// (0 without: nobody needs it when the dangling rank is dropped, and the table look-up, the
/// product and the running sum cost about 8 instructions a vertex).
///
/// # Safety
/// Every id the window yields must be below `cells.len()`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn sweep_batch<const PREFETCH: bool, const SPREAD: bool, W: EdgeWindow, S: SharedCell>(
    window: &mut W,
    offsets: &[u64],
    degrees: &[u64],
    cells: &[S],
    mine: Mine<'_>,
    ranks: &mut [f64],
    base: f64,
    d: f64,
) -> (f64, f64) {
    let mut totals = (0.0, 0.0);
    // Zipped slices of the batch's length, so the loop has no bounds check per vertex (the
    // indexed form had three, and spilled the sums to the stack).
    let n = ranks.len();
    let (ends, degrees) = (&offsets[1..=n], &degrees[..n]);
    let mut s = offsets[0] as usize;
    for (i, ((rank, &end), &degree)) in ranks.iter_mut().zip(ends).zip(degrees).enumerate() {
        let cell = mine.cell(cells, i);
        let t = end as usize;
        let mut sum = 0.0;
        // No emptiness test and no branch on the degree, as in the Jacobi pull.
        loop {
            let (piece, ahead) = window.piece_ahead(s, t);
            // SAFETY: passed on from the caller (ids below `cells.len()`).
            sum += unsafe { gather_shared::<PREFETCH, _, _>(piece, ahead, cells) };
            s += piece.len();
            if s >= t {
                break;
            }
        }
        finish_vertex::<SPREAD, _>(base + d * sum, rank, degree, cell, &mut totals);
    }
    totals
}

/// The most list entries a batch decodes for the AVX2 gather: 3 MiB of buffers (8 + 4 bytes an
/// entry). A batch of 2048 vertices in input order holds tens of thousands of entries; in
/// degree order (see `reorder`) the first batches hold the hubs, tens of millions of entries,
/// whose buffers would leave the caches each sweep, so those batches take the windowed path.
const NARROW_ENTRIES: u64 = 1 << 18;

/// A batch's packed lists decoded to 32-bit ids (for the AVX2 gather), with its offsets
/// rebased to them.
#[derive(Default)]
struct Narrowed {
    wide: Vec<u64>,
    ids: Vec<u32>,
    offsets: Vec<u64>,
}

impl Narrowed {
    /// With `narrowing`, packed `targets` as decoded 32-bit ids and the offsets rebased to
    /// them; anything else (or ids wider than 32 bits) as given.
    fn apply<'s>(
        &'s mut self,
        narrowing: bool,
        targets: Targets<'s>,
        offsets: &'s [u64],
    ) -> (Targets<'s>, &'s [u64]) {
        match targets {
            Targets::Packed(view) if narrowing => match self.of(view, offsets) {
                Some((ids, rebased)) => (Targets::U32(ids), rebased),
                None => (Targets::Packed(view), offsets),
            },
            other => (other, offsets),
        }
    }

    /// The lists `offsets` spans in `view`, as 32-bit ids and rebased offsets; `None` when the
    /// ids are wider than 32 bits, the lists hold more than [`NARROW_ENTRIES`] entries or the
    /// range is not in the view.
    fn of<'s>(
        &'s mut self,
        view: smartarrays::ArrayView<'_>,
        offsets: &[u64],
    ) -> Option<(&'s [u32], &'s [u64])> {
        let (start, end) = (offsets[0], offsets[offsets.len() - 1]);
        if view.bits() > 32 || end - start > NARROW_ENTRIES {
            return None;
        }
        self.wide.resize((end - start) as usize, 0);
        view.unpack(start as usize, &mut self.wide).ok()?;
        self.ids.clear();
        // Exact: the ids are at most 32 bits wide.
        self.ids.extend(self.wide.iter().map(|&id| id as u32));
        self.offsets.clear();
        self.offsets.extend(offsets.iter().map(|&o| o - start));
        Some((&self.ids, &self.offsets))
    }
}

/// Where the vertices of a sweep batch keep their cells: from the batch's first vertex on, or
/// at the cell indices of a [`DegreeOrder`].
#[derive(Clone, Copy)]
pub(crate) enum Mine<'a> {
    From(usize),
    At(&'a [u32]),
}

impl<'a> Mine<'a> {
    fn of(order: Option<&'a DegreeOrder>, range: std::ops::Range<usize>) -> Mine<'a> {
        match order {
            Some(order) => Mine::At(&order.cell_of[range]),
            None => Mine::From(range.start),
        }
    }

    /// The cell of the batch's `i`-th vertex.
    #[inline(always)]
    pub(crate) fn cell<S>(self, cells: &[S], i: usize) -> &S {
        match self {
            Mine::From(first) => &cells[first + i],
            Mine::At(at) => &cells[at[i] as usize],
        }
    }
}

/// The end of one vertex's Gauss-Seidel step, in the scalar sweep and the AVX2 one
/// ([`crate::pull_x86`]) alike: `new` replaces `rank`, the change adds to `totals.0` and, with
/// `SPREAD`, a dangling vertex's rank to `totals.1`; the cell gets the new contribution.
#[inline(always)]
pub(crate) fn finish_vertex<const SPREAD: bool, S: SharedCell>(
    new: f64,
    rank: &mut f64,
    degree: u64,
    cell: &S,
    totals: &mut (f64, f64),
) {
    totals.0 += (new - *rank).abs();
    *rank = new;
    if SPREAD {
        totals.1 += new * DANGLES[degree.min(3) as usize];
    }
    // A dangling vertex's cell gets its rank (finite): no edge reads it but the masked lanes
    // of a gather, which multiply it by 0.
    cell.write(new / degree.max(1) as i64 as f64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_gathers_agree_with_a_plain_sum_at_edge_lengths() {
        let runtime = Runtime::with_threads(1).unwrap();
        let n = 1500;
        // Multiples of 1/8 below 2^11: exact in f32 and in every order of addition.
        let value = |v: usize| (v % 113) as f64 * 0.125 + 1.0;
        let wide: Vec<AtomicU64> = shared_cells(&runtime, n, value);
        let narrow: Vec<AtomicU32> = shared_cells(&runtime, n, value);
        let last = n as u32 - 1;
        for len in [0, 1, 3, 4, 5, 15, 16, 17, 1025] {
            let ids: Vec<u32> = (0..len as u32)
                .map(|i| match i % 4 {
                    0 => 0,
                    1 => last,
                    _ => (i * 31) % last,
                })
                .collect();
            let expected: f64 = ids.iter().map(|&id| value(id as usize)).sum();
            for extra in [0, 1, 2, 3, 9] {
                let mut ahead = ids.clone();
                ahead.extend((0..extra).map(|k| last - k));
                for sum in [
                    // SAFETY: every id in `ahead` is at most `last`, below `n`.
                    unsafe { gather_shared::<false, _, _>(&ids, &ahead, &wide) },
                    // SAFETY: as above.
                    unsafe { gather_shared::<false, _, _>(&ids, &ahead, &narrow) },
                    // SAFETY: as above.
                    unsafe { gather_shared::<true, _, _>(&ids, &ahead, &narrow) },
                ] {
                    assert_eq!(sum, expected, "{len} ids, {extra} past");
                }
            }
        }
    }

    #[test]
    fn contributions_split_ranks_without_a_branch_on_the_degree() {
        for len in [0, 1, 3, 4, 5, 63, 64, 65, 1025] {
            // Degrees 0 to 4 and a large one, so every slot of the capped table is used.
            let degrees: Vec<u64> = (0..len as u64)
                .map(|v| if v % 7 == 6 { 1 << 40 } else { v % 5 })
                .collect();
            let ranks: Vec<f64> = (0..len).map(|v| 0.5 + v as f64 / 8.0).collect();
            let mut wide = vec![f64::NAN; len];
            let mut narrow = vec![f32::NAN; len];
            let lost = contributions(&degrees, &ranks, &mut wide);
            assert_eq!(lost, contributions(&degrees, &ranks, &mut narrow));
            let mut expected_lost = 0.0;
            for v in 0..len {
                let expected = if degrees[v] == 0 {
                    expected_lost += ranks[v];
                    0.0
                } else {
                    ranks[v] / degrees[v] as f64
                };
                assert_eq!(wide[v], expected, "len {len} vertex {v}");
                assert_eq!(narrow[v], expected as f32, "len {len} vertex {v}");
                // +0.0 for dangling vertices, not -0.0 or NaN.
                assert_eq!(
                    wide[v].to_bits(),
                    expected.to_bits(),
                    "len {len} vertex {v}"
                );
            }
            assert_eq!(lost, expected_lost, "len {len}");
        }
    }

    #[test]
    fn shared_cells_hold_every_value_at_odd_thread_counts() {
        for threads in [1, 3] {
            let runtime = Runtime::with_threads(threads).unwrap();
            for n in [0, 1, 63, 64, 65, 1023, 1025, BATCH * 8, BATCH * 8 + 1] {
                let value = |v: usize| v as f64 * 0.5 - 3.0;
                let wide: Vec<AtomicU64> = shared_cells(&runtime, n, value);
                let narrow: Vec<AtomicU32> = shared_cells(&runtime, n, value);
                assert_eq!((wide.len(), narrow.len()), (n, n));
                for v in 0..n {
                    assert_eq!(wide[v].read(), value(v), "n {n} vertex {v}");
                    // Exact in f32 too: halves of integers below 2^23.
                    assert_eq!(narrow[v].read(), value(v), "n {n} vertex {v}");
                }
            }
        }
    }

    /// A plain serial Gauss-Seidel step from `start`, with 0 in a dangling vertex's cell (as
    /// the formula has it) and every cell rounded by `round` as it is written: the new ranks,
    /// the cells, the total change and the sum of the dangling vertices' new ranks.
    fn serial_step(
        offsets: &[u64],
        sources: &[u64],
        degrees: &[u64],
        (base, d): (f64, f64),
        start: impl Fn(usize) -> f64,
        round: impl Fn(f64) -> f64,
    ) -> (Vec<f64>, Vec<f64>, f64, f64) {
        let n = degrees.len();
        let share = |v: usize, rank: f64| {
            round(if degrees[v] == 0 {
                0.0
            } else {
                rank / degrees[v] as f64
            })
        };
        let mut cells = (0..n).map(|v| share(v, start(v))).collect::<Vec<_>>();
        let mut ranks = (0..n).map(&start).collect::<Vec<_>>();
        let (mut delta, mut lost) = (0.0, 0.0);
        for v in 0..n {
            let range = offsets[v] as usize..offsets[v + 1] as usize;
            let sum: f64 = sources[range].iter().map(|&u| cells[u as usize]).sum();
            let new = base + d * sum;
            delta += (new - ranks[v]).abs();
            if degrees[v] == 0 {
                lost += new;
            }
            ranks[v] = new;
            cells[v] = share(v, new);
        }
        (ranks, cells, delta, lost)
    }

    /// Runs one `sweep` over cells of type `S`, with and without spreading the dangling ranks,
    /// and checks it against `serial_step` with `round` (the rounding of an `S` cell). `exact`
    /// asks for the cells to match the reference's bit for bit.
    fn check_one_sweep<S: SharedCell>(
        graph: &Graph,
        runtime: &Arc<Runtime>,
        round: impl Fn(f64) -> f64,
        exact: bool,
    ) {
        let n = graph.vertices();
        let array_options = ArrayOptions::new().runtime(Arc::clone(runtime));
        let degrees_array = out_degree_array(graph, &array_options).unwrap();
        let degrees = degrees_array.to_vec();
        let offsets = graph.incoming().offsets().to_vec();
        let sources = graph.incoming().targets().to_vec();
        let (base, d) = (0.15 / n as f64, 0.85);
        let start = |v: usize| 1.0 / n as f64 + v as f64 * 1e-6;
        let (expected, cells, delta, lost) =
            serial_step(&offsets, &sources, &degrees, (base, d), start, round);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1e-9);
        let by_degree = graph.degree_order().unwrap().unwrap();
        for (spread, ordered) in [(false, false), (true, false), (false, true), (true, true)] {
            let order = ordered.then_some(by_degree);
            let cell_of = |v: usize| order.map_or(v, |o| o.cell_of[v] as usize);
            let share = |c: usize| {
                let v = order.map_or(c, |o| o.vertex_of[c] as usize);
                if degrees[v] == 0 {
                    0.0
                } else {
                    start(v) / degrees[v] as f64
                }
            };
            let shared: Vec<S> = shared_cells(runtime, n, share);
            let mut ranks = F64Array::from_fn(n, &array_options, start).unwrap();
            let (change, dangling) = sweep(
                graph,
                order,
                &mut ranks,
                &degrees_array,
                &shared,
                base,
                d,
                spread,
            );
            assert!(close(change, delta), "n {n}: {change} vs {delta}");
            let lost = if spread { lost } else { 0.0 };
            assert!(close(dangling, lost), "n {n}: {dangling} vs {lost}");
            for (v, (got, want)) in ranks.to_vec().iter().zip(&expected).enumerate() {
                assert!(close(*got, *want), "n {n} vertex {v}: {got} vs {want}");
                if degrees[v] > 0 {
                    let cell = shared[cell_of(v)].read();
                    if exact {
                        assert_eq!(cell, cells[v], "n {n} vertex {v}");
                    } else {
                        assert!(close(cell, cells[v]), "n {n} vertex {v}: {cell}");
                    }
                }
            }
        }
    }

    #[test]
    fn one_sweep_matches_a_plain_serial_gauss_seidel_step() {
        // One worker sweeps the batches in order, so a plain serial Gauss-Seidel step gives
        // the same values up to the order of additions inside a vertex.
        let runtime = Arc::new(Runtime::with_threads(1).unwrap());
        let options = crate::GraphOptions::default().runtime(Arc::clone(&runtime));
        for (scale, directed) in [(1, true), (6, true), (9, true), (9, false)] {
            let edges = crate::generate::kronecker(scale, 8, 3, directed).unwrap();
            let graph = crate::build(edges, &options).unwrap();
            check_one_sweep::<AtomicU64>(&graph, &runtime, |x| x, false);
            // `f32` cells (the default precision): on one worker over 32-bit ids read in
            // place, the sweep takes the AVX2 gather where the CPU has it. The reference
            // rounds every cell to `f32` as it is written.
            assert_eq!(graph.incoming().targets().bits(), 32, "ids read in place");
            check_one_sweep::<AtomicU32>(&graph, &runtime, |x| f64::from(x as f32), true);
        }
    }
}
