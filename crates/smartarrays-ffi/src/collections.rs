//! The smart collections of `smartarrays-collections` in the C ABI: `SaMap` (int64 keys to int64
//! values), `SaSet` (int64 keys) and `SaBag` (int64 keys with uint64 counts), in placed memory
//! (every placement, replicated included), with single and batched operations over caller
//! arrays, reports, and export of every entry into caller buffers.
//!
//! Masks are one byte per key (1 = found / present). Batches stop at the first failure (out of
//! memory, an overflow) and say in the message how many of their entries were applied.

use std::ffi::c_char;

use smartarrays::{ArrayOptions, PlacementReport};
use smartarrays_collections::{Bag, Map, Set};

use crate::lookup::{lookup_contains_many, lookup_export, ReadHandle};
use crate::ptr;
use crate::status::{guard, FfiError, FfiResult, SaStatus};

/// A hash map from `int64_t` keys to `int64_t` values in placed memory (a bucket probe reads one
/// cache line; widths follow the data). Opaque: create it with `sa_map_new`, free it with
/// `sa_map_free`.
///
/// Thread safety: functions taking a `const SaMap *` (get, contains, the batched lookups, len,
/// reports, export) may run at the same time as each other on the same map, from any number of
/// threads; functions taking a `SaMap *` (insert, upsert, remove, their batches, free) need
/// exclusive use of the map.
pub struct SaMap {
    pub(crate) map: Map<i64, i64>,
}

/// A set of `int64_t` keys in placed memory. Opaque: `sa_set_new`, `sa_set_free`. Thread safety
/// as for `SaMap`.
pub struct SaSet {
    pub(crate) set: Set<i64>,
}

/// A multiset of `int64_t` keys: a `uint64_t` count per key (counts never wrap: passing
/// `UINT64_MAX` is `SA_STATUS_OVERFLOW`). Opaque: `sa_bag_new`, `sa_bag_free`. Thread safety as
/// for `SaMap`.
pub struct SaBag {
    pub(crate) bag: Bag<i64>,
}

/// How `sa_map_upsert` and `sa_map_upsert_many` combine a key's value with a new one. Passed as
/// an `int32_t`; other values are `SA_STATUS_INVALID_ARGUMENT`.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaCombine {
    /// `old + new`; a sum outside `int64_t` is `SA_STATUS_OVERFLOW` (the key keeps `old`).
    Sum = 0,
    /// The smaller of the two.
    Min = 1,
    /// The larger of the two.
    Max = 2,
    /// `new` (as insert).
    Replace = 3,
}

impl SaCombine {
    /// The operation numbered `op`, or `SA_STATUS_INVALID_ARGUMENT`.
    pub fn from_i32(op: i32) -> FfiResult<SaCombine> {
        Ok(match op {
            0 => SaCombine::Sum,
            1 => SaCombine::Min,
            2 => SaCombine::Max,
            3 => SaCombine::Replace,
            _ => {
                return Err(FfiError::new(
                    SaStatus::InvalidArgument,
                    format!("unknown combine operation {op} (expected SA_COMBINE_SUM 0, SA_COMBINE_MIN 1, SA_COMBINE_MAX 2 or SA_COMBINE_REPLACE 3)"),
                ))
            }
        })
    }

    fn apply(self, old: i64, new: i64) -> Option<i64> {
        match self {
            SaCombine::Sum => old.checked_add(new),
            SaCombine::Min => Some(old.min(new)),
            SaCombine::Max => Some(old.max(new)),
            SaCombine::Replace => Some(new),
        }
    }
}

/// Collection options from the C placement text (NULL: "os") with the ABI's runtime. The nodes
/// the placement names are checked now (an empty collection maps no memory yet, and a node that
/// does not exist must fail here, not at the first insert).
fn collection_options(placement: *const c_char) -> FfiResult<ArrayOptions> {
    crate::array::checked_options(placement)
}

