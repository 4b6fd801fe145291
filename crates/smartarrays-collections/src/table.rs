//! The compact hash table behind every collection: buckets of one cache line in placed memory
//! (one region, or one replica per node), keys stored as remainders (quotienting), widths chosen
//! from the data and widened by rebuilding, never by truncating.
//!
//! A key code `c` (below `2^w`) is hashed by the `w`-bit bijection `h = mix(c)`. With `n`
//! buckets (any count, not only powers of two) and `k = floor(log2 n)`, the product `h * n`
//! splits into the home bucket `h * n >> w` and a fraction `f = h * n mod 2^w`; the remainder
//! `f >> k` (`w - k` bits) tells `h` apart from every other hash with the same home, so the
//! table keeps only the remainder: its top 7 bits in the tag lane, the rest in the payload.
//! The key comes back as `h = ceil((home * 2^w + remainder * 2^k) / n)`, then `c = unmix(h)`.
//! Doubling the bucket count needs no key at all: the new home is `2 * home` plus the
//! remainder's top bit, and the new remainder is the old one without that bit.

use std::sync::Arc;

use smartarrays::memory::prefetch::{prefetch, CacheLevel};
use smartarrays::memory::{self, HugePages, Region, ResolvedPlacement};
use smartarrays::{PlacementReport, Runtime, Topology, TopologySource};

use crate::bucket::{Bucket, Layout, MAX_DISPLACEMENT, TAG_BITS};
use crate::error::{Error, Result};
use crate::hash::{bits_needed, low_mask, Mixer};

/// A rebuild writes every page of its new table first when it moves at least this many
/// entries per page: then nearly every page receives an entry anyway (an empty page is about
/// e^-4 likely), so no page is mapped that the moves would not have touched.
const PREFAULT_ENTRIES_PER_PAGE: u64 = 4;

/// A table of at most this many pages (2 MiB of 4 KiB pages) has every page written at its
/// first entry (see [`Table::prefault`]): a small table is soon full, and its placing thread
/// is the one that would have touched its pages.
const PREFAULT_SMALL_PAGES: u64 = 512;

/// Codes hashed and prefetched ahead of their placement by [`Table::place_codes`].
pub(crate) const PLACE_BATCH: usize = 16;

/// The filter bit of a key's full remainder: its low 6 bits (every remainder has at least
/// the tag's 7 bits, and doubling the buckets keeps a remainder's low bits, so the bit of an
/// entry moved by position stays the same).
#[inline(always)]
fn mark(remainder: u64) -> u64 {
    1 << (remainder & 63)
}

/// A table of fewer buckets than this (256 KiB of buckets) grows by doubling: cheap (every
/// entry's new place follows from its old one, no key is recovered) and its memory is small.
/// From this size on it grows by [`GROWTH`] instead (two steps at once below
/// [`FAST_GROWTH_BUCKETS`]), so that it never drops far below its
/// load limit (a doubled table is half as full as it was: 0.375 after growing at 0.75).
const GENTLE_GROWTH_BUCKETS: u64 = 1 << 12;

/// The factor a table of at least [`GENTLE_GROWTH_BUCKETS`] buckets grows its bucket count
/// by, as a fraction `GROWTH.0 / GROWTH.1`. Its load after a growth is the limit divided by
/// this (0.6 at a limit of 0.75), every entry moves about `1 / (factor - 1)` times over the
/// table's life (4 moves at 5/4, against 1 when doubling), and a growth holds the old and new
/// tables at once: 2.25x the old table's memory, against 3x when doubling.
const GROWTH: (u64, u64) = (5, 4);

/// Below this bucket count (8 MiB of buckets, in the last-level cache) a table of at least
/// [`GENTLE_GROWTH_BUCKETS`] grows by two [`GROWTH`] steps at once (25/16): each growth moves
/// every entry, and a move is most of a single insert's cost (an entry moves about
/// `1 / (factor - 1)` times: 1.8 at 25/16 against 4 at 5/4). Its memory is small, so the
/// lower load after such a step (0.48 at a limit of 0.75) costs little. Both steps land on
/// the bucket counts of single steps from [`GENTLE_GROWTH_BUCKETS`], so a table past this size
/// has the bucket count it would have had growing by single steps all along.
const FAST_GROWTH_BUCKETS: u64 = 1 << 17;

/// One step of the bucket-count lattice: doubling when small, else by [`GROWTH`].
fn lattice_step(buckets: u64) -> Option<u64> {
    if buckets < GENTLE_GROWTH_BUCKETS {
        return buckets.checked_mul(2);
    }
    let step = buckets / GROWTH.1 * (GROWTH.0 - GROWTH.1);
    buckets.checked_add(step.max(1))
}

/// The bucket count after growing from `buckets`: one [`lattice_step`], or two while the
/// table is between [`GENTLE_GROWTH_BUCKETS`] and [`FAST_GROWTH_BUCKETS`].
fn grown(buckets: u64) -> Option<u64> {
    let next = lattice_step(buckets)?;
    if (GENTLE_GROWTH_BUCKETS..FAST_GROWTH_BUCKETS).contains(&buckets) {
        lattice_step(next)
    } else {
        Some(next)
    }
}

/// Recovers the mixed codes `h = ceil((home * 2^w + remainder * 2^k) / n)` of a table's
/// entries with no 128-bit division per entry (a rebuild by 5/4 moves every entry about four
/// times over a table's life, and the division was most of a move's cost).
///
/// Write `home * 2^w = q * n + s` (`s < n`): then `h = q + ceil((s + remainder * 2^k) / n)`.
/// The pair `(q, s)` of each home follows from the previous home's by adding the pair of
/// `2^w` once (bucket by bucket, see [`Table::each_mixed`]); the second part's dividend `x`
/// is below `2^w + n`, at most 65 bits, and its quotient comes from a multiplication by the
/// reciprocal `m = floor((2^64 - 1) / n)`: `t = floor(x * m / 2^64)` is at most `x / n` and
/// more than `x / n - 3`, so at most two subtractions of `n` from `x - t * n` correct it.
#[derive(Clone, Copy, Debug)]
struct Recovery {
    /// The bucket count `n`.
    buckets: u64,
    /// `k = floor(log2 n)`.
    log: u32,
    /// `w`.
    key_bits: u32,
    /// `floor(2^w / n)` (wrapped to 64 bits for `n = 1, w = 64`, whose single home never
    /// steps to a next one).
    step_quotient: u64,
    /// `2^w mod n`.
    step_residue: u64,
    /// `floor((2^64 - 1) / n)`.
    reciprocal: u64,
}

impl Recovery {
    fn new(key_bits: u32, buckets: u64, log: u32) -> Recovery {
        let domain = 1u128 << key_bits;
        let n = u128::from(buckets.max(1));
        Recovery {
            buckets: buckets.max(1),
            log,
            key_bits,
            step_quotient: (domain / n) as u64,
            step_residue: (domain % n) as u64,
            reciprocal: u64::MAX / buckets.max(1),
        }
    }

    /// The pair `(q, s)` of `home`, by division (for a first home, or one that wrapped).
    fn base(&self, home: u64) -> (u64, u64) {
        let a = u128::from(home) << self.key_bits;
        let n = u128::from(self.buckets);
        ((a / n) as u64, (a % n) as u64)
    }

    /// The pair of the home after the one whose pair is `(q, s)`.
    #[inline(always)]
    fn next(&self, (q, s): (u64, u64)) -> (u64, u64) {
        // `s + step_residue < 2n`, far below 2^64 (n <= 2^40).
        let s = s + self.step_residue;
        let q = q.wrapping_add(self.step_quotient);
        if s >= self.buckets {
            (q.wrapping_add(1), s - self.buckets)
        } else {
            (q, s)
        }
    }

    /// The mixed code of the entry with `remainder` whose home's pair is `(q, s)`.
    #[inline(always)]
    fn mixed(&self, (q, s): (u64, u64), remainder: u64) -> u64 {
        // `remainder < 2^(w - k)`, so the shift keeps every bit; `x = 2^64 * carry + low`.
        let (low, carry) = s.overflowing_add(remainder << self.log);
        let m = self.reciprocal;
        let mut t = ((u128::from(low) * u128::from(m)) >> 64) as u64;
        if carry {
            t += m;
        }
        // `x - t * n` is below 3n, so its low 64 bits are all of it.
        let mut rest = low.wrapping_sub(t.wrapping_mul(self.buckets));
        while rest >= self.buckets {
            rest -= self.buckets;
            t += 1;
        }
        // Wrapping only for (home, remainder) pairs no hash has (`h` would be `2^64`).
        q.wrapping_add(t).wrapping_add(u64::from(rest != 0))
    }

    /// [`Recovery::next`] of a pair whose `s` is biased by `n - 1` (`s + n - 1`, below
    /// `2n - 1`).
    #[inline(always)]
    fn next_biased(&self, (q, s): (u64, u64)) -> (u64, u64) {
        let s = s + self.step_residue;
        let q = q.wrapping_add(self.step_quotient);
        if s >= 2 * self.buckets - 1 {
            (q.wrapping_add(1), s - self.buckets)
        } else {
            (q, s)
        }
    }

    /// Whether [`Recovery::mixed_narrow`] applies (a hash domain of at most 63 bits), and if so
    /// its reciprocal and whether that is exact (see there).
    fn narrow(&self) -> Option<(u64, bool)> {
        if self.key_bits > 63 {
            return None;
        }
        let n = u128::from(self.buckets);
        // `x < 2^w + 2n`: exact when `x * n < 2^64` for every such `x`; `n >= 2` so that
        // `ceil(2^64 / n)` fits a word.
        let exact = n >= 2 && ((1u128 << self.key_bits) + 2 * n) * n <= 1 << 64;
        Some(if exact {
            ((1u128 << 64).div_ceil(n) as u64, true)
        } else {
            (self.reciprocal, false)
        })
    }

    /// [`Recovery::mixed`] of a hash domain of at most 63 bits, with the reciprocal `m` of
    /// [`Recovery::narrow`]. The ceiling is the floor of `x = s + remainder * 2^k + n - 1`,
    /// below `2^w + 2n <= 2^63 + 2^41`, so `x` fits a word and no carry arises.
    ///
    /// `EXACT` (`m = ceil(2^64 / n)`, where `x * n < 2^64` for every `x`): `m * n = 2^64 + e`
    /// with `e < n`, so `x * m / 2^64 = x / n + x * e / (n * 2^64)`, whose second term is below
    /// `1 / n`; the high word of `x * m` is the floor of `x / n` itself.
    ///
    /// Else (`m = floor((2^64 - 1) / n)`, so `m * n >= 2^64 - n`): `x * m / 2^64 >= x / n -
    /// x / 2^64 > x / n - 0.51`, so the high word `t` of `x * m` is the floor of `x / n` or one
    /// less, and one conditional step corrects it.
    ///
    /// The pair's `s` comes biased by `n - 1` (see [`Recovery::next_biased`]) and the
    /// remainder shifted up by `k`: `x` is their sum.
    #[inline(always)]
    fn mixed_narrow<const EXACT: bool>(&self, (q, s): (u64, u64), shifted: u64, m: u64) -> u64 {
        let n = self.buckets;
        let x = s + shifted;
        let t = ((u128::from(x) * u128::from(m)) >> 64) as u64;
        if EXACT {
            q + t
        } else {
            q + t + u64::from(x - t * n >= n)
        }
    }
}

/// The hashing constants of a table: the half of it that [`Table::hash`] reads, apart from its
/// memory, so that a rebuild can hash (a copy) while a [`Filler`] holds the memory.
#[derive(Clone, Copy, Debug)]
struct Hasher {
    mixer: Mixer,
    /// `64 - key_bits`: a hash shifted up by this is aligned to the top of a word, so one
    /// 64x64-bit product gives the home bucket (high word) and the fraction (low word).
    top_shift: u32,
    /// `64 - key_bits + log`: the fraction's top-aligned word shifted down by this is the
    /// remainder.
    remainder_shift: u32,
    /// The bucket count `n`.
    buckets: u64,
    /// Remainder bits kept in the payload (the rest go to the tag).
    remainder_bits: u32,
    /// Low ones over the remainder bits kept in the payload.
    stored_mask: u64,
}

