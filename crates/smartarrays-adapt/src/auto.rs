//! "Auto" placement and compression. Two ways in:
//! - through the core: [`install`] (or [`install_for_this_machine`]) makes an [`Advisor`] the
//!   process-wide resolver of [`Placement::Auto`] and [`Compression::Auto`] in ordinary
//!   [`ArrayOptions`]; every array built with them then asks it, and
//!   [`SmartArray::advice`] says what was chosen and why;
//! - directly: an [`AutoOptions`] says which parts to choose and the workload's
//!   characteristics, and [`Advisor::resolve`] turns it into ordinary [`ArrayOptions`] plus the
//!   [`Choice`] that explains it. [`Advisor::build`] does both and builds the array.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use smartarrays::array::{Advice, Advise, AutoRequest};
use smartarrays::{ArrayOptions, Placement, Runtime, SmartArray};

use crate::decide::{Advisor, Choice};
use crate::error::{AdaptError, Result};
use crate::profile::{natural_bits, ArrayProfile, ArraySpec, Source, WorkloadProfile};

/// Placement: chosen by the advisor, or fixed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlacementRule {
    /// Let the advisor choose (the paper's `Placement::Auto`).
    #[default]
    Auto,
    /// Use this placement.
    Fixed(Placement),
}

/// Width rule: the core's [`smartarrays::Compression`] (`Auto`, `Uncompressed`, `Minimal`,
/// `Exactly(bits)`), re-exported here.
pub use smartarrays::Compression;

/// What the programmer knows about how the array will be used (the paper's software
/// characteristics): the core's [`smartarrays::Usage`] under the paper's name.
pub type Characteristics = smartarrays::Usage;

/// Options for an array whose placement and/or width the advisor picks.
///
/// # Example
/// ```
/// use smartarrays_adapt::{Advisor, AutoOptions, CostProfile, MachineDescription};
/// // Decide for the paper's 18-core machine (the array itself is built on this machine).
/// let advisor = Advisor::new(MachineDescription::paper_18core(), CostProfile::for_preset("paper-18core").unwrap());
/// // 500 M values below 2^40 (natural width 64), scanned 10 times: compression pays there.
/// let (options, choice) = advisor.resolve(500_000_000, (1 << 40) - 1, &AutoOptions::default()).unwrap();
/// assert_eq!(options.compression, smartarrays::Compression::Exactly(40));
/// println!("{}", choice.unwrap().summary());
/// // A small array is compute-bound in the model: it stays at its natural width.
/// let values: Vec<u64> = (0..100_000).map(|i| i % 5000).collect();
/// let (array, _) = advisor.build(&values, &AutoOptions::default()).unwrap();
/// assert_eq!(array.bits(), 32);
/// assert_eq!(array.to_vec(), values);
/// ```
#[derive(Clone, Debug)]
pub struct AutoOptions {
    /// Placement rule (default: the advisor chooses).
    pub placement: PlacementRule,
    /// Width rule (default: [`Compression::Auto`], the advisor chooses; unlike plain array
    /// options, whose default is the minimal width).
    pub compression: Compression,
    /// How the array will be used.
    pub characteristics: Characteristics,
    /// Runtime that builds the array (default: the core's global runtime).
    pub runtime: Option<Arc<Runtime>>,
}

impl Default for AutoOptions {
    fn default() -> Self {
        AutoOptions {
            placement: PlacementRule::default(),
            compression: Compression::Auto,
            characteristics: Characteristics::default(),
            runtime: None,
        }
    }
}