/// Upserts `key` with `combine`; an int64 overflow of a sum leaves the key as it was.
fn upsert_one(map: &mut Map<i64, i64>, key: i64, value: i64, op: SaCombine) -> FfiResult<i64> {
    let mut overflow = None;
    let result = map.upsert(key, value, |old, new| match op.apply(old, new) {
        Some(combined) => combined,
        None => {
            overflow = Some(old);
            old
        }
    })?;
    match overflow {
        Some(old) => Err(FfiError::new(
            SaStatus::Overflow,
            format!("key {key}: {old} + {value} does not fit in int64_t; the key keeps {old}"),
        )),
        None => Ok(result),
    }
}

fn placement_report_text(reports: &[PlacementReport]) -> String {
    reports
        .iter()
        .enumerate()
        .map(|(i, report)| format!("partition {i}:\n{report}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn placement_report_json(reports: &[PlacementReport]) -> FfiResult<String> {
    serde_json::to_string(reports).map_err(|e| FfiError::new(SaStatus::Other, e.to_string()))
}

// ---------------------------------------------------------------------------------------------
// What the three handles share

/// A collection handle: each keeps a map underneath (a set's values are `()`, a bag's are its
/// counts), which answers for its size, memory and placement. The shared entry points
/// (`sa_*_new`, `_free`, `_len`, `_memory_bytes`, the reports) are one generic body each; the
/// batched membership test and the export are shared with the frozen handles
/// ([`ReadHandle`]).
trait Handle: ReadHandle {
    /// An empty collection with these options.
    fn create(options: &ArrayOptions) -> smartarrays_collections::Result<Self>;
    /// The map underneath.
    fn map(&self) -> &Map<i64, Self::Value>;
    /// Removes `key` (with its value or count); whether it was present.
    fn remove_key(&mut self, key: i64) -> bool;
}

impl ReadHandle for SaMap {
    type Value = i64;
    type Table = Map<i64, i64>;
    const NAME: &'static str = "map";
    fn table(&self) -> &Map<i64, i64> {
        &self.map
    }
}

impl Handle for SaMap {
    fn create(options: &ArrayOptions) -> smartarrays_collections::Result<Self> {
        Ok(SaMap {
            map: Map::with_options(options)?,
        })
    }
    fn map(&self) -> &Map<i64, i64> {
        &self.map
    }
    fn remove_key(&mut self, key: i64) -> bool {
        self.map.remove(key).is_some()
    }
}

impl ReadHandle for SaSet {
    type Value = ();
    type Table = Set<i64>;
    const NAME: &'static str = "set";
    fn table(&self) -> &Set<i64> {
        &self.set
    }
}

impl Handle for SaSet {
    fn create(options: &ArrayOptions) -> smartarrays_collections::Result<Self> {
        Ok(SaSet {
            set: Set::with_options(options)?,
        })
    }
    fn map(&self) -> &Map<i64, ()> {
        self.set.as_map()
    }
    fn remove_key(&mut self, key: i64) -> bool {
        self.set.remove(key)
    }
}

impl ReadHandle for SaBag {
    type Value = u64;
    type Table = Bag<i64>;
    const NAME: &'static str = "bag";
    fn table(&self) -> &Bag<i64> {
        &self.bag
    }
}

impl Handle for SaBag {
    fn create(options: &ArrayOptions) -> smartarrays_collections::Result<Self> {
        Ok(SaBag {
            bag: Bag::with_options(options)?,
        })
    }
    fn map(&self) -> &Map<i64, u64> {
        self.bag.as_map()
    }
    fn remove_key(&mut self, key: i64) -> bool {
        self.bag.remove(key).is_some()
    }
}

/// Creates an empty collection with `placement` and hands it out through `out`.
///
/// # Safety
/// `placement` must be NULL or NUL-terminated text; `out` must be valid for writing a pointer.
unsafe fn handle_new<H: Handle>(placement: *const c_char, out: *mut *mut H) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let handle = H::create(&collection_options(placement)?)?;
        // SAFETY: forwarded from the caller; `out` is not NULL (checked first).
        unsafe { ptr::write(out, "out", Box::into_raw(Box::new(handle))) }
    })
}

