//! The read-only succinct collections of `smartarrays-collections` in the C ABI: `SaFrozenMap`
//! (int64 keys to int64 values) and `SaFrozenSet` (int64 keys), built once from caller arrays
//! (or frozen from an `SaMap` / `SaSet`), with single and batched lookups, reports and export.
//!
//! A frozen collection never changes after it is built, so every function but `_free` takes a
//! `const` handle and may run at the same time as any other on the same handle, from any number
//! of threads. Masks are one byte per key (1 = found / present), as for `SaMap`.

use std::ffi::c_char;

use smartarrays_collections::{Error as CollectionError, FrozenMap, Key};

use crate::collections::{SaMap, SaSet};
use crate::lookup::{lookup_contains_many, lookup_export, ReadHandle};
use crate::ptr;
use crate::status::{guard, FfiError, FfiResult, SaStatus};

/// A read-only hash map from `int64_t` keys to `int64_t` values in placed memory, in a static
/// succinct layout (about half the bytes of an `SaMap`). Opaque: build it with
/// `sa_frozen_map_new` or `sa_map_freeze`, free it with `sa_frozen_map_free`.
///
/// Thread safety: it never changes once built; every function taking a `const SaFrozenMap *`
/// may run at the same time as any other on the same map, from any number of threads. Only
/// `sa_frozen_map_free` needs exclusive use.
pub struct SaFrozenMap {
    pub(crate) map: FrozenMap<i64, i64>,
}

/// A read-only set of `int64_t` keys in the frozen layout. Opaque: `sa_frozen_set_new` or
/// `sa_set_freeze`, `sa_frozen_set_free`. Thread safety as for `SaFrozenMap`.
pub struct SaFrozenSet {
    pub(crate) set: FrozenMap<i64, ()>,
}

/// What the two handles share: a frozen map underneath (a set's values are `()`), which also
/// answers their batched membership tests and exports ([`ReadHandle`], shared with the
/// growable handles).
trait Frozen: ReadHandle {
    /// Wraps a built map.
    fn wrap(map: FrozenMap<i64, Self::Value>) -> Self;
    /// The map underneath.
    fn map(&self) -> &FrozenMap<i64, Self::Value>;
}

impl ReadHandle for SaFrozenMap {
    type Value = i64;
    type Table = FrozenMap<i64, i64>;
    const NAME: &'static str = "frozen map";
    fn table(&self) -> &FrozenMap<i64, i64> {
        &self.map
    }
}

impl Frozen for SaFrozenMap {
    fn wrap(map: FrozenMap<i64, i64>) -> Self {
        SaFrozenMap { map }
    }
    fn map(&self) -> &FrozenMap<i64, i64> {
        &self.map
    }
}

impl ReadHandle for SaFrozenSet {
    type Value = ();
    type Table = FrozenMap<i64, ()>;
    const NAME: &'static str = "frozen set";
    fn table(&self) -> &FrozenMap<i64, ()> {
        &self.set
    }
}

impl Frozen for SaFrozenSet {
    fn wrap(set: FrozenMap<i64, ()>) -> Self {
        SaFrozenSet { set }
    }
    fn map(&self) -> &FrozenMap<i64, ()> {
        &self.set
    }
}

/// A build failure as a status: a key given twice is `SA_STATUS_INVALID_ARGUMENT` naming the
/// key (the collections crate names its code); the rest as every collection error.
fn build_error(error: CollectionError) -> FfiError {
    match error {
        CollectionError::DuplicateKey { key } => FfiError::new(
            SaStatus::InvalidArgument,
            format!(
                "key {} is given more than once (a frozen collection takes each key once)",
                <i64 as Key>::from_code(key)
            ),
        ),
        other => FfiError::from(other),
    }
}

/// Hands a built collection out through `out`.
///
/// # Safety
/// `out` must be valid for writing a pointer.
unsafe fn hand_out<H: Frozen>(
    out: *mut *mut H,
    built: smartarrays_collections::Result<FrozenMap<i64, H::Value>>,
) -> FfiResult {
    let handle = H::wrap(built.map_err(build_error)?);
    // SAFETY: forwarded from the caller.
    unsafe { ptr::write(out, "out", Box::into_raw(Box::new(handle))) }
}

/// Frees a frozen collection; NULL is ignored, and a panic in a destructor stays on this side.
///
/// # Safety
/// `handle` must be NULL or a live handle from this module, not freed before; no other call on
/// it may be running.
unsafe fn frozen_free<H: Frozen>(handle: *mut H) {
    if handle.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller passes a pointer from `hand_out`, exactly once.
        drop(unsafe { Box::from_raw(handle) });
    }));
}

