//! Tables in and out: Arrow record batches, Parquet and CSV files, saved tables; every type at
//! edge lengths, against the values they were built from, and every kind of bad input with
//! the error it must give.

use std::path::PathBuf;
use std::sync::Arc;

use proptest::prelude::*;
use smartarrays_query::arrow::arrow_array::{
    self, Array, ArrayRef, BooleanArray, Date32Array, Date64Array, Decimal128Array,
    DictionaryArray, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array,
    LargeStringArray, RecordBatch, RecordBatchIterator, StringArray, StringViewArray,
    TimestampSecondArray, UInt32Array, UInt64Array, UInt8Array,
};
use smartarrays_query::arrow::arrow_schema::DataType as ArrowType;
use smartarrays_query::arrow::{
    result_to_record_batch, table_from_reader, table_from_record_batches, table_to_reader,
};
use smartarrays_query::encodings::{ColumnOptions, DataType, Values};
use smartarrays_query::load::{self, read_csv, read_csv_bytes, read_parquet, CsvOptions};
use smartarrays_query::{sql, store, tpch, Catalog, Table, Value};

const LENGTHS: [usize; 8] = [0, 1, 63, 64, 65, 1023, 1025, 5000];

/// A scratch path removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("sa-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir.join(name))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Columns of every type, with extreme values.
fn all_types(rows: usize) -> Vec<(String, Values)> {
    let r = |i: usize| i as i64;
    vec![
        (
            "i".into(),
            Values::Int64(
                (0..rows)
                    .map(|i| match i % 7 {
                        0 => i64::MIN,
                        1 => i64::MAX,
                        _ => r(i) * 37 - 1000,
                    })
                    .collect(),
            ),
        ),
        (
            "d".into(),
            Values::Decimal {
                unscaled: (0..rows).map(|i| r(i) * 101 - 7).collect(),
                scale: 2,
            },
        ),
        (
            "t".into(),
            Values::Date32((0..rows).map(|i| (i as i32 % 4000) - 1000).collect()),
        ),
        (
            "s".into(),
            Values::Utf8(
                (0..rows)
                    .map(|i| match i % 5 {
                        0 => String::new(),
                        1 => "ünïcødé, \"quoted\"".to_string(),
                        _ => format!("v{}", i % 13),
                    })
                    .collect(),
            ),
        ),
        (
            "b".into(),
            Values::Bool((0..rows).map(|i| i % 3 == 0).collect()),
        ),
        (
            "f".into(),
            Values::Float64(
                (0..rows)
                    .map(|i| match i % 6 {
                        0 => f64::MAX,
                        1 => -0.5,
                        _ => i as f64 * 0.25,
                    })
                    .collect(),
            ),
        ),
    ]
}

fn values_of(table: &Table) -> Vec<(String, Values)> {
    table
        .columns()
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                c.column.unpack(0..table.rows()).unwrap().values,
            )
        })
        .collect()
}

#[test]
fn arrow_round_trip_every_type_at_edge_lengths() {
    for rows in LENGTHS {
        let values = all_types(rows);
        let table =
            Arc::new(Table::from_values("t", values.clone(), &ColumnOptions::new()).unwrap());
        let back = table_from_reader(
            "u",
            table_to_reader(Arc::clone(&table)),
            &ColumnOptions::new(),
        )
        .unwrap();
        assert_eq!(back.rows(), rows);
        assert_eq!(values_of(&back), values, "rows {rows}");
    }
}

#[test]
fn saved_tables_round_trip_every_type_at_edge_lengths() {
    for rows in LENGTHS {
        let values = all_types(rows);
        let table = Table::from_values("t", values.clone(), &ColumnOptions::new()).unwrap();
        let path = Scratch::new(&format!("t{rows}.sat"));
        store::save(&table, &path.0).unwrap();
        let back = store::load(&path.0, &ColumnOptions::new()).unwrap();
        assert_eq!(
            (back.name(), back.rows()),
            (format!("t{rows}").as_str(), rows)
        );
        assert_eq!(values_of(&back), values, "rows {rows}");
        for (a, b) in table.columns().iter().zip(back.columns()) {
            assert_eq!(
                a.column.encoding_kind(),
                b.column.encoding_kind(),
                "{}",
                a.name
            );
        }
    }
}