impl Advisor {
    /// Turns `auto` into core array options for `len` values whose largest is `largest`, with the
    /// choice behind it (`None` when nothing was left to choose). A chosen placement that names
    /// nodes this machine does not have (when deciding for a described machine) is mapped to
    /// the same kind on this machine: single node 0, interleaved over all nodes, replicated.
    pub fn resolve(
        &self,
        len: usize,
        largest: u64,
        auto: &AutoOptions,
    ) -> Result<(ArrayOptions, Option<Choice>)> {
        let c = &auto.characteristics;
        if !((0.0..=1.0).contains(&c.random_share)
            && c.accesses_per_element >= 0.0
            && c.accesses_per_element.is_finite())
        {
            return Err(AdaptError::InvalidInput(format!(
                "characteristics: random share {} must be in 0..=1 and accesses per element {} at least 0",
                c.random_share, c.accesses_per_element
            )));
        }
        let minimal = smartarrays::codec::bits_needed(largest);
        let natural = natural_bits(minimal);
        let fixed_bits = match auto.compression {
            Compression::Auto => None,
            Compression::Uncompressed => Some(natural),
            Compression::Minimal => Some(minimal),
            Compression::Exactly(bits) => Some(smartarrays::codec::check_bits(bits)?),
        };
        let mut options = ArrayOptions::new();
        if let Some(runtime) = &auto.runtime {
            options = options.runtime(Arc::clone(runtime));
        }
        if let (PlacementRule::Fixed(placement), Some(bits)) = (&auto.placement, fixed_bits) {
            return Ok((options.placement(placement.clone()).bits(bits), None));
        }
        let profile = self.characteristics_profile(len, minimal, c)?;
        let mut choice = self.choose(&profile)?;
        if let PlacementRule::Fixed(placement) = &auto.placement {
            // Only the width is open: compare the two widths at the fixed placement.
            let uncompressed = self.estimate_configuration(&profile, placement, false)?;
            let compressed = self.estimate_configuration(&profile, placement, true)?;
            choice.chosen = if compressed.estimate.seconds < uncompressed.estimate.seconds {
                compressed
            } else {
                uncompressed
            };
            choice.notes.push(format!(
                "placement fixed to {placement} by the caller; only the width was chosen"
            ));
        }
        if let Some(bits) = fixed_bits {
            // Only the placement is open: take the diagram's candidate for that compression.
            let compressed = bits < natural;
            let candidate = if compressed {
                choice
                    .compressed
                    .clone()
                    .unwrap_or(choice.uncompressed.clone())
            } else {
                choice.uncompressed.clone()
            };
            choice.chosen = candidate;
            choice.notes.push(format!(
                "width fixed to {bits} bits by the caller; only the placement was chosen"
            ));
            choice.constraint = Some(format!("the width was fixed to {bits} bits by the caller"));
        }
        let bits = fixed_bits.unwrap_or(choice.chosen.widths[0]);
        let placement = self.local_placement(&choice.chosen.placement);
        Ok((options.placement(placement).bits(bits), Some(choice)))
    }

    /// Resolves `auto` for `values` and builds the array.
    pub fn build(
        &self,
        values: &[u64],
        auto: &AutoOptions,
    ) -> Result<(SmartArray, Option<Choice>)> {
        let largest = values.iter().copied().max().unwrap_or(0);
        let (options, choice) = self.resolve(values.len(), largest, auto)?;
        Ok((SmartArray::from_slice(values, &options)?, choice))
    }

    /// A one-array modelled profile from stated characteristics: each run reads every value once
    /// (the random share at random positions), for `accesses_per_element` runs.
    pub fn characteristics_profile(
        &self,
        len: usize,
        minimal_bits: u32,
        c: &Characteristics,
    ) -> Result<WorkloadProfile> {
        let spec = ArraySpec {
            read_only: c.read_only,
            ..ArraySpec::read_only("array", len.max(1) as u64, minimal_bits)
        };
        let reads = len.max(1) as f64;
        let array = ArrayProfile {
            spec,
            sequential_reads: reads * (1.0 - c.random_share),
            random_reads: reads * c.random_share,
            writes: 0.0,
            access_source: Source::UserGiven,
        };
        let mut profile = WorkloadProfile::modelled(
            "array",
            &self.machine,
            &self.costs,
            vec![array],
            0.0,
            c.accesses_per_element.max(1e-9),
        )?;
        profile.init_hidden = c.init_hidden;
        Ok(profile)
    }

    /// The chosen placement as this machine can apply it.
    fn local_placement(&self, chosen: &Placement) -> Placement {
        let here = smartarrays::Topology::current()
            .map(|t| t.node_ids())
            .unwrap_or_else(|_| vec![0]);
        match chosen {
            Placement::SingleNode(node) if !here.contains(node) => Placement::SingleNode(here[0]),
            Placement::Interleaved(nodes) if nodes.iter().any(|n| !here.contains(n)) => {
                Placement::Interleaved(Vec::new())
            }
            other => other.clone(),
        }
    }
}

