//! Status codes, the thread-local last-error message and [`guard`], the wrapper every exported
//! function runs its body in: it turns library errors into a status plus a message and catches
//! panics, so nothing ever unwinds into C.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use smartarrays::Error;
use smartarrays_collections::Error as CollectionError;
use smartarrays_encodings::EncodingError;

/// Result of every fallible C function. `SA_STATUS_OK` (0) means success; every other value
/// names a class of failure, and `sa_last_error_message()` returns the full text.
///
/// The numeric values are stable: new codes are only ever appended.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SaStatus {
    /// Success.
    Ok = 0,
    /// A pointer argument that must not be NULL was NULL.
    NullPointer = 1,
    /// An argument is invalid (text that is not UTF-8, a zero chunk size, ...).
    InvalidArgument = 2,
    /// An index is past the end of the array.
    IndexOutOfRange = 3,
    /// A range is reversed or reaches past the end of the array.
    RangeOutOfBounds = 4,
    /// A value does not fit in the array's bit width.
    ValueTooWide = 5,
    /// A bit width outside 1..=64 (0 means automatic where accepted).
    InvalidBitWidth = 6,
    /// A placement text that could not be parsed.
    InvalidPlacement = 7,
    /// A NUMA node that does not exist.
    UnknownNode = 8,
    /// Not enough memory (on a node, or from the operating system).
    OutOfMemory = 9,
    /// A system call failed.
    System = 10,
    /// The topology could not be read or is invalid.
    InvalidTopology = 11,
    /// A runtime setting is invalid (for example zero threads).
    InvalidRuntime = 12,
    /// A caller buffer is too small.
    BufferTooSmall = 13,
    /// The operation needs a non-empty array (min and max).
    EmptyArray = 14,
    /// The operation needs an uncompressed (64-bit) array.
    NotUncompressed = 15,
    /// The array is shared by a live Arrow export, so it cannot be modified.
    Busy = 16,
    /// A chunk visitor asked to stop early (not an error: the visit ended on request).
    Stopped = 17,
    /// Exporting to the Arrow C Data Interface failed.
    Arrow = 18,
    /// A bug inside the library was caught (a Rust panic); the message has the details.
    Panic = 19,
    /// An error the other codes do not describe.
    Other = 20,
    /// The operation means nothing for the column's type (the sum of strings, a prefix filter
    /// on integers).
    Unsupported = 21,
    /// A value of another type than the column's (an `int64_t` constant for a string column,
    /// `sa_column_get_f64` on an integer column).
    TypeMismatch = 22,
    /// A result that does not fit its type (a sum outside `int64_t`, a count past `UINT64_MAX`).
    Overflow = 23,
    /// A query that does not parse, names an unknown table or column, has a type error or uses
    /// what is not supported; the message gives its place (line and column of the SQL text).
    Sql = 24,
    /// A file or Arrow stream that cannot be loaded, or a table that cannot be saved; the
    /// message names the file and, for a value that does not fit, its line (or row) and column.
    Load = 25,
}

impl SaStatus {
    /// The status constant's name, e.g. `"SA_STATUS_INDEX_OUT_OF_RANGE"`.
    pub fn name(self) -> &'static str {
        self.c_name().to_str().unwrap_or("SA_STATUS_UNKNOWN")
    }

    /// The status constant's name as C text.
    pub fn c_name(self) -> &'static CStr {
        match self {
            SaStatus::Ok => c"SA_STATUS_OK",
            SaStatus::NullPointer => c"SA_STATUS_NULL_POINTER",
            SaStatus::InvalidArgument => c"SA_STATUS_INVALID_ARGUMENT",
            SaStatus::IndexOutOfRange => c"SA_STATUS_INDEX_OUT_OF_RANGE",
            SaStatus::RangeOutOfBounds => c"SA_STATUS_RANGE_OUT_OF_BOUNDS",
            SaStatus::ValueTooWide => c"SA_STATUS_VALUE_TOO_WIDE",
            SaStatus::InvalidBitWidth => c"SA_STATUS_INVALID_BIT_WIDTH",
            SaStatus::InvalidPlacement => c"SA_STATUS_INVALID_PLACEMENT",
            SaStatus::UnknownNode => c"SA_STATUS_UNKNOWN_NODE",
            SaStatus::OutOfMemory => c"SA_STATUS_OUT_OF_MEMORY",
            SaStatus::System => c"SA_STATUS_SYSTEM",
            SaStatus::InvalidTopology => c"SA_STATUS_INVALID_TOPOLOGY",
            SaStatus::InvalidRuntime => c"SA_STATUS_INVALID_RUNTIME",
            SaStatus::BufferTooSmall => c"SA_STATUS_BUFFER_TOO_SMALL",
            SaStatus::EmptyArray => c"SA_STATUS_EMPTY_ARRAY",
            SaStatus::NotUncompressed => c"SA_STATUS_NOT_UNCOMPRESSED",
            SaStatus::Busy => c"SA_STATUS_BUSY",
            SaStatus::Stopped => c"SA_STATUS_STOPPED",
            SaStatus::Arrow => c"SA_STATUS_ARROW",
            SaStatus::Panic => c"SA_STATUS_PANIC",
            SaStatus::Other => c"SA_STATUS_OTHER",
            SaStatus::Unsupported => c"SA_STATUS_UNSUPPORTED",
            SaStatus::TypeMismatch => c"SA_STATUS_TYPE_MISMATCH",
            SaStatus::Overflow => c"SA_STATUS_OVERFLOW",
            SaStatus::Sql => c"SA_STATUS_SQL",
            SaStatus::Load => c"SA_STATUS_LOAD",
        }
    }

    /// Every status, in numeric order.
    ///
    /// cbindgen:ignore
    pub const ALL: [SaStatus; 26] = [
        SaStatus::Ok,
        SaStatus::NullPointer,
        SaStatus::InvalidArgument,
        SaStatus::IndexOutOfRange,
        SaStatus::RangeOutOfBounds,
        SaStatus::ValueTooWide,
        SaStatus::InvalidBitWidth,
        SaStatus::InvalidPlacement,
        SaStatus::UnknownNode,
        SaStatus::OutOfMemory,
        SaStatus::System,
        SaStatus::InvalidTopology,
        SaStatus::InvalidRuntime,
        SaStatus::BufferTooSmall,
        SaStatus::EmptyArray,
        SaStatus::NotUncompressed,
        SaStatus::Busy,
        SaStatus::Stopped,
        SaStatus::Arrow,
        SaStatus::Panic,
        SaStatus::Other,
        SaStatus::Unsupported,
        SaStatus::TypeMismatch,
        SaStatus::Overflow,
        SaStatus::Sql,
        SaStatus::Load,
    ];
}

