//! Raw operating-system calls: memory mapping, NUMA policy, page queries and thread pinning.
//!
//! This is the lowest layer and the only module that talks to the kernel. It owns the `unsafe`
//! needed for `mmap`/`munmap`, `mbind`, `madvise`, `move_pages`, `get_mempolicy`,
//! `sched_setaffinity` and `getcpu`, and exposes each as a small safe function that returns an
//! [`std::io::Error`] on failure. Everything above it (topology, regions, placement, reports, the runtime) is safe Rust.

use std::io;
use std::ptr::NonNull;

/// Kernel memory policy modes (see `mbind(2)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyMode {
    /// `MPOL_BIND`: allocate only on the given nodes.
    Bind,
    /// `MPOL_INTERLEAVE`: spread pages round-robin over the given nodes.
    Interleave,
}

const MPOL_DEFAULT: i32 = 0;
const MPOL_BIND: i32 = 2;
const MPOL_INTERLEAVE: i32 = 3;
const MPOL_MF_STRICT: u32 = 1;
const MPOL_MF_MOVE: u32 = 2;
const MPOL_F_ADDR: u64 = 1 << 1;

/// Size of a base page in bytes, as the kernel reports it.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions; it only reads a configuration value.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size <= 0 {
        4096
    } else {
        size as usize
    }
}

/// An anonymous private mapping: start pointer and length in bytes. Freed with [`unmap`].
#[derive(Debug)]
pub struct Mapping {
    /// First byte of the mapping (page aligned).
    pub start: NonNull<u8>,
    /// Length of the mapping in bytes (a multiple of the page size).
    pub bytes: usize,
}

/// Transparent huge page size on x86-64. Mappings of at least this size start on a multiple of
/// it, so huge pages can cover them whole (a region starting mid-huge-page leaves its first and
/// last pieces to base pages, which skews an interleaving per huge page).
pub const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Maps `bytes` (already rounded to whole pages, non-zero) of zeroed anonymous memory.
/// Pages are not populated: the first write to each decides where it lands unless a policy
/// has been set with [`bind`]. Mappings of at least [`HUGE_PAGE_BYTES`] are aligned to it.
pub fn map_anonymous(bytes: usize) -> io::Result<Mapping> {
    debug_assert!(bytes > 0 && bytes.is_multiple_of(page_size()));
    let align = if bytes >= HUGE_PAGE_BYTES {
        HUGE_PAGE_BYTES
    } else {
        page_size()
    };
    // Over-map by the alignment less one page, then give back the unaligned head and tail.
    let slack = align - page_size();
    let mapped = bytes
        .checked_add(slack)
        .ok_or_else(|| io::Error::from(io::ErrorKind::OutOfMemory))?;
    // SAFETY: a fresh anonymous mapping at an address chosen by the kernel cannot alias any
    // existing Rust object; the result is checked for MAP_FAILED before use.
    let pointer = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            mapped,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if pointer == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let base = pointer as usize;
    let head = base.next_multiple_of(align) - base;
    let tail = slack - head;
    if head > 0 {
        // SAFETY: [base, base + head) is the start of the mapping just made; nothing refers to it.
        unsafe { libc::munmap(pointer, head) };
    }
    if tail > 0 {
        // SAFETY: the last `tail` bytes of the mapping just made; nothing refers to them.
        unsafe { libc::munmap(pointer.cast::<u8>().wrapping_add(head + bytes).cast(), tail) };
    }
    let start = NonNull::new(pointer.cast::<u8>().wrapping_add(head))
        .ok_or_else(|| io::Error::other("mmap returned null"))?;
    Ok(Mapping { start, bytes })
}

/// Unmaps a mapping made by [`map_anonymous`].
///
/// # Safety
/// `mapping` must come from [`map_anonymous`], must not have been unmapped before, and no
/// reference into it may be used afterwards.
pub unsafe fn unmap(mapping: &Mapping) {
    // SAFETY: guaranteed by the caller: the range is a live mapping we own exclusively.
    unsafe {
        libc::munmap(mapping.start.as_ptr().cast(), mapping.bytes);
    }
}

