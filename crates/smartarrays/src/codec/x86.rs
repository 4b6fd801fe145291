//! x86-64 SIMD kernels for the bit-packing codec: AVX-512 (F + BW + VBMI) and AVX2.
//!
//! Every group of 8 values (or 16 values) at `b` bits starts on a byte boundary, so one group is
//! decoded by loading the bytes that hold it, moving each value's bytes into its own lane with a
//! byte permute (`vpermb`; `vpshufb` per 128-bit half on AVX2), shifting every lane right by its
//! bit offset and masking. The permute indices and shift counts depend only on `b`, so they are
//! computed once per call and the loop body is the same for every width. Values that straddle
//! a 64-bit lane (widths above 56 bits) take a second permute for their ninth byte.
//!
//! All functions are `unsafe` only because they need CPU features; [`super::dispatch`] calls
//! them after detecting the features. Bounds are asserted before any raw load or store.

use std::arch::x86_64::*;

use super::max_value;

/// Byte permute indices, shift counts and mask for decoding 8 values into u64 lanes.
struct Lanes64 {
    low_index: [u8; 64],
    high_index: [u8; 64],
    low_shift: [u64; 8],
    high_shift: [u64; 8],
}

/// The tables of every width, built once per process (a kernel call then only loads them).
fn tables64(bits: u32) -> &'static Lanes64 {
    static TABLES: std::sync::OnceLock<Vec<Lanes64>> = std::sync::OnceLock::new();
    &TABLES.get_or_init(|| (0..=64).map(lanes64).collect())[bits as usize]
}

fn lanes64(bits: u32) -> Lanes64 {
    let mut lanes = Lanes64 {
        low_index: [0; 64],
        high_index: [0; 64],
        low_shift: [0; 8],
        high_shift: [0; 8],
    };
    for j in 0..8 {
        let bit = j * bits as usize;
        let first_byte = bit / 8;
        for k in 0..8 {
            lanes.low_index[8 * j + k] = ((first_byte + k) & 63) as u8;
            lanes.high_index[8 * j + k] = ((first_byte + 8) & 63) as u8;
        }
        lanes.low_shift[j] = (bit % 8) as u64;
        lanes.high_shift[j] = 64 - (bit % 8) as u64;
    }
    lanes
}

/// Byte permute indices and shift counts for decoding 16 values into u32 lanes.
struct Lanes32 {
    low_index: [u8; 64],
    low_shift: [u32; 16],
}

/// The u32-lane tables of every width up to [`U32_LANE_MAX_BITS`], built once per process.
fn tables32(bits: u32) -> &'static Lanes32 {
    static TABLES: std::sync::OnceLock<Vec<Lanes32>> = std::sync::OnceLock::new();
    &TABLES.get_or_init(|| (0..=U32_LANE_MAX_BITS).map(lanes32).collect())[bits as usize]
}

fn lanes32(bits: u32) -> Lanes32 {
    let mut lanes = Lanes32 {
        low_index: [0; 64],
        low_shift: [0; 16],
    };
    for j in 0..16 {
        let bit = j * bits as usize;
        let first_byte = bit / 8;
        for k in 0..4 {
            lanes.low_index[4 * j + k] = ((first_byte + k) & 63) as u8;
        }
        lanes.low_shift[j] = (bit % 8) as u32;
    }
    lanes
}

