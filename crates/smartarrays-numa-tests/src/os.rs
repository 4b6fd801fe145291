//! The suite's own kernel calls, written independently of `smartarrays::sys` so that the library's
//! answers are checked against a second reading: `move_pages(2)` in query mode (which node holds
//! each page), CPU affinity of the calling thread, and `getcpu`. This is the only module of the
//! crate with `unsafe`.

use std::io;

/// The node of every base page spanned by `[address, address + bytes)`: `Ok(node)` for a page
/// that is resident, `Err(errno)` otherwise (`ENOENT`: never touched). Queries only; moves nothing.
pub fn page_nodes_of(address: *const u8, bytes: usize) -> io::Result<Vec<Result<usize, i32>>> {
    if bytes == 0 {
        return Ok(Vec::new());
    }
    let page = page_size();
    let first = address as usize / page * page;
    let end = address as usize + bytes;
    let pages: Vec<*mut libc::c_void> = (first..end)
        .step_by(page)
        .map(|a| a as *mut libc::c_void)
        .collect();
    let mut status = vec![i32::MIN; pages.len()];
    for (addresses, statuses) in pages.chunks(4096).zip(status.chunks_mut(4096)) {
        // SAFETY: `addresses` and `statuses` are live arrays of the same length, passed with that
        // length; a null `nodes` argument puts move_pages in query mode, where the kernel only
        // writes each page's node (or a negative errno) into `statuses`.
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

/// The node of every page of a slice of words (see [`page_nodes_of`]).
pub fn page_nodes_of_words(words: &[u64]) -> io::Result<Vec<Result<usize, i32>>> {
    page_nodes_of(words.as_ptr().cast(), std::mem::size_of_val(words))
}

/// Base page size in bytes.
pub fn page_size() -> usize {
    // SAFETY: sysconf reads a configuration value and has no memory-safety preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size)
        .ok()
        .filter(|&s| s > 0)
        .unwrap_or(4096)
}

/// Restricts the calling thread to `cpus` (`sched_setaffinity(2)`).
pub fn set_thread_affinity(cpus: &[usize]) -> io::Result<()> {
    // SAFETY: cpu_set_t is plain data; all-zero bytes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        // SAFETY: `cpu` was checked to be below CPU_SETSIZE, so the bit lies inside `set`.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t and its exact size is passed; pid 0 is this thread.
    let result =
        unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The CPUs the calling thread may run on (`sched_getaffinity(2)`).
pub fn thread_affinity() -> io::Result<Vec<usize>> {
    // SAFETY: all-zero bytes is a valid empty cpu_set_t.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is valid for writes of the size passed; pid 0 is this thread.
    let result =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: every `cpu` tested is below CPU_SETSIZE, so the bit lies inside `set`.
    Ok((0..libc::CPU_SETSIZE as usize)
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}

/// The CPU and node the calling thread runs on right now, from the `getcpu(2)` system call.
pub fn cpu_and_node() -> io::Result<(usize, usize)> {
    let mut cpu: libc::c_uint = 0;
    let mut node: libc::c_uint = 0;
    // SAFETY: both out-pointers are valid for one write each; the third (cache) argument is
    // unused by the kernel and may be null.
    let result = unsafe {
        libc::syscall(
            libc::SYS_getcpu,
            &mut cpu as *mut libc::c_uint,
            &mut node as *mut libc::c_uint,
            std::ptr::null_mut::<libc::c_void>(),
        )
    };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((cpu as usize, node as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untouched_pages_are_absent_and_written_pages_are_on_this_node() {
        assert!(page_nodes_of_words(&[]).unwrap().is_empty());
        // Stay on one CPU, so first touch has one node to go to even on a multi-node host.
        let (cpu, here) = cpu_and_node().unwrap();
        set_thread_affinity(&[cpu]).unwrap();
        let words = 64 * page_size() / 8;
        let mut region = smartarrays::memory::Region::map(words, None, None).unwrap();
        let before = page_nodes_of_words(region.words()).unwrap();
        assert_eq!(before.len(), 64);
        assert!(before.iter().all(|p| *p == Err(libc::ENOENT)), "{before:?}");
        region.words_mut()[..words / 2].fill(7);
        let after = page_nodes_of_words(region.words()).unwrap();
        assert!(
            after[..32].iter().all(|p| *p == Ok(here)) && after[32..].iter().all(|p| p.is_err()),
            "{after:?}"
        );
        // An address in the middle of a page counts that page.
        assert_eq!(
            page_nodes_of(region.words()[1..].as_ptr().cast(), 8).unwrap(),
            vec![Ok(here)]
        );
    }

    #[test]
    fn affinity_round_trips() {
        let all = thread_affinity().unwrap();
        assert!(!all.is_empty());
        let handle = std::thread::spawn(move || {
            set_thread_affinity(&all[..1]).unwrap();
            let mine = thread_affinity().unwrap();
            let (cpu, _) = cpu_and_node().unwrap();
            (mine, cpu, all[0])
        });
        let (mine, cpu, first) = handle.join().unwrap();
        assert_eq!(mine, vec![first]);
        assert_eq!(cpu, first);
        assert!(set_thread_affinity(&[libc::CPU_SETSIZE as usize]).is_err());
    }
}
