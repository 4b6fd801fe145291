//! A forked child can use the library: the runtime's threads do not survive `fork`, so the
//! runtime starts them again in the child (a pool waiting on the parent's threads would hang
//! forever, as it did under Python's multiprocessing).

use std::sync::Arc;

use smartarrays::{ArrayOptions, Runtime, SmartArray};

/// Forks; the child runs `child` under a 30 s alarm and exits 0 when it returns true. Returns
/// the child's wait status.
fn in_forked_child(child: impl FnOnce() -> bool) -> i32 {
    // SAFETY: fork has no memory-safety preconditions; the child only runs `child` (which uses
    // the library under test) and then leaves through _exit, never returning into the harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // SAFETY: alarm and _exit are async-signal-safe and have no preconditions.
        unsafe { libc::alarm(30) };
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(child)).unwrap_or(false);
        // SAFETY: as above; the child ends here.
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let mut status = 0;
    // SAFETY: pid is our child; status is a valid out slot.
    let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(waited, pid);
    status
}

#[test]
fn a_forked_child_sums_in_parallel_after_the_parent_did() {
    for threads in [1, 2, 3] {
        let runtime = Arc::new(Runtime::with_threads(threads).unwrap());
        let options = ArrayOptions::new().bits(17).runtime(Arc::clone(&runtime));
        let array = SmartArray::from_fn(300_001, &options, |i| (i % 100_000) as u64).unwrap();
        let expected = array.par_sum();
        let status = in_forked_child(|| {
            let again = array.par_sum() == expected;
            let built = SmartArray::from_fn(70_001, &options, |i| i as u64)
                .map(|b| b.par_sum() == 70_000 * 70_001 / 2)
                .unwrap_or(false);
            again && built
        });
        assert!(
            libc::WIFEXITED(status),
            "child killed by signal {} (hung?)",
            libc::WTERMSIG(status)
        );
        assert_eq!(
            libc::WEXITSTATUS(status),
            0,
            "wrong results in the child ({threads} threads)"
        );
        // The parent's pool still works after the fork.
        assert_eq!(array.par_sum(), expected);
    }
}

#[test]
fn the_global_runtime_survives_fork_too() {
    let array = SmartArray::from_fn(100_000, &ArrayOptions::new(), |i| i as u64).unwrap();
    let expected = array.par_sum();
    let status = in_forked_child(|| array.par_sum() == expected && array.par_max() == Some(99_999));
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "status {status}"
    );
}
