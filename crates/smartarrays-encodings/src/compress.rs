//! The sampling compressor: picks the encoding of a column and explains the choice, like the
//! core's `advice()` does for widths and placements.
//!
//! It samples up to 64 runs of 64 consecutive rows spread evenly over the column (consecutive,
//! so that runs can be seen; 4,096 rows at most), estimates the bytes per value of every
//! candidate from the sample (widths from the sample's minimum and maximum, distinct values
//! extrapolated with the GEE estimator, runs from the share of neighbour changes), builds the
//! smallest estimate and measures it. When the measured size exceeds the next estimate by more
//! than [`REBUILD_MARGIN`] (the sample missed an outlier, or underestimated the distinct values),
//! it builds the next one too and keeps the smaller.
//! With [`ColumnOptions::measure_all`](crate::ColumnOptions::measure_all) every candidate is
//! built and the smallest real one kept. Cascades: dictionary codes and run ends are themselves
//! bit-packed, run values go through frame of reference, ALP digits through frame of reference.

use std::collections::HashMap;
use std::fmt;

use crate::column::{ColumnOptions, Encoding};
use crate::error::{EncodingError, Result};
use crate::float::{best_parameters, Alp};
use crate::integer::IntEncoding;
use crate::kernel::f64_from_key;
use crate::kernel::{bits_for, sample_positions};
use crate::strings::{FsstStrings, StringDictionary, StringEncoding};
use crate::types::EncodingKind;

/// Sample shape: runs of consecutive rows, and how many.
pub(crate) const SAMPLE_SEGMENTS: usize = 64;
pub(crate) const SAMPLE_SEGMENT: usize = 64;

/// How far (a factor) the measured size of the best built candidate may exceed the next
/// candidate's estimate before that one is built too: the size given up to save a build. Small,
/// because a sample that sees every value once underestimates a dictionary by a lot (TPC-H's
/// `l_extendedprice`: 3.75 B/value measured against 2.5 estimated, when frame of reference
/// stores it in 3.0).
pub const REBUILD_MARGIN: f64 = 1.05;

/// One candidate the compressor weighed.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The encoding.
    pub kind: EncodingKind,
    /// Bytes per value estimated from the sample (`None`: not applicable to this column).
    pub estimated_bytes_per_value: Option<f64>,
    /// Bytes per value of the built encoding (densely packed, one copy; `None` when it was not
    /// built).
    pub actual_bytes_per_value: Option<f64>,
    /// What the estimate rests on.
    pub note: String,
}

/// Why a column got its encoding.
///
/// # Example
/// ```
/// use smartarrays_encodings::{Column, EncodingKind};
/// let values: Vec<u64> = (0..10_000).map(|i| 1_000_000 + i % 100).collect();
/// let column = Column::from_u64(&values, &Default::default()).unwrap();
/// let explanation = column.explanation();
/// assert_eq!(explanation.chosen, EncodingKind::Frame); // 7 bits, not 20
/// assert!(explanation.to_string().contains("frame"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The encoding built.
    pub chosen: EncodingKind,
    /// Rows in the column.
    pub rows: usize,
    /// Rows sampled for the estimates.
    pub sample_rows: usize,
    /// Every candidate, smallest estimate first.
    pub candidates: Vec<Candidate>,
    /// The decision in plain words.
    pub reason: String,
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} for {} rows (sampled {}): {}",
            self.chosen, self.rows, self.sample_rows, self.reason
        )?;
        writeln!(
            f,
            "  {:<11} {:>14} {:>12}  basis",
            "candidate", "estimated B/v", "actual B/v"
        )?;
        for c in &self.candidates {
            let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
            writeln!(
                f,
                "  {:<11} {:>14} {:>12}  {}",
                c.kind.name(),
                show(c.estimated_bytes_per_value),
                show(c.actual_bytes_per_value),
                c.note
            )?;
        }
        Ok(())
    }
}

/// What the sample says about integer keys.
pub(crate) struct KeySample {
    pub(crate) rows: usize,
    pub(crate) values: Vec<u64>,
    pub(crate) min: u64,
    pub(crate) max: u64,
    pub(crate) distinct_estimate: f64,
    pub(crate) sample_distinct: usize,
    pub(crate) change_rate: f64,
    /// The largest difference between sampled neighbours, `None` when the sample is not
    /// non-decreasing (then delta encoding cannot apply).
    pub(crate) largest_step: Option<u64>,
}

