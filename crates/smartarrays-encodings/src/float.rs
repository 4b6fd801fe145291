//! Lossless decimal encoding of doubles, after ALP ("ALP: Adaptive Lossless floating-Point
//! Compression", Afroozeh, Kuffó and Boncz, SIGMOD 2023).
//!
//! Many doubles are decimals in disguise (prices, measurements): `x = d x 10^f / 10^e` for a
//! small integer `d`. The encoder picks the exponent `e` (0..=18) and factor `f` (0..=e) that
//! make a sample cheapest (bits of the digit range plus the cost of exceptions), then turns every
//! value into `d = round(x x 10^e / 10^f)` and keeps it only when decoding gives back the very
//! same bits. The digits go through [`Frame`] (so they cost the bits of their range), and the
//! values that do not round-trip (NaN, -0.0, infinities, values with more digits, magnitudes
//! beyond 2^53) are kept as exceptions: their positions bit-packed in a smart array and their raw
//! bits in another. The compressor keeps plain doubles when ALP does not pay.
//!
//! Filters stay in code space: decoding is monotone in the digit, so a range of doubles is a
//! range of digits (found by binary search over the digit range), evaluated on the packed
//! offsets; exceptions are then decided one by one.

use smartarrays::{ArrayOptions, SmartArray};

use crate::error::{check_indices, check_range, Result};
use crate::frame::Frame;
use crate::integer::KeyEncoding;
use crate::kernel::{self, f64_from_key, i64_from_key, key_from_f64, key_from_i64, KeyFilter};
use crate::selection::Selection;

/// Exact powers of ten as doubles (10^22 is the last one a double holds exactly).
const POW10: [f64; 19] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18,
];

/// Largest digit magnitude kept: doubles hold every integer up to 2^53 exactly.
const MAX_DIGIT: f64 = (1u64 << 53) as f64;

/// The digit of `value` at exponent `e` and factor `f`, when it decodes back bit-exactly.
pub(crate) fn encode(value: f64, e: u8, f: u8) -> Option<i64> {
    let scaled = (value * POW10[e as usize] / POW10[f as usize]).round();
    if !scaled.is_finite() || scaled.abs() >= MAX_DIGIT {
        return None;
    }
    let digit = scaled as i64;
    (decode(digit, e, f).to_bits() == value.to_bits()).then_some(digit)
}

/// The double of digit `digit` at exponent `e` and factor `f`.
pub(crate) fn decode(digit: i64, e: u8, f: u8) -> f64 {
    digit as f64 * POW10[f as usize] / POW10[e as usize]
}

/// The exponent and factor that make `sample` cheapest, and that cost in bits.
pub(crate) fn best_parameters(sample: &[f64]) -> (u8, u8, f64) {
    let mut best = (0, 0, f64::INFINITY);
    for e in 0..POW10.len() as u8 {
        for f in 0..=e {
            let (mut lo, mut hi, mut exceptions) = (i64::MAX, i64::MIN, 0usize);
            for &value in sample {
                match encode(value, e, f) {
                    Some(d) => {
                        lo = lo.min(d);
                        hi = hi.max(d);
                    }
                    None => exceptions += 1,
                }
            }
            let span = if lo > hi { 0 } else { hi.abs_diff(lo) };
            let bits = sample.len() as f64 * f64::from(kernel::bits_for(span))
                + exceptions as f64 * (64.0 + 32.0);
            if bits < best.2 {
                best = (e, f, bits);
            }
        }
    }
    best
}

/// Doubles as ALP digits through frame of reference, plus exceptions.
///
/// # Example
/// ```
/// use smartarrays_encodings::float::Alp;
/// let prices = [19.99, 5.25, 100.0, f64::NAN, -0.0, 7.5];
/// let alp = Alp::new(&prices, &Default::default()).unwrap();
/// assert_eq!(alp.exponent(), 2); // cents
/// assert_eq!(alp.exception_count(), 2); // NaN and -0.0
/// let back = alp.to_f64_vec();
/// assert!(back.iter().zip(&prices).all(|(a, b)| a.to_bits() == b.to_bits()));
/// ```
#[derive(Debug)]
pub struct Alp {
    pub(crate) len: usize,
    pub(crate) exponent: u8,
    pub(crate) factor: u8,
    pub(crate) digits: Frame,
    pub(crate) positions: SmartArray,
    pub(crate) exceptions: SmartArray,
}

