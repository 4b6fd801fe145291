//! Tests of the encoded columns (`sa_column_*`, `sa_selection_*`) and smart collections
//! (`sa_map_*`, `sa_set_*`, `sa_bag_*`) of the C ABI called as C would call them: random columns
//! and batches against plain `Vec`s and `HashMap`s, every status of the error paths, and the
//! last-error texts.
//!
//! The `abi` module is the only place that calls the `unsafe extern "C"` functions.

use std::collections::HashMap;
use std::ffi::CStr;

use proptest::prelude::*;
use smartarrays_ffi::{SaCombine, SaStatus};

mod abi {
    //! Safe wrappers over the C functions for the tests.
    use super::*;
    use smartarrays_ffi::*;
    use std::ffi::{c_char, CString};
    use std::ptr::{null, null_mut};

    pub fn last_error() -> String {
        // SAFETY: the library returns a valid NUL-terminated string owned by it.
        unsafe { CStr::from_ptr(sa_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    fn take_string(text: *mut c_char) -> String {
        // SAFETY: a string handed out by the library, freed once right after reading.
        let owned = unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: as above.
        unsafe { sa_string_free(text) };
        owned
    }

    /// An owned column, freed on drop.
    pub struct Column(*mut SaColumn);

    impl Drop for Column {
        fn drop(&mut self) {
            // SAFETY: the handle came from the library and is freed exactly once.
            unsafe { sa_column_free(self.0) }
        }
    }

    fn bitmap(valid: Option<&[bool]>) -> Option<Vec<u8>> {
        valid.map(|flags| {
            let mut bytes = vec![0u8; flags.len().div_ceil(8)];
            for (i, &ok) in flags.iter().enumerate() {
                bytes[i / 8] |= u8::from(ok) << (i % 8);
            }
            bytes
        })
    }

    pub fn i64_column(
        values: &[i64],
        valid: Option<&[bool]>,
        encoding: Option<&str>,
    ) -> Result<Column, SaStatus> {
        let bits = bitmap(valid);
        let encoding = encoding.map(|e| CString::new(e).unwrap());
        let mut out = null_mut();
        // SAFETY: every buffer is live for the call with the lengths given; `out` is a local.
        let status = unsafe {
            sa_column_from_i64(
                values.as_ptr(),
                values.len(),
                bits.as_ref().map_or(null(), |b| b.as_ptr()),
                encoding.as_ref().map_or(null(), |e| e.as_ptr()),
                null(),
                &mut out,
            )
        };
        if status == SaStatus::Ok {
            Ok(Column(out))
        } else {
            assert!(out.is_null());
            Err(status)
        }
    }

    pub fn utf8_column(values: &[&str], encoding: Option<&str>) -> Result<Column, SaStatus> {
        let bytes: Vec<u8> = values.iter().flat_map(|s| s.bytes()).collect();
        let mut offsets = vec![0usize];
        for s in values {
            offsets.push(offsets.last().unwrap() + s.len());
        }
        let encoding = encoding.map(|e| CString::new(e).unwrap());
        let mut out = null_mut();
        // SAFETY: every buffer is live for the call with the lengths given; `out` is a local.
        let status = unsafe {
            sa_column_from_utf8(
                bytes.as_ptr().cast(),
                bytes.len(),
                offsets.as_ptr(),
                values.len(),
                null(),
                encoding.as_ref().map_or(null(), |e| e.as_ptr()),
                null(),
                &mut out,
            )
        };
        if status == SaStatus::Ok {
            Ok(Column(out))
        } else {
            Err(status)
        }
    }

    impl Column {
        pub fn encoding(&self) -> String {
            let mut text = null_mut();
            // SAFETY: live handle, local slot.
            let status = unsafe { sa_column_encoding(self.0, &mut text) };
            assert_eq!(status, SaStatus::Ok);
            take_string(text)
        }

        pub fn explanation(&self) -> String {
            let mut text = null_mut();
            // SAFETY: live handle, local slot.
            let status = unsafe { sa_column_explanation(self.0, &mut text) };
            assert_eq!(status, SaStatus::Ok);
            take_string(text)
        }

        pub fn get_i64(&self, index: usize) -> Result<Option<i64>, SaStatus> {
            let (mut value, mut valid) = (0i64, false);
            // SAFETY: live handle, local slots.
            match unsafe { sa_column_get_i64(self.0, index, &mut value, &mut valid) } {
                SaStatus::Ok => Ok(valid.then_some(value)),
                status => Err(status),
            }
        }

        pub fn unpack_i64(&self, start: usize, count: usize) -> Result<Vec<Option<i64>>, SaStatus> {
            let mut values = vec![0i64; count];
            let mut bits = vec![0u8; count.div_ceil(8)];
            // SAFETY: live handle; the buffers hold `count` values and ceil(count / 8) bytes.
            let status = unsafe {
                sa_column_unpack_i64(self.0, start, values.as_mut_ptr(), count, bits.as_mut_ptr())
            };
            if status != SaStatus::Ok {
                return Err(status);
            }
            Ok((0..count)
                .map(|i| (bits[i / 8] >> (i % 8) & 1 == 1).then_some(values[i]))
                .collect())
        }

        pub fn sum_i128(&self) -> Result<i128, SaStatus> {
            let (mut low, mut high) = (0u64, 0i64);
            // SAFETY: live handle, local slots.
            match unsafe { sa_column_sum_i128(self.0, &mut low, &mut high) } {
                SaStatus::Ok => Ok((i128::from(high) << 64) | i128::from(low)),
                status => Err(status),
            }
        }

        pub fn sum_i64(&self) -> Result<i64, SaStatus> {
            let mut sum = 0i64;
            // SAFETY: live handle, local slot.
            match unsafe { sa_column_sum_i64(self.0, &mut sum) } {
                SaStatus::Ok => Ok(sum),
                status => Err(status),
            }
        }

        fn selection(
            &self,
            status: SaStatus,
            selection: *mut SaSelection,
        ) -> Result<Vec<usize>, SaStatus> {
            if status != SaStatus::Ok {
                return Err(status);
            }
            let mut count = 0usize;
            // SAFETY: a live selection handle, freed once below.
            unsafe {
                assert_eq!(sa_selection_count(selection, &mut count), SaStatus::Ok);
                let mut ids = vec![0usize; count];
                assert_eq!(
                    sa_selection_row_ids(selection, ids.as_mut_ptr(), count),
                    SaStatus::Ok
                );
                sa_selection_free(selection);
                Ok(ids)
            }
        }

        pub fn range_i64(&self, lo: i64, hi: i64) -> Result<Vec<usize>, SaStatus> {
            let mut selection = null_mut();
            // SAFETY: live handle, local slot.
            let status = unsafe { sa_column_filter_range_i64(self.0, lo, hi, &mut selection) };
            self.selection(status, selection)
        }

        pub fn prefix(&self, prefix: &str) -> Result<Vec<usize>, SaStatus> {
            let mut selection = null_mut();
            // SAFETY: live handle; the prefix is live with its length.
            let status = unsafe {
                sa_column_filter_prefix_utf8(
                    self.0,
                    prefix.as_ptr().cast(),
                    prefix.len(),
                    &mut selection,
                )
            };
            self.selection(status, selection)
        }
    }

    /// An owned map, freed on drop.
    pub struct Map(*mut SaMap);

    impl Drop for Map {
        fn drop(&mut self) {
            // SAFETY: the handle came from the library and is freed exactly once.
            unsafe { sa_map_free(self.0) }
        }
    }

    pub fn map(placement: Option<&str>) -> Result<Map, SaStatus> {
        let placement = placement.map(|p| CString::new(p).unwrap());
        let mut out = null_mut();
        // SAFETY: placement is NULL or live text; `out` is a local.
        match unsafe { sa_map_new(placement.as_ref().map_or(null(), |p| p.as_ptr()), &mut out) } {
            SaStatus::Ok => Ok(Map(out)),
            status => Err(status),
        }
    }

    impl Map {
        pub fn upsert_many(&mut self, keys: &[i64], values: &[i64], op: i32) -> SaStatus {
            assert_eq!(keys.len(), values.len());
            // SAFETY: live handle used only here; the batches are live with their length.
            unsafe { sa_map_upsert_many(self.0, keys.as_ptr(), values.as_ptr(), keys.len(), op) }
        }

        pub fn get_many(&self, keys: &[i64]) -> Vec<Option<i64>> {
            let mut values = vec![0i64; keys.len()];
            let mut found = vec![0u8; keys.len()];
            let mut hits = 0usize;
            // SAFETY: live handle; every buffer holds `keys.len()` entries.
            let status = unsafe {
                sa_map_get_many(
                    self.0,
                    keys.as_ptr(),
                    keys.len(),
                    values.as_mut_ptr(),
                    found.as_mut_ptr(),
                    -1,
                    &mut hits,
                )
            };
            assert_eq!(status, SaStatus::Ok);
            assert_eq!(hits, found.iter().filter(|&&f| f == 1).count());
            values
                .into_iter()
                .zip(found)
                .map(|(v, f)| (f == 1).then_some(v))
                .collect()
        }

        pub fn export(&self) -> Vec<(i64, i64)> {
            let mut len = 0usize;
            // SAFETY: live handle, local slot.
            assert_eq!(unsafe { sa_map_len(self.0, &mut len) }, SaStatus::Ok);
            let (mut keys, mut values, mut written) = (vec![0i64; len], vec![0i64; len], 0usize);
            // SAFETY: live handle; the buffers hold `len` values.
            let status = unsafe {
                sa_map_export(
                    self.0,
                    keys.as_mut_ptr(),
                    values.as_mut_ptr(),
                    len,
                    &mut written,
                )
            };
            assert_eq!(status, SaStatus::Ok);
            assert_eq!(written, len);
            let mut entries: Vec<(i64, i64)> = keys.into_iter().zip(values).collect();
            entries.sort_unstable();
            entries
        }
    }
}

#[test]
fn columns_round_trip_with_nulls_and_extremes() {
    for len in [0usize, 1, 63, 64, 65, 1023, 1025] {
        let values: Vec<i64> = (0..len)
            .map(|i| match i % 4 {
                0 => i64::MIN,
                1 => i64::MAX,
                _ => i as i64 - 500,
            })
            .collect();
        let valid: Vec<bool> = (0..len).map(|i| i % 5 != 2).collect();
        for encoding in [
            None,
            Some("bitpacked"),
            Some("frame"),
            Some("dictionary"),
            Some("run_end"),
        ] {
            let column = abi::i64_column(&values, Some(&valid), encoding).unwrap();
            if let Some(name) = encoding {
                assert_eq!(column.encoding(), name);
            }
            assert!(column.explanation().contains(&column.encoding()));
            let expected: Vec<Option<i64>> = values
                .iter()
                .zip(&valid)
                .map(|(&v, &ok)| ok.then_some(v))
                .collect();
            assert_eq!(column.unpack_i64(0, len).unwrap(), expected);
            for (i, want) in expected.iter().enumerate() {
                assert_eq!(column.get_i64(i).unwrap(), *want);
            }
            assert_eq!(column.get_i64(len), Err(SaStatus::IndexOutOfRange));
            let sum: i128 = expected.iter().flatten().map(|&v| i128::from(v)).sum();
            assert_eq!(column.sum_i128().unwrap(), sum);
            match i64::try_from(sum) {
                Ok(sum) => assert_eq!(column.sum_i64().unwrap(), sum),
                Err(_) => {
                    assert_eq!(column.sum_i64(), Err(SaStatus::Overflow));
                    assert!(
                        abi::last_error().contains("does not fit in i64"),
                        "{}",
                        abi::last_error()
                    );
                }
            }
            let in_range: Vec<usize> = (0..len)
                .filter(|&i| expected[i].is_some_and(|v| (-100..=100).contains(&v)))
                .collect();
            assert_eq!(column.range_i64(-100, 100).unwrap(), in_range);
        }
    }
}

#[test]
fn column_errors_are_typed_with_messages() {
    // Delta by name: sorted values build and read back; unsorted ones are refused by name.
    let sorted: Vec<i64> = (0..1025).map(|i| -500 + i * 3 / 2).collect();
    let column = abi::i64_column(&sorted, None, Some("delta")).unwrap();
    assert_eq!(column.encoding(), "delta");
    let expected: Vec<Option<i64>> = sorted.iter().map(|&v| Some(v)).collect();
    assert_eq!(column.unpack_i64(0, sorted.len()).unwrap(), expected);
    assert_eq!(column.range_i64(-500, -497).unwrap(), vec![0, 1, 2]);
    assert_eq!(
        abi::i64_column(&[2, 1], None, Some("delta")).err(),
        Some(SaStatus::InvalidArgument)
    );
    assert!(
        abi::last_error().contains("not sorted"),
        "{}",
        abi::last_error()
    );
    assert_eq!(
        abi::i64_column(&[1, 2], None, Some("lz4")).err(),
        Some(SaStatus::InvalidArgument)
    );
    assert!(
        abi::last_error().contains("unknown encoding \"lz4\""),
        "{}",
        abi::last_error()
    );
    assert_eq!(
        abi::i64_column(&[1, 2], None, Some("constant")).err(),
        Some(SaStatus::InvalidArgument)
    );
    let column = abi::i64_column(&[1, 2, 3], None, None).unwrap();
    assert_eq!(column.prefix("a"), Err(SaStatus::Unsupported));
    assert_eq!(column.unpack_i64(2, 2), Err(SaStatus::RangeOutOfBounds));
    assert_eq!(
        column.unpack_i64(usize::MAX, 2),
        Err(SaStatus::RangeOutOfBounds)
    );
    let strings = abi::utf8_column(&["ab", "abc", "b", ""], Some("fsst")).unwrap();
    assert_eq!(strings.encoding(), "fsst");
    assert_eq!(strings.prefix("ab").unwrap(), vec![0, 1]);
    assert_eq!(strings.sum_i64(), Err(SaStatus::Unsupported));
    assert_eq!(strings.range_i64(0, 1), Err(SaStatus::TypeMismatch));
    assert_eq!(strings.get_i64(0), Err(SaStatus::TypeMismatch));
    assert!(
        abi::last_error().contains("sa_column_get_i64 reads Int64 columns"),
        "{}",
        abi::last_error()
    );
}

#[test]
fn map_upserts_overflow_as_errors() {
    let mut map = abi::map(Some("replicated")).unwrap();
    assert_eq!(
        map.upsert_many(&[5, 5], &[i64::MAX, 0], SaCombine::Sum as i32),
        SaStatus::Ok
    );
    assert_eq!(
        map.upsert_many(&[6, 5], &[1, 1], SaCombine::Sum as i32),
        SaStatus::Overflow
    );
    assert!(
        abi::last_error().contains("entry 1 of the batch"),
        "{}",
        abi::last_error()
    );
    assert_eq!(map.get_many(&[5, 6]), vec![Some(i64::MAX), Some(1)]);
    assert_eq!(map.upsert_many(&[1], &[1], 17), SaStatus::InvalidArgument);
    assert_eq!(
        abi::map(Some("mirrored")).err(),
        Some(SaStatus::InvalidPlacement)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_map_batches_match_a_hash_map(
        batches in prop::collection::vec(
            (prop::collection::vec((-40i64..40, -1000i64..1000), 0..200), 1i32..4),
            1..5,
        ),
    ) {
        let mut map = abi::map(None).unwrap();
        let mut reference: HashMap<i64, i64> = HashMap::new();
        for (entries, op) in &batches {
            let keys: Vec<i64> = entries.iter().map(|e| e.0 << 50).collect();
            let values: Vec<i64> = entries.iter().map(|e| e.1).collect();
            prop_assert_eq!(map.upsert_many(&keys, &values, *op), SaStatus::Ok);
            for (&k, &v) in keys.iter().zip(&values) {
                let new = match (reference.get(&k), *op) {
                    (None, _) => v,
                    (Some(&old), 1) => old.min(v),
                    (Some(&old), 2) => old.max(v),
                    _ => v,
                };
                reference.insert(k, new);
            }
        }
        let mut expected: Vec<(i64, i64)> = reference.iter().map(|(&k, &v)| (k, v)).collect();
        expected.sort_unstable();
        prop_assert_eq!(map.export(), expected);
        let probe: Vec<i64> = (-45i64..45).map(|k| k << 50).collect();
        let got = map.get_many(&probe);
        for (k, v) in probe.iter().zip(got) {
            prop_assert_eq!(v, reference.get(k).copied());
        }
    }

    #[test]
    fn random_columns_unpack_like_the_input(
        values in prop::collection::vec(any::<i64>(), 0..300),
        encoding in prop::sample::select(vec!["auto", "bitpacked", "frame", "dictionary", "run_end"]),
    ) {
        let column = abi::i64_column(&values, None, Some(encoding)).unwrap();
        let expected: Vec<Option<i64>> = values.iter().map(|&v| Some(v)).collect();
        prop_assert_eq!(column.unpack_i64(0, values.len()).unwrap(), expected);
        let sum: i128 = values.iter().map(|&v| i128::from(v)).sum();
        prop_assert_eq!(column.sum_i128().unwrap(), sum);
    }
}
