//! Arrow interchange: smart arrays as Arrow `UInt64` (and `Float64`) arrays, exported through the
//! Arrow C Data Interface (`ArrowArray` + `ArrowSchema`) and the C Stream Interface
//! (`ArrowArrayStream`, one Arrow array per chunk), using the `arrow` crates' FFI types.
//!
//! The one home of Arrow interchange: the C ABI (`sa_array_export_arrow...`) and the Python
//! binding (`__arrow_c_array__` / `__arrow_c_stream__`) both export through this crate.
//!
//! API:
//! - [`to_arrow`] / [`range_to_arrow`]: an [`UInt64Array`] of the values;
//! - [`export_array`]: `Arc<SmartArray>` -> `(FFI_ArrowArray, FFI_ArrowSchema)`;
//! - [`export_stream`]: `Arc<SmartArray>` + chunk size -> `FFI_ArrowArrayStream` of `UInt64` arrays;
//! - [`f64_to_arrow`] / [`export_f64_array`]: the same for [`F64Array`] (`Float64`, always zero-copy).
//!
//! 64-bit arrays are exported without copying: the Arrow buffer points into the array's memory
//! (the replica local to the exporting thread) and holds an `Arc` of the array, so the memory
//! lives until the consumer releases the export, even if the array's handle is freed first.
//! Compressed arrays are decoded into a new buffer. The arrow crates are re-exported
//! ([`arrow_array`], [`arrow_data`], [`arrow_schema`], [`arrow_buffer`]) so users get the same
//! versions.
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use smartarrays::{ArrayOptions, SmartArray};
//! use smartarrays_arrow::{export_array, export_stream};
//! use smartarrays_arrow::arrow_array::{ffi::from_ffi, ffi_stream::ArrayStreamReader, Array, UInt64Array};
//!
//! let array = Arc::new(SmartArray::from_slice(&[1, 2, 3, 4, 5], &ArrayOptions::new().bits(64)).unwrap());
//! let (ffi_array, ffi_schema) = export_array(Arc::clone(&array)).unwrap();
//! // A consumer imports it (here: arrow-rs itself).
//! let data = unsafe { from_ffi(ffi_array, &ffi_schema) }.unwrap();
//! assert_eq!(UInt64Array::from(data).values().as_ref(), &[1, 2, 3, 4, 5]);
//!
//! let chunks: Vec<usize> = ArrayStreamReader::try_new(export_stream(array, 2)).unwrap().map(|a| a.unwrap().len()).collect();
//! assert_eq!(chunks, vec![2, 2, 1]);
//! ```

use std::ffi::{c_char, c_int, c_void, CString};
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe, RefUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;

pub use arrow_array;
pub use arrow_buffer;
pub use arrow_data;
pub use arrow_schema;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, Float64Array, UInt64Array};
use arrow_buffer::{Buffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType};
use smartarrays::{F64Array, SmartArray};

/// Values per stream chunk when [`export_stream`] is given 0.
///
pub const DEFAULT_STREAM_CHUNK: usize = 1 << 20;

/// Keeps an array alive while an Arrow buffer points into its memory.
struct KeepAlive<T>(#[allow(dead_code)] Arc<T>);

// The array is only read through the buffer; a panic elsewhere cannot leave it half-updated in
// a way the buffer would observe (writes need exclusive access, which a live export prevents).
impl<T> RefUnwindSafe for KeepAlive<T> {}

/// A buffer over `words[range]` of `owner`'s memory, holding `owner` alive.
fn shared_buffer<T: Send + Sync + 'static>(
    owner: &Arc<T>,
    words: &[u64],
    range: Range<usize>,
) -> Buffer {
    let piece = &words[range];
    let keep: Arc<dyn arrow_buffer::alloc::Allocation> = Arc::new(KeepAlive(Arc::clone(owner)));
    // SAFETY: `piece` is valid for `piece.len() * 8` bytes for as long as `owner` lives (the
    // array's regions are freed only when the last Arc is dropped, and the buffer holds one). A
    // slice pointer is never NULL. The memory is not written while the buffer lives, because
    // writes need exclusive access to the array (`Arc::get_mut`), which the held Arc prevents.
    unsafe {
        Buffer::from_custom_allocation(NonNull::from(piece).cast::<u8>(), size_of_val(piece), keep)
    }
}