/// The AVX-512 kernels' vectors, loaded from the tables.
struct Avx512Constants {
    low_index: __m512i,
    high_index: __m512i,
    low_shift: __m512i,
    high_shift: __m512i,
    mask: __m512i,
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn constants64(bits: u32) -> Avx512Constants {
    let lanes = tables64(bits);
    // SAFETY: each table is exactly 64 bytes and `loadu` has no alignment requirement.
    unsafe {
        Avx512Constants {
            low_index: _mm512_loadu_si512(lanes.low_index.as_ptr().cast()),
            high_index: _mm512_loadu_si512(lanes.high_index.as_ptr().cast()),
            low_shift: _mm512_loadu_si512(lanes.low_shift.as_ptr().cast()),
            high_shift: _mm512_loadu_si512(lanes.high_shift.as_ptr().cast()),
            mask: _mm512_set1_epi64(max_value(bits) as i64),
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn constants32(bits: u32) -> Avx512Constants {
    let lanes = tables32(bits);
    // SAFETY: each table is exactly 64 bytes and `loadu` has no alignment requirement.
    unsafe {
        Avx512Constants {
            low_index: _mm512_loadu_si512(lanes.low_index.as_ptr().cast()),
            high_index: _mm512_setzero_si512(),
            low_shift: _mm512_loadu_si512(lanes.low_shift.as_ptr().cast()),
            high_shift: _mm512_setzero_si512(),
            mask: _mm512_set1_epi32(max_value(bits) as i32),
        }
    }
}

/// Decodes the 8 values whose bytes start at `pointer` into u64 lanes. Values wider than 56
/// bits may need a ninth byte: `$straddle` adds it with two shifts and an OR.
macro_rules! decode8 {
    ($pointer:expr, $c:expr, $straddle:expr) => {{
        let data = _mm512_loadu_si512($pointer.cast());
        let mut value =
            _mm512_srlv_epi64(_mm512_permutexvar_epi8($c.low_index, data), $c.low_shift);
        if $straddle {
            value = _mm512_or_si512(
                value,
                _mm512_sllv_epi64(_mm512_permutexvar_epi8($c.high_index, data), $c.high_shift),
            );
        }
        _mm512_and_si512(value, $c.mask)
    }};
}

/// As `decode8!` for straddling widths, with one VBMI2 funnel shift (`vpshrdvq`) joining each
/// lane's eight low bytes and its ninth byte.
macro_rules! decode8_funnel {
    ($pointer:expr, $c:expr) => {{
        let data = _mm512_loadu_si512($pointer.cast());
        let low = _mm512_permutexvar_epi8($c.low_index, data);
        let high = _mm512_permutexvar_epi8($c.high_index, data);
        _mm512_and_si512(_mm512_shrdv_epi64(low, high, $c.low_shift), $c.mask)
    }};
}

/// Decodes the 16 values whose bytes start at `pointer` into u32 lanes (widths up to 25 bits,
/// so a value and its bit offset fit in the lane's four bytes).
macro_rules! decode16 {
    ($pointer:expr, $c:expr) => {{
        let data = _mm512_loadu_si512($pointer.cast());
        _mm512_and_si512(
            _mm512_srlv_epi32(_mm512_permutexvar_epi8($c.low_index, data), $c.low_shift),
            $c.mask,
        )
    }};
}

/// Widest value for the u32-lane kernels.
pub const U32_LANE_MAX_BITS: u32 = 25;

/// Checks that a 64-byte load at the start of each of `groups` groups of `group_bytes` bytes,
/// from group `first` on, stays inside `bytes`.
fn assert_readable(bytes: &[u8], group_bytes: usize, first: usize, groups: usize) {
    assert!(
        groups == 0 || (first + groups - 1) * group_bytes + 64 <= bytes.len(),
        "kernel would read past the padded storage"
    );
}

/// Sum of 8-value groups `first..first + groups` (u64 lanes), for 1 <= bits <= 63.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn sum_groups8_avx512(bytes: &[u8], bits: u32, first: usize, groups: usize) -> u64 {
    let stride = bits as usize;
    assert_readable(bytes, stride, first, groups);
    let c = constants64(bits);
    let straddle = bits > 56;
    let mut sums = [_mm512_setzero_si512(); 4];
    let base = bytes.as_ptr();
    let mut group = first;
    let end = first + groups;
    // SAFETY: `assert_readable` proved that a 64-byte load at the start of every group below
    // `end` stays inside `bytes`; `loadu` needs no alignment.
    unsafe {
        while group + 4 <= end {
            let pointer = base.add(group * stride);
            sums[0] = _mm512_add_epi64(sums[0], decode8!(pointer, c, straddle));
            sums[1] = _mm512_add_epi64(sums[1], decode8!(pointer.add(stride), c, straddle));
            sums[2] = _mm512_add_epi64(sums[2], decode8!(pointer.add(2 * stride), c, straddle));
            sums[3] = _mm512_add_epi64(sums[3], decode8!(pointer.add(3 * stride), c, straddle));
            group += 4;
        }
        while group < end {
            sums[0] = _mm512_add_epi64(sums[0], decode8!(base.add(group * stride), c, straddle));
            group += 1;
        }
    }
    let total = _mm512_add_epi64(
        _mm512_add_epi64(sums[0], sums[1]),
        _mm512_add_epi64(sums[2], sums[3]),
    );
    _mm512_reduce_add_epi64(total) as u64
}

/// [`sum_groups8_avx512`] for widths 57..=63 with the VBMI2 funnel shift.
///
/// # Safety
/// The CPU must support AVX-512 F, BW, VBMI and VBMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
pub unsafe fn sum_groups8_straddling_vbmi2(
    bytes: &[u8],
    bits: u32,
    first: usize,
    groups: usize,
) -> u64 {
    let stride = bits as usize;
    assert_readable(bytes, stride, first, groups);
    let c = constants64(bits);
    let mut sums = [_mm512_setzero_si512(); 4];
    let base = bytes.as_ptr();
    let mut group = first;
    let end = first + groups;
    // SAFETY: as in `sum_groups8_avx512`.
    unsafe {
        while group + 4 <= end {
            let pointer = base.add(group * stride);
            sums[0] = _mm512_add_epi64(sums[0], decode8_funnel!(pointer, c));
            sums[1] = _mm512_add_epi64(sums[1], decode8_funnel!(pointer.add(stride), c));
            sums[2] = _mm512_add_epi64(sums[2], decode8_funnel!(pointer.add(2 * stride), c));
            sums[3] = _mm512_add_epi64(sums[3], decode8_funnel!(pointer.add(3 * stride), c));
            group += 4;
        }
        while group < end {
            sums[0] = _mm512_add_epi64(sums[0], decode8_funnel!(base.add(group * stride), c));
            group += 1;
        }
    }
    let total = _mm512_add_epi64(
        _mm512_add_epi64(sums[0], sums[1]),
        _mm512_add_epi64(sums[2], sums[3]),
    );
    _mm512_reduce_add_epi64(total) as u64
}

/// Sum of 16-value groups `first..first + groups` (u32 lanes), for 1 <= bits <= 25. Lanes add
/// in 32 bits for as many groups as cannot overflow, then widen into 64-bit sums.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn sum_groups16_avx512(bytes: &[u8], bits: u32, first: usize, groups: usize) -> u64 {
    assert!(bits <= U32_LANE_MAX_BITS);
    let stride = 2 * bits as usize;
    assert_readable(bytes, stride, first, groups);
    let c = constants32(bits);
    let low_half = _mm512_set1_epi64(0xFFFF_FFFF);
    // A 32-bit lane holds the sum of 2^(32 - bits) values below 2^bits. Blocks give each of the
    // four accumulators at most half that in whole steps plus at most 3 leftover groups.
    let safe_additions = ((1usize << (32 - bits)) / 2).min(1 << 12);
    let mut wide = _mm512_setzero_si512();
    let base = bytes.as_ptr();
    let mut group = first;
    let end = first + groups;
    while group < end {
        let block_end = end.min(group + 4 * safe_additions);
        let mut narrow = [_mm512_setzero_si512(); 4];
        // SAFETY: `assert_readable` proved that a 64-byte load at the start of every group below
        // `end` stays inside `bytes`; `loadu` needs no alignment.
        unsafe {
            while group + 4 <= block_end {
                let pointer = base.add(group * stride);
                narrow[0] = _mm512_add_epi32(narrow[0], decode16!(pointer, c));
                narrow[1] = _mm512_add_epi32(narrow[1], decode16!(pointer.add(stride), c));
                narrow[2] = _mm512_add_epi32(narrow[2], decode16!(pointer.add(2 * stride), c));
                narrow[3] = _mm512_add_epi32(narrow[3], decode16!(pointer.add(3 * stride), c));
                group += 4;
            }
            while group < block_end {
                narrow[0] = _mm512_add_epi32(narrow[0], decode16!(base.add(group * stride), c));
                group += 1;
            }
        }
        for lanes in narrow {
            wide = _mm512_add_epi64(wide, _mm512_and_si512(lanes, low_half));
            wide = _mm512_add_epi64(wide, _mm512_srli_epi64::<32>(lanes));
        }
    }
    _mm512_reduce_add_epi64(wide) as u64
}

/// Decodes 8-value groups `first..` into `out` (whose length is a multiple of 8), 1 <= bits <= 63.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn unpack_groups8_avx512(bytes: &[u8], bits: u32, first: usize, out: &mut [u64]) {
    let stride = bits as usize;
    let groups = out.len() / 8;
    assert_eq!(out.len() % 8, 0);
    assert_readable(bytes, stride, first, groups);
    let c = constants64(bits);
    let straddle = bits > 56;
    let base = bytes.as_ptr();
    let target = out.as_mut_ptr();
    let mut g = 0;
    // SAFETY: every load is in bounds by `assert_readable`; the stores write out[8g..8g+8] (and
    // the next three groups in the unrolled loop), inside `out` because g < out.len() / 8.
    unsafe {
        while g + 4 <= groups {
            let pointer = base.add((first + g) * stride);
            let (a, b) = (
                decode8!(pointer, c, straddle),
                decode8!(pointer.add(stride), c, straddle),
            );
            let (d, e) = (
                decode8!(pointer.add(2 * stride), c, straddle),
                decode8!(pointer.add(3 * stride), c, straddle),
            );
            _mm512_storeu_si512(target.add(8 * g).cast(), a);
            _mm512_storeu_si512(target.add(8 * g + 8).cast(), b);
            _mm512_storeu_si512(target.add(8 * g + 16).cast(), d);
            _mm512_storeu_si512(target.add(8 * g + 24).cast(), e);
            g += 4;
        }
        while g < groups {
            _mm512_storeu_si512(
                target.add(8 * g).cast(),
                decode8!(base.add((first + g) * stride), c, straddle),
            );
            g += 1;
        }
    }
}

/// Shuffle indices and shifts for the AVX2 kernel (8 values as two vectors of 4 u64 lanes).
struct Avx2Tables {
    /// Byte offsets (from the group start) of the 16-byte loads for values 0, 2, 4 and 6.
    load_offset: [usize; 4],
    shuffle: [[u8; 32]; 2],
    shift: [[u64; 4]; 2],
}

/// The AVX2 tables of every width up to 56 bits, built once per process.
fn cached_avx2_tables(bits: u32) -> &'static Avx2Tables {
    static TABLES: std::sync::OnceLock<Vec<Avx2Tables>> = std::sync::OnceLock::new();
    &TABLES.get_or_init(|| (0..=56).map(avx2_tables).collect())[bits as usize]
}