/// Frees a collection; NULL is ignored, and a panic in a destructor stays on this side.
///
/// # Safety
/// `handle` must be NULL or a live handle from `handle_new`, not freed before; no other call on
/// it may be running.
unsafe fn handle_free<H: Handle>(handle: *mut H) {
    if handle.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller passes a pointer from `handle_new`, exactly once.
        drop(unsafe { Box::from_raw(handle) });
    }));
}

/// The map underneath a live handle.
///
/// # Safety
/// `handle` must be NULL or a live handle.
unsafe fn handle_map<'a, H: Handle + 'a>(handle: *const H) -> FfiResult<&'a Map<i64, H::Value>> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(handle, H::NAME) }.map(H::map)
}

/// Writes `text(map)` of a handle's map to `*out` as a string the caller frees.
///
/// # Safety
/// `handle` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
unsafe fn write_text<H: Handle>(
    handle: *const H,
    out: *mut *mut c_char,
    text: impl FnOnce(&Map<i64, H::Value>) -> FfiResult<String>,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let text = text(unsafe { handle_map(handle) }?)?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_string(out, "out", text) }
    })
}

/// The body of every `sa_*_remove_many`: removes `keys[0..count]` and writes how many were
/// present to `*removed` (may be NULL).
///
/// # Safety
/// `handle` must be NULL or a live handle used by no other call during this one; `keys` must
/// point to `count` readable values; `removed` must be NULL or valid for writing.
unsafe fn handle_remove_many<H: Handle>(
    handle: *mut H,
    keys: *const i64,
    count: usize,
    removed: *mut usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow_mut(handle, H::NAME) }?;
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice(keys, count, "keys") }?;
        let gone = keys.iter().filter(|&&key| handle.remove_key(key)).count();
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_optional(removed, gone) };
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// SaMap

/// # Safety
/// `map` must be NULL or a live handle.
unsafe fn map_ref<'a>(map: *const SaMap) -> FfiResult<&'a Map<i64, i64>> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(map, "map") }.map(|handle| &handle.map)
}

/// # Safety
/// `map` must be NULL or a live handle used by nothing else during `'a`.
unsafe fn map_mut<'a>(map: *mut SaMap) -> FfiResult<&'a mut Map<i64, i64>> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow_mut(map, "map") }.map(|handle| &mut handle.map)
}

/// Creates an empty map. `placement` is NULL (= "os") or one of "os", "node:N", "interleaved",
/// "interleaved:N,M,...", "replicated" (one copy per node; readers read their node's copy,
/// writes go to every copy), as for `sa_array_new`.
///
/// Ownership: on success `*out` is a new map the caller owns (free with `sa_map_free`); on
/// failure `*out` is not written. Thread-safe.
///
/// # Safety
/// `placement` must be NULL or NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_map_new(placement: *const c_char, out: *mut *mut SaMap) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { handle_new::<SaMap>(placement, out) }
}

/// Frees a map. NULL is ignored.
///
/// # Safety
/// `map` must be NULL or a live handle not freed before; no other call on it may be running, and
/// the handle is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn sa_map_free(map: *mut SaMap) {
    // SAFETY: forwarded from the caller.
    unsafe { handle_free(map) }
}

/// Writes the number of keys to `*out`.
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_len(map: *const SaMap, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", handle_map(map)?.len()) })
}

/// Writes the bytes of memory the map occupies (all partitions and replicas, whole pages).
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_memory_bytes(map: *const SaMap, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", handle_map(map)?.memory_bytes()) })
}

/// Writes what the map's memory holds (entries, buckets, widths, bytes per entry) as text to
/// `*out`; free it with `sa_string_free`.
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_map_memory_report_text(
    map: *const SaMap,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(map, out, |map| Ok(map.memory_report().to_string())) }
}