impl Alp {
    /// Encodes `values` with parameters chosen from a sample, placed by `options`.
    pub fn new(values: &[f64], options: &ArrayOptions) -> Result<Alp> {
        let sample: Vec<f64> = kernel::sample_positions(values.len(), 16, 64)
            .into_iter()
            .map(|p| values[p])
            .collect();
        let (e, f, _) = best_parameters(&sample);
        Alp::with_parameters(values, e, f, options)
    }

    /// Encodes `values` at exponent `e` and factor `f` (`f <= e <= 18`; out-of-range values are
    /// clamped into it).
    pub fn with_parameters(values: &[f64], e: u8, f: u8, options: &ArrayOptions) -> Result<Alp> {
        let e = e.min(18);
        let f = f.min(e);
        let digits: Vec<Option<i64>> = values.iter().map(|&v| encode(v, e, f)).collect();
        let filler = digits.iter().flatten().next().copied().unwrap_or(0);
        let keys: Vec<u64> = digits
            .iter()
            .map(|d| key_from_i64(d.unwrap_or(filler)))
            .collect();
        let positions: Vec<u64> = (0..values.len())
            .filter(|&i| digits[i].is_none())
            .map(|i| i as u64)
            .collect();
        let raw: Vec<u64> = positions
            .iter()
            .map(|&p| values[p as usize].to_bits())
            .collect();
        let largest_position = positions.last().copied().unwrap_or(0);
        Ok(Alp {
            len: values.len(),
            exponent: e,
            factor: f,
            digits: Frame::new(&keys, options)?,
            positions: kernel::pack(positions.len(), largest_position, options, |i| positions[i])?,
            exceptions: SmartArray::from_fn(raw.len(), &kernel::options_at(options, 64), |i| {
                raw[i]
            })?,
        })
    }

    /// The exponent `e`: values are `digit x 10^f / 10^e`.
    pub fn exponent(&self) -> u8 {
        self.exponent
    }

    /// The factor `f`.
    pub fn factor(&self) -> u8 {
        self.factor
    }

    /// Number of values kept raw.
    pub fn exception_count(&self) -> usize {
        self.positions.len()
    }

    /// The digits (as order-preserving keys of `i64`) in frame of reference.
    pub fn digits(&self) -> &Frame {
        &self.digits
    }

    fn decode_key(&self, digit_key: u64) -> f64 {
        decode(i64_from_key(digit_key), self.exponent, self.factor)
    }

    /// The exception index of row `row`, if it is one.
    fn exception_at(&self, row: usize) -> Result<Option<usize>> {
        let first = self.first_exception_from(row)?;
        Ok(
            (first < self.positions.len() && self.positions.get(first)? as usize == row)
                .then_some(first),
        )
    }

