//! Readers for the `/proc` and `/sys` files the suite uses as independent witnesses: per-mapping
//! statistics (`smaps`: resident, referenced and huge-page bytes), per-mapping NUMA policy and
//! page counts (`numa_maps`), process size (`status`), node memory (`meminfo`) and the
//! transparent huge page mode. Parsing is split from reading so it can be tested on fixed text.

use std::collections::BTreeMap;
use std::fs;
use std::io;

/// One mapping of `/proc/self/smaps`: its address range and its `Name: N kB` fields, in KiB.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmapsEntry {
    /// First address.
    pub start: usize,
    /// One past the last address.
    pub end: usize,
    /// Size fields in KiB (`Rss`, `Referenced`, `AnonHugePages`, ...).
    pub kib: BTreeMap<String, u64>,
}

impl SmapsEntry {
    /// The field `name` in KiB (0 when absent).
    pub fn field(&self, name: &str) -> u64 {
        self.kib.get(name).copied().unwrap_or(0)
    }

    /// Whether the mapping overlaps `[start, end)`.
    pub fn overlaps(&self, start: usize, end: usize) -> bool {
        self.start < end && start < self.end
    }
}

fn parse_range(word: &str) -> Option<(usize, usize)> {
    let (start, end) = word.split_once('-')?;
    Some((
        usize::from_str_radix(start, 16).ok()?,
        usize::from_str_radix(end, 16).ok()?,
    ))
}

/// Parses the text of an `smaps` file.
pub fn parse_smaps(text: &str) -> Vec<SmapsEntry> {
    let mut entries: Vec<SmapsEntry> = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        if let Some((start, end)) = parse_range(first) {
            entries.push(SmapsEntry {
                start,
                end,
                kib: BTreeMap::new(),
            });
        } else if let (Some(name), Some(entry)) = (first.strip_suffix(':'), entries.last_mut()) {
            let value = words.next().and_then(|v| v.parse::<u64>().ok());
            if let (Some(value), Some("kB")) = (value, words.next()) {
                entry.kib.insert(name.to_string(), value);
            }
        }
    }
    entries
}

/// The calling process's mappings with their statistics.
pub fn smaps() -> io::Result<Vec<SmapsEntry>> {
    Ok(parse_smaps(&fs::read_to_string("/proc/self/smaps")?))
}

/// One mapping of `/proc/self/numa_maps`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NumaMapsEntry {
    /// First address of the mapping.
    pub start: usize,
    /// Policy as the kernel prints it: `default`, `bind:1`, `interleave:0-3`, ...
    pub policy: String,
    /// Resident pages per node (`N<node>=<pages>`), counted in the mapping's kernel page size.
    pub pages_by_node: BTreeMap<usize, u64>,
}

/// Parses the text of a `numa_maps` file.
pub fn parse_numa_maps(text: &str) -> Vec<NumaMapsEntry> {
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let start = usize::from_str_radix(words.next()?, 16).ok()?;
            let policy = words.next()?.to_string();
            let pages_by_node = words
                .filter_map(|w| {
                    let (node, pages) = w.strip_prefix('N')?.split_once('=')?;
                    Some((node.parse().ok()?, pages.parse().ok()?))
                })
                .collect();
            Some(NumaMapsEntry {
                start,
                policy,
                pages_by_node,
            })
        })
        .collect()
}

/// The calling process's mappings with their NUMA policy.
pub fn numa_maps() -> io::Result<Vec<NumaMapsEntry>> {
    Ok(parse_numa_maps(&fs::read_to_string(
        "/proc/self/numa_maps",
    )?))
}

/// The policy text of the mapping that contains `address`, from `numa_maps` and `maps`.
pub fn policy_at(address: usize) -> io::Result<Option<String>> {
    let ranges = mappings()?;
    let Some(&(start, _)) = ranges.iter().find(|&&(s, e)| s <= address && address < e) else {
        return Ok(None);
    };
    Ok(numa_maps()?
        .into_iter()
        .find(|e| e.start == start)
        .map(|e| e.policy))
}

/// Address ranges of the calling process's mappings (`/proc/self/maps`).
pub fn mappings() -> io::Result<Vec<(usize, usize)>> {
    Ok(fs::read_to_string("/proc/self/maps")?
        .lines()
        .filter_map(|l| parse_range(l.split_whitespace().next()?))
        .collect())
}

/// Clears the referenced (accessed) bit of every page of the process (`/proc/self/clear_refs`),
/// so `smaps` `Referenced` then counts only pages touched afterwards.
///
/// Clearing accessed bits (`1`) does not flush the TLB on x86, and a CPU does not set the bit
/// again for a page whose translation it still caches, so later reads could go uncounted. Writing
/// `4` (clear soft-dirty bits) ends with a flush of the whole address space, which closes that gap.
pub fn clear_referenced_bits() -> io::Result<()> {
    fs::write("/proc/self/clear_refs", "1")?;
    fs::write("/proc/self/clear_refs", "4")
}

/// Process size figures from `/proc/self/status`, in KiB.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcessSize {
    /// `VmSize`: all mapped memory.
    pub vm_size_kib: u64,
    /// `VmRSS`: resident memory.
    pub vm_rss_kib: u64,
    /// Number of mappings (lines of `/proc/self/maps`).
    pub mappings: usize,
}

/// Reads `Name: N kB` from a status- or meminfo-style text (the word before `kB`).
pub fn kib_field(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        let position = words
            .iter()
            .position(|w| w.trim_end_matches(':') == name && w.ends_with(':'))?;
        words.get(position + 1)?.parse().ok()
    })
}