/// Writes the map's placement as text ("os", "node:0", "replicated", ...) to `*out`; free it
/// with `sa_string_free`.
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_map_placement(map: *const SaMap, out: *mut *mut c_char) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(map, out, |map| Ok(map.placement().to_string())) }
}

/// Writes where the map's pages are, read back from the kernel, as text to `*out` (one
/// "partition N:" block per partition, each listing its replicas); free it with
/// `sa_string_free`.
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_map_placement_report_text(
    map: *const SaMap,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_text(map, out, |map| {
            Ok(placement_report_text(&map.placement_report()?))
        })
    }
}

/// Like `sa_map_placement_report_text`, as JSON: an array with one object per partition, each
/// as `sa_array_placement_report_json` writes it (`{"placement": ..., "replicas": [...]}`).
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_map_placement_report_json(
    map: *const SaMap,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_text(map, out, |map| {
            placement_report_json(&map.placement_report()?)
        })
    }
}

/// Sets `key` to `value`. Writes to `*replaced` whether the key was present and to `*old` its
/// previous value (0 when absent); both may be NULL. The table grows or widens as needed; when
/// memory runs out the map is left as it was.
///
/// # Safety
/// `map` must be NULL or a live handle used by no other call during this one; `replaced` and
/// `old` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_insert(
    map: *mut SaMap,
    key: i64,
    value: i64,
    replaced: *mut bool,
    old: *mut i64,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let previous = unsafe { map_mut(map) }?.insert(key, value)?;
        // SAFETY: forwarded from the caller.
        unsafe {
            ptr::write_optional(replaced, previous.is_some());
            ptr::write_optional(old, previous.unwrap_or(0));
        }
        Ok(())
    })
}

/// Looks up `key`: writes to `*found` whether it is present and to `*value` its value (0 when
/// absent).
///
/// # Safety
/// `map` must be NULL or a live handle; `value` and `found` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_get(
    map: *const SaMap,
    key: i64,
    value: *mut i64,
    found: *mut bool,
) -> SaStatus {
    guard(|| {
        ptr::check_out(value, "value")?;
        ptr::check_out(found, "found")?;
        // SAFETY: forwarded from the caller.
        let got = unsafe { map_ref(map) }?.get(key);
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(value, "value", got.unwrap_or(0)) }?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(found, "found", got.is_some()) }
    })
}

/// Writes whether `key` is present to `*out`.
///
/// # Safety
/// `map` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_contains(map: *const SaMap, key: i64, out: *mut bool) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", map_ref(map)?.contains_key(key)) })
}

/// Removes `key`. Writes to `*removed` whether it was present and to `*old` its value (0 when
/// absent); both may be NULL.
///
/// # Safety
/// `map` must be NULL or a live handle used by no other call during this one; `removed` and `old`
/// must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_remove(
    map: *mut SaMap,
    key: i64,
    removed: *mut bool,
    old: *mut i64,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let previous = unsafe { map_mut(map) }?.remove(key);
        // SAFETY: forwarded from the caller.
        unsafe {
            ptr::write_optional(removed, previous.is_some());
            ptr::write_optional(old, previous.unwrap_or(0));
        }
        Ok(())
    })
}

/// Removes every key of `keys[0..count]` (absent keys are skipped); writes how many were present
/// to `*removed` (may be NULL). `keys` may be NULL when `count` is 0.
///
/// # Safety
/// `map` must be NULL or a live handle used by no other call during this one; `keys` must point to
/// `count` readable values; `removed` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_remove_many(
    map: *mut SaMap,
    keys: *const i64,
    count: usize,
    removed: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { handle_remove_many(map, keys, count, removed) }
}

