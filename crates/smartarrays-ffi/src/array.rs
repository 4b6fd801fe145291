//! The `SaArray` handle and its C functions: create (zeros, from u64 or u32 buffers) and free,
//! queries (length, width, placement, memory), get/set, unpacking into caller buffers, the chunk
//! visitor, parallel reductions, placement reports and the zero-copy view of 64-bit arrays.

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use smartarrays::array::VISIT_CHUNK;
use smartarrays::{ArrayOptions, Compression, Placement, PlacementReport, SmartArray};

use crate::ptr;
use crate::status::{guard, FfiError, FfiResult, SaStatus};
use crate::system::current_runtime;

/// An array of unsigned 64-bit integers stored at a fixed bit width (1..64) with a NUMA
/// placement. Opaque: create it with `sa_array_new`, `sa_array_from_u64` or `sa_array_from_u32`
/// and free it with `sa_array_free`.
///
/// Thread safety: every function taking a `const SaArray *` may run at the same time as any
/// other such call on the same array, from any number of threads. `sa_array_set` and
/// `sa_array_free` take a `SaArray *` and must not run at the same time as any other call on
/// the same array (as with writes to a plain C array).
pub struct SaArray {
    pub(crate) array: Arc<SmartArray>,
}

impl SaArray {
    /// Wraps an array built in Rust into a handle for C (free it with `sa_array_free`).
    pub fn into_raw(array: Arc<SmartArray>) -> *mut SaArray {
        Box::into_raw(Box::new(SaArray { array }))
    }

    /// The shared array behind the handle.
    pub fn array(&self) -> &Arc<SmartArray> {
        &self.array
    }
}

/// Called by `sa_array_for_each_chunk` for consecutive chunks of decoded values:
/// `values[0..count]` are the values at indices `first_index .. first_index + count`. The values
/// are read-only and valid only during the call. Return 0 to go on, anything else to stop.
/// The callback must not unwind (throw a C++ exception) into the library: catch and return 1.
pub type SaChunkVisitor = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        first_index: usize,
        values: *const u64,
        count: usize,
    ) -> i32,
>;

/// Array options from the C arguments: placement text (NULL = OS default) and width (0 = auto).
pub(crate) fn options(placement: *const c_char, bits: u32) -> FfiResult<ArrayOptions> {
    // SAFETY: the exported functions require `placement` to be NULL or NUL-terminated text.
    let placement = match unsafe { ptr::text(placement, "placement") }? {
        Some(text) => text.parse::<Placement>()?,
        None => Placement::OsDefault,
    };
    let width = if bits == 0 {
        Compression::Minimal
    } else {
        Compression::Exactly(bits)
    };
    Ok(ArrayOptions::new()
        .placement(placement)
        .compression(width)
        .runtime(current_runtime()?))
}

/// Array options as [`options`] makes them, with the nodes the placement names checked now:
/// for structures that may map no memory at first (an empty collection, a constant column), so
/// that a node that does not exist fails at creation, not at some later call.
pub(crate) fn checked_options(placement: *const c_char) -> FfiResult<ArrayOptions> {
    let options = options(placement, 0)?;
    if let Some(runtime) = &options.runtime {
        smartarrays::memory::check_fits(runtime.topology(), &options.placement, 0)?;
    }
    Ok(options)
}

/// Stores a newly built array in `*out`.
///
/// # Safety
/// `out` must be valid for writing a pointer (checked for NULL before building).
unsafe fn hand_out(out: *mut *mut SaArray, array: SmartArray) -> FfiResult {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::write(out, "out", SaArray::into_raw(Arc::new(array))) }
}

/// Borrows the array behind a handle.
///
/// # Safety
/// `array` must be NULL or a live handle from this library.
unsafe fn borrow<'a>(array: *const SaArray) -> FfiResult<&'a SmartArray> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(array, "array") }.map(|handle| &*handle.array)
}

