//! `smartarrays-numa-tests`: runs the placement checks of [`smartarrays_numa_tests::checks`] and
//! exits 1 if any fails. Needs the VM's shape on the command line; without it, it explains
//! itself and exits 0, so running it by accident on a one-node machine does no harm.

use std::process::ExitCode;

use smartarrays_numa_tests::checks::{run_all, Expected};
use smartarrays_numa_tests::{os, procfs};

const USAGE: &str = "usage: smartarrays-numa-tests --nodes N --cpus-per-node C --mib-per-node M
Checks NUMA placement page by page; meant to run inside the VM of tools/numa_vm.py run
started with -n N -c C -m M (make test-numa-vm does this for 2 and 4 nodes).";

fn parse(args: &[String]) -> Result<Option<Expected>, String> {
    if args.is_empty() {
        return Ok(None);
    }
    let (mut nodes, mut cpus, mut mib) = (None, None, None);
    let mut words = args.iter();
    while let Some(flag) = words.next() {
        let number = |text: Option<&String>| -> Result<u64, String> {
            let text = text.ok_or_else(|| format!("{flag} needs a value"))?;
            text.parse::<u64>()
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| format!("{flag} {text:?} is not a positive number"))
        };
        match flag.as_str() {
            "--nodes" => nodes = Some(number(words.next())? as usize),
            "--cpus-per-node" => cpus = Some(number(words.next())? as usize),
            "--mib-per-node" => mib = Some(number(words.next())?),
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    match (nodes, cpus, mib) {
        (Some(nodes), Some(cpus_per_node), Some(mib_per_node)) => Ok(Some(Expected {
            nodes,
            cpus_per_node,
            mib_per_node,
        })),
        _ => Err("--nodes, --cpus-per-node and --mib-per-node are all required".into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let expected = match parse(&args) {
        Ok(Some(expected)) => expected,
        Ok(None) => {
            println!(
                "{USAGE}\nskipped: no VM shape given, nothing checked (run `make test-numa-vm`)."
            );
            return ExitCode::SUCCESS;
        }
        Err(why) => {
            eprintln!("smartarrays-numa-tests: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    println!(
        "numa-vm checks: expecting {} nodes x {} CPUs x {} MiB; kernel {}; page {} B; THP {}",
        expected.nodes,
        expected.cpus_per_node,
        expected.mib_per_node,
        kernel.trim(),
        os::page_size(),
        procfs::transparent_huge_page_mode().unwrap_or_else(|| "absent".into())
    );
    let suite = run_all(expected);
    println!(
        "numa-vm checks ({} nodes): {} passed, {} failed, {} skipped",
        expected.nodes,
        suite.passed,
        suite.failed.len(),
        suite.skipped
    );
    if suite.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        for name in &suite.failed {
            println!("  failed: {name}");
        }
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_vm_shape_is_required_in_full() {
        assert_eq!(parse(&[]).unwrap(), None);
        assert_eq!(
            parse(&args("--nodes 4 --cpus-per-node 1 --mib-per-node 256")).unwrap(),
            Some(Expected {
                nodes: 4,
                cpus_per_node: 1,
                mib_per_node: 256
            })
        );
        assert!(parse(&args("--nodes 4")).is_err());
        assert!(parse(&args("--nodes 0 --cpus-per-node 1 --mib-per-node 256")).is_err());
        assert!(parse(&args("--nodes x --cpus-per-node 1 --mib-per-node 256")).is_err());
        assert!(parse(&args("--frobnicate")).is_err());
    }
}
