//! Raw memory of Python buffers (PEP 3118): reading one-dimensional integer buffers in place
//! (numpy arrays, `array.array`, `bytes`, memoryviews) and filling freshly made numpy arrays.
//! All of the binding's `unsafe` code is here; the rest works with the safe [`Column`] reader
//! and `&mut [u64]` slices.

use std::ffi::CStr;
use std::marker::PhantomData;

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// What one buffer element is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Unsigned integer of this many bytes.
    Unsigned(usize),
    /// One-byte booleans (format `?`): any nonzero byte is true, read as 1 (as numpy's
    /// `astype` and `memoryview.tolist()` read them), never as the byte's value.
    Bool,
    /// Two's-complement signed integer of this many bytes.
    Signed(usize),
}

/// The element kind of a buffer from its struct-module format string and item size, or a
/// `TypeError`/`ValueError` naming the format when it is not a native-order integer.
pub fn element_kind(format: &CStr, item_size: usize) -> PyResult<Kind> {
    let text = format.to_string_lossy();
    let bytes = format.to_bytes();
    let (order, code) = match bytes {
        [code] => (b'@', *code),
        [order @ (b'@' | b'=' | b'<' | b'>' | b'!'), code] => (*order, *code),
        _ => {
            return Err(PyTypeError::new_err(format!(
                "buffers of format {text:?} are not supported: smart arrays take integers"
            )))
        }
    };
    let foreign_order = match order {
        b'<' => cfg!(target_endian = "big"),
        b'>' | b'!' => cfg!(target_endian = "little"),
        _ => false,
    };
    if foreign_order && item_size > 1 {
        return Err(PyValueError::new_err(format!(
            "buffer format {text:?} is in non-native byte order; convert it first (numpy: values.astype('=u8'))"
        )));
    }
    let kind = match code {
        b'?' => Kind::Bool,
        b'B' | b'H' | b'I' | b'L' | b'Q' | b'N' | b'c' => Kind::Unsigned(item_size),
        b'b' | b'h' | b'i' | b'l' | b'q' | b'n' => Kind::Signed(item_size),
        b'e' | b'f' | b'd' => {
            return Err(PyTypeError::new_err(format!(
                "a floating-point buffer (format {text:?}) cannot become a smart array: smart arrays hold unsigned integers"
            )))
        }
        _ => return Err(PyTypeError::new_err(format!("buffers of format {text:?} are not supported: smart arrays take integers"))),
    };
    let (sizes, expected): (&[usize], &str) = match kind {
        Kind::Bool => (&[1], "1"),
        _ => (&[1, 2, 4, 8], "1, 2, 4 or 8"),
    };
    if !sizes.contains(&item_size) {
        return Err(PyTypeError::new_err(format!(
            "buffer format {text:?} has items of {item_size} bytes; expected {expected}"
        )));
    }
    Ok(kind)
}

/// Integer types a [`Column`] can be read as.
pub trait Element: Copy + Send + Sync + 'static {}
impl Element for u8 {}
impl Element for u16 {}
impl Element for u32 {}
impl Element for u64 {}
impl Element for i8 {}
impl Element for i16 {}
impl Element for i32 {}
impl Element for i64 {}

/// A one-dimensional buffer read in place: its first element, length, stride and kind. It
/// borrows the buffer view, which keeps the exporter's memory alive and its size fixed.
#[derive(Clone, Copy, Debug)]
pub struct Column<'a> {
    start: *const u8,
    len: usize,
    stride: isize,
    kind: Kind,
    _view: PhantomData<&'a PyUntypedBuffer>,
}

// SAFETY: a Column only reads memory that the borrowed buffer view keeps alive for 'a; a view
// may be used from any thread (pyo3 declares PyUntypedBuffer Send + Sync), and Column never
// writes through its pointer.
unsafe impl Send for Column<'_> {}
// SAFETY: as above; shared use only ever reads.
unsafe impl Sync for Column<'_> {}

