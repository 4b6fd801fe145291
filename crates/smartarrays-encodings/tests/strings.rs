//! Utf8 columns: the sorted dictionary and FSST against a plain `Vec<String>` (empty, unicode
//! and very long strings, nulls), prefix and LIKE filters against plain evaluation, the
//! compressor's choice, every placement on a described two-node machine.

mod common;

use common::{check, two_node_options, two_node_runtime};
use proptest::prelude::*;
use smartarrays::Placement;
use smartarrays_encodings::{Column, ColumnOptions, DataType, EncodingKind, Predicate, Scalar};

const LENGTHS: [usize; 7] = [0, 1, 63, 64, 65, 1023, 1025];
const KINDS: [EncodingKind; 2] = [EncodingKind::Dictionary, EncodingKind::Fsst];

fn words(len: usize) -> Vec<String> {
    let pool = [
        "",
        "a",
        "ab",
        "abc",
        "b",
        "Grüße",
        "日本語のテキスト",
        "emoji 🦀🦀",
        "100%_sure",
        "a\\b",
        "the quick brown fox",
        "the quick red fox",
    ];
    let long = "x".repeat(20_000) + "tail";
    (0..len)
        .map(|i| match i % 17 {
            16 => long.clone(),
            15 => format!("row {i}"),
            k => pool[k % pool.len()].to_string(),
        })
        .collect()
}

fn string_predicates() -> Vec<Predicate> {
    vec![
        Predicate::prefix(""),
        Predicate::prefix("a"),
        Predicate::prefix("the quick"),
        Predicate::prefix("zzz"),
        Predicate::like("%"),
        Predicate::like("a_"),
        Predicate::like("%fox"),
        Predicate::like("the % fox"),
        Predicate::like("_rü%"),
        Predicate::like("100\\%\\_%"),
        Predicate::like("%x%tail"),
        Predicate::like("row 1%"),
        Predicate::eq("Grüße"),
        Predicate::eq("missing"),
        Predicate::is_in(["ab", "b", "nope", ""]),
        Predicate::range("a".."b"),
        Predicate::range("the"..),
        Predicate::range(..="abc"),
    ]
}

fn check_strings(column: &Column, expected: &[Scalar], context: &str) {
    check(column, expected, context);
    for predicate in string_predicates() {
        let want: Vec<usize> = (0..expected.len())
            .filter(|&i| predicate.matches(&expected[i]).unwrap())
            .collect();
        assert_eq!(
            column.filter(&predicate).unwrap().row_ids(),
            want,
            "{context}: {predicate:?}"
        );
    }
}

fn scalars(values: &[String]) -> Vec<Scalar> {
    values.iter().map(|s| Scalar::Utf8(s.clone())).collect()
}

#[test]
fn strings_round_trip_in_both_encodings_at_every_edge_length() {
    for len in LENGTHS {
        let values = words(len);
        for kind in KINDS {
            let options = ColumnOptions::new()
                .array(two_node_options())
                .encoding(kind);
            let column = Column::from_strs(&values, &options).unwrap();
            assert_eq!(column.encoding_kind(), kind);
            check_strings(&column, &scalars(&values), &format!("{kind} len {len}"));
        }
    }
}

#[test]
fn nullable_and_all_null_string_columns_round_trip() {
    let values = words(300);
    let nullable: Vec<Scalar> = values
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i % 4 == 2 {
                Scalar::Null
            } else {
                Scalar::Utf8(s.clone())
            }
        })
        .collect();
    for kind in KINDS {
        let options = ColumnOptions::new().encoding(kind);
        let column = Column::from_scalars(DataType::Utf8, &nullable, &options).unwrap();
        check_strings(&column, &nullable, &format!("{kind} nullable"));
        let nulls = vec![Scalar::Null; 70];
        let empty = Column::from_scalars(DataType::Utf8, &nulls, &options).unwrap();
        check_strings(&empty, &nulls, &format!("{kind} all null"));
        assert!(empty.sum().is_err());
    }
}