/// Sets `key` to `combine(old, value)` when present, else to `value`, where `op` is an
/// `SaCombine` (`SA_COMBINE_SUM`, `_MIN`, `_MAX`, `_REPLACE`); writes the key's new value to
/// `*result` (may be NULL). A sum outside `int64_t` is `SA_STATUS_OVERFLOW` and leaves the key
/// as it was; an unknown `op` is `SA_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `map` must be NULL or a live handle used by no other call during this one; `result` must be
/// NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_upsert(
    map: *mut SaMap,
    key: i64,
    value: i64,
    op: i32,
    result: *mut i64,
) -> SaStatus {
    guard(|| {
        let op = SaCombine::from_i32(op)?;
        // SAFETY: forwarded from the caller.
        let new = upsert_one(unsafe { map_mut(map) }?, key, value, op)?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_optional(result, new) };
        Ok(())
    })
}

/// Sets `keys[i]` to `values[i]` for `i` in `0..count`, in order (a later duplicate wins),
/// prefetching ahead. `keys` and `values` may be NULL when `count` is 0.
///
/// # Safety
/// `map` must be NULL or a live handle used by no other call during this one; `keys` and `values`
/// must point to `count` readable values.
#[no_mangle]
pub unsafe extern "C" fn sa_map_insert_many(
    map: *mut SaMap,
    keys: *const i64,
    values: *const i64,
    count: usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let map = unsafe { map_mut(map) }?;
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice(keys, count, "keys") }?;
        // SAFETY: forwarded from the caller.
        let values = unsafe { ptr::slice(values, count, "values") }?;
        Ok(map.insert_many(keys, values)?)
    })
}

/// Upserts a batch: each `keys[i]` becomes `combine(old, values[i])` when present, else
/// `values[i]`, in order, with `op` as for `sa_map_upsert`. With `SA_COMBINE_SUM`, a sum outside
/// `int64_t` stops the batch with `SA_STATUS_OVERFLOW`: the entries before it are applied, that
/// one and those after it are not (the message names its index).
///
/// # Safety
/// As for `sa_map_insert_many`.
#[no_mangle]
pub unsafe extern "C" fn sa_map_upsert_many(
    map: *mut SaMap,
    keys: *const i64,
    values: *const i64,
    count: usize,
    op: i32,
) -> SaStatus {
    guard(|| {
        let op = SaCombine::from_i32(op)?;
        // SAFETY: forwarded from the caller.
        let map = unsafe { map_mut(map) }?;
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice(keys, count, "keys") }?;
        // SAFETY: forwarded from the caller.
        let values = unsafe { ptr::slice(values, count, "values") }?;
        if op != SaCombine::Sum {
            // Min, max and replace cannot fail: the batched, prefetching path.
            return Ok(map.upsert_many(keys, values, |old, new| op.apply(old, new).unwrap_or(new))?);
        }
        for (i, (&key, &value)) in keys.iter().zip(values).enumerate() {
            upsert_one(map, key, value, op).map_err(|e| {
                FfiError::new(
                    e.status,
                    format!("entry {i} of the batch: {}; entries 0..{i} were applied, the rest were not", e.message),
                )
            })?;
        }
        Ok(())
    })
}

/// Looks up a batch: `values[i]` gets the value of `keys[i]`, or `missing` when absent, and
/// `found[i]` (one byte per key; `found` may be NULL) 1 or 0. Writes the number of keys found to
/// `*hits` (may be NULL). Prefetches the buckets of later keys while probing earlier ones.
///
/// # Safety
/// `map` must be NULL or a live handle; `keys` must point to `count` readable values, `values` be
/// valid for writing `count` values, `found` NULL or valid for writing `count` bytes, `hits` NULL
/// or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_get_many(
    map: *const SaMap,
    keys: *const i64,
    count: usize,
    values: *mut i64,
    found: *mut u8,
    missing: i64,
    hits: *mut usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let map = unsafe { map_ref(map) }?;
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
/// Writes the number present to `*hits` (may be NULL).
///
/// # Safety
/// `map` must be NULL or a live handle; `keys` must point to `count` readable values, `out` be
/// valid for writing `count` bytes, `hits` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_contains_many(
    map: *const SaMap,
    keys: *const i64,
    count: usize,
    out: *mut u8,
    hits: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { lookup_contains_many(map, keys, count, out, hits) }
}