impl<'a> Column<'a> {
    /// Reads `view` as a one-dimensional integer column.
    pub fn new(view: &'a PyUntypedBuffer) -> PyResult<Column<'a>> {
        let kind = element_kind(view.format(), view.item_size())?;
        if view.dimensions() != 1 {
            return Err(PyValueError::new_err(format!(
                "expected a one-dimensional buffer, got {} dimensions (flatten it first, e.g. values.ravel())",
                view.dimensions()
            )));
        }
        if view.suboffsets().is_some_and(|s| s.iter().any(|&o| o >= 0)) {
            return Err(PyBufferError::new_err(
                "indirect buffers (with suboffsets) are not supported",
            ));
        }
        let len = view.shape()[0];
        let stride = view
            .strides()
            .first()
            .copied()
            .unwrap_or(view.item_size() as isize);
        Ok(Column {
            start: view.buf_ptr() as *const u8,
            len,
            stride,
            kind,
            _view: PhantomData,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the column has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// A typed reader; `T` must have the column's item size.
    ///
    /// # Panics
    /// If the size of `T` differs from the item size.
    pub fn typed<T: Element>(&self) -> Typed<'a, T> {
        let size = match self.kind {
            Kind::Unsigned(size) | Kind::Signed(size) => size,
            Kind::Bool => 1,
        };
        assert_eq!(
            size,
            std::mem::size_of::<T>(),
            "typed reader of the wrong width"
        );
        Typed {
            column: *self,
            _element: PhantomData,
        }
    }

    /// The column as a plain slice when it holds contiguous, aligned 8-byte unsigned values.
    pub fn as_u64_slice(&self) -> Option<&'a [u64]> {
        let contiguous = self.stride == 8 || self.len <= 1;
        let aligned = (self.start as usize).is_multiple_of(std::mem::align_of::<u64>());
        if self.kind != Kind::Unsigned(8) || !contiguous || !aligned {
            return None;
        }
        if self.len == 0 {
            return Some(&[]);
        }
        // SAFETY: the buffer view borrowed for 'a keeps `len` contiguous 8-byte elements alive
        // at `start`, which is non-null and aligned for u64 (checked above). Another Python
        // thread could write to a writable exporter while we read (as with any numpy call that
        // releases the GIL); plain u64 loads may then see old or new values, never invalid ones.
        Some(unsafe { std::slice::from_raw_parts(self.start.cast::<u64>(), self.len) })
    }
}

/// A [`Column`] read as elements of type `T`.
#[derive(Clone, Copy, Debug)]
pub struct Typed<'a, T> {
    column: Column<'a>,
    _element: PhantomData<T>,
}

impl<T: Element> Typed<'_, T> {
    /// Element `index`.
    ///
    /// # Panics
    /// If `index >= len`.
    #[inline]
    pub fn get(&self, index: usize) -> T {
        assert!(
            index < self.column.len,
            "index {index} out of range for a buffer of {} elements",
            self.column.len
        );
        let offset = index as isize * self.column.stride;
        // SAFETY: `index < len`, and the exporter guarantees that element `index` of a
        // one-dimensional buffer without suboffsets lies at `start + index * stride`, inside
        // memory the borrowed view keeps alive; `T` has the item size (checked in `typed`), and
        // the read is unaligned-safe. Concurrent writers can only change which integer we read.
        unsafe {
            self.column
                .start
                .offset(offset)
                .cast::<T>()
                .read_unaligned()
        }
    }
}

/// Makes a numpy array of `len` uint64 values and lets `fill` write them with the GIL released.
pub fn new_numpy_u64<'py>(
    py: Python<'py>,
    len: usize,
    fill: impl FnOnce(&mut [u64]) + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("empty", (len, numpy.getattr("uint64")?))?;
    let view = PyUntypedBuffer::get(&array)?;
    let ok = !view.readonly()
        && view.item_size() == 8
        && view.item_count() == len
        && view.is_c_contiguous()
        && (view.buf_ptr() as usize).is_multiple_of(std::mem::align_of::<u64>());
    if !ok {
        return Err(PyBufferError::new_err(
            "numpy.empty returned an array that is not a writable contiguous uint64 buffer",
        ));
    }
    let out: &mut [u64] = if len == 0 {
        &mut []
    } else {
        // SAFETY: `array` was made just above and no other code has a reference to it yet; its
        // buffer is writable, C-contiguous, aligned and holds exactly `len` u64 values (checked
        // above), and `view` keeps it alive until this function returns.
        unsafe { std::slice::from_raw_parts_mut(view.buf_ptr().cast::<u64>(), len) }
    };
    py.detach(move || fill(out));
    drop(view);
    Ok(array)
}

/// A new numpy array of `dtype` (a numpy dtype name such as `"bool"` or `"uint32"`) holding
/// `values`, which must each fit that dtype: they are written as uint64 words and cast once.
pub fn numpy_from_words<'py>(
    py: Python<'py>,
    values: impl ExactSizeIterator<Item = u64> + Send,
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let words = new_numpy_u64(py, values.len(), |out| {
        out.iter_mut().zip(values).for_each(|(o, v)| *o = v)
    })?;
    words.call_method1("astype", (dtype,))
}

/// Copies a C-contiguous buffer of native-order 64-bit unsigned words (a numpy uint64 array, or
/// `bytes` / a pickle buffer viewed as uint64 by the caller) into a vector.
pub fn copy_u64_words(buffer: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    let view = PyUntypedBuffer::get(buffer)?;
    let format = view.format();
    let unsigned_64 = view.item_size() == 8
        && matches!(
            format.to_bytes(),
            b"Q" | b"L" | b"=Q" | b"<Q" | b"@Q" | b"=L" | b"<L" | b"@L"
        );
    if !unsigned_64 || !view.is_c_contiguous() {
        return Err(PyTypeError::new_err(format!(
            "packed words must be a contiguous buffer of uint64 (format {:?}, {} bytes per item)",
            format.to_string_lossy(),
            view.item_size()
        )));
    }
    let count = view.item_count();
    let mut words = vec![0u64; count];
    if count > 0 {
        // SAFETY: the buffer holds `count` items of 8 bytes, C-contiguous (checked above), and
        // `view` keeps it alive and unchanged for the copy; the destination is a fresh vector of
        // exactly that many words. read_unaligned-style byte copy: no alignment is assumed.
        unsafe {
            std::ptr::copy_nonoverlapping(
                view.buf_ptr().cast::<u8>(),
                words.as_mut_ptr().cast::<u8>(),
                count * 8,
            )
        };
    }
    Ok(words)
}
