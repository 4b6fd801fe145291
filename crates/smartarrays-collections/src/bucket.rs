//! The 64-byte bucket: one cache line holding a tag lane, the bit-packed payload of every slot
//! and an overflow count, so a probe reads one line.
//!
//! ```text
//! bytes 0..S         tag lane: one byte per slot, 0x80 | 7 bits of the key's remainder (0 = empty)
//! bits 8S..8S+S*p    payload: per slot [remainder (r bits) | displacement (4 bits) | value (v bits)]
//! byte 63            overflow count: entries whose home is this bucket or earlier that were
//!                    placed past it (saturates at 255 and then stays)
//! ```
//!
//! `S` is the most slots that fit `8S + S*p <= 504` for the slot width `p = r + 4 + v`.

/// A bucket: one 64-byte cache line as eight words.
pub(crate) type Bucket = [u64; 8];

/// Bits of the displacement field: an entry lies at most `MAX_DISPLACEMENT` buckets past home.
pub(crate) const DISPLACEMENT_BITS: u32 = 4;
/// Largest displacement from the home bucket.
pub(crate) const MAX_DISPLACEMENT: u64 = (1 << DISPLACEMENT_BITS) - 1;
/// Remainder bits that live in the tag lane instead of the payload.
pub(crate) const TAG_BITS: u32 = 7;
/// Bits available for tags and payload (the last byte is the overflow count).
const BUCKET_BITS: u32 = 504;

#[cfg(not(target_arch = "x86_64"))]
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = 0x8080_8080_8080_8080;
#[cfg(not(target_arch = "x86_64"))]
const ONES: u64 = 0x0101_0101_0101_0101;

/// Where the fields of a slot lie in a bucket, for one choice of widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Slots per bucket (3..=42).
    pub slots: u32,
    /// Remainder bits kept in the payload.
    pub remainder_bits: u32,
    /// Value bits.
    pub value_bits: u32,
    /// Payload bits per slot.
    slot_bits: u32,
    /// Words holding tags.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    tag_words: usize,
    /// The high bit of every tag byte in use, per tag word.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    lanes: [u64; 6],
    /// Low ones over the slots (bit `i` for slot `i`).
    slot_mask: u64,
    /// 16-byte vectors holding tags (`slots / 16`, rounded up).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    tag_vectors: usize,
    /// Low ones over the remainder and displacement fields.
    key_mask: u64,
    /// Low ones over a slot's head: the whole slot when it fits a word, else its key field.
    head_mask: u64,
    /// Where the value starts in a slot (`remainder_bits + DISPLACEMENT_BITS`).
    value_shift: u32,
    /// Where the payloads start (after the tag lane).
    payload_base: u32,
    /// Low ones over the value field.
    value_mask: u64,
}

/// The field at bit `offset` under `mask` (the field's width in low ones), without a branch:
/// the word after the field's first is always read (the last wraps to the first) and its
/// bits shifted out or masked off when the field does not reach it.
#[inline(always)]
fn get_bits(bucket: &Bucket, offset: u32, mask: u64) -> u64 {
    let word = (offset / 64) as usize;
    let shift = offset % 64;
    let low = bucket[word & 7] >> shift;
    // `<< 1 << (63 - shift)` is `<< (64 - shift)`, and 0 when `shift` is 0.
    let high = bucket[(word + 1) & 7] << 1 << (63 - shift);
    (low | high) & mask
}

#[inline(always)]
fn set_bits(bucket: &mut Bucket, offset: u32, width: u32, value: u64) {
    if width == 0 {
        return;
    }
    let mask = crate::hash::low_mask(width);
    let value = value & mask;
    let word = (offset / 64) as usize;
    let shift = offset % 64;
    bucket[word] = (bucket[word] & !(mask << shift)) | (value << shift);
    if shift + width > 64 {
        let next = (word + 1) & 7;
        let high = 64 - shift;
        bucket[next] = (bucket[next] & !(mask >> high)) | (value >> high);
    }
}