impl Hasher {
    /// The hasher of a table of `buckets` buckets (`log = floor(log2 buckets)`) hashing over
    /// `key_bits` bits and keeping `remainder_bits` of each remainder in the payload.
    fn new(key_bits: u32, buckets: u64, log: u32, remainder_bits: u32) -> Hasher {
        Hasher {
            mixer: Mixer::new(key_bits),
            top_shift: 64 - key_bits,
            remainder_shift: 64 - key_bits + log,
            buckets,
            remainder_bits,
            stored_mask: low_mask(remainder_bits),
        }
    }

    /// Hashes a mixed code `h = mix(code)` (below `2^w`).
    #[inline(always)]
    fn hash_mixed(&self, h: u64) -> Hashed {
        let (home, remainder) = self.home_and_remainder(h);
        self.hashed(home, remainder)
    }

    /// The home bucket and full remainder of a mixed code: all a filter check needs.
    #[inline(always)]
    fn home_and_remainder(&self, h: u64) -> (u64, u64) {
        // `h * n` with `h` aligned to the top of a word: the high word is `h * n >> w` (the
        // home) and the low word the fraction `h * n mod 2^w`, aligned to the top too.
        let top = h << self.top_shift;
        let product = u128::from(top) * u128::from(self.buckets);
        (
            (product >> 64) as u64,
            (product as u64) >> self.remainder_shift,
        )
    }

    /// The home bucket of a mixed code and the fraction `h * n mod 2^w` aligned to the top of
    /// a word: the remainder is the fraction shifted down by `remainder_shift`, the tag's 7
    /// bits are its top bits.
    #[inline(always)]
    fn home_and_fraction(&self, h: u64) -> (u64, u64) {
        let product = u128::from(h << self.top_shift) * u128::from(self.buckets);
        ((product >> 64) as u64, product as u64)
    }

    /// A key's home and remainder split into tag, payload remainder and filter bit.
    #[inline(always)]
    fn hashed(&self, home: u64, remainder: u64) -> Hashed {
        Hashed {
            home,
            tag: 0x80 | (remainder >> self.remainder_bits) as u8,
            stored: remainder & self.stored_mask,
            mark: mark(remainder),
        }
    }
}

/// Places entries into the first replica of a table being rebuilt, in place (no copy of the
/// bucket, no loop over replicas); [`Table::copy_first_replica`] copies the result over.
struct Filler<'a> {
    layout: &'a Layout,
    buckets: &'a mut [Bucket],
    filter: Option<&'a mut [u64]>,
}

impl Filler<'_> {
    /// Places into the first free slot within reach of the home; its displacement, `None`
    /// when there is none.
    #[inline(always)]
    fn place(&mut self, hashed: &Hashed, value: u64) -> Option<u64> {
        let layout = self.layout;
        let home = hashed.home as usize;
        // The home bucket first, on its own: most entries land there, with no loop state.
        let bucket = self.buckets.get_mut(home)?;
        // A home with a filter word is a table of at most 16 slots a bucket, whose tags fill
        // one vector: no dispatch on the vector count.
        let filter = self.filter.as_mut().and_then(|f| f.get_mut(home));
        let empty = if filter.is_some() {
            layout.first_empty_narrow(bucket)
        } else {
            layout.first_empty(bucket)
        };
        if let Some(slot) = empty {
            if layout.slot_fits_bytes() {
                // One byte store and one unaligned read-modify-write, as the growth move.
                let head = layout.compose_word(hashed.stored, value);
                layout.fill_bytes(bucket, slot, hashed.tag, head);
            } else {
                layout.fill(bucket, slot, hashed.tag, hashed.stored, value);
            }
            if let Some(word) = filter {
                *word |= hashed.mark;
            }
            return Some(0);
        }
        self.place_displaced(hashed, value)
    }

    /// The rest of [`Filler::place`]: the buckets after home.
    #[inline(never)]
    fn place_displaced(&mut self, hashed: &Hashed, value: u64) -> Option<u64> {
        let count = self.buckets.len();
        let home = hashed.home as usize;
        let mut index = home;
        for displacement in 0..=MAX_DISPLACEMENT {
            let bucket = self.buckets.get_mut(index)?;
            if let Some(slot) = self.layout.first_empty(bucket) {
                let field = hashed.stored | displacement << self.layout.remainder_bits;
                self.layout.fill(bucket, slot, hashed.tag, field, value);
                if let Some(word) = self.filter.as_mut().and_then(|f| f.get_mut(home)) {
                    *word |= hashed.mark;
                }
                // Every bucket passed on the way counts one more entry beyond it.
                let mut passed = home;
                for _ in 0..displacement {
                    Layout::bump_overflow(&mut self.buckets[passed], true);
                    passed = if passed + 1 == count { 0 } else { passed + 1 };
                }
                return Some(displacement);
            }
            index = if index + 1 == count { 0 } else { index + 1 };
        }
        None
    }
}

/// The growth move's fast loop compiled twice: portably, and for BMI1 and BMI2 (`shlx` and
/// `shrx` shift by any register, so the loop's shift counts need not go through `cl`;
/// `tzcnt` and `blsr` scan the occupied slots), chosen once per move at run time. The build
/// targets baseline x86-64, so the portable copy runs on every CPU; both copies are the same
/// source, so they build the same table.
mod isa {
    use super::Table;

    /// Which copy of the fast move runs.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(super) enum Isa {
        /// Compiled for the build's target (baseline x86-64: no BMI).
        Portable,
        /// Compiled for BMI1 and BMI2; only chosen on a CPU that has both.
        Bmi2,
    }

    impl Isa {
        /// The best copy this CPU runs (the detection is cached by the standard library).
        #[inline]
        pub(super) fn detected() -> Isa {
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("bmi1") && std::is_x86_feature_detected!("bmi2") {
                return Isa::Bmi2;
            }
            Isa::Portable
        }
    }

    /// [`Table::move_fast_any`] through the copy `isa` names, or the portable one where the
    /// CPU does not have its instructions (so a test can ask for either anywhere).
    pub(super) fn move_fast(
        old: &Table,
        table: &mut Table,
        reciprocal: u64,
        exact: bool,
        isa: Isa,
    ) -> Option<u64> {
        #[cfg(target_arch = "x86_64")]
        if isa == Isa::Bmi2 && Isa::detected() == Isa::Bmi2 {
            // SAFETY: `move_fast_bmi2` is compiled for BMI1 and BMI2, and this CPU has both
            // (just checked); it is otherwise an ordinary safe function.
            return unsafe { move_fast_bmi2(old, table, reciprocal, exact) };
        }
        let _ = isa;
        move_fast_portable(old, table, reciprocal, exact)
    }

    /// The portable copy: baseline x86-64 (or whatever the target is) only.
    #[inline(never)]
    fn move_fast_portable(
        old: &Table,
        table: &mut Table,
        reciprocal: u64,
        exact: bool,
    ) -> Option<u64> {
        old.move_fast_any(table, reciprocal, exact)
    }

    /// The BMI1 and BMI2 copy: the same source as [`move_fast_portable`], compiled for those
    /// instructions (every function it inlines too); the caller checks the CPU first.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2")]
    #[inline(never)]
    fn move_fast_bmi2(old: &Table, table: &mut Table, reciprocal: u64, exact: bool) -> Option<u64> {
        old.move_fast_any(table, reciprocal, exact)
    }
}

/// Most slots per bucket of a table that keeps a filter word per bucket: with more, a word's
/// 64 bits would be too full to turn many absent keys away.
const FILTER_MAX_SLOTS: u32 = 16;
// A table with a filter compares its tags as one 16-byte vector (`Layout::matches_narrow`).
const _: () = assert!(FILTER_MAX_SLOTS <= 16);

/// Where a table's memory goes; shared by the partitions of one collection.
#[derive(Clone, Debug)]
pub(crate) struct Storage {
    pub placement: ResolvedPlacement,
    pub huge_pages: HugePages,
    pub runtime: Arc<Runtime>,
}

impl Storage {
    pub(crate) fn topology(&self) -> &Arc<Topology> {
        self.runtime.topology()
    }
}

/// A key hashed into a table: its home bucket, tag byte and payload remainder.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hashed {
    pub home: u64,
    pub tag: u8,
    pub stored: u64,
    /// The key's bit in its home bucket's filter word.
    pub mark: u64,
}

/// A slot of a table.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Position {
    pub bucket: usize,
    pub slot: u32,
}

/// One compact table (a collection has one per partition).
pub(crate) struct Table {
    /// Key hash domain in bits (`w`): every key code is below `2^w`.
    key_bits: u32,
    /// Bucket count (`n`, 0 until the first insert).
    buckets: u64,
    /// `floor(log2 n)`.
    log: u32,
    /// The bits no key code inside the hash domain has (`!(2^w - 1)`).
    outside: u64,
    layout: Layout,
    hasher: Hasher,
    len: usize,
    /// Entries the table holds before it grows (its slots times the load limit).
    limit: u64,
    regions: Vec<Region>,
    region_nodes: Vec<Option<usize>>,
    /// One filter word per bucket, per replica (placed like the buckets): bit `remainder % 64`
    /// is set for every key placed with this bucket as home, so most absent keys are answered
    /// from this array, an eighth of the buckets' size, without reading a bucket. Bits are not
    /// cleared on removal (a stale bit costs one bucket read, never a wrong answer). None for
    /// layouts of more than [`FILTER_MAX_SLOTS`] slots per bucket, whose words would fill up.
    filters: Vec<Region>,
    storage: Arc<Storage>,
    /// No entry placed and no page written since the table was mapped.
    untouched: bool,
    /// The bitwise or of every value placed or set since the table was built (removals leave
    /// it as it was): what the values need, without reading them.
    values_seen: u64,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("len", &self.len)
            .field("buckets", &self.buckets)
            .field("key_bits", &self.key_bits)
            .field("layout", &self.layout)
            .finish_non_exhaustive()
    }
}

/// Highest load a table of `slots` slots per bucket is filled to before it grows. Probing by
/// bucket clusters: measured with 12 slots and a reach of 16 buckets, the first entry that finds
/// no slot within reach comes at a load of about 0.78, so the limit stays below that.
fn max_load(slots: u32) -> f64 {
    if slots >= 8 {
        0.75
    } else {
        0.6
    }
}

/// How far under its load limit a table built for a known count starts: close, so that a
/// table sized once (a batch, a group-by's partition, `with_capacity`) is nearly as full as
/// the format allows, but not at it, so that a build rarely meets a cluster that does not fit.
const BUILD_MARGIN: f64 = 0.03;

/// The geometry for `entries` keys below `2^key_bits_min` with `value_bits`: key bits, bucket
/// count and layout, at a load [`BUILD_MARGIN`] under the maximum.
fn geometry(entries: u64, key_bits_min: u32, value_bits: u32) -> Result<(u32, u64, Layout)> {
    let overflow = || Error::CapacityOverflow { entries };
    let need = |layout: Layout| need_of(entries, layout);
    let mut buckets = 1u64;
    for _ in 0..16 {
        let (key_bits, layout) = widths(buckets, key_bits_min, value_bits).ok_or_else(overflow)?;
        let need = need(layout);
        if need <= buckets {
            // Fewer buckets have longer remainders, so maybe fewer slots: `need` buckets
            // do when their own layout holds the entries, else `buckets`.
            let (small_key_bits, small) =
                widths(need, key_bits_min, value_bits).ok_or_else(overflow)?;
            if need_of(entries, small) <= need {
                return Ok((small_key_bits, need, small));
            }
            return Ok((key_bits, buckets, layout));
        }
        buckets = need;
    }
    let (key_bits, layout) = widths(buckets, key_bits_min, value_bits).ok_or_else(overflow)?;
    Ok((key_bits, buckets, layout))
}

