//! # smartarrays-jobs
//!
//! The five jobs of the Spark scale-up study (Awan et al., "How Data Volume Affects Spark Based
//! Data Analytics on a Scale-up Server", 2015, after BigDataBench) on smart arrays and smart
//! collections, over memory-mapped files cut into chunks at line ends:
//!
//! | job | here | the study's Spark job |
//! | --- | --- | --- |
//! | word count | [`wordcount`]: words dictionary-encoded per worker, counts merged into a [`Bag`](smartarrays_collections::Bag) | `split(" ")`, `reduceByKey(_ + _)` |
//! | grep | [`grep`]: `memmem` over whole chunks | `filter(_.contains("The"))` |
//! | sort | [`sort_lines`] (whole lines by bytes, parallel sample sort), [`sort_keys`] (numbers, radix passes per byte of the widest key, kept bit-packed in a smart array) | `sortByKey` of whole lines |
//! | naive Bayes | [`bayes_train`], [`bayes_classify`]: dense per-class log-probabilities by word id | raw products of `P(w|c)` from a hash map |
//! | k-means | [`read_points`], [`kmeans`]: k-means\|\| then Lloyd, fused assign-and-sum passes | MLlib `KMeans.train(k = 8, 4 iterations)` |
//!
//! [`generate`] writes seeded inputs shaped like the study's (Zipf text, labelled reviews,
//! numeric vectors, integer keys). Every job runs on the runtime of its [`JobOptions`] and
//! reports progress through it; a malformed line is a [`JobError::Parse`] naming the file and
//! line. `docs/jobs.md` shows the command line and the measurements.
//!
//! # Example
//! ```
//! use smartarrays_jobs::{grep, wordcount, Input, JobOptions};
//! let input = Input::from_bytes("t.txt", b"The cat sat\non the mat\nThe end".to_vec());
//! let options = JobOptions::new();
//! assert_eq!(wordcount(&input, &options).unwrap().count("the"), 1);
//! assert_eq!(grep(&input, "The", &options).unwrap().len(), 2);
//! ```

mod bayes;
mod error;
mod generate;
mod grep;
mod input;
mod kmeans;
mod options;
mod partition;
mod sort;
mod wordcount;
mod words;

pub use bayes::{bayes_classify, bayes_train, BayesModel, Predictions, LAPLACE};
pub use error::{JobError, Result};
pub use generate::{generate, generate_file, DataKind, DataOptions, LINES_PER_BLOCK};
pub use grep::{grep, GrepMatches, STUDY_PATTERN};
pub use input::{Input, DEFAULT_CHUNK_BYTES};
pub use kmeans::{kmeans, read_points, KMeansOptions, KMeansResult, Points};
pub use options::{JobOptions, ProgressFn};
pub use sort::{
    radix_passes, radix_sort, sort_keys, sort_lines, SortedKeys, SortedLines, RADIX_BITS,
};
pub use wordcount::{wordcount, WordCounts};

/// The README's examples, compiled and run as doctests so they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