/// All values as an Arrow `UInt64Array`: zero-copy for 64-bit arrays, decoded otherwise.
pub fn to_arrow(array: &Arc<SmartArray>) -> UInt64Array {
    let len = array.len();
    if let Some(values) = array.local().as_native::<u64>() {
        let buffer = shared_buffer(array, values, 0..len);
        return UInt64Array::new(ScalarBuffer::new(buffer, 0, len), None);
    }
    UInt64Array::new(ScalarBuffer::from(array.to_vec()), None)
}

/// Values `range` as an Arrow `UInt64Array` (zero-copy for 64-bit arrays, decoded otherwise).
pub fn range_to_arrow(
    array: &Arc<SmartArray>,
    range: Range<usize>,
) -> smartarrays::Result<UInt64Array> {
    if range.start > range.end || range.end > array.len() {
        return Err(smartarrays::Error::RangeOutOfBounds {
            start: range.start,
            end: range.end,
            len: array.len(),
        });
    }
    let count = range.len();
    if let Some(values) = array.local().as_native::<u64>() {
        let buffer = shared_buffer(array, values, range);
        return Ok(UInt64Array::new(ScalarBuffer::new(buffer, 0, count), None));
    }
    let mut values = vec![0u64; count];
    array.unpack(range.start, &mut values)?;
    Ok(UInt64Array::new(ScalarBuffer::from(values), None))
}

/// Exports all values through the Arrow C Data Interface (see [`to_arrow`] for when it copies).
pub fn export_array(
    array: Arc<SmartArray>,
) -> Result<(FFI_ArrowArray, FFI_ArrowSchema), ArrowError> {
    let data = to_arrow(&array).into_data();
    Ok((
        FFI_ArrowArray::new(&data),
        FFI_ArrowSchema::try_from(&DataType::UInt64)?,
    ))
}

/// All values of an `F64Array` as an Arrow `Float64Array`, always zero-copy.
pub fn f64_to_arrow(array: &Arc<F64Array>) -> Float64Array {
    let len = array.len();
    let buffer = shared_buffer(
        array,
        array.raw().local().as_native::<u64>().unwrap_or(&[]),
        0..len,
    );
    Float64Array::new(ScalarBuffer::new(buffer, 0, len), None)
}

/// Exports an `F64Array` through the Arrow C Data Interface, zero-copy.
pub fn export_f64_array(
    array: Arc<F64Array>,
) -> Result<(FFI_ArrowArray, FFI_ArrowSchema), ArrowError> {
    let data = f64_to_arrow(&array).into_data();
    Ok((
        FFI_ArrowArray::new(&data),
        FFI_ArrowSchema::try_from(&DataType::Float64)?,
    ))
}

/// State behind an exported stream.
struct StreamState {
    array: Arc<SmartArray>,
    next: usize,
    chunk: usize,
    last_error: Option<CString>,
}

/// Exports the values as an Arrow C stream of `UInt64` arrays of `chunk_values` values each (the
/// last one shorter; 0 means [`DEFAULT_STREAM_CHUNK`]). The schema is `UInt64`, not a struct, so
/// consumers read it as a chunked array (pyarrow: `pa.chunked_array`). Chunks of 64-bit arrays
/// are zero-copy; others are decoded chunk by chunk as the consumer asks for them.
pub fn export_stream(array: Arc<SmartArray>, chunk_values: usize) -> FFI_ArrowArrayStream {
    let chunk = if chunk_values == 0 {
        DEFAULT_STREAM_CHUNK
    } else {
        chunk_values
    };
    let state = Box::new(StreamState {
        array,
        next: 0,
        chunk,
        last_error: None,
    });
    // SAFETY: the callbacks below implement the C stream protocol for a `StreamState` owned by
    // `private_data`, which `stream_release` frees exactly once before clearing `release`.
    unsafe {
        FFI_ArrowArrayStream::new_unchecked(
            Some(stream_get_schema),
            Some(stream_get_next),
            Some(stream_get_last_error),
            Some(stream_release),
            Box::into_raw(state).cast::<c_void>(),
        )
    }
}