/// The frozen map underneath a live handle.
///
/// # Safety
/// `handle` must be NULL or a live handle.
unsafe fn frozen_ref<'a, H: Frozen + 'a>(
    handle: *const H,
) -> FfiResult<&'a FrozenMap<i64, H::Value>> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(handle, H::NAME) }.map(H::map)
}

/// Writes `text(map)` to `*out` as a string the caller frees.
///
/// # Safety
/// `handle` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
unsafe fn write_text<H: Frozen>(
    handle: *const H,
    out: *mut *mut c_char,
    text: impl FnOnce(&FrozenMap<i64, H::Value>) -> String,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let text = text(unsafe { frozen_ref(handle) }?);
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_string(out, "out", text) }
    })
}

// ---------------------------------------------------------------------------------------------
// SaFrozenMap

/// Builds a frozen map from `keys[i] -> values[i]` for `i` in `0..len`. `placement` is NULL
/// (= "os") or one of "os", "node:N", "interleaved", "interleaved:N,M,...", "replicated", as
/// for `sa_map_new`. A key given twice is `SA_STATUS_INVALID_ARGUMENT` (the message names it);
/// `keys` and `values` may be NULL when `len` is 0.
///
/// Ownership: on success `*out` is a new frozen map the caller owns (free with
/// `sa_frozen_map_free`); on failure `*out` is not written. Thread-safe.
///
/// # Safety
/// `keys` and `values` must point to `len` readable values; `placement` must be NULL or
/// NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_new(
    keys: *const i64,
    values: *const i64,
    len: usize,
    placement: *const c_char,
    out: *mut *mut SaFrozenMap,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice(keys, len, "keys") }?;
        // SAFETY: forwarded from the caller.
        let values = unsafe { ptr::slice(values, len, "values") }?;
        let options = crate::array::checked_options(placement)?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, FrozenMap::from_pairs_with(keys, values, &options)) }
    })
}

/// Freezes a map: a frozen map with the same entries, placed like `map` (which is unchanged).
/// Ownership as for `sa_frozen_map_new`.
///
/// # Safety
/// `map` must be NULL or a live `SaMap` not written by another call during this one; `out` must
/// be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_map_freeze(map: *const SaMap, out: *mut *mut SaFrozenMap) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let map = unsafe { ptr::borrow(map, "map") }?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, FrozenMap::from_map(&map.map)) }
    })
}

/// Frees a frozen map. NULL is ignored.
///
/// # Safety
/// `map` must be NULL or a live handle not freed before; no other call on it may be running, and
/// the handle is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_free(map: *mut SaFrozenMap) {
    // SAFETY: forwarded from the caller.
    unsafe { frozen_free(map) }
}

/// Writes the number of keys to `*out`. May run concurrently with any other lookup.
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_len(map: *const SaFrozenMap, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", frozen_ref(map)?.len()) })
}

/// Looks up `key`: writes to `*found` whether it is present and to `*value` its value (0 when
/// absent). May run concurrently with any other lookup.
///
/// # Safety
/// `map` must be NULL or a live handle; `value` and `found` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_get(
    map: *const SaFrozenMap,
    key: i64,
    value: *mut i64,
    found: *mut bool,
) -> SaStatus {
    guard(|| {
        ptr::check_out(value, "value")?;
        ptr::check_out(found, "found")?;
        // SAFETY: forwarded from the caller.
        let got = unsafe { frozen_ref(map) }?.get(key);
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(value, "value", got.unwrap_or(0)) }?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(found, "found", got.is_some()) }
    })
}

/// Writes whether `key` is present to `*out`. May run concurrently with any other lookup.
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_contains(
    map: *const SaFrozenMap,
    key: i64,
    out: *mut bool,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", frozen_ref(map)?.contains_key(key)) })
}