impl KeySample {
    pub(crate) fn new(keys: &[u64]) -> KeySample {
        let positions = sample_positions(keys.len(), SAMPLE_SEGMENTS, SAMPLE_SEGMENT);
        let values: Vec<u64> = positions.iter().map(|&p| keys[p]).collect();
        let (mut pairs, mut changes) = (0usize, 0usize);
        for (w, v) in positions.windows(2).zip(values.windows(2)) {
            if w[1] == w[0] + 1 {
                pairs += 1;
                changes += usize::from(v[0] != v[1]);
            }
        }
        let sorted = values.windows(2).all(|v| v[0] <= v[1]);
        let largest_step = sorted.then(|| {
            positions
                .windows(2)
                .zip(values.windows(2))
                .filter(|(w, _)| w[1] == w[0] + 1)
                .map(|(_, v)| v[1] - v[0])
                .max()
                .unwrap_or(0)
        });
        let mut counts: HashMap<u64, usize> = HashMap::new();
        values
            .iter()
            .for_each(|&v| *counts.entry(v).or_default() += 1);
        KeySample {
            rows: keys.len(),
            min: values.iter().copied().min().unwrap_or(0),
            max: values.iter().copied().max().unwrap_or(0),
            distinct_estimate: gee(keys.len(), values.len(), counts.values().copied()),
            sample_distinct: counts.len(),
            change_rate: if pairs == 0 {
                1.0
            } else {
                changes as f64 / pairs as f64
            },
            largest_step,
            values,
        }
    }

    /// Estimated bytes per value of an integer encoding, with its basis.
    pub(crate) fn estimate(&self, kind: EncodingKind) -> (Option<f64>, String) {
        let n = self.rows.max(1) as f64;
        let span_bits = f64::from(bits_for(self.max - self.min));
        match kind {
            EncodingKind::Constant if self.sample_distinct <= 1 => {
                (Some(8.0 / n), "every sampled value is equal".into())
            }
            EncodingKind::Constant => (
                None,
                format!("the sample holds {} distinct values", self.sample_distinct),
            ),
            EncodingKind::BitPacked => (
                Some(f64::from(bits_for(self.max)) / 8.0),
                format!("{} bits for the sampled maximum", bits_for(self.max)),
            ),
            EncodingKind::Frame => (
                Some(span_bits / 8.0 + 8.0 / n),
                format!("{span_bits} bits for the sampled range"),
            ),
            EncodingKind::Dictionary => {
                let distinct = self.distinct_estimate.max(1.0);
                let code_bits = f64::from(bits_for(distinct as u64 - 1));
                (
                    Some(code_bits / 8.0 + distinct * 8.0 / n),
                    format!("about {distinct:.0} distinct values: {code_bits}-bit codes"),
                )
            }
            EncodingKind::RunEnd => {
                let runs = (self.change_rate * n).max(1.0);
                let bits = f64::from(bits_for(self.rows as u64)) + span_bits;
                (
                    Some(runs * bits / 8.0 / n + 8.0 / n),
                    format!(
                        "about {runs:.0} runs ({:.1}% of neighbours differ)",
                        self.change_rate * 100.0
                    ),
                )
            }
            EncodingKind::Delta => match self.largest_step {
                Some(step) => {
                    let step_bits = bits_for(step);
                    (
                        Some(
                            f64::from(step_bits) / 8.0
                                + span_bits / 8.0 / crate::delta::DELTA_BLOCK as f64
                                + 24.0 / n,
                        ),
                        format!("sorted in the sample, steps up to {step}: {step_bits} bits"),
                    )
                }
                None => (None, "the sample is not sorted".into()),
            },
            _ => (None, "not an integer encoding".into()),
        }
    }
}

/// The GEE distinct-count estimator (Charikar et al., PODS 2000): values seen once in the
/// sample stand for `sqrt(rows / sample)` values each, values seen more often for one.
pub(crate) fn gee(rows: usize, sample: usize, counts: impl Iterator<Item = usize>) -> f64 {
    if sample == 0 {
        return 0.0;
    }
    let (mut once, mut more) = (0.0, 0.0);
    for count in counts {
        if count == 1 {
            once += 1.0;
        } else {
            more += 1.0;
        }
    }
    let scale = if rows <= sample {
        1.0
    } else {
        (rows as f64 / sample as f64).sqrt()
    };
    (scale * once + more).min(rows as f64)
}

