//! `Region`: one owned, page-aligned block of anonymous memory viewed as `u64` words.
//!
//! A region is the unit the placement layer allocates (an array has one region, or one per
//! replica). It owns its mapping, frees it on drop, and hands out safe slice views; the `unsafe`
//! that turns the mapping into slices lives here and nowhere else above [`crate::sys`].

use std::ptr::NonNull;

use crate::error::{Error, Result};
use crate::sys::{self, HugePageAdvice, Mapping, PolicyMode};

/// An owned block of zero-initialised memory holding `words` 64-bit words.
#[derive(Debug)]
pub struct Region {
    mapping: Mapping,
    words: usize,
}

// SAFETY: a Region exclusively owns its mapping (no other handle to the memory exists); shared
// references only give out `&[u64]` and mutation requires `&mut Region`, so the usual Rust
// aliasing rules make sending and sharing it across threads sound.
unsafe impl Send for Region {}
// SAFETY: see the `Send` impl: `&Region` only permits reads.
unsafe impl Sync for Region {}

impl Region {
    /// Maps room for `words` words (rounded up to whole pages, at least one page), applies the
    /// NUMA `policy` when given and the huge page advice, and returns the zeroed region. Pages
    /// are not touched here; the first write places each one.
    pub fn map(
        words: usize,
        policy: Option<(PolicyMode, &[usize])>,
        huge_pages: Option<HugePageAdvice>,
    ) -> Result<Region> {
        let page = sys::page_size();
        let bytes = words
            .checked_mul(8)
            .and_then(|b| b.checked_next_multiple_of(page))
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or(Error::AllocationFailed {
                bytes: u64::MAX,
                reason: "size overflows the address space".into(),
            })?
            .max(page);
        let mapping = sys::map_anonymous(bytes).map_err(|e| Error::AllocationFailed {
            bytes: bytes as u64,
            reason: e.to_string(),
        })?;
        let region = Region { mapping, words };
        if let Some(advice) = huge_pages {
            // Advice only: a kernel without transparent huge pages simply ignores the request.
            let _ = sys::advise_huge_pages(&region.mapping, advice);
        }
        if let Some((mode, nodes)) = policy {
            sys::bind(&region.mapping, mode, nodes).map_err(|e| Error::System {
                call: "mbind",
                reason: e.to_string(),
            })?;
        }
        Ok(region)
    }

    /// Number of words the region holds.
    pub fn len_words(&self) -> usize {
        self.words
    }

    /// Bytes actually mapped (whole pages).
    pub fn mapped_bytes(&self) -> usize {
        self.mapping.bytes
    }

    /// Address of the first byte (for placement queries).
    pub fn start(&self) -> NonNull<u8> {
        self.mapping.start
    }

    /// The words as a slice.
    #[inline]
    pub fn words(&self) -> &[u64] {
        // SAFETY: the mapping is live for as long as `self`, page aligned (so aligned for u64),
        // at least `words * 8` bytes long, zero-initialised by the kernel, and only mutated
        // through `&mut self`, so no mutable alias exists while this shared slice lives.
        unsafe { std::slice::from_raw_parts(self.mapping.start.as_ptr().cast::<u64>(), self.words) }
    }

    /// The words as a mutable slice.
    pub fn words_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `words`, and `&mut self` guarantees this is the only live reference.
        unsafe {
            std::slice::from_raw_parts_mut(self.mapping.start.as_ptr().cast::<u64>(), self.words)
        }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: the mapping came from `map_anonymous`, is unmapped only here, and no slice into
        // it can outlive `self`.
        unsafe { sys::unmap(&self.mapping) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_zeroed_writable_and_page_rounded() {
        let mut region = Region::map(1000, None, None).unwrap();
        assert_eq!(region.len_words(), 1000);
        assert_eq!(region.mapped_bytes() % sys::page_size(), 0);
        assert!(region.words().iter().all(|&w| w == 0));
        region.words_mut()[999] = 7;
        assert_eq!(region.words()[999], 7);
        let empty = Region::map(0, None, None).unwrap();
        assert_eq!(empty.words().len(), 0);
        assert_eq!(empty.mapped_bytes(), sys::page_size());
    }

    #[test]
    fn impossible_sizes_are_errors_not_aborts() {
        assert!(matches!(
            Region::map(usize::MAX / 4, None, None),
            Err(Error::AllocationFailed { .. })
        ));
        assert!(matches!(
            Region::map(1 << 58, None, None),
            Err(Error::AllocationFailed { .. })
        ));
    }
}