/// Creates an array of `len` zeros.
///
/// `placement` is NULL or one of "os" (default), "node:N", "interleaved", "interleaved:N,M,...",
/// "replicated". `bits` is the width, 1..64, or 0 for automatic (1 bit for zeros). The pages are
/// written by the runtime's workers (so "os" spreads them over the nodes by first touch).
///
/// Ownership: on success `*out` is a new array the caller owns (free with `sa_array_free`); on
/// failure `*out` is not written. Thread-safe.
///
/// # Safety
/// `placement` must be NULL or NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_array_new(
    len: usize,
    placement: *const c_char,
    bits: u32,
    out: *mut *mut SaArray,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let array = SmartArray::from_fn(len, &options(placement, bits)?, |_| 0)?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, array) }
    })
}

/// Creates an array holding a copy of `values[0..len]` (built in parallel).
///
/// `placement` as for `sa_array_new`. `bits` is 1..64, or 0 for the fewest bits that hold the
/// largest value. With an explicit width, a value that does not fit fails with
/// `SA_STATUS_VALUE_TOO_WIDE` (the message names the first such index) and no array is made.
/// `values` may be NULL when `len` is 0.
///
/// Ownership: `values` stays the caller's and is not used after the call; on success `*out` is a
/// new array the caller owns (free with `sa_array_free`). Thread-safe.
///
/// # Safety
/// `values` must point to `len` readable values that are not modified during the call;
/// `placement` must be NULL or NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_array_from_u64(
    values: *const u64,
    len: usize,
    placement: *const c_char,
    bits: u32,
    out: *mut *mut SaArray,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let values = unsafe { ptr::slice(values, len, "values") }?;
        let array = SmartArray::from_slice(values, &options(placement, bits)?)?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, array) }
    })
}

/// Like `sa_array_from_u64`, from 32-bit values.
///
/// # Safety
/// As for `sa_array_from_u64`, with `len` readable `uint32_t` values.
#[no_mangle]
pub unsafe extern "C" fn sa_array_from_u32(
    values: *const u32,
    len: usize,
    placement: *const c_char,
    bits: u32,
    out: *mut *mut SaArray,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let values = unsafe { ptr::slice(values, len, "values") }?;
        let array = SmartArray::from_fn(len, &options(placement, bits)?, |i| u64::from(values[i]))?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, array) }
    })
}

/// Frees an array. NULL is ignored. Memory shared with live Arrow exports is freed when the
/// last of them is released.
///
/// # Safety
/// `array` must be NULL or a live handle not freed before; no other call on it may be running,
/// and the handle is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn sa_array_free(array: *mut SaArray) {
    if array.is_null() {
        return;
    }
    // Dropping cannot panic in practice; if it did, the process must not unwind into C.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller passes a pointer from SaArray::into_raw, exactly once.
        drop(unsafe { Box::from_raw(array) });
    }));
}

/// Writes the number of values to `*out`.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_array_len(array: *const SaArray, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(array)?.len()) })
}

/// Writes the bit width of each value (1..64) to `*out`.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_array_bits(array: *const SaArray, out: *mut u32) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(array)?.bits()) })
}

/// Writes the number of copies of the data to `*out` (the node count for "replicated", else 1).
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_array_replica_count(
    array: *const SaArray,
    out: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(array)?.replica_count()) })
}

/// Writes the bytes of memory the array occupies (all copies, whole pages) to `*out`.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_array_memory_bytes(array: *const SaArray, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(array)?.memory_bytes()) })
}

/// Writes the bytes the values take densely packed in one copy, ceil(len * bits / 8), to `*out`.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_array_packed_bytes(array: *const SaArray, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(array)?.packed_bytes()) })
}

/// Writes the placement as text ("os", "node:0", "interleaved", "interleaved:0,1",
/// "replicated") to `*out`. The caller frees `*out` with `sa_string_free`.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_array_placement(
    array: *const SaArray,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write_string(out, "out", borrow(array)?.placement().to_string()) })
}

/// Writes value `index` to `*out`; `SA_STATUS_INDEX_OUT_OF_RANGE` past the end.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_array_get(
    array: *const SaArray,
    index: usize,
    out: *mut u64,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(array)?.get(index)?) })
}