#[test]
fn low_cardinality_chooses_a_dictionary_and_free_text_fsst() {
    let flags: Vec<&str> = (0..20_000).map(|i| ["R", "A", "N"][i * 7 % 3]).collect();
    let column = Column::from_strs(&flags, &ColumnOptions::new()).unwrap();
    assert_eq!(
        column.encoding_kind(),
        EncodingKind::Dictionary,
        "{}",
        column.explanation()
    );
    // Two bits a row, plus the three strings.
    assert!(
        column.packed_bytes() < 20_000 / 4 + 100,
        "{}",
        column.memory_report()
    );
    let text: Vec<String> = (0..5_000)
        .map(|i| {
            format!(
                "customer {i} ordered {} units of part #{}",
                i % 50,
                i * 31 % 997
            )
        })
        .collect();
    let column = Column::from_strs(&text, &ColumnOptions::new().measure_all(true)).unwrap();
    assert_eq!(
        column.encoding_kind(),
        EncodingKind::Fsst,
        "{}",
        column.explanation()
    );
    let raw: usize = text.iter().map(String::len).sum();
    assert!(
        column.packed_bytes() < raw * 2 / 3,
        "{}",
        column.memory_report()
    );
    check_strings(&column, &scalars(&text), "fsst text");
}

#[test]
fn every_placement_on_a_two_node_machine_holds_the_same_strings() {
    let values = words(600);
    let topology = two_node_runtime().topology().clone();
    for placement in Placement::all(&topology) {
        for kind in KINDS {
            let options = ColumnOptions::new()
                .array(two_node_options().placement(placement.clone()))
                .encoding(kind);
            let column = Column::from_strs(&values, &options).unwrap();
            assert_eq!(column.placement(), &placement);
            check_strings(&column, &scalars(&values), &format!("{placement} {kind}"));
            let replicas = if placement == Placement::Replicated {
                2
            } else {
                1
            };
            let reports = column.placement_report().unwrap();
            assert!(!reports.is_empty());
            assert!(
                reports.iter().all(|(_, r)| r.replicas.len() == replicas),
                "{placement}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn string_encodings_agree_with_a_vec(
        values in prop::collection::vec(
            prop_oneof![
                "[ab%_]{0,4}",
                "\\PC{0,6}",
                Just("prefix-shared".to_string()),
            ],
            0..120,
        ),
        pattern in "[ab%_]{0,4}",
        prefix in "[ab]{0,2}",
        pick in any::<prop::sample::Index>(),
        cut in 0usize..14,
    ) {
        // A prefix cut from a value, so long prefixes that match (and the FSST prefix check
        // decoding several symbols) are common.
        let cut_prefix: String = if values.is_empty() {
            String::new()
        } else {
            values[pick.index(values.len())].chars().take(cut).collect()
        };
        for kind in KINDS {
            let column = Column::from_strs(&values, &ColumnOptions::new().encoding(kind)).unwrap();
            let expected = scalars(&values);
            check(&column, &expected, &format!("{kind}"));
            for predicate in [
                Predicate::like(pattern.clone()),
                Predicate::prefix(prefix.clone()),
                Predicate::prefix(cut_prefix.clone()),
            ] {
                let want: Vec<usize> = (0..values.len())
                    .filter(|&i| predicate.matches(&expected[i]).unwrap())
                    .collect();
                prop_assert_eq!(column.filter(&predicate).unwrap().row_ids(), want);
            }
        }
    }
}

/// `FsstStrings::retain` keeps the rows whose decompressed bytes pass, from any start, with
/// long rows (20,000 bytes), unicode and escaped bytes; an offset past the end is an error.
#[test]
fn fsst_retain_tests_decompressed_bytes_at_every_edge_length() {
    use smartarrays_encodings::strings::{FsstStrings, StringEncoding};
    use smartarrays_encodings::{Encoding, LikePattern};
    let patterns = ["%quick%fox", "%🦀%", "x%tail", "%_sure", "%", "a"];
    for len in LENGTHS {
        let values = words(len);
        let fsst = FsstStrings::new(&values, &Default::default()).unwrap();
        for pattern in patterns {
            let like = LikePattern::new(pattern).unwrap();
            for start in [0, len / 3] {
                let mut rows: Vec<u32> = (0..(len - start) as u32).collect();
                fsst.retain(start, &mut rows, |bytes| like.matches_bytes(bytes))
                    .unwrap();
                let want: Vec<u32> = (0..(len - start) as u32)
                    .filter(|&j| like.matches(&values[start + j as usize]))
                    .collect();
                assert_eq!(rows, want, "{pattern} from {start} of {len}");
            }
        }
        let mut past = vec![len as u32];
        assert!(fsst.retain(0, &mut past, |_| true).is_err(), "len {len}");
    }
    // Through a column.
    let values = words(1025);
    let column =
        Column::from_strs(&values, &ColumnOptions::new().encoding(EncodingKind::Fsst)).unwrap();
    let Encoding::Strings(StringEncoding::Fsst(fsst)) = column.encoding() else {
        panic!("not FSST");
    };
    let mut rows: Vec<u32> = (0..1025).step_by(2).collect();
    fsst.retain(0, &mut rows, |bytes| bytes == "ab".as_bytes())
        .unwrap();
    assert!(rows.iter().all(|&r| values[r as usize] == "ab"));
    assert_eq!(
        rows.len(),
        (0..1025).step_by(2).filter(|&r| values[r] == "ab").count()
    );
}

/// `FsstStrings::decompress_selected` puts the selected rows' text one after the other, and
/// `LikePattern::matches_batch` over it agrees with `LikePattern::matches` row by row: from
/// any start, every other row or all, at every edge length, with long rows, unicode, a
/// literal that runs across two rows, and empty rows; an offset past the end is an error.
#[test]
fn fsst_batches_and_batch_like_agree_with_row_by_row_at_every_edge_length() {
    use smartarrays_encodings::strings::{FsstStrings, TextBatch};
    use smartarrays_encodings::LikePattern;
    let patterns = [
        "%quick%fox",
        "%quick%fox%",
        "%🦀%",
        "x%tail",
        "%_sure",
        "%",
        "a",
        "%b%",
        "%ba%",
        "%x%tail%",
        "%ro%w%",
        "a%b%c",
    ];
    let mut batch = TextBatch::default();
    for len in LENGTHS {
        let values = words(len);
        let fsst = FsstStrings::new(&values, &Default::default()).unwrap();
        for pattern in patterns {
            let like = LikePattern::new(pattern).unwrap();
            for start in [0, len / 3] {
                for step in [1, 2] {
                    let rows: Vec<u32> = (0..(len - start) as u32).step_by(step).collect();
                    fsst.decompress_selected(start, &rows, &mut batch).unwrap();
                    assert_eq!(batch.len(), rows.len());
                    for (i, &j) in rows.iter().enumerate() {
                        assert_eq!(batch.get(i), values[start + j as usize].as_bytes());
                    }
                    let mut verdicts = vec![false; batch.len()];
                    like.matches_batch(&batch, &mut verdicts);
                    let want: Vec<bool> = rows
                        .iter()
                        .map(|&j| like.matches(&values[start + j as usize]))
                        .collect();
                    assert_eq!(verdicts, want, "{pattern} from {start} of {len}");
                }
            }
        }
        assert!(fsst
            .decompress_selected(0, &[len as u32], &mut batch)
            .is_err());
    }
    // "ba" only across a boundary ("a" then "b"), then inside a row.
    let batch = TextBatch::from_strings(&["a", "b", "", "xbay"]);
    let mut verdicts = vec![true; 4];
    LikePattern::new("%ba%")
        .unwrap()
        .matches_batch(&batch, &mut verdicts);
    assert_eq!(verdicts, [false, false, false, true]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A batch `LIKE` agrees with the row-by-row one on short strings over a small alphabet
    /// (many hits across rows) and patterns with `%`, `_` and literals.
    #[test]
    fn batch_like_agrees_with_row_by_row(
        values in prop::collection::vec("[abc]{0,5}", 0..80),
        pattern in "[abc%_]{0,6}",
    ) {
        use smartarrays_encodings::strings::TextBatch;
        use smartarrays_encodings::LikePattern;
        let like = LikePattern::new(&pattern).unwrap();
        let batch = TextBatch::from_strings(&values);
        let mut verdicts = vec![false; values.len()];
        like.matches_batch(&batch, &mut verdicts);
        let want: Vec<bool> = values.iter().map(|v| like.matches(v)).collect();
        prop_assert_eq!(verdicts, want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The dictionary is the sorted distinct strings, and each row's code points at its own
    /// string: against a sort and dedup of a `Vec`.
    #[test]
    fn a_string_dictionary_is_the_sorted_distinct_values(
        values in prop::collection::vec(prop_oneof!["[abc]{0,3}", "\\PC{0,5}"], 0..1100),
    ) {
        let dictionary =
            smartarrays_encodings::strings::StringDictionary::new(&values, &Default::default())
                .unwrap();
        let mut want = values.clone();
        want.sort();
        want.dedup();
        prop_assert_eq!(dictionary.values(), want.as_slice());
        for (row, value) in values.iter().enumerate() {
            prop_assert_eq!(&dictionary.get(row).unwrap(), value);
        }
    }
}