/// Buckets of `layout` that hold `entries` at [`BUILD_MARGIN`] under the load limit.
fn need_of(entries: u64, layout: Layout) -> u64 {
    let target = max_load(layout.slots) - BUILD_MARGIN;
    ((entries as f64) / (f64::from(layout.slots) * target)).ceil() as u64
}

/// Key bits and layout for `buckets` buckets: the hash domain must leave at least the tag's 7
/// bits of remainder. `None` when the bucket count is beyond any 64-bit domain.
fn widths(buckets: u64, key_bits_min: u32, value_bits: u32) -> Option<(u32, Layout)> {
    let log = 63 - buckets.max(1).leading_zeros();
    let key_bits = key_bits_min.max(log + TAG_BITS);
    if key_bits > 64 || buckets > (1 << 40) {
        return None;
    }
    Some((key_bits, Layout::new(key_bits - log - TAG_BITS, value_bits)))
}

impl Table {
    /// An empty table that maps nothing until its first insert.
    pub(crate) fn empty(storage: Arc<Storage>) -> Table {
        Table {
            key_bits: TAG_BITS,
            buckets: 0,
            log: 0,
            outside: u64::MAX,
            layout: Layout::new(0, 0),
            hasher: Hasher::new(TAG_BITS, 0, 0, 0),
            len: 0,
            limit: 0,
            regions: Vec::new(),
            region_nodes: Vec::new(),
            filters: Vec::new(),
            storage,
            untouched: false,
            values_seen: 0,
        }
    }

    /// A table with room for `entries` keys below `2^key_bits` and values of `value_bits`.
    pub(crate) fn with_geometry(
        storage: Arc<Storage>,
        entries: u64,
        key_bits: u32,
        value_bits: u32,
    ) -> Result<Table> {
        let (key_bits, buckets, layout) = geometry(entries.max(1), key_bits, value_bits)?;
        Table::allocate(storage, key_bits, buckets, layout)
    }

