//! What the five collection handles share on their read side, growable (`SaMap`, `SaSet`,
//! `SaBag`) and frozen (`SaFrozenMap`, `SaFrozenSet`): each holds a collection that answers
//! the collections crate's [`Lookup`] trait, so the batched membership test
//! (`sa_*_contains_many`) and the export (`sa_*_export`) are one generic body each here.

use smartarrays_collections::{Lookup, Value};

use crate::ptr;
use crate::status::{guard, FfiError, FfiResult, SaStatus};

/// A collection handle seen from its read side.
pub(crate) trait ReadHandle: Sized {
    /// The value type of the collection (`()` for a set, the count for a bag).
    type Value: Value;
    /// The collection that answers lookups.
    type Table: Lookup<i64, Self::Value>;
    /// "map", "set", "bag", "frozen map" or "frozen set", for messages.
    const NAME: &'static str;
    /// The collection underneath.
    fn table(&self) -> &Self::Table;
}

/// The collection underneath a live handle.
///
/// # Safety
/// `handle` must be NULL or a live handle.
unsafe fn table_of<'a, H: ReadHandle + 'a>(handle: *const H) -> FfiResult<&'a H::Table> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(handle, H::NAME) }.map(H::table)
}

/// The body of every `sa_*_contains_many`: a batched membership test into a one-byte-per-key
/// mask, with the number present written to `*hits` (may be NULL).
///
/// # Safety
/// As for `sa_map_contains_many`, with a handle of type `H`.
pub(crate) unsafe fn lookup_contains_many<H: ReadHandle>(
    handle: *const H,
    keys: *const i64,
    count: usize,
    out: *mut u8,
    hits: *mut usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let table = unsafe { table_of(handle) }?;
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice(keys, count, "keys") }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { ptr::slice_mut(out, count, "out") }?;
        let mut flags = vec![false; count];
        let hit_count = table.contains_many(keys, &mut flags)?;
        for (slot, flag) in out.iter_mut().zip(flags) {
            *slot = u8::from(flag);
        }
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_optional(hits, hit_count) };
        Ok(())
    })
}

/// The body of every `sa_*_export`: writes every (key, value) of the collection to the
/// caller's buffers (`values` `None`: keys only) and the count to `*written`;
/// `SA_STATUS_BUFFER_TOO_SMALL` (nothing written) when `capacity` is less than the length.
///
/// # Safety
/// `handle` must be NULL or a live handle; `keys` (and `values` when given) must be valid for
/// writing `capacity` values; `written` valid for writing.
pub(crate) unsafe fn lookup_export<H: ReadHandle>(
    handle: *const H,
    keys: *mut i64,
    values: Option<*mut H::Value>,
    capacity: usize,
    written: *mut usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let table = unsafe { table_of(handle) }?;
        let len = table.len();
        ptr::check_out(written, "written")?;
        if capacity < len {
            return Err(FfiError::new(
                SaStatus::BufferTooSmall,
                format!("the collection holds {len} entries but the buffers hold {capacity}"),
            ));
        }
        // SAFETY: forwarded from the caller.
        let keys = unsafe { ptr::slice_mut(keys, len, "keys") }?;
        let mut values = match values {
            // SAFETY: forwarded from the caller.
            Some(values) => Some(unsafe { ptr::slice_mut(values, len, "values") }?),
            None => None,
        };
        let mut count = 0;
        table.for_each_entry(|key, value| {
            if count < len {
                keys[count] = key;
                if let Some(values) = values.as_deref_mut() {
                    values[count] = value;
                }
                count += 1;
            }
        });
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(written, "written", count) }
    })
}
