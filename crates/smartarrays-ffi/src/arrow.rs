//! The C ABI's Arrow exports: `sa_array_export_arrow`, `sa_array_export_arrow_stream` and
//! `sa_f64_array_export_arrow`, thin wrappers over the `smartarrays-arrow` crate (re-exported
//! here, with the arrow crates it uses, as `smartarrays_ffi::arrow`).

use std::sync::Arc;

pub use smartarrays_arrow::*;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;

use crate::array::SaArray;
use crate::float::SaF64Array;
use crate::ptr;
use crate::status::{guard, FfiError, FfiResult, SaStatus};

/// The body of `sa_array_export_arrow` and `sa_f64_array_export_arrow`: checks both out
/// pointers, exports the array behind `array` and writes the two structs.
///
/// # Safety
/// `array` must be NULL or a live handle; the out pointers must be NULL or valid for writing one
/// struct each.
unsafe fn write_export<H>(
    array: *const H,
    out_array: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    export: impl FnOnce(&H) -> FfiResult<(FFI_ArrowArray, FFI_ArrowSchema)>,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out_array, "out_array")?;
        ptr::check_out(out_schema, "out_schema")?;
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow(array, "array") }?;
        let (exported, schema) = export(handle)?;
        // SAFETY: forwarded from the caller; both pointers were checked for NULL.
        unsafe {
            out_array.write(exported);
            out_schema.write(schema);
        }
        Ok(())
    })
}

/// Exports the array's values through the Arrow C Data Interface as a `uint64` array
/// (format "L"). Uncompressed (64-bit) arrays are shared without copying, and the export keeps
/// the memory alive even if the array is freed first; other widths are decoded into a new buffer.
///
/// Ownership: on success `*out_array` and `*out_schema` belong to the caller, who must call each
/// one's `release` callback when done (any thread). While a zero-copy export is alive,
/// `sa_array_set` on the array fails with `SA_STATUS_BUSY`. Thread-safe (like other `const` calls).
///
/// # Safety
/// `array` must be NULL or a live handle; the out pointers must be NULL or valid for writing one
/// struct each (their previous contents are overwritten, not released).
#[no_mangle]
pub unsafe extern "C" fn sa_array_export_arrow(
    array: *const SaArray,
    out_array: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_export(array, out_array, out_schema, |handle: &SaArray| {
            Ok(export_array(Arc::clone(&handle.array))?)
        })
    }
}

/// Exports the array as an Arrow C stream (`ArrowArrayStream`) of `uint64` arrays of
/// `chunk_values` values each (the last may be shorter; 0 = 1048576). Chunks are produced as the
/// consumer calls `get_next`: zero-copy for 64-bit arrays, decoded otherwise. The stream keeps
/// the array's memory alive until released, even if the array is freed first.
///
/// Ownership: on success `*out` belongs to the caller, who must call its `release` callback. A
/// stream is used by one thread at a time; different streams are independent.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing one struct.
#[no_mangle]
pub unsafe extern "C" fn sa_array_export_arrow_stream(
    array: *const SaArray,
    chunk_values: usize,
    out: *mut FFI_ArrowArrayStream,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow(array, "array") }?;
        let stream = export_stream(Arc::clone(&handle.array), chunk_values);
        // SAFETY: forwarded from the caller; `out` was checked for NULL.
        unsafe { out.write(stream) };
        Ok(())
    })
}

/// Exports a double array through the Arrow C Data Interface as a `float64` array (format "g"),
/// always without copying. Ownership and rules as for `sa_array_export_arrow`.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; the out pointers must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_f64_array_export_arrow(
    array: *const SaF64Array,
    out_array: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_export(array, out_array, out_schema, |handle: &SaF64Array| {
            export_f64_array(Arc::clone(&handle.array)).map_err(FfiError::from)
        })
    }
}