    fn allocate(
        storage: Arc<Storage>,
        key_bits: u32,
        buckets: u64,
        layout: Layout,
    ) -> Result<Table> {
        let words = buckets
            .checked_mul(8)
            .and_then(|w| usize::try_from(w).ok())
            .ok_or(Error::CapacityOverflow { entries: buckets })?;
        // The core checks the size against free memory (per node, or the machine's) before it
        // maps anything, so an impossible table is a typed error.
        let allocation = memory::allocate(
            storage.topology(),
            &storage.placement,
            words,
            storage.huge_pages,
        )?;
        let filters = if layout.slots <= FILTER_MAX_SLOTS {
            memory::allocate(
                storage.topology(),
                &storage.placement,
                words / 8,
                storage.huge_pages,
            )?
            .regions
        } else {
            Vec::new()
        };
        let log = 63 - buckets.leading_zeros();
        Ok(Table {
            key_bits,
            buckets,
            log,
            outside: !low_mask(key_bits),
            layout,
            hasher: Hasher::new(key_bits, buckets, log, layout.remainder_bits),
            len: 0,
            limit: (buckets as f64 * f64::from(layout.slots) * max_load(layout.slots)) as u64,
            regions: allocation.regions,
            region_nodes: allocation.nodes,
            filters,
            storage,
            untouched: true,
            values_seen: 0,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn key_bits(&self) -> u32 {
        self.key_bits
    }

    pub(crate) fn layout(&self) -> Layout {
        self.layout
    }

    pub(crate) fn bucket_count(&self) -> u64 {
        self.buckets
    }

    pub(crate) fn replicas(&self) -> usize {
        self.regions.len()
    }

    pub(crate) fn replica_nodes(&self) -> &[Option<usize>] {
        &self.region_nodes
    }

    /// Where the table's pages are, replica by replica, as the kernel reports them (no
    /// replicas before the first insert maps any memory).
    pub(crate) fn placement_report(&self) -> Result<PlacementReport> {
        let replicas = self
            .regions
            .iter()
            .zip(&self.region_nodes)
            .map(|(region, &node)| memory::region_report(region, node))
            .collect::<smartarrays::Result<Vec<_>>>()?;
        Ok(PlacementReport {
            placement: self.storage.placement.placement().to_string(),
            page_size: memory::page_size(),
            replicas,
            simulated: self.storage.topology().source() == TopologySource::Described,
        })
    }

    /// The words of replica `replica` (empty when there is no such replica).
    pub(crate) fn replica_words(&self, replica: usize) -> &[u64] {
        self.regions.get(replica).map_or(&[], Region::words)
    }

    /// Bytes mapped for the table (buckets and filters, all replicas, whole pages).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.regions
            .iter()
            .chain(&self.filters)
            .map(Region::mapped_bytes)
            .sum()
    }

    /// Slots in all buckets.
    pub(crate) fn capacity_slots(&self) -> u64 {
        self.buckets * u64::from(self.layout.slots)
    }

    fn max_entries(&self) -> u64 {
        self.limit
    }

    /// The replica the calling thread should read: its node's copy, else the first.
    #[inline]
    pub(crate) fn local_replica(&self) -> usize {
        if self.regions.len() <= 1 {
            return 0;
        }
        let node = smartarrays::runtime::current_worker_node()
            .or_else(|| self.storage.topology().current_node());
        node.and_then(|n| self.region_nodes.iter().position(|&r| r == Some(n)))
            .unwrap_or(0)
    }

    /// The buckets of replica `replica`.
    #[inline(always)]
    pub(crate) fn buckets(&self, replica: usize) -> &[Bucket] {
        match self.regions.get(replica) {
            Some(region) => region.words().as_chunks::<8>().0,
            None => &[],
        }
    }

    fn write(&mut self, index: usize, bucket: &Bucket) {
        for region in &mut self.regions {
            region.words_mut().as_chunks_mut::<8>().0[index] = *bucket;
        }
    }

    /// Whether `code` is inside the hash domain.
    #[inline(always)]
    pub(crate) fn fits_key(&self, code: u64) -> bool {
        code & self.outside == 0 && self.buckets > 0
    }

    #[inline(always)]
    pub(crate) fn max_value(&self) -> u64 {
        self.layout.max_value()
    }

    /// Hashes a code inside the domain.
    #[inline(always)]
    pub(crate) fn hash(&self, code: u64) -> Hashed {
        self.hasher.hash_mixed(self.hasher.mixer.mix(code))
    }

    /// The filter words of replica `replica` (one per bucket).
    #[inline(always)]
    fn filter(&self, replica: usize) -> &[u64] {
        self.filters.get(replica).map_or(&[], Region::words)
    }

    /// Prefetches the filter word and the home bucket of a hashed key into L1.
    #[inline(always)]
    pub(crate) fn prefetch(&self, replica: usize, hashed: &Hashed) {
        prefetch(self.filter(replica), hashed.home as usize, CacheLevel::L1);
        prefetch(self.buckets(replica), hashed.home as usize, CacheLevel::L1);
    }

    /// Finds a hashed key in replica `replica`: the filter word of its home first, then the
    /// buckets from home on.
    #[inline(always)]
    pub(crate) fn find_in(&self, replica: usize, hashed: &Hashed) -> Option<Position> {
        // The position packed in one word on the way out (a slot is below 64), so that the
        // out-of-line rest of the probe returns it in registers.
        self.probe(replica, hashed, |_, position, _| {
            position.bucket << 6 | position.slot as usize
        })
        .map(|packed| Position {
            bucket: packed >> 6,
            slot: (packed & 63) as u32,
        })
    }

    /// The value of a hashed key in replica `replica`, read from the bucket the probe found
    /// it in.
    #[inline(always)]
    pub(crate) fn value_in(&self, replica: usize, hashed: &Hashed) -> Option<u64> {
        self.probe(replica, hashed, |bucket, position, head| {
            self.layout.head_value(bucket, position.slot, head)
        })
    }

    /// The filter words and buckets of replica `replica`, for a caller that looks up many
    /// keys (see [`Table::lookup_hash`] and [`Table::value_in_slices`]).
    #[inline(always)]
    pub(crate) fn lookup_slices(&self, replica: usize) -> (&[u64], &[Bucket]) {
        (self.filter(replica), self.buckets(replica))
    }

    /// Hashes `code` for a lookup in `slices` (from [`Table::lookup_slices`]) and prefetches
    /// its filter word and home bucket: its home and full remainder, all that a window of
    /// keys waiting for their lines keeps. A code outside the hash domain gets a home past
    /// every slice, so its probe finds nothing (and its prefetch, past the end, reads nothing).
    #[inline(always)]
    pub(crate) fn lookup_hash(
        &self,
        (filter, buckets): (&[u64], &[Bucket]),
        code: u64,
    ) -> (u64, u64) {
        let (mut home, remainder) = self.hasher.home_and_remainder(self.hasher.mixer.mix(code));
        if code & self.outside != 0 {
            home = u64::MAX;
        }
        prefetch(filter, home as usize, CacheLevel::L1);
        prefetch(buckets, home as usize, CacheLevel::L1);
        (home, remainder)
    }

    /// [`Table::value_in`] of a key hashed by [`Table::lookup_hash`], over slices from
    /// [`Table::lookup_slices`]. A table with a filter has one word per bucket, and an empty
    /// table no buckets, so a home past the filter's end is a home past the buckets.
    #[inline(always)]
    pub(crate) fn value_in_slices(
        &self,
        (filter, buckets): (&[u64], &[Bucket]),
        (home, remainder): (u64, u64),
    ) -> Option<u64> {
        self.value_at_home((filter, buckets), (home, remainder))
    }

    /// The probe behind [`Table::find_in`] and [`Table::value_in`]: `hit` gets the bucket,
    /// position and head (see [`Layout::head`]) of the key.
    #[inline(always)]
    fn probe<T>(
        &self,
        replica: usize,
        hashed: &Hashed,
        hit: impl FnOnce(&Bucket, Position, u64) -> T,
    ) -> Option<T> {
        // The bucket slice only past the filter: most misses end at the filter word.
        if Self::filtered_out(self.filter(replica), hashed) {
            return None;
        }
        self.probe_buckets::<false, _>(self.buckets(replica), hashed, hit)
    }

    /// Whether the filter word of the key's home rules it out (never when there is no filter).
    #[inline(always)]
    fn filtered_out(filter: &[u64], hashed: &Hashed) -> bool {
        Self::filtered_out_at(filter, hashed.home, hashed.mark)
    }

    /// [`Table::filtered_out`] for a home and filter bit.
    #[inline(always)]
    fn filtered_out_at(filter: &[u64], home: u64, mark: u64) -> bool {
        filter
            .get(home as usize)
            .is_some_and(|&word| word & mark == 0)
    }

    /// The buckets' half of a probe, once the filter has let the key through.
    #[inline(always)]
    fn probe_buckets<const NARROW: bool, T>(
        &self,
        buckets: &[Bucket],
        hashed: &Hashed,
        hit: impl FnOnce(&Bucket, Position, u64) -> T,
    ) -> Option<T> {
        let index = hashed.home as usize;
        let bucket = buckets.get(index)?;
        // The home bucket's first slot with the tag, on its own and with no loop: most keys
        // are there. A second tag match (1 in 128 per slot) or a key past home goes to the
        // out-of-line rest, which this path calls last, so that no register is live across
        // the call and a lookup saves none.
        let candidates = if NARROW {
            self.layout.matches_narrow(bucket, hashed.tag)
        } else {
            self.layout.matches(bucket, hashed.tag)
        };
        if candidates != 0 {
            let slot = candidates.trailing_zeros();
            let head = self.layout.head(bucket, slot);
            if self.layout.head_key(head) == hashed.stored {
                return Some(hit(
                    bucket,
                    Position {
                        bucket: index,
                        slot,
                    },
                    head,
                ));
            }
        } else if Layout::overflow(bucket) == 0 {
            return None;
        }
        // Tag and payload remainder as one word (the tag's high bit is always set), so the
        // call's arguments fit in registers.
        let remainder = u64::from(hashed.tag & 0x7f) << self.layout.remainder_bits | hashed.stored;
        self.probe_rest(buckets, index, remainder, hit)
    }

    /// The slot of `bucket` whose tag is `tag` and key field `expected`, with its head.
    #[inline(always)]
    fn find_slot(&self, bucket: &Bucket, tag: u8, expected: u64) -> Option<(u32, u64)> {
        let mut candidates = self.layout.matches(bucket, tag);
        while candidates != 0 {
            let slot = candidates.trailing_zeros();
            let head = self.layout.head(bucket, slot);
            if self.layout.head_key(head) == expected {
                return Some((slot, head));
            }
            candidates &= candidates - 1;
        }
        None
    }

    /// The rest of [`Table::probe_buckets`]: every slot with the tag from the home bucket
    /// on, while the overflow counts say some entry went past the bucket. `remainder` is the
    /// key's remainder kept in the table (the tag's low 7 bits over the payload's bits).
    #[inline(never)]
    fn probe_rest<T>(
        &self,
        buckets: &[Bucket],
        home: usize,
        remainder: u64,
        hit: impl FnOnce(&Bucket, Position, u64) -> T,
    ) -> Option<T> {
        let shift = self.layout.remainder_bits;
        let tag = 0x80 | (remainder >> shift) as u8;
        let stored = remainder & low_mask(shift);
        let mut index = home;
        for displacement in 0..=MAX_DISPLACEMENT {
            let bucket = buckets.get(index)?;
            let expected = stored | displacement << shift;
            if let Some((slot, head)) = self.find_slot(bucket, tag, expected) {
                return Some(hit(
                    bucket,
                    Position {
                        bucket: index,
                        slot,
                    },
                    head,
                ));
            }
            if Layout::overflow(bucket) == 0 {
                return None;
            }
            index += 1;
            if index as u64 == self.buckets {
                index = 0;
            }
        }
        None
    }

    /// The value of `code`, reading `replica`.
    #[inline(always)]
    pub(crate) fn get_in(&self, replica: usize, code: u64) -> Option<u64> {
        // Not [`Table::fits_key`]: an empty table has no buckets, so its probe finds nothing
        // without the bucket count's check.
        if code & self.outside != 0 {
            return None;
        }
        // The filter word checked before the tag and payload remainder are split off: most
        // misses end there.
        let (home, remainder) = self.hasher.home_and_remainder(self.hasher.mixer.mix(code));
        if Self::filtered_out_at(self.filter(replica), home, mark(remainder)) {
            return None;
        }
        // Not `value_at_home`'s split on the filter: inlined here, its two probe copies made
        // a single hit 149.7 instructions instead of 143.1 (callgrind), more than the vector
        // count's dispatch it drops.
        let hashed = self.hasher.hashed(home, remainder);
        self.probe_buckets::<false, _>(self.buckets(replica), &hashed, |bucket, position, head| {
            self.layout.head_value(bucket, position.slot, head)
        })
    }

    /// The value of the key of home `home` and remainder `remainder`: its filter word first,
    /// then its buckets. A table with a filter has at most 16 slots per bucket, so a key whose
    /// home has a filter word compares its tag with one vector and no dispatch on the count.
    #[inline(always)]
    fn value_at_home(
        &self,
        (filter, buckets): (&[u64], &[Bucket]),
        (home, remainder): (u64, u64),
    ) -> Option<u64> {
        let value = |bucket: &Bucket, position: Position, head| {
            self.layout.head_value(bucket, position.slot, head)
        };
        match filter.get(home as usize) {
            Some(&word) => {
                if word & mark(remainder) == 0 {
                    return None;
                }
                let hashed = self.hasher.hashed(home, remainder);
                self.probe_buckets::<true, _>(buckets, &hashed, value)
            }
            None => {
                let hashed = self.hasher.hashed(home, remainder);
                self.probe_buckets::<false, _>(buckets, &hashed, value)
            }
        }
    }

    /// The value of `code`, read from the calling thread's replica: a table of one region
    /// (every table not replicated) reads it with no node lookup and no call on the way.
    #[inline(always)]
    pub(crate) fn get_local(&self, code: u64) -> Option<u64> {
        if self.regions.len() > 1 {
            return self.get_replicated(code);
        }
        self.get_in(0, code)
    }

    /// [`Table::get_local`] of a replicated table, out of line: finding the caller's node
    /// is a call, and inlined it would make every lookup save registers around it.
    #[inline(never)]
    fn get_replicated(&self, code: u64) -> Option<u64> {
        self.get_in(self.local_replica(), code)
    }

    /// The value at a position (of replica 0, which equals every other).
    pub(crate) fn value_at(&self, position: Position) -> u64 {
        self.layout
            .value(&self.buckets(0)[position.bucket], position.slot)
    }

    /// Overwrites the value at a position (the value must fit).
    pub(crate) fn set_value_at(&mut self, position: Position, value: u64) {
        self.values_seen |= value;
        let mut bucket = self.buckets(0)[position.bucket];
        self.layout.set_value(&mut bucket, position.slot, value);
        self.write(position.bucket, &bucket);
    }

    /// Finds `code` (replica 0).
    pub(crate) fn find(&self, code: u64) -> Option<Position> {
        if !self.fits_key(code) {
            return None;
        }
        let hashed = self.hash(code);
        self.find_in(0, &hashed)
    }

    /// Puts a key known to be absent into the first free slot within reach of its home;
    /// `false` when there is none (the table must grow). Inlined into its callers (a single
    /// insert is mostly this); the rare parts, a first entry and several replicas, are
    /// out of line.
    #[inline(always)]
    fn place(&mut self, hashed: &Hashed, value: u64) -> bool {
        if self.untouched {
            self.first_place();
        }
        // In place in the first replica, then the buckets it changed copied to the others.
        let Some(displacement) = self.filler().place(hashed, value) else {
            return false;
        };
        if self.regions.len() > 1 {
            self.copy_placed(hashed.home as usize, displacement);
        }
        self.len += 1;
        self.values_seen |= value;
        true
    }

    /// Before the first entry of a table: a small table has every page written now (the rest
    /// of its entries will likely follow from this thread).
    #[cold]
    #[inline(never)]
    fn first_place(&mut self) {
        if self.mapped_pages() <= PREFAULT_SMALL_PAGES {
            self.prefault();
        }
        self.untouched = false;
    }

    /// Copies the buckets a placement at `home` with `displacement` changed, and the home's
    /// filter word, from the first replica to the others.
    #[cold]
    #[inline(never)]
    fn copy_placed(&mut self, home: usize, displacement: u64) {
        let count = self.buckets as usize;
        for step in 0..=displacement as usize {
            let index = (home + step) % count;
            let bucket = self.buckets(0)[index];
            self.write(index, &bucket);
        }
        if let Some((first, rest)) = self.filters.split_first_mut() {
            let word = first.words()[home];
            for filter in rest {
                filter.words_mut()[home] = word;
            }
        }
    }

    /// Inserts a code known to be absent, widening and growing as needed.
    pub(crate) fn insert_new(&mut self, code: u64, value: u64) -> Result<()> {
        if self.buckets == 0 {
            self.rebuild(1, bits_needed(code), bits_needed(value))?;
        }
        if !self.fits_key(code) {
            self.widen_keys(code)?;
        }
        if value > self.max_value() {
            self.widen_values(value)?;
        }
        if self.len as u64 + 1 > self.max_entries() {
            self.grow(self.len as u64 + 1)?;
        }
        loop {
            let hashed = self.hash(code);
            if self.place(&hashed, value) {
                return Ok(());
            }
            self.grow(self.max_entries() + 1)?;
        }
    }

    /// Sets the value of a present or absent code: returns the previous value. `present` gives
    /// the new value from the old one (an error leaves the table unchanged).
    ///
    /// A new key that fits its home bucket as the table is ([`Table::insert_at_home`]) is
    /// placed inline, with no call; everything else goes to [`Table::upsert_probed`].
    #[inline(always)]
    pub(crate) fn upsert(
        &mut self,
        code: u64,
        absent: u64,
        present: impl FnOnce(u64) -> Result<u64>,
    ) -> Result<Option<u64>> {
        if self.insert_at_home(code, absent) {
            return Ok(None);
        }
        self.upsert_probed(code, absent, present)
    }

    /// Places `code` with `value` in its home bucket when that is all it takes: the key is
    /// inside the hash domain, the value fits, the table is below its load limit and has one
    /// replica with its first page written, the home's filter word rules the key out (a
    /// clear bit means absent: bits are never cleared) and the home has a free slot of at
    /// most 57 bits. The slot, bits and filter word are those [`Table::place`] would write;
    /// `false` (nothing changed) for anything else. No call on the way, so a single insert
    /// that lands here saves no registers.
    #[inline(always)]
    fn insert_at_home(&mut self, code: u64, value: u64) -> bool {
        let room = (self.len as u64) < self.limit && value <= self.layout.max_value();
        if !room || !self.fits_key(code) || self.untouched || self.regions.len() != 1 {
            return false;
        }
        let hashed = self.hash(code);
        // The bucket and the filter word at once: a new key reads both.
        self.prefetch(0, &hashed);
        let layout = self.layout;
        let home = hashed.home as usize;
        let (Some(filter), Some(region)) = (self.filters.first_mut(), self.regions.first_mut())
        else {
            return false;
        };
        let Some(word) = filter.words_mut().get_mut(home) else {
            return false;
        };
        if *word & hashed.mark != 0 || !layout.slot_fits_bytes() {
            return false;
        }
        let Some(bucket) = region.words_mut().as_chunks_mut::<8>().0.get_mut(home) else {
            return false;
        };
        // A table with a filter has at most 16 slots a bucket: one tag vector.
        let Some(slot) = layout.first_empty_narrow(bucket) else {
            return false;
        };
        layout.fill_bytes(
            bucket,
            slot,
            hashed.tag,
            layout.compose_word(hashed.stored, value),
        );
        *word |= hashed.mark;
        self.len += 1;
        self.values_seen |= value;
        true
    }

    /// [`Table::upsert`] by a probe: a present key, or a new one that needs more than its
    /// home bucket as it is (a displaced slot, a growth, a widening, replicas).
    #[inline(never)]
    fn upsert_probed(
        &mut self,
        code: u64,
        absent: u64,
        present: impl FnOnce(u64) -> Result<u64>,
    ) -> Result<Option<u64>> {
        let mut hashed = None;
        if self.fits_key(code) {
            // One hash for the probe and, when the key is new and needs no resize, for its
            // placement too.
            let h = self.hash(code);
            // The filter word and the bucket at once: a new key reads both (the filter to
            // learn it is new, the bucket to place it), and one after the other they would be
            // two misses in a row.
            self.prefetch(0, &h);
            hashed = Some(h);
        }
        let found = hashed.and_then(|h| self.find_in(0, &h));
        match found {
            Some(position) => {
                let old = self.value_at(position);
                let new = present(old)?;
                if new > self.max_value() {
                    self.widen_values(new)?;
                    match self.find(code) {
                        Some(position) => self.set_value_at(position, new),
                        None => self.insert_new(code, new)?,
                    }
                } else {
                    self.set_value_at(position, new);
                }
                Ok(Some(old))
            }
            None => {
                let room = (self.len as u64) < self.max_entries() && absent <= self.max_value();
                if !(room && hashed.is_some_and(|h| self.place(&h, absent))) {
                    self.insert_new(code, absent)?;
                }
                Ok(None)
            }
        }
    }

    /// Removes `code`; returns its value.
    pub(crate) fn remove(&mut self, code: u64) -> Option<u64> {
        let position = self.find(code)?;
        let mut bucket = self.buckets(0)[position.bucket];
        let value = self.layout.value(&bucket, position.slot);
        let displacement =
            self.layout.key_field(&bucket, position.slot) >> self.layout.remainder_bits;
        self.layout.clear(&mut bucket, position.slot);
        self.write(position.bucket, &bucket);
        let buckets = self.buckets as usize;
        let mut passed = (position.bucket + buckets - displacement as usize) % buckets;
        for _ in 0..displacement {
            let mut over = self.buckets(0)[passed];
            Layout::bump_overflow(&mut over, false);
            self.write(passed, &over);
            passed = (passed + 1) % buckets;
        }
        self.len -= 1;
        Some(value)
    }

    /// Every entry as (home, full remainder, value), reading `replica`.
    pub(crate) fn raw_entries(&self, replica: usize) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        let layout = self.layout;
        let buckets = self.buckets;
        self.buckets(replica)
            .iter()
            .enumerate()
            .flat_map(move |(index, bucket)| {
                let mut occupied = layout.occupied(bucket);
                std::iter::from_fn(move || {
                    if occupied == 0 {
                        return None;
                    }
                    let slot = occupied.trailing_zeros();
                    occupied &= occupied - 1;
                    let field = layout.key_field(bucket, slot);
                    let displacement = field >> layout.remainder_bits;
                    let stored = field & low_mask(layout.remainder_bits);
                    let tag = u64::from(Layout::tag(bucket, slot) & 0x7f);
                    let home = (index as u64 + buckets - displacement) % buckets;
                    let remainder = tag << layout.remainder_bits | stored;
                    Some((home, remainder, layout.value(bucket, slot)))
                })
            })
    }

    /// The key code of an entry from its home and remainder.
    #[inline]
    pub(crate) fn recover(&self, home: u64, remainder: u64) -> u64 {
        self.hasher.mixer.unmix(self.recover_mixed(home, remainder))
    }

    /// The mixed code `h` of an entry from its home and remainder.
    #[inline]
    fn recover_mixed(&self, home: u64, remainder: u64) -> u64 {
        let low = u128::from(home) << self.key_bits | u128::from(remainder) << self.log;
        let buckets = u128::from(self.buckets);
        low.div_ceil(buckets) as u64
    }

    /// Calls `each(h, value)` with the mixed code `h` of every entry, bucket by bucket
    /// (replica 0), until `each` returns `false`; returns whether it never did. The homes'
    /// quotient pairs (see [`Recovery`]) step along with the buckets, and a displaced entry
    /// takes its home's pair from the last [`MAX_DISPLACEMENT`] buckets' (a home before bucket
    /// 0, wrapped around, divides once).
    fn each_mixed(&self, mut each: impl FnMut(u64, u64) -> bool) -> bool {
        const RING: usize = (MAX_DISPLACEMENT + 1) as usize;
        let recovery = Recovery::new(self.key_bits, self.buckets, self.log);
        let layout = self.layout;
        let stored_mask = low_mask(layout.remainder_bits);
        let mut ring = [(0u64, 0u64); RING];
        let mut pair = (0u64, 0u64);
        for (index, bucket) in self.buckets(0).iter().enumerate() {
            ring[index % RING] = pair;
            let mut occupied = layout.occupied(bucket);
            while occupied != 0 {
                let slot = occupied.trailing_zeros();
                occupied &= occupied - 1;
                // One read for the key field and, when the slot fits a word, the value.
                let head = layout.head(bucket, slot);
                let field = layout.head_key(head);
                let displacement = (field >> layout.remainder_bits) as usize;
                let tag = u64::from(Layout::tag(bucket, slot) & 0x7f);
                let remainder = tag << layout.remainder_bits | field & stored_mask;
                // Most entries are in their home bucket, whose pair is at hand.
                let home = if displacement == 0 {
                    pair
                } else if displacement <= index {
                    ring[(index - displacement) % RING]
                } else {
                    recovery.base(index as u64 + self.buckets - displacement as u64)
                };
                let value = layout.head_value(bucket, slot, head);
                if !each(recovery.mixed(home, remainder), value) {
                    return false;
                }
            }
            pair = recovery.next(pair);
        }
        true
    }

    /// The move of [`Table::rebuild`]: every entry of replica 0 into `table` (fresh), one at a
    /// time in bucket order; the bitwise or of the values moved, `None` when an entry found no
    /// slot within reach of its home. A function of its own so that tests move a table into
    /// any chosen target through the code growth runs.
    ///
    /// The common case, the same hash domain of at most 63 bits with slots of at most 57 bits
    /// in both layouts, takes [`Table::move_fast`], else [`Table::move_general`]; both place
    /// the same entries in the same order, so they build the same table. The fast move runs
    /// as compiled for BMI1 and BMI2 when the CPU has them (see [`isa`]), else portably.
    fn move_into(&self, table: &mut Table) -> Option<u64> {
        self.move_into_on(table, isa::Isa::detected())
    }

    /// [`Table::move_into`] with the fast move's code chosen by `copy` (the tests run each).
    fn move_into_on(&self, table: &mut Table, copy: isa::Isa) -> Option<u64> {
        match self.fast_move(table) {
            Some((reciprocal, exact)) => isa::move_fast(self, table, reciprocal, exact, copy),
            None => self.move_general(table),
        }
    }

    /// [`Table::move_fast`] at the exactness and tag width chosen at run time: one copy of
    /// the loop for each, inlined into the caller (a portable function, or one compiled for
    /// more instructions, see [`isa`]).
    #[inline(always)]
    fn move_fast_any(&self, table: &mut Table, reciprocal: u64, exact: bool) -> Option<u64> {
        let narrow = table.layout.slots <= 16;
        match (exact, narrow) {
            (true, true) => self.move_fast::<true, true>(table, reciprocal),
            (true, false) => self.move_fast::<true, false>(table, reciprocal),
            (false, true) => self.move_fast::<false, true>(table, reciprocal),
            (false, false) => self.move_fast::<false, false>(table, reciprocal),
        }
    }

    /// Whether [`Table::move_fast`] moves this table into `table`, and if so the reciprocal
    /// and exactness of its recovery (see [`Recovery::narrow`]).
    fn fast_move(&self, table: &Table) -> Option<(u64, bool)> {
        let fits = self.layout.slot_fits_bytes() && table.layout.slot_fits_bytes();
        if !fits || table.key_bits != self.key_bits || self.buckets == 0 {
            return None;
        }
        Recovery::new(self.key_bits, self.buckets, self.log).narrow()
    }

    /// [`Table::move_general`] for a move within the same hash domain of at most 63 bits
    /// (see [`Recovery::mixed_narrow`]), both layouts with slots of at most 57 bits: each old
    /// bucket is copied to bytes once, then one unaligned read decodes a slot's payload and
    /// one byte load its tag; the mixed code carries over as it is (no remix), its quotient
    /// takes one product (no loop); the new tag is the fraction's top 7 bits, and a
    /// placement is one byte store and one unaligned read-modify-write
    /// ([`Layout::fill_bytes`]). `EXACT`: the recovery's reciprocal is exact; `NARROW`: the
    /// new layout's tags fill one vector. Every entry goes where [`Filler::place`] would put
    /// it (entries whose home is full through [`Filler::place_displaced`] itself).
    #[inline(always)]
    fn move_fast<const EXACT: bool, const NARROW: bool>(
        &self,
        table: &mut Table,
        reciprocal: u64,
    ) -> Option<u64> {
        const RING: usize = (MAX_DISPLACEMENT + 1) as usize;
        let recovery = Recovery::new(self.key_bits, self.buckets, self.log);
        // Pairs `(q, s)` carry `s + n - 1` here (see [`Recovery::mixed_narrow`]).
        let bias = self.buckets - 1;
        let biased = |(q, s): (u64, u64)| (q, s + bias);
        let old = self.layout;
        let (remainder_bits, log) = (old.remainder_bits, self.log);
        let stored_mask = low_mask(remainder_bits);
        let displaced_mask = MAX_DISPLACEMENT << remainder_bits;
        let hasher = table.hasher;
        let mut filler = table.filler();
        let new = *filler.layout;
        let buckets = &mut *filler.buckets;
        let filter: &mut [u64] = filler.filter.as_deref_mut().unwrap_or(&mut []);
        let mut values = 0;
        let mut ring = [(0u64, 0u64); RING];
        let mut pair = biased((0, 0));
        for (index, bucket) in self.buckets(0).iter().enumerate() {
            ring[index % RING] = pair;
            // The bucket as bytes: one load a tag, one unaligned read a payload.
            let bytes = Layout::bytes_of(bucket);
            let mut occupied = old.occupied(bucket);
            while occupied != 0 {
                let slot = occupied.trailing_zeros();
                occupied &= occupied - 1;
                let head = old.head_from_bytes(&bytes, slot);
                let tag = u64::from(bytes[slot as usize & 63] & 0x7f);
                let remainder = tag << remainder_bits | head & stored_mask;
                let value = old.head_value_word(head);
                values |= value;
                // Most entries are in their home bucket, whose pair is at hand.
                let home = if head & displaced_mask == 0 {
                    pair
                } else {
                    let displacement = ((head & displaced_mask) >> remainder_bits) as usize;
                    if displacement <= index {
                        ring[(index - displacement) % RING]
                    } else {
                        let wrapped = index as u64 + self.buckets - displacement as u64;
                        biased(recovery.base(wrapped))
                    }
                };
                let h = recovery.mixed_narrow::<EXACT>(home, remainder << log, reciprocal);
                let (target, fraction) = hasher.home_and_fraction(h);
                let remainder = fraction >> hasher.remainder_shift;
                // The tag is the top 7 bits of the remainder, whatever the widths.
                let tag = 0x80 | (fraction >> (64 - TAG_BITS)) as u8;
                let stored = remainder & hasher.stored_mask;
                let slots = buckets.get_mut(target as usize)?;
                let empty = if NARROW {
                    new.first_empty_narrow(slots)
                } else {
                    new.first_empty(slots)
                };
                if let Some(slot) = empty {
                    new.fill_bytes(slots, slot, tag, new.compose_word(stored, value));
                    if let Some(word) = filter.get_mut(target as usize) {
                        *word |= mark(remainder);
                    }
                } else {
                    let hashed = Hashed {
                        home: target,
                        tag,
                        stored,
                        mark: mark(remainder),
                    };
                    let mut filler = Filler {
                        layout: &new,
                        buckets: &mut *buckets,
                        filter: (!filter.is_empty()).then_some(&mut *filter),
                    };
                    filler.place_displaced(&hashed, value)?;
                }
            }
            pair = recovery.next_biased(pair);
        }
        Some(values)
    }

    /// The general move (see [`Table::move_into`]): any hash domains (a remix when they
    /// differ) and slot widths, through [`Table::each_mixed`] and [`Filler::place`].
    fn move_general(&self, table: &mut Table) -> Option<u64> {
        let hasher = table.hasher;
        let mixer = (table.key_bits != self.key_bits).then_some(self.hasher.mixer);
        let mut filler = table.filler();
        let mut values = 0;
        let complete = self.each_mixed(|h, value| {
            // The same hash domain has the same mixer: the mixed code carries over.
            let h = mixer.map_or(h, |m| hasher.mixer.mix(m.unmix(h)));
            values |= value;
            filler.place(&hasher.hash_mixed(h), value).is_some()
        });
        complete.then_some(values)
    }

    /// Every entry as (code, value), reading `replica`.
    pub(crate) fn entries(&self, replica: usize) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.raw_entries(replica)
            .map(|(home, remainder, value)| (self.recover(home, remainder), value))
    }