/// Ors `bits` (a field already zero in the bucket, `bits` inside its width) in at bit
/// `offset`, without a branch: the bits past the word go to the next one (the last word's
/// fields never reach past it, so nothing wraps into word 0).
#[inline(always)]
fn or_bits(bucket: &mut Bucket, offset: u32, bits: u64) {
    let word = (offset / 64) as usize;
    let shift = offset % 64;
    bucket[word & 7] |= bits << shift;
    // `>> 1 >> (63 - shift)` is `>> (64 - shift)`, and 0 when `shift` is 0.
    bucket[(word + 1) & 7] |= bits >> 1 >> (63 - shift);
}

#[cfg(not(target_arch = "x86_64"))]
/// High bit of every zero byte of `x`, exactly (no false positives).
#[inline(always)]
fn zero_bytes(x: u64) -> u64 {
    !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7)
}

#[cfg(not(target_arch = "x86_64"))]
/// Eight high-bit lane flags (bits 7, 15, ...) squeezed into the low eight bits.
#[inline(always)]
fn squeeze(flags: u64) -> u64 {
    ((flags >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// The tag lane compared 16 bytes at a time with SSE2, which every x86-64 CPU has (part of the
/// architecture's baseline, enabled for every x86-64 target), so no run-time dispatch.
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x};

    use super::Bucket;

    /// The 16-bit byte mask of vector `index` of the bucket: bit `i` set for every byte `i`
    /// equal to `byte` when `compare`, else for every byte whose high bit is set.
    #[inline(always)]
    fn lane(bucket: &Bucket, index: usize, compare: Option<u8>) -> u64 {
        let (low, high) = (bucket[2 * index] as i64, bucket[2 * index + 1] as i64);
        // SAFETY: SSE2 is part of the x86-64 baseline (every x86-64 CPU has it and every
        // x86-64 target enables it), and these intrinsics compute on register values only:
        // no memory is read or written.
        let mask = unsafe {
            let vector = _mm_set_epi64x(high, low);
            match compare {
                Some(byte) => _mm_movemask_epi8(_mm_cmpeq_epi8(vector, _mm_set1_epi8(byte as i8))),
                None => _mm_movemask_epi8(vector),
            }
        };
        u64::from(mask as u16)
    }

    #[inline(always)]
    fn lanes(bucket: &Bucket, vectors: usize, compare: Option<u8>) -> u64 {
        let mut found = lane(bucket, 0, compare);
        if vectors > 1 {
            found |= lane(bucket, 1, compare) << 16;
            if vectors > 2 {
                found |= lane(bucket, 2, compare) << 32;
            }
        }
        found
    }

    /// Bit `i` set for every byte `i` of the first `vectors` 16-byte vectors equal to `byte`.
    #[inline(always)]
    pub(super) fn equal_bytes(bucket: &Bucket, vectors: usize, byte: u8) -> u64 {
        lanes(bucket, vectors, Some(byte))
    }

    /// Bit `i` set for every byte `i` of the first `vectors` vectors whose high bit is set.
    #[inline(always)]
    pub(super) fn high_bits(bucket: &Bucket, vectors: usize) -> u64 {
        lanes(bucket, vectors, None)
    }
}

/// Byte-addressed writes into a bucket, for the move's placements: one store a tag, one
/// unaligned read-modify-write a payload of at most 57 bits. Little-endian only (where bit `o`
/// of a bucket, bit `o % 64` of word `o / 64`, is bit `o % 8` of byte `o / 8`).
#[cfg(target_endian = "little")]
mod bytes {
    use super::Bucket;

    /// Sets byte `index` (below 64) of `bucket` to `byte`.
    #[inline(always)]
    pub(super) fn set_byte(bucket: &mut Bucket, index: usize, byte: u8) {
        let index = index & 63;
        // SAFETY: `index < 64`, inside the bucket's 64 bytes, which `bucket` borrows
        // exclusively; a byte store has no alignment to keep.
        unsafe { bucket.as_mut_ptr().cast::<u8>().add(index).write(byte) }
    }

    /// Ors `bits` into the 8 bytes of `bucket` from byte `index` (at most 56), read as a
    /// little-endian word.
    #[inline(always)]
    pub(super) fn or_word_at(bucket: &mut Bucket, index: usize, bits: u64) {
        let index = index.min(56);
        // SAFETY: `index <= 56`, so the 8 bytes from it lie inside the bucket's 64, which
        // `bucket` borrows exclusively; the read and write are unaligned ones, and every bit
        // pattern is a valid `u64`.
        unsafe {
            let word = bucket.as_mut_ptr().cast::<u8>().add(index).cast::<u64>();
            word.write_unaligned(word.read_unaligned() | bits);
        }
    }
}

impl Layout {
    /// The layout for `remainder_bits` (0..=57) and `value_bits` (0..=64).
    pub(crate) fn new(remainder_bits: u32, value_bits: u32) -> Layout {
        let slot_bits = remainder_bits + DISPLACEMENT_BITS + value_bits;
        let slots = BUCKET_BITS / (8 + slot_bits);
        let mut lanes = [0; 6];
        for (word, lane) in lanes.iter_mut().enumerate() {
            let used = (slots as usize).saturating_sub(word * 8).min(8);
            *lane = HIGH & crate::hash::low_mask(8 * used as u32);
        }
        Layout {
            slots,
            remainder_bits,
            value_bits,
            slot_bits,
            tag_words: (slots as usize).div_ceil(8),
            lanes,
            slot_mask: crate::hash::low_mask(slots),
            tag_vectors: (slots as usize).div_ceil(16),
            key_mask: crate::hash::low_mask(remainder_bits + DISPLACEMENT_BITS),
            head_mask: crate::hash::low_mask(if slot_bits <= 64 {
                slot_bits
            } else {
                remainder_bits + DISPLACEMENT_BITS
            }),
            value_shift: remainder_bits + DISPLACEMENT_BITS,
            payload_base: 8 * slots,
            value_mask: crate::hash::low_mask(value_bits),
        }
    }

    /// The largest value a slot holds (low ones over the value field).
    #[inline(always)]
    pub(crate) fn max_value(&self) -> u64 {
        self.value_mask
    }

    /// Payload bits per slot.
    #[cfg(test)]
    pub(crate) fn slot_bits(&self) -> u32 {
        self.slot_bits
    }

    /// Bit `i` set for every slot `i` whose tag is `tag`.
    #[inline(always)]
    pub(crate) fn matches(&self, bucket: &Bucket, tag: u8) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            simd::equal_bytes(bucket, self.tag_vectors, tag) & self.slot_mask
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let pattern = ONES.wrapping_mul(u64::from(tag));
            let mut found = 0;
            for (word, (&tags, &lanes)) in bucket.iter().zip(&self.lanes).enumerate() {
                if word == self.tag_words {
                    break;
                }
                found |= squeeze(zero_bytes(tags ^ pattern) & lanes) << (word * 8);
            }
            found
        }
    }

    /// [`Layout::matches`] of a layout of at most 16 slots, whose tags fill one vector (the
    /// caller knows it: every table with a filter has such a layout).
    #[inline(always)]
    pub(crate) fn matches_narrow(&self, bucket: &Bucket, tag: u8) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            debug_assert_eq!(self.tag_vectors, 1);
            simd::equal_bytes(bucket, 1, tag) & self.slot_mask
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.matches(bucket, tag)
        }
    }

    /// Bit `i` set for every occupied slot `i`.
    #[inline(always)]
    pub(crate) fn occupied(&self, bucket: &Bucket) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            simd::high_bits(bucket, self.tag_vectors) & self.slot_mask
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let mut found = 0;
            for (word, (&tags, &lanes)) in bucket.iter().zip(&self.lanes).enumerate() {
                if word == self.tag_words {
                    break;
                }
                found |= squeeze(tags & lanes) << (word * 8);
            }
            found
        }
    }

    /// The first empty slot, if any.
    #[inline(always)]
    pub(crate) fn first_empty(&self, bucket: &Bucket) -> Option<u32> {
        let empty = !self.occupied(bucket) & self.slot_mask;
        (empty != 0).then(|| empty.trailing_zeros())
    }

    /// [`Layout::first_empty`] of a layout of at most 16 slots, whose tags fill one vector
    /// (the caller knows it).
    #[inline(always)]
    pub(crate) fn first_empty_narrow(&self, bucket: &Bucket) -> Option<u32> {
        #[cfg(target_arch = "x86_64")]
        let occupied = {
            debug_assert_eq!(self.tag_vectors, 1);
            simd::high_bits(bucket, 1)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let occupied = self.occupied(bucket);
        let empty = !occupied & self.slot_mask;
        (empty != 0).then(|| empty.trailing_zeros())
    }

    /// Whether a slot's payload, at any bit offset, lies within 8 bytes from the byte holding
    /// its first bit: at most 57 bits (see [`Layout::head_from_bytes`]).
    #[inline(always)]
    pub(crate) fn slot_fits_bytes(&self) -> bool {
        self.slot_bits <= 57
    }

    /// [`Layout::head`] of a layout whose slots fit 57 bits, from the bucket's bytes in
    /// little-endian order followed by at least 8 more (see [`Layout::bytes_of`]): one
    /// unaligned read from the byte holding the slot's first bit.
    #[inline(always)]
    pub(crate) fn head_from_bytes(&self, bytes: &[u8; 72], slot: u32) -> u64 {
        debug_assert!(self.slot_fits_bytes());
        let offset = self.payload(slot);
        let byte = (offset / 8) as usize & 63;
        let word: [u8; 8] = bytes[byte..byte + 8].try_into().unwrap_or([0; 8]);
        (u64::from_le_bytes(word) >> (offset % 8)) & self.head_mask
    }

    /// A bucket's bytes in little-endian order (byte `i` the tag of slot `i`), then 8 zero
    /// bytes, so that [`Layout::head_from_bytes`] reads any slot with one unaligned read.
    #[inline(always)]
    pub(crate) fn bytes_of(bucket: &Bucket) -> [u8; 72] {
        let mut bytes = [0; 72];
        for (chunk, word) in bytes.chunks_exact_mut(8).zip(bucket) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }

    /// The tag byte of `slot`.
    #[inline(always)]
    pub(crate) fn tag(bucket: &Bucket, slot: u32) -> u8 {
        (bucket[(slot / 8) as usize] >> ((slot % 8) * 8)) as u8
    }

    #[inline(always)]
    fn set_tag(bucket: &mut Bucket, slot: u32, tag: u8) {
        let word = (slot / 8) as usize;
        let shift = (slot % 8) * 8;
        bucket[word] = (bucket[word] & !(0xff << shift)) | (u64::from(tag) << shift);
    }

    #[inline(always)]
    fn payload(&self, slot: u32) -> u32 {
        self.payload_base + slot * self.slot_bits
    }

    /// The remainder and displacement of `slot`: `remainder | displacement << remainder_bits`.
    #[inline(always)]
    pub(crate) fn key_field(&self, bucket: &Bucket, slot: u32) -> u64 {
        get_bits(bucket, self.payload(slot), self.key_mask)
    }

    /// The head of `slot`: its whole payload (key field, then value) when that fits a word,
    /// else its key field; one read for both halves of a probe that finds its key.
    #[inline(always)]
    pub(crate) fn head(&self, bucket: &Bucket, slot: u32) -> u64 {
        get_bits(bucket, self.payload(slot), self.head_mask)
    }

    /// The key field (as [`Layout::key_field`] gives it) of a slot's head.
    #[inline(always)]
    pub(crate) fn head_key(&self, head: u64) -> u64 {
        head & self.key_mask
    }

    /// The value of `slot` whose head is `head` (from the head when it holds the value).
    #[inline(always)]
    pub(crate) fn head_value(&self, bucket: &Bucket, slot: u32, head: u64) -> u64 {
        if self.slot_bits <= 64 {
            head >> self.value_shift
        } else {
            self.value(bucket, slot)
        }
    }

    /// Whether a slot's payload fits one word: then its head (see [`Layout::head`]) is the whole
    /// slot, and [`Layout::head_value_word`] and [`Layout::fill_word`] apply.
    #[inline(always)]
    pub(crate) fn slot_fits_word(&self) -> bool {
        self.slot_bits <= 64
    }

    /// The value of a slot from its head, for a layout whose slots fit a word.
    #[inline(always)]
    pub(crate) fn head_value_word(&self, head: u64) -> u64 {
        debug_assert!(self.slot_fits_word());
        head >> self.value_shift
    }

    /// The head of a slot holding `key_field` and `value`, for a layout whose slots fit a word.
    #[inline(always)]
    pub(crate) fn compose_word(&self, key_field: u64, value: u64) -> u64 {
        debug_assert!(self.slot_fits_word());
        // `value_shift` is `remainder_bits + 4`, at most 61: no shift overflows.
        key_field | value << self.value_shift
    }

    /// [`Layout::fill`] of a layout whose slots fit a word, with the slot's whole payload as
    /// one head (from [`Layout::compose_word`]).
    #[cfg_attr(target_endian = "little", allow(dead_code))]
    #[inline(always)]
    pub(crate) fn fill_word(&self, bucket: &mut Bucket, slot: u32, tag: u8, head: u64) {
        debug_assert!(self.slot_fits_word());
        // The slot's tag byte and payload are zero.
        bucket[(slot / 8) as usize] |= u64::from(tag) << ((slot % 8) * 8);
        or_bits(bucket, self.payload(slot), head);
    }

    /// [`Layout::fill_word`] of a layout whose slots fit 57 bits (see
    /// [`Layout::slot_fits_bytes`]): the tag one byte store, the payload one unaligned
    /// read-modify-write of the 8 bytes from the byte holding its first bit (from byte 56 at
    /// most: a payload ends by bit 504, so one starting in byte 57 or later ends within
    /// those 8 bytes too).
    #[inline(always)]
    pub(crate) fn fill_bytes(&self, bucket: &mut Bucket, slot: u32, tag: u8, head: u64) {
        debug_assert!(self.slot_fits_bytes());
        #[cfg(target_endian = "little")]
        {
            bytes::set_byte(bucket, slot as usize, tag);
            let offset = self.payload(slot) as usize;
            let index = (offset / 8).min(56);
            // Below 64: `offset % 8` (at most 7) plus 57 bits, or from byte 56 a payload that
            // ends by bit 504.
            bytes::or_word_at(bucket, index, head << (offset - 8 * index));
        }
        #[cfg(not(target_endian = "little"))]
        self.fill_word(bucket, slot, tag, head);
    }

    /// The value of `slot`.
    #[inline(always)]
    pub(crate) fn value(&self, bucket: &Bucket, slot: u32) -> u64 {
        get_bits(
            bucket,
            self.payload(slot) + self.remainder_bits + DISPLACEMENT_BITS,
            self.value_mask,
        )
    }

    /// Sets the value of `slot` (which must fit `value_bits`).
    #[inline(always)]
    pub(crate) fn set_value(&self, bucket: &mut Bucket, slot: u32, value: u64) {
        set_bits(
            bucket,
            self.payload(slot) + self.remainder_bits + DISPLACEMENT_BITS,
            self.value_bits,
            value,
        );
    }

    /// Fills `slot` (an empty one: its payload bits are zero).
    #[inline(always)]
    pub(crate) fn fill(&self, bucket: &mut Bucket, slot: u32, tag: u8, key_field: u64, value: u64) {
        // The slot's tag byte is zero.
        bucket[(slot / 8) as usize] |= u64::from(tag) << ((slot % 8) * 8);
        if self.slot_bits <= 64 {
            // Key field and value in one write: the head is the whole slot.
            or_bits(
                bucket,
                self.payload(slot),
                // `value_shift` is `remainder_bits + 4`, at most 61: no shift overflows.
                key_field | value << self.value_shift,
            );
        } else {
            or_bits(bucket, self.payload(slot), key_field);
            set_bits(
                bucket,
                self.payload(slot) + self.value_shift,
                self.value_bits,
                value,
            );
        }
    }

    /// Empties `slot` (tag and payload zeroed).
    pub(crate) fn clear(&self, bucket: &mut Bucket, slot: u32) {
        Self::set_tag(bucket, slot, 0);
        set_bits(
            bucket,
            self.payload(slot),
            self.remainder_bits + DISPLACEMENT_BITS,
            0,
        );
        self.set_value(bucket, slot, 0);
    }

    /// The overflow count of a bucket.
    #[inline(always)]
    pub(crate) fn overflow(bucket: &Bucket) -> u8 {
        (bucket[7] >> 56) as u8
    }

    /// Adds `delta` (+1 or -1) to the overflow count; a saturated count (255) stays.
    #[inline(always)]
    pub(crate) fn bump_overflow(bucket: &mut Bucket, up: bool) {
        let count = Self::overflow(bucket);
        let next = match (count, up) {
            (255, _) => 255,
            (c, true) => c + 1,
            (c, false) => c.saturating_sub(1),
        };
        bucket[7] = (bucket[7] & !(0xff << 56)) | (u64::from(next) << 56);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_fill_the_line_and_fields_round_trip() {
        for (r, v) in [(0, 0), (0, 64), (57, 64), (9, 20), (40, 1), (13, 33)] {
            let layout = Layout::new(r, v);
            assert!(layout.slots >= 3 && layout.slots <= 42, "{r} {v}");
            assert!(8 * layout.slots + layout.slots * layout.slot_bits() <= 504);
            assert!(8 * (layout.slots + 1) + (layout.slots + 1) * layout.slot_bits() > 504);
            let mut bucket = [0u64; 8];
            Layout::bump_overflow(&mut bucket, true);
            for slot in 0..layout.slots {
                let key = (0x5555_5555_5555_5555u64 ^ u64::from(slot))
                    & crate::hash::low_mask(r + DISPLACEMENT_BITS);
                let value = u64::MAX.wrapping_sub(u64::from(slot)) & crate::hash::low_mask(v);
                assert_eq!(layout.first_empty(&bucket), Some(slot));
                layout.fill(&mut bucket, slot, 0x80 | (slot as u8 & 0x7f), key, value);
            }
            assert_eq!(layout.first_empty(&bucket), None);
            for slot in 0..layout.slots {
                let key = (0x5555_5555_5555_5555u64 ^ u64::from(slot))
                    & crate::hash::low_mask(r + DISPLACEMENT_BITS);
                let value = u64::MAX.wrapping_sub(u64::from(slot)) & crate::hash::low_mask(v);
                assert_eq!(layout.key_field(&bucket, slot), key);
                assert_eq!(layout.value(&bucket, slot), value);
                assert_eq!(layout.matches(&bucket, 0x80 | slot as u8), 1 << slot);
            }
            assert_eq!(Layout::overflow(&bucket), 1);
            layout.clear(&mut bucket, 1);
            assert_eq!(layout.first_empty(&bucket), Some(1));
            assert_eq!(layout.matches(&bucket, 0x81), 0);
            assert_eq!(Layout::overflow(&bucket), 1, "clearing keeps the count");
        }
        let mut bucket = [0u64; 8];
        for _ in 0..300 {
            Layout::bump_overflow(&mut bucket, true);
        }
        Layout::bump_overflow(&mut bucket, false);
        assert_eq!(Layout::overflow(&bucket), 255, "saturated counts stay");
    }
}