/// Sets value `index` (in every copy). Fails without writing anything with
/// `SA_STATUS_INDEX_OUT_OF_RANGE`, `SA_STATUS_VALUE_TOO_WIDE` (the value needs more bits than
/// the array has), or `SA_STATUS_BUSY` (a live Arrow export shares the array's memory).
///
/// Thread safety: no other call on the same array may run at the same time.
///
/// # Safety
/// `array` must be NULL or a live handle not used by another thread during the call.
#[no_mangle]
pub unsafe extern "C" fn sa_array_set(array: *mut SaArray, index: usize, value: u64) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller (exclusive access during the call).
        let handle = unsafe { ptr::borrow_mut(array, "array") }?;
        let shared = Arc::strong_count(&handle.array) - 1;
        let array = Arc::get_mut(&mut handle.array).ok_or_else(|| {
            FfiError::new(
                SaStatus::Busy,
                format!("the array cannot be modified while {shared} Arrow export(s) share its memory; release them first"),
            )
        })?;
        Ok(array.set(index, value)?)
    })
}

/// Decodes values `start .. start + count` into `out[0..count]`.
/// `SA_STATUS_RANGE_OUT_OF_BOUNDS` if that range reaches past the end. `out` may be NULL when
/// `count` is 0.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be valid for writing `count` values.
#[no_mangle]
pub unsafe extern "C" fn sa_array_unpack(
    array: *const SaArray,
    start: usize,
    out: *mut u64,
    count: usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let array = unsafe { borrow(array) }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { ptr::slice_mut(out, count, "out") }?;
        Ok(array.unpack(start, out)?)
    })
}

/// Decodes values `start .. start + count` into `out[0..count]` exactly like `sa_array_unpack`,
/// then asks the CPU to start loading into its caches, without waiting, the packed memory of the
/// `count` values that begin `ahead` values after `start` (cut at the array's end). Made for a
/// caller that walks an array chunk by chunk and works on each decoded chunk before asking for the
/// next (a binding's cursor): with `ahead` a multiple of `count` (two chunks measured best), that
/// memory arrives while the caller works, and later calls decode from cache instead of waiting for
/// main memory. `ahead` is only a hint: any value decodes the same values; 0 prefetches nothing.
///
/// Errors as for `sa_array_unpack` (nothing is written or prefetched when the range is out of
/// bounds). `out` may be NULL when `count` is 0. Ownership: `out` stays the caller's; the library
/// keeps nothing after the call.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be valid for writing `count` values.
#[no_mangle]
pub unsafe extern "C" fn sa_array_unpack_ahead(
    array: *const SaArray,
    start: usize,
    out: *mut u64,
    count: usize,
    ahead: usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let array = unsafe { borrow(array) }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { ptr::slice_mut(out, count, "out") }?;
        Ok(array.local().unpack_ahead(start, out, ahead)?)
    })
}

/// Calls `visit(user_data, first_index, values, count)` for consecutive chunks (at most 1024
/// values each) covering indices `start .. end`, on the calling thread, in order. 64-bit arrays
/// are visited in place; other widths are decoded into a buffer first.
///
/// Returns `SA_STATUS_OK` after the last chunk, `SA_STATUS_STOPPED` when `visit` returned
/// nonzero (no more calls follow), or an error for a bad range or NULL `visit`.
///
/// # Safety
/// `array` must be NULL or a live handle; `visit` must be safe to call with `user_data`; it may
/// call other `const SaArray *` functions, but must not set or free this array.
#[no_mangle]
pub unsafe extern "C" fn sa_array_for_each_chunk(
    array: *const SaArray,
    start: usize,
    end: usize,
    visit: SaChunkVisitor,
    user_data: *mut c_void,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let array = unsafe { borrow(array) }?;
        let visit = visit.ok_or_else(|| FfiError::null("visit"))?;
        let view = array.local();
        if start > end || end > view.len() {
            return Err(smartarrays::Error::RangeOutOfBounds {
                start,
                end,
                len: view.len(),
            }
            .into());
        }
        let mut first = start;
        while first < end {
            let last = end.min(first + VISIT_CHUNK);
            let mut answer = 0;
            view.for_each_chunk(first..last, |index, values| {
                // SAFETY: the caller guarantees `visit` may be called with `user_data`; the values
                // are valid for the duration of the call.
                answer = unsafe { visit(user_data, index, values.as_ptr(), values.len()) };
            })?;
            if answer != 0 {
                return Err(FfiError::new(
                    SaStatus::Stopped,
                    format!("the chunk visitor stopped at the chunk starting at index {first}"),
                ));
            }
            first = last;
        }
        Ok(())
    })
}

