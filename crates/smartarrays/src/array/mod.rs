//! The smart array layer: [`SmartArray`] (unsigned, bit-packed, placed), its read-only
//! [`ArrayView`] with iterators and chunk visitors, whole-array [`Reductions`] on chosen [`Threads`], and the typed wrappers [`SignedArray`]
//! (zigzag) and [`F64Array`] (uncompressed floating point), and the "auto" options hook
//! ([`Compression::Auto`], [`Placement::Auto`](crate::Placement::Auto), [`install_advisor`]).

mod atomic;
mod auto;
mod float;
mod reduce;
mod rewrite;
mod signed;
mod smart_array;
mod view;

pub use auto::{
    install_advisor, installed_advisor, natural_bits, uninstall_advisor, Advice, Advise,
    AutoRequest, Compression, Usage,
};
pub use float::F64Array;
pub use reduce::{Reductions, Threads};
pub use signed::{zigzag_decode, zigzag_encode, SignedArray};
pub use smart_array::{ArrayOptions, SmartArray, PARALLEL_BATCH};
pub use view::{ArrayView, Iter, NativeValue, VISIT_CHUNK};
