//! Page-pattern checks: given the node of every page (as `move_pages` reports it), decide whether
//! the pattern is the one a placement promises (all on one node; round-robin over nodes, per base
//! page or per huge page) and say why not in one line. Pure functions, tested on fixed data.

use std::collections::BTreeMap;

/// One page's status: `Ok(node)` when resident, `Err(errno)` when not.
pub type PageStatus = Result<usize, i32>;

/// What a check says: a one-line detail when it holds, a one-line reason when it does not.
pub type Outcome = Result<String, String>;

/// Pages per node, plus `absent` for pages that are not resident, as `node0=12 node1=12 absent=1`.
pub fn histogram(pages: &[PageStatus]) -> String {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for page in pages {
        let key = match page {
            Ok(node) => format!("node{node}"),
            Err(_) => "absent".to_string(),
        };
        *counts.entry(key).or_insert(0) += 1;
    }
    if counts.is_empty() {
        return "no pages".to_string();
    }
    counts
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn first_mismatches(pages: &[PageStatus], wrong: impl Fn(usize, &PageStatus) -> bool) -> String {
    let bad: Vec<String> = pages
        .iter()
        .enumerate()
        .filter(|(i, p)| wrong(*i, p))
        .map(|(i, p)| format!("page {i}: {p:?}"))
        .collect();
    let shown = bad.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
    if bad.len() > 4 {
        format!("{shown}, ... ({} pages wrong)", bad.len())
    } else {
        shown
    }
}

/// Splits `pages` into the first `data_pages` (which hold values) and the rest (padding after the
/// last value, which is never written, so it may be absent or mapped to the shared zero page, but
/// must not be on a wrong node: `padding_ok` decides, given its position and status).
fn split_padding(
    pages: &[PageStatus],
    data_pages: usize,
    padding_ok: impl Fn(usize, &PageStatus) -> bool,
) -> Result<(&[PageStatus], String), String> {
    if data_pages == 0 || data_pages > pages.len() {
        return Err(format!("{} pages but {data_pages} data pages", pages.len()));
    }
    let (data, padding) = pages.split_at(data_pages);
    if let Some(bad) = padding
        .iter()
        .enumerate()
        .position(|(k, p)| p.is_ok() && !padding_ok(data_pages + k, p))
    {
        return Err(format!(
            "padding page {} is on the wrong node: {:?}",
            data_pages + bad,
            padding[bad]
        ));
    }
    let note = if padding.is_empty() {
        String::new()
    } else {
        format!(
            " (+{} padding page(s): {})",
            padding.len(),
            histogram(padding)
        )
    };
    Ok((data, note))
}

/// Every page holding data (the first `data_pages`) is resident and on `node`; later padding pages
/// are on `node` or not present.
///
/// # Example
/// ```
/// use smartarrays_numa_tests::expect::all_on;
/// assert!(all_on(&[Ok(2), Ok(2), Err(libc::ENOENT)], 2, 2).is_ok()); // the last page is padding
/// assert!(all_on(&[Ok(2), Ok(0)], 2, 2).is_err());
/// ```
pub fn all_on(pages: &[PageStatus], node: usize, data_pages: usize) -> Outcome {
    let (data, note) = split_padding(pages, data_pages, |_, p| *p == Ok(node))?;
    if data.iter().all(|p| *p == Ok(node)) {
        return Ok(format!(
            "{}/{} data pages on node {node}{note}",
            data.len(),
            data.len()
        ));
    }
    Err(format!(
        "expected every page on node {node}, found {} [{}]",
        histogram(data),
        first_mismatches(data, |_, p| *p != Ok(node))
    ))
}

/// The data pages (the first `data_pages`) go round-robin over `cycle` (ascending node ids, the
/// order the kernel interleaves in), starting anywhere: every page is on a node of the cycle and
/// each page is on the node after its predecessor's, and no node holds more than one page more
/// than another. Padding pages after the data are not present or continue the cycle.
///
/// # Example
/// ```
/// use smartarrays_numa_tests::expect::round_robin;
/// assert!(round_robin(&[Ok(3), Ok(1), Ok(3), Ok(1)], &[1, 3], 4).is_ok());
/// assert!(round_robin(&[Ok(1), Ok(1), Ok(3), Ok(3)], &[1, 3], 4).is_err());
/// ```
pub fn round_robin(pages: &[PageStatus], cycle: &[usize], data_pages: usize) -> Outcome {
    if data_pages == 0 || cycle.is_empty() {
        return Err("no pages or no nodes to check".into());
    }
    let start = pages
        .first()
        .and_then(|p| p.ok())
        .and_then(|n| cycle.iter().position(|&c| c == n))
        .unwrap_or(0);
    let (data, note) = split_padding(pages, data_pages, |i, p| {
        *p == Ok(cycle[(start + i) % cycle.len()])
    })?;
    round_robin_all(data, cycle).map(|detail| format!("{detail}{note}"))
}

fn round_robin_all(pages: &[PageStatus], cycle: &[usize]) -> Outcome {
    if pages.is_empty() || cycle.is_empty() {
        return Err("no pages or no nodes to check".into());
    }
    let position = |p: &PageStatus| p.ok().and_then(|n| cycle.iter().position(|&c| c == n));
    if let Some(bad) = pages.iter().position(|p| position(p).is_none()) {
        return Err(format!(
            "page {bad} is {:?}, not on one of nodes {cycle:?}; pages: {} [{}]",
            pages[bad],
            histogram(pages),
            first_mismatches(pages, |_, p| position(p).is_none())
        ));
    }
    let start = position(&pages[0]).unwrap_or(0);
    let expected = |i: usize| cycle[(start + i) % cycle.len()];
    if pages.iter().enumerate().any(|(i, p)| *p != Ok(expected(i))) {
        return Err(format!(
            "pages do not alternate over {cycle:?} (page 0 on node {}): {}",
            cycle[start],
            first_mismatches(pages, |i, p| *p != Ok(expected(i)))
        ));
    }
    let counts: Vec<usize> = cycle
        .iter()
        .map(|&n| pages.iter().filter(|p| **p == Ok(n)).count())
        .collect();
    let (low, high) = (
        counts.iter().min().copied().unwrap_or(0),
        counts.iter().max().copied().unwrap_or(0),
    );
    if high - low > 1 {
        return Err(format!("unbalanced interleave: {}", histogram(pages)));
    }
    Ok(format!(
        "{} pages alternate over nodes {cycle:?} from node {}: {}",
        pages.len(),
        cycle[start],
        histogram(pages)
    ))
}

/// Splits the pages of a region starting at `start` into the `block`-byte aligned blocks that lie
/// wholly inside it; returns the index of the first page of the first whole block and the number
/// of whole blocks.
pub fn whole_blocks(start: usize, pages: usize, page: usize, block: usize) -> (usize, usize) {
    let end = start + pages * page;
    let first_block = start.next_multiple_of(block);
    if first_block >= end {
        return (pages, 0);
    }
    ((first_block - start) / page, (end - first_block) / block)
}

/// Huge-page interleaving: every whole `block`-byte aligned block of the region lies on one node,
/// and consecutive whole blocks go round-robin over `cycle`.
pub fn round_robin_blocks(
    pages: &[PageStatus],
    start: usize,
    page: usize,
    block: usize,
    cycle: &[usize],
) -> Outcome {
    let per_block = block / page;
    let (first, blocks) = whole_blocks(start, pages.len(), page, block);
    if blocks < 2 {
        return Err(format!(
            "only {blocks} whole {block}-byte block(s) in the region: too small to check"
        ));
    }
    let mut block_nodes = Vec::with_capacity(blocks);
    for b in 0..blocks {
        let run = &pages[first + b * per_block..first + (b + 1) * per_block];
        if run.iter().any(|p| *p != run[0]) {
            return Err(format!(
                "huge page {b} is split over nodes: {}",
                histogram(run)
            ));
        }
        block_nodes.push(run[0]);
    }
    round_robin_all(&block_nodes, cycle)
        .map(|detail| format!("{blocks} whole huge pages: {detail}"))
        .map_err(|why| format!("huge pages: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABSENT: PageStatus = Err(2);

    #[test]
    fn all_on_accepts_only_a_full_match() {
        assert!(all_on(&[Ok(1), Ok(1)], 1, 2).is_ok());
        let why = all_on(&[Ok(1), Ok(0), ABSENT], 1, 3).unwrap_err();
        assert!(
            why.contains("node0=1 node1=1")
                && why.contains("absent=1")
                && why.contains("page 1: Ok(0)"),
            "{why}"
        );
        assert!(all_on(&[], 0, 0).is_err());
        // Padding pages after the data may be absent or on the node, never elsewhere.
        assert!(all_on(&[Ok(1), ABSENT], 1, 1).unwrap().contains("padding"));
        assert!(all_on(&[Ok(1), Ok(1)], 1, 1).is_ok());
        assert!(all_on(&[Ok(1), Ok(0)], 1, 1)
            .unwrap_err()
            .contains("padding page 1"));
        assert!(all_on(&[Ok(1), ABSENT], 1, 2).is_err());
        assert!(all_on(&[Ok(1)], 1, 2).is_err());
    }

    #[test]
    fn round_robin_accepts_any_start_and_rejects_breaks() {
        assert!(round_robin(&[Ok(1), Ok(0), Ok(1), Ok(0), Ok(1)], &[0, 1], 5).is_ok());
        assert!(round_robin(&[Ok(3), Ok(1), Ok(3)], &[1, 3], 3).is_ok());
        assert!(round_robin(&[Ok(2)], &[2], 1).is_ok());
        assert!(round_robin(&[Ok(0), Ok(0), Ok(1)], &[0, 1], 3)
            .unwrap_err()
            .contains("do not alternate"));
        assert!(round_robin(&[Ok(0), Ok(2)], &[0, 1], 2)
            .unwrap_err()
            .contains("not on one of nodes"));
        assert!(round_robin(&[Ok(0), ABSENT], &[0, 1], 2).is_err());
        // The wrong order of a three-node cycle is caught too.
        assert!(round_robin(&[Ok(0), Ok(2), Ok(1)], &[0, 1, 2], 3).is_err());
        // Padding continues the cycle or is absent.
        assert!(round_robin(&[Ok(0), Ok(1), ABSENT], &[0, 1], 2).is_ok());
        assert!(round_robin(&[Ok(0), Ok(1), Ok(0)], &[0, 1], 2).is_ok());
        assert!(round_robin(&[Ok(0), Ok(1), Ok(1)], &[0, 1], 2).is_err());
    }

    #[test]
    fn whole_blocks_skip_unaligned_edges() {
        let (page, block) = (4096, 2 << 20);
        assert_eq!(whole_blocks(block, 1024, page, block), (0, 2));
        assert_eq!(whole_blocks(block + page, 1024, page, block), (511, 1));
        assert_eq!(whole_blocks(block + page, 10, page, block), (10, 0));
    }

    #[test]
    fn huge_page_round_robin_needs_uniform_blocks() {
        let (page, block) = (4096, 16384); // four pages per block for the test
        let pages: Vec<PageStatus> = [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0]
            .into_iter()
            .map(Ok)
            .collect();
        assert!(round_robin_blocks(&pages, block, page, block, &[0, 1]).is_ok());
        let mut split = pages.clone();
        split[5] = Ok(0);
        assert!(round_robin_blocks(&split, block, page, block, &[0, 1])
            .unwrap_err()
            .contains("split"));
        let same: Vec<PageStatus> = vec![Ok(0); 12];
        assert!(round_robin_blocks(&same, block, page, block, &[0, 1]).is_err());
    }
}