/// Distinct values of `rows` estimated from a sample of `sample` rows with these `counts` of
/// each sampled value, by the birthday bound: `sample^2 / (2 pairs)` for the sample's `pairs`
/// of equal values (every row when it has none), at most `rows`. It assumes equally likely
/// values, so skew (a few values seen many times) makes it low, never high: a floor under
/// [`gee`] for samples of nearly unique values, where GEE is low.
pub(crate) fn birthday_distinct(
    rows: usize,
    sample: usize,
    counts: impl Iterator<Item = usize>,
) -> f64 {
    if rows <= sample {
        return 0.0; // the sample is the column: GEE counts it exactly
    }
    let pairs: f64 = counts.map(|c| (c * (c - 1) / 2) as f64).sum();
    let squared = sample as f64 * sample as f64;
    if pairs == 0.0 {
        return rows as f64;
    }
    (squared / (2.0 * pairs)).min(rows as f64)
}

/// A built candidate and its size.
pub(crate) struct Built<T> {
    pub(crate) encoding: T,
    pub(crate) bytes: usize,
}

/// The general decision: `estimates` per kind, `build` makes one and reports its packed bytes.
pub(crate) fn decide<T>(
    rows: usize,
    sample_rows: usize,
    mut candidates: Vec<Candidate>,
    options: &ColumnOptions,
    mut build: impl FnMut(EncodingKind) -> Result<Built<T>>,
) -> Result<(T, Explanation)> {
    let per_value = |bytes: usize| bytes as f64 / rows.max(1) as f64;
    candidates.sort_by(|a, b| {
        let key = |c: &Candidate| c.estimated_bytes_per_value.unwrap_or(f64::INFINITY);
        key(a).total_cmp(&key(b))
    });
    if let Some(kind) = options.encoding {
        let built = build(kind)?;
        if let Some(c) = candidates.iter_mut().find(|c| c.kind == kind) {
            c.actual_bytes_per_value = Some(per_value(built.bytes));
        }
        let explanation = Explanation {
            chosen: kind,
            rows,
            sample_rows,
            candidates,
            reason: "asked for by the caller (no choice made)".into(),
        };
        return Ok((built.encoding, explanation));
    }
    let applicable: Vec<usize> = (0..candidates.len())
        .filter(|&i| candidates[i].estimated_bytes_per_value.is_some())
        .collect();
    let mut best: Option<(usize, Built<T>)> = None;
    let mut reason = String::new();
    let mut last_error = None;
    for (rank, &i) in applicable.iter().enumerate() {
        let built = match build(candidates[i].kind) {
            Ok(built) => built,
            Err(error) => {
                candidates[i]
                    .note
                    .push_str(&format!("; not built: {error}"));
                last_error = Some(error);
                continue;
            }
        };
        candidates[i].actual_bytes_per_value = Some(per_value(built.bytes));
        let better = best.as_ref().is_none_or(|(_, b)| built.bytes < b.bytes);
        if better {
            best = Some((i, built));
        }
        if options.measure_all {
            continue;
        }
        // Stop unless the real size shows the sample misled us about this candidate.
        let (chosen, chosen_built) = best.as_ref().map(|(c, b)| (*c, b.bytes)).unwrap_or((i, 0));
        let next = applicable
            .get(rank + 1)
            .and_then(|&j| candidates[j].estimated_bytes_per_value);
        match next {
            Some(next) if per_value(chosen_built) > next * REBUILD_MARGIN => {
                reason = format!(
                    "{} measured {:.3} B/value against its estimate of {:.3}, so the next \
                     candidate was built too; ",
                    candidates[chosen].kind,
                    per_value(chosen_built),
                    candidates[chosen].estimated_bytes_per_value.unwrap_or(0.0)
                );
            }
            _ => break,
        }
    }
    let (index, built) = match best {
        Some(best) => best,
        None => {
            return Err(last_error.unwrap_or(EncodingError::EncodingNotApplicable {
                encoding: "any",
                reason: "no candidate encoding applies".into(),
            }))
        }
    };
    let chosen = candidates[index].kind;
    reason.push_str(&if options.measure_all {
        format!("every candidate was built; {chosen} is the smallest")
    } else {
        format!("{chosen} has the smallest estimate")
    });
    Ok((
        built.encoding,
        Explanation {
            chosen,
            rows,
            sample_rows,
            candidates,
            reason,
        },
    ))
}