/// A failure on its way to C: the status and the message stored as the last error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FfiError {
    /// The status returned to C.
    pub status: SaStatus,
    /// The text `sa_last_error_message` returns.
    pub message: String,
}

impl FfiError {
    /// An error with this status and message.
    pub fn new(status: SaStatus, message: impl Into<String>) -> FfiError {
        FfiError {
            status,
            message: message.into(),
        }
    }

    /// A NULL pointer passed as the argument called `name`.
    pub fn null(name: &str) -> FfiError {
        FfiError::new(SaStatus::NullPointer, format!("argument `{name}` is NULL"))
    }
}

impl From<Error> for FfiError {
    fn from(error: Error) -> FfiError {
        let status = match &error {
            Error::ValueTooWide { .. } => SaStatus::ValueTooWide,
            Error::IndexOutOfRange { .. } => SaStatus::IndexOutOfRange,
            Error::RangeOutOfBounds { .. } => SaStatus::RangeOutOfBounds,
            Error::BufferTooSmall { .. } => SaStatus::BufferTooSmall,
            Error::InvalidBitWidth(_) => SaStatus::InvalidBitWidth,
            Error::UnknownNode { .. } => SaStatus::UnknownNode,
            Error::NotEnoughMemory { .. }
            | Error::NotEnoughMachineMemory { .. }
            | Error::AllocationFailed { .. } => SaStatus::OutOfMemory,
            Error::System { .. } => SaStatus::System,
            Error::InvalidTopology(_) => SaStatus::InvalidTopology,
            Error::InvalidPlacement(_) => SaStatus::InvalidPlacement,
            Error::InvalidRuntime(_) => SaStatus::InvalidRuntime,
            _ => SaStatus::Other,
        };
        FfiError::new(status, error.to_string())
    }
}

impl From<EncodingError> for FfiError {
    fn from(error: EncodingError) -> FfiError {
        let status = match &error {
            EncodingError::Array(inner) => return FfiError::from(inner.clone()),
            EncodingError::IndexOutOfRange { .. } => SaStatus::IndexOutOfRange,
            EncodingError::RangeOutOfBounds { .. } => SaStatus::RangeOutOfBounds,
            EncodingError::Unsupported { .. } => SaStatus::Unsupported,
            EncodingError::TypeMismatch { .. } => SaStatus::TypeMismatch,
            EncodingError::SumOverflow { .. } => SaStatus::Overflow,
            EncodingError::ValueDoesNotFit { .. }
            | EncodingError::Decimal { .. }
            | EncodingError::SelectionLengthMismatch { .. }
            | EncodingError::ValidityLengthMismatch { .. }
            | EncodingError::EncodingNotApplicable { .. }
            | EncodingError::InvalidPattern { .. } => SaStatus::InvalidArgument,
            _ => SaStatus::Other,
        };
        FfiError::new(status, error.to_string())
    }
}

impl From<CollectionError> for FfiError {
    fn from(error: CollectionError) -> FfiError {
        let status = match &error {
            CollectionError::Memory(inner) => return FfiError::from(inner.clone()),
            CollectionError::CapacityOverflow { .. } => SaStatus::OutOfMemory,
            CollectionError::CountOverflow { .. } | CollectionError::DictionaryFull { .. } => {
                SaStatus::Overflow
            }
            CollectionError::LengthMismatch { .. } | CollectionError::DuplicateKey { .. } => {
                SaStatus::InvalidArgument
            }
            CollectionError::BufferTooSmall { .. } => SaStatus::BufferTooSmall,
            _ => SaStatus::Other,
        };
        FfiError::new(status, error.to_string())
    }
}

