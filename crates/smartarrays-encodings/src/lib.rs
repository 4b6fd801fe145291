//! # smartarrays-encodings
//!
//! Typed compressed columns on smart arrays: each encoding is a unit that decodes to a
//! canonical form and carries its compute kernels (get, unpack, take, filters in code space,
//! sum/min/max, statistics), and every one stores its data in [`smartarrays::SmartArray`]s, so
//! every placement of the core (including replicated) applies to every encoding.
//!
//! | module | encoding | for |
//! | --- | --- | --- |
//! | [`bitpacked`] | the core's bit packing at the minimal width | small values that vary freely |
//! | [`frame`] | base + bit-packed offsets | values in a narrow range far from 0; signed integers |
//! | [`dictionary`] | bit-packed codes over a sorted dictionary | few distinct values |
//! | [`run_end`] | run ends + run values | sorted or clustered columns |
//! | [`delta`] | block starts + bit-packed differences | sorted keys with small gaps |
//! | [`constant`] | one value | columns of one value |
//! | [`float`] | ALP: doubles as decimal digits through frame, plus exceptions | prices, measurements |
//! | [`strings`] | sorted dictionary of strings, or FSST with bit-packed offsets | categories, free text |
//! | [`decimal`], [`date`] | scaled integers, day numbers (through the above) | money, dates |
//! | [`validity`] | a 1-bit smart array of valid rows | nulls, for any column |
//!
//! [`Column`] puts them under one typed interface; [`compress`] picks the encoding of a column
//! from a sample and explains why; [`parts`] is a column's serialised form (packed words and a
//! small header) for sending it to another process.
//!
//! # Example
//! ```
//! use smartarrays::Placement;
//! use smartarrays_encodings::{Column, ColumnOptions, EncodingKind, Predicate, Scalar};
//!
//! // Ship dates of one year, sorted: run-end encoded.
//! let days: Vec<i32> = (0..100_000).map(|i| 10_000 + i / 300).collect();
//! let options = ColumnOptions::new().placement(Placement::Replicated);
//! let column = Column::from_dates(&days, &options).unwrap();
//! assert_eq!(column.explanation().chosen, EncodingKind::RunEnd);
//! let march = column.filter(&Predicate::between(Scalar::Date32(10_100), Scalar::Date32(10_130))).unwrap();
//! assert_eq!(march.count(), 31 * 300);
//! ```

pub mod bitpacked;
pub mod column;
pub mod compress;
pub mod constant;
pub mod date;
pub mod decimal;
pub mod delta;
pub mod dictionary;
pub mod error;
pub mod float;
pub mod frame;
pub mod integer;
pub mod kernel;
pub mod memory;
pub mod parts;
pub mod predicate;
pub mod run_end;
pub mod selection;
pub mod strings;
pub mod types;
pub mod validity;

pub use bitpacked::BitPacked;
pub use column::{Column, ColumnOptions, Encoding};
pub use compress::{Candidate, Explanation};
pub use constant::Constant;
pub use delta::Delta;
pub use dictionary::Dictionary;
pub use error::{EncodingError, Result};
pub use frame::Frame;
pub use integer::{IntEncoding, KeyEncoding};
pub use kernel::KeyFilter;
pub use memory::{MemoryPart, MemoryReport};
pub use parts::{ColumnParts, PARTS_VERSION};
pub use predicate::{LikePattern, Predicate};
pub use run_end::RunEnd;
pub use selection::Selection;
pub use types::{Canonical, DataType, EncodingKind, Scalar, Statistics, Sum, Values};
pub use validity::Validity;

/// The README's example, compiled and run as a doctest so it stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
