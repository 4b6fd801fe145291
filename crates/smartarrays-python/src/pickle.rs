//! Packed pickling of smart arrays: what `SmartArray.__reduce_ex__` returns and how the receiver
//! rebuilds the array. The packed words leave the process as they are in memory (a read-only
//! buffer over the array's own storage, [`PackedWords`]; with pickle protocol 5 an out-of-band
//! `pickle.PickleBuffer`, so Dask and Ray send them as a frame of their own without a copy), and
//! a 32-byte header in band says what they are: magic, format version, width, length, byte
//! count and a checksum of those fields. The receiver checks every field against the buffer
//! before it builds anything, and places the new array by its own machine's topology.

use std::ffi::{c_int, CStr};
use std::sync::Arc;

use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use smartarrays::{codec, ArrayOptions, Placement, SmartArray};

use crate::errors::IntoPy;
use crate::smart_array::PySmartArray;
use crate::{input, runtime};

/// First bytes of every header.
const MAGIC: &[u8; 4] = b"SApk";
/// Header layout version.
const VERSION: u16 = 1;
/// Header size in bytes: magic, version (u16), bits (u16), length (u64), byte count (u64),
/// checksum (u64), all little-endian.
const HEADER_BYTES: usize = 32;

/// FNV-1a (64 bit) of the header fields: a flipped bit in any of them is caught.
fn checksum(fields: &[u8]) -> u64 {
    fields.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The packed byte count of `len` values at `bits` bits: whole 64-bit words, as the codec
/// stores them (`ceil(len * bits / 64) * 8`); None when it overflows.
fn packed_byte_count(len: usize, bits: u32) -> Option<usize> {
    len.checked_mul(bits as usize)
        .map(|total| total.div_ceil(64))
        .and_then(|words| words.checked_mul(8))
}

/// The header of an array of `len` values at `bits` bits.
fn header(len: usize, bits: u32) -> [u8; HEADER_BYTES] {
    let mut out = [0u8; HEADER_BYTES];
    out[0..4].copy_from_slice(MAGIC);
    out[4..6].copy_from_slice(&VERSION.to_le_bytes());
    out[6..8].copy_from_slice(&(bits as u16).to_le_bytes());
    out[8..16].copy_from_slice(&(len as u64).to_le_bytes());
    let bytes = packed_byte_count(len, bits).unwrap_or(0) as u64;
    out[16..24].copy_from_slice(&bytes.to_le_bytes());
    let sum = checksum(&out[0..24]);
    out[24..32].copy_from_slice(&sum.to_le_bytes());
    out
}

/// Reads and checks a header: `(len, bits, byte count)` or a ValueError naming what is wrong.
fn parse_header(raw: &[u8]) -> PyResult<(usize, u32, usize)> {
    let damaged = |what: String| {
        PyValueError::new_err(format!(
            "the pickled smart array's header is damaged: {what}"
        ))
    };
    if raw.len() != HEADER_BYTES {
        return Err(damaged(format!(
            "it has {} bytes, not {HEADER_BYTES}",
            raw.len()
        )));
    }
    if &raw[0..4] != MAGIC {
        return Err(damaged(format!(
            "it starts with {:?}, not {:?}",
            String::from_utf8_lossy(&raw[0..4]),
            String::from_utf8_lossy(MAGIC)
        )));
    }
    let u64_at = |at: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&raw[at..at + 8]);
        u64::from_le_bytes(word)
    };
    let stored = u64_at(24);
    let computed = checksum(&raw[0..24]);
    if stored != computed {
        return Err(damaged(format!(
            "checksum {stored:#018x} does not match its fields ({computed:#018x})"
        )));
    }
    let version = u16::from_le_bytes([raw[4], raw[5]]);
    if version != VERSION {
        return Err(PyValueError::new_err(format!(
            "the pickled smart array has format version {version}; this smartarrays reads \
             version {VERSION} (upgrade the receiving side)"
        )));
    }
    let bits = u32::from(u16::from_le_bytes([raw[6], raw[7]]));
    if !(1..=64).contains(&bits) {
        return Err(damaged(format!("bit width {bits} is outside 1..64")));
    }
    let len = usize::try_from(u64_at(8))
        .map_err(|_| damaged(format!("length {} overflows this machine", u64_at(8))))?;
    let bytes = u64_at(16);
    let expected = packed_byte_count(len, bits)
        .ok_or_else(|| damaged(format!("{len} values of {bits} bits overflow this machine")))?;
    if bytes != expected as u64 {
        return Err(damaged(format!(
            "{len} values of {bits} bits pack into {expected} bytes, but it says {bytes}"
        )));
    }
    Ok((len, bits, expected))
}