fn avx2_tables(bits: u32) -> Avx2Tables {
    let byte_of = |j: usize| j * bits as usize / 8;
    let mut tables = Avx2Tables {
        load_offset: [0; 4],
        shuffle: [[0; 32]; 2],
        shift: [[0; 4]; 2],
    };
    for pair in 0..4 {
        let j = 2 * pair;
        tables.load_offset[pair] = byte_of(j);
        let half = pair % 2;
        let vector = pair / 2;
        for k in 0..8 {
            tables.shuffle[vector][16 * half + k] = k as u8;
            tables.shuffle[vector][16 * half + 8 + k] = (byte_of(j + 1) - byte_of(j) + k) as u8;
        }
        tables.shift[vector][2 * half] = (j * bits as usize % 8) as u64;
        tables.shift[vector][2 * half + 1] = ((j + 1) * bits as usize % 8) as u64;
    }
    tables
}

/// Decodes one 8-value group with AVX2 into two vectors of 4 values.
macro_rules! decode8_avx2 {
    ($pointer:expr, $t:expr, $shuffle:expr, $shift:expr, $mask:expr) => {{
        let p = $pointer;
        let first = _mm256_loadu2_m128i(
            p.add($t.load_offset[1]).cast(),
            p.add($t.load_offset[0]).cast(),
        );
        let second = _mm256_loadu2_m128i(
            p.add($t.load_offset[3]).cast(),
            p.add($t.load_offset[2]).cast(),
        );
        let first = _mm256_and_si256(
            _mm256_srlv_epi64(_mm256_shuffle_epi8(first, $shuffle[0]), $shift[0]),
            $mask,
        );
        let second = _mm256_and_si256(
            _mm256_srlv_epi64(_mm256_shuffle_epi8(second, $shuffle[1]), $shift[1]),
            $mask,
        );
        (first, second)
    }};
}

