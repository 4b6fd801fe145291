//! Tests of the C ABI called as C would call it: round trips against a plain `Vec<u64>` at edge
//! lengths, every width and every placement; every error path (NULLs, bad text, bad widths,
//! misfits, ranges, busy arrays) with its status and last-error text; chunk visiting; reductions;
//! topology and runtime; double arrays; Arrow export through the C structs.
//!
//! The `abi` module below is the only place that calls the `unsafe extern "C"` functions; each
//! wrapper documents why its call is sound, and the tests use the wrappers.

use std::ffi::{c_void, CStr, CString};

use proptest::prelude::*;
use smartarrays_ffi::SaStatus;

const LENGTHS: [usize; 8] = [0, 1, 63, 64, 65, 1023, 1025, 4099];
const PLACEMENTS: [&str; 5] = ["os", "node:0", "interleaved", "interleaved:0", "replicated"];

mod abi {
    //! Safe wrappers over the C functions for the tests.
    use super::*;
    use smartarrays_ffi::arrow::arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
    use smartarrays_ffi::arrow::arrow_array::ffi_stream::FFI_ArrowArrayStream;
    use smartarrays_ffi::*;
    use std::ffi::c_char;

    /// An owned array handle, freed on drop.
    pub struct Array(pub *mut SaArray);

    // SAFETY: `const SaArray *` calls may run on any thread concurrently (documented contract);
    // `set` takes `&mut self`, so exclusive calls stay exclusive.
    unsafe impl Send for Array {}
    // SAFETY: as above.
    unsafe impl Sync for Array {}

    impl Drop for Array {
        fn drop(&mut self) {
            // SAFETY: the handle came from the library and is freed exactly once.
            unsafe { sa_array_free(self.0) }
        }
    }

    pub fn text(placement: Option<&str>) -> Option<CString> {
        placement.map(|p| CString::new(p).unwrap())
    }

    fn text_ptr(text: &Option<CString>) -> *const c_char {
        text.as_ref().map_or(std::ptr::null(), |t| t.as_ptr())
    }

    pub fn from_u64(values: &[u64], placement: Option<&str>, bits: u32) -> Result<Array, SaStatus> {
        let placement = text(placement);
        let mut out = std::ptr::null_mut();
        // SAFETY: `values` is a live slice, the placement is NUL-terminated or NULL, `out` is a
        // local pointer slot.
        let status = unsafe {
            sa_array_from_u64(
                values.as_ptr(),
                values.len(),
                text_ptr(&placement),
                bits,
                &mut out,
            )
        };
        if status == SaStatus::Ok {
            assert!(!out.is_null());
            Ok(Array(out))
        } else {
            assert!(out.is_null(), "failure must not hand out an array");
            Err(status)
        }
    }

    pub fn from_u32(values: &[u32], placement: Option<&str>, bits: u32) -> Result<Array, SaStatus> {
        let placement = text(placement);
        let mut out = std::ptr::null_mut();
        // SAFETY: as in from_u64.
        let status = unsafe {
            sa_array_from_u32(
                values.as_ptr(),
                values.len(),
                text_ptr(&placement),
                bits,
                &mut out,
            )
        };
        if status == SaStatus::Ok {
            Ok(Array(out))
        } else {
            Err(status)
        }
    }

    pub fn zeros(len: usize, placement: Option<&str>, bits: u32) -> Result<Array, SaStatus> {
        let placement = text(placement);
        let mut out = std::ptr::null_mut();
        // SAFETY: placement NUL-terminated or NULL; `out` is a local slot.
        let status = unsafe { sa_array_new(len, text_ptr(&placement), bits, &mut out) };
        if status == SaStatus::Ok {
            Ok(Array(out))
        } else {
            Err(status)
        }
    }

    /// Calls a getter `f(handle, &mut out)` and returns the value.
    fn query<T: Default>(
        array: *const SaArray,
        f: unsafe extern "C" fn(*const SaArray, *mut T) -> SaStatus,
    ) -> Result<T, SaStatus> {
        let mut out = T::default();
        // SAFETY: the handle is live (or NULL, which the library reports) and `out` is a local.
        let status = unsafe { f(array, &mut out) };
        if status == SaStatus::Ok {
            Ok(out)
        } else {
            Err(status)
        }
    }

