//! Checked conversions from the raw pointers C passes in: NULL checks with the argument's name,
//! slices that accept NULL for zero length, UTF-8 text, output slots, and strings handed to C.
//! All the unsafe pointer handling of the argument side of the ABI lives here.

use std::ffi::{c_char, CStr, CString};

use crate::status::{FfiError, FfiResult, SaStatus};

/// Borrows `*pointer`, or fails with `SA_STATUS_NULL_POINTER` naming the argument.
///
/// # Safety
/// `pointer` must be NULL or point to a live, properly aligned `T` that is not mutated for `'a`.
pub unsafe fn borrow<'a, T>(pointer: *const T, name: &str) -> FfiResult<&'a T> {
    // SAFETY: the caller guarantees the pointer is NULL or valid for reads during 'a.
    unsafe { pointer.as_ref() }.ok_or_else(|| FfiError::null(name))
}

/// Mutably borrows `*pointer`, or fails with `SA_STATUS_NULL_POINTER` naming the argument.
///
/// # Safety
/// `pointer` must be NULL or point to a live, properly aligned `T` that nothing else accesses
/// during `'a`.
pub unsafe fn borrow_mut<'a, T>(pointer: *mut T, name: &str) -> FfiResult<&'a mut T> {
    // SAFETY: the caller guarantees exclusive, valid access during 'a (or NULL).
    unsafe { pointer.as_mut() }.ok_or_else(|| FfiError::null(name))
}

/// Checks that an output pointer is not NULL (before any work is done).
pub fn check_out<T>(pointer: *mut T, name: &str) -> FfiResult<()> {
    if pointer.is_null() {
        return Err(FfiError::null(name));
    }
    Ok(())
}

/// Writes `value` to the output slot `pointer` (which may be uninitialised).
///
/// # Safety
/// `pointer` must be NULL or valid for writing one properly aligned `T`.
pub unsafe fn write<T>(pointer: *mut T, name: &str, value: T) -> FfiResult<()> {
    check_out(pointer, name)?;
    // SAFETY: not NULL (checked above); the caller guarantees it is valid for writes.
    unsafe { pointer.write(value) };
    Ok(())
}

/// `len` values starting at `pointer`; NULL is accepted when `len` is 0.
///
/// # Safety
/// Unless `len` is 0, `pointer` must be NULL or point to `len` initialised, aligned values that
/// are not mutated during `'a`.
pub unsafe fn slice<'a, T>(pointer: *const T, len: usize, name: &str) -> FfiResult<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if pointer.is_null() {
        return Err(FfiError::null(name));
    }
    check_byte_length::<T>(len, name)?;
    // SAFETY: not NULL, and the caller guarantees `len` readable values; the byte length fits isize.
    Ok(unsafe { std::slice::from_raw_parts(pointer, len) })
}

/// `len` writable values starting at `pointer`; NULL is accepted when `len` is 0.
///
/// # Safety
/// Unless `len` is 0, `pointer` must be NULL or point to `len` aligned values (initialised or
/// not: only plain integers and floats are used here) that nothing else accesses during `'a`.
pub unsafe fn slice_mut<'a, T>(pointer: *mut T, len: usize, name: &str) -> FfiResult<&'a mut [T]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if pointer.is_null() {
        return Err(FfiError::null(name));
    }
    check_byte_length::<T>(len, name)?;
    // SAFETY: not NULL, and the caller guarantees `len` writable values used by nobody else; the
    // byte length fits isize.
    Ok(unsafe { std::slice::from_raw_parts_mut(pointer, len) })
}

fn check_byte_length<T>(len: usize, name: &str) -> FfiResult<()> {
    if len
        .checked_mul(size_of::<T>())
        .is_none_or(|bytes| bytes > isize::MAX as usize)
    {
        return Err(FfiError::new(
            SaStatus::InvalidArgument,
            format!("argument `{name}`: {len} values cannot exist in memory"),
        ));
    }
    Ok(())
}

/// The UTF-8 text at `pointer`, or `None` for NULL.
///
/// # Safety
/// `pointer` must be NULL or point to a NUL-terminated string that stays valid during `'a`.
pub unsafe fn text<'a>(pointer: *const c_char, name: &str) -> FfiResult<Option<&'a str>> {
    if pointer.is_null() {
        return Ok(None);
    }
    // SAFETY: not NULL; the caller guarantees a NUL-terminated string.
    let bytes = unsafe { CStr::from_ptr(pointer) };
    bytes.to_str().map(Some).map_err(|e| {
        FfiError::new(
            SaStatus::InvalidArgument,
            format!("argument `{name}` is not UTF-8 text: {e}"),
        )
    })
}

/// Hands `value` to C as a newly allocated NUL-terminated string (freed by `sa_string_free`).
///
/// # Safety
/// `out` must be NULL or valid for writing one pointer.
pub unsafe fn write_string(out: *mut *mut c_char, name: &str, value: String) -> FfiResult<()> {
    check_out(out, name)?;
    let text = CString::new(value)
        .map_err(|e| FfiError::new(SaStatus::Other, format!("text contains a NUL byte: {e}")))?;
    // SAFETY: forwarded from the caller; `out` is not NULL, so the string is never leaked.
    unsafe { write(out, name, text.into_raw()) }
}

/// Writes `value` to the output slot `pointer` when it is not NULL (an optional result).
///
/// # Safety
/// `pointer` must be NULL or valid for writing one properly aligned `T`.
pub unsafe fn write_optional<T>(pointer: *mut T, value: T) {
    if !pointer.is_null() {
        // SAFETY: not NULL; the caller guarantees it is valid for writes.
        unsafe { pointer.write(value) };
    }
}