#[test]
fn parquet_round_trip_every_type_at_edge_lengths() {
    for rows in LENGTHS {
        let values = all_types(rows);
        let table =
            Arc::new(Table::from_values("t", values.clone(), &ColumnOptions::new()).unwrap());
        let path = Scratch::new(&format!("t{rows}.parquet"));
        let written = load::parquet::write_parquet(&path.0, table_to_reader(table)).unwrap();
        assert_eq!(written, rows as u64);
        let back = read_parquet("t", &path.0, &ColumnOptions::new()).unwrap();
        assert_eq!(values_of(&back), values, "rows {rows}");
    }
}

#[test]
fn csv_round_trip_with_inferred_types() {
    for rows in [1usize, 63, 64, 65, 1025] {
        let mut values = all_types(rows);
        // Floats print as Rust writes them; f64::MAX as 1797...0 (an integer text), so keep
        // fractional ones, and give the strings no empty value (a lone column of "" is text).
        values.retain(|(n, _)| n != "f");
        let table = Table::from_values("t", values.clone(), &ColumnOptions::new()).unwrap();
        let mut text = Vec::new();
        let canonical: Vec<(String, Values)> = values_of(&table);
        let names: Vec<&str> = canonical.iter().map(|(n, _)| n.as_str()).collect();
        text.extend_from_slice(names.join(",").as_bytes());
        text.push(b'\n');
        for row in 0..rows {
            let cells: Vec<String> = canonical
                .iter()
                .map(|(_, v)| {
                    let s = v.scalar(row).unwrap().to_string();
                    if s.contains([',', '"']) {
                        format!("\"{}\"", s.replace('"', "\"\""))
                    } else {
                        s
                    }
                })
                .collect();
            text.extend_from_slice(cells.join(",").as_bytes());
            text.push(b'\n');
        }
        let back = read_csv_bytes(
            "t",
            "t.csv",
            &text,
            &CsvOptions::new(),
            &ColumnOptions::new(),
        )
        .unwrap();
        let types: Vec<DataType> = back
            .columns()
            .iter()
            .map(|c| c.column.data_type())
            .collect();
        assert_eq!(
            types,
            [
                DataType::Int64,
                DataType::Decimal { scale: 2 },
                DataType::Date32,
                DataType::Utf8,
                DataType::Bool
            ],
            "rows {rows}"
        );
        assert_eq!(values_of(&back), values, "rows {rows}");
    }
}

#[test]
fn csv_inference_picks_the_narrowest_type() {
    let data = b"a,b,c,d,e,f,g\n1,1.5,2024-02-29,true,x,1e3,\n-2,3,1970-01-01,FALSE,1,2.25,z\n";
    let t = read_csv_bytes(
        "t",
        "t.csv",
        data,
        &CsvOptions::new(),
        &ColumnOptions::new(),
    )
    .unwrap();
    let types: Vec<DataType> = t.columns().iter().map(|c| c.column.data_type()).collect();
    assert_eq!(
        types,
        [
            DataType::Int64,
            DataType::Decimal { scale: 1 },
            DataType::Date32,
            DataType::Bool,
            DataType::Utf8,
            DataType::Float64,
            DataType::Utf8
        ]
    );
    assert_eq!(
        values_of(&t)[1].1,
        Values::Decimal {
            unscaled: vec![15, 30],
            scale: 1
        }
    );
    // 19 digits do not fit an exact decimal: a double.
    let wide = read_csv_bytes(
        "t",
        "t.csv",
        b"x\n12345678901234567.89\n",
        &CsvOptions::new(),
        &ColumnOptions::new(),
    )
    .unwrap();
    assert_eq!(wide.columns()[0].column.data_type(), DataType::Float64);
    // No header: column1, column2; pipes and no quoting.
    let bare = read_csv_bytes(
        "t",
        "t.tbl",
        b"1|a\"b\n2|c\n",
        &CsvOptions::new().delimiter(b'|').header(false).quote(None),
        &ColumnOptions::new(),
    )
    .unwrap();
    assert_eq!(bare.columns()[1].name, "column2");
    assert_eq!(
        values_of(&bare)[1].1,
        Values::Utf8(vec!["a\"b".into(), "c".into()])
    );
}