/// Writes every (key, value) of the map, in no particular order, to `keys[0..n]` and
/// `values[0..n]`, and `n` (the map's length) to `*written`. `SA_STATUS_BUFFER_TOO_SMALL`
/// (nothing written) when `capacity` is less than the length (`sa_map_len`).
///
/// # Safety
/// `map` must be NULL or a live handle; `keys` and `values` must be valid for writing `capacity`
/// values (NULL when 0); `written` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_map_export(
    map: *const SaMap,
    keys: *mut i64,
    values: *mut i64,
    capacity: usize,
    written: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { lookup_export(map, keys, Some(values), capacity, written) }
}

// ---------------------------------------------------------------------------------------------
// SaSet

/// # Safety
/// `set` must be NULL or a live handle.
unsafe fn set_ref<'a>(set: *const SaSet) -> FfiResult<&'a Set<i64>> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(set, "set") }.map(|handle| &handle.set)
}

/// # Safety
/// `set` must be NULL or a live handle used by nothing else during `'a`.
unsafe fn set_mut<'a>(set: *mut SaSet) -> FfiResult<&'a mut Set<i64>> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow_mut(set, "set") }.map(|handle| &mut handle.set)
}

/// Creates an empty set; `placement` as for `sa_map_new`. The caller owns `*out` (free with
/// `sa_set_free`). Thread-safe.
///
/// # Safety
/// `placement` must be NULL or NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_set_new(placement: *const c_char, out: *mut *mut SaSet) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { handle_new::<SaSet>(placement, out) }
}

/// Frees a set. NULL is ignored.
///
/// # Safety
/// `set` must be NULL or a live handle not freed before; no other call on it may be running.
#[no_mangle]
pub unsafe extern "C" fn sa_set_free(set: *mut SaSet) {
    // SAFETY: forwarded from the caller.
    unsafe { handle_free(set) }
}

/// Writes the number of keys to `*out`.
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_set_len(set: *const SaSet, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", handle_map(set)?.len()) })
}

/// Writes the bytes of memory the set occupies to `*out`.
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_set_memory_bytes(set: *const SaSet, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", handle_map(set)?.memory_bytes()) })
}

/// Writes what the set's memory holds as text to `*out` (free with `sa_string_free`).
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_set_memory_report_text(
    set: *const SaSet,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(set, out, |map| Ok(map.memory_report().to_string())) }
}

/// Writes the set's placement as text to `*out` (free with `sa_string_free`).
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_set_placement(set: *const SaSet, out: *mut *mut c_char) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(set, out, |map| Ok(map.placement().to_string())) }
}

/// Writes where the set's pages are as text to `*out`, as `sa_map_placement_report_text` does.
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_set_placement_report_text(
    set: *const SaSet,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_text(set, out, |map| {
            Ok(placement_report_text(&map.placement_report()?))
        })
    }
}

/// Adds `key`; writes to `*inserted` (may be NULL) whether it was new.
///
/// # Safety
/// `set` must be NULL or a live handle used by no other call during this one; `inserted` must be
/// NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_set_insert(set: *mut SaSet, key: i64, inserted: *mut bool) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let new = unsafe { set_mut(set) }?.insert(key)?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_optional(inserted, new) };
        Ok(())
    })
}

/// Writes whether `key` is present to `*out`.
///
/// # Safety
/// `set` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_set_contains(set: *const SaSet, key: i64, out: *mut bool) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", set_ref(set)?.contains(key)) })
}

/// Removes `key`; writes to `*removed` (may be NULL) whether it was present.
///
/// # Safety
/// `set` must be NULL or a live handle used by no other call during this one; `removed` must be
/// NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_set_remove(set: *mut SaSet, key: i64, removed: *mut bool) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let was = unsafe { set_mut(set) }?.remove(key);
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_optional(removed, was) };
        Ok(())
    })
}

