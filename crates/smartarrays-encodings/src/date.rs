//! Dates as day numbers: days since 1970-01-01 in an `i32` (Arrow's Date32), proleptic
//! Gregorian calendar. A Date32 column stores them as order-preserving keys through the integer
//! encodings: a year of dates costs 9 bits a value in frame of reference, and date ranges are
//! integer ranges.

use crate::error::{EncodingError, Result};

/// The day number of `year-month-day`, or an error for a day that does not exist or a date
/// outside the `i32` range.
///
/// # Example
/// ```
/// use smartarrays_encodings::date::{days_from_civil, civil_from_days};
/// assert_eq!(days_from_civil(1970, 1, 1).unwrap(), 0);
/// assert_eq!(days_from_civil(2000, 3, 1).unwrap(), 11_017);
/// assert_eq!(civil_from_days(-1), (1969, 12, 31));
/// assert!(days_from_civil(2023, 2, 29).is_err());
/// ```
pub fn days_from_civil(year: i64, month: u32, day: u32) -> Result<i32> {
    let invalid = |reason: &str| EncodingError::ValueDoesNotFit {
        value: format!("{year:04}-{month:02}-{day:02}"),
        reason: reason.to_string(),
    };
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return Err(invalid("no such day"));
    }
    // Count from 0000-03-01 so that the leap day ends a year.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400);
    let shifted_month = i64::from((month + 9) % 12);
    let day_of_year = (153 * shifted_month + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    i32::try_from(days).map_err(|_| invalid("outside the 32-bit day range"))
}

/// The `(year, month, day)` of a day number.
pub fn civil_from_days(days: i32) -> (i64, u32, u32) {
    let z = i64::from(days) + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Parses `YYYY-MM-DD` into a day number.
///
/// # Example
/// ```
/// use smartarrays_encodings::date::parse;
/// assert_eq!(parse("1998-12-01").unwrap(), 10_561);
/// assert!(parse("1998-13-01").is_err());
/// ```
pub fn parse(text: &str) -> Result<i32> {
    let invalid = || EncodingError::ValueDoesNotFit {
        value: text.to_string(),
        reason: "not a date of the form YYYY-MM-DD".to_string(),
    };
    let mut parts = text.trim().rsplitn(3, '-');
    let day = parts
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(invalid)?;
    let month = parts
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(invalid)?;
    let year = parts
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(invalid)?;
    days_from_civil(year, month, day)
}

/// Writes a day number as `YYYY-MM-DD`.
pub fn format(days: i32) -> String {
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_day_of_four_centuries_round_trips() {
        let start = days_from_civil(1800, 1, 1).unwrap();
        for days in start..start + 146_097 {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d).unwrap(), days);
        }
        for days in [i32::MIN, i32::MAX, 0, -719_468] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d).unwrap(), days, "{days}");
        }
    }
}