impl From<smartarrays_arrow::arrow_schema::ArrowError> for FfiError {
    fn from(error: smartarrays_arrow::arrow_schema::ArrowError) -> FfiError {
        FfiError::new(SaStatus::Arrow, error.to_string())
    }
}

/// Result type of the bodies run by [`guard`].
pub type FfiResult<T = ()> = Result<T, FfiError>;

thread_local! {
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// Stores `message` as this thread's last error (interior NUL bytes are replaced).
pub fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|slot| *slot.borrow_mut() = Some(text));
}

/// Forgets this thread's last error.
pub fn clear_last_error() {
    LAST_ERROR.with(|slot| *slot.borrow_mut() = None);
}

/// This thread's last error message, if any.
pub fn last_error() -> Option<String> {
    LAST_ERROR.with(|slot| {
        slot.borrow()
            .as_ref()
            .map(|c| c.to_string_lossy().into_owned())
    })
}

/// Pointer to this thread's last error text (an empty string when there is none). Valid until
/// the next failing call on this thread.
pub(crate) fn last_error_ptr() -> *const c_char {
    LAST_ERROR.with(|slot| match slot.borrow().as_ref() {
        Some(text) => text.as_ptr(),
        None => c"".as_ptr(),
    })
}

/// Runs `body`, returning `SA_STATUS_OK` or the failure's status after recording its message as
/// the last error. A panic inside `body` is caught and reported as `SA_STATUS_PANIC`.
pub fn guard(body: impl FnOnce() -> FfiResult) -> SaStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => SaStatus::Ok,
        Ok(Err(error)) => {
            set_last_error(&error.message);
            error.status
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic payload".to_string());
            set_last_error(&format!(
                "internal error (a bug in smartarrays, please report it): {what}"
            ));
            SaStatus::Panic
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_maps_success_errors_and_panics() {
        clear_last_error();
        assert_eq!(guard(|| Ok(())), SaStatus::Ok);
        assert_eq!(last_error(), None);
        assert_eq!(
            guard(|| Err(Error::IndexOutOfRange { index: 7, len: 3 }.into())),
            SaStatus::IndexOutOfRange
        );
        assert_eq!(
            last_error().unwrap(),
            "index 7 is out of range for an array of length 3"
        );
        assert_eq!(guard(|| Ok(())), SaStatus::Ok);
        assert!(
            last_error().is_some(),
            "success leaves the last error in place"
        );
        let status = guard(|| panic!("boom {}", 42));
        assert_eq!(status, SaStatus::Panic);
        assert!(
            last_error().unwrap().contains("boom 42"),
            "{:?}",
            last_error()
        );
        let status = guard(|| std::panic::panic_any(17u32));
        assert_eq!(status, SaStatus::Panic);
        assert!(last_error().unwrap().contains("unknown panic payload"));
    }

    #[test]
    fn messages_with_nul_bytes_survive() {
        set_last_error("a\0b");
        assert_eq!(last_error().unwrap(), "a\\0b");
    }

    #[test]
    fn every_library_error_has_a_specific_status() {
        let cases = [
            (
                Error::ValueTooWide {
                    index: 0,
                    value: 9,
                    bits: 3,
                    max: 7,
                },
                SaStatus::ValueTooWide,
            ),
            (
                Error::RangeOutOfBounds {
                    start: 3,
                    end: 1,
                    len: 4,
                },
                SaStatus::RangeOutOfBounds,
            ),
            (
                Error::BufferTooSmall {
                    needed: 2,
                    given: 1,
                },
                SaStatus::BufferTooSmall,
            ),
            (Error::InvalidBitWidth(65), SaStatus::InvalidBitWidth),
            (
                Error::UnknownNode {
                    node: 9,
                    available: vec![0],
                },
                SaStatus::UnknownNode,
            ),
            (
                Error::NotEnoughMemory {
                    node: 0,
                    requested: 2,
                    available: 1,
                },
                SaStatus::OutOfMemory,
            ),
            (
                Error::AllocationFailed {
                    bytes: 1,
                    reason: "no".into(),
                },
                SaStatus::OutOfMemory,
            ),
            (
                Error::System {
                    call: "mbind",
                    reason: "no".into(),
                },
                SaStatus::System,
            ),
            (
                Error::InvalidTopology("x".into()),
                SaStatus::InvalidTopology,
            ),
            (
                Error::InvalidPlacement("x".into()),
                SaStatus::InvalidPlacement,
            ),
            (Error::InvalidRuntime("x".into()), SaStatus::InvalidRuntime),
        ];
        for (error, status) in cases {
            let message = error.to_string();
            let converted = FfiError::from(error);
            assert_eq!(converted.status, status);
            assert_eq!(converted.message, message);
        }
    }

    #[test]
    fn names_follow_the_numeric_order() {
        for (number, status) in SaStatus::ALL.iter().enumerate() {
            assert_eq!(*status as i32, number as i32);
            assert!(status.name().starts_with("SA_STATUS_"));
        }
    }
}