    impl Array {
        pub fn len(&self) -> usize {
            query(self.0, sa_array_len).unwrap()
        }
        pub fn bits(&self) -> u32 {
            query(self.0, sa_array_bits).unwrap()
        }
        pub fn replicas(&self) -> usize {
            query(self.0, sa_array_replica_count).unwrap()
        }
        pub fn memory_bytes(&self) -> usize {
            query(self.0, sa_array_memory_bytes).unwrap()
        }
        pub fn packed_bytes(&self) -> usize {
            query(self.0, sa_array_packed_bytes).unwrap()
        }
        pub fn sum(&self) -> Result<u64, SaStatus> {
            query(self.0, sa_array_sum)
        }
        pub fn min(&self) -> Result<u64, SaStatus> {
            query(self.0, sa_array_min)
        }
        pub fn max(&self) -> Result<u64, SaStatus> {
            query(self.0, sa_array_max)
        }
        pub fn get(&self, index: usize) -> Result<u64, SaStatus> {
            let mut out = 0;
            // SAFETY: live handle, local out slot.
            let status = unsafe { sa_array_get(self.0, index, &mut out) };
            if status == SaStatus::Ok {
                Ok(out)
            } else {
                Err(status)
            }
        }
        pub fn set(&mut self, index: usize, value: u64) -> SaStatus {
            // SAFETY: live handle used exclusively (`&mut self`).
            unsafe { sa_array_set(self.0, index, value) }
        }
        pub fn unpack(&self, start: usize, out: &mut [u64]) -> SaStatus {
            // SAFETY: live handle; `out` is a live mutable slice of `out.len()` values.
            unsafe { sa_array_unpack(self.0, start, out.as_mut_ptr(), out.len()) }
        }
        pub fn unpack_ahead(&self, start: usize, out: &mut [u64], ahead: usize) -> SaStatus {
            // SAFETY: live handle; `out` is a live mutable slice of `out.len()` values.
            unsafe { sa_array_unpack_ahead(self.0, start, out.as_mut_ptr(), out.len(), ahead) }
        }
        pub fn sum_range(&self, start: usize, end: usize) -> Result<u64, SaStatus> {
            let mut out = 0;
            // SAFETY: live handle, local out slot.
            let status = unsafe { sa_array_sum_range(self.0, start, end, &mut out) };
            if status == SaStatus::Ok {
                Ok(out)
            } else {
                Err(status)
            }
        }
        pub fn string(
            &self,
            f: unsafe extern "C" fn(*const SaArray, *mut *mut c_char) -> SaStatus,
        ) -> Result<String, SaStatus> {
            let mut out = std::ptr::null_mut();
            // SAFETY: live handle, local out slot.
            let status = unsafe { f(self.0, &mut out) };
            if status != SaStatus::Ok {
                return Err(status);
            }
            // SAFETY: the library returned a NUL-terminated string that we own and free once.
            let text = unsafe { CStr::from_ptr(out) }.to_str().unwrap().to_string();
            // SAFETY: as above.
            unsafe { sa_string_free(out) };
            Ok(text)
        }
        pub fn placement(&self) -> String {
            self.string(sa_array_placement).unwrap()
        }
        pub fn raw_values(&self) -> Result<&[u64], SaStatus> {
            let mut out = std::ptr::null();
            // SAFETY: live handle, local out slot.
            let status = unsafe { sa_array_raw_values(self.0, &mut out) };
            if status != SaStatus::Ok {
                return Err(status);
            }
            // SAFETY: the library documents `len` readable values that live as long as the array
            // (borrowed from `self` here) and are not written while `&self` is held.
            Ok(unsafe { std::slice::from_raw_parts(out, self.len()) })
        }
        /// Visits `start..end`, collecting `(first, values)` per chunk; stops after `stop_after` chunks.
        pub fn chunks(
            &self,
            start: usize,
            end: usize,
            stop_after: Option<usize>,
        ) -> (SaStatus, Vec<(usize, Vec<u64>)>) {
            struct Seen {
                chunks: Vec<(usize, Vec<u64>)>,
                stop_after: Option<usize>,
            }
            unsafe extern "C" fn visit(
                user: *mut c_void,
                first: usize,
                values: *const u64,
                count: usize,
            ) -> i32 {
                // SAFETY: `user` is the `Seen` passed below, used only by this call.
                let seen = unsafe { &mut *user.cast::<Seen>() };
                // SAFETY: the library passes `count` readable values.
                let values = unsafe { std::slice::from_raw_parts(values, count) };
                seen.chunks.push((first, values.to_vec()));
                i32::from(seen.stop_after.is_some_and(|n| seen.chunks.len() >= n))
            }
            let mut seen = Seen {
                chunks: Vec::new(),
                stop_after,
            };
            // SAFETY: live handle; `visit` matches the visitor type and `seen` outlives the call.
            let status = unsafe {
                sa_array_for_each_chunk(self.0, start, end, Some(visit), (&raw mut seen).cast())
            };
            (status, seen.chunks)
        }
        pub fn export(&self) -> Result<(FFI_ArrowArray, FFI_ArrowSchema), SaStatus> {
            let mut array = FFI_ArrowArray::empty();
            let mut schema = FFI_ArrowSchema::empty();
            // SAFETY: live handle; the out structs are local and empty (nothing to leak).
            let status = unsafe { sa_array_export_arrow(self.0, &mut array, &mut schema) };
            if status == SaStatus::Ok {
                Ok((array, schema))
            } else {
                Err(status)
            }
        }
        pub fn export_stream(&self, chunk: usize) -> Result<FFI_ArrowArrayStream, SaStatus> {
            let mut stream = FFI_ArrowArrayStream::empty();
            // SAFETY: live handle; the out struct is local and empty.
            let status = unsafe { sa_array_export_arrow_stream(self.0, chunk, &mut stream) };
            if status == SaStatus::Ok {
                Ok(stream)
            } else {
                Err(status)
            }
        }
    }

    /// An owned double array.
    pub struct F64(pub *mut SaF64Array);

    impl Drop for F64 {
        fn drop(&mut self) {
            // SAFETY: freed exactly once.
            unsafe { sa_f64_array_free(self.0) }
        }
    }

    pub fn f64_from(values: &[f64], placement: Option<&str>) -> Result<F64, SaStatus> {
        let placement = text(placement);
        let mut out = std::ptr::null_mut();
        // SAFETY: live slice, NUL-terminated or NULL placement, local out slot.
        let status = unsafe {
            sa_f64_array_from_f64(
                values.as_ptr(),
                values.len(),
                text_ptr(&placement),
                &mut out,
            )
        };
        if status == SaStatus::Ok {
            Ok(F64(out))
        } else {
            Err(status)
        }
    }

    pub fn f64_zeros(len: usize) -> F64 {
        let mut out = std::ptr::null_mut();
        // SAFETY: NULL placement is allowed; local out slot.
        let status = unsafe { sa_f64_array_new(len, std::ptr::null(), &mut out) };
        assert_eq!(status, SaStatus::Ok);
        F64(out)
    }

