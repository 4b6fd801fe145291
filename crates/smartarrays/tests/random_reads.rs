//! Random reads: `get`, `get_unchecked` and the batched `get_many` agree with a plain `Vec<u64>`
//! at every width and edge length, with indices in any order, repeated, and at the ends; bad
//! input is refused with a typed error and nothing written.

use proptest::prelude::*;
use smartarrays::{ArrayOptions, Error, SmartArray};

const LENGTHS: [usize; 8] = [1, 2, 63, 64, 65, 1023, 1025, 4097];

fn values(len: usize, bits: u32) -> Vec<u64> {
    let max = smartarrays::codec::max_value(bits);
    (0..len as u64)
        .map(|i| match i % 5 {
            0 => max, // extreme values at every width
            1 => 0,
            _ => i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & max,
        })
        .collect()
}

#[test]
fn get_many_matches_a_vec_gather_at_every_width_and_edge_length() {
    for bits in 1..=64u32 {
        for len in LENGTHS {
            let reference = values(len, bits);
            let array =
                SmartArray::from_slice(&reference, &ArrayOptions::new().bits(bits)).unwrap();
            // Both ends, every value once backwards, and a stride that wraps around.
            let mut indices: Vec<usize> = vec![0, len - 1, len - 1, 0];
            indices.extend((0..len).rev());
            indices.extend((0..len).map(|k| k * 7919 % len));
            let mut out = vec![u64::MAX - 1; indices.len() + 3];
            array.get_many(&indices, &mut out).unwrap();
            for (k, &index) in indices.iter().enumerate() {
                assert_eq!(
                    out[k], reference[index],
                    "bits {bits} len {len} index {index}"
                );
                // SAFETY: index < len.
                assert_eq!(unsafe { array.get_unchecked(index) }, reference[index]);
            }
            assert_eq!(
                &out[indices.len()..],
                &[u64::MAX - 1; 3],
                "past the indices untouched"
            );
        }
    }
}

#[test]
fn get_many_with_no_indices_writes_nothing() {
    let array = SmartArray::from_slice(&[1, 2, 3], &ArrayOptions::new()).unwrap();
    let mut out: [u64; 0] = [];
    array.get_many(&[], &mut out).unwrap();
    let empty = SmartArray::from_slice(&[], &ArrayOptions::new()).unwrap();
    empty.get_many(&[], &mut out).unwrap();
}

#[test]
fn get_many_refuses_an_index_past_the_end_and_writes_nothing() {
    let array = SmartArray::from_fn(65, &ArrayOptions::new().bits(7), |i| i as u64).unwrap();
    let mut out = [9u64; 4];
    let error = array.get_many(&[0, 64, 65, 1_000], &mut out).unwrap_err();
    assert!(
        matches!(error, Error::IndexOutOfRange { index: 65, len: 65 }),
        "{error}"
    );
    assert_eq!(out, [9; 4]);
    let error = array.get_many(&[usize::MAX], &mut out).unwrap_err();
    assert!(
        matches!(
            error,
            Error::IndexOutOfRange {
                index: usize::MAX,
                len: 65
            }
        ),
        "{error}"
    );
    let empty = SmartArray::from_slice(&[], &ArrayOptions::new()).unwrap();
    assert!(matches!(
        empty.get_many(&[0], &mut out).unwrap_err(),
        Error::IndexOutOfRange { index: 0, len: 0 }
    ));
}

#[test]
fn get_many_refuses_a_short_output_buffer() {
    let array = SmartArray::from_fn(10, &ArrayOptions::new(), |i| i as u64).unwrap();
    let mut out = [0u64; 2];
    let error = array.get_many(&[1, 2, 3], &mut out).unwrap_err();
    assert!(
        matches!(
            error,
            Error::BufferTooSmall {
                needed: 3,
                given: 2
            }
        ),
        "{error}"
    );
    assert_eq!(out, [0, 0]);
}

proptest! {
    #[test]
    fn get_many_agrees_with_a_vec(
        bits in 1u32..=64,
        raw in proptest::collection::vec(any::<u64>(), 1..600),
        picks in proptest::collection::vec(any::<usize>(), 0..300),
    ) {
        let max = smartarrays::codec::max_value(bits);
        let reference: Vec<u64> = raw.iter().map(|v| v & max).collect();
        let array = SmartArray::from_slice(&reference, &ArrayOptions::new().bits(bits)).unwrap();
        let indices: Vec<usize> = picks.iter().map(|p| p % reference.len()).collect();
        let mut out = vec![0u64; indices.len()];
        array.get_many(&indices, &mut out).unwrap();
        let expected: Vec<u64> = indices.iter().map(|&i| reference[i]).collect();
        prop_assert_eq!(out, expected);
    }
}

#[test]
fn native_views_at_whole_byte_widths_match_the_values() {
    for len in [0usize, 1, 63, 64, 65, 1025] {
        let values: Vec<u64> = (0..len as u64).map(|i| i * 3 % 251).collect();
        for bits in [8u32, 16, 32, 64] {
            let array = SmartArray::from_slice(&values, &ArrayOptions::new().bits(bits)).unwrap();
            let view = array.local();
            let widened: Vec<u64> = match bits {
                8 => view
                    .as_native::<u8>()
                    .unwrap()
                    .iter()
                    .map(|&v| v.into())
                    .collect(),
                16 => view
                    .as_native::<u16>()
                    .unwrap()
                    .iter()
                    .map(|&v| v.into())
                    .collect(),
                32 => view
                    .as_native::<u32>()
                    .unwrap()
                    .iter()
                    .map(|&v| v.into())
                    .collect(),
                _ => view.as_native::<u64>().unwrap().to_vec(),
            };
            assert_eq!(widened, values, "bits {bits} len {len}");
            assert!(view.as_native::<u8>().is_none() || bits == 8);
            assert_eq!(
                view.packed_bytes().len(),
                (len * bits as usize).div_ceil(64) * 8
            );
        }
        let odd = SmartArray::from_slice(&values, &ArrayOptions::new().bits(9)).unwrap();
        assert!(odd.local().as_native::<u16>().is_none());
        assert!(odd.local().as_native::<u8>().is_none());
    }
}
