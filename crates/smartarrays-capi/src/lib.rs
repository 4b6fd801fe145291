//! The shared and static C library `libsmartarrays`: links the C ABI defined in the
//! `smartarrays-ffi` crate (header `crates/smartarrays-ffi/include/smartarrays.h`) and exports its
//! `sa_*` functions. Nothing is defined here.

pub use smartarrays_ffi::*;
