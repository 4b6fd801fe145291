//! Float64 columns: ALP and the key encodings against a plain `Vec<f64>`, bit for bit (NaN
//! payloads, -0.0, infinities), filters in IEEE total order, the compressor's choice between
//! ALP and plain doubles.

mod common;

use common::{check, two_node_options};
use proptest::prelude::*;
use smartarrays::Placement;
use smartarrays_encodings::float::Alp;
use smartarrays_encodings::{Column, ColumnOptions, DataType, EncodingKind, Predicate, Scalar};

const LENGTHS: [usize; 7] = [0, 1, 63, 64, 65, 1023, 1025];
const KINDS: [EncodingKind; 5] = [
    EncodingKind::Alp,
    EncodingKind::BitPacked,
    EncodingKind::Frame,
    EncodingKind::Dictionary,
    EncodingKind::RunEnd,
];

fn specials() -> Vec<f64> {
    vec![
        f64::NAN,
        f64::from_bits(0x7FF8_0000_0000_0ABC), // a NaN with a payload
        f64::from_bits(0xFFF8_0000_0000_0001), // a negative NaN
        -0.0,
        0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        5e-324,
        0.1 + 0.2,
    ]
}

fn prices(len: usize) -> Vec<f64> {
    (0..len)
        .map(|i| ((i * 7919) % 100_000 + 90_000) as f64 / 100.0)
        .collect()
}

fn with_specials(len: usize) -> Vec<f64> {
    let specials = specials();
    prices(len)
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            if i % 9 == 4 {
                specials[i / 9 % specials.len()]
            } else {
                v
            }
        })
        .collect()
}

fn scalars(values: &[f64]) -> Vec<Scalar> {
    values.iter().map(|&v| Scalar::Float64(v)).collect()
}

#[test]
fn doubles_round_trip_bit_for_bit_in_every_encoding_and_length() {
    for len in LENGTHS {
        let values = with_specials(len);
        for kind in KINDS {
            let options = ColumnOptions::new()
                .array(two_node_options())
                .encoding(kind);
            let column = Column::from_f64(&values, &options).unwrap();
            assert_eq!(column.encoding_kind(), kind);
            check(&column, &scalars(&values), &format!("f64 {kind} len {len}"));
        }
        let auto = Column::from_f64(&values, &ColumnOptions::new()).unwrap();
        check(&auto, &scalars(&values), &format!("f64 auto len {len}"));
    }
}

#[test]
fn only_specials_and_all_equal_doubles_round_trip() {
    let only = specials();
    let alp = Column::from_f64(&only, &ColumnOptions::new().encoding(EncodingKind::Alp)).unwrap();
    check(&alp, &scalars(&only), "only specials");
    for value in [f64::NAN, -0.0, 2.5] {
        let values = vec![value; 100];
        let column = Column::from_f64(&values, &ColumnOptions::new()).unwrap();
        assert_eq!(column.encoding_kind(), EncodingKind::Constant, "{value}");
        check(&column, &scalars(&values), &format!("constant {value}"));
    }
}

#[test]
fn prices_choose_alp_with_few_bits_and_random_doubles_stay_plain() {
    let values = prices(50_000);
    let column = Column::from_f64(&values, &ColumnOptions::new()).unwrap();
    assert_eq!(
        column.encoding_kind(),
        EncodingKind::Alp,
        "{}",
        column.explanation()
    );
    // 100,000 cents need 17 bits.
    assert!(
        column.memory_report().bytes_per_value() < 2.3,
        "{}",
        column.memory_report()
    );
    let mut state = 1u64;
    let random: Vec<f64> = (0..50_000)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            f64::from_bits(state >> 12 | 0x3FF0_0000_0000_0000) // [1, 2)
        })
        .collect();
    let plain = Column::from_f64(&random, &ColumnOptions::new()).unwrap();
    assert!(
        matches!(
            plain.encoding_kind(),
            EncodingKind::BitPacked | EncodingKind::Frame
        ),
        "{}",
        plain.explanation()
    );
    assert!(plain.memory_report().bytes_per_value() <= 8.01);
}