impl Advise for Advisor {
    /// Resolves the core's "auto" options with [`Advisor::resolve`] (parts the caller fixed stay
    /// fixed) and explains the choice in plain words.
    fn advise(&self, request: &AutoRequest, runtime: &Runtime) -> smartarrays::Result<Advice> {
        let auto = AutoOptions {
            placement: if request.placement == Placement::Auto {
                PlacementRule::Auto
            } else {
                PlacementRule::Fixed(request.placement.clone())
            },
            compression: request.compression,
            characteristics: request.usage.clone(),
            runtime: None,
        };
        let unresolved = |e: AdaptError| smartarrays::Error::AutoUnresolved(e.to_string());
        let (options, choice) = self
            .resolve(request.len, request.largest, &auto)
            .map_err(unresolved)?;
        let bits = match options.compression {
            Compression::Exactly(bits) => bits,
            other => {
                return Err(smartarrays::Error::AutoUnresolved(format!(
                    "the advisor left the width as {other:?}"
                )))
            }
        };
        let explanation = match choice {
            Some(choice) => format!(
                "{choice}  note: the array is built by {} worker(s) here",
                runtime.threads()
            ),
            None => "nothing left to choose: placement and width were both given".to_string(),
        };
        Ok(Advice {
            placement: options.placement,
            bits,
            explanation,
        })
    }
}

/// Makes `advisor` the process-wide resolver of [`Placement::Auto`] and [`Compression::Auto`]
/// for every array built from now on (replacing any earlier one).
///
/// # Example
/// ```
/// use smartarrays::{ArrayOptions, Compression, Placement, SmartArray, Usage};
/// use smartarrays_adapt::{Advisor, CostProfile, MachineDescription};
/// // Decide as for the paper's 18-core machine (the array itself is built on this one).
/// smartarrays_adapt::install(Advisor::new(MachineDescription::paper_18core(), CostProfile::for_preset("paper-18core").unwrap()));
/// let values: Vec<u64> = (0..200_000).map(|i| i % 1000).collect();
/// let options = ArrayOptions::new()
///     .placement(Placement::Auto)
///     .compression(Compression::Auto)
///     .usage(Usage { accesses_per_element: 20.0, ..Usage::default() });
/// let array = SmartArray::from_slice(&values, &options).unwrap();
/// assert_ne!(*array.placement(), Placement::Auto); // a concrete placement was chosen
/// assert!(array.bits() == 10 || array.bits() == 32); // minimal or natural width
/// println!("{}", array.advice().unwrap().explanation);
/// assert_eq!(array.to_vec(), values);
/// smartarrays::array::uninstall_advisor();
/// ```
pub fn install(advisor: Advisor) {
    smartarrays::array::install_advisor(Arc::new(advisor));
}

