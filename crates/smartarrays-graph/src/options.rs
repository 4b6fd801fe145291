//! How a graph is stored and built: placement and width per array class (offsets, edges,
//! vertex properties), the paper's variants U / V / V+E as presets, and the duplicate-edge and
//! self-loop policies.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use smartarrays::codec::bits_needed;
use smartarrays::{ArrayOptions, Placement, Runtime};

use crate::error::{GraphError, Result};

/// Bit width rule of an array class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Width {
    /// The uncompressed machine width: 64 bits for offsets, 32 bits for vertex ids, degrees and
    /// levels (64 when a value needs it).
    #[default]
    Natural,
    /// The fewest bits that hold the largest value (the paper's bit compression).
    Minimal,
    /// Exactly this many bits (1..=64); a value that does not fit is an error.
    Exactly(u32),
}

impl Width {
    /// The width for an array of values at most `largest`, whose natural width is `natural`.
    pub fn resolve(self, largest: u64, natural: u32) -> u32 {
        match self {
            Width::Natural => natural
                .max(bits_needed(largest))
                .next_power_of_two()
                .min(64),
            Width::Minimal => bits_needed(largest),
            Width::Exactly(bits) => bits,
        }
    }
}

impl fmt::Display for Width {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Width::Natural => write!(f, "natural"),
            Width::Minimal => write!(f, "min"),
            Width::Exactly(bits) => write!(f, "{bits}"),
        }
    }
}

impl FromStr for Width {
    type Err = GraphError;

    /// Parses `natural` (or `u`), `min` (or `minimal`, `auto`), or a number 1..=64.
    fn from_str(text: &str) -> Result<Width> {
        match text.trim().to_ascii_lowercase().as_str() {
            "natural" | "u" | "uncompressed" => Ok(Width::Natural),
            "min" | "minimal" | "auto" => Ok(Width::Minimal),
            number => match number.parse::<u32>() {
                Ok(bits) if (1..=64).contains(&bits) => Ok(Width::Exactly(bits)),
                _ => Err(GraphError::InvalidArgument(format!(
                    "bit width {text:?}: expected natural, min or a number from 1 to 64"
                ))),
            },
        }
    }
}

/// Placement and width of one class of arrays.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayClass {
    /// Where the arrays' memory goes.
    pub placement: Placement,
    /// How many bits each value takes.
    pub width: Width,
}

/// The paper's compression variants (§5.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Variant {
    /// Uncompressed: 64-bit offsets, 32-bit vertex ids and properties.
    #[default]
    U,
    /// Offsets and vertex properties at minimal width; edges uncompressed.
    V,
    /// Offsets, vertex properties and edges at minimal width.
    VE,
}

impl Variant {
    /// All three, in order.
    pub const ALL: [Variant; 3] = [Variant::U, Variant::V, Variant::VE];

    /// Name as in the paper: `U`, `V`, `V+E`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::U => "U",
            Variant::V => "V",
            Variant::VE => "V+E",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = GraphError;

    fn from_str(text: &str) -> Result<Variant> {
        match text.trim().to_ascii_lowercase().as_str() {
            "u" => Ok(Variant::U),
            "v" => Ok(Variant::V),
            "v+e" | "ve" | "v-e" => Ok(Variant::VE),
            _ => Err(GraphError::InvalidArgument(format!(
                "variant {text:?}: expected u, v or v+e"
            ))),
        }
    }
}

/// Whether to keep or drop duplicate edges / self-loops while building.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Keep {
    /// Keep them as they are.
    #[default]
    Keep,
    /// Drop them.
    Drop,
}

impl FromStr for Keep {
    type Err = GraphError;

    fn from_str(text: &str) -> Result<Keep> {
        match text.trim().to_ascii_lowercase().as_str() {
            "keep" => Ok(Keep::Keep),
            "drop" => Ok(Keep::Drop),
            _ => Err(GraphError::InvalidArgument(format!(
                "{text:?}: expected keep or drop"
            ))),
        }
    }
}