/// Picks and builds the encoding of integer keys.
pub(crate) fn choose_int(
    keys: &[u64],
    options: &ColumnOptions,
) -> Result<(IntEncoding, Explanation)> {
    let sample = KeySample::new(keys);
    let candidates = EncodingKind::INTEGER
        .iter()
        .map(|&kind| {
            let (estimate, note) = sample.estimate(kind);
            Candidate {
                kind,
                estimated_bytes_per_value: estimate,
                actual_bytes_per_value: None,
                note,
            }
        })
        .collect();
    decide(
        keys.len(),
        sample.values.len(),
        candidates,
        options,
        |kind| {
            let encoding = IntEncoding::build(kind, keys, &options.array)?;
            Ok(Built {
                bytes: encoding.packed_bytes(),
                encoding,
            })
        },
    )
}

/// Picks and builds the encoding of doubles: ALP, or an integer encoding of their total-order
/// keys (bit packing of the keys is plain doubles).
pub(crate) fn choose_float(
    values: &[f64],
    keys: &[u64],
    options: &ColumnOptions,
) -> Result<(Encoding, Explanation)> {
    let sample = KeySample::new(keys);
    let mut candidates: Vec<Candidate> = EncodingKind::INTEGER
        .iter()
        .map(|&kind| {
            let (estimate, note) = sample.estimate(kind);
            let note = if kind == EncodingKind::BitPacked {
                "plain 64-bit doubles (IEEE total-order keys)".to_string()
            } else {
                note
            };
            Candidate {
                kind,
                estimated_bytes_per_value: estimate,
                actual_bytes_per_value: None,
                note,
            }
        })
        .collect();
    let doubles: Vec<f64> = sample.values.iter().map(|&k| f64_from_key(k)).collect();
    let (e, f, bits) = best_parameters(&doubles);
    candidates.push(Candidate {
        kind: EncodingKind::Alp,
        estimated_bytes_per_value: (!doubles.is_empty() || keys.is_empty())
            .then(|| bits / 8.0 / doubles.len().max(1) as f64 + 32.0 / keys.len().max(1) as f64),
        actual_bytes_per_value: None,
        note: format!("exponent {e}, factor {f} on the sample"),
    });
    decide(
        keys.len(),
        sample.values.len(),
        candidates,
        options,
        |kind| {
            let encoding = if kind == EncodingKind::Alp {
                Encoding::Alp(Alp::with_parameters(values, e, f, &options.array)?)
            } else {
                Encoding::Keys(IntEncoding::build(kind, keys, &options.array)?)
            };
            Ok(Built {
                bytes: encoding.packed_bytes(),
                encoding,
            })
        },
    )
}

