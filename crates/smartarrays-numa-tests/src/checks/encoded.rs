//! Checks of the VM suite: encodings and collections. A frame-of-reference column, a dictionary
//! column (smartarrays-encodings) and a compact hash `Map` (smartarrays-collections) are built
//! under every placement (node:N, interleaved, replicated); their pages must land where the
//! placement says (the library's reports against this crate's `move_pages` and `numa_maps`), and
//! a reader pinned to each node of a replicated one must touch only its node's replica.

use smartarrays::{HugePages, Placement, SmartArray};
use smartarrays_collections::Map;
use smartarrays_encodings::{
    Column, ColumnOptions, Encoding, EncodingKind, Predicate, Scalar, Sum,
};

use crate::expect;
use crate::os;
use crate::procfs;

use super::*;

/// Rows of the test columns: 10 pages of 13-bit frame offsets, 8 of 10-bit dictionary codes.
const ROWS: usize = 23_000;
/// Keys of the test map: about 260 pages of buckets.
const MAP_KEYS: u64 = 60_000;
const FRAME_BASE: i64 = 1_000_000_000_000;

fn frame_value(i: usize) -> i64 {
    FRAME_BASE + ((i as i64 * 7919) % 8000)
}

fn dictionary_value(i: usize) -> u64 {
    (i as u64 * 2_654_435_761 % 1000) * 1_000_003 + 17
}

fn map_value(key: u64) -> u64 {
    key.wrapping_mul(0x9e37_79b9) >> 7
}

/// The test columns: name and forced encoding.
fn columns() -> Vec<(&'static str, EncodingKind)> {
    vec![
        ("frame", EncodingKind::Frame),
        ("dictionary", EncodingKind::Dictionary),
    ]
}

fn build_column(name: &str, kind: EncodingKind, placement: Placement) -> Result<Column, String> {
    let options = ColumnOptions::new()
        .array(options(placement, HugePages::Never, None))
        .encoding(kind);
    let column = if name == "frame" {
        let values: Vec<i64> = (0..ROWS).map(frame_value).collect();
        Column::from_i64(&values, &options).map_err(ctx("Column::from_i64"))?
    } else {
        let values: Vec<u64> = (0..ROWS).map(dictionary_value).collect();
        Column::from_u64(&values, &options).map_err(ctx("Column::from_u64"))?
    };
    ensure!(
        column.encoding_kind() == kind && column.len() == ROWS,
        "built {} of {} rows",
        column.encoding_kind(),
        column.len()
    );
    Ok(column)
}

fn expected_row(name: &str, i: usize) -> Scalar {
    if name == "frame" {
        Scalar::Int64(frame_value(i))
    } else {
        Scalar::UInt64(dictionary_value(i))
    }
}

fn expected_sum(name: &str) -> Sum {
    if name == "frame" {
        Sum::Int((0..ROWS).map(|i| i128::from(frame_value(i))).sum())
    } else {
        Sum::UInt((0..ROWS).map(|i| u128::from(dictionary_value(i))).sum())
    }
}

/// The smart arrays under a column, by role.
fn column_arrays(column: &Column) -> Result<Vec<(&'static str, &SmartArray)>, String> {
    match column.encoding() {
        Encoding::Keys(encoding) => Ok(encoding.as_dyn().arrays()),
        other => Err(format!(
            "expected an integer encoding, found {}",
            other.kind()
        )),
    }
}

/// Checks the pages and policy of replica `replica` of `array` against `placement`.
pub(super) fn placed_as(
    array: &SmartArray,
    replica: usize,
    placement: &Placement,
    expected: Expected,
) -> Outcome {
    let pages = pages_three_ways(array, replica)?;
    let data = data_pages(array);
    let all = nodes(expected);
    let (pages, policy) = match placement {
        Placement::SingleNode(node) => (
            expect::all_on(&pages, *node, data)?,
            policy_is(array, replica, "bind", &[*node])?,
        ),
        Placement::Interleaved(_) => (
            expect::round_robin(&pages, &all, data)?,
            policy_is(array, replica, "interleave", &all)?,
        ),
        Placement::Replicated => (
            expect::all_on(&pages, replica, data)?,
            policy_is(array, replica, "bind", &[replica])?,
        ),
        other => return Err(format!("no expectation for {other:?}")),
    };
    Ok(format!("{pages}; {policy}"))
}