#[test]
fn csv_errors_name_the_line_and_column() {
    let schema = vec![
        ("l_orderkey".to_string(), DataType::Int64),
        ("l_price".to_string(), DataType::Decimal { scale: 2 }),
        ("l_shipdate".to_string(), DataType::Date32),
        ("l_quantity".to_string(), DataType::Int64),
        ("l_flag".to_string(), DataType::Bool),
    ];
    let options = CsvOptions::new().schema(schema);
    let check = |data: &str, expected: &str| {
        let error = read_csv_bytes(
            "t",
            "lineitem.csv",
            data.as_bytes(),
            &options,
            &ColumnOptions::new(),
        )
        .unwrap_err();
        assert_eq!(error.to_string(), expected);
    };
    let header = "a,b,c,d,e\n";
    let good = "1,2.50,1998-01-02,4,true\n";
    check(
        &format!("{header}{good}{good}1,2.50,1998-01-02,x1,true\n"),
        "lineitem.csv: line 4, column 4 (l_quantity): 'x1' is not an integer",
    );
    check(&format!("{header}{good}1,2.505,1998-01-02,4,true\n"), "lineitem.csv: line 3, column 2 (l_price): '2.505' is not a decimal of scale 2: it has more than 2 digits after the point");
    check(
        &format!("{header}1,2.50,1998-02-30,4,true\n"),
        "lineitem.csv: line 2, column 3 (l_shipdate): '1998-02-30' is not a date (YYYY-MM-DD)",
    );
    check(&format!("{header}99999999999999999999,2.50,1998-01-02,4,true\n"), "lineitem.csv: line 2, column 1 (l_orderkey): '99999999999999999999' does not fit a 64-bit integer");
    check(
        &format!("{header}1,2.50,1998-01-02,4,yes\n"),
        "lineitem.csv: line 2, column 5 (l_flag): 'yes' is not a boolean (true or false)",
    );
    check(
        &format!("{header}1,,1998-01-02,4,true\n"),
        "lineitem.csv: line 2, column 2 (l_price): empty value (tables have no nulls yet)",
    );
    check(
        &format!("{header}{good}1,2.50,1998-01-02\n"),
        "lineitem.csv: line 3: 3 fields, expected 5",
    );
    check(
        "a,b\n",
        "lineitem.csv: the header has 2 fields, the schema 5 columns",
    );
    check("", "lineitem.csv: empty file: no header line");
    // Inferred types: a later line that breaks the pattern widens the type, never fails.
    let t = read_csv_bytes(
        "t",
        "t.csv",
        b"q\n1\n2\nx1\n",
        &CsvOptions::new(),
        &ColumnOptions::new(),
    )
    .unwrap();
    assert_eq!(t.columns()[0].column.data_type(), DataType::Utf8);
    // Ragged lines with inference name the line too.
    let e = read_csv_bytes(
        "t",
        "t.csv",
        b"a,b\n1,2\n3\n",
        &CsvOptions::new(),
        &ColumnOptions::new(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "t.csv: line 3: 1 fields, expected 2");
    // A file that is not there.
    let e = read_csv(
        "t",
        std::path::Path::new("/nonexistent/x.csv"),
        &CsvOptions::new(),
        &ColumnOptions::new(),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("/nonexistent/x.csv: "), "{e}");
}

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

#[test]
fn arrow_types_map_to_columns() {
    let dict: DictionaryArray<arrow_array::types::Int8Type> =
        vec!["x", "y", "x"].into_iter().collect();
    let b = batch(vec![
        (
            "i8",
            Arc::new(Int8Array::from(vec![-128, 0, 127])) as ArrayRef,
        ),
        ("i16", Arc::new(Int16Array::from(vec![-1, 0, 1]))),
        (
            "i32",
            Arc::new(Int32Array::from(vec![i32::MIN, 0, i32::MAX])),
        ),
        (
            "i64",
            Arc::new(Int64Array::from(vec![i64::MIN, 0, i64::MAX])),
        ),
        ("u8", Arc::new(UInt8Array::from(vec![0, 1, 255]))),
        ("u32", Arc::new(UInt32Array::from(vec![0, 1, u32::MAX]))),
        (
            "u64",
            Arc::new(UInt64Array::from(vec![0, 1, i64::MAX as u64])),
        ),
        (
            "dec",
            Arc::new(
                Decimal128Array::from(vec![-1, 0, 1234])
                    .with_precision_and_scale(15, 3)
                    .unwrap(),
            ),
        ),
        (
            "d64",
            Arc::new(Date64Array::from(vec![0, 86_400_000, -86_400_000])),
        ),
        ("d32", Arc::new(Date32Array::from(vec![0, 1, -1]))),
        (
            "large",
            Arc::new(LargeStringArray::from(vec!["a", "", "c"])),
        ),
        (
            "view",
            Arc::new(StringViewArray::from(vec![
                "a long string beyond twelve bytes",
                "b",
                "",
            ])),
        ),
        ("dict", Arc::new(dict)),
        ("f32", Arc::new(Float32Array::from(vec![0.5, -1.0, 2.0]))),
        (
            "f64",
            Arc::new(Float64Array::from(vec![0.5, -1.0, f64::MIN])),
        ),
        (
            "flag",
            Arc::new(BooleanArray::from(vec![true, false, true])),
        ),
    ]);
    let t = table_from_record_batches(
        "t",
        batch_schema(&b),
        vec![b.clone(), b],
        &ColumnOptions::new(),
    )
    .unwrap();
    assert_eq!(t.rows(), 6);
    let v = values_of(&t);
    assert_eq!(v[0].1, Values::Int64(vec![-128, 0, 127, -128, 0, 127]));
    assert_eq!(v[6].1, Values::Int64(vec![0, 1, i64::MAX, 0, 1, i64::MAX]));
    assert_eq!(
        v[7].1,
        Values::Decimal {
            unscaled: vec![-1, 0, 1234, -1, 0, 1234],
            scale: 3
        }
    );
    assert_eq!(v[8].1, Values::Date32(vec![0, 1, -1, 0, 1, -1]));
    assert_eq!(
        v[11].1,
        Values::Utf8(
            [
                "a long string beyond twelve bytes",
                "b",
                "",
                "a long string beyond twelve bytes",
                "b",
                ""
            ]
            .map(String::from)
            .to_vec()
        )
    );
    assert_eq!(
        v[12].1,
        Values::Utf8(["x", "y", "x", "x", "y", "x"].map(String::from).to_vec())
    );
    assert_eq!(
        v[13].1,
        Values::Float64(vec![0.5, -1.0, 2.0, 0.5, -1.0, 2.0])
    );
    assert_eq!(
        v[15].1,
        Values::Bool(vec![true, false, true, true, false, true])
    );
}

fn batch_schema(b: &RecordBatch) -> smartarrays_query::arrow::arrow_schema::SchemaRef {
    b.schema()
}

#[test]
fn a_record_batch_of_no_columns_or_rows_is_a_table() {
    let b = batch(vec![(
        "x",
        Arc::new(Int64Array::from(Vec::<i64>::new())) as ArrayRef,
    )]);
    let t = table_from_record_batches("t", b.schema(), vec![], &ColumnOptions::new()).unwrap();
    assert_eq!((t.rows(), t.columns().len()), (0, 1));
}

#[test]
fn bad_arrow_input_names_the_column_and_row() {
    let load = |b: RecordBatch| {
        table_from_record_batches("t", b.schema(), vec![b], &ColumnOptions::new())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        load(batch(vec![("ts", Arc::new(TimestampSecondArray::from(vec![1])) as ArrayRef)])),
        "t: column ts: Arrow type Timestamp(s) is not supported (integers, decimals of scale 0 to 18, dates, strings, booleans and floats are)"
    );
    assert_eq!(
        load(batch(vec![(
            "x",
            Arc::new(Int32Array::from(vec![Some(1), Some(2), None])) as ArrayRef
        )])),
        "t: row 3, column 1 (x): null (tables have no nulls yet)"
    );
    assert_eq!(
        load(batch(vec![
            ("a", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef),
            (
                "u",
                Arc::new(UInt64Array::from(vec![1, u64::MAX])) as ArrayRef
            ),
        ])),
        "t: row 2, column 2 (u): 18446744073709551615 does not fit a 64-bit signed integer"
    );
    assert_eq!(
        load(batch(vec![(
            "d",
            Arc::new(
                Decimal128Array::from(vec![1, i128::from(i64::MAX) + 1])
                    .with_precision_and_scale(38, 2)
                    .unwrap()
            ) as ArrayRef
        )])),
        "t: row 2, column 1 (d): 92233720368547758.08 does not fit a decimal of 64 bits"
    );
    assert_eq!(
        load(batch(vec![(
            "d",
            Arc::new(
                Decimal128Array::from(vec![1])
                    .with_precision_and_scale(38, 20)
                    .unwrap()
            ) as ArrayRef
        )])),
        "t: column d: decimal scale 20 (0 to 18 are supported)"
    );
    assert_eq!(
        load(batch(vec![(
            "t",
            Arc::new(Date64Array::from(vec![0, 1000])) as ArrayRef
        )])),
        "t: row 2, column 1 (t): Date64 1000 ms is not a whole day in the 32-bit range"
    );
}

fn tpch_catalog() -> Catalog {
    tpch::generate(0.01, &ColumnOptions::new(), |_, _, _| {}).unwrap()
}

const CHECKS: [&str; 3] = [
    "select l_returnflag, l_linestatus, sum(l_quantity) as q, sum(l_extendedprice * (1 - l_discount)) as r, count(*) as n from lineitem where l_shipdate <= date '1998-09-02' group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus",
    "select sum(l_extendedprice * l_discount) as revenue from lineitem where l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01' and l_discount between 0.05 and 0.07 and l_quantity < 24",
    "select n_name, count(*) as n from nation, region where n_regionkey = r_regionkey and r_name = 'ASIA' group by n_name order by n_name",
];

#[test]
fn tpch_through_parquet_csv_and_saved_files_gives_the_same_answers() {
    let generated = tpch_catalog();
    let mut via_parquet = Catalog::new();
    let mut via_csv = Catalog::new();
    let mut via_saved = Catalog::new();
    for name in ["lineitem", "nation", "region"] {
        let table = generated.get(name).unwrap();
        let parquet = Scratch::new(&format!("{name}.parquet"));
        let rows = load::parquet::write_parquet(
            &parquet.0,
            table_to_reader(Arc::new(
                tpch::table(name, 0.01, &ColumnOptions::new()).unwrap(),
            )),
        )
        .unwrap();
        assert_eq!(rows, table.rows() as u64);
        via_parquet.insert(load::load_table(name, &parquet.0, &ColumnOptions::new()).unwrap());
        let csv = Scratch::new(&format!("{name}.tbl"));
        let mut file = std::fs::File::create(&csv.0).unwrap();
        tpch::write_csv(&tpch::table_values(name, 0.01).unwrap(), &mut file).unwrap();
        via_csv.insert(load::load_table(name, &csv.0, &ColumnOptions::new()).unwrap());
        let saved = Scratch::new(&format!("{name}.sat"));
        store::save(table, &saved.0).unwrap();
        via_saved.insert(load::load_table(name, &saved.0, &ColumnOptions::new()).unwrap());
    }
    for query in CHECKS {
        let expected = sql(&generated, query).unwrap();
        assert!(!expected.rows.is_empty());
        assert_eq!(
            sql(&via_parquet, query).unwrap(),
            expected,
            "parquet: {query}"
        );
        assert_eq!(sql(&via_saved, query).unwrap(), expected, "saved: {query}");
        // CSV infers l_quantity as an integer and the prices as decimals of scale 2, like
        // the generator; the results agree exactly.
        assert_eq!(sql(&via_csv, query).unwrap(), expected, "csv: {query}");
    }
}

#[test]
fn bad_parquet_files_are_errors_naming_the_file() {
    let table = Arc::new(tpch::table("nation", 0.01, &ColumnOptions::new()).unwrap());
    let path = Scratch::new("nation.parquet");
    load::parquet::write_parquet(&path.0, table_to_reader(table)).unwrap();
    let bytes = std::fs::read(&path.0).unwrap();
    let name = path.0.display().to_string();
    for cut in [0, 3, 100, bytes.len() / 2, bytes.len() - 1] {
        let bad = Scratch::new(&format!("cut{cut}.parquet"));
        std::fs::write(&bad.0, &bytes[..cut]).unwrap();
        let e = read_parquet("t", &bad.0, &ColumnOptions::new())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(&bad.0.display().to_string()), "{e}");
    }
    let text = Scratch::new("text.parquet");
    std::fs::write(&text.0, b"not parquet at all, just text").unwrap();
    let e = read_parquet("t", &text.0, &ColumnOptions::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("text.parquet") && e.to_lowercase().contains("parquet"),
        "{e}"
    );
    assert!(
        read_parquet("t", &path.0, &ColumnOptions::new()).is_ok(),
        "{name}"
    );
}