/// Looks up a batch: `values[i]` gets the value of `keys[i]`, or `missing` when absent, and
/// `found[i]` (one byte per key; `found` may be NULL) 1 or 0. Writes the number of keys found to
/// `*hits` (may be NULL). Prefetches later keys' buckets while reading earlier ones. May run
/// concurrently with any other lookup.
///
/// # Safety
/// `map` must be NULL or a live handle; `keys` must point to `count` readable values, `values` be
/// valid for writing `count` values, `found` NULL or valid for writing `count` bytes, `hits` NULL
/// or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_get_many(
    map: *const SaFrozenMap,
    keys: *const i64,
    count: usize,
    values: *mut i64,
    found: *mut u8,
    missing: i64,
    hits: *mut usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let map = unsafe { frozen_ref(map) }?;
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice(keys, count, "keys") }?;
        // SAFETY: forwarded from the caller.
        let values = unsafe { ptr::slice_mut(values, count, "values") }?;
        let mut found = if found.is_null() {
            None
        } else {
            // SAFETY: forwarded from the caller.
            Some(unsafe { ptr::slice_mut(found, count, "found") }?)
        };
        let mut got = vec![None; count];
        let hit_count = map.get_many(keys, &mut got)?;
        for (i, value) in got.into_iter().enumerate() {
            values[i] = value.unwrap_or(missing);
            if let Some(found) = found.as_deref_mut() {
                found[i] = u8::from(value.is_some());
            }
        }
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_optional(hits, hit_count) };
        Ok(())
    })
}

/// Membership of a batch: `out[i]` (one byte per key) is 1 when `keys[i]` is present, else 0.
/// Writes the number present to `*hits` (may be NULL). May run concurrently with any other
/// lookup.
///
/// # Safety
/// `map` must be NULL or a live handle; `keys` must point to `count` readable values, `out` be
/// valid for writing `count` bytes, `hits` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_contains_many(
    map: *const SaFrozenMap,
    keys: *const i64,
    count: usize,
    out: *mut u8,
    hits: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { lookup_contains_many(map, keys, count, out, hits) }
}

/// Writes the bytes of memory the frozen map occupies (every replica, whole pages).
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_memory_bytes(
    map: *const SaFrozenMap,
    out: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", frozen_ref(map)?.memory_bytes()) })
}

/// Writes where the frozen map's bytes go (entries, buckets, widths, index and records, bits per
/// entry) as text to `*out`; free it with `sa_string_free`.
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_memory_report_text(
    map: *const SaFrozenMap,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(map, out, |map| map.memory_report().to_string()) }
}

/// Writes the frozen map's placement as text ("os", "node:0", "replicated", ...) to `*out`;
/// free it with `sa_string_free`.
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_placement(
    map: *const SaFrozenMap,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(map, out, |map| map.placement().to_string()) }
}

/// Writes every (key, value), in no particular order, to `keys[0..n]` and `values[0..n]`, and
/// `n` (the length) to `*written`. `SA_STATUS_BUFFER_TOO_SMALL` (nothing written) when
/// `capacity` is less than the length (`sa_frozen_map_len`).
///
/// # Safety
/// `map` must be NULL or a live handle; `keys` and `values` must be valid for writing `capacity`
/// values (NULL when 0); `written` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_map_export(
    map: *const SaFrozenMap,
    keys: *mut i64,
    values: *mut i64,
    capacity: usize,
    written: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { lookup_export(map, keys, Some(values), capacity, written) }
}

// ---------------------------------------------------------------------------------------------
// SaFrozenSet

/// Builds a frozen set from `keys[0..len]`; `placement` as for `sa_frozen_map_new`. A key given
/// twice is `SA_STATUS_INVALID_ARGUMENT` (the message names it); `keys` may be NULL when `len`
/// is 0. The caller owns `*out` (free with `sa_frozen_set_free`). Thread-safe.
///
/// # Safety
/// `keys` must point to `len` readable values; `placement` must be NULL or NUL-terminated text;
/// `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_set_new(
    keys: *const i64,
    len: usize,
    placement: *const c_char,
    out: *mut *mut SaFrozenSet,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice(keys, len, "keys") }?;
        let options = crate::array::checked_options(placement)?;
        let units = vec![(); keys.len()];
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, FrozenMap::from_pairs_with(keys, &units, &options)) }
    })
}

/// Freezes a set: a frozen set with the same keys, placed like `set` (which is unchanged).
/// Ownership as for `sa_frozen_set_new`.
///
/// # Safety
/// `set` must be NULL or a live `SaSet` not written by another call during this one; `out` must
/// be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_set_freeze(set: *const SaSet, out: *mut *mut SaFrozenSet) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let set = unsafe { ptr::borrow(set, "set") }?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, FrozenMap::from_map(set.set.as_map())) }
    })
}

/// Frees a frozen set. NULL is ignored.
///
/// # Safety
/// `set` must be NULL or a live handle not freed before; no other call on it may be running, and
/// the handle is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_set_free(set: *mut SaFrozenSet) {
    // SAFETY: forwarded from the caller.
    unsafe { frozen_free(set) }
}

/// Writes the number of keys to `*out`. May run concurrently with any other lookup.
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_set_len(set: *const SaFrozenSet, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", frozen_ref(set)?.len()) })
}