/// The placement a pickled array gets on the receiving machine: the sender's policy (`os`,
/// `interleaved`, `replicated`, and `auto` for an array whose placement the advisor chose) is
/// resolved again against this machine's topology; a
/// single node (`node:N`) is kept when this machine has node N, else the receiving process's
/// first touch places it (`os`: the node it runs on, when it is pinned).
fn receiving_placement(py: Python<'_>, sent: &str) -> PyResult<Placement> {
    let placement = input::placement(sent)?;
    let runtime = runtime::resolve(None)?;
    let placement = match placement {
        Placement::SingleNode(node) if runtime.topology().node(node).is_err() => {
            Placement::OsDefault
        }
        Placement::Interleaved(nodes)
            if nodes.iter().any(|&n| runtime.topology().node(n).is_err()) =>
        {
            Placement::Interleaved(Vec::new())
        }
        other => other,
    };
    if placement == Placement::Auto {
        input::ensure_advisor(py)?;
    }
    Ok(placement)
}

/// The packed words of a smart array as a read-only buffer (bytes, format `B`) over the
/// array's own memory: no copy. It keeps the array alive, and the array cannot be changed
/// while it is shared (`a[i] = v` waits or refuses), so the bytes stay as they were.
#[pyclass(module = "smartarrays._native", name = "PackedWords", frozen)]
pub struct PackedWords {
    array: Arc<SmartArray>,
}

#[pymethods]
impl PackedWords {
    /// Bytes in the buffer: `ceil(len * bits / 64) * 8`.
    fn __len__(&self) -> usize {
        self.array.local().packed_bytes().len()
    }

    /// Exports the packed words, read-only.
    ///
    /// # Safety
    /// Called by CPython with a valid `view` to fill.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        check_read_only_request(
            view,
            flags,
            "packed words are read-only: a smart array is changed through a[i] = v",
        )?;
        let bytes = slf.get().array.local().packed_bytes();
        let (address, len) = (bytes.as_ptr() as usize, bytes.len());
        // SAFETY: `view` is non-null (checked above) and CPython hands it to us to fill. The
        // bytes live in the array's storage, which the `Arc` held by `slf` keeps mapped; the
        // view's `obj` is a new reference to `slf` (released by CPython with the view), so the
        // storage outlives every view. The array is not written while that `Arc` is shared
        // (writes need the only reference), so the exported bytes do not change.
        unsafe { fill_read_only_bytes(view, flags, slf.into_any(), address, len) };
        Ok(())
    }

    /// Nothing to release: the view's reference to this object keeps the storage alive.
    ///
    /// # Safety
    /// Called by CPython with the view it got from `__getbuffer__`.
    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {}
}

/// The checks of a read-only `__getbuffer__` before it fills anything: a view to fill, and no
/// request for a writable buffer (a BufferError saying `read_only`).
fn check_read_only_request(
    view: *mut ffi::Py_buffer,
    flags: c_int,
    read_only: &'static str,
) -> PyResult<()> {
    if view.is_null() {
        return Err(PyBufferError::new_err("no buffer view to fill"));
    }
    if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
        return Err(PyBufferError::new_err(read_only));
    }
    Ok(())
}

/// One buffer of a table's serialised form ([`smartarrays_query::Table::to_parts`]): a
/// read-only buffer (bytes, format `B`) over `len` bytes at `address` inside memory that
/// `owner` keeps alive and unchanged (a table's packed words: tables are immutable once
/// built). What `Table.__reduce_ex__` hands pickle protocol 5 as a `pickle.PickleBuffer`, so
/// the packed words go out of band without a copy.
#[pyclass(module = "smartarrays._native", name = "PartBuffer", frozen)]
pub struct PartBuffer {
    _owner: Arc<dyn std::any::Any + Send + Sync>,
    address: usize,
    len: usize,
}

impl PartBuffer {
    /// A buffer over `bytes`, which must lie inside memory `owner` keeps alive and unchanged
    /// for as long as `owner` lives.
    pub fn new(owner: Arc<dyn std::any::Any + Send + Sync>, bytes: &[u8]) -> PartBuffer {
        PartBuffer {
            _owner: owner,
            address: bytes.as_ptr() as usize,
            len: bytes.len(),
        }
    }
}

#[pymethods]
impl PartBuffer {
    /// Bytes in the buffer.
    fn __len__(&self) -> usize {
        self.len
    }