/// Installs an advisor for this machine: its description and array costs come from the cache
/// (see [`crate::machine::cache_dir`]) or are measured now with the quick settings (a few
/// seconds, once per machine), and are cached for later runs. Returns whether the figures were
/// measured now.
pub fn install_for_this_machine() -> Result<bool> {
    let (machine, costs, machine_cached, costs_cached) = crate::mlc::this_machine(
        &crate::machine::cache_dir(),
        false,
        &crate::mlc::MlcSettings::quick(),
        &crate::costs::CostSettings::quick(),
    )?;
    install(Advisor::new(machine, costs));
    Ok(!(machine_cached && costs_cached))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CostProfile, MachineDescription};

    fn advisor(name: &str) -> Advisor {
        Advisor::new(
            MachineDescription::preset(name).unwrap(),
            CostProfile::for_preset(name).unwrap(),
        )
    }

    #[test]
    fn auto_resolves_to_plain_core_options_following_the_papers_machines() {
        let large = 500_000_000;
        // 8-core machine: read-only scans with many passes -> replicated; 33-bit data stays at 64 bits.
        let (options, choice) = advisor("paper-8core")
            .resolve(large, (1 << 33) - 1, &AutoOptions::default())
            .unwrap();
        assert_eq!(options.placement, Placement::Replicated);
        assert_eq!(options.compression, Compression::Exactly(64));
        assert!(choice.is_some());
        // 18-core machine: compression pays.
        let (options, _) = advisor("paper-18core")
            .resolve(large, (1 << 33) - 1, &AutoOptions::default())
            .unwrap();
        assert_eq!(options.compression, Compression::Exactly(33));
        // Written data is never replicated.
        let written = AutoOptions {
            characteristics: Characteristics {
                read_only: false,
                ..Characteristics::default()
            },
            ..AutoOptions::default()
        };
        let (options, _) = advisor("paper-8core")
            .resolve(large, (1 << 33) - 1, &written)
            .unwrap();
        assert_ne!(options.placement, Placement::Replicated);
    }

    #[test]
    fn fixed_parts_are_kept_and_only_the_rest_is_chosen() {
        let a = advisor("paper-18core");
        let fixed_width = AutoOptions {
            compression: Compression::Exactly(40),
            ..AutoOptions::default()
        };
        let (options, choice) = a.resolve(1000, 1000, &fixed_width).unwrap();
        assert_eq!(options.compression, Compression::Exactly(40));
        let choice = choice.unwrap();
        assert!(choice.notes.iter().any(|n| n.contains("width fixed")));
        assert_eq!(
            choice.constraint.as_deref(),
            Some("the width was fixed to 40 bits by the caller")
        );
        // The headline never calls a candidate better without saying why it was not taken.
        let summary = choice.summary();
        let other = choice.compressed.as_ref().unwrap_or(&choice.uncompressed);
        if other.speedup > choice.chosen.speedup {
            assert!(
                summary.contains("was not an option: the width was fixed"),
                "{summary}"
            );
        }
        let fixed_placement = AutoOptions {
            placement: PlacementRule::Fixed(Placement::OsDefault),
            ..AutoOptions::default()
        };
        let (options, choice) = a.resolve(1_000_000, 1000, &fixed_placement).unwrap();
        assert_eq!(options.placement, Placement::OsDefault);
        assert!(choice
            .unwrap()
            .notes
            .iter()
            .any(|n| n.contains("placement fixed")));
        let both = AutoOptions {
            placement: PlacementRule::Fixed(Placement::Replicated),
            compression: Compression::Uncompressed,
            ..AutoOptions::default()
        };
        let (options, choice) = a.resolve(10, 1000, &both).unwrap();
        assert_eq!(
            (options.placement, options.compression, choice.is_none()),
            (Placement::Replicated, Compression::Exactly(32), true)
        );
    }

    #[test]
    fn bad_characteristics_and_widths_are_refused() {
        let a = advisor("paper-8core");
        let bad = AutoOptions {
            characteristics: Characteristics {
                random_share: 1.5,
                ..Characteristics::default()
            },
            ..AutoOptions::default()
        };
        assert!(matches!(
            a.resolve(10, 10, &bad),
            Err(AdaptError::InvalidInput(_))
        ));
        let bad = AutoOptions {
            compression: Compression::Exactly(65),
            ..AutoOptions::default()
        };
        assert!(matches!(
            a.resolve(10, 10, &bad),
            Err(AdaptError::Core(smartarrays::Error::InvalidBitWidth(65)))
        ));
    }

    #[test]
    fn built_arrays_hold_the_values_at_every_edge_length() {
        let a = advisor("paper-18core");
        for len in [0usize, 1, 63, 64, 65, 1023, 1025] {
            let values: Vec<u64> = (0..len as u64).map(|i| i * 7919 % 100_003).collect();
            let (array, _) = a.build(&values, &AutoOptions::default()).unwrap();
            assert_eq!(array.to_vec(), values, "len {len}");
        }
        let wide = vec![u64::MAX, 0, 1];
        let (array, _) = a.build(&wide, &AutoOptions::default()).unwrap();
        assert_eq!((array.bits(), array.to_vec()), (64, wide));
    }

    #[test]
    fn the_core_hook_gives_the_same_choice_as_resolve() {
        use smartarrays::array::{Advise, AutoRequest};
        let runtime = Runtime::global().unwrap();
        for (name, largest, fixed) in [
            ("paper-8core", (1u64 << 33) - 1, None),
            ("paper-18core", (1 << 33) - 1, None),
            ("paper-18core", 999, Some(Placement::SingleNode(0))),
        ] {
            let advisor = advisor(name);
            let request = AutoRequest {
                len: 500_000_000,
                largest,
                placement: fixed.clone().unwrap_or(Placement::Auto),
                compression: Compression::Auto,
                usage: Characteristics::default(),
            };
            let advice = advisor.advise(&request, &runtime).unwrap();
            let rule = fixed.map_or(PlacementRule::Auto, PlacementRule::Fixed);
            let (options, choice) = advisor
                .resolve(
                    request.len,
                    largest,
                    &AutoOptions {
                        placement: rule,
                        ..AutoOptions::default()
                    },
                )
                .unwrap();
            assert_eq!(advice.placement, options.placement, "{name}");
            assert_eq!(
                Compression::Exactly(advice.bits),
                options.compression,
                "{name}"
            );
            assert!(
                advice.explanation.contains(&choice.unwrap().summary()),
                "{}",
                advice.explanation
            );
        }
        // Nothing left to choose: said so.
        let request = AutoRequest {
            len: 10,
            largest: 5,
            placement: Placement::OsDefault,
            compression: Compression::Exactly(8),
            usage: Characteristics::default(),
        };
        let advice = advisor("paper-8core").advise(&request, &runtime).unwrap();
        assert_eq!((advice.placement, advice.bits), (Placement::OsDefault, 8));
        assert!(advice.explanation.contains("nothing left to choose"));
    }
}
