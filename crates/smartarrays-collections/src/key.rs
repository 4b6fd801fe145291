//! Keys and values as `u64` codes: the tables store codes, these traits turn typed keys and
//! values into codes and back. Small magnitudes get small codes (zigzag for signed types), so
//! the widths the tables choose from the data stay small.

/// A type usable as a collection key: an injective map to `u64` codes.
///
/// Implemented for the unsigned and signed integer types (signed ones through zigzag: 0, -1,
/// 1, -2, ... become 0, 1, 2, 3, ...). Strings become keys through a
/// [`Dictionary`](crate::Dictionary) (their codes). An implementation must satisfy
/// `Self::from_code(k.to_code()) == k`.
///
/// # Example
/// ```
/// use smartarrays_collections::Key;
/// assert_eq!((-1i64).to_code(), 1);
/// assert_eq!(i64::from_code(1), -1);
/// assert_eq!(u32::MAX.to_code(), u64::from(u32::MAX));
/// ```
pub trait Key: Copy + Send + Sync + 'static {
    /// The code of the key.
    fn to_code(self) -> u64;
    /// The key of a code produced by [`Key::to_code`].
    fn from_code(code: u64) -> Self;
}

/// A type usable as a map value: an injective map to `u64` codes, like [`Key`].
///
/// # Example
/// ```
/// use smartarrays_collections::Value;
/// assert_eq!(true.to_code(), 1);
/// assert_eq!(<()>::from_code(0), ());
/// assert_eq!(i32::from_code((-7i32).to_code()), -7);
/// ```
pub trait Value: Copy + Send + Sync + 'static {
    /// The code of the value.
    fn to_code(self) -> u64;
    /// The value of a code produced by [`Value::to_code`].
    fn from_code(code: u64) -> Self;
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Key for $t {
            #[inline(always)]
            fn to_code(self) -> u64 { self as u64 }
            #[inline(always)]
            fn from_code(code: u64) -> Self { code as $t }
        }
        impl Value for $t {
            #[inline(always)]
            fn to_code(self) -> u64 { self as u64 }
            #[inline(always)]
            fn from_code(code: u64) -> Self { code as $t }
        }
    )*};
}
unsigned!(u8, u16, u32, u64, usize);

macro_rules! signed {
    ($($t:ty => $u:ty),*) => {$(
        impl Key for $t {
            #[inline(always)]
            fn to_code(self) -> u64 { ((self << 1) ^ (self >> (<$t>::BITS - 1))) as $u as u64 }
            #[inline(always)]
            fn from_code(code: u64) -> Self { let u = code as $u; ((u >> 1) as $t) ^ -((u & 1) as $t) }
        }
        impl Value for $t {
            #[inline(always)]
            fn to_code(self) -> u64 { Key::to_code(self) }
            #[inline(always)]
            fn from_code(code: u64) -> Self { <$t as Key>::from_code(code) }
        }
    )*};
}
signed!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

impl Value for bool {
    #[inline(always)]
    fn to_code(self) -> u64 {
        u64::from(self)
    }
    #[inline(always)]
    fn from_code(code: u64) -> Self {
        code != 0
    }
}

impl Value for () {
    #[inline(always)]
    fn to_code(self) -> u64 {
        0
    }
    #[inline(always)]
    fn from_code(_code: u64) -> Self {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_at_the_edges() {
        for v in [0i64, 1, -1, i64::MIN, i64::MAX, 12345, -12345] {
            assert_eq!(<i64 as Key>::from_code(Key::to_code(v)), v);
        }
        for v in [0i8, -1, i8::MIN, i8::MAX] {
            assert_eq!(<i8 as Key>::from_code(Key::to_code(v)), v);
            assert!(Key::to_code(v) <= 255);
        }
        assert_eq!(Key::to_code(i32::MIN), u64::from(u32::MAX));
        assert_eq!(<u64 as Key>::from_code(u64::MAX), u64::MAX);
    }
}