/// How to store and build a graph.
///
/// Duplicates and self-loops: with [`Keep::Drop`] for `duplicates`, each neighbour appears
/// at most once in a vertex's list (for undirected graphs `u v` and `v u` are the same edge);
/// with [`Keep::Drop`] for `self_loops`, edges `v v` are left out. Kept self-loops of an
/// undirected graph are stored once in their vertex's list. Neighbour lists are always sorted.
///
/// # Example
/// ```
/// use smartarrays::Placement;
/// use smartarrays_graph::{GraphOptions, Keep, Variant, Width};
/// let options = GraphOptions::variant(Variant::VE).placement(Placement::Interleaved(vec![])).duplicates(Keep::Drop);
/// assert_eq!(options.edges.width, Width::Minimal);
/// assert_eq!(options.offsets.placement, Placement::Interleaved(vec![]));
/// ```
#[derive(Clone, Debug, Default)]
pub struct GraphOptions {
    /// `begin` / `rbegin`: 64-bit offsets into the edge arrays.
    pub offsets: ArrayClass,
    /// `edge` / `redge`: neighbour ids.
    pub edges: ArrayClass,
    /// Vertex properties and results (out-degrees, levels, component ids, ranks' placement).
    pub properties: ArrayClass,
    /// Duplicate edges.
    pub duplicates: Keep,
    /// Self-loops.
    pub self_loops: Keep,
    /// Receives progress of loads and builds (none by default; the CLI draws bars from it).
    pub progress: crate::progress::Progress,
    /// Runtime for building and the algorithms (default: [`Runtime::global`]).
    pub runtime: Option<Arc<Runtime>>,
}

impl GraphOptions {
    /// Options of a compression variant (placements OS default).
    pub fn variant(variant: Variant) -> GraphOptions {
        let mut options = GraphOptions::default();
        match variant {
            Variant::U => {}
            Variant::V => {
                options.offsets.width = Width::Minimal;
                options.properties.width = Width::Minimal;
            }
            Variant::VE => {
                options.offsets.width = Width::Minimal;
                options.properties.width = Width::Minimal;
                options.edges.width = Width::Minimal;
            }
        }
        options
    }

    /// Sets the placement of every array class.
    pub fn placement(mut self, placement: Placement) -> GraphOptions {
        self.offsets.placement = placement.clone();
        self.edges.placement = placement.clone();
        self.properties.placement = placement;
        self
    }

    /// Sets the duplicate-edge policy.
    pub fn duplicates(mut self, keep: Keep) -> GraphOptions {
        self.duplicates = keep;
        self
    }

    /// Sets the self-loop policy.
    pub fn self_loops(mut self, keep: Keep) -> GraphOptions {
        self.self_loops = keep;
        self
    }

    /// Uses this runtime.
    pub fn runtime(mut self, runtime: Arc<Runtime>) -> GraphOptions {
        self.runtime = Some(runtime);
        self
    }

    /// Reports the progress of loads and builds to `reporter`.
    pub fn progress_reporter(
        mut self,
        reporter: Arc<dyn crate::progress::ProgressReporter>,
    ) -> GraphOptions {
        self.progress = crate::progress::Progress::new(Some(reporter));
        self
    }

    pub(crate) fn resolve_runtime(&self) -> Result<Arc<Runtime>> {
        match &self.runtime {
            Some(runtime) => Ok(Arc::clone(runtime)),
            None => Ok(Runtime::global()?),
        }
    }
}

/// Array options for `class` at an exact width, on `runtime`.
pub(crate) fn array_options(class: &ArrayClass, bits: u32, runtime: &Arc<Runtime>) -> ArrayOptions {
    ArrayOptions::new()
        .placement(class.placement.clone())
        .bits(bits)
        .runtime(Arc::clone(runtime))
}