    impl F64 {
        pub fn len(&self) -> usize {
            let mut out = 0;
            // SAFETY: live handle, local out slot.
            assert_eq!(unsafe { sa_f64_array_len(self.0, &mut out) }, SaStatus::Ok);
            out
        }
        pub fn get(&self, index: usize) -> Result<f64, SaStatus> {
            let mut out = 0.0;
            // SAFETY: live handle, local out slot.
            let status = unsafe { sa_f64_array_get(self.0, index, &mut out) };
            if status == SaStatus::Ok {
                Ok(out)
            } else {
                Err(status)
            }
        }
        pub fn set(&mut self, index: usize, value: f64) -> SaStatus {
            // SAFETY: exclusive use through `&mut self`.
            unsafe { sa_f64_array_set(self.0, index, value) }
        }
        pub fn unpack(&self, start: usize, out: &mut [f64]) -> SaStatus {
            // SAFETY: live handle and live mutable slice.
            unsafe { sa_f64_array_unpack(self.0, start, out.as_mut_ptr(), out.len()) }
        }
        pub fn sum(&self) -> f64 {
            let mut out = 0.0;
            // SAFETY: live handle, local out slot.
            assert_eq!(unsafe { sa_f64_array_sum(self.0, &mut out) }, SaStatus::Ok);
            out
        }
        pub fn raw(&self) -> &[f64] {
            let mut out = std::ptr::null();
            // SAFETY: live handle, local out slot.
            let status = unsafe { sa_f64_array_raw_values(self.0, &mut out) };
            assert_eq!(status, SaStatus::Ok);
            // SAFETY: `len` values valid while the array lives and is not set (borrowed from self).
            unsafe { std::slice::from_raw_parts(out, self.len()) }
        }
        pub fn export(&self) -> (FFI_ArrowArray, FFI_ArrowSchema) {
            let mut array = FFI_ArrowArray::empty();
            let mut schema = FFI_ArrowSchema::empty();
            // SAFETY: live handle, local empty out structs.
            let status = unsafe { sa_f64_array_export_arrow(self.0, &mut array, &mut schema) };
            assert_eq!(status, SaStatus::Ok);
            (array, schema)
        }
    }

    pub fn last_error() -> String {
        // SAFETY: the library returns a valid NUL-terminated string, valid until the next failure.
        unsafe { CStr::from_ptr(sa_last_error_message()) }
            .to_str()
            .unwrap()
            .to_string()
    }

    pub fn status_name(status: i32) -> String {
        // SAFETY: the library returns static NUL-terminated text.
        unsafe { CStr::from_ptr(sa_status_name(status)) }
            .to_str()
            .unwrap()
            .to_string()
    }

    pub fn version() -> String {
        // SAFETY: static NUL-terminated text.
        unsafe { CStr::from_ptr(sa_version()) }
            .to_str()
            .unwrap()
            .to_string()
    }

    pub fn topology_json() -> String {
        let mut out = std::ptr::null_mut();
        // SAFETY: local out slot.
        assert_eq!(unsafe { sa_topology_json(&mut out) }, SaStatus::Ok);
        // SAFETY: owned NUL-terminated string, freed once below.
        let text = unsafe { CStr::from_ptr(out) }.to_str().unwrap().to_string();
        // SAFETY: as above.
        unsafe { sa_string_free(out) };
        text
    }

    pub fn size_query(f: unsafe extern "C" fn(*mut usize) -> SaStatus) -> usize {
        let mut out = 0;
        // SAFETY: local out slot.
        assert_eq!(unsafe { f(&mut out) }, SaStatus::Ok);
        out
    }