    /// Widens the key domain to hold `code`.
    fn widen_keys(&mut self, code: u64) -> Result<()> {
        let key_bits = bits_needed(code).max(self.key_bits);
        let entries = self.len as u64 + 1;
        self.rebuild(entries, key_bits, self.layout.value_bits)
    }

    /// Widens the values to hold `value`, with room to spare so that counts growing one at a
    /// time do not rebuild at every new bit.
    pub(crate) fn widen_values(&mut self, value: u64) -> Result<()> {
        let current = self.layout.value_bits;
        let value_bits = bits_needed(value)
            .max((current + current / 4 + 2).min(64))
            .min(64);
        self.rebuild(self.len as u64 + 1, self.key_bits, value_bits)
    }

    /// Grows to hold at least `entries`: a small table doubles its bucket count (no key needs
    /// recovering), a larger one grows by [`GROWTH`] (see [`grown`]) through its keys (see
    /// [`Table::rebuild`]).
    ///
    /// A gentle step also gives back the spare value bits that widening added (see
    /// [`Table::widen_values`]) beyond one: the values take what the largest one present needs
    /// plus a bit, so that a table of 20-bit values widened to 25 bits does not carry the 5
    /// bits through every later growth. A wider value after that widens again as usual.
    pub(crate) fn grow(&mut self, entries: u64) -> Result<()> {
        if self.buckets == 0 {
            let (key_bits, buckets, layout) = geometry(entries.max(1), self.key_bits, 0)?;
            *self = Table::allocate(Arc::clone(&self.storage), key_bits, buckets, layout)?;
            return Ok(());
        }
        let mut value_bits = self.layout.value_bits;
        if self.buckets >= GENTLE_GROWTH_BUCKETS {
            value_bits = value_bits.min(bits_needed(self.values_seen) + 1);
        }
        self.rebuild(entries, self.key_bits, value_bits)
    }