/// The process's current size.
pub fn process_size() -> io::Result<ProcessSize> {
    let status = fs::read_to_string("/proc/self/status")?;
    let missing = |name: &str| io::Error::other(format!("/proc/self/status has no {name}"));
    Ok(ProcessSize {
        vm_size_kib: kib_field(&status, "VmSize").ok_or_else(|| missing("VmSize"))?,
        vm_rss_kib: kib_field(&status, "VmRSS").ok_or_else(|| missing("VmRSS"))?,
        mappings: mappings()?.len(),
    })
}

/// `MemTotal` of a node from `/sys/devices/system/node/node<N>/meminfo`, in bytes.
pub fn node_mem_total(node: usize) -> io::Result<u64> {
    let text = fs::read_to_string(format!("/sys/devices/system/node/node{node}/meminfo"))?;
    kib_field(&text, "MemTotal")
        .map(|k| k * 1024)
        .ok_or_else(|| io::Error::other(format!("node{node}/meminfo has no MemTotal")))
}

/// `MemFree` of a node from `/sys/devices/system/node/node<N>/meminfo`, in bytes.
pub fn node_mem_free(node: usize) -> io::Result<u64> {
    let text = fs::read_to_string(format!("/sys/devices/system/node/node{node}/meminfo"))?;
    kib_field(&text, "MemFree")
        .map(|k| k * 1024)
        .ok_or_else(|| io::Error::other(format!("node{node}/meminfo has no MemFree")))
}

/// `MemTotal` of the whole machine from `/proc/meminfo`, in bytes.
pub fn machine_mem_total() -> io::Result<u64> {
    let text = fs::read_to_string("/proc/meminfo")?;
    kib_field(&text, "MemTotal")
        .map(|k| k * 1024)
        .ok_or_else(|| io::Error::other("/proc/meminfo has no MemTotal"))
}

/// The selected word of a sysfs choice file such as `always [madvise] never`.
pub fn selected_choice(text: &str) -> Option<&str> {
    text.split_whitespace()
        .find_map(|w| w.strip_prefix('[')?.strip_suffix(']'))
}

/// The transparent huge page mode (`always`, `madvise`, `never`), `None` without THP support.
pub fn transparent_huge_page_mode() -> Option<String> {
    let text = fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").ok()?;
    selected_choice(&text).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
7f0000000000-7f0000004000 rw-p 00000000 00:00 0 
Size:                 16 kB
Rss:                   8 kB
Referenced:            4 kB
AnonHugePages:         0 kB
VmFlags: rd wr mr mw me ac 
7f0000004000-7f0000400000 rw-p 00000000 00:00 0                          [heap]
Size:               4080 kB
Referenced:         2048 kB
AnonHugePages:      2048 kB
";

    #[test]
    fn smaps_fields_are_read_per_mapping() {
        let entries = parse_smaps(SMAPS);
        assert_eq!(entries.len(), 2);
        assert_eq!(
            (entries[0].start, entries[0].end),
            (0x7f00_0000_0000, 0x7f00_0000_4000)
        );
        assert_eq!(entries[0].field("Rss"), 8);
        assert_eq!(entries[0].field("Referenced"), 4);
        assert_eq!(entries[0].field("Missing"), 0);
        assert_eq!(entries[1].field("AnonHugePages"), 2048);
        assert!(entries[1].overlaps(0x7f00_0000_3000, 0x7f00_0000_5000));
        assert!(!entries[1].overlaps(0x7f00_0000_0000, 0x7f00_0000_4000));
    }

    #[test]
    fn numa_maps_policies_and_node_counts_are_read() {
        let text = "7f0000000000 bind:1 anon=256 dirty=256 N1=256 kernelpagesize_kB=4\n\
                    7f0000400000 interleave:0-3 anon=10 dirty=10 N0=3 N1=3 N2=2 N3=2 kernelpagesize_kB=4\n\
                    7f0000800000 default\n";
        let entries = parse_numa_maps(text);
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].policy, "bind:1");
        assert_eq!(entries[0].pages_by_node, BTreeMap::from([(1, 256)]));
        assert_eq!(entries[1].pages_by_node.values().sum::<u64>(), 10);
        assert_eq!(entries[2].policy, "default");
        assert!(entries[2].pages_by_node.is_empty());
    }

    #[test]
    fn kib_fields_and_choices_are_read() {
        assert_eq!(
            kib_field("VmSize:\t  1234 kB\nVmRSS:\t 56 kB\n", "VmRSS"),
            Some(56)
        );
        assert_eq!(
            kib_field("Node 1 MemTotal:  257624 kB\n", "MemTotal"),
            Some(257624)
        );
        assert_eq!(kib_field("Node 1 MemFree:  1 kB\n", "MemTotal"), None);
        assert_eq!(selected_choice("always [madvise] never"), Some("madvise"));
        assert_eq!(selected_choice("always madvise never"), None);
    }

    #[test]
    fn this_process_can_be_read() {
        let size = process_size().unwrap();
        assert!(size.vm_size_kib >= size.vm_rss_kib && size.mappings > 0);
        assert!(!smaps().unwrap().is_empty());
        if std::path::Path::new("/proc/self/numa_maps").exists() {
            let probe = Box::new(5u64);
            assert!(policy_at(&*probe as *const u64 as usize).unwrap().is_some());
        }
        assert!(machine_mem_total().unwrap() > 0);
    }
}