    /// Every NULL-argument case of the array functions, as (description, status).
    pub fn null_cases(array: &Array) -> Vec<(&'static str, SaStatus)> {
        let live = array.0.cast_const();
        let null = std::ptr::null::<SaArray>();
        let mut u = 0u64;
        let mut z = 0usize;
        let mut b = 0u32;
        let mut s = std::ptr::null_mut();
        let mut p = std::ptr::null();
        let mut a = std::ptr::null_mut();
        let values = [1u64, 2];
        let mut buffer = [0u64; 2];
        let mut ffi_array = FFI_ArrowArray::empty();
        let mut ffi_schema = FFI_ArrowSchema::empty();
        let mut ffi_stream = FFI_ArrowArrayStream::empty();
        // SAFETY: every pointer is either NULL (the case under test, which the library must
        // report) or valid for the access the function makes.
        unsafe {
            vec![
                (
                    "new out",
                    sa_array_new(1, std::ptr::null(), 0, std::ptr::null_mut()),
                ),
                (
                    "from_u64 values",
                    sa_array_from_u64(std::ptr::null(), 2, std::ptr::null(), 0, &mut a),
                ),
                (
                    "from_u64 out",
                    sa_array_from_u64(
                        values.as_ptr(),
                        2,
                        std::ptr::null(),
                        0,
                        std::ptr::null_mut(),
                    ),
                ),
                (
                    "from_u32 values",
                    sa_array_from_u32(std::ptr::null(), 2, std::ptr::null(), 0, &mut a),
                ),
                ("len array", sa_array_len(null, &mut z)),
                ("len out", sa_array_len(live, std::ptr::null_mut())),
                ("bits array", sa_array_bits(null, &mut b)),
                ("bits out", sa_array_bits(live, std::ptr::null_mut())),
                ("replicas", sa_array_replica_count(null, &mut z)),
                ("memory", sa_array_memory_bytes(null, &mut z)),
                ("packed", sa_array_packed_bytes(null, &mut z)),
                ("placement array", sa_array_placement(null, &mut s)),
                (
                    "placement out",
                    sa_array_placement(live, std::ptr::null_mut()),
                ),
                ("get array", sa_array_get(null, 0, &mut u)),
                ("get out", sa_array_get(live, 0, std::ptr::null_mut())),
                ("set array", sa_array_set(std::ptr::null_mut(), 0, 1)),
                (
                    "unpack array",
                    sa_array_unpack(null, 0, buffer.as_mut_ptr(), 2),
                ),
                (
                    "unpack out",
                    sa_array_unpack(live, 0, std::ptr::null_mut(), 2),
                ),
                (
                    "unpack_ahead array",
                    sa_array_unpack_ahead(null, 0, buffer.as_mut_ptr(), 2, 2),
                ),
                (
                    "unpack_ahead out",
                    sa_array_unpack_ahead(live, 0, std::ptr::null_mut(), 2, 2),
                ),
                (
                    "chunks array",
                    sa_array_for_each_chunk(null, 0, 0, None, std::ptr::null_mut()),
                ),
                (
                    "chunks visitor",
                    sa_array_for_each_chunk(live, 0, 1, None, std::ptr::null_mut()),
                ),
                ("sum array", sa_array_sum(null, &mut u)),
                ("sum out", sa_array_sum(live, std::ptr::null_mut())),
                ("sum_range array", sa_array_sum_range(null, 0, 0, &mut u)),
                (
                    "sum_range out",
                    sa_array_sum_range(live, 0, 0, std::ptr::null_mut()),
                ),
                ("min", sa_array_min(null, &mut u)),
                ("min out", sa_array_min(live, std::ptr::null_mut())),
                ("max", sa_array_max(null, &mut u)),
                ("report json", sa_array_placement_report_json(null, &mut s)),
                (
                    "report json out",
                    sa_array_placement_report_json(live, std::ptr::null_mut()),
                ),
                ("report text", sa_array_placement_report_text(null, &mut s)),
                ("raw", sa_array_raw_values(null, &mut p)),
                ("raw out", sa_array_raw_values(live, std::ptr::null_mut())),
                (
                    "export array",
                    sa_array_export_arrow(null, &mut ffi_array, &mut ffi_schema),
                ),
                (
                    "export out_array",
                    sa_array_export_arrow(live, std::ptr::null_mut(), &mut ffi_schema),
                ),
                (
                    "export out_schema",
                    sa_array_export_arrow(live, &mut ffi_array, std::ptr::null_mut()),
                ),
                (
                    "stream array",
                    sa_array_export_arrow_stream(null, 0, &mut ffi_stream),
                ),
                (
                    "stream out",
                    sa_array_export_arrow_stream(live, 0, std::ptr::null_mut()),
                ),
                (
                    "f64 new out",
                    sa_f64_array_new(1, std::ptr::null(), std::ptr::null_mut()),
                ),
                (
                    "f64 from values",
                    sa_f64_array_from_f64(
                        std::ptr::null(),
                        1,
                        std::ptr::null(),
                        &mut std::ptr::null_mut(),
                    ),
                ),
                ("f64 len", sa_f64_array_len(std::ptr::null(), &mut z)),
                ("f64 get", sa_f64_array_get(std::ptr::null(), 0, &mut 0.0)),
                ("f64 set", sa_f64_array_set(std::ptr::null_mut(), 0, 0.0)),
                ("f64 sum", sa_f64_array_sum(std::ptr::null(), &mut 0.0)),
                (
                    "f64 raw",
                    sa_f64_array_raw_values(std::ptr::null(), &mut std::ptr::null()),
                ),
                (
                    "f64 export",
                    sa_f64_array_export_arrow(std::ptr::null(), &mut ffi_array, &mut ffi_schema),
                ),
                ("runtime threads", sa_runtime_threads(std::ptr::null_mut())),
                (
                    "topology nodes",
                    sa_topology_node_count(std::ptr::null_mut()),
                ),
                ("topology cpus", sa_topology_cpu_count(std::ptr::null_mut())),
                ("topology json", sa_topology_json(std::ptr::null_mut())),
            ]
        }
    }

    /// Frees NULL handles and strings (must be no-ops).
    pub fn free_nulls() {
        // SAFETY: NULL is documented as ignored.
        unsafe {
            sa_array_free(std::ptr::null_mut());
            sa_f64_array_free(std::ptr::null_mut());
            sa_string_free(std::ptr::null_mut());
        }
    }

    /// Creates an array with a placement given as raw bytes (to pass text that is not UTF-8).
    pub fn from_u64_raw_placement(values: &[u64], placement: &CStr) -> SaStatus {
        let mut out = std::ptr::null_mut();
        // SAFETY: live slice, NUL-terminated text, local out slot; a created array is freed.
        unsafe {
            let status = sa_array_from_u64(
                values.as_ptr(),
                values.len(),
                placement.as_ptr(),
                0,
                &mut out,
            );
            sa_array_free(out);
            status
        }
    }

    pub fn set_threads(threads: usize) -> SaStatus {
        sa_runtime_set_threads(threads)
    }

    pub fn clear_last_error() {
        sa_clear_last_error();
    }
}

use abi::*;
use smartarrays_ffi::arrow::arrow_array::ffi::from_ffi;
use smartarrays_ffi::arrow::arrow_array::ffi_stream::ArrayStreamReader;
use smartarrays_ffi::arrow::arrow_array::{Array as _, Float64Array, UInt64Array};