/// The column's own report must agree with its arrays' reports, role by role.
fn column_report_agrees(column: &Column) -> Result<(), String> {
    let arrays = column_arrays(column)?;
    let report = column
        .placement_report()
        .map_err(ctx("Column::placement_report"))?;
    ensure!(
        report.len() == arrays.len(),
        "the column reports {} arrays, has {}",
        report.len(),
        arrays.len()
    );
    for ((role, array), (reported_role, reported)) in arrays.iter().zip(&report) {
        let direct = array.placement_report().map_err(ctx("placement_report"))?;
        ensure!(
            role == reported_role && direct.replicas == reported.replicas,
            "the column's report of {reported_role} differs from its array {role}'s"
        );
    }
    Ok(())
}

fn placements(expected: Expected) -> Vec<Placement> {
    let mut placements: Vec<Placement> = nodes(expected)
        .into_iter()
        .map(Placement::SingleNode)
        .collect();
    placements.push(Placement::Interleaved(Vec::new()));
    placements.push(Placement::Replicated);
    placements
}

fn column_checks(suite: &mut Suite, expected: Expected) {
    for (name, kind) in columns() {
        for placement in placements(expected) {
            suite.check(
                format!("encoded/{name} column {placement} pages as placed"),
                || {
                    let column = build_column(name, kind, placement.clone())?;
                    let replicas = if placement == Placement::Replicated {
                        expected.nodes
                    } else {
                        1
                    };
                    let mut details = Vec::new();
                    for (role, array) in column_arrays(&column)? {
                        ensure!(
                            array.replica_count() == replicas,
                            "{role}: {} replicas, expected {replicas}",
                            array.replica_count()
                        );
                        for replica in 0..replicas {
                            let detail = placed_as(array, replica, &placement, expected)
                                .map_err(|why| format!("{role} replica {replica}: {why}"))?;
                            details.push(format!("{role}[{replica}] {detail}"));
                        }
                    }
                    column_report_agrees(&column)?;
                    for i in (0..ROWS).step_by(997) {
                        let got = column.get(i).map_err(ctx("Column::get"))?;
                        ensure!(got == expected_row(name, i), "row {i} is {got:?}");
                    }
                    Ok(details.join("; "))
                },
            );
        }
        suite.check(
            format!("encoded/{name} column replicated: readers on each node read their replica"),
            || {
                let column = build_column(name, kind, Placement::Replicated)?;
                let arrays = column_arrays(&column)?;
                // The array that holds a value per row (frame offsets, dictionary codes).
                let (main, _) = arrays
                    .iter()
                    .enumerate()
                    .max_by_key(|(_, (_, array))| array.len())
                    .map(|(index, (role, _))| (index, *role))
                    .ok_or("the column has no arrays")?;
                let mut details = Vec::new();
                for node in nodes(expected) {
                    let cpu = cpus_of(expected, node)[0];
                    let (sum, selected, rows, referenced) = on_cpu(cpu, || {
                        // The sum is a parallel reduction by the column's runtime, whose workers
                        // on every node read their own replicas: taken before the window.
                        let sum = column.sum().map_err(ctx("Column::sum"))?;
                        procfs::clear_referenced_bits().map_err(ctx("clear_refs"))?;
                        let selected = column
                            .filter(&Predicate::Eq(expected_row(name, 5)))
                            .map_err(ctx("Column::filter"))?
                            .count();
                        let rows = column.unpack(0..ROWS).map_err(ctx("Column::unpack"))?;
                        let referenced = arrays
                            .iter()
                            .map(|(_, array)| referenced_per_replica(array))
                            .collect::<Result<Vec<_>, _>>()?;
                        Ok((sum, selected, rows, referenced))
                    })?;
                    ensure!(sum == expected_sum(name), "sum on node {node}: {sum:?}");
                    let want = (0..ROWS)
                        .filter(|&i| expected_row(name, i) == expected_row(name, 5))
                        .count();
                    ensure!(
                        selected == want,
                        "filter on node {node}: {selected} rows, expected {want}"
                    );
                    ensure!(
                        (0..ROWS).all(|i| rows.scalar(i) == Some(expected_row(name, i))),
                        "unpack on node {node} differs"
                    );
                    for (index, ((role, array), kib)) in arrays.iter().zip(&referenced).enumerate()
                    {
                        let min_kib = if index == main { data_kib(array) } else { 0 };
                        let detail = only_replica_referenced(kib, node, min_kib)
                            .map_err(|why| format!("{role} read from node {node}: {why}"))?;
                        details.push(format!("node {node} {role}: {detail}"));
                    }
                }
                Ok(details.join("; "))
            },
        );
        runtime_checks_for(suite, expected, name, kind);
    }
}

