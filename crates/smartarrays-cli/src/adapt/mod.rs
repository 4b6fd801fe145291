//! `smartarrays advise` and `smartarrays bench adapt`: the adaptivity of the paper's §6 from the
//! command line (the advisor lives in the `smartarrays-adapt` crate, the evaluation and the
//! profiles of the paper's jobs in the `smartarrays-lab` crate).
//!
//! `advise` describes the machine (measured here and cached, a preset, or a file), profiles or
//! models a workload, and prints the choice with its reasoning and numbers. `bench adapt` runs
//! every configuration of the aggregation and degree-centrality workloads across widths on this
//! machine, reports how well Auto picked, and checks the paper's findings on its two machines.
//!
//! [`advise`] and [`bench`](mod@bench) hold one subcommand each; this file the machine and cost inputs and
//! the runtime they share.

mod advise;
mod bench;

use std::path::Path;
use std::sync::Arc;

use smartarrays::{Runtime, RuntimeOptions};
use smartarrays_adapt::costs::CostSettings;
use smartarrays_adapt::machine::cache_dir;
use smartarrays_adapt::mlc::{this_machine, MlcSettings};
use smartarrays_adapt::{CostProfile, MachineDescription};

use crate::CliResult;

pub use advise::{run_advise, AdviseArgs};
pub use bench::{run_bench, BenchAdaptArgs};

/// Loads the machine and cost profile named by `machine` (and `costs`).
fn inputs(
    machine: &str,
    costs: Option<&Path>,
    remeasure: bool,
    quick: bool,
) -> CliResult<(MachineDescription, CostProfile, bool)> {
    let (machine, default_costs, here) = if machine == "this" {
        let (mlc, cost_settings) = if quick {
            (MlcSettings::quick(), CostSettings::quick())
        } else {
            (MlcSettings::default(), CostSettings::default())
        };
        let (machine, costs, machine_cached, costs_cached) =
            this_machine(&cache_dir(), remeasure, &mlc, &cost_settings)?;
        eprintln!(
            "machine and array costs: {} and {} (cache {})",
            if machine_cached {
                "from the cache"
            } else {
                "measured now"
            },
            if costs_cached {
                "from the cache"
            } else {
                "measured now"
            },
            cache_dir().display()
        );
        (machine, costs, true)
    } else if let Some(preset) = MachineDescription::preset(machine) {
        let costs = CostProfile::for_preset(machine).ok_or("no cost profile for the preset")?;
        (preset, costs, false)
    } else {
        let described = MachineDescription::load(Path::new(machine))?;
        let costs = CostProfile::haswell_model(described.clock_ghz.unwrap_or(2.5));
        (described, costs, false)
    };
    let costs = match costs {
        Some(path) => CostProfile::load(path)?,
        None => default_costs,
    };
    Ok((machine, costs, here))
}

fn runtime(threads: Option<usize>) -> CliResult<Arc<Runtime>> {
    Ok(Arc::new(Runtime::new(RuntimeOptions {
        threads,
        ..RuntimeOptions::default()
    })?))
}