    /// The index of the first exception at or after row `row`.
    fn first_exception_from(&self, row: usize) -> Result<usize> {
        let (mut lo, mut hi) = (0usize, self.positions.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if (self.positions.get(mid)? as usize) < row {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// Value `index`, bit-exact.
    pub fn get_f64(&self, index: usize) -> Result<f64> {
        check_indices(&[index], self.len)?;
        match self.exception_at(index)? {
            Some(k) => Ok(f64::from_bits(self.exceptions.get(k)?)),
            None => Ok(self.decode_key(self.digits.get(index)?)),
        }
    }

    /// Decodes values `start..start + out.len()`.
    pub fn unpack_f64(&self, start: usize, out: &mut [f64]) -> Result<()> {
        let mut keys = vec![0u64; out.len()];
        self.unpack(start, &mut keys)?;
        out.iter_mut()
            .zip(keys)
            .for_each(|(o, k)| *o = f64_from_key(k));
        Ok(())
    }

    /// All values decoded.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.len];
        let decoded = self.unpack_f64(0, &mut out);
        debug_assert!(decoded.is_ok());
        out
    }

    /// The digits `lo..=hi` (in digit space) whose doubles lie within `lo_value..=hi_value` in
    /// total order, or `None` when none does.
    fn digit_range(&self, lo_value: f64, hi_value: f64) -> Option<(i64, i64)> {
        let (min, max) = self.digits.min_max()?;
        let (min, max) = (i64_from_key(min), i64_from_key(max));
        // First digit whose double is not below `bound` (decoding is monotone in the digit).
        let first_not_below = |bound: f64, strict: bool| {
            let (mut lo, mut hi) = (min as i128, max as i128 + 1);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let order = decode(mid as i64, self.exponent, self.factor).total_cmp(&bound);
                let below = if strict { order.is_le() } else { order.is_lt() };
                if below {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        let first = first_not_below(lo_value, false);
        let last = first_not_below(hi_value, true) - 1;
        (first <= last).then_some((first as i64, last as i64))
    }

    /// Calls `visit(row, value)` for every exception.
    fn for_each_exception(&self, mut visit: impl FnMut(usize, f64)) -> Result<()> {
        for k in 0..self.positions.len() {
            visit(
                self.positions.get(k)? as usize,
                f64::from_bits(self.exceptions.get(k)?),
            );
        }
        Ok(())
    }
}

/// The encoding over doubles' total-order keys (see [`key_from_f64`]), so that a Float64
/// column treats it like the integer encodings.
impl KeyEncoding for Alp {
    fn name(&self) -> &'static str {
        "alp"
    }
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, index: usize) -> Result<u64> {
        Ok(key_from_f64(self.get_f64(index)?))
    }
    fn unpack(&self, start: usize, out: &mut [u64]) -> Result<()> {
        let end = start.saturating_add(out.len());
        check_range(start, end, self.len)?;
        self.digits.unpack(start, out)?;
        out.iter_mut()
            .for_each(|k| *k = key_from_f64(self.decode_key(*k)));
        let mut k = self.first_exception_from(start)?;
        while k < self.positions.len() {
            let row = self.positions.get(k)? as usize;
            if row >= end {
                break;
            }
            out[row - start] = key_from_f64(f64::from_bits(self.exceptions.get(k)?));
            k += 1;
        }
        Ok(())
    }
    fn take(&self, indices: &[usize]) -> Result<Vec<u64>> {
        check_indices(indices, self.len)?;
        indices.iter().map(|&i| self.get(i)).collect()
    }
    fn filter(&self, filter: &KeyFilter) -> Result<Selection> {
        let digit_filter = match filter {
            KeyFilter::Nothing => KeyFilter::Nothing,
            KeyFilter::Range { lo, hi } => {
                match self.digit_range(f64_from_key(*lo), f64_from_key(*hi)) {
                    Some((first, last)) => KeyFilter::Range {
                        lo: key_from_i64(first),
                        hi: key_from_i64(last),
                    },
                    None => KeyFilter::Nothing,
                }
            }
            KeyFilter::In(keys) => {
                let mut digits: Vec<u64> = keys
                    .iter()
                    .filter_map(|&k| encode(f64_from_key(k), self.exponent, self.factor))
                    .map(key_from_i64)
                    .collect();
                digits.sort_unstable();
                digits.dedup();
                KeyFilter::In(digits)
            }
        };
        let mut selection = self.digits.filter(&digit_filter)?;
        self.for_each_exception(|row, value| {
            selection.assign(row, filter.matches(key_from_f64(value)));
        })?;
        Ok(selection)
    }
    fn sum(&self) -> u128 {
        let mut keys = vec![0u64; self.len];
        let decoded = self.unpack(0, &mut keys);
        debug_assert!(decoded.is_ok());
        keys.iter().map(|&k| u128::from(k)).sum()
    }
    fn min_max(&self) -> Option<(u64, u64)> {
        let mut found: Option<(u64, u64)> = None;
        let mut merge = |key: u64| {
            found = Some(found.map_or((key, key), |(lo, hi)| (lo.min(key), hi.max(key))));
        };
        if self.exception_count() < self.len {
            let (lo, hi) = self.digits.min_max()?;
            merge(key_from_f64(self.decode_key(lo)));
            merge(key_from_f64(self.decode_key(hi)));
        }
        let visited = self.for_each_exception(|_, value| merge(key_from_f64(value)));
        debug_assert!(visited.is_ok());
        found
    }
    fn run_count(&self) -> usize {
        crate::integer::count_runs(self)
    }
    fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        vec![
            ("digits", self.digits.offsets()),
            ("exception positions", &self.positions),
            ("exception values", &self.exceptions),
        ]
    }
    fn heap_bytes(&self) -> usize {
        10
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_round_trip_and_specials_do_not() {
        assert_eq!(encode(1.23, 2, 0), Some(123));
        assert_eq!(encode(0.1 + 0.2, 1, 0), None); // 0.30000000000000004
        assert_eq!(encode(1.5e10, 0, 9), Some(15));
        for special in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 1e300] {
            assert_eq!(encode(special, 2, 0), None, "{special}");
        }
        let (e, f, _) = best_parameters(&[1.25, 3.5, 100.75]);
        assert_eq!((e, f), (2, 0));
    }
}