#[test]
fn alp_filters_decide_exceptions_one_by_one() {
    let values = [
        1.5,
        f64::NAN,
        -0.0,
        0.0,
        2.25,
        f64::INFINITY,
        0.1 + 0.2,
        2.25,
    ];
    let column =
        Column::from_f64(&values, &ColumnOptions::new().encoding(EncodingKind::Alp)).unwrap();
    let rows = |p: Predicate| column.filter(&p).unwrap().row_ids();
    assert_eq!(rows(Predicate::eq(2.25)), vec![4, 7]);
    assert_eq!(rows(Predicate::eq(-0.0)), vec![2]);
    assert_eq!(rows(Predicate::eq(0.0)), vec![3]);
    assert_eq!(rows(Predicate::eq(f64::NAN)), vec![1]);
    assert_eq!(rows(Predicate::range(0.0..=2.0)), vec![0, 3, 6]);
    assert_eq!(rows(Predicate::range(2.0..)), vec![1, 4, 5, 7]);
    assert_eq!(
        rows(Predicate::is_in([0.30000000000000004, 1.5])),
        vec![0, 6]
    );
    assert_eq!(rows(Predicate::eq(1e300)), Vec::<usize>::new());
    if let smartarrays_encodings::Encoding::Alp(alp) = column.encoding() {
        assert_eq!(alp.exception_count(), 4);
    } else {
        panic!("not ALP");
    }
}

#[test]
fn alp_columns_with_nulls_and_replicas_hold_their_values() {
    let values = with_specials(3000);
    let nullable: Vec<Scalar> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if i % 5 == 0 {
                Scalar::Null
            } else {
                Scalar::Float64(v)
            }
        })
        .collect();
    let options = ColumnOptions::new()
        .array(two_node_options().placement(Placement::Replicated))
        .encoding(EncodingKind::Alp);
    let column = Column::from_scalars(DataType::Float64, &nullable, &options).unwrap();
    check(&column, &nullable, "nullable replicated ALP");
    assert!(column
        .memory_report()
        .parts
        .iter()
        .filter(|p| p.bits.is_some())
        .all(|p| p.replicas == 2));
}

#[test]
fn alp_keeps_magnitudes_beyond_two_to_the_53_as_exceptions() {
    let values = [9_007_199_254_740_993.0, 1.0, -9.1e18, 1e19];
    let alp = Alp::with_parameters(&values, 0, 0, &Default::default()).unwrap();
    // 9_007_199_254_740_993 rounds to 2^53 as a double: at the limit, so kept raw too.
    assert_eq!(alp.exception_count(), 3);
    assert_eq!(alp.to_f64_vec(), values.to_vec());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_float_encoding_agrees_with_a_vec(
        values in prop::collection::vec(
            prop_oneof![
                (-100_000i64..100_000).prop_map(|c| c as f64 / 100.0),
                any::<f64>(),
                Just(f64::NAN),
                Just(-0.0),
                Just(f64::NEG_INFINITY),
            ],
            0..200,
        ),
        lo in -1000.0f64..1000.0,
        width in 0.0f64..500.0,
    ) {
        for kind in KINDS {
            let column = Column::from_f64(&values, &ColumnOptions::new().encoding(kind)).unwrap();
            check(&column, &scalars(&values), &format!("{kind}"));
            for predicate in [Predicate::between(lo, lo + width), Predicate::range(..lo), Predicate::eq(lo)] {
                let want: Vec<usize> = (0..values.len())
                    .filter(|&i| predicate.matches(&Scalar::Float64(values[i])).unwrap())
                    .collect();
                prop_assert_eq!(column.filter(&predicate).unwrap().row_ids(), want);
            }
        }
    }
}