fn max_of(bits: u32) -> u64 {
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Values of `len` that use the whole width: a mix of patterns, the maximum, zero.
fn values_for(len: usize, bits: u32) -> Vec<u64> {
    let max = max_of(bits);
    (0..len)
        .map(|i| match i % 5 {
            0 => max,
            1 => 0,
            2 => (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) & max,
            3 => max >> (i % 7),
            _ => (i as u64) & max,
        })
        .collect()
}

fn check_against(array: &Array, expected: &[u64], bits: u32, placement: &str) {
    let context = format!("len {} bits {bits} placement {placement}", expected.len());
    assert_eq!(array.len(), expected.len(), "{context}");
    assert_eq!(array.bits(), bits, "{context}");
    for (i, &v) in expected.iter().enumerate() {
        assert_eq!(array.get(i), Ok(v), "{context} index {i}");
    }
    assert_eq!(
        array.get(expected.len()),
        Err(SaStatus::IndexOutOfRange),
        "{context}"
    );
    let mut all = vec![0u64; expected.len()];
    assert_eq!(array.unpack(0, &mut all), SaStatus::Ok);
    assert_eq!(all, expected, "{context}");
    if expected.len() > 3 {
        let mut middle = vec![0u64; expected.len() - 3];
        assert_eq!(array.unpack(2, &mut middle), SaStatus::Ok);
        assert_eq!(middle, &expected[2..expected.len() - 1], "{context}");
    }
    let sum = expected.iter().fold(0u64, |a, &b| a.wrapping_add(b));
    assert_eq!(array.sum(), Ok(sum), "{context}");
    assert_eq!(array.sum_range(0, expected.len()), Ok(sum), "{context}");
    let half = expected.len() / 2;
    assert_eq!(
        array.sum_range(1.min(half), half),
        Ok(expected[1.min(half)..half]
            .iter()
            .fold(0u64, |a, &b| a.wrapping_add(b)))
    );
    match (expected.iter().min(), expected.iter().max()) {
        (Some(&min), Some(&max)) => {
            assert_eq!(array.min(), Ok(min), "{context}");
            assert_eq!(array.max(), Ok(max), "{context}");
        }
        _ => {
            assert_eq!(array.min(), Err(SaStatus::EmptyArray));
            assert_eq!(array.max(), Err(SaStatus::EmptyArray));
        }
    }
    let (status, chunks) = array.chunks(0, expected.len(), None);
    assert_eq!(status, SaStatus::Ok);
    let mut next = 0;
    for (first, values) in &chunks {
        assert_eq!(*first, next);
        assert!(!values.is_empty() && values.len() <= 1024);
        next += values.len();
    }
    assert_eq!(
        chunks.into_iter().flat_map(|(_, v)| v).collect::<Vec<_>>(),
        expected,
        "{context}"
    );
}

#[test]
fn every_width_round_trips_at_edge_lengths() {
    for bits in 1..=64 {
        for len in LENGTHS {
            let values = values_for(len, bits);
            let array = from_u64(&values, Some("os"), bits).unwrap();
            check_against(&array, &values, bits, "os");
        }
    }
}

/// `sa_array_unpack_ahead` decodes exactly what `sa_array_unpack` does, chunk by chunk, at every
/// width and edge length, whatever the prefetch distance; bad ranges write nothing.
#[test]
fn unpack_ahead_walks_match_the_reference() {
    for bits in 1..=64 {
        for len in LENGTHS.into_iter().chain([1023, 1024, 1025, 2049]) {
            let values = values_for(len, bits);
            let array = from_u64(&values, Some("os"), bits).unwrap();
            for (chunk, ahead) in [
                (1usize, 0usize),
                (7, 7),
                (1024, 2048),
                (1000, usize::MAX),
                (4096, 1),
            ] {
                let mut walked = Vec::with_capacity(len);
                let mut buffer = vec![0u64; chunk];
                let mut start = 0;
                while start < len {
                    let count = chunk.min(len - start);
                    assert_eq!(
                        array.unpack_ahead(start, &mut buffer[..count], ahead),
                        SaStatus::Ok,
                        "bits {bits} len {len} start {start}"
                    );
                    walked.extend_from_slice(&buffer[..count]);
                    start += count;
                }
                assert_eq!(
                    walked, values,
                    "bits {bits} len {len} chunk {chunk} ahead {ahead}"
                );
            }
            let mut sentinel = vec![7u64; 2];
            assert_eq!(
                array.unpack_ahead(len, &mut sentinel[..0], 5),
                SaStatus::Ok,
                "an empty range at the end is fine"
            );
            assert_eq!(
                array.unpack_ahead(len.saturating_sub(1), &mut sentinel, 5),
                SaStatus::RangeOutOfBounds
            );
            assert_eq!(
                array.unpack_ahead(usize::MAX, &mut sentinel[..1], usize::MAX),
                SaStatus::RangeOutOfBounds
            );
            assert_eq!(sentinel, [7, 7], "a refused range writes nothing");
            assert!(last_error().contains("out of bounds"), "{}", last_error());
        }
    }
}

#[test]
fn every_placement_round_trips() {
    for placement in PLACEMENTS {
        for bits in [1, 7, 32, 33, 63, 64] {
            for len in LENGTHS {
                let values = values_for(len, bits);
                let array = from_u64(&values, Some(placement), bits).unwrap();
                check_against(&array, &values, bits, placement);
                assert_eq!(array.placement(), placement);
                assert!(array.replicas() >= 1);
                assert_eq!(array.packed_bytes(), (len * bits as usize).div_ceil(8));
                assert!(array.memory_bytes() >= array.packed_bytes());
            }
        }
    }
}

#[test]
fn automatic_width_is_the_fewest_bits() {
    for (values, bits) in [
        (vec![], 1),
        (vec![0], 1),
        (vec![1], 1),
        (vec![2], 2),
        (vec![999, 3], 10),
        (vec![u64::MAX], 64),
        (vec![1 << 32], 33),
    ] {
        let array = from_u64(&values, None, 0).unwrap();
        assert_eq!(array.bits(), bits, "{values:?}");
        check_against(&array, &values, bits, "os");
        assert_eq!(array.placement(), "os");
    }
}

#[test]
fn u32_buffers_and_zeroed_arrays() {
    let values: Vec<u32> = (0..1025).map(|i| i * 4_000_000).collect();
    let array = from_u32(&values, Some("interleaved"), 0).unwrap();
    let wide: Vec<u64> = values.iter().map(|&v| u64::from(v)).collect();
    check_against(&array, &wide, 32, "interleaved");
    assert_eq!(from_u32(&[8], None, 3).err(), Some(SaStatus::ValueTooWide));
    assert_eq!(from_u32(&[], None, 0).unwrap().len(), 0);

    let zeros = zeros(65, Some("replicated"), 0).unwrap();
    check_against(&zeros, &[0; 65], 1, "replicated");
    let zeros = abi::zeros(100, None, 17).unwrap();
    check_against(&zeros, &[0; 100], 17, "os");
    assert_eq!(
        abi::zeros(1, None, 65).err(),
        Some(SaStatus::InvalidBitWidth)
    );
}

#[test]
fn set_writes_every_copy_and_refuses_misfits() {
    for placement in PLACEMENTS {
        let mut expected = values_for(130, 9);
        let mut array = from_u64(&expected, Some(placement), 9).unwrap();
        for (index, value) in [(0, 511), (64, 1), (129, 0), (65, 300)] {
            assert_eq!(array.set(index, value), SaStatus::Ok);
            expected[index] = value;
        }
        check_against(&array, &expected, 9, placement);
        assert_eq!(array.set(3, 512), SaStatus::ValueTooWide);
        assert_eq!(
            last_error(),
            "value 512 at index 3 does not fit in 9 bits (largest allowed is 511)"
        );
        assert_eq!(array.set(130, 1), SaStatus::IndexOutOfRange);
        assert_eq!(
            last_error(),
            "index 130 is out of range for an array of length 130"
        );
        check_against(&array, &expected, 9, placement);
    }
}

#[test]
fn os_placement_larger_than_memory_is_refused() {
    // 8 TiB: more than the machine has; it used to be mapped and filled until the OOM killer
    // ended the process. Every placement, "os" (the C default) included, now refuses up front.
    for placement in [
        None,
        Some("os"),
        Some("node:0"),
        Some("interleaved"),
        Some("replicated"),
    ] {
        assert_eq!(
            zeros(1 << 40, placement, 64).err(),
            Some(SaStatus::OutOfMemory),
            "{placement:?}"
        );
        let message = last_error();
        assert!(message.contains("not enough memory"), "{message}");
        // 8 TiB of values (and the padding), or its share per node when interleaved.
        assert!(message.contains(" bytes requested"), "{message}");
    }
}

#[test]
fn errors_have_typed_statuses_and_clear_messages() {
    clear_last_error();
    assert_eq!(last_error(), "");
    assert_eq!(
        from_u64(&[1, 2, 300, 5000], None, 8).err(),
        Some(SaStatus::ValueTooWide)
    );
    assert_eq!(
        last_error(),
        "value 300 at index 2 does not fit in 8 bits (largest allowed is 255)"
    );
    assert_eq!(
        from_u64(&[1], None, 65).err(),
        Some(SaStatus::InvalidBitWidth)
    );
    assert_eq!(
        last_error(),
        "bit width 65 is invalid: it must be between 1 and 64"
    );
    assert_eq!(
        from_u64(&[1], Some("mirrored"), 0).err(),
        Some(SaStatus::InvalidPlacement)
    );
    assert!(last_error().contains("\"mirrored\""), "{}", last_error());
    assert_eq!(
        from_u64(&[1], Some("node:4096"), 0).err(),
        Some(SaStatus::UnknownNode)
    );
    assert!(
        last_error().starts_with("NUMA node 4096 does not exist"),
        "{}",
        last_error()
    );
    assert_eq!(
        from_u64_raw_placement(&[1], c"\xff\xfe"),
        SaStatus::InvalidArgument
    );
    assert!(
        last_error().contains("`placement` is not UTF-8"),
        "{}",
        last_error()
    );

    let array = from_u64(&[5, 6, 7], None, 0).unwrap();
    let mut out = [0u64; 2];
    assert_eq!(array.unpack(2, &mut out), SaStatus::RangeOutOfBounds);
    assert_eq!(
        last_error(),
        "range 2..4 is out of bounds for an array of length 3"
    );
    assert_eq!(
        array.unpack(usize::MAX, &mut out),
        SaStatus::RangeOutOfBounds
    );
    assert_eq!(array.unpack(3, &mut []), SaStatus::Ok);
    assert_eq!(array.sum_range(2, 1), Err(SaStatus::RangeOutOfBounds));
    assert_eq!(array.sum_range(0, 4), Err(SaStatus::RangeOutOfBounds));
    assert_eq!(array.chunks(1, 4, None).0, SaStatus::RangeOutOfBounds);
    assert_eq!(array.raw_values().err(), Some(SaStatus::NotUncompressed));
    assert_eq!(
        last_error(),
        "the array stores 3 bits per value; only 64-bit arrays expose their values in place"
    );
    let empty = from_u64(&[], None, 0).unwrap();
    assert_eq!(empty.min(), Err(SaStatus::EmptyArray));
    assert!(last_error().contains("empty"));
    assert_eq!(set_threads(0), SaStatus::Ok);
}

#[test]
fn null_pointers_are_reported_not_dereferenced() {
    let array = from_u64(&[1, 2, 3], None, 64).unwrap();
    for (case, status) in null_cases(&array) {
        assert_eq!(status, SaStatus::NullPointer, "{case}");
        assert!(last_error().contains("is NULL"), "{case}: {}", last_error());
    }
    free_nulls();
    // NULL is fine for empty buffers.
    assert_eq!(array.unpack(0, &mut []), SaStatus::Ok);
    assert_eq!(from_u64(&[], None, 0).unwrap().len(), 0);
}

#[test]
fn last_errors_are_per_thread() {
    assert_eq!(from_u64(&[9], None, 2).err(), Some(SaStatus::ValueTooWide));
    let mine = last_error();
    std::thread::spawn(|| {
        assert_eq!(last_error(), "");
        assert_eq!(
            from_u64(&[1], None, 70).err(),
            Some(SaStatus::InvalidBitWidth)
        );
        assert!(last_error().contains("70"));
    })
    .join()
    .unwrap();
    assert_eq!(last_error(), mine);
}

#[test]
fn chunk_visitors_can_stop_early() {
    let values = values_for(5000, 20);
    let array = from_u64(&values, None, 20).unwrap();
    let (status, chunks) = array.chunks(0, 5000, Some(2));
    assert_eq!(status, SaStatus::Stopped);
    assert_eq!(chunks.len(), 2);
    assert_eq!(chunks[1].0, 1024);
    assert_eq!(chunks[1].1, &values[1024..2048]);
    let (status, chunks) = array.chunks(10, 2000, None);
    assert_eq!(status, SaStatus::Ok);
    assert_eq!(
        chunks.iter().map(|(f, _)| *f).collect::<Vec<_>>(),
        vec![10, 1034]
    );
    assert_eq!(
        chunks.into_iter().flat_map(|(_, v)| v).collect::<Vec<_>>(),
        &values[10..2000]
    );
    assert_eq!(array.chunks(7, 7, None), (SaStatus::Ok, vec![]));
}

#[test]
fn raw_values_of_64_bit_arrays_are_in_place() {
    let values = values_for(1025, 64);
    let array = from_u64(&values, Some("replicated"), 64).unwrap();
    assert_eq!(array.raw_values().unwrap(), values.as_slice());
}

#[test]
fn reads_run_concurrently_from_many_threads() {
    let values = values_for(200_000, 37);
    let array = from_u64(&values, Some("interleaved"), 37).unwrap();
    let sum = values.iter().fold(0u64, |a, &b| a.wrapping_add(b));
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (array, values) = (&array, &values);
            scope.spawn(move || {
                for i in (t..values.len()).step_by(997) {
                    assert_eq!(array.get(i), Ok(values[i]));
                }
                assert_eq!(array.sum(), Ok(sum));
                assert_eq!(
                    array.max(),
                    values.iter().max().copied().ok_or(SaStatus::EmptyArray)
                );
            });
        }
    });
}