#[test]
fn corrupted_or_truncated_saved_tables_are_clear_errors() {
    let table = Table::from_values("t", all_types(1025), &ColumnOptions::new()).unwrap();
    let path = Scratch::new("good.sat");
    store::save(&table, &path.0).unwrap();
    let bytes = std::fs::read(&path.0).unwrap();
    let bad = Scratch::new("bad.sat");
    let load_bytes = |data: &[u8]| {
        std::fs::write(&bad.0, data).unwrap();
        store::load(&bad.0, &ColumnOptions::new())
            .unwrap_err()
            .to_string()
    };
    let name = bad.0.display().to_string();
    // Truncated anywhere.
    for cut in [0, 10, 63, 64, 200, bytes.len() / 2, bytes.len() - 1] {
        let e = load_bytes(&bytes[..cut]);
        assert!(e.starts_with(&name), "{e}");
        assert!(
            e.contains("truncated") || e.contains("checksum"),
            "cut {cut}: {e}"
        );
    }
    assert_eq!(
        load_bytes(&bytes[..10]),
        format!("{name}: truncated: 10 bytes, a saved table's header alone has 64")
    );
    // A flipped bit anywhere is caught by a checksum (or the magic).
    for at in [
        0usize,
        9,
        20,
        64,
        100,
        5000,
        bytes.len() / 2,
        bytes.len() - 5,
    ] {
        let mut data = bytes.clone();
        data[at] ^= 0x10;
        let e = load_bytes(&data);
        assert!(
            e.contains("corrupted") || e.contains("magic"),
            "byte {at}: {e}"
        );
    }
    let mut data = bytes.clone();
    data[0] = b'X';
    assert_eq!(
        load_bytes(&data),
        format!("{name}: not a saved table (wrong magic bytes)")
    );
    // Another version (with a correct header checksum) is named.
    let mut data = bytes.clone();
    data[8] = 9;
    let crc = crc_of(&data[..56]);
    data[56..60].copy_from_slice(&crc.to_le_bytes());
    assert_eq!(
        load_bytes(&data),
        format!("{name}: format version 9 (this build reads versions 1 and 2)")
    );
    // The good file still loads; no temporary file is left behind.
    assert_eq!(
        store::load(&path.0, &ColumnOptions::new()).unwrap().rows(),
        1025
    );
    assert!(!path.0.with_extension("sat.tmp").exists());
}

