//! Edge lists: the input of a graph build (what loaders and generators produce). Ids are kept
//! in 32 bits while they fit and widened to 64 bits when one does not, so a typical graph's list
//! takes 8 bytes per edge.

/// Vertex id types the builder works with (`u32` and `u64`).
pub(crate) trait Id:
    Copy + Send + Sync + Ord + Default + std::fmt::Debug + bytemuck::Pod + 'static
{
    /// The atomic cell of the same width.
    type Atomic: Send + Sync;
    fn atomic(value: Self) -> Self::Atomic;
    fn store(cell: &Self::Atomic, value: Self);
    fn into_inner(cell: Self::Atomic) -> Self;
    fn to_u64(self) -> u64;
    /// Truncating conversion (callers check the range first).
    fn from_u64(value: u64) -> Self;
    #[inline]
    fn index(self) -> usize {
        self.to_u64() as usize
    }
}

impl Id for u32 {
    type Atomic = std::sync::atomic::AtomicU32;
    fn atomic(value: u32) -> Self::Atomic {
        std::sync::atomic::AtomicU32::new(value)
    }
    #[inline]
    fn store(cell: &Self::Atomic, value: u32) {
        cell.store(value, std::sync::atomic::Ordering::Relaxed)
    }
    fn into_inner(cell: Self::Atomic) -> u32 {
        cell.into_inner()
    }
    #[inline]
    fn to_u64(self) -> u64 {
        self as u64
    }
    #[inline]
    fn from_u64(value: u64) -> u32 {
        value as u32
    }
}

impl Id for u64 {
    type Atomic = std::sync::atomic::AtomicU64;
    fn atomic(value: u64) -> Self::Atomic {
        std::sync::atomic::AtomicU64::new(value)
    }
    #[inline]
    fn store(cell: &Self::Atomic, value: u64) {
        cell.store(value, std::sync::atomic::Ordering::Relaxed)
    }
    fn into_inner(cell: Self::Atomic) -> u64 {
        cell.into_inner()
    }
    #[inline]
    fn to_u64(self) -> u64 {
        self
    }
    #[inline]
    fn from_u64(value: u64) -> u64 {
        value
    }
}

/// The stored pairs of an [`EdgeList`]: 32-bit ids while every id fits, else 64-bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pairs {
    Narrow(Vec<[u32; 2]>),
    Wide(Vec<[u64; 2]>),
}

/// A list of edges `(source, target)` over vertices `0..vertices`, directed or not.
///
/// # Example
/// ```
/// use smartarrays_graph::EdgeList;
/// let mut edges = EdgeList::new(true);
/// edges.push(0, 1);
/// edges.push(1, 2);
/// assert_eq!(edges.len(), 2);
/// assert_eq!(edges.vertices(), 3); // highest id + 1
/// edges.set_vertices(10).unwrap(); // room for isolated vertices
/// assert_eq!(edges.iter().collect::<Vec<_>>(), vec![(0, 1), (1, 2)]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeList {
    vertices: u64,
    directed: bool,
    pairs: Pairs,
}

impl EdgeList {
    /// An empty list.
    pub fn new(directed: bool) -> EdgeList {
        EdgeList {
            vertices: 0,
            directed,
            pairs: Pairs::Narrow(Vec::new()),
        }
    }

    /// A list from 32-bit pairs; `vertices` grows to the highest id + 1 when smaller.
    pub fn from_pairs(vertices: u64, directed: bool, pairs: Vec<[u32; 2]>) -> EdgeList {
        let highest = pairs
            .iter()
            .map(|p| p[0].max(p[1]) as u64 + 1)
            .max()
            .unwrap_or(0);
        EdgeList {
            vertices: vertices.max(highest),
            directed,
            pairs: Pairs::Narrow(pairs),
        }
    }

    /// A list from 64-bit pairs (kept in 32 bits when every id fits).
    pub fn from_wide_pairs(vertices: u64, directed: bool, pairs: Vec<[u64; 2]>) -> EdgeList {
        let highest = pairs
            .iter()
            .map(|p| p[0].max(p[1]).saturating_add(1))
            .max()
            .unwrap_or(0);
        let vertices = vertices.max(highest);
        if highest <= u32::MAX as u64 + 1 {
            let narrow = pairs
                .into_iter()
                .map(|p| [p[0] as u32, p[1] as u32])
                .collect();
            EdgeList {
                vertices,
                directed,
                pairs: Pairs::Narrow(narrow),
            }
        } else {
            EdgeList {
                vertices,
                directed,
                pairs: Pairs::Wide(pairs),
            }
        }
    }

    /// Appends an edge, widening the ids to 64 bits when `source` or `target` needs it.
    pub fn push(&mut self, source: u64, target: u64) {
        self.vertices = self.vertices.max(source.max(target).saturating_add(1));
        match &mut self.pairs {
            Pairs::Narrow(pairs) if source <= u32::MAX as u64 && target <= u32::MAX as u64 => {
                pairs.push([source as u32, target as u32])
            }
            Pairs::Narrow(pairs) => {
                let mut wide: Vec<[u64; 2]> =
                    pairs.iter().map(|p| [p[0] as u64, p[1] as u64]).collect();
                wide.push([source, target]);
                self.pairs = Pairs::Wide(wide);
            }
            Pairs::Wide(pairs) => pairs.push([source, target]),
        }
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        match &self.pairs {
            Pairs::Narrow(p) => p.len(),
            Pairs::Wide(p) => p.len(),
        }
    }

    /// Whether there are no edges.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of vertices (at least the highest id + 1).
    pub fn vertices(&self) -> u64 {
        self.vertices
    }

    /// Declares `vertices` vertices (for isolated vertices past the highest id); refuses fewer
    /// than the highest id + 1.
    pub fn set_vertices(&mut self, vertices: u64) -> crate::Result<()> {
        let highest = self.iter().map(|(s, t)| s.max(t) + 1).max().unwrap_or(0);
        if vertices < highest {
            return Err(crate::GraphError::InvalidArgument(format!(
                "{vertices} vertices declared, but the edge list uses vertex id {}",
                highest - 1
            )));
        }
        self.vertices = vertices;
        Ok(())
    }

    /// Whether the edges are directed.
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// Marks the edges as directed or undirected.
    pub fn set_directed(&mut self, directed: bool) {
        self.directed = directed;
    }

    /// Whether the ids are stored in 64 bits.
    pub fn is_wide(&self) -> bool {
        matches!(self.pairs, Pairs::Wide(_))
    }

    /// The edges in order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = (u64, u64)> + '_> {
        match &self.pairs {
            Pairs::Narrow(p) => Box::new(p.iter().map(|e| (e[0] as u64, e[1] as u64))),
            Pairs::Wide(p) => Box::new(p.iter().map(|e| (e[0], e[1]))),
        }
    }

    /// Bytes the stored pairs take.
    pub fn memory_bytes(&self) -> usize {
        match &self.pairs {
            Pairs::Narrow(p) => p.capacity() * 8,
            Pairs::Wide(p) => p.capacity() * 16,
        }
    }

    pub(crate) fn into_parts(self) -> (u64, bool, Pairs) {
        (self.vertices, self.directed, self.pairs)
    }
}