#[test]
fn topology_runtime_version_and_status_names() {
    let json: serde_json::Value = serde_json::from_str(&topology_json()).unwrap();
    let nodes = json["nodes"].as_array().unwrap();
    assert_eq!(
        nodes.len(),
        size_query(smartarrays_ffi::sa_topology_node_count)
    );
    let cpus: usize = nodes
        .iter()
        .map(|n| n["cpus"].as_array().unwrap().len())
        .sum();
    assert_eq!(cpus, size_query(smartarrays_ffi::sa_topology_cpu_count));
    assert!(size_query(smartarrays_ffi::sa_runtime_threads) >= 1);
    assert_eq!(version(), env!("CARGO_PKG_VERSION"));
    assert_eq!(status_name(0), "SA_STATUS_OK");
    assert_eq!(status_name(5), "SA_STATUS_VALUE_TOO_WIDE");
    assert_eq!(status_name(19), "SA_STATUS_PANIC");
    assert_eq!(status_name(-1), "SA_STATUS_UNKNOWN");
    assert_eq!(status_name(1000), "SA_STATUS_UNKNOWN");
}

#[test]
fn the_runtime_thread_count_applies_to_new_arrays() {
    assert_eq!(set_threads(3), SaStatus::Ok);
    assert_eq!(size_query(smartarrays_ffi::sa_runtime_threads), 3);
    let values = values_for(300_000, 40);
    let array = from_u64(&values, Some("os"), 40).unwrap();
    assert_eq!(
        array.sum(),
        Ok(values.iter().fold(0u64, |a, &b| a.wrapping_add(b)))
    );
    assert_eq!(set_threads(0), SaStatus::Ok);
    assert!(size_query(smartarrays_ffi::sa_runtime_threads) >= 1);
    // The array keeps working after its runtime is no longer the current one.
    assert_eq!(array.max(), Ok(*values.iter().max().unwrap()));
}