/// Writes whether `key` is present to `*out`. May run concurrently with any other lookup.
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_set_contains(
    set: *const SaFrozenSet,
    key: i64,
    out: *mut bool,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", frozen_ref(set)?.contains_key(key)) })
}

/// Membership of a batch, as `sa_frozen_map_contains_many`. May run concurrently with any other
/// lookup.
///
/// # Safety
/// `set` must be NULL or a live handle; `keys` must point to `count` readable values, `out` be
/// valid for writing `count` bytes, `hits` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_set_contains_many(
    set: *const SaFrozenSet,
    keys: *const i64,
    count: usize,
    out: *mut u8,
    hits: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { lookup_contains_many(set, keys, count, out, hits) }
}

/// Writes the bytes of memory the frozen set occupies (every replica, whole pages).
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_set_memory_bytes(
    set: *const SaFrozenSet,
    out: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", frozen_ref(set)?.memory_bytes()) })
}

/// Writes where the frozen set's bytes go as text to `*out`; free it with `sa_string_free`.
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_set_memory_report_text(
    set: *const SaFrozenSet,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(set, out, |map| map.memory_report().to_string()) }
}

/// Writes the frozen set's placement as text to `*out`; free it with `sa_string_free`.
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_set_placement(
    set: *const SaFrozenSet,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(set, out, |map| map.placement().to_string()) }
}

