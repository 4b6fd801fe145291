//! `Column::from_parts` against damaged serialised columns: the input builds a valid column
//! (a type, values with edge values, nulls, an encoding forced or chosen), takes its
//! `to_parts`, then damages it as the input says (bytes of the header or a buffer changed,
//! a buffer cut or grown, a buffer dropped or added, the header's checksum resealed or not), or
//! hands the raw input over as a header and buffers. `from_parts` must return a typed error or
//! a column; a column it returns must decode, sum, filter and report without a panic, and an
//! undamaged column must come back equal to the original.
#![no_main]

mod input;

use input::Input;
use libfuzzer_sys::fuzz_target;
use smartarrays_encodings::{
    Column, ColumnOptions, DataType, EncodingError, EncodingKind, Predicate, Scalar,
};

const KINDS: [Option<EncodingKind>; 9] = [
    None,
    Some(EncodingKind::BitPacked),
    Some(EncodingKind::Frame),
    Some(EncodingKind::Dictionary),
    Some(EncodingKind::RunEnd),
    Some(EncodingKind::Delta),
    Some(EncodingKind::Constant),
    Some(EncodingKind::Alp),
    Some(EncodingKind::Fsst),
];

const SPECIAL: [u64; 8] = [
    0,
    1,
    u64::MAX,
    1 << 63,
    (1 << 63) - 1,
    0x7ff8_0000_0000_0001, // a NaN payload
    0x8000_0000_0000_0000, // -0.0
    0x7ff0_0000_0000_0000, // infinity
];

const PIECES: [&str; 8] = [
    "",
    "a",
    "ab",
    "ü",
    "✓✓",
    "TRUCK",
    "free text",
    "https://x.org/",
];

/// A column of the input's choosing (`None` when the encoding cannot hold the values).
fn build(input: &mut Input<'_>) -> Option<Column> {
    let data_type = match input.below(7) {
        0 => DataType::UInt64,
        1 => DataType::Int64,
        2 => DataType::Float64,
        3 => DataType::Decimal {
            scale: input.below(19) as u8,
        },
        4 => DataType::Date32,
        5 => DataType::Utf8,
        _ => DataType::Bool,
    };
    let len = match input.below(6) {
        0 => 0,
        1 => 1,
        2 => 64,
        3 => 65,
        4 => 129,
        _ => input.below(300),
    };
    let nulls = input.below(3) == 0;
    let shape = input.below(4);
    let base = input.u64();
    let mut values = Vec::with_capacity(len);
    for i in 0..len {
        if nulls && input.below(4) == 0 {
            values.push(Scalar::Null);
            continue;
        }
        let raw = match shape {
            0 => base,
            1 => base.wrapping_add(i as u64 * u64::from(input.byte() % 4)),
            2 => SPECIAL[input.below(SPECIAL.len())],
            _ => input.u64(),
        };
        values.push(match data_type {
            DataType::UInt64 => Scalar::UInt64(raw),
            DataType::Int64 => Scalar::Int64(raw as i64),
            DataType::Float64 => Scalar::Float64(f64::from_bits(raw)),
            DataType::Decimal { scale } => Scalar::Decimal {
                unscaled: (raw as i64) / 1000,
                scale,
            },
            DataType::Date32 => Scalar::Date32((raw as i64 % 3_000_000) as i32),
            DataType::Bool => Scalar::Bool(raw % 2 == 1),
            DataType::Utf8 => Scalar::Utf8(
                (0..raw % 4)
                    .map(|k| PIECES[((raw >> (8 * k)) % 8) as usize])
                    .collect(),
            ),
        });
    }
    let mut options = ColumnOptions::new();
    if let Some(kind) = KINDS[input.below(KINDS.len())] {
        options = options.encoding(kind);
    }
    Column::from_scalars(data_type, &values, &options).ok()
}