/// The column built with a runtime of one worker on `node` and read from a thread on `node`:
/// its parallel reductions (sum, min/max) run on that worker and its sequential ones on the
/// caller, so both must read only replica `node`.
fn runtime_checks_for(
    suite: &mut Suite,
    expected: Expected,
    name: &'static str,
    kind: EncodingKind,
) {
    for node in nodes(expected) {
        suite.check(
            format!("encoded/{name} column on a node-{node} runtime: sum and min/max read replica {node}"),
            || {
                let runtime = runtime_on_node(expected, node)?;
                let options = ColumnOptions::new()
                    .array(options(Placement::Replicated, HugePages::Never, Some(runtime)))
                    .encoding(kind);
                let column = if name == "frame" {
                    let values: Vec<i64> = (0..ROWS).map(frame_value).collect();
                    Column::from_i64(&values, &options).map_err(ctx("Column::from_i64"))?
                } else {
                    let values: Vec<u64> = (0..ROWS).map(dictionary_value).collect();
                    Column::from_u64(&values, &options).map_err(ctx("Column::from_u64"))?
                };
                let arrays = column_arrays(&column)?;
                for (role, array) in &arrays {
                    for replica in nodes(expected) {
                        placed_as(array, replica, &Placement::Replicated, expected).map_err(|why| {
                            format!("{role} replica {replica} built from node {node}: {why}")
                        })?;
                    }
                }
                // Called from the node too: a reduction an encoding does sequentially (the
                // dictionary's code counts) reads the caller's replica.
                let (sum, min_max, referenced) = on_cpu(cpus_of(expected, node)[0], || {
                    procfs::clear_referenced_bits().map_err(ctx("clear_refs"))?;
                    let sum = column.sum().map_err(ctx("Column::sum"))?;
                    let min_max = column.min_max().map_err(ctx("Column::min_max"))?;
                    let referenced = arrays
                        .iter()
                        .map(|(_, array)| referenced_per_replica(array))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok((sum, min_max, referenced))
                })?;
                ensure!(sum == expected_sum(name), "sum {sum:?}");
                let want_min = (0..ROWS).map(|i| expected_row(name, i)).min_by(order);
                let want_max = (0..ROWS).map(|i| expected_row(name, i)).max_by(order);
                ensure!(
                    min_max == want_min.zip(want_max),
                    "min/max {min_max:?}"
                );
                let mut details = Vec::new();
                for ((role, _), kib) in arrays.iter().zip(&referenced) {
                    let detail = only_replica_referenced(kib, node, 0)
                        .map_err(|why| format!("{role}: {why}"))?;
                    details.push(format!("{role}: {detail}"));
                }
                Ok(details.join("; "))
            },
        );
    }
}

fn order(a: &Scalar, b: &Scalar) -> std::cmp::Ordering {
    match (a, b) {
        (Scalar::Int64(a), Scalar::Int64(b)) => a.cmp(b),
        (Scalar::UInt64(a), Scalar::UInt64(b)) => a.cmp(b),
        _ => std::cmp::Ordering::Equal,
    }
}