/// Writes every key, in no particular order, to `keys[0..n]` and `n` to `*written`;
/// `SA_STATUS_BUFFER_TOO_SMALL` (nothing written) when `capacity` is less than
/// `sa_frozen_set_len`.
///
/// # Safety
/// `set` must be NULL or a live handle; `keys` must be valid for writing `capacity` values (NULL
/// when 0); `written` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_frozen_set_export(
    set: *const SaFrozenSet,
    keys: *mut i64,
    capacity: usize,
    written: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { lookup_export(set, keys, None, capacity, written) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::ffi::CStr;

    fn last_error() -> String {
        // SAFETY: the library's own message, valid until the next call on this thread.
        unsafe { CStr::from_ptr(crate::system::sa_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    fn build(keys: &[i64], values: &[i64]) -> *mut SaFrozenMap {
        let mut map = std::ptr::null_mut();
        // SAFETY: slices of equal length, a live out pointer.
        let status = unsafe {
            sa_frozen_map_new(
                keys.as_ptr(),
                values.as_ptr(),
                keys.len(),
                std::ptr::null(),
                &mut map,
            )
        };
        assert_eq!(status, SaStatus::Ok, "{}", last_error());
        map
    }

    #[test]
    fn frozen_map_answers_like_a_hash_map_at_edge_sizes() {
        for n in [0usize, 1, 63, 64, 65, 1023, 1025] {
            let keys: Vec<i64> = (0..n as i64)
                .map(|i| {
                    if i == 0 {
                        i64::MIN
                    } else if i == 1 {
                        i64::MAX
                    } else {
                        i * 7919 - 5000
                    }
                })
                .collect();
            let values: Vec<i64> = keys.iter().map(|k| k.wrapping_mul(-3)).collect();
            let reference: HashMap<i64, i64> =
                keys.iter().copied().zip(values.iter().copied()).collect();
            let map = build(&keys, &values);
            let mut len = 0;
            // SAFETY: a live handle and out pointer.
            assert_eq!(unsafe { sa_frozen_map_len(map, &mut len) }, SaStatus::Ok);
            assert_eq!(len, n);
            let probes: Vec<i64> = keys.iter().flat_map(|&k| [k, k.wrapping_add(1)]).collect();
            let mut got = vec![0; probes.len()];
            let mut found = vec![0u8; probes.len()];
            let mut hits = 0;
            // SAFETY: buffers of `probes.len()` entries.
            let status = unsafe {
                sa_frozen_map_get_many(
                    map,
                    probes.as_ptr(),
                    probes.len(),
                    got.as_mut_ptr(),
                    found.as_mut_ptr(),
                    -1,
                    &mut hits,
                )
            };
            assert_eq!(status, SaStatus::Ok);
            let mut expected_hits = 0;
            for (i, key) in probes.iter().enumerate() {
                let expected = reference.get(key).copied();
                expected_hits += usize::from(expected.is_some());
                assert_eq!(got[i], expected.unwrap_or(-1), "n {n} key {key}");
                assert_eq!(found[i], u8::from(expected.is_some()));
                let (mut value, mut present) = (7, false);
                // SAFETY: live out pointers.
                let status = unsafe { sa_frozen_map_get(map, *key, &mut value, &mut present) };
                assert_eq!(status, SaStatus::Ok);
                assert_eq!(
                    (value, present),
                    (expected.unwrap_or(0), expected.is_some())
                );
            }
            assert_eq!(hits, expected_hits);
            let mut out_keys = vec![0; n];
            let mut out_values = vec![0; n];
            let mut written = 0;
            // SAFETY: buffers of `n` entries.
            let status = unsafe {
                sa_frozen_map_export(
                    map,
                    out_keys.as_mut_ptr(),
                    out_values.as_mut_ptr(),
                    n,
                    &mut written,
                )
            };
            assert_eq!(status, SaStatus::Ok);
            assert_eq!(written, n);
            let exported: HashMap<i64, i64> = out_keys.into_iter().zip(out_values).collect();
            assert_eq!(exported, reference);
            if n > 0 {
                // SAFETY: a capacity below the length writes nothing.
                let status = unsafe {
                    sa_frozen_map_export(
                        map,
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        n - 1,
                        &mut written,
                    )
                };
                assert_eq!(status, SaStatus::BufferTooSmall);
            }
            // SAFETY: freed once.
            unsafe { sa_frozen_map_free(map) };
        }
    }

    #[test]
    fn duplicate_keys_and_bad_arguments_are_statuses() {
        let mut map = std::ptr::null_mut();
        // SAFETY: slices of three entries.
        let status = unsafe {
            sa_frozen_map_new(
                [5i64, -9, 5].as_ptr(),
                [1i64, 2, 3].as_ptr(),
                3,
                std::ptr::null(),
                &mut map,
            )
        };
        assert_eq!(status, SaStatus::InvalidArgument);
        assert!(last_error().contains("key 5 "), "{}", last_error());
        assert!(map.is_null());
        let mut set = std::ptr::null_mut();
        // SAFETY: a slice of two entries.
        let status = unsafe {
            sa_frozen_set_new([i64::MIN, i64::MIN].as_ptr(), 2, std::ptr::null(), &mut set)
        };
        assert_eq!(status, SaStatus::InvalidArgument);
        assert!(
            last_error().contains(&i64::MIN.to_string()),
            "{}",
            last_error()
        );
        // SAFETY: NULL keys with a nonzero length are refused before reading.
        let status = unsafe { sa_frozen_set_new(std::ptr::null(), 2, std::ptr::null(), &mut set) };
        assert_eq!(status, SaStatus::NullPointer);
        // SAFETY: an unknown placement is refused.
        let status =
            unsafe { sa_frozen_set_new(std::ptr::null(), 0, c"nowhere".as_ptr(), &mut set) };
        assert_ne!(status, SaStatus::Ok);
        let mut len = 0;
        // SAFETY: a NULL handle is refused.
        let status = unsafe { sa_frozen_set_len(std::ptr::null(), &mut len) };
        assert_eq!(status, SaStatus::NullPointer);
    }

    #[test]
    fn freezing_a_set_keeps_its_keys() {
        let mut set = std::ptr::null_mut();
        // SAFETY: a live out pointer.
        let status = unsafe { crate::collections::sa_set_new(std::ptr::null(), &mut set) };
        assert_eq!(status, SaStatus::Ok);
        let keys: Vec<i64> = (-500..500).map(|i| i * 3).collect();
        // SAFETY: a live set and a slice.
        let status =
            unsafe { crate::collections::sa_set_insert_many(set, keys.as_ptr(), keys.len()) };
        assert_eq!(status, SaStatus::Ok);
        let mut frozen = std::ptr::null_mut();
        // SAFETY: a live set and out pointer.
        assert_eq!(unsafe { sa_set_freeze(set, &mut frozen) }, SaStatus::Ok);
        let probes: Vec<i64> = (-1600..1600).collect();
        let mut mask = vec![0u8; probes.len()];
        let mut hits = 0;
        // SAFETY: buffers of `probes.len()` entries.
        let status = unsafe {
            sa_frozen_set_contains_many(
                frozen,
                probes.as_ptr(),
                probes.len(),
                mask.as_mut_ptr(),
                &mut hits,
            )
        };
        assert_eq!(status, SaStatus::Ok);
        assert_eq!(hits, keys.len());
        for (key, bit) in probes.iter().zip(&mask) {
            assert_eq!(
                *bit,
                u8::from(key % 3 == 0 && (-1500..1500).contains(key)),
                "key {key}"
            );
        }
        // SAFETY: each freed once.
        unsafe {
            sa_frozen_set_free(frozen);
            crate::collections::sa_set_free(set);
        }
    }
}