#[target_feature(enable = "avx2")]
fn avx2_vectors(t: &Avx2Tables) -> ([__m256i; 2], [__m256i; 2]) {
    // SAFETY: each table row is exactly 32 bytes; `loadu` has no alignment requirement.
    unsafe {
        (
            [
                _mm256_loadu_si256(t.shuffle[0].as_ptr().cast()),
                _mm256_loadu_si256(t.shuffle[1].as_ptr().cast()),
            ],
            [
                _mm256_loadu_si256(t.shift[0].as_ptr().cast()),
                _mm256_loadu_si256(t.shift[1].as_ptr().cast()),
            ],
        )
    }
}

/// Sum of 8-value groups with AVX2, for 1 <= bits <= 56.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn sum_groups8_avx2(bytes: &[u8], bits: u32, first: usize, groups: usize) -> u64 {
    assert!(bits <= 56);
    let stride = bits as usize;
    assert_readable(bytes, stride, first, groups);
    let t = cached_avx2_tables(bits);
    let (shuffle, shift) = avx2_vectors(t);
    let mask = _mm256_set1_epi64x(max_value(bits) as i64);
    let mut sum_a = _mm256_setzero_si256();
    let mut sum_b = _mm256_setzero_si256();
    let base = bytes.as_ptr();
    for group in first..first + groups {
        // SAFETY: every 16-byte load starts at most `stride` bytes into the group, so it ends
        // before the group start + 64, which `assert_readable` proved in bounds.
        unsafe {
            let (a, b) = decode8_avx2!(base.add(group * stride), t, shuffle, shift, mask);
            sum_a = _mm256_add_epi64(sum_a, a);
            sum_b = _mm256_add_epi64(sum_b, b);
        }
    }
    let mut lanes = [0u64; 4];
    // SAFETY: `lanes` is 32 bytes, the size of one vector.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), _mm256_add_epi64(sum_a, sum_b)) };
    lanes.iter().fold(0u64, |s, &v| s.wrapping_add(v))
}

/// Decodes 8-value groups with AVX2 into `out` (length a multiple of 8), 1 <= bits <= 56.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn unpack_groups8_avx2(bytes: &[u8], bits: u32, first: usize, out: &mut [u64]) {
    assert!(bits <= 56);
    assert_eq!(out.len() % 8, 0);
    let stride = bits as usize;
    let groups = out.len() / 8;
    assert_readable(bytes, stride, first, groups);
    let t = cached_avx2_tables(bits);
    let (shuffle, shift) = avx2_vectors(t);
    let mask = _mm256_set1_epi64x(max_value(bits) as i64);
    let base = bytes.as_ptr();
    let target = out.as_mut_ptr();
    for g in 0..groups {
        // SAFETY: loads as in `sum_groups8_avx2`; the stores write out[8g..8g+8], in bounds
        // because g < out.len() / 8.
        unsafe {
            let (a, b) = decode8_avx2!(base.add((first + g) * stride), t, shuffle, shift, mask);
            _mm256_storeu_si256(target.add(8 * g).cast(), a);
            _mm256_storeu_si256(target.add(8 * g + 4).cast(), b);
        }
    }
}

/// Byte permute indices, zero masks and shifts for packing 8 u64 lanes into one group of
/// `bits` bytes (8 <= bits <= 63). Each lane is shifted left by its value's bit offset inside its
/// first byte; the bits pushed out of the lane (widths above 56) are kept in a second "spill"
/// vector. Every output byte then takes the byte of at most two values: the value that starts in
/// or runs into it (`index[0]`) and the value that starts later in it (`index[1]`). An index
/// below 64 picks a byte of the shifted lanes, 64 and above a byte of the spill lanes.
struct PackLanes {
    shift: [u64; 8],
    spill_shift: [u64; 8],
    index: [[u8; 64]; 2],
    keep: [u64; 2],
}

/// The packing tables of every width in 8..=63, built once per process.
fn pack_tables(bits: u32) -> &'static PackLanes {
    static TABLES: std::sync::OnceLock<Vec<PackLanes>> = std::sync::OnceLock::new();
    &TABLES.get_or_init(|| (0..=PACK_MAX_BITS).map(pack_lanes).collect())[bits as usize]
}