/// Picks and builds the encoding of strings: a sorted dictionary or FSST.
pub(crate) fn choose_strings(
    values: &[String],
    options: &ColumnOptions,
) -> Result<(StringEncoding, Explanation)> {
    let positions = sample_positions(values.len(), SAMPLE_SEGMENTS, SAMPLE_SEGMENT);
    let sample: Vec<&str> = positions.iter().map(|&p| values[p].as_str()).collect();
    let rows = values.len().max(1) as f64;
    let mut counts: HashMap<&str, usize> = HashMap::new();
    sample
        .iter()
        .for_each(|s| *counts.entry(s).or_default() += 1);
    // GEE scales the sample's singletons by sqrt(rows / sample) only: a sample of free text
    // with no value twice (comments) reads as a few times the sample, and the dictionary,
    // built over every row to be measured, is then the slow first candidate. The birthday
    // bound is the other floor: `d` equally likely values give about `sample^2 / (2 d)` equal
    // pairs in the sample, so few pairs mean many values (no pair: about every row).
    let distinct = gee(values.len(), sample.len(), counts.values().copied())
        .max(birthday_distinct(
            values.len(),
            sample.len(),
            counts.values().copied(),
        ))
        .max(1.0);
    let distinct_length =
        counts.keys().map(|s| s.len()).sum::<usize>() as f64 / counts.len().max(1) as f64;
    let code_bits = f64::from(bits_for(distinct as u64 - 1));
    let dictionary = Candidate {
        kind: EncodingKind::Dictionary,
        estimated_bytes_per_value: Some(
            code_bits / 8.0 + distinct * (distinct_length + 8.0) / rows,
        ),
        actual_bytes_per_value: None,
        note: format!(
            "about {distinct:.0} distinct strings of {distinct_length:.1} bytes: \
             {code_bits}-bit codes"
        ),
    };
    let bytes: Vec<&[u8]> = sample.iter().map(|s| s.as_bytes()).collect();
    let trained = fsst::Compressor::train(&bytes);
    let compressed: usize = bytes.iter().map(|b| trained.compress(b).len()).sum();
    let raw: usize = bytes.iter().map(|b| b.len()).sum();
    let per_row = compressed as f64 / sample.len().max(1) as f64;
    let offset_bits = f64::from(bits_for((per_row * rows) as u64));
    let fsst = Candidate {
        kind: EncodingKind::Fsst,
        estimated_bytes_per_value: Some(per_row + offset_bits / 8.0 + 2300.0 / rows),
        actual_bytes_per_value: None,
        note: format!(
            "the sample compresses {raw} bytes to {compressed}, plus {offset_bits}-bit offsets"
        ),
    };
    decide(
        values.len(),
        sample.len(),
        vec![dictionary, fsst],
        options,
        |kind| {
            let encoding = match kind {
                EncodingKind::Dictionary => {
                    StringEncoding::Dictionary(StringDictionary::new(values, &options.array)?)
                }
                EncodingKind::Fsst => {
                    StringEncoding::Fsst(FsstStrings::new(values, &options.array)?)
                }
                other => {
                    return Err(EncodingError::EncodingNotApplicable {
                        encoding: other.name(),
                        reason: "strings are stored as a dictionary or with FSST".into(),
                    })
                }
            };
            Ok(Built {
                bytes: encoding.packed_bytes(),
                encoding,
            })
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_birthday_bound_reads_pairs_of_equal_values() {
        // No pair in the sample: about every row is distinct.
        assert_eq!(birthday_distinct(1_000_000, 100, [1; 100].into_iter()), 1e6);
        // 4 pairs among 100 sampled: 100^2 / 8.
        let counts = std::iter::repeat_n(2, 4).chain(std::iter::repeat_n(1, 92));
        assert_eq!(birthday_distinct(1_000_000, 100, counts), 1250.0);
        // One value 100 times: 4950 pairs, about one value.
        let one = birthday_distinct(1_000_000, 100, [100].into_iter());
        assert!((one - 10_000.0 / 9_900.0).abs() < 1e-9, "{one}");
        // The sample is the column: left to GEE.
        assert_eq!(birthday_distinct(50, 50, [1; 50].into_iter()), 0.0);
    }

    /// Free text whose sample has no value twice is not first built as a dictionary (it is
    /// estimated at about one distinct value a row), and a column of a thousand values still is.
    #[test]
    fn unique_strings_go_to_fsst_and_repeated_ones_to_a_dictionary() {
        let rows = 200_000;
        let text: Vec<String> = (0..rows)
            .map(|i| format!("note {i} about the careful packages {}", i * 7919 % 1013))
            .collect();
        let (encoding, explanation) = choose_strings(&text, &ColumnOptions::new()).unwrap();
        assert!(
            matches!(encoding, StringEncoding::Fsst(_)),
            "{explanation:?}"
        );
        let dictionary = explanation
            .candidates
            .iter()
            .find(|c| c.kind == EncodingKind::Dictionary)
            .unwrap();
        assert_eq!(dictionary.actual_bytes_per_value, None, "{explanation:?}");
        let clerks: Vec<String> = (0..rows)
            .map(|i| format!("Clerk#{:09}", i * 7919 % 1000))
            .collect();
        let (encoding, explanation) = choose_strings(&clerks, &ColumnOptions::new()).unwrap();
        assert!(
            matches!(encoding, StringEncoding::Dictionary(_)),
            "{explanation:?}"
        );
    }

    #[test]
    fn gee_is_exact_on_a_whole_column_and_scales_singletons() {
        assert_eq!(gee(10, 10, [1, 1, 8].into_iter()), 3.0);
        assert_eq!(gee(400, 100, [1; 100].into_iter()), 200.0);
    }
}