/// CRC-32 (IEEE), bit by bit: an independent reference for the format's checksums.
fn crc_of(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn results_export_with_their_types() {
    let catalog = tpch_catalog();
    let result = sql(
        &catalog,
        "select l_returnflag, count(*) as n, sum(l_extendedprice) as s, avg(l_quantity) as a, min(l_shipdate) as d from lineitem group by l_returnflag order by l_returnflag",
    )
    .unwrap();
    let b = result_to_record_batch(&result).unwrap();
    let types: Vec<ArrowType> = b
        .schema()
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        [
            ArrowType::Utf8,
            ArrowType::Int64,
            ArrowType::Decimal128(38, 2),
            ArrowType::Float64,
            ArrowType::Date32
        ]
    );
    assert_eq!(b.num_rows(), result.rows.len());
    let n = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
    let s = b
        .column(2)
        .as_any()
        .downcast_ref::<Decimal128Array>()
        .unwrap();
    let flags = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
    for (i, row) in result.rows.iter().enumerate() {
        assert_eq!(row[0], Value::Str(flags.value(i).to_string()));
        assert_eq!(row[1], Value::Int(i128::from(n.value(i))));
        assert_eq!(
            row[2],
            Value::Decimal {
                unscaled: s.value(i),
                scale: 2
            }
        );
    }
    // An aggregate over no rows is a null; an empty result keeps its schema.
    let none = sql(
        &catalog,
        "select sum(l_quantity) as q from lineitem where l_quantity > 1000",
    )
    .unwrap();
    let b = result_to_record_batch(&none).unwrap();
    assert_eq!((b.num_rows(), b.column(0).null_count()), (1, 1));
    let empty = sql(
        &catalog,
        "select l_orderkey from lineitem where l_quantity > 1000",
    )
    .unwrap();
    let b = result_to_record_batch(&empty).unwrap();
    assert_eq!(
        (b.num_rows(), b.schema().field(0).data_type().clone()),
        (0, ArrowType::Int64)
    );
    // A result's batches read back as a table.
    let batch = result_to_record_batch(&result).unwrap();
    let reader = RecordBatchIterator::new(vec![Ok(batch.clone())], batch.schema());
    let back = table_from_reader("r", reader, &ColumnOptions::new()).unwrap();
    assert_eq!(back.rows(), result.rows.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn saved_and_arrow_round_trips_match_a_plain_reference(
        ints in proptest::collection::vec(any::<i64>(), 0..300),
        words in proptest::collection::vec("[a-z0-9 ]{0,12}", 0..300),
    ) {
        let rows = ints.len().min(words.len());
        let values = vec![
            ("i".to_string(), Values::Int64(ints[..rows].to_vec())),
            ("w".to_string(), Values::Utf8(words[..rows].to_vec())),
        ];
        let table = Arc::new(Table::from_values("p", values.clone(), &ColumnOptions::new()).unwrap());
        let path = Scratch::new(&format!("p{rows}-{}.sat", ints.first().copied().unwrap_or(0)));
        store::save(&table, &path.0).unwrap();
        prop_assert_eq!(values_of(&store::load(&path.0, &ColumnOptions::new()).unwrap()), values.clone());
        let back = table_from_reader("p", table_to_reader(table), &ColumnOptions::new()).unwrap();
        prop_assert_eq!(values_of(&back), values);
    }
}

/// A version 1 file (plain values; the format before packed parts), written here byte by byte
/// from the format's description: it still loads, with its values and its recorded encoding.
#[test]
fn version_1_saved_tables_still_load() {
    let ints: Vec<i64> = vec![-5, 0, 7, i64::MAX, i64::MIN, 42];
    let texts = ["", "a", "ü-long text", "x", "", "end"];
    let mut file = vec![0u8; 64];
    let mut directory = Vec::new();
    let section = |file: &mut Vec<u8>, directory: &mut Vec<u8>, bytes: &[u8]| {
        while !file.len().is_multiple_of(64) {
            file.push(0);
        }
        directory.extend_from_slice(&(file.len() as u64).to_le_bytes());
        directory.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        directory.extend_from_slice(&crc_of(bytes).to_le_bytes());
        file.extend_from_slice(bytes);
    };
    // Column "n": Int64 (type 1), scale 0, saved as frame-of-reference (encoding 1).
    directory.extend_from_slice(&1u16.to_le_bytes());
    directory.extend_from_slice(b"n");
    directory.extend_from_slice(&[1, 0, 1]);
    let values: Vec<u8> = ints.iter().flat_map(|v| v.to_le_bytes()).collect();
    section(&mut file, &mut directory, &values);
    // Column "s": Utf8 (type 5), no recorded encoding (255): offsets, then bytes.
    directory.extend_from_slice(&1u16.to_le_bytes());
    directory.extend_from_slice(b"s");
    directory.extend_from_slice(&[5, 0, 255]);
    let mut offsets = vec![0u64];
    let mut bytes = Vec::new();
    for t in texts {
        bytes.extend_from_slice(t.as_bytes());
        offsets.push(bytes.len() as u64);
    }
    let offsets: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    section(&mut file, &mut directory, &offsets);
    section(&mut file, &mut directory, &bytes);
    while !file.len().is_multiple_of(64) {
        file.push(0);
    }
    let directory_offset = file.len() as u64;
    file.extend_from_slice(&directory);
    file[0..8].copy_from_slice(b"SATABLE\0");
    file[8..12].copy_from_slice(&1u32.to_le_bytes());
    file[12..16].copy_from_slice(&2u32.to_le_bytes());
    file[16..24].copy_from_slice(&(ints.len() as u64).to_le_bytes());
    file[24..32].copy_from_slice(&directory_offset.to_le_bytes());
    file[32..40].copy_from_slice(&(directory.len() as u64).to_le_bytes());
    file[40..44].copy_from_slice(&crc_of(&directory).to_le_bytes());
    let header_crc = crc_of(&file[..56]);
    file[56..60].copy_from_slice(&header_crc.to_le_bytes());
    let path = Scratch::new("old.sat");
    std::fs::write(&path.0, &file).unwrap();
    let table = store::load(&path.0, &ColumnOptions::new()).unwrap();
    assert_eq!((table.name(), table.rows()), ("old", ints.len()));
    let n = table.column("n").unwrap();
    assert_eq!(n.unpack(0..ints.len()).unwrap().values, Values::Int64(ints));
    assert_eq!(
        n.encoding_kind(),
        smartarrays_query::encodings::EncodingKind::Frame
    );
    let s = table.column("s").unwrap();
    assert_eq!(
        s.unpack(0..texts.len()).unwrap().values,
        Values::Utf8(texts.iter().map(|t| t.to_string()).collect())
    );
    // Saved again, it is version 2, and equal.
    let again = Scratch::new("again.sat");
    store::save(&table, &again.0).unwrap();
    assert_eq!(std::fs::read(&again.0).unwrap()[8], 2);
    let back = store::load(&again.0, &ColumnOptions::new()).unwrap();
    assert_eq!(values_of(&back), values_of(&table));
}