fn pack_lanes(bits: u32) -> PackLanes {
    let mut lanes = PackLanes {
        shift: [0; 8],
        spill_shift: [0; 8],
        index: [[0; 64]; 2],
        keep: [0; 2],
    };
    if !(PACK_MIN_BITS..=PACK_MAX_BITS).contains(&bits) {
        return lanes;
    }
    let width = bits as usize;
    for j in 0..8 {
        lanes.shift[j] = (j * width % 8) as u64;
        // Shifting right by 64 gives 0 (`vpsrlvq`), so a lane at offset 0 spills nothing.
        lanes.spill_shift[j] = 64 - lanes.shift[j];
    }
    for byte in 0..width {
        // The lanes whose bits [j*b, j*b + b) meet the byte's bits [8k, 8k + 8), lowest first.
        let contributors =
            (0..8).filter(|&j| j * width < 8 * byte + 8 && j * width + width > 8 * byte);
        for (slot, j) in contributors.enumerate() {
            // Byte `byte - first byte of value j` of the value's shifted bits: bytes 0..8 are in
            // the lane, byte 8 is the spill lane's first byte.
            let offset = byte - j * width / 8;
            lanes.index[slot][byte] = if offset < 8 {
                (8 * j + offset) as u8
            } else {
                (64 + 8 * j) as u8
            };
            lanes.keep[slot] |= 1 << byte;
        }
    }
    lanes
}

/// Narrowest width of [`pack_groups8_avx512`] (below 8 bits, a byte holds parts of 3+ values).
pub const PACK_MIN_BITS: u32 = 8;
/// Widest width of [`pack_groups8_avx512`] (64-bit values are stored as they are).
pub const PACK_MAX_BITS: u32 = 63;

/// Packs `values` (length a multiple of 8; each masked to `bits`) into `out`, 8 values into
/// each `bits`-byte group, for [`PACK_MIN_BITS`] <= bits <= [`PACK_MAX_BITS`]. Writes exactly
/// `values.len() / 8 * bits` bytes.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn pack_groups8_avx512(values: &[u64], bits: u32, out: &mut [u8]) {
    assert!((PACK_MIN_BITS..=PACK_MAX_BITS).contains(&bits));
    assert_eq!(values.len() % 8, 0);
    let stride = bits as usize;
    let groups = values.len() / 8;
    assert!(
        out.len() >= groups * stride,
        "pack kernel would write past its output"
    );
    let lanes = pack_tables(bits);
    let mask = _mm512_set1_epi64(max_value(bits) as i64);
    // SAFETY: each table is exactly 64 bytes and `loadu` has no alignment requirement.
    let (shift, spill_shift, first, second) = unsafe {
        (
            _mm512_loadu_si512(lanes.shift.as_ptr().cast()),
            _mm512_loadu_si512(lanes.spill_shift.as_ptr().cast()),
            _mm512_loadu_si512(lanes.index[0].as_ptr().cast()),
            _mm512_loadu_si512(lanes.index[1].as_ptr().cast()),
        )
    };
    let (keep_first, keep_second) = (lanes.keep[0], lanes.keep[1]);
    let spills = bits > 56;
    let group_mask: __mmask64 = (1u64 << stride) - 1;
    let source = values.as_ptr();
    let target = out.as_mut_ptr();
    let full_stores = if out.len() >= 64 {
        ((out.len() - 64) / stride + 1).min(groups)
    } else {
        0
    };
    for g in 0..groups {
        // SAFETY: the load reads values[8g..8g+8], inside `values` since g < values.len() / 8.
        // A full 64-byte store at byte g*stride is used only while it ends inside `out`
        // (g < full_stores); its bytes past the group are zero and the next groups overwrite
        // them. The last groups store only their `stride` bytes, which lie inside `out` by the
        // assertion above.
        unsafe {
            let value = _mm512_and_si512(_mm512_loadu_si512(source.add(8 * g).cast()), mask);
            let shifted = _mm512_sllv_epi64(value, shift);
            let packed = if spills {
                let spill = _mm512_srlv_epi64(value, spill_shift);
                _mm512_or_si512(
                    _mm512_maskz_permutex2var_epi8(keep_first, shifted, first, spill),
                    _mm512_maskz_permutex2var_epi8(keep_second, shifted, second, spill),
                )
            } else {
                _mm512_or_si512(
                    _mm512_maskz_permutexvar_epi8(keep_first, first, shifted),
                    _mm512_maskz_permutexvar_epi8(keep_second, second, shifted),
                )
            };
            if g < full_stores {
                _mm512_storeu_si512(target.add(g * stride).cast(), packed);
            } else {
                _mm512_mask_storeu_epi8(target.add(g * stride).cast(), group_mask, packed);
            }
        }
    }
}

/// Decodes the 8-value groups `first..=first + out.len() / 8` and writes the differences of
/// neighbouring values: `out[i] = v[8 * first + i + 1] - v[8 * first + i]` (wrapping), or adds
/// them to `out` when `ADD`. `out.len()` is a multiple of 8; one group past it is read for the
/// last difference. 1 <= bits <= 63.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn unpack_differences_groups8_avx512<const ADD: bool>(
    bytes: &[u8],
    bits: u32,
    first: usize,
    out: &mut [u64],
) {
    assert_eq!(out.len() % 8, 0);
    let stride = bits as usize;
    let groups = out.len() / 8;
    assert_readable(bytes, stride, first, groups + 1);
    let c = constants64(bits);
    let straddle = bits > 56;
    let base = bytes.as_ptr();
    let target = out.as_mut_ptr();
    // SAFETY: every load starts at a group in first..=first + groups, in bounds by
    // `assert_readable`; the load and store of out[8g..8g+8] are inside `out` since
    // g < out.len() / 8.
    unsafe {
        let mut current = decode8!(base.add(first * stride), c, straddle);
        for g in 0..groups {
            let next = decode8!(base.add((first + g + 1) * stride), c, straddle);
            // Lanes 1..8 of `current` then lane 0 of `next`: each value's successor.
            let successors = _mm512_alignr_epi64::<1>(next, current);
            let mut difference = _mm512_sub_epi64(successors, current);
            if ADD {
                difference =
                    _mm512_add_epi64(difference, _mm512_loadu_si512(target.add(8 * g).cast()));
            }
            _mm512_storeu_si512(target.add(8 * g).cast(), difference);
            current = next;
        }
    }
}

