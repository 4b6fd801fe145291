//! Codec operations against a plain `Vec<u64>`: build at a width, random get / get_many / set,
//! range sums and unpacks; every answer must equal the reference's, every bad input a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smartarrays::{codec, ArrayOptions, SmartArray};

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let bits = u32::from(data[0] % 64) + 1;
    let max = codec::max_value(bits);
    let mut reference: Vec<u64> = data[2..]
        .chunks(8)
        .map(|c| {
            let mut word = [0u8; 8];
            word[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(word) & max
        })
        .collect();
    let options = ArrayOptions::new().bits(bits);
    let Ok(mut array) = SmartArray::from_slice(&reference, &options) else {
        panic!("values masked to {bits} bits must fit");
    };
    let len = reference.len();
    assert_eq!(array.to_vec(), reference);
    let sum = reference.iter().fold(0u64, |s, &v| s.wrapping_add(v));
    assert_eq!(array.par_sum(), sum);
    assert_eq!(array.sum(), sum);
    // Operations chosen by the second byte, on indices taken from the data.
    let op = data[1];
    let index = |k: usize| {
        if len == 0 {
            0
        } else {
            (data[k % data.len()] as usize * 7919 + k) % (len + 2)
        }
    };
    for k in 0..(op as usize % 16) {
        let i = index(k);
        match (op >> 4) % 4 {
            0 => assert_eq!(array.get(i).ok(), reference.get(i).copied()),
            1 => {
                let value = u64::from(data[k % data.len()]).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let result = array.set(i, value);
                if i < len && value <= max {
                    assert!(result.is_ok());
                    reference[i] = value;
                } else {
                    assert!(result.is_err());
                }
            }
            2 => {
                let end = index(k + 1).max(i);
                let expected = (end <= len).then(|| {
                    reference[i.min(end)..end]
                        .iter()
                        .fold(0u64, |s, &v| s.wrapping_add(v))
                });
                assert_eq!(array.local().sum_range(i.min(end)..end).ok(), expected);
            }
            _ => {
                let picks: Vec<usize> = (0..k + 1).map(index).collect();
                let mut out = vec![0u64; picks.len()];
                let all_in = picks.iter().all(|&p| p < len);
                assert_eq!(array.get_many(&picks, &mut out).is_ok(), all_in);
                if all_in {
                    assert!(picks.iter().zip(&out).all(|(&p, &v)| reference[p] == v));
                }
            }
        }
    }
    assert_eq!(array.to_vec(), reference);
});
