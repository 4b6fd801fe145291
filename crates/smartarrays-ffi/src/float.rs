//! The `SaF64Array` handle: uncompressed `double` arrays with every placement (values stored as
//! their IEEE-754 bits), with create/free, get/set, unpack, parallel sum and the in-place view.

use std::ffi::c_char;
use std::sync::Arc;

use smartarrays::F64Array;

use crate::array::options;
use crate::ptr;
use crate::status::{guard, FfiError, FfiResult, SaStatus};

/// An array of `double` values with a NUMA placement (never compressed). Opaque: create it with
/// `sa_f64_array_new` or `sa_f64_array_from_f64`, free it with `sa_f64_array_free`.
///
/// Thread safety: as for `SaArray`: `const` calls may run concurrently; `sa_f64_array_set` and
/// `sa_f64_array_free` need exclusive use of the array.
pub struct SaF64Array {
    pub(crate) array: Arc<F64Array>,
}

/// # Safety
/// `array` must be NULL or a live handle from this library.
unsafe fn borrow<'a>(array: *const SaF64Array) -> FfiResult<&'a F64Array> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(array, "array") }.map(|handle| &*handle.array)
}

/// # Safety
/// `out` must be valid for writing a pointer.
pub(crate) unsafe fn hand_out(out: *mut *mut SaF64Array, array: F64Array) -> FfiResult {
    let handle = Box::into_raw(Box::new(SaF64Array {
        array: Arc::new(array),
    }));
    // SAFETY: forwarded from the caller; `out` was checked for NULL before the array was built.
    unsafe { ptr::write(out, "out", handle) }
}

/// Creates an array of `len` zeros (0.0) with a placement (as for `sa_array_new`; NULL = "os").
/// The caller owns `*out` and frees it with `sa_f64_array_free`. Thread-safe.
///
/// # Safety
/// `placement` must be NULL or NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_f64_array_new(
    len: usize,
    placement: *const c_char,
    out: *mut *mut SaF64Array,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let array = F64Array::from_fn(len, &options(placement, 64)?, |_| 0.0)?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, array) }
    })
}

/// Creates an array holding a copy of `values[0..len]` (NULL allowed when `len` is 0).
/// The caller owns `*out` and frees it with `sa_f64_array_free`. Thread-safe.
///
/// # Safety
/// `values` must point to `len` readable values; `placement` must be NULL or NUL-terminated
/// text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_f64_array_from_f64(
    values: *const f64,
    len: usize,
    placement: *const c_char,
    out: *mut *mut SaF64Array,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let values = unsafe { ptr::slice(values, len, "values") }?;
        let array = F64Array::from_slice(values, &options(placement, 64)?)?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, array) }
    })
}

/// Frees an array; NULL is ignored.
///
/// # Safety
/// `array` must be NULL or a live handle not freed before and not in use by another call.
#[no_mangle]
pub unsafe extern "C" fn sa_f64_array_free(array: *mut SaF64Array) {
    if array.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller passes a pointer from Box::into_raw in this library, exactly once.
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
pub unsafe extern "C" fn sa_f64_array_len(array: *const SaF64Array, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(array)?.len()) })
}

/// Writes value `index` to `*out`; `SA_STATUS_INDEX_OUT_OF_RANGE` past the end.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_f64_array_get(
    array: *const SaF64Array,
    index: usize,
    out: *mut f64,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(array)?.get(index)?) })
}

/// Sets value `index` in every copy; `SA_STATUS_BUSY` while an Arrow export shares the memory.
///
/// # Safety
/// `array` must be NULL or a live handle not used by another thread during the call.
#[no_mangle]
pub unsafe extern "C" fn sa_f64_array_set(
    array: *mut SaF64Array,
    index: usize,
    value: f64,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller (exclusive access during the call).
        let handle = unsafe { ptr::borrow_mut(array, "array") }?;
        let array = Arc::get_mut(&mut handle.array).ok_or_else(|| {
            FfiError::new(SaStatus::Busy, "the array cannot be modified while Arrow exports share its memory; release them first")
        })?;
        Ok(array.set(index, value)?)
    })
}

/// Copies values `start .. start + count` into `out[0..count]`.
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be valid for writing `count` values.
#[no_mangle]
pub unsafe extern "C" fn sa_f64_array_unpack(
    array: *const SaF64Array,
    start: usize,
    out: *mut f64,
    count: usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let array = unsafe { borrow(array) }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { ptr::slice_mut(out, count, "out") }?;
        let end = start.checked_add(count).filter(|&end| end <= array.len());
        let Some(end) = end else {
            return Err(smartarrays::Error::RangeOutOfBounds {
                start,
                end: start.saturating_add(count),
                len: array.len(),
            }
            .into());
        };
        out.copy_from_slice(&array.as_slice()[start..end]);
        Ok(())
    })
}

/// Writes the sum of all values to `*out`, computed in parallel (the order of additions depends
/// on scheduling, so the last bits may differ between calls).
///
/// Thread safety: may run at the same time as other calls that take a `const` handle.
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_f64_array_sum(array: *const SaF64Array, out: *mut f64) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let sum = unsafe { borrow(array) }?.par_sum();
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", sum) }
    })
}

/// Writes a pointer to the values (the copy local to the calling thread's node) to `*out`.
/// Valid until the array is freed; never write through it (see `sa_array_raw_values`).
///
/// # Safety
/// `array` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_f64_array_raw_values(
    array: *const SaF64Array,
    out: *mut *const f64,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(array)?.as_slice().as_ptr()) })
}