/// The sums of two arrays' neighbour differences over the 8-value groups `first..`:
/// `out[i] = (a[j + 1] - a[j]) + (b[j + 1] - b[j])` for `j = 8 * first + i` (wrapping), both
/// arrays decoded in the same loop (two memory streams at once). `out.len()` is a multiple of 8;
/// one group past it is read from each array. 1 <= bits <= 63 for both.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn unpack_paired_differences_groups8_avx512(
    a: (&[u8], u32),
    b: (&[u8], u32),
    first: usize,
    out: &mut [u64],
) {
    assert_eq!(out.len() % 8, 0);
    let (stride_a, stride_b) = (a.1 as usize, b.1 as usize);
    let groups = out.len() / 8;
    assert_readable(a.0, stride_a, first, groups + 1);
    assert_readable(b.0, stride_b, first, groups + 1);
    let (ca, cb) = (constants64(a.1), constants64(b.1));
    let (straddle_a, straddle_b) = (a.1 > 56, b.1 > 56);
    let (base_a, base_b) = (a.0.as_ptr(), b.0.as_ptr());
    let target = out.as_mut_ptr();
    // SAFETY: every load starts at a group in first..=first + groups of its array, in bounds by
    // `assert_readable`; the store of out[8g..8g+8] is inside `out` since g < out.len() / 8.
    unsafe {
        let mut current_a = decode8!(base_a.add(first * stride_a), ca, straddle_a);
        let mut current_b = decode8!(base_b.add(first * stride_b), cb, straddle_b);
        for g in 0..groups {
            let next_a = decode8!(base_a.add((first + g + 1) * stride_a), ca, straddle_a);
            let next_b = decode8!(base_b.add((first + g + 1) * stride_b), cb, straddle_b);
            let difference_a =
                _mm512_sub_epi64(_mm512_alignr_epi64::<1>(next_a, current_a), current_a);
            let difference_b =
                _mm512_sub_epi64(_mm512_alignr_epi64::<1>(next_b, current_b), current_b);
            _mm512_storeu_si512(
                target.add(8 * g).cast(),
                _mm512_add_epi64(difference_a, difference_b),
            );
            current_a = next_a;
            current_b = next_b;
        }
    }
}

/// [`super::scalar::paired_differences`] compiled with AVX2 enabled.
#[target_feature(enable = "avx2")]
pub fn paired_differences_avx2<T: Copy + Into<u64>, U: Copy + Into<u64>>(
    a: &[T],
    b: &[U],
    out: &mut [u64],
) {
    super::scalar::paired_differences(a, b, out)
}

/// [`super::scalar::differences`] compiled with AVX2 enabled. The slice kernels stop at 256-bit
/// vectors even on AVX-512 CPUs: their loads are one value apart from the stores, so 512-bit
/// loads would cross a cache line every time (measured slower on streamed CSR offsets).
#[target_feature(enable = "avx2")]
pub fn differences_avx2<T: Copy + Into<u64>, const ADD: bool>(values: &[T], out: &mut [u64]) {
    super::scalar::differences::<T, ADD>(values, out)
}

/// How a gather reads one value: the bytes from the value's first byte on, in one 8-byte window
/// (widths up to 56 bits: at most 7 offset bits + 56 value bits), two (57..=63 bits: up to 70
/// bits) or the whole 64-bit word (64 bits, no shift).
pub const GATHER_ONE_WINDOW: u8 = 0;
/// See [`GATHER_ONE_WINDOW`].
pub const GATHER_TWO_WINDOWS: u8 = 1;
/// See [`GATHER_ONE_WINDOW`].
pub const GATHER_WHOLE_WORDS: u8 = 2;

/// The gather mode of a width (one of the `GATHER_*` constants).
pub fn gather_mode(bits: u32) -> u8 {
    match bits {
        64 => GATHER_WHOLE_WORDS,
        57..=63 => GATHER_TWO_WINDOWS,
        _ => GATHER_ONE_WINDOW,
    }
}

/// Values `index * bits` of u64 lanes, from 32-bit multiplies (AVX-512 F and AVX2 have no 64-bit
/// one): `low32(index) * bits + (high32(index) * bits << 32)`, exact below 2^64.
macro_rules! bit_offsets {
    ($mul:ident, $srli:ident, $slli:ident, $add:ident, $index:expr, $bits:expr) => {{
        let low = $mul($index, $bits);
        let high = $mul($srli::<32>($index), $bits);
        $add(low, $slli::<32>(high))
    }};
}

