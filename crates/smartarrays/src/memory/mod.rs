//! Memory placement layer: owned page-aligned regions ([`Region`]), placements and their
//! allocation on NUMA nodes ([`Placement`], [`allocate`]), and reports of where pages really are
//! ([`PlacementReport`]), and cache prefetch hints ([`prefetch`]).

mod placement;
pub mod prefetch;
mod region;
mod report;

pub use placement::{
    allocate, check_fits, current_available_memory, current_free_memory, Allocation, HugePages,
    Placement, ResolvedPlacement, HUGE_PAGE_THRESHOLD,
};
pub use region::Region;

/// Size of a base memory page in bytes, as the kernel reports it.
pub fn page_size() -> usize {
    crate::sys::page_size()
}
pub use report::{region_page_nodes, region_report, PlacementReport, ReplicaReport};
