//! Process-wide parts of the C ABI: error text and status names, the library version, strings
//! handed to C, the runtime used by arrays created through the ABI (and its thread count), and
//! the machine topology.

use std::ffi::{c_char, CStr, CString};
use std::sync::{Arc, Mutex, PoisonError};

use smartarrays::{Result, Runtime};

use crate::ptr;
use crate::status::{self, guard, SaStatus};

static RUNTIME: Mutex<Option<Arc<Runtime>>> = Mutex::new(None);

/// The runtime that arrays created through the C ABI use: the one set by
/// `sa_runtime_set_threads`, else the library's global runtime (one worker per CPU, or
/// `SMARTARRAYS_THREADS`).
pub fn current_runtime() -> Result<Arc<Runtime>> {
    let chosen = RUNTIME
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    match chosen {
        Some(runtime) => Ok(runtime),
        None => Runtime::global(),
    }
}

/// Replaces the runtime used by arrays created from now on (`threads == 0` restores the global
/// default). Arrays that exist keep the runtime they were built with.
pub fn set_runtime_threads(threads: usize) -> Result<()> {
    let runtime = if threads == 0 {
        None
    } else {
        Some(Arc::new(Runtime::with_threads(threads)?))
    };
    *RUNTIME.lock().unwrap_or_else(PoisonError::into_inner) = runtime;
    Ok(())
}

const VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => c"unknown",
    };

/// The message of the most recent failed call on the calling thread, or "" if none failed yet.
///
/// Ownership: the text belongs to the library; do not free it. It stays valid until the next
/// failing call (or `sa_clear_last_error`) on the same thread; copy it to keep it.
/// Thread safety: each thread has its own last error; successful calls leave it unchanged.
#[no_mangle]
pub extern "C" fn sa_last_error_message() -> *const c_char {
    status::last_error_ptr()
}

/// Forgets the calling thread's last error message (`sa_last_error_message` returns "" after).
#[no_mangle]
pub extern "C" fn sa_clear_last_error() {
    status::clear_last_error();
}

/// The name of a status code, e.g. "SA_STATUS_VALUE_TOO_WIDE"; "SA_STATUS_UNKNOWN" for values
/// that are not status codes. The text is static: do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn sa_status_name(status: i32) -> *const c_char {
    SaStatus::ALL
        .iter()
        .find(|s| **s as i32 == status)
        .map_or(c"SA_STATUS_UNKNOWN", |s| s.c_name())
        .as_ptr()
}

/// The library version ("MAJOR.MINOR.PATCH"). Static text: do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn sa_version() -> *const c_char {
    VERSION.as_ptr()
}

/// Frees a string returned through a `char **out` argument by this library. NULL is ignored.
///
/// # Safety
/// `text` must be NULL or a string from this library not freed before; it is invalid after.
/// Thread-safe (any thread may free any such string).
#[no_mangle]
pub unsafe extern "C" fn sa_string_free(text: *mut c_char) {
    if !text.is_null() {
        // SAFETY: the caller passes a pointer produced by CString::into_raw in this library,
        // exactly once.
        drop(unsafe { CString::from_raw(text) });
    }
}

/// Sets the number of worker threads used by arrays created from now on (building, sum, min,
/// max); 0 restores the default (one per CPU, or the SMARTARRAYS_THREADS environment variable).
/// Existing arrays keep their workers.
///
/// Thread-safe; starting a pool takes a little while, so call it once at start-up.
#[no_mangle]
pub extern "C" fn sa_runtime_set_threads(threads: usize) -> SaStatus {
    guard(|| Ok(set_runtime_threads(threads)?))
}

/// Installs the advisor that resolves placement `"auto"` and width 0 with compression auto
/// for this machine: its figures are read from the cache (`$SMARTARRAYS_CACHE_DIR`, else
/// `~/.cache/smartarrays`) or measured now, once per machine (a few seconds), and cached.
/// Writes 1 to `*measured` when they were measured now, 0 when read from the cache (`measured`
/// may be NULL). Without an advisor, `"auto"` placements fail with `SA_STATUS_OTHER` and a
/// message that names this function.
///
/// Thread-safe; call it once at start-up.
///
/// # Safety
/// `measured` must be NULL or valid for writing an `int32_t`.
#[no_mangle]
pub unsafe extern "C" fn sa_install_default_advisor(measured: *mut i32) -> SaStatus {
    guard(|| {
        let fresh = smartarrays_adapt::install_for_this_machine().map_err(|e| {
            status::FfiError::new(
                SaStatus::Other,
                format!("could not set up the advisor: {e}"),
            )
        })?;
        if !measured.is_null() {
            // SAFETY: non-NULL, and valid for writing by the caller's contract.
            unsafe { ptr::write(measured, "measured", i32::from(fresh)) }?;
        }
        Ok(())
    })
}

/// Writes the number of worker threads new arrays will use to `*out`. Thread-safe.
///
/// # Safety
/// `out` must be NULL (reported as an error) or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn sa_runtime_threads(out: *mut usize) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let threads = current_runtime()?.threads();
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", threads) }
    })
}

/// Writes the number of NUMA nodes of the topology the runtime follows to `*out`. Thread-safe.
///
/// # Safety
/// `out` must be NULL (reported as an error) or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn sa_topology_node_count(out: *mut usize) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let nodes = current_runtime()?.topology().nodes().len();
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", nodes) }
    })
}

/// Writes the number of CPUs of the topology the runtime follows to `*out`. Thread-safe.
///
/// # Safety
/// `out` must be NULL (reported as an error) or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn sa_topology_cpu_count(out: *mut usize) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let cpus = current_runtime()?.topology().cpu_count();
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", cpus) }
    })
}

/// Writes the topology (nodes with their CPUs, memory and distances) as JSON text to `*out`:
/// `{"nodes": [{"id": 0, "cpus": [0, 1], "memory_total": ..., "memory_free": ..., "distances": [10]}]}`.
///
/// Ownership: the caller owns `*out` and frees it with `sa_string_free`. Thread-safe.
///
/// # Safety
/// `out` must be NULL (reported as an error) or valid for writing a `char *`.
#[no_mangle]
pub unsafe extern "C" fn sa_topology_json(out: *mut *mut c_char) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let json = current_runtime()?.topology().to_json();
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_string(out, "out", json) }
    })
}