/// Gathers the values at `indices[k]` (packed at `bits` bits in `words`) into `out[k]`, 8 per
/// step with AVX-512 gathers: the byte offsets `index * bits / 8` address unaligned windows (scale
/// 1), each shifted right by `index * bits % 8` and masked. Widths 57..=63 gather a second window
/// 8 bytes further and funnel both; 64 bits gather whole words. The last step masks its lanes,
/// so no scalar tail is needed.
///
/// # Safety
/// The CPU must support AVX-512 F; no index may exceed `max_index` (whose windows are checked
/// against `words` here, so `max_index` may be any bound the caller has proved).
#[target_feature(enable = "avx512f")]
pub unsafe fn gather_avx512(
    words: &[u64],
    bits: u32,
    indices: &[usize],
    max_index: usize,
    out: &mut [u64],
) {
    assert!((1..=64).contains(&bits));
    assert!(out.len() >= indices.len());
    super::gather::assert_gather_readable(words, bits, max_index);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    // SAFETY: forwarded: the CPU has AVX-512 F, every index is at most `max_index`, whose
    // windows were just checked, and `out` is long enough.
    unsafe {
        match gather_mode(bits) {
            GATHER_WHOLE_WORDS => {
                gather_avx512_mode::<GATHER_WHOLE_WORDS>(bytes, bits, indices, out)
            }
            GATHER_TWO_WINDOWS => {
                gather_avx512_mode::<GATHER_TWO_WINDOWS>(bytes, bits, indices, out)
            }
            _ => gather_avx512_mode::<GATHER_ONE_WINDOW>(bytes, bits, indices, out),
        }
    }
}

/// The loop of [`gather_avx512`] for one `GATHER_*` mode.
///
/// # Safety
/// As [`gather_avx512`], with every index's windows inside `bytes` (checked by the caller).
#[target_feature(enable = "avx512f")]
unsafe fn gather_avx512_mode<const MODE: u8>(
    bytes: &[u8],
    bits: u32,
    indices: &[usize],
    out: &mut [u64],
) {
    let base = bytes.as_ptr().cast::<i64>();
    let width = _mm512_set1_epi64(i64::from(bits));
    let seven = _mm512_set1_epi64(7);
    let sixty_four = _mm512_set1_epi64(64);
    let mask = _mm512_set1_epi64(max_value(bits) as i64);
    let source = indices.as_ptr().cast::<i64>();
    let target = out.as_mut_ptr().cast::<i64>();
    let mut k = 0;
    while k < indices.len() {
        let left = indices.len() - k;
        let lanes: __mmask8 = if left >= 8 { 0xFF } else { (1u8 << left) - 1 };
        // SAFETY: the masked load reads indices[k..k + 8] for the lanes in `lanes` only (masked
        // lanes are never accessed), all inside `indices`. Each gathered lane reads 8 bytes at
        // a value's first byte (or 8 more bytes after those, or the value's word at 64 bits):
        // inside `bytes` because every index is at most the checked `max_index`; masked-off
        // lanes read nothing. The masked store writes out[k..k + 8] for the same lanes, inside
        // `out`, which is at least as long as `indices`.
        unsafe {
            let index = _mm512_maskz_loadu_epi64(lanes, source.add(k));
            let value = if MODE == GATHER_WHOLE_WORDS {
                _mm512_mask_i64gather_epi64::<8>(_mm512_setzero_si512(), lanes, index, base)
            } else {
                let bit = bit_offsets!(
                    _mm512_mul_epu32,
                    _mm512_srli_epi64,
                    _mm512_slli_epi64,
                    _mm512_add_epi64,
                    index,
                    width
                );
                let byte = _mm512_srli_epi64::<3>(bit);
                let shift = _mm512_and_si512(bit, seven);
                let zero = _mm512_setzero_si512();
                let low = _mm512_mask_i64gather_epi64::<1>(zero, lanes, byte, base);
                let mut value = _mm512_srlv_epi64(low, shift);
                if MODE == GATHER_TWO_WINDOWS {
                    // The high window's bits above the low window's, or nothing at shift 0
                    // (`vpsllvq` by 64 gives 0).
                    let high = _mm512_mask_i64gather_epi64::<1>(zero, lanes, byte, base.add(1));
                    let high = _mm512_sllv_epi64(high, _mm512_sub_epi64(sixty_four, shift));
                    value = _mm512_or_si512(value, high);
                }
                _mm512_and_si512(value, mask)
            };
            _mm512_mask_storeu_epi64(target.add(k), lanes, value);
        }
        k += 8;
    }
}

/// [`gather_avx512`] with AVX2 gathers, 4 values per step; the last `indices.len() % 4` values
/// are read one by one.
///
/// # Safety
/// The CPU must support AVX2; no index may exceed `max_index` (checked against `words` here).
#[target_feature(enable = "avx2")]
pub unsafe fn gather_avx2(
    words: &[u64],
    bits: u32,
    indices: &[usize],
    max_index: usize,
    out: &mut [u64],
) {
    assert!((1..=64).contains(&bits));
    assert!(out.len() >= indices.len());
    super::gather::assert_gather_readable(words, bits, max_index);
    let bytes: &[u8] = bytemuck::cast_slice(words);
    // SAFETY: as in `gather_avx512`, with AVX2.
    unsafe {
        match gather_mode(bits) {
            GATHER_WHOLE_WORDS => gather_avx2_mode::<GATHER_WHOLE_WORDS>(bytes, bits, indices, out),
            GATHER_TWO_WINDOWS => gather_avx2_mode::<GATHER_TWO_WINDOWS>(bytes, bits, indices, out),
            _ => gather_avx2_mode::<GATHER_ONE_WINDOW>(bytes, bits, indices, out),
        }
    }
}