/// Removes every key of `keys[0..count]`; writes how many were present to `*removed` (may be
/// NULL).
///
/// # Safety
/// `set` must be NULL or a live handle used by no other call during this one; `keys` must point to
/// `count` readable values; `removed` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_set_remove_many(
    set: *mut SaSet,
    keys: *const i64,
    count: usize,
    removed: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { handle_remove_many(set, keys, count, removed) }
}

/// Adds `keys[0..count]` (prefetching ahead). `keys` may be NULL when `count` is 0.
///
/// # Safety
/// `set` must be NULL or a live handle used by no other call during this one; `keys` must point
/// to `count` readable values.
#[no_mangle]
pub unsafe extern "C" fn sa_set_insert_many(
    set: *mut SaSet,
    keys: *const i64,
    count: usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let set = unsafe { set_mut(set) }?;
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice(keys, count, "keys") }?;
        Ok(set.insert_many(keys)?)
    })
}

/// Membership of a batch, as `sa_map_contains_many`.
///
/// # Safety
/// As for `sa_map_contains_many`, with a set handle.
#[no_mangle]
pub unsafe extern "C" fn sa_set_contains_many(
    set: *const SaSet,
    keys: *const i64,
    count: usize,
    out: *mut u8,
    hits: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { lookup_contains_many(set, keys, count, out, hits) }
}

/// Writes every key, in no particular order, to `keys[0..n]` and `n` to `*written`;
/// `SA_STATUS_BUFFER_TOO_SMALL` (nothing written) when `capacity` is less than `sa_set_len`.
///
/// # Safety
/// `set` must be NULL or a live handle; `keys` must be valid for writing `capacity` values (NULL
/// when 0); `written` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_set_export(
    set: *const SaSet,
    keys: *mut i64,
    capacity: usize,
    written: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { lookup_export(set, keys, None, capacity, written) }
}

// ---------------------------------------------------------------------------------------------
// SaBag

/// # Safety
/// `bag` must be NULL or a live handle.
unsafe fn bag_ref<'a>(bag: *const SaBag) -> FfiResult<&'a Bag<i64>> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(bag, "bag") }.map(|handle| &handle.bag)
}

/// # Safety
/// `bag` must be NULL or a live handle used by nothing else during `'a`.
unsafe fn bag_mut<'a>(bag: *mut SaBag) -> FfiResult<&'a mut Bag<i64>> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow_mut(bag, "bag") }.map(|handle| &mut handle.bag)
}

/// Creates an empty bag; `placement` as for `sa_map_new`. The caller owns `*out` (free with
/// `sa_bag_free`). Thread-safe.
///
/// # Safety
/// `placement` must be NULL or NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_new(placement: *const c_char, out: *mut *mut SaBag) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { handle_new::<SaBag>(placement, out) }
}

/// Frees a bag. NULL is ignored.
///
/// # Safety
/// `bag` must be NULL or a live handle not freed before; no other call on it may be running.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_free(bag: *mut SaBag) {
    // SAFETY: forwarded from the caller.
    unsafe { handle_free(bag) }
}

/// Writes the number of distinct keys to `*out`.
///
/// # Safety
/// `bag` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_len(bag: *const SaBag, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", handle_map(bag)?.len()) })
}

/// Writes the bytes of memory the bag occupies to `*out`.
///
/// # Safety
/// `bag` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_memory_bytes(bag: *const SaBag, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", handle_map(bag)?.memory_bytes()) })
}

/// Writes what the bag's memory holds as text to `*out` (free with `sa_string_free`).
///
/// # Safety
/// `bag` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_memory_report_text(
    bag: *const SaBag,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(bag, out, |map| Ok(map.memory_report().to_string())) }
}

/// Writes the bag's placement as text to `*out` (free with `sa_string_free`).
///
/// # Safety
/// `bag` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_placement(bag: *const SaBag, out: *mut *mut c_char) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(bag, out, |map| Ok(map.placement().to_string())) }
}