/// errno value returned by stream callbacks on failure (EIO / EINVAL).
const STREAM_EIO: c_int = 5;
const STREAM_EINVAL: c_int = 22;

/// The state of a live stream, or `None` when the stream is NULL or released.
///
/// # Safety
/// `stream` must be NULL or point to a stream made by [`export_stream`] (possibly released), and
/// no other callback of that stream may run at the same time (the stream protocol allows one
/// consumer thread at a time).
unsafe fn stream_state<'a>(stream: *mut FFI_ArrowArrayStream) -> Option<&'a mut StreamState> {
    // SAFETY: per the contract above, the pointer is NULL or a valid stream.
    let stream = unsafe { stream.as_ref() }?;
    // SAFETY: `private_data` is NULL after release, else the Box<StreamState> made by
    // `export_stream`, used by one callback at a time.
    unsafe { stream.private_data().cast::<StreamState>().as_mut() }
}

impl StreamState {
    fn fail(&mut self, message: String) -> c_int {
        self.last_error = CString::new(message.replace('\0', "\\0")).ok();
        STREAM_EIO
    }
}

unsafe extern "C" fn stream_get_schema(
    stream: *mut FFI_ArrowArrayStream,
    out: *mut FFI_ArrowSchema,
) -> c_int {
    // SAFETY: the consumer passes the stream this callback belongs to.
    let Some(state) = (unsafe { stream_state(stream) }) else {
        return STREAM_EINVAL;
    };
    if out.is_null() {
        return state.fail("get_schema: the output schema pointer is NULL".into());
    }
    let schema = catch_unwind(|| FFI_ArrowSchema::try_from(&DataType::UInt64));
    match schema {
        Ok(Ok(schema)) => {
            // SAFETY: `out` is not NULL and the consumer provides room for one schema (it may be
            // uninitialised, so it is written without dropping the old contents).
            unsafe { out.write(schema) };
            0
        }
        Ok(Err(error)) => state.fail(error.to_string()),
        Err(_) => state.fail("get_schema: internal error".into()),
    }
}

unsafe extern "C" fn stream_get_next(
    stream: *mut FFI_ArrowArrayStream,
    out: *mut FFI_ArrowArray,
) -> c_int {
    // SAFETY: the consumer passes the stream this callback belongs to.
    let Some(state) = (unsafe { stream_state(stream) }) else {
        return STREAM_EINVAL;
    };
    if out.is_null() {
        return state.fail("get_next: the output array pointer is NULL".into());
    }
    if state.next >= state.array.len() {
        // SAFETY: as above; a released (empty) array marks the end of the stream.
        unsafe { out.write(FFI_ArrowArray::empty()) };
        return 0;
    }
    let range = state.next..(state.next.saturating_add(state.chunk)).min(state.array.len());
    let exported = catch_unwind(AssertUnwindSafe(|| {
        range_to_arrow(&state.array, range.clone()).map(|a| FFI_ArrowArray::new(&a.into_data()))
    }));
    match exported {
        Ok(Ok(array)) => {
            // SAFETY: `out` is not NULL and has room for one array (possibly uninitialised).
            unsafe { out.write(array) };
            state.next = range.end;
            0
        }
        Ok(Err(error)) => state.fail(error.to_string()),
        Err(_) => state.fail("get_next: internal error".into()),
    }
}

unsafe extern "C" fn stream_get_last_error(stream: *mut FFI_ArrowArrayStream) -> *const c_char {
    // SAFETY: the consumer passes the stream this callback belongs to.
    match unsafe { stream_state(stream) } {
        Some(StreamState {
            last_error: Some(text),
            ..
        }) => text.as_ptr(),
        _ => std::ptr::null(),
    }
}

unsafe extern "C" fn stream_release(stream: *mut FFI_ArrowArrayStream) {
    // SAFETY: the consumer passes the stream this callback belongs to, once no other callback runs.
    let Some(stream) = (unsafe { stream.as_mut() }) else {
        return;
    };
    // SAFETY: the stream is being released: its state is taken out and freed exactly once, and
    // `release` is cleared to mark it released, as the stream protocol requires.
    unsafe {
        let state = stream
            .set_private_data(std::ptr::null_mut())
            .cast::<StreamState>();
        if !state.is_null() {
            let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(state))));
        }
        stream.set_release(None);
    }
}