#[test]
fn placement_reports_are_json_and_text() {
    let array = from_u64(&values_for(100_000, 64), Some("replicated"), 64).unwrap();
    let report: serde_json::Value = serde_json::from_str(
        &array
            .string(smartarrays_ffi::sa_array_placement_report_json)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(report["placement"], "replicated");
    let regions = report["replicas"].as_array().unwrap();
    assert_eq!(regions.len(), array.replicas());
    let resident: u64 = regions[0]["pages_by_node"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert!(
        resident + regions[0]["pages_not_present"].as_u64().unwrap()
            == regions[0]["pages"].as_u64().unwrap()
    );
    let text = array
        .string(smartarrays_ffi::sa_array_placement_report_text)
        .unwrap();
    assert!(text.starts_with("placement replicated"), "{text}");
}

#[test]
fn double_arrays_round_trip() {
    for len in LENGTHS {
        let values: Vec<f64> = (0..len).map(|i| i as f64 * 0.25 - 3.0).collect();
        let mut array = f64_from(&values, Some("interleaved")).unwrap();
        assert_eq!(array.len(), len);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(array.get(i), Ok(v));
        }
        assert_eq!(array.get(len), Err(SaStatus::IndexOutOfRange));
        assert_eq!(array.raw(), values.as_slice());
        let mut out = vec![0.0; len];
        assert_eq!(array.unpack(0, &mut out), SaStatus::Ok);
        assert_eq!(out, values);
        assert_eq!(array.unpack(1, &mut out), SaStatus::RangeOutOfBounds);
        assert!((array.sum() - values.iter().sum::<f64>()).abs() < 1e-6);
        if len > 0 {
            assert_eq!(array.set(len - 1, f64::NAN), SaStatus::Ok);
            assert!(array.get(len - 1).unwrap().is_nan());
        }
    }
    assert_eq!(
        f64_from(&[1.0], Some("node:77")).err(),
        Some(SaStatus::UnknownNode)
    );
    let zeros = f64_zeros(10);
    assert_eq!(zeros.raw(), &[0.0; 10]);
}

#[test]
fn arrow_export_is_zero_copy_for_64_bit_arrays() {
    let values = values_for(1025, 64);
    let mut array = from_u64(&values, Some("interleaved"), 64).unwrap();
    let raw = array.raw_values().unwrap().as_ptr();
    let (ffi_array, ffi_schema) = array.export().unwrap();
    // SAFETY: the structs were just produced by the library and are consumed once.
    let data = unsafe { from_ffi(ffi_array, &ffi_schema) }.unwrap();
    let imported = UInt64Array::from(data);
    assert_eq!(imported.values().as_ref(), values.as_slice());
    assert_eq!(
        imported.values().as_ptr(),
        raw,
        "the export shares the array's memory"
    );
    assert_eq!(imported.null_count(), 0);
    assert_eq!(
        array.set(0, 1),
        SaStatus::Busy,
        "a live export blocks writes"
    );
    assert!(last_error().contains("Arrow export"), "{}", last_error());
    // Freeing the handle first keeps the exported memory alive.
    drop(array);
    assert_eq!(imported.values().as_ref(), values.as_slice());
    drop(imported);

    let mut array = from_u64(&values, None, 64).unwrap();
    let export = array.export().unwrap();
    drop(export);
    assert_eq!(
        array.set(0, 1),
        SaStatus::Ok,
        "released exports no longer block writes"
    );
}

#[test]
fn arrow_export_decodes_compressed_arrays() {
    for bits in [1, 13, 33, 63] {
        for len in LENGTHS {
            let values = values_for(len, bits);
            let mut array = from_u64(&values, Some("replicated"), bits).unwrap();
            let (ffi_array, ffi_schema) = array.export().unwrap();
            // SAFETY: produced by the library, consumed once.
            let imported = UInt64Array::from(unsafe { from_ffi(ffi_array, &ffi_schema) }.unwrap());
            assert_eq!(imported.values().as_ref(), values.as_slice());
            assert_eq!(
                array.set(0, 0).clone(),
                if len == 0 {
                    SaStatus::IndexOutOfRange
                } else {
                    SaStatus::Ok
                },
                "a decoded copy does not block writes"
            );
            assert_eq!(
                imported.values().first().copied(),
                values.first().copied(),
                "the copy is independent"
            );
        }
    }
}

#[test]
fn arrow_streams_deliver_chunks() {
    for bits in [5, 64] {
        let values = values_for(10_000, bits);
        let array = from_u64(&values, None, bits).unwrap();
        let stream = array.export_stream(4096).unwrap();
        drop(array); // the stream keeps the data alive
        let reader = ArrayStreamReader::try_new(stream).unwrap();
        let chunks: Vec<UInt64Array> = reader
            .map(|c| UInt64Array::from(c.unwrap().into_data()))
            .collect();
        assert_eq!(
            chunks.iter().map(|c| c.len()).collect::<Vec<_>>(),
            vec![4096, 4096, 1808]
        );
        assert_eq!(
            chunks
                .iter()
                .flat_map(|c| c.values().iter().copied())
                .collect::<Vec<_>>(),
            values
        );
    }
    let empty = from_u64(&[], None, 0).unwrap();
    assert_eq!(
        ArrayStreamReader::try_new(empty.export_stream(0).unwrap())
            .unwrap()
            .count(),
        0
    );
    let small = from_u64(&[1, 2, 3], None, 0).unwrap();
    assert_eq!(
        ArrayStreamReader::try_new(small.export_stream(0).unwrap())
            .unwrap()
            .count(),
        1,
        "0 means the default chunk size"
    );
}

#[test]
fn double_arrays_export_to_arrow_without_copying() {
    let values: Vec<f64> = (0..100).map(|i| i as f64 / 3.0).collect();
    let array = f64_from(&values, None).unwrap();
    let (ffi_array, ffi_schema) = array.export();
    // SAFETY: produced by the library, consumed once.
    let imported = Float64Array::from(unsafe { from_ffi(ffi_array, &ffi_schema) }.unwrap());
    assert_eq!(imported.values().as_ref(), values.as_slice());
    assert_eq!(imported.values().as_ptr(), array.raw().as_ptr());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_arrays_match_the_reference(bits in 1u32..=64, seed in any::<u64>(), len in prop::sample::select(vec![0usize, 1, 2, 63, 64, 65, 127, 1023, 1025, 3000])) {
        let max = max_of(bits);
        let values: Vec<u64> = (0..len as u64).map(|i| (seed ^ i.wrapping_mul(0x2545_F491_4F6C_DD1D)).rotate_left((i % 64) as u32) & max).collect();
        let array = from_u64(&values, Some("interleaved"), bits).unwrap();
        check_against(&array, &values, bits, "interleaved");
    }
}