    /// Exports the bytes, read-only.
    ///
    /// # Safety
    /// Called by CPython with a valid `view` to fill.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        check_read_only_request(view, flags, "a table's packed words are read-only")?;
        let (address, len) = (slf.get().address, slf.get().len);
        // SAFETY: `view` is non-null (checked above) and CPython hands it to us to fill. The
        // bytes at `address..address + len` lie inside memory that `_owner` (an `Arc` of an
        // immutable table) keeps mapped and unchanged (see `PartBuffer::new`); the view's
        // `obj` is a new reference to `slf`, released by CPython with the view, so the memory
        // outlives every view.
        unsafe { fill_read_only_bytes(view, flags, slf.into_any(), address, len) };
        Ok(())
    }

    /// Nothing to release: the view's reference to this object keeps the memory alive.
    ///
    /// # Safety
    /// Called by CPython with the view it got from `__getbuffer__`.
    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {}
}

/// Fills `view` as a one-dimensional, read-only buffer of `len` bytes (format `B`) at
/// `address`, whose `obj` is a new reference to `owner`. Shape, strides and format are set
/// only when `flags` asks for them.
///
/// # Safety
/// `view` must be a non-null view CPython handed to `__getbuffer__`, and the `len` bytes at
/// `address` must stay mapped and unchanged for as long as `owner` lives.
unsafe fn fill_read_only_bytes(
    view: *mut ffi::Py_buffer,
    flags: c_int,
    owner: Bound<'_, PyAny>,
    address: usize,
    len: usize,
) {
    static FORMAT: &CStr = c"B";
    // SAFETY: the caller guarantees `view` is a valid view to fill and that the bytes outlive
    // `owner`, whose reference the view takes (CPython releases it with the view). `shape`
    // and `strides` point at fields of the view itself, which CPython keeps in place while
    // the view lives; the format is a static string.
    unsafe {
        (*view).obj = owner.into_ptr();
        (*view).buf = address as *mut std::ffi::c_void;
        (*view).len = len as ffi::Py_ssize_t;
        (*view).readonly = 1;
        (*view).itemsize = 1;
        (*view).format = if flags & ffi::PyBUF_FORMAT == ffi::PyBUF_FORMAT {
            FORMAT.as_ptr() as *mut std::ffi::c_char
        } else {
            std::ptr::null_mut()
        };
        (*view).ndim = 1;
        (*view).shape = if flags & ffi::PyBUF_ND == ffi::PyBUF_ND {
            &mut (*view).len
        } else {
            std::ptr::null_mut()
        };
        (*view).strides = if flags & ffi::PyBUF_STRIDES == ffi::PyBUF_STRIDES {
            &mut (*view).itemsize
        } else {
            std::ptr::null_mut()
        };
        (*view).suboffsets = std::ptr::null_mut();
        (*view).internal = std::ptr::null_mut();
    }
}

/// Calls `with` on the bytes of every object in `buffers` (anything with the buffer protocol:
/// bytes, pickle buffers, memoryviews), each one contiguous (a ValueError otherwise). The GIL
/// stays held, so no Python code changes a buffer meanwhile.
pub fn with_buffers<T>(
    buffers: &[Bound<'_, PyAny>],
    with: impl FnOnce(&[&[u8]]) -> PyResult<T>,
) -> PyResult<T> {
    let mut views = Vec::with_capacity(buffers.len());
    for (i, buffer) in buffers.iter().enumerate() {
        let view = pyo3::buffer::PyUntypedBuffer::get(buffer)?;
        if !view.is_c_contiguous() {
            return Err(PyValueError::new_err(format!(
                "buffer {i} of a pickled table is not one contiguous buffer"
            )));
        }
        views.push(view);
    }
    let slices: Vec<&[u8]> = views
        .iter()
        .map(|view| {
            let len = view.len_bytes();
            if len == 0 {
                return &[][..];
            }
            // SAFETY: the view is C-contiguous (checked above) and holds `len` bytes at
            // `buf_ptr`; `views` keeps every exporter's memory alive until `with` returns, and
            // the GIL, held throughout, keeps Python code from changing it meanwhile. The
            // slices do not outlive `views` (they are dropped with this function's frame).
            unsafe { std::slice::from_raw_parts(view.buf_ptr().cast::<u8>(), len) }
        })
        .collect();
    with(&slices)
}

/// What `SmartArray.__reduce_ex__` returns: the constructor and `(header, words, placement)`.
pub type Reduced<'py> = (
    Bound<'py, PyAny>,
    (Bound<'py, PyAny>, Bound<'py, PyAny>, String),
);

