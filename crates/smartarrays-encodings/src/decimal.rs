//! Exact decimals as scaled integers: `12.34` at scale 2 is the unscaled integer 1234. A
//! Decimal column stores the unscaled values as order-preserving keys through the integer
//! encodings (frame of reference unless another is smaller), so a column of prices in cents
//! costs the bits of its price range. Sums are exact in 128 bits; parsing refuses, rather than
//! rounds, a text with more digits than the scale or outside the 64-bit range.

use crate::error::{EncodingError, Result};

/// The largest scale: 10^18 still fits in an `i64`.
pub const MAX_SCALE: u8 = 18;

/// Checks a scale.
pub(crate) fn check_scale(scale: u8) -> Result<()> {
    if scale > MAX_SCALE {
        return Err(EncodingError::Decimal {
            value: format!("scale {scale}"),
            reason: format!("the scale must be at most {MAX_SCALE}"),
        });
    }
    Ok(())
}

/// Parses a decimal text (`-12.5`, `3`, `0.001`) into its unscaled integer at `scale`.
///
/// Refuses (never rounds or truncates): more fractional digits than `scale` unless they are
/// zeros, a value outside `i64` once scaled, anything that is not a plain decimal number.
///
/// # Example
/// ```
/// use smartarrays_encodings::decimal::parse;
/// assert_eq!(parse("-12.5", 2).unwrap(), -1250);
/// assert_eq!(parse("7", 3).unwrap(), 7000);
/// assert!(parse("0.125", 2).is_err()); // would lose a digit
/// assert!(parse("92233720368547758.08", 2).is_err()); // leaves i64
/// ```
pub fn parse(text: &str, scale: u8) -> Result<i64> {
    check_scale(scale)?;
    let error = |reason: &str| EncodingError::Decimal {
        value: text.to_string(),
        reason: reason.to_string(),
    };
    let trimmed = text.trim();
    let (negative, digits) = match trimmed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, trimmed.strip_prefix('+').unwrap_or(trimmed)),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return Err(error("not a decimal number"));
    }
    let kept = fraction.len().min(scale as usize);
    if fraction[kept..].bytes().any(|b| b != b'0') {
        return Err(error(&format!(
            "it has more than {scale} digits after the point"
        )));
    }
    let mut value: i128 = 0;
    for b in whole.bytes().chain(fraction[..kept].bytes()) {
        value = value * 10 + i128::from(b - b'0');
        if value > i128::from(u64::MAX) {
            return Err(error("it does not fit in a 64-bit unscaled integer"));
        }
    }
    value *= 10i128.pow(u32::from(scale) - kept as u32);
    if negative {
        value = -value;
    }
    i64::try_from(value).map_err(|_| error("it does not fit in a 64-bit unscaled integer"))
}

/// Writes `unscaled / 10^scale` as text, with exactly `scale` digits after the point.
///
/// # Example
/// ```
/// use smartarrays_encodings::decimal::format;
/// assert_eq!(format(-5, 2), "-0.05");
/// assert_eq!(format(1234, 0), "1234");
/// ```
pub fn format(unscaled: i128, scale: u8) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    format!("{sign}{whole}.{fraction}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_refusals() {
        for (text, scale, unscaled) in [
            ("0", 0, 0),
            ("-0.01", 2, -1),
            ("92233720368547758.07", 2, i64::MAX),
            ("-92233720368547758.08", 2, i64::MIN),
            ("1.50", 1, 15),
        ] {
            assert_eq!(parse(text, scale).unwrap(), unscaled, "{text}");
        }
        assert_eq!(format(i128::from(i64::MIN), 2), "-92233720368547758.08");
        for bad in ["", ".", "1.2.3", "abc", "1e5", "--1"] {
            assert!(parse(bad, 2).is_err(), "{bad}");
        }
        assert!(parse("1", 19).is_err());
    }
}