    /// Makes room for `entries` keys at once, at the size an exact build would choose (not
    /// a growth step), so a batch of known size fills its table well. `largest_key` and
    /// `largest_value` (the bitwise or of the batch's codes and values) size the widths too,
    /// so a batch into an empty table does not widen, and lose slots, after its sizing.
    pub(crate) fn reserve(
        &mut self,
        entries: u64,
        largest_key: u64,
        largest_value: u64,
    ) -> Result<()> {
        if entries <= self.max_entries() {
            return Ok(());
        }
        let key_bits = self.key_bits.max(bits_needed(largest_key));
        let value_bits = self.layout.value_bits.max(bits_needed(largest_value));
        let (_, buckets, _) = geometry(entries, key_bits, value_bits)?;
        let doubled = self.buckets.saturating_mul(2);
        if buckets <= doubled {
            return self.grow(entries);
        }
        let mut table =
            Table::with_geometry(Arc::clone(&self.storage), entries, key_bits, value_bits)?;
        for (code, value) in self.entries(0) {
            table.insert_new(code, value)?;
        }
        *self = table;
        Ok(())
    }

    /// Moves every entry into a new table with room for `entries`, keys below `2^key_bits`
    /// and values of `value_bits`.
    fn rebuild(&mut self, entries: u64, key_bits: u32, value_bits: u32) -> Result<()> {
        if self.buckets == 0 {
            let (key_bits, buckets, layout) = geometry(entries.max(1), key_bits, value_bits)?;
            *self = Table::allocate(Arc::clone(&self.storage), key_bits, buckets, layout)?;
            return Ok(());
        }
        // The same bucket count when it holds `entries` (a widening), else the next step of
        // the growth policy ([`grown`]: doubling while small, so the new position follows from
        // the old one, then by [`GROWTH`]), as many steps as `entries` need.
        let mut buckets = self.buckets;
        let mut target = widths(buckets, key_bits, value_bits);
        let fits = |b: u64, t: &Option<(u32, Layout)>| {
            t.is_some_and(|(_, l)| {
                (b * u64::from(l.slots)) as f64 * max_load(l.slots) >= entries as f64
            })
        };
        while !fits(buckets, &target) {
            buckets = grown(buckets).ok_or(Error::CapacityOverflow { entries })?;
            target = widths(buckets, key_bits, value_bits);
            if target.is_none() {
                return Err(Error::CapacityOverflow { entries });
            }
        }
        loop {
            let (new_key_bits, layout) = target.ok_or(Error::CapacityOverflow { entries })?;
            let mut table =
                Table::allocate(Arc::clone(&self.storage), new_key_bits, buckets, layout)?;
            if self.len as u64 >= PREFAULT_ENTRIES_PER_PAGE * table.mapped_pages() {
                table.prefault();
            }
            let doubling = buckets / self.buckets;
            let shift = doubling.trailing_zeros();
            let by_position = new_key_bits == self.key_bits
                && buckets == self.buckets << shift
                && self.key_bits - self.log - shift >= TAG_BITS;
            let complete = if by_position {
                let remainder_bits = self.key_bits - self.log;
                let kept = remainder_bits - shift;
                self.raw_entries(0).all(|(home, remainder, value)| {
                    let remainder_low = remainder & low_mask(kept);
                    let hashed = Hashed {
                        home: home << shift | remainder.checked_shr(kept).unwrap_or(0),
                        tag: 0x80 | (remainder_low >> layout.remainder_bits) as u8,
                        stored: remainder_low & low_mask(layout.remainder_bits),
                        mark: mark(remainder_low),
                    };
                    table.place(&hashed, value)
                })
            } else {
                // Placed in the first replica only, copied to the others at the end.
                if self.len > 0 && table.untouched && table.mapped_pages() <= PREFAULT_SMALL_PAGES {
                    table.prefault();
                }
                // A complete move placed every entry (an incomplete table is dropped).
                let moved = self.move_into(&mut table);
                if let Some(values) = moved {
                    table.len = self.len;
                    table.values_seen = values;
                    table.untouched &= self.len == 0;
                    table.copy_first_replica();
                }
                moved.is_some()
            };
            if complete {
                *self = table;
                return Ok(());
            }
            // A cluster did not fit within reach of its home: try the next growth step.
            buckets = grown(buckets).ok_or(Error::CapacityOverflow { entries })?;
            target = widths(buckets, key_bits, value_bits);
        }
    }

