//! Checks of the VM suite: errors and leaks.

use smartarrays::memory::current_free_memory;
use smartarrays::{Error, HugePages, Placement, SmartArray};

use crate::procfs;

use super::*;

type Attempt = Box<dyn Fn() -> Result<(), String>>;

/// A request that must fail with an error accepted by `check`.
fn refused(
    what: String,
    attempt: impl Fn() -> smartarrays::Result<SmartArray> + 'static,
    check: impl Fn(&Error) -> bool + 'static,
) -> Attempt {
    Box::new(move || match attempt() {
        Ok(array) => Err(format!(
            "{what}: built an array of {} bytes instead of failing",
            array.memory_bytes()
        )),
        Err(error) if check(&error) => Ok(()),
        Err(error) => Err(format!("{what}: wrong error: {error}")),
    })
}

pub(super) fn error_checks(suite: &mut Suite, expected: Expected) {
    let n = expected.nodes;
    let node_bytes = expected.mib_per_node * MIB;
    let words = |bytes: u64| (bytes / 8) as usize;
    let available: Vec<usize> = nodes(expected);

    suite.check(format!("errors/node {n} does not exist"), || {
        let error = SmartArray::zeroed(
            10,
            8,
            &options(Placement::SingleNode(n), HugePages::Never, None),
        )
        .err()
        .ok_or("no error")?;
        ensure!(
            error
                == Error::UnknownNode {
                    node: n,
                    available: available.clone()
                },
            "got {error:?}"
        );
        let text = error.to_string();
        ensure!(
            text.contains(&format!("NUMA node {n} does not exist")),
            "message {text:?}"
        );
        Ok(text)
    });
    suite.check(
        format!(
            "errors/node {} more than a node has (-m {})",
            n - 1,
            expected.mib_per_node
        ),
        || {
            let options = options(Placement::SingleNode(n - 1), HugePages::Never, None);
            let error = SmartArray::zeroed(words(node_bytes + 4096), 64, &options)
                .err()
                .ok_or("no error")?;
            match &error {
                Error::NotEnoughMemory {
                    node,
                    requested,
                    available,
                } => {
                    ensure!(
                        *node == n - 1
                            && *requested >= node_bytes + 4096
                            && *available < node_bytes,
                        "got {error:?}"
                    );
                }
                other => return Err(format!("got {other:?}")),
            }
            let text = error.to_string();
            ensure!(
                text.contains(&format!("not enough memory on NUMA node {}", n - 1)),
                "message {text:?}"
            );
            Ok(text)
        },
    );

    let mut attempts: Vec<(String, Attempt)> = Vec::new();
    let mut add = |name: String, attempt: Attempt| attempts.push((name, attempt));
    add(
        format!("single node {n}"),
        refused(
            format!("single node {n}"),
            move || {
                SmartArray::zeroed(
                    10,
                    8,
                    &options(Placement::SingleNode(n), HugePages::Never, None),
                )
            },
            move |e| matches!(e, Error::UnknownNode { node, .. } if *node == n),
        ),
    );
    add(
        format!("interleaved [0, {}]", n + 1),
        refused(
            "interleaved".into(),
            move || {
                SmartArray::zeroed(
                    10,
                    8,
                    &options(
                        Placement::Interleaved(vec![0, n + 1]),
                        HugePages::Never,
                        None,
                    ),
                )
            },
            move |e| matches!(e, Error::UnknownNode { node, .. } if *node == n + 1),
        ),
    );
    for node in nodes(expected) {
        add(
            format!("node {node} x {} MiB", expected.mib_per_node + 1),
            refused(
                format!("single node {node}"),
                move || {
                    SmartArray::zeroed(
                        words(node_bytes + MIB),
                        64,
                        &options(Placement::SingleNode(node), HugePages::Never, None),
                    )
                },
                move |e| matches!(e, Error::NotEnoughMemory { node: bad, .. } if *bad == node),
            ),
        );
    }
    add(
        format!("replicated x {} MiB", expected.mib_per_node),
        refused(
            "replicated".into(),
            move || {
                SmartArray::zeroed(
                    words(node_bytes),
                    64,
                    &options(Placement::Replicated, HugePages::Never, None),
                )
            },
            |e| matches!(e, Error::NotEnoughMemory { .. }),
        ),
    );
    add(
        format!(
            "interleaved x {} MiB",
            n as u64 * (expected.mib_per_node + 1)
        ),
        refused(
            "interleaved".into(),
            move || {
                SmartArray::zeroed(
                    words(n as u64 * (node_bytes + MIB)),
                    64,
                    &options(Placement::Interleaved(Vec::new()), HugePages::Never, None),
                )
            },
            |e| matches!(e, Error::NotEnoughMemory { .. }),
        ),
    );
    // Fits every node but 0: the error must name node 0. Node 0 holds the kernel, and a bound
    // filler array takes more of it, so its free memory is well below the others'.
    let filler = SmartArray::zeroed(
        words(FILLER_MIB * MIB),
        64,
        &options(Placement::SingleNode(0), HugePages::Never, None),
    );
    let free: Vec<u64> = nodes(expected)
        .into_iter()
        .map(|node| current_free_memory(node).unwrap_or(0))
        .collect();
    let others_min = free.iter().skip(1).copied().min().unwrap_or(0);
    let node0_only = (free[0] + others_min) / 2;
    if n >= 2 && filler.is_ok() && others_min > free[0] + 16 * MIB {
        add(
            format!(
                "replicated x {} MiB (only node 0 too small)",
                node0_only / MIB
            ),
            refused(
                "replicated, node 0 too small".into(),
                move || {
                    SmartArray::zeroed(
                        words(node0_only),
                        64,
                        &options(Placement::Replicated, HugePages::Never, None),
                    )
                },
                |e| matches!(e, Error::NotEnoughMemory { node: 0, .. }),
            ),
        );
    } else {
        suite.skip(
            "errors/replicated where only node 0 is too small",
            format!("free memory per node {free:?} is too even"),
        );
    }
    // Fails after allocating and binding every replica (the last value is too wide): all must be freed.
    let misfit_len = len_for_pages(64, 3);
    add(
        "replicated, value too wide after allocation".into(),
        refused(
            "replicated, value too wide".into(),
            move || {
                SmartArray::from_fn(
                    misfit_len,
                    &options(Placement::Replicated, HugePages::Never, None).bits(3),
                    |i| {
                        if i == misfit_len - 1 {
                            8
                        } else {
                            i as u64 % 8
                        }
                    },
                )
            },
            move |e| matches!(e, Error::ValueTooWide { index, value: 8, bits: 3, .. } if *index == misfit_len - 1),
        ),
    );

    suite.check(
        format!(
            "errors/{} refused requests give the right typed error",
            attempts.len()
        ),
        || {
            for (name, attempt) in &attempts {
                attempt().map_err(|why| format!("{name}: {why}"))?;
            }
            Ok(attempts
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>()
                .join("; "))
        },
    );
    suite.check("errors/refused requests leak nothing (20 rounds)", || {
        let before = procfs::process_size().map_err(ctx("/proc/self/status"))?;
        let bound_before = procfs::numa_maps().map_err(ctx("numa_maps"))?.iter().filter(|e| e.policy != "default").count();
        for _ in 0..20 {
            for (name, attempt) in &attempts {
                attempt().map_err(|why| format!("{name}: {why}"))?;
            }
        }
        let after = procfs::process_size().map_err(ctx("/proc/self/status"))?;
        let bound_after = procfs::numa_maps().map_err(ctx("numa_maps"))?.iter().filter(|e| e.policy != "default").count();
        ensure!(after.mappings == before.mappings, "mappings {} -> {}", before.mappings, after.mappings);
        ensure!(after.vm_size_kib == before.vm_size_kib, "VmSize {} -> {} KiB", before.vm_size_kib, after.vm_size_kib);
        ensure!(after.vm_rss_kib <= before.vm_rss_kib + 1024, "VmRSS {} -> {} KiB", before.vm_rss_kib, after.vm_rss_kib);
        ensure!(bound_after == bound_before, "mappings with a NUMA policy {bound_before} -> {bound_after}");
        Ok(format!(
            "mappings {} -> {}, VmSize {} -> {} KiB, VmRSS {} -> {} KiB, policy mappings {bound_before} -> {bound_after}",
            before.mappings, after.mappings, before.vm_size_kib, after.vm_size_kib, before.vm_rss_kib, after.vm_rss_kib
        ))
    });
    drop(filler);
}