/// Sets the NUMA policy of a mapping's whole range (`mbind(2)`), moving pages already present.
pub fn bind(mapping: &Mapping, mode: PolicyMode, nodes: &[usize]) -> io::Result<()> {
    let mask = node_mask(nodes);
    let raw_mode = match mode {
        PolicyMode::Bind => MPOL_BIND,
        PolicyMode::Interleave => MPOL_INTERLEAVE,
    };
    // SAFETY: mbind only changes the policy of the address range, which is a live mapping we
    // own; the node mask pointer is valid for `mask.len()` words and the kernel only reads it.
    let result = unsafe {
        libc::syscall(
            libc::SYS_mbind,
            mapping.start.as_ptr(),
            mapping.bytes as libc::c_ulong,
            raw_mode as libc::c_ulong,
            mask.as_ptr(),
            (mask.len() * 64 + 1) as libc::c_ulong,
            (MPOL_MF_STRICT | MPOL_MF_MOVE) as libc::c_ulong,
        )
    };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Transparent huge page advice for a mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HugePageAdvice {
    /// `MADV_HUGEPAGE`.
    Use,
    /// `MADV_NOHUGEPAGE`.
    Avoid,
}

/// Advises the kernel about transparent huge pages for the mapping. Failure is harmless (for
/// instance when THP is compiled out) and is returned for the caller to ignore or report.
pub fn advise_huge_pages(mapping: &Mapping, advice: HugePageAdvice) -> io::Result<()> {
    let raw = match advice {
        HugePageAdvice::Use => libc::MADV_HUGEPAGE,
        HugePageAdvice::Avoid => libc::MADV_NOHUGEPAGE,
    };
    // SAFETY: madvise with these flags only changes kernel bookkeeping for our own mapping.
    let result = unsafe { libc::madvise(mapping.start.as_ptr().cast(), mapping.bytes, raw) };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Where each page of `[start, start + bytes)` currently is: `Ok(node)` for a resident page, or
/// `Err(errno)` (for example `ENOENT` for a page never touched). Uses `move_pages(2)` in query
/// mode, which moves nothing.
pub fn page_nodes(start: NonNull<u8>, bytes: usize) -> io::Result<Vec<Result<usize, i32>>> {
    let page = page_size();
    let first = start.as_ptr() as usize & !(page - 1);
    let end = start.as_ptr() as usize + bytes;
    let pages: Vec<*mut libc::c_void> = (first..end)
        .step_by(page)
        .map(|address| address as *mut libc::c_void)
        .collect();
    let mut status = vec![0i32; pages.len()];
    for (addresses, statuses) in pages.chunks(16384).zip(status.chunks_mut(16384)) {
        // SAFETY: `addresses` and `statuses` are valid arrays of equal length; with a null
        // `nodes` argument move_pages only reports each page's node into `statuses`.
        let result = unsafe {
            libc::syscall(
                libc::SYS_move_pages,
                0 as libc::c_int,
                addresses.len() as libc::c_ulong,
                addresses.as_ptr(),
                std::ptr::null::<libc::c_int>(),
                statuses.as_mut_ptr(),
                0 as libc::c_int,
            )
        };
        if result < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(status
        .into_iter()
        .map(|s| if s >= 0 { Ok(s as usize) } else { Err(-s) })
        .collect())
}

/// The kernel's memory policy for the page containing `address` (`get_mempolicy(2)` with
/// `MPOL_F_ADDR`): the mode name and its node mask.
pub fn policy_of(address: NonNull<u8>) -> io::Result<(String, Vec<usize>)> {
    let mut mode: libc::c_int = 0;
    let mut mask = [0u64; 16];
    // SAFETY: `mode` and `mask` are valid for writes of the sizes passed; the address is only
    // used to look up the policy of its range.
    let result = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            &mut mode as *mut libc::c_int,
            mask.as_mut_ptr(),
            (mask.len() * 64) as libc::c_ulong,
            address.as_ptr(),
            MPOL_F_ADDR as libc::c_ulong,
        )
    };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    let name = match mode & 0xff {
        MPOL_DEFAULT => "default",
        1 => "preferred",
        MPOL_BIND => "bind",
        MPOL_INTERLEAVE => "interleave",
        4 => "local",
        5 => "preferred-many",
        6 => "weighted-interleave",
        _ => "unknown",
    };
    let nodes = (0..mask.len() * 64)
        .filter(|&n| mask[n / 64] & (1 << (n % 64)) != 0)
        .collect();
    Ok((name.to_string(), nodes))
}

/// Pins the calling thread to one CPU (`sched_setaffinity(2)`).
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: cpu_set_t is plain data for which all-zero bytes is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu` was checked to be below CPU_SETSIZE, so the bit lies inside `set`.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid cpu_set_t and its size is passed; pid 0 means this thread.
    let result =
        unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The CPUs this process may run on (`sched_getaffinity(2)`).
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: all-zero bytes is a valid empty cpu_set_t.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is valid for writes of the size passed; pid 0 means this thread.
    let result =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((0..libc::CPU_SETSIZE as usize)
        // SAFETY: every `cpu` tested is below CPU_SETSIZE, so the bit lies inside `set`.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}

/// The CPU the calling thread runs on right now.
pub fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    (cpu >= 0).then_some(cpu as usize)
}

fn node_mask(nodes: &[usize]) -> Vec<u64> {
    let words = nodes.iter().max().map_or(1, |&max| max / 64 + 1);
    let mut mask = vec![0u64; words];
    for &node in nodes {
        mask[node / 64] |= 1 << (node % 64);
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_mappings_start_on_a_huge_page_and_small_ones_on_a_page() {
        let page = page_size();
        for bytes in [
            page,
            3 * page,
            HUGE_PAGE_BYTES,
            HUGE_PAGE_BYTES + page,
            8 * HUGE_PAGE_BYTES + 5 * page,
        ] {
            let mapping = map_anonymous(bytes).unwrap();
            let align = if bytes >= HUGE_PAGE_BYTES {
                HUGE_PAGE_BYTES
            } else {
                page
            };
            assert_eq!(mapping.start.as_ptr() as usize % align, 0, "{bytes} bytes");
            assert_eq!(mapping.bytes, bytes);
            // SAFETY: the mapping is live, writable and `bytes` long; only this test uses it.
            let memory = unsafe { std::slice::from_raw_parts_mut(mapping.start.as_ptr(), bytes) };
            memory[0] = 1;
            memory[bytes - 1] = 2;
            assert_eq!(memory[0] + memory[bytes - 1], 3);
            // SAFETY: from map_anonymous, unmapped once, `memory` is not used afterwards.
            unsafe { unmap(&mapping) };
        }
    }
}