/// Writes the wrapping (mod 2^64) sum of all values to `*out`, computed in parallel by the
/// array's workers (each reading the copy on its own node).
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_array_sum(array: *const SaArray, out: *mut u64) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_reduction(array, out, |array| Ok(array.par_sum())) }
}

/// Writes the wrapping sum of the values at `start .. end` to `*out`, computed on the calling
/// thread. `SA_STATUS_RANGE_OUT_OF_BOUNDS` for a reversed range or one past the end.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_array_sum_range(
    array: *const SaArray,
    start: usize,
    end: usize,
    out: *mut u64,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_reduction(array, out, |array| {
            Ok(array.local().sum_range(start..end)?)
        })
    }
}

/// Writes the smallest value to `*out` (in parallel); `SA_STATUS_EMPTY_ARRAY` when empty.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_array_min(array: *const SaArray, out: *mut u64) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_reduction(array, out, |array| array.par_min().ok_or_else(empty_array)) }
}

/// Writes the largest value to `*out` (in parallel); `SA_STATUS_EMPTY_ARRAY` when empty.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_array_max(array: *const SaArray, out: *mut u64) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_reduction(array, out, |array| array.par_max().ok_or_else(empty_array)) }
}

/// The body of the sums, `sa_array_min` and `sa_array_max`: checks `out`, then writes
/// `value(array)` to it.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
unsafe fn write_reduction(
    array: *const SaArray,
    out: *mut u64,
    value: impl FnOnce(&SmartArray) -> FfiResult<u64>,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let value = value(unsafe { borrow(array) }?)?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", value) }
    })
}

fn empty_array() -> FfiError {
    FfiError::new(
        SaStatus::EmptyArray,
        "the array is empty, so it has no smallest or largest value",
    )
}

/// The body of the placement reports: checks `out`, reads the array's placement report back
/// from the kernel and writes `text(report)` to `*out` as a string the caller frees.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
unsafe fn write_report(
    array: *const SaArray,
    out: *mut *mut c_char,
    text: impl FnOnce(PlacementReport) -> FfiResult<String>,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let report = unsafe { borrow(array) }?.placement_report()?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_string(out, "out", text(report)?) }
    })
}

/// Writes where the array's pages are, read back from the kernel, as JSON text to `*out`:
/// `{"placement": "...", "page_size": 4096, "simulated": false, "replicas": [{"intended_node":
/// 0, "policy": "bind", "policy_nodes": [0], "pages": N, "pages_by_node": {"0": N},
/// "pages_not_present": 0}]}` (one entry per replica). The caller frees `*out` with
/// `sa_string_free`.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_array_placement_report_json(
    array: *const SaArray,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_report(array, out, |report| {
            serde_json::to_string(&report)
                .map_err(|e| FfiError::new(SaStatus::Other, e.to_string()))
        })
    }
}

/// Writes the placement report as human-readable lines to `*out` (free with `sa_string_free`).
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_array_placement_report_text(
    array: *const SaArray,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_report(array, out, |report| Ok(report.to_string())) }
}

/// For an uncompressed (64-bit) array, writes a pointer to its values (`len` of them, in the copy
/// local to the calling thread's node) to `*out`; other widths fail with
/// `SA_STATUS_NOT_UNCOMPRESSED`.
///
/// Ownership: the memory belongs to the array. The pointer is valid until the array is freed;
/// values read through it change when `sa_array_set` writes (do not read while another thread
/// sets). Never write through it. For an empty array the pointer is valid but must not be read.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_array_raw_values(
    array: *const SaArray,
    out: *mut *const u64,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let array = unsafe { borrow(array) }?;
        if array.bits() != 64 {
            return Err(FfiError::new(
                SaStatus::NotUncompressed,
                format!("the array stores {} bits per value; only 64-bit arrays expose their values in place", array.bits()),
            ));
        }
        let values = array.local().as_native::<u64>().unwrap_or(&[]); // 64 bits: always Some
                                                                      // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", values.as_ptr()) }
    })
}