/// The loop of [`gather_avx2`] for one `GATHER_*` mode.
///
/// # Safety
/// As [`gather_avx2`], with every index's windows inside `bytes` (checked by the caller).
#[target_feature(enable = "avx2")]
unsafe fn gather_avx2_mode<const MODE: u8>(
    bytes: &[u8],
    bits: u32,
    indices: &[usize],
    out: &mut [u64],
) {
    let base = bytes.as_ptr().cast::<i64>();
    let width = _mm256_set1_epi64x(i64::from(bits));
    let seven = _mm256_set1_epi64x(7);
    let sixty_four = _mm256_set1_epi64x(64);
    let mask = _mm256_set1_epi64x(max_value(bits) as i64);
    let whole = indices.len() / 4 * 4;
    let source = indices.as_ptr();
    let target = out.as_mut_ptr();
    for k in (0..whole).step_by(4) {
        // SAFETY: the load reads indices[k..k + 4] and the store writes out[k..k + 4], inside
        // both since k + 4 <= whole <= indices.len() <= out.len(). Each gathered lane reads
        // inside `bytes` because every index is at most the checked `max_index`.
        unsafe {
            let index = _mm256_loadu_si256(source.add(k).cast());
            let value = if MODE == GATHER_WHOLE_WORDS {
                _mm256_i64gather_epi64::<8>(base, index)
            } else {
                let bit = bit_offsets!(
                    _mm256_mul_epu32,
                    _mm256_srli_epi64,
                    _mm256_slli_epi64,
                    _mm256_add_epi64,
                    index,
                    width
                );
                let byte = _mm256_srli_epi64::<3>(bit);
                let shift = _mm256_and_si256(bit, seven);
                let mut value = _mm256_srlv_epi64(_mm256_i64gather_epi64::<1>(base, byte), shift);
                if MODE == GATHER_TWO_WINDOWS {
                    let high = _mm256_i64gather_epi64::<1>(base.add(1), byte);
                    let high = _mm256_sllv_epi64(high, _mm256_sub_epi64(sixty_four, shift));
                    value = _mm256_or_si256(value, high);
                }
                _mm256_and_si256(value, mask)
            };
            _mm256_storeu_si256(target.add(k).cast(), value);
        }
    }
    let words: &[u64] = bytemuck::cast_slice(bytes);
    for (slot, &index) in out[whole..indices.len()].iter_mut().zip(&indices[whole..]) {
        // SAFETY: the index is at most `max_index`, whose windows (the ones `get_unchecked`
        // reads) lie inside the storage.
        *slot = unsafe { super::get_unchecked(words, bits, index) };
    }
}

/// The largest of `indices`, compiled with AVX-512 F (`vpmaxuq`).
#[target_feature(enable = "avx512f")]
pub fn largest_avx512(indices: &[usize]) -> Option<usize> {
    indices.iter().copied().max()
}

/// The largest of `indices`, compiled with AVX2.
#[target_feature(enable = "avx2")]
pub fn largest_avx2(indices: &[usize]) -> Option<usize> {
    indices.iter().copied().max()
}

/// Which values of 16-value groups `first..first + groups.len()` lie in `lo..=lo + span` (u32
/// lanes, 1 <= bits <= 25): one 16-bit mask per group, bit `j` for the group's value `j`. The
/// values are decoded and compared in registers, never stored.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn range_masks16_avx512(
    bytes: &[u8],
    bits: u32,
    first: usize,
    lo: u32,
    span: u32,
    out: &mut [u16],
) {
    assert!(bits <= U32_LANE_MAX_BITS);
    let stride = 2 * bits as usize;
    assert_readable(bytes, stride, first, out.len());
    let c = constants32(bits);
    let (low, width) = (_mm512_set1_epi32(lo as i32), _mm512_set1_epi32(span as i32));
    let base = bytes.as_ptr();
    // SAFETY: `assert_readable` proved that a 64-byte load at the start of every group stays
    // inside `bytes`; `loadu` needs no alignment.
    unsafe {
        for (g, mask) in out.iter_mut().enumerate() {
            let values = decode16!(base.add((first + g) * stride), c);
            *mask = _mm512_cmple_epu32_mask(_mm512_sub_epi32(values, low), width);
        }
    }
}

/// [`range_masks16_avx512`] for 8-value groups in u64 lanes (1 <= bits <= 63): one 8-bit mask
/// per group.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn range_masks8_avx512(
    bytes: &[u8],
    bits: u32,
    first: usize,
    lo: u64,
    span: u64,
    out: &mut [u8],
) {
    let stride = bits as usize;
    assert_readable(bytes, stride, first, out.len());
    let c = constants64(bits);
    let straddle = bits > 56;
    let (low, width) = (_mm512_set1_epi64(lo as i64), _mm512_set1_epi64(span as i64));
    let base = bytes.as_ptr();
    // SAFETY: as in `range_masks16_avx512`.
    unsafe {
        for (g, mask) in out.iter_mut().enumerate() {
            let values = decode8!(base.add((first + g) * stride), c, straddle);
            *mask = _mm512_cmple_epu64_mask(_mm512_sub_epi64(values, low), width);
        }
    }
}