fn build_map(placement: Placement) -> Result<Map<u64, u64>, String> {
    let mut map: Map<u64, u64> =
        Map::with_options(&options(placement, HugePages::Never, None)).map_err(ctx("Map"))?;
    let keys: Vec<u64> = (0..MAP_KEYS).map(|k| k * 3).collect();
    let values: Vec<u64> = keys.iter().map(|&k| map_value(k)).collect();
    map.insert_many(&keys, &values)
        .map_err(ctx("Map::insert_many"))?;
    ensure!(
        map.len() == MAP_KEYS as usize,
        "map holds {} keys",
        map.len()
    );
    Ok(map)
}

/// The map's pages of replica `replica` (every partition), checked three ways: this crate's
/// `move_pages`, the map's `placement_report` counts, and the policy in `numa_maps`.
fn map_placed_as(
    map: &Map<u64, u64>,
    replica: usize,
    placement: &Placement,
    expected: Expected,
) -> Outcome {
    let reports = map
        .placement_report()
        .map_err(ctx("Map::placement_report"))?;
    let words = map.replica_words(replica);
    ensure!(
        reports.len() == words.len() && reports.len() == map.partitions(),
        "{} reports, {} word slices, {} partitions",
        reports.len(),
        words.len(),
        map.partitions()
    );
    let all = nodes(expected);
    let mut details = Vec::new();
    for (part, (report, words)) in reports.iter().zip(&words).enumerate() {
        ensure!(!report.simulated, "partition {part}: only simulated");
        let region = report
            .replicas
            .get(replica)
            .ok_or_else(|| format!("partition {part} has no replica {replica}"))?;
        let pages = os::page_nodes_of_words(words).map_err(ctx("move_pages"))?;
        let mut counted = std::collections::BTreeMap::new();
        for node in pages.iter().filter_map(|p| p.ok()) {
            *counted.entry(node).or_insert(0usize) += 1;
        }
        ensure!(
            region.pages == pages.len() && region.pages_by_node == counted,
            "partition {part}: the report says {} pages {:?}, move_pages {} pages {counted:?}",
            region.pages,
            region.pages_by_node,
            pages.len()
        );
        let (detail, mode, policy_nodes) = match placement {
            Placement::SingleNode(node) => (
                expect::all_on(&pages, *node, pages.len())?,
                "bind",
                vec![*node],
            ),
            Placement::Interleaved(_) => (
                expect::round_robin(&pages, &all, pages.len())?,
                "interleave",
                all.clone(),
            ),
            Placement::Replicated => (
                expect::all_on(&pages, replica, pages.len())?,
                "bind",
                vec![replica],
            ),
            other => return Err(format!("no expectation for {other:?}")),
        };
        ensure!(
            region.policy == mode && region.policy_nodes == policy_nodes,
            "partition {part}: policy {} {:?}, expected {mode} {policy_nodes:?}",
            region.policy,
            region.policy_nodes
        );
        let text = format!("{mode}:{}", format_cpu_list(&policy_nodes));
        let seen = procfs::policy_at(words.as_ptr() as usize).map_err(ctx("numa_maps"))?;
        ensure!(
            seen.as_deref() == Some(text.as_str()),
            "numa_maps says {seen:?}, expected {text:?}"
        );
        details.push(format!("partition {part}: {detail}; policy {text}"));
    }
    Ok(details.join("; "))
}