/// `__reduce_ex__` of a smart array: a header, the packed words (protocol 5: a
/// `pickle.PickleBuffer` over [`PackedWords`], sent out of band when the pickler has a buffer
/// callback; older protocols: `bytes`, the one copy they need) and the placement policy.
pub fn reduce<'py>(
    py: Python<'py>,
    array: Arc<SmartArray>,
    protocol: i64,
) -> PyResult<Reduced<'py>> {
    let head = PyBytes::new(py, &header(array.len(), array.bits())).into_any();
    // An array whose placement the advisor chose travels as "auto": the receiving machine's
    // advisor chooses again for its own topology. A placement the caller gave travels as given,
    // even when the advisor chose the width.
    let placement = if array.placement_was_advised() {
        Placement::Auto.to_string()
    } else {
        array.placement().to_string()
    };
    let words = if protocol >= 5 {
        let words = Bound::new(py, PackedWords { array })?;
        py.import("pickle")?
            .getattr("PickleBuffer")?
            .call1((words,))?
    } else {
        PyBytes::new(py, array.local().packed_bytes()).into_any()
    };
    let constructor = py.import("smartarrays._native")?.getattr("_unpickle")?;
    Ok((constructor, (head, words, placement)))
}

/// _unpickle(header, words, placement) -> SmartArray
///
/// Rebuilds a pickled smart array from its header and packed words (any contiguous buffer:
/// bytes, a pickle buffer, a memoryview, a numpy array), checking the header's magic, version,
/// checksum, width and byte count and the buffer's size against it first: a damaged header or a
/// buffer of the wrong length is a ValueError saying which. The placement policy is resolved on
/// this machine (see the module docs).
#[pyfunction]
#[pyo3(name = "_unpickle")]
pub fn unpickle(
    py: Python<'_>,
    header: &[u8],
    words: &Bound<'_, PyAny>,
    placement: &str,
) -> PyResult<PySmartArray> {
    let (len, bits, bytes) = parse_header(header)?;
    let view = pyo3::buffer::PyUntypedBuffer::get(words)?;
    if !view.is_c_contiguous() {
        return Err(PyValueError::new_err(
            "the packed words of a pickled smart array must be one contiguous buffer",
        ));
    }
    let given = view.len_bytes();
    if given != bytes {
        return Err(PyValueError::new_err(format!(
            "the pickled smart array's packed words are {given} bytes, but its header says \
             {len} values of {bits} bits: {bytes} bytes"
        )));
    }
    // The decoders read whole vectors past the last value: one copy into padded words.
    let data_words = bytes / 8;
    let mut padded = vec![0u64; data_words + codec::PADDING_WORDS];
    if bytes > 0 {
        // SAFETY: the buffer is C-contiguous and holds exactly `bytes` bytes (checked above);
        // `view` keeps it alive and unchanged during the copy; the destination has room for
        // `data_words * 8 == bytes` bytes and does not overlap it. Byte copy: no alignment of
        // the source is assumed.
        unsafe {
            std::ptr::copy_nonoverlapping(
                view.buf_ptr().cast::<u8>(),
                padded.as_mut_ptr().cast::<u8>(),
                bytes,
            )
        };
    }
    drop(view);
    let placement = receiving_placement(py, placement)?;
    let options = ArrayOptions::new()
        .placement(placement)
        .bits(bits)
        .runtime(runtime::resolve(None)?);
    let array = py
        .detach(|| {
            SmartArray::from_batches(len, &options, |range, out| {
                codec::unpack_range(&padded, bits, range.start, out);
            })
        })
        .py_err()?;
    Ok(PySmartArray::new(array))
}

/// _packed_header(length, bits) -> bytes: the header `pickle` sends with `length` values of
/// `bits` bits (for tests of damaged headers).
#[pyfunction]
#[pyo3(name = "_packed_header")]
pub fn packed_header(py: Python<'_>, length: usize, bits: u32) -> PyResult<Bound<'_, PyBytes>> {
    if !(1..=64).contains(&bits) {
        return Err(PyValueError::new_err(format!(
            "bit width {bits} is outside 1..64"
        )));
    }
    Ok(PyBytes::new(py, &header(length, bits)))
}

/// Registers the class and functions of this module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PackedWords>()?;
    module.add_class::<PartBuffer>()?;
    module.add_function(wrap_pyfunction!(unpickle, module)?)?;
    module.add_function(wrap_pyfunction!(packed_header, module)?)?;
    Ok(())
}