    /// A filler of the first replica's buckets and filter words (inlined: a single insert
    /// builds one per placement).
    #[inline(always)]
    fn filler(&mut self) -> Filler<'_> {
        Filler {
            layout: &self.layout,
            buckets: self
                .regions
                .first_mut()
                .map_or(&mut [][..], |r| r.words_mut().as_chunks_mut::<8>().0),
            filter: self.filters.first_mut().map(Region::words_mut),
        }
    }

    /// Copies the first replica's buckets and filter words over every other replica's.
    fn copy_first_replica(&mut self) {
        for regions in [&mut self.regions, &mut self.filters] {
            if let Some((first, rest)) = regions.split_first_mut() {
                for region in rest {
                    region.words_mut().copy_from_slice(first.words());
                }
            }
        }
    }

    /// Pages of memory the table maps (buckets and filters, all replicas).
    fn mapped_pages(&self) -> u64 {
        (self.memory_bytes() / memory::page_size()) as u64
    }

    /// Writes one word of every page (buckets and filters, all replicas) from this thread.
    /// A rebuild that moves enough entries writes to every page anyway, but reads each bucket
    /// first: an untouched page is then first mapped as the shared zero page and its first
    /// write copies it, a second fault that flushes the other cores' TLBs (an interrupt to
    /// each core running this process). Written first, each page faults once and nothing is
    /// flushed; the pages land where this thread's writes would have put them.
    fn prefault(&mut self) {
        self.untouched = false;
        let step = memory::page_size() / 8;
        for region in self.regions.iter_mut().chain(self.filters.iter_mut()) {
            for word in region.words_mut().iter_mut().step_by(step) {
                *word = 0;
            }
        }
    }

    /// Builds a table from distinct (code, value) pairs.
    pub(crate) fn from_distinct(storage: Arc<Storage>, pairs: &[(u64, u64)]) -> Result<Table> {
        let (largest_key, largest_value) = pairs
            .iter()
            .fold((0, 0), |(k, v), &(pk, pv)| (k | pk, v | pv));
        let mut table =
            Table::for_distinct(storage, pairs.len() as u64, largest_key, largest_value)?;
        loop {
            if pairs
                .chunks(PLACE_BATCH)
                .all(|batch| table.place_codes(batch))
            {
                return Ok(table);
            }
            table = table.doubled_empty()?;
        }
    }

    /// An empty table sized exactly for `entries` distinct codes whose bitwise or is
    /// `largest_key` (so every code fits the hash domain), with values whose bitwise or is
    /// `largest_value`. Fill it with [`Table::place_codes`].
    pub(crate) fn for_distinct(
        storage: Arc<Storage>,
        entries: u64,
        largest_key: u64,
        largest_value: u64,
    ) -> Result<Table> {
        Table::with_geometry(
            storage,
            entries,
            bits_needed(largest_key),
            bits_needed(largest_value),
        )
    }

    /// Places a batch of distinct codes known to be absent, inside the hash domain, with values
    /// that fit, hashing the batch and prefetching its home buckets first; `false` as soon as
    /// one finds no free slot within reach of its home (then start again from
    /// [`Table::doubled_empty`]).
    pub(crate) fn place_codes(&mut self, batch: &[(u64, u64)]) -> bool {
        let mut hashed = [Hashed {
            home: 0,
            tag: 0,
            stored: 0,
            mark: 0,
        }; PLACE_BATCH];
        for (slot, &(code, _)) in hashed.iter_mut().zip(batch) {
            *slot = self.hash(code);
            self.prefetch(0, slot);
        }
        hashed
            .iter()
            .zip(batch)
            .all(|(hashed, &(_, value))| self.place(hashed, value))
    }

    /// An empty table of the same widths with twice the buckets.
    pub(crate) fn doubled_empty(&self) -> Result<Table> {
        let entries = self.len.max(1) as u64;
        let doubled = self
            .buckets
            .max(1)
            .checked_mul(2)
            .ok_or(Error::CapacityOverflow { entries })?;
        let (key_bits, layout) = widths(doubled, self.key_bits, self.layout.value_bits)
            .ok_or(Error::CapacityOverflow { entries })?;
        Table::allocate(Arc::clone(&self.storage), key_bits, doubled, layout)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The mixed code by one 128-bit division (the reference for [`Recovery`]).
    fn divided(key_bits: u32, buckets: u64, log: u32, home: u64, remainder: u64) -> u64 {
        let low = u128::from(home) << key_bits | u128::from(remainder) << log;
        low.div_ceil(u128::from(buckets)) as u64
    }

    /// A geometry (key bits, buckets, log) from raw draws: `log` from the bucket count, key
    /// bits at least `log + TAG_BITS` (as [`widths`] requires), at most 64.
    fn geometry_of(buckets: u64, key_bits: u32) -> (u32, u64, u32) {
        let buckets = buckets.clamp(1, 1 << 40);
        let log = 63 - buckets.leading_zeros();
        (key_bits.clamp(log + TAG_BITS, 64), buckets, log)
    }

    /// Checks [`Recovery`] at `home` for remainders `remainders`, through both its division
    /// (`base`) and, when `home > 0`, a step from the home before.
    fn check_recovery(key_bits: u32, buckets: u64, home: u64, remainders: &[u64]) {
        let (key_bits, buckets, log) = geometry_of(buckets, key_bits);
        let home = home % buckets;
        let recovery = Recovery::new(key_bits, buckets, log);
        let pair = recovery.base(home);
        if home > 0 {
            assert_eq!(
                recovery.next(recovery.base(home - 1)),
                pair,
                "step to {home}"
            );
        }
        let max = low_mask(key_bits - log);
        for &remainder in remainders {
            let remainder = remainder & max;
            let expected = divided(key_bits, buckets, log, home, remainder);
            assert_eq!(
                recovery.mixed(pair, remainder),
                expected,
                "w {key_bits} n {buckets} home {home} remainder {remainder}"
            );
            if let Some((m, exact)) = recovery.narrow() {
                let biased = (pair.0, pair.1 + buckets - 1);
                let shifted = remainder << log;
                let narrow = if exact {
                    recovery.mixed_narrow::<true>(biased, shifted, m)
                } else {
                    recovery.mixed_narrow::<false>(biased, shifted, m)
                };
                assert_eq!(narrow, expected, "narrow w {key_bits} n {buckets} {home}");
                if home > 0 {
                    let before = recovery.base(home - 1);
                    let before = (before.0, before.1 + buckets - 1);
                    assert_eq!(recovery.next_biased(before), biased, "biased step");
                }
            }
        }
    }

    #[test]
    fn recovery_matches_the_division_at_extremes() {
        let remainders = [0, 1, 2, 0x7f, 1 << 20, u64::MAX / 3, u64::MAX - 1, u64::MAX];
        let counts = [
            1u64,
            2,
            3,
            63,
            64,
            65,
            1023,
            1025,
            4095,
            4096,
            4097,
            5120,
            (1 << 32) - 1,
            1 << 32,
            (1 << 33) - 1,
            (1 << 40) - 1,
            1 << 40,
        ];
        for buckets in counts {
            for key_bits in [7, 8, 32, 33, 47, 48, 63, 64] {
                for home in [0, 1, 2, buckets / 2, buckets.saturating_sub(2), buckets - 1] {
                    check_recovery(key_bits, buckets, home, &remainders);
                }
            }
        }
    }

    #[test]
    fn recovery_steps_through_every_home_of_small_tables() {
        for (key_bits, buckets) in [(7, 1), (8, 2), (9, 3), (13, 37), (64, 41), (64, 4097)] {
            let (key_bits, buckets, log) = geometry_of(buckets, key_bits);
            let recovery = Recovery::new(key_bits, buckets, log);
            let mut pair = (0, 0);
            for home in 0..buckets {
                assert_eq!(pair, recovery.base(home), "w {key_bits} n {buckets}");
                for remainder in [0, 1, low_mask(key_bits - log)] {
                    assert_eq!(
                        recovery.mixed(pair, remainder),
                        divided(key_bits, buckets, log, home, remainder)
                    );
                }
                pair = recovery.next(pair);
            }
        }
    }

    proptest! {
        #[test]
        fn recovery_matches_the_division(
            key_bits in 7u32..=64,
            buckets in prop_oneof![1u64..=8192, 1u64..=(1 << 40)],
            home in any::<u64>(),
            remainders in proptest::collection::vec(any::<u64>(), 1..8),
        ) {
            check_recovery(key_bits, buckets, home, &remainders);
        }
    }

    #[test]
    fn the_lattice_doubles_small_tables_and_grows_large_ones_by_a_quarter() {
        assert_eq!(lattice_step(1), Some(2));
        assert_eq!(lattice_step(63), Some(126));
        assert_eq!(
            lattice_step(GENTLE_GROWTH_BUCKETS - 1),
            Some(2 * GENTLE_GROWTH_BUCKETS - 2)
        );
        assert_eq!(lattice_step(GENTLE_GROWTH_BUCKETS), Some(5120));
        assert_eq!(lattice_step(GENTLE_GROWTH_BUCKETS + 1), Some(5121));
        assert_eq!(lattice_step(4099), Some(4099 + 1024));
        assert_eq!(lattice_step(1 << 40), Some(5 << 38));
        assert_eq!(lattice_step(u64::MAX), None);
        assert_eq!(lattice_step(u64::MAX / 5 * 4 + 4), None);
        // Every step grows, and by no more than a doubling.
        for b in [
            1u64,
            2,
            3,
            4095,
            4096,
            4097,
            5119,
            5120,
            1 << 30,
            (1 << 40) - 1,
        ] {
            let g = lattice_step(b).unwrap();
            assert!(g > b && g <= 2 * b, "{b} -> {g}");
        }
    }

    #[test]
    fn growth_takes_two_lattice_steps_between_the_gentle_and_fast_limits() {
        assert_eq!(grown(1), Some(2));
        assert_eq!(grown(1023), Some(2046));
        assert_eq!(grown(GENTLE_GROWTH_BUCKETS - 1), Some(8190));
        assert_eq!(grown(GENTLE_GROWTH_BUCKETS), Some(6400));
        assert_eq!(grown(4097), Some(6401));
        assert_eq!(grown(5120), Some(8000));
        assert_eq!(
            grown(FAST_GROWTH_BUCKETS - 1),
            lattice_step(lattice_step(FAST_GROWTH_BUCKETS - 1).unwrap())
        );
        assert_eq!(grown(FAST_GROWTH_BUCKETS), Some(163_840));
        assert_eq!(grown(1 << 40), Some(5 << 38));
        assert_eq!(grown(u64::MAX), None);
        // From 4096 buckets on, growth visits a subset of the lattice's counts, and every
        // count from the fast limit on (the size of a large table does not change).
        let mut lattice = vec![GENTLE_GROWTH_BUCKETS];
        while *lattice.last().unwrap() < 1 << 30 {
            lattice.push(lattice_step(*lattice.last().unwrap()).unwrap());
        }
        let mut b = GENTLE_GROWTH_BUCKETS;
        let mut visited = vec![b];
        while b < 1 << 30 {
            let g = grown(b).unwrap();
            assert!(g > b && g <= 2 * b, "{b} -> {g}");
            b = g;
            visited.push(b);
        }
        assert!(visited.iter().all(|v| lattice.contains(v)));
        let past: Vec<u64> = lattice
            .iter()
            .copied()
            .filter(|&v| v >= FAST_GROWTH_BUCKETS + FAST_GROWTH_BUCKETS / 2)
            .collect();
        assert!(past.iter().all(|v| visited.contains(v)), "{visited:?}");
    }

    #[test]
    fn a_gentle_step_lands_between_the_limit_over_the_factor_and_the_limit() {
        // The load right after a growth at the limit, for bucket counts from 4096 on.
        for buckets in [4096u64, 5120, 6400, 100_000, 1 << 17, 1 << 24] {
            let (_, layout) = widths(buckets, 32, 20).unwrap();
            let grown = grown(buckets).unwrap();
            let (_, after) = widths(grown, 32, 20).unwrap();
            let limit = buckets as f64 * f64::from(layout.slots) * max_load(layout.slots);
            let load = limit / (grown as f64 * f64::from(after.slots));
            // Two steps at once (25/16) below the fast limit, one (5/4) from it on.
            let low = if buckets < FAST_GROWTH_BUCKETS {
                0.44
            } else {
                0.55
            };
            assert!((low..=0.75).contains(&load), "{buckets}: {load}");
        }
    }

    /// Where a single lookup of `code` ends: 0 at the first slot of its home bucket with its
    /// tag; else in the out-of-line rest of the probe, 1 after a false tag match at home, 2
    /// when no slot at home has its tag (a key placed past its home).
    fn probe_path(table: &Table, code: u64) -> usize {
        let hashed = table.hash(code);
        let bucket = &table.buckets(0)[hashed.home as usize];
        let candidates = table.layout.matches(bucket, hashed.tag);
        if candidates == 0 {
            return 2;
        }
        let head = table.layout.head(bucket, candidates.trailing_zeros());
        usize::from(table.layout.head_key(head) != hashed.stored)
    }

    #[test]
    fn single_lookups_agree_on_both_probe_paths_at_edge_sizes_and_domain_ends() {
        let storage = crate::map::storage_of(&smartarrays::ArrayOptions::new()).unwrap();
        let scatter = |i: u64| {
            let x = (i ^ 0x5bd1_e995).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            x ^ (x >> 29)
        };
        // Keys below 2^32 and then up to the 64-bit domain's ends; values that widen on the
        // last inserts. 100 000 keys at a limit's load have keys past home and false tag
        // matches before the key in its home bucket.
        for (bits, ends) in [
            (32u32, [0u64, u64::from(u32::MAX)]),
            (64, [u64::MAX, 1 << 63]),
        ] {
            for n in [0usize, 1, 63, 64, 65, 1023, 1025, 100_000] {
                let mut table = Table::empty(Arc::clone(&storage));
                let mut reference = std::collections::HashMap::new();
                let codes = (0..n as u64)
                    .map(|i| scatter(i) & low_mask(bits))
                    .chain(if n > 0 { ends.to_vec() } else { Vec::new() });
                for (i, code) in codes.enumerate() {
                    let value = if i + 2 >= n {
                        u64::MAX - i as u64
                    } else {
                        i as u64
                    };
                    let old = table.upsert(code, value, |_| Ok(value)).unwrap();
                    assert_eq!(old, reference.insert(code, value), "{bits} {n} {code}");
                }
                let mut paths = [0usize; 3];
                for (&code, &value) in &reference {
                    assert_eq!(table.get_in(0, code), Some(value), "{bits} {n} {code}");
                    let position = table.find(code).expect("present");
                    assert_eq!(table.value_at(position), value, "{bits} {n} {code}");
                    paths[probe_path(&table, code)] += 1;
                }
                if n == 100_000 {
                    assert!(paths[1] > 0, "{bits}: no false tag match before a key");
                    assert!(paths[2] > 0, "{bits}: no key past its home");
                }
                for i in 0..1000u64 {
                    let code = scatter(i + (1 << 40)) & low_mask(bits);
                    let expected = reference.get(&code).copied();
                    assert_eq!(table.get_in(0, code), expected, "{bits} {n} absent {code}");
                }
                if bits == 32 && n > 0 {
                    // Outside the table's domain until a 64-bit key widens it.
                    assert_eq!(table.get_in(0, 1 << 40), None);
                    assert_eq!(table.get_in(0, u64::MAX), None);
                }
            }
        }
    }

    #[test]
    fn single_inserts_through_fast_growth_steps_keep_every_key() {
        // Single inserts from empty through the 4096-bucket boundary and two-step growths,
        // with 32-bit keys, then keys of 40 bits (a widening during the fast steps) and wider
        // values: every bucket count past 4096 is one of the lattice's, every key reads back.
        let storage = crate::map::storage_of(&smartarrays::ArrayOptions::new()).unwrap();
        let mut lattice = vec![GENTLE_GROWTH_BUCKETS];
        while *lattice.last().unwrap() < 1 << 20 {
            lattice.push(lattice_step(*lattice.last().unwrap()).unwrap());
        }
        let mut table = Table::empty(Arc::clone(&storage));
        let mut reference = std::collections::HashMap::new();
        let mut counts = Vec::new();
        let n = 160_000u64;
        for i in 0..n {
            let (code, value) = if i < n / 2 {
                (scattered(i) & low_mask(32), i & 0xff)
            } else {
                (scattered(i) & low_mask(40), i)
            };
            insert_or_replace(&mut table, &mut reference, code, value);
            if counts.last() != Some(&table.bucket_count()) {
                counts.push(table.bucket_count());
            }
        }
        assert_eq!(table.len(), reference.len());
        assert_eq!(table.key_bits(), 40);
        let large: Vec<u64> = counts
            .iter()
            .copied()
            .filter(|&c| c >= GENTLE_GROWTH_BUCKETS)
            .collect();
        assert!(large.len() >= 3, "{counts:?}");
        assert!(large.iter().all(|c| lattice.contains(c)), "{counts:?}");
        assert!(large.contains(&6400), "{counts:?}");
        for (&code, &value) in &reference {
            assert_eq!(table.get_in(0, code), Some(value), "{code}");
        }
        for i in 0..1000u64 {
            let code = scattered(i + (1 << 40)) & low_mask(40);
            assert_eq!(
                table.get_in(0, code),
                reference.get(&code).copied(),
                "{code}"
            );
        }
    }

    /// Sets `code` to `value` in `table` (a new entry, or the old value replaced) and in its
    /// `reference`.
    fn insert_or_replace(
        table: &mut Table,
        reference: &mut std::collections::HashMap<u64, u64>,
        code: u64,
        value: u64,
    ) {
        if reference.insert(code, value).is_none() {
            table.insert_new(code, value).unwrap();
        } else {
            table.upsert(code, value, |_| Ok(value)).unwrap();
        }
    }

    fn scattered(i: u64) -> u64 {
        let x = (i ^ 0x2545_f491).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x ^ (x >> 31)
    }

    /// Moves `old` by [`Table::move_into`] into a fresh table of `buckets` buckets and the
    /// widths for `key_bits` and `value_bits`, and checks what a move must keep: on success
    /// the values' or, and in every bucket the overflow count equal to the entries placed
    /// past it (counted from their displacements). Returns the moved table (`None` when the
    /// move did not fit).
    fn moved(old: &Table, buckets: u64, key_bits: u32, value_bits: u32) -> Option<Table> {
        let (key_bits, layout) = widths(buckets, key_bits, value_bits).unwrap();
        let mut table =
            Table::allocate(Arc::clone(&old.storage), key_bits, buckets, layout).unwrap();
        let values = old.move_into(&mut table)?;
        assert_eq!(
            values,
            old.raw_entries(0).fold(0, |v, (_, _, value)| v | value)
        );
        table.len = old.len;
        table.values_seen = values;
        let count = buckets as usize;
        let mut passing = vec![0u32; count];
        for (index, bucket) in table.buckets(0).iter().enumerate() {
            let mut occupied = layout.occupied(bucket);
            while occupied != 0 {
                let slot = occupied.trailing_zeros();
                occupied &= occupied - 1;
                let displacement =
                    (layout.key_field(bucket, slot) >> layout.remainder_bits) as usize;
                for back in 1..=displacement {
                    passing[(index + count - back) % count] += 1;
                }
            }
        }
        for (index, bucket) in table.buckets(0).iter().enumerate() {
            assert_eq!(
                u32::from(Layout::overflow(bucket)),
                passing[index].min(255),
                "{index}"
            );
        }
        Some(table)
    }

    /// Every entry of `reference` read back from `table`, and codes not in it absent.
    fn reads_back(table: &Table, reference: &std::collections::HashMap<u64, u64>, key_bits: u32) {
        assert_eq!(table.len(), reference.len());
        for (&code, &value) in reference {
            assert_eq!(table.get_in(0, code), Some(value), "{code}");
            assert!(table.find(code).is_some(), "{code}");
        }
        let top = low_mask(key_bits);
        for i in 0..200u64 {
            let code = scattered(i + (1 << 50)) & top;
            assert_eq!(
                table.get_in(0, code),
                reference.get(&code).copied(),
                "{code}"
            );
        }
        let mut entries: Vec<(u64, u64)> = table.entries(0).collect();
        entries.sort_unstable();
        let mut expected: Vec<(u64, u64)> = reference.iter().map(|(&c, &v)| (c, v)).collect();
        expected.sort_unstable();
        assert_eq!(entries, expected);
    }

    /// A table of `n` single inserts of `key_bits`-bit codes (the domain's two ends among
    /// them) with values of `value_bits`, and its reference.
    fn filled(
        n: u64,
        key_bits: u32,
        value_bits: u32,
    ) -> (Table, std::collections::HashMap<u64, u64>) {
        let storage = crate::map::storage_of(&smartarrays::ArrayOptions::new()).unwrap();
        let mut table = Table::empty(storage);
        let mut reference = std::collections::HashMap::new();
        let top = low_mask(key_bits);
        for i in 0..n {
            let code = match i {
                0 => 0,
                1 => top,
                _ => scattered(i) & top,
            };
            let value = scattered(i + 7) & low_mask(value_bits);
            insert_or_replace(&mut table, &mut reference, code, value);
        }
        (table, reference)
    }

    #[test]
    fn growth_moves_keep_every_key_at_edge_sizes_and_tight_targets() {
        // Edge sizes, and a table past the doubling limit, each moved into: the next lattice
        // counts (one and two steps), one more bucket, the same count with a wider hash domain
        // (a widening of the keys, so a remix), wider values, and tight counts whose buckets
        // fill and overflow into the next ones (or do not fit at all). Every key reads back,
        // absent keys stay absent, overflow counts match the displacements.
        for &n in &[0u64, 1, 63, 64, 65, 1023, 1025, 40_000] {
            for &(key_bits, value_bits) in &[(32u32, 8u32), (20, 0), (64, 64), (47, 20)] {
                let (old, reference) = filled(n, key_bits, value_bits);
                let mut targets = move_targets(&old, value_bits);
                targets.retain(|&(b, k, _)| b >= 1 && widths(b, k, value_bits).is_some());
                let mut fitted = 0;
                for (buckets, key_bits, value_bits) in targets {
                    let Some(table) = moved(&old, buckets, key_bits, value_bits) else {
                        continue;
                    };
                    fitted += 1;
                    reads_back(&table, &reference, table.key_bits);
                }
                assert!(fitted >= 4, "{n} {key_bits} {value_bits}");
            }
        }
    }

    /// (buckets, key bits, value bits) to move `old` into: the next lattice counts (one and
    /// two steps), one more bucket, the same count with a wider hash domain (a remix), wider
    /// values, and tight counts whose buckets fill and overflow (or do not fit at all).
    fn move_targets(old: &Table, value_bits: u32) -> Vec<(u64, u32, u32)> {
        let count = old.bucket_count();
        let step = lattice_step(count).unwrap();
        let slots = u64::from(old.layout.slots);
        let tight = (old.len as u64).div_ceil(slots).max(1);
        vec![
            (step, old.key_bits, value_bits),
            (lattice_step(step).unwrap(), old.key_bits, value_bits),
            (count + 1, old.key_bits, value_bits),
            (count, (old.key_bits + 3).min(64), value_bits),
            (count * 3 / 2 + 1, old.key_bits, (value_bits + 9).min(64)),
            (tight, old.key_bits, value_bits),
            (tight + tight / 16 + 1, old.key_bits, value_bits),
            (tight + tight / 8 + 1, old.key_bits, value_bits),
        ]
    }

    #[test]
    fn the_fast_move_builds_the_table_the_general_move_builds() {
        // Edge sizes and widths whose recovery is exact (narrow domains), corrected (63-bit
        // keys, the widest the fast move takes) or not narrow at all (64-bit keys), each moved
        // into the targets of the test above through `move_into` and through the general move:
        // the same outcome, the same values' or, the same bucket and filter words.
        let mut runs = [0usize; 3];
        for &n in &[0u64, 1, 63, 64, 65, 1023, 1025, 40_000] {
            for &(key_bits, value_bits) in &[
                (32u32, 8u32),
                (20, 0),
                (47, 20),
                (63, 8),
                (56, 0),
                (64, 2),
                (24, 40),
            ] {
                let (old, _) = filled(n, key_bits, value_bits);
                for (buckets, key_bits, value_bits) in move_targets(&old, value_bits) {
                    let Some((key_bits, layout)) =
                        widths(buckets, key_bits, value_bits).filter(|_| buckets >= 1)
                    else {
                        continue;
                    };
                    let fresh = || {
                        Table::allocate(Arc::clone(&old.storage), key_bits, buckets, layout)
                            .unwrap()
                    };
                    let (mut fast, mut general) = (fresh(), fresh());
                    runs[match old.fast_move(&fast) {
                        Some((_, true)) => 0,
                        Some((_, false)) => 1,
                        None => 2,
                    }] += 1;
                    // The portable copy of the fast move even where the CPU has BMI2, and
                    // the BMI2 copy where it does (else the portable one again).
                    let moved = old.move_into_on(&mut fast, isa::Isa::Portable);
                    assert_eq!(moved, old.move_general(&mut general), "{n} {buckets}");
                    let mut bmi2 = fresh();
                    assert_eq!(old.move_into_on(&mut bmi2, isa::Isa::Bmi2), moved, "{n}");
                    if moved.is_some() {
                        let filters = |t: &Table| t.filter(0).to_vec();
                        for table in [&fast, &bmi2] {
                            assert!(table.replica_words(0) == general.replica_words(0), "{n}");
                            assert_eq!(filters(table), filters(&general), "{n} {buckets}");
                        }
                    }
                }
            }
        }
        assert!(runs.iter().all(|&r| r >= 10), "{runs:?}");
    }

    #[test]
    fn inserts_at_home_build_the_table_the_probed_path_builds() {
        // The same single inserts (new keys and repeats, values widening as they come) into
        // one table through `insert_at_home` first, as `upsert` does, and into another through
        // the probed path alone: the same answers, bucket words and filter words. Widths with
        // a filter and slots that fit 57 bits (where it applies), and ones where it does not.
        let mut checked = 0;
        for &(key_bits, value_bits) in &[(32u32, 8u32), (20, 0), (47, 20), (64, 64), (24, 40)] {
            let storage = crate::map::storage_of(&smartarrays::ArrayOptions::new()).unwrap();
            let mut at_home = Table::empty(Arc::clone(&storage));
            let mut probed = Table::empty(storage);
            let top = low_mask(key_bits);
            let mut placed = 0;
            for i in 0..20_000u64 {
                let code = scattered(i % 15_000) & top;
                let value = scattered(i + 7) & low_mask(value_bits);
                let set = |_| Ok(value);
                let expected = probed.upsert_probed(code, value, set).unwrap();
                if at_home.insert_at_home(code, value) {
                    placed += 1;
                    assert_eq!(expected, None, "{code}");
                } else {
                    assert_eq!(at_home.upsert_probed(code, value, set).unwrap(), expected);
                }
            }
            assert_eq!(at_home.len(), probed.len());
            assert_eq!(at_home.values_seen, probed.values_seen);
            assert!(
                at_home.replica_words(0) == probed.replica_words(0),
                "{key_bits}"
            );
            assert_eq!(at_home.filter(0).to_vec(), probed.filter(0).to_vec());
            // Tables of more than 16 slots a bucket have no filter: every insert probes.
            if !at_home.filters.is_empty() && at_home.layout.slot_fits_bytes() {
                assert!(placed > 10_000, "{key_bits} {value_bits}: {placed}");
                checked += 1;
            }
        }
        assert!(checked >= 2, "{checked}");
    }

    #[test]
    fn growth_moves_keep_every_key_of_a_table_with_gaps() {
        // Removals leave gaps in the old buckets and lower overflow counts; the move reads
        // every occupied slot whatever its place.
        let (mut old, mut reference) = filled(5000, 40, 16);
        let codes: Vec<u64> = reference.keys().copied().collect();
        for &code in codes.iter().step_by(3) {
            assert_eq!(old.remove(code), reference.remove(&code));
        }
        let count = old.bucket_count();
        for buckets in [count, lattice_step(count).unwrap(), count / 2] {
            let table = moved(&old, buckets, old.key_bits, 16).unwrap();
            reads_back(&table, &reference, 40);
        }
    }

    #[test]
    fn growth_moves_cross_the_fast_growth_limit() {
        // Single inserts grow a table through 2^17 buckets (two lattice steps a growth, then
        // one), with keys of 60 bits and values of 32 (6 slots a bucket); then a wider value
        // (slots wider than a word) and a wider key (a remix) rebuild it. Every key reads back.
        let storage = crate::map::storage_of(&smartarrays::ArrayOptions::new()).unwrap();
        let mut reference = std::collections::HashMap::new();
        let mut table = Table::empty(storage);
        let mut counts = Vec::new();
        for i in 0..700_000u64 {
            let (code, value) = (scattered(i) & low_mask(60), scattered(i + 3) >> 32);
            insert_or_replace(&mut table, &mut reference, code, value);
            if counts.last() != Some(&table.bucket_count()) {
                counts.push(table.bucket_count());
            }
        }
        assert!(
            counts.iter().any(|&c| c < FAST_GROWTH_BUCKETS)
                && counts.iter().any(|&c| c > FAST_GROWTH_BUCKETS * 5 / 4),
            "{counts:?}"
        );
        reads_back(&table, &reference, 60);
        let next = moved(&table, lattice_step(table.bucket_count()).unwrap(), 60, 32);
        reads_back(&next.unwrap(), &reference, 60);
        table.insert_new(low_mask(60) - 5, u64::MAX >> 8).unwrap();
        reference.insert(low_mask(60) - 5, u64::MAX >> 8);
        table.insert_new(1 << 62, 3).unwrap();
        reference.insert(1 << 62, 3);
        assert_eq!(table.key_bits(), 63);
        reads_back(&table, &reference, 63);
        let next = moved(&table, lattice_step(table.bucket_count()).unwrap(), 63, 56);
        reads_back(&next.unwrap(), &reference, 63);
    }
}
