//! "Auto" configuration: [`Placement::Auto`] and [`Compression::Auto`] in [`ArrayOptions`], the
//! [`Usage`] a caller can state, and the process-wide [`Advise`] hook that resolves them when an
//! array is built. The core only asks; the deciding is done by an installed advisor (the
//! `smartarrays-adapt` crate installs the paper's §6 advisor with `smartarrays_adapt::install`).
//! Building with "auto" and no advisor installed is an [`Error::AutoUnresolved`] naming the fix.
//!
//! [`ArrayOptions`]: crate::ArrayOptions

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::memory::Placement;
use crate::runtime::Runtime;

/// How an array's width is chosen: the one width vocabulary of every language (`auto`,
/// `uncompressed`, `minimal` or a width), set with [`ArrayOptions::compression`] or, for an
/// exact width, [`ArrayOptions::bits`].
///
/// [`ArrayOptions::compression`]: crate::ArrayOptions::compression
/// [`ArrayOptions::bits`]: crate::ArrayOptions::bits
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Compression {
    /// Let the installed advisor choose between the natural and the minimal width.
    Auto,
    /// The natural width: 32 bits when every value fits, else 64 (plain machine words).
    Uncompressed,
    /// The fewest bits that hold the largest value (the default).
    #[default]
    Minimal,
    /// Exactly this many bits (1..=64).
    Exactly(u32),
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Compression::Auto => write!(f, "auto"),
            Compression::Uncompressed => write!(f, "uncompressed"),
            Compression::Minimal => write!(f, "minimal"),
            Compression::Exactly(bits) => write!(f, "{bits}"),
        }
    }
}

impl FromStr for Compression {
    type Err = Error;

    /// Parses `auto`, `uncompressed` (or `none`, `natural`), `minimal`, or a width `1`..`64`.
    fn from_str(text: &str) -> Result<Compression> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Compression::Auto),
            "uncompressed" | "none" | "natural" => Ok(Compression::Uncompressed),
            "minimal" | "min" => Ok(Compression::Minimal),
            other => match other.parse::<u32>() {
                Ok(bits) if (1..=64).contains(&bits) => Ok(Compression::Exactly(bits)),
                Ok(bits) => Err(Error::InvalidBitWidth(bits)),
                Err(_) => Err(Error::InvalidCompression(text.to_string())),
            },
        }
    }
}

/// What the caller knows about how an array will be used (the paper's "software
/// characteristics", §6.1). Only read by an advisor when something is "auto".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Only read after being built (replication is considered only then).
    pub read_only: bool,
    /// Accesses per element over the array's lifetime (e.g. 15 for 15 full scans).
    pub accesses_per_element: f64,
    /// Share of the accesses at random positions (0..=1).
    pub random_share: f64,
    /// Building replicas is hidden behind loading the data.
    pub init_hidden: bool,
}

impl Default for Usage {
    fn default() -> Self {
        Usage {
            read_only: true,
            accesses_per_element: 10.0,
            random_share: 0.0,
            init_hidden: false,
        }
    }
}

/// What an advisor is asked to decide for one array.
#[derive(Clone, Debug)]
pub struct AutoRequest {
    /// Number of values.
    pub len: usize,
    /// The largest value (0 for an empty array).
    pub largest: u64,
    /// The requested placement; [`Placement::Auto`] when the advisor must choose it.
    pub placement: Placement,
    /// The requested width rule; [`Compression::Auto`] when the advisor must choose it.
    pub compression: Compression,
    /// How the array will be used.
    pub usage: Usage,
}

/// An advisor's answer: the concrete configuration and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Advice {
    /// Placement to use (never [`Placement::Auto`]).
    pub placement: Placement,
    /// Width to use (1..=64).
    pub bits: u32,
    /// The reasoning in plain words, with the numbers behind it.
    pub explanation: String,
}

/// Something that resolves "auto" placement and compression (implemented by
/// `smartarrays_adapt::Advisor`). Must be cheap to call: it runs once per array built.
pub trait Advise: Send + Sync {
    /// Decides `request` for an array built by `runtime`.
    fn advise(&self, request: &AutoRequest, runtime: &Runtime) -> Result<Advice>;
}

static ADVISOR: RwLock<Option<Arc<dyn Advise>>> = RwLock::new(None);

/// Installs the process-wide advisor used for arrays built with "auto" options (replacing any
/// earlier one).
pub fn install_advisor(advisor: Arc<dyn Advise>) {
    *ADVISOR
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(advisor);
}

/// Removes the installed advisor; later "auto" builds fail with [`Error::AutoUnresolved`].
pub fn uninstall_advisor() {
    *ADVISOR
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
}

/// The installed advisor, if any.
pub fn installed_advisor() -> Option<Arc<dyn Advise>> {
    ADVISOR
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

/// The natural (uncompressed) width of data that needs `minimal_bits`: 32 when the values fit
/// in 32 bits, else 64. This is what [`Compression::Uncompressed`] stores at.
pub fn natural_bits(minimal_bits: u32) -> u32 {
    if minimal_bits <= 32 {
        32
    } else {
        64
    }
}

/// Resolves `request` with the installed advisor and checks the answer.
pub(crate) fn resolve(request: &AutoRequest, runtime: &Runtime) -> Result<Advice> {
    let advisor = installed_advisor().ok_or_else(|| {
        Error::AutoUnresolved(format!(
            "placement {} / compression {} ask for an advisor, but none is installed: install one first \
             (C: sa_install_default_advisor(); Rust: smartarrays_adapt::install_for_this_machine(); \
             Python installs it on first use), or give a concrete placement and width",
            request.placement, request.compression
        ))
    })?;
    let advice = advisor.advise(request, runtime)?;
    if advice.placement == Placement::Auto {
        return Err(Error::AutoUnresolved(
            "the advisor answered with placement auto".to_string(),
        ));
    }
    crate::codec::check_bits(advice.bits)?;
    // The advisor's width is used only when the width was left to it (a fixed one is checked
    // against the values while the array is filled).
    if request.compression == Compression::Auto
        && advice.bits < crate::codec::bits_needed(request.largest)
    {
        return Err(Error::AutoUnresolved(format!(
            "the advisor chose {} bits, but the largest value {} needs {}",
            advice.bits,
            request.largest,
            crate::codec::bits_needed(request.largest)
        )));
    }
    Ok(advice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_parses_and_prints() {
        for (text, expected) in [
            ("auto", Compression::Auto),
            ("none", Compression::Uncompressed),
            ("uncompressed", Compression::Uncompressed),
            ("minimal", Compression::Minimal),
            ("33", Compression::Exactly(33)),
        ] {
            assert_eq!(text.parse::<Compression>().unwrap(), expected);
        }
        assert_eq!(Compression::Exactly(7).to_string(), "7");
        assert_eq!("65".parse::<Compression>(), Err(Error::InvalidBitWidth(65)));
        assert!(matches!(
            "tiny".parse::<Compression>(),
            Err(Error::InvalidCompression(_))
        ));
    }

    #[test]
    fn natural_width_is_32_or_64() {
        let natural_of = |largest: u64| natural_bits(crate::codec::bits_needed(largest));
        assert_eq!(natural_of(0), 32);
        assert_eq!(natural_of(u64::from(u32::MAX)), 32);
        assert_eq!(natural_of(u64::from(u32::MAX) + 1), 64);
    }
}