/// Every read of a column must succeed or fail with a typed error, never panic.
fn exercise(column: &Column) {
    // A constant column may claim any length (it stores one value): whole-column reads only
    // when it is small.
    let len = column.len();
    let _ = column.unpack(0..len.min(1 << 16));
    let _ = column.min_max();
    if len > 0 {
        let _ = column.get(len - 1);
    }
    if len > 1 << 16 {
        return;
    }
    let _ = column.sum();
    let _ = column.statistics();
    if len > 0 {
        let _ = column.get(len - 1);
        let _ = column.take(&[0, len / 2, len - 1]);
        if let Ok(Some(value)) = column.get(len / 2).map(Some) {
            if !value.is_null() {
                let _ = column.filter(&Predicate::Eq(value.clone()));
                let _ = column.filter(&Predicate::In(vec![value]));
            }
        }
        if column.data_type() == DataType::Utf8 {
            let _ = column.filter(&Predicate::like("%a%"));
            let _ = column.filter(&Predicate::prefix("ht"));
        }
    }
    let _ = column.filter(&Predicate::IsNull);
    let _ = column.memory_report();
}

fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn typed(error: &EncodingError) {
    // Every refusal names what was wrong.
    assert!(!error.to_string().is_empty());
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    if input.byte() % 8 == 0 {
        // Raw bytes: a header and up to 4 buffers cut from the input.
        let rest = input.rest();
        let cuts: Vec<usize> = rest
            .iter()
            .take(5)
            .map(|&b| usize::from(b) * rest.len() / 256)
            .collect();
        let mut pieces: Vec<&[u8]> = Vec::new();
        let mut start = cuts.len().min(rest.len());
        for &cut in cuts.iter().skip(1) {
            let end = cut.clamp(start, rest.len());
            pieces.push(&rest[start..end]);
            start = end;
        }
        pieces.push(&rest[start..]);
        match Column::from_parts(pieces[0], &pieces[1..], &ColumnOptions::new()) {
            Ok(column) => exercise(&column),
            Err(error) => typed(&error),
        }
        return;
    }
    let Some(column) = build(&mut input) else {
        return;
    };
    let parts = column.to_parts();
    let mut header = parts.header.clone();
    let mut buffers: Vec<Vec<u8>> = parts.buffers.iter().map(|b| b.to_vec()).collect();
    let mut damaged = false;
    while !input.exhausted() {
        match input.below(6) {
            0 if !header.is_empty() => {
                let at = input.below(header.len());
                header[at] = input.byte();
                damaged = true;
            }
            1 if !buffers.is_empty() => {
                let b = input.below(buffers.len());
                if !buffers[b].is_empty() {
                    let at = input.below(buffers[b].len());
                    buffers[b][at] = input.byte();
                    damaged = true;
                }
            }
            2 if !buffers.is_empty() => {
                let b = input.below(buffers.len());
                let keep = input.below(buffers[b].len() + 1);
                buffers[b].truncate(keep);
                damaged = true;
            }
            3 if !buffers.is_empty() => {
                let b = input.below(buffers.len());
                let grow = input.below(17);
                buffers[b].extend(std::iter::repeat_n(input.byte(), grow));
                damaged = true;
            }
            4 => {
                if input.byte() % 2 == 0 {
                    buffers.pop();
                } else {
                    buffers.push(vec![input.byte(); input.below(16)]);
                }
                damaged = true;
            }
            _ => {
                // Reseal the checksum, so that damage reaches past it.
                if header.len() >= 8 {
                    let body = header.len() - 8;
                    let sum = checksum(&header[..body]);
                    header[body..].copy_from_slice(&sum.to_le_bytes());
                }
            }
        }
    }
    let slices: Vec<&[u8]> = buffers.iter().map(|b| b.as_slice()).collect();
    match Column::from_parts(&header, &slices, &ColumnOptions::new()) {
        Ok(back) => {
            exercise(&back);
            if !damaged {
                assert_eq!(back.encoding_kind(), column.encoding_kind());
                assert_eq!(back.null_count(), column.null_count());
                let (a, b) = (
                    column.unpack(0..column.len()).unwrap(),
                    back.unpack(0..back.len()).unwrap(),
                );
                assert_eq!(format!("{a:?}"), format!("{b:?}"));
            }
        }
        Err(error) => {
            assert!(damaged, "an undamaged column was refused: {error}");
            typed(&error);
        }
    }
});