/// Writes where the bag's pages are as text to `*out`, as `sa_map_placement_report_text` does.
///
/// # Safety
/// `bag` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_placement_report_text(
    bag: *const SaBag,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe {
        write_text(bag, out, |map| {
            Ok(placement_report_text(&map.placement_report()?))
        })
    }
}

/// Adds `n` to the count of `key`; writes the new count to `*count` (may be NULL). A count past
/// `UINT64_MAX` is `SA_STATUS_OVERFLOW` and leaves the bag unchanged.
///
/// # Safety
/// `bag` must be NULL or a live handle used by no other call during this one; `count` must be
/// NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_add(
    bag: *mut SaBag,
    key: i64,
    n: u64,
    count: *mut u64,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let new = unsafe { bag_mut(bag) }?.add(key, n)?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_optional(count, new) };
        Ok(())
    })
}

/// Writes the count of `key` (0 when absent) to `*out`.
///
/// # Safety
/// `bag` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_count(bag: *const SaBag, key: i64, out: *mut u64) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", bag_ref(bag)?.count(key)) })
}

/// Removes `key`; writes its count (0 when absent) to `*count` (may be NULL).
///
/// # Safety
/// `bag` must be NULL or a live handle used by no other call during this one; `count` must be
/// NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_remove(bag: *mut SaBag, key: i64, count: *mut u64) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let old = unsafe { bag_mut(bag) }?.remove(key);
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_optional(count, old.unwrap_or(0)) };
        Ok(())
    })
}

/// Removes every key of `keys[0..count]` with its count; writes how many keys were present to
/// `*removed` (may be NULL).
///
/// # Safety
/// `bag` must be NULL or a live handle used by no other call during this one; `keys` must point to
/// `count` readable values; `removed` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_remove_many(
    bag: *mut SaBag,
    keys: *const i64,
    count: usize,
    removed: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { handle_remove_many(bag, keys, count, removed) }
}

/// Adds one to the count of every key of `keys[0..count]` (prefetching ahead). A count past
/// `UINT64_MAX` stops the batch with `SA_STATUS_OVERFLOW` (the keys before it were counted).
///
/// # Safety
/// `bag` must be NULL or a live handle used by no other call during this one; `keys` must point
/// to `count` readable values.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_add_many(
    bag: *mut SaBag,
    keys: *const i64,
    count: usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let bag = unsafe { bag_mut(bag) }?;
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice(keys, count, "keys") }?;
        Ok(bag.add_many(keys)?)
    })
}

/// Counts of a batch: `counts[i]` gets the count of `keys[i]` (0 when absent); writes the number
/// of keys present to `*hits` (may be NULL).
///
/// # Safety
/// `bag` must be NULL or a live handle; `keys` must point to `count` readable values, `counts` be
/// valid for writing `count` values, `hits` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_count_many(
    bag: *const SaBag,
    keys: *const i64,
    count: usize,
    counts: *mut u64,
    hits: *mut usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let bag = unsafe { bag_ref(bag) }?;
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice(keys, count, "keys") }?;
        // SAFETY: forwarded from the caller.
        let counts = unsafe { ptr::slice_mut(counts, count, "counts") }?;
        let present = bag.count_many(keys, counts)?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_optional(hits, present) };
        Ok(())
    })
}

/// Writes every (key, count), in no particular order, to `keys[0..n]` and `counts[0..n]`, and
/// `n` to `*written`; `SA_STATUS_BUFFER_TOO_SMALL` (nothing written) when `capacity` is less
/// than `sa_bag_len`.
///
/// # Safety
/// `bag` must be NULL or a live handle; `keys` and `counts` must be valid for writing `capacity`
/// values (NULL when 0); `written` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_bag_export(
    bag: *const SaBag,
    keys: *mut i64,
    counts: *mut u64,
    capacity: usize,
    written: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { lookup_export(bag, keys, Some(counts), capacity, written) }
}