/// KiB of referenced pages in the mappings of each replica of the map.
fn map_referenced(map: &Map<u64, u64>) -> Result<Vec<u64>, String> {
    let maps = procfs::smaps().map_err(ctx("smaps"))?;
    let replicas = map.replica_nodes().len().max(1);
    let ranges: Vec<Vec<(usize, usize)>> = (0..replicas)
        .map(|r| {
            map.replica_words(r)
                .iter()
                .filter(|w| !w.is_empty())
                .map(|w| (w.as_ptr() as usize, w.as_ptr() as usize + w.len() * 8))
                .collect()
        })
        .collect();
    let mut referenced = Vec::with_capacity(replicas);
    for (r, own) in ranges.iter().enumerate() {
        let mut kib = 0;
        for mapping in maps
            .iter()
            .filter(|m| own.iter().any(|&(s, e)| m.overlaps(s, e)))
        {
            let shared = ranges
                .iter()
                .enumerate()
                .any(|(o, other)| o != r && other.iter().any(|&(s, e)| mapping.overlaps(s, e)));
            ensure!(!shared, "replica {r} shares a mapping with another replica");
            kib += mapping.field("Referenced");
        }
        referenced.push(kib);
    }
    Ok(referenced)
}

fn map_checks(suite: &mut Suite, expected: Expected) {
    for placement in placements(expected) {
        suite.check(format!("encoded/map {placement} pages as placed"), || {
            let map = build_map(placement.clone())?;
            let replicas = if placement == Placement::Replicated {
                expected.nodes
            } else {
                1
            };
            let reports = map
                .placement_report()
                .map_err(ctx("Map::placement_report"))?;
            ensure!(
                reports.iter().all(|r| r.replicas.len() == replicas),
                "replicas per partition {:?}, expected {replicas}",
                reports.iter().map(|r| r.replicas.len()).collect::<Vec<_>>()
            );
            let mut details = Vec::new();
            for replica in 0..replicas {
                details.push(format!(
                    "replica {replica}: {}",
                    map_placed_as(&map, replica, &placement, expected)?
                ));
            }
            for key in (0..MAP_KEYS * 3).step_by(991) {
                let want = (key % 3 == 0).then(|| map_value(key));
                ensure!(map.get(key) == want, "get({key}) = {:?}", map.get(key));
            }
            Ok(details.join("; "))
        });
    }
    suite.check(
        "encoded/map replicated: readers on each node read their replica",
        || {
            let map = build_map(Placement::Replicated)?;
            let want: Vec<Option<usize>> = nodes(expected).into_iter().map(Some).collect();
            ensure!(
                map.replica_nodes() == want,
                "replica_nodes {:?}",
                map.replica_nodes()
            );
            let keys: Vec<u64> = (0..MAP_KEYS * 3).collect();
            let hits_wanted = MAP_KEYS as usize;
            let bucket_kib = (map.memory_report().bucket_bytes / 1024) as u64;
            let mut details = Vec::new();
            for node in nodes(expected) {
                let cpu = cpus_of(expected, node)[0];
                let (index, hits, sum, referenced) = on_cpu(cpu, || {
                    procfs::clear_referenced_bits().map_err(ctx("clear_refs"))?;
                    let mut out = vec![None; keys.len()];
                    let hits = map
                        .get_many(&keys, &mut out)
                        .map_err(ctx("Map::get_many"))?;
                    let sum = (0..MAP_KEYS * 3)
                        .step_by(7)
                        .filter_map(|k| map.get(k))
                        .fold(0u64, u64::wrapping_add);
                    Ok((map.local_replica_index(), hits, sum, map_referenced(&map)?))
                })?;
                let want_sum = (0..MAP_KEYS * 3)
                    .step_by(7)
                    .filter(|k| k % 3 == 0)
                    .map(map_value)
                    .fold(0u64, u64::wrapping_add);
                ensure!(
                    index == node,
                    "a reader on node {node} picks replica {index}"
                );
                ensure!(
                    hits == hits_wanted && sum == want_sum,
                    "on node {node}: {hits} hits (expected {hits_wanted}), sum {sum} (expected {want_sum})"
                );
                // Nearly every bucket holds a key that was looked up.
                let detail = only_replica_referenced(&referenced, node, bucket_kib / 2)
                    .map_err(|why| format!("reads from node {node}: {why}"))?;
                details.push(format!("node {node}: {detail}"));
            }
            Ok(details.join("; "))
        },
    );
}

pub(super) fn encoded_checks(suite: &mut Suite, expected: Expected) {
    column_checks(suite, expected);
    map_checks(suite, expected);
}
