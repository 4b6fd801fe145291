//! The C ABI's input paths with arbitrary placement text, widths, lengths and values: every call
//! returns a status (never a panic through the boundary, never a crash), and a built array holds
//! exactly the values given. The same bytes also drive the encoded columns (encoding names,
//! validity bitmaps, string offsets and bytes that may be out of order or not UTF-8, indices and
//! ranges past the end, filters) and the collections (combine codes, batches, short buffers):
//! a typed status for every bad input, and what is built holds exactly what was given. Bool,
//! date and decimal columns take bytes that are often not 0 or 1 and scales past 18. Graphs are
//! built from the bytes as edges (vertex counts too small, sources past the end, short buffers)
//! and every algorithm runs on what was built.
#![no_main]

use std::ffi::CString;

use libfuzzer_sys::fuzz_target;
use smartarrays_ffi::array::{
    sa_array_free, sa_array_from_u64, sa_array_get, sa_array_len, sa_array_new,
};
use smartarrays_ffi::collections::*;
use smartarrays_ffi::column::*;
use smartarrays_ffi::graph::*;
use smartarrays_ffi::status::SaStatus;

fuzz_target!(|data: &[u8]| {
    columns(data);
    typed_columns(data);
    graphs(data);
    collections(data);
    arrays(data);
});

/// The bytes as little-endian 64-bit words (the last one zero-padded).
fn words(data: &[u8]) -> Vec<u64> {
    data.chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect()
}

/// Text from the bytes with NULs replaced (a C string).
fn text(bytes: &[u8]) -> CString {
    CString::new(bytes.iter().map(|&b| b.max(1)).collect::<Vec<u8>>()).unwrap()
}

fn columns(data: &[u8]) {
    if data.len() < 4 {
        return;
    }
    const NAMES: [&str; 9] = [
        "auto",
        "bitpacked",
        "frame",
        "dictionary",
        "run_end",
        "constant",
        "alp",
        "fsst",
        "",
    ];
    let name_choice = data[0] as usize % (NAMES.len() + 1);
    let encoding = match NAMES.get(name_choice) {
        Some(name) => CString::new(*name).unwrap(),
        None => text(&data[1..4]), // an arbitrary (mostly unknown) name
    };
    let with_nulls = data[1] & 1 == 1;
    let kind = data[1] >> 1 & 3;
    let rest = &data[4..];
    let values = words(rest);
    let len = values.len();
    let valid: Vec<u8> = (0..len.div_ceil(8))
        .map(|i| data[2].rotate_left(i as u32))
        .collect();
    let valid_ptr = if with_nulls {
        valid.as_ptr()
    } else {
        std::ptr::null()
    };
    let is_valid = |i: usize| !with_nulls || valid[i / 8] >> (i % 8) & 1 == 1;
    let mut column = std::ptr::null_mut();
    // SAFETY: every buffer is live for the call with the lengths given; `column` is a local slot.
    let status = unsafe {
        match kind {
            0 => sa_column_from_u64(
                values.as_ptr(),
                len,
                valid_ptr,
                encoding.as_ptr(),
                std::ptr::null(),
                &mut column,
            ),
            1 => sa_column_from_i64(
                values.as_ptr().cast(),
                len,
                valid_ptr,
                encoding.as_ptr(),
                std::ptr::null(),
                &mut column,
            ),
            2 => sa_column_from_f64(
                values.as_ptr().cast(),
                len,
                valid_ptr,
                encoding.as_ptr(),
                std::ptr::null(),
                &mut column,
            ),
            _ => {
                // Offsets from the bytes: often out of order or past the end, rows often not UTF-8.
                let offsets: Vec<usize> = rest
                    .iter()
                    .map(|&b| usize::from(b) % (rest.len() + 2))
                    .collect();
                let rows = offsets.len().saturating_sub(1);
                let status = sa_column_from_utf8(
                    rest.as_ptr().cast(),
                    rest.len(),
                    offsets.as_ptr(),
                    rows,
                    std::ptr::null(),
                    encoding.as_ptr(),
                    std::ptr::null(),
                    &mut column,
                );
                if status == SaStatus::Ok {
                    let mut selection = std::ptr::null_mut();
                    let prefix = &rest[..rest.len().min(2)];
                    let s = sa_column_filter_prefix_utf8(
                        column,
                        prefix.as_ptr().cast(),
                        prefix.len(),
                        &mut selection,
                    );
                    if s == SaStatus::Ok {
                        sa_selection_free(selection);
                    }
                    let mut needed = 0usize;
                    let mut offsets_out = vec![0usize; rows + 1];
                    let mut bytes_out = vec![0u8; rest.len()];
                    let s = sa_column_unpack_utf8(
                        column,
                        0,
                        rows,
                        offsets_out.as_mut_ptr(),
                        bytes_out.as_mut_ptr().cast(),
                        bytes_out.len(),
                        &mut needed,
                        std::ptr::null_mut(),
                    );
                    assert_eq!(s, SaStatus::Ok);
                    assert!(needed <= rest.len());
                }
                status
            }
        }
    };
    if status != SaStatus::Ok {
        assert!(column.is_null(), "no half-built column on failure");
        return;
    }
    let mut got_len = 0usize;
    // SAFETY: `column` is the live handle just made; the outputs are locals.
    unsafe {
        assert_eq!(sa_column_len(column, &mut got_len), SaStatus::Ok);
        if kind < 3 {
            assert_eq!(got_len, len);
            for (i, &v) in values.iter().enumerate() {
                let mut got = 0u64;
                let mut ok = false;
                let s = match kind {
                    0 => sa_column_get_u64(column, i, &mut got, &mut ok),
                    1 => sa_column_get_i64(column, i, (&mut got as *mut u64).cast(), &mut ok),
                    _ => sa_column_get_f64(column, i, (&mut got as *mut u64).cast(), &mut ok),
                };
                assert_eq!(s, SaStatus::Ok);
                assert_eq!(ok, is_valid(i));
                if ok {
                    assert_eq!(got, v, "row {i} comes back bit for bit");
                }
            }
            // Ranges and indices from the data, past the end too.
            let start = usize::from(data[3]) % (len + 2);
            let count = usize::from(data[2]) % (len + 2);
            let mut out = vec![0u64; count];
            let mut bits = vec![0u8; count.div_ceil(8)];
            let s = sa_column_unpack_u64(column, start, out.as_mut_ptr(), count, bits.as_mut_ptr());
            assert!(
                matches!(
                    s,
                    SaStatus::Ok | SaStatus::RangeOutOfBounds | SaStatus::TypeMismatch
                ),
                "{s:?}"
            );
            let indices: Vec<usize> = rest.iter().map(|&b| usize::from(b) % (len + 1)).collect();
            let mut taken = vec![0u64; indices.len()];
            let mut taken_bits = vec![0u8; indices.len().div_ceil(8)];
            let s = sa_column_take_i64(
                column,
                indices.as_ptr(),
                indices.len(),
                taken.as_mut_ptr().cast(),
                taken_bits.as_mut_ptr(),
            );
            assert!(
                matches!(
                    s,
                    SaStatus::Ok | SaStatus::IndexOutOfRange | SaStatus::TypeMismatch
                ),
                "{s:?}"
            );
            let mut selection = std::ptr::null_mut();
            let probe = values.first().copied().unwrap_or(0);
            let s = match kind {
                0 => {
                    sa_column_filter_range_u64(column, probe, probe.wrapping_mul(3), &mut selection)
                }
                1 => sa_column_filter_in_i64(
                    column,
                    values.as_ptr().cast(),
                    len.min(5),
                    &mut selection,
                ),
                _ => sa_column_filter_eq_f64(column, f64::from_bits(probe), &mut selection),
            };
            assert_eq!(s, SaStatus::Ok);
            let mut count = 0usize;
            assert_eq!(sa_selection_count(selection, &mut count), SaStatus::Ok);
            let mut ids = vec![0usize; count];
            assert_eq!(
                sa_selection_row_ids(selection, ids.as_mut_ptr(), count),
                SaStatus::Ok
            );
            assert!(
                ids.iter().all(|&i| i < len && is_valid(i)),
                "filters select valid rows only"
            );
            sa_selection_free(selection);
            let (mut low, mut high) = (0u64, 0i64);
            let s = sa_column_sum_i128(column, &mut low, &mut high);
            assert!(matches!(s, SaStatus::Ok | SaStatus::TypeMismatch), "{s:?}");
        }
        sa_column_free(column);
    }
}

/// Bool, Date32 and Decimal columns: a boolean byte other than 0 or 1 and a scale past 18 are
/// `SA_STATUS_INVALID_ARGUMENT`; otherwise every row reads back as given.
fn typed_columns(data: &[u8]) {
    if data.len() < 4 {
        return;
    }
    let rest = &data[4..];
    let scale = data[3] % 24;
    let days: Vec<i32> = rest
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            i32::from_le_bytes(w)
        })
        .collect();
    let unscaled: Vec<i64> = words(rest).iter().map(|&w| w as i64).collect();
    let (mut flags, mut dates, mut decimals) = (
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    // SAFETY: every buffer is live for the call with the lengths given; the handles are local
    // slots, read only when their call succeeded, and freed once.
    unsafe {
        let s = sa_column_from_bool(
            rest.as_ptr(),
            rest.len(),
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null(),
            &mut flags,
        );
        if rest.iter().all(|&b| b <= 1) {
            assert_eq!(s, SaStatus::Ok);
            for (i, &b) in rest.iter().enumerate() {
                let mut got = false;
                assert_eq!(
                    sa_column_get_bool(flags, i, &mut got, std::ptr::null_mut()),
                    SaStatus::Ok
                );
                assert_eq!(got, b == 1);
            }
            sa_column_free(flags);
        } else {
            assert_eq!(s, SaStatus::InvalidArgument);
            assert!(flags.is_null());
        }
        let s = sa_column_from_date32(
            days.as_ptr(),
            days.len(),
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null(),
            &mut dates,
        );
        assert_eq!(s, SaStatus::Ok);
        for (i, &d) in days.iter().enumerate() {
            let mut got = 0i32;
            assert_eq!(
                sa_column_get_date32(dates, i, &mut got, std::ptr::null_mut()),
                SaStatus::Ok
            );
            assert_eq!(got, d);
        }
        sa_column_free(dates);
        let s = sa_column_from_decimal(
            unscaled.as_ptr(),
            unscaled.len(),
            scale,
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null(),
            &mut decimals,
        );
        if scale > 18 {
            assert_eq!(s, SaStatus::InvalidArgument);
            assert!(decimals.is_null());
            return;
        }
        assert_eq!(s, SaStatus::Ok);
        let mut got_scale = 0u8;
        assert_eq!(
            sa_column_decimal_scale(decimals, &mut got_scale),
            SaStatus::Ok
        );
        assert_eq!(got_scale, scale);
        for (i, &u) in unscaled.iter().enumerate() {
            let mut got = 0i64;
            assert_eq!(
                sa_column_get_decimal(decimals, i, &mut got, std::ptr::null_mut()),
                SaStatus::Ok
            );
            assert_eq!(got, u);
        }
        sa_column_free(decimals);
    }
}

/// Graphs from the bytes as edge ends (`vertices` often too small): a typed status for bad
/// input, and on a built graph BFS levels that agree with the parents, component labels at or
/// below their vertex, ranks summing to 1, and buffers checked against the vertex count.
fn graphs(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let ends: Vec<u64> = data[3..].iter().map(|&b| u64::from(b % 40)).collect();
    let half = ends.len() / 2;
    let (sources, targets) = (&ends[..half], &ends[half..2 * half]);
    let vertices = u64::from(data[0] % 48);
    let directed = data[1] & 1 == 1;
    let mut graph = std::ptr::null_mut();
    // SAFETY: every buffer is live for the call with the lengths given; `graph` is a local slot,
    // used only when its constructor succeeded, and freed once.
    unsafe {
        let status = sa_graph_from_edges(
            sources.as_ptr(),
            targets.as_ptr(),
            half,
            vertices,
            directed,
            std::ptr::null(),
            &mut graph,
        );
        let needed = sources.iter().chain(targets).max().map_or(0, |&v| v + 1);
        if vertices != 0 && vertices < needed {
            assert_eq!(status, SaStatus::InvalidArgument);
            assert!(graph.is_null());
            return;
        }
        assert_eq!(status, SaStatus::Ok);
        let mut n = 0usize;
        assert_eq!(
            sa_graph_shape(graph, &mut n, std::ptr::null_mut(), std::ptr::null_mut()),
            SaStatus::Ok
        );
        assert_eq!(n as u64, vertices.max(needed));
        let mut levels = vec![0i64; n];
        let mut parents = vec![0i64; n];
        let source = u64::from(data[2]) % (n as u64 + 2);
        let status = sa_graph_bfs(graph, source, levels.as_mut_ptr(), parents.as_mut_ptr(), n);
        if source < n as u64 {
            assert_eq!(status, SaStatus::Ok);
            for v in 0..n {
                let parent = parents[v];
                assert_eq!(levels[v] < 0, parent < 0, "reached vertices have parents");
                if parent >= 0 && v as u64 != source {
                    assert_eq!(levels[parent as usize], levels[v] - 1);
                }
            }
        } else {
            assert_eq!(status, SaStatus::InvalidArgument);
        }
        let mut labels = vec![0u64; n];
        let mut count = 0u64;
        assert_eq!(
            sa_graph_connected_components(graph, labels.as_mut_ptr(), n, &mut count),
            SaStatus::Ok
        );
        assert!(labels.iter().enumerate().all(|(v, &l)| l <= v as u64));
        assert_eq!(
            count,
            labels
                .iter()
                .enumerate()
                .filter(|&(v, &l)| l == v as u64)
                .count() as u64
        );
        let mut ranks = vec![0f64; n];
        let status = sa_graph_pagerank(
            graph,
            0.85,
            1e-9,
            200,
            data[1] & 2 == 2,
            ranks.as_mut_ptr(),
            n,
            std::ptr::null_mut(),
            None,
            std::ptr::null_mut(),
        );
        assert_eq!(status, SaStatus::Ok);
        if n > 0 {
            assert!((ranks.iter().sum::<f64>() - 1.0).abs() < 1e-6);
        }
        if n > 0 {
            let status = sa_graph_bfs(graph, 0, levels.as_mut_ptr(), std::ptr::null_mut(), n - 1);
            assert_eq!(status, SaStatus::BufferTooSmall);
        }
        let mut triangles = 0u64;
        let status = sa_graph_triangle_count(graph, &mut triangles);
        assert_eq!(
            status,
            if directed {
                SaStatus::InvalidArgument
            } else {
                SaStatus::Ok
            }
        );
        sa_graph_free(graph);
    }
}

fn collections(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let values = words(&data[2..]);
    let keys: Vec<i64> = values
        .iter()
        .map(|&v| (v as i64) >> (data[0] % 64))
        .collect();
    let mut map = std::ptr::null_mut();
    // SAFETY: a NULL placement and a local out slot.
    assert_eq!(
        unsafe { sa_map_new(std::ptr::null(), &mut map) },
        SaStatus::Ok
    );
    let op = i32::from(data[1] % 6) - 1; // -1 and 4 are not operations
    let mut reference = std::collections::HashMap::new();
    // SAFETY: `map` is live; every buffer is live with the lengths given.
    unsafe {
        let s = sa_map_upsert_many(map, keys.as_ptr(), values.as_ptr().cast(), keys.len(), op);
        match op {
            0..=3 if s == SaStatus::Ok => {
                for (&k, &v) in keys.iter().zip(&values) {
                    let v = v as i64;
                    let old = reference.get(&k).copied();
                    reference.insert(
                        k,
                        match (op, old) {
                            (_, None) | (3, _) => v,
                            (0, Some(o)) => o + v,
                            (1, Some(o)) => v.min(o),
                            (_, Some(o)) => v.max(o),
                        },
                    );
                }
            }
            0 => assert_eq!(s, SaStatus::Overflow),
            _ => assert_eq!(s, SaStatus::InvalidArgument),
        }
        if s == SaStatus::Ok {
            let mut got = vec![0i64; keys.len()];
            let mut found = vec![0u8; keys.len()];
            let mut hits = 0usize;
            assert_eq!(
                sa_map_get_many(
                    map,
                    keys.as_ptr(),
                    keys.len(),
                    got.as_mut_ptr(),
                    found.as_mut_ptr(),
                    0,
                    &mut hits
                ),
                SaStatus::Ok
            );
            for (i, k) in keys.iter().enumerate() {
                assert_eq!(found[i], 1);
                assert_eq!(got[i], reference[k]);
            }
            let mut len = 0usize;
            assert_eq!(sa_map_len(map, &mut len), SaStatus::Ok);
            assert_eq!(len, reference.len());
            let short = len.saturating_sub(usize::from(data[0] & 1));
            let mut out_keys = vec![0i64; short];
            let mut out_values = vec![0i64; short];
            let mut written = 0usize;
            let s = sa_map_export(
                map,
                out_keys.as_mut_ptr(),
                out_values.as_mut_ptr(),
                short,
                &mut written,
            );
            assert_eq!(s == SaStatus::Ok, short == len);
        }
        sa_map_free(map);
        let mut bag = std::ptr::null_mut();
        assert_eq!(sa_bag_new(std::ptr::null(), &mut bag), SaStatus::Ok);
        let n = values.first().copied().unwrap_or(0);
        let first = sa_bag_add(bag, 1, n, std::ptr::null_mut());
        assert_eq!(first, SaStatus::Ok);
        let second = sa_bag_add(bag, 1, n, std::ptr::null_mut());
        assert_eq!(second == SaStatus::Overflow, n.checked_add(n).is_none());
        let s = sa_bag_add_many(bag, keys.as_ptr(), keys.len());
        assert!(
            s == SaStatus::Ok || (s == SaStatus::Overflow && keys.contains(&1)),
            "{s:?}"
        );
        sa_bag_free(bag);
    }
}

fn arrays(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let bits = u32::from(data[0] % 70);
    let text_len = (data[1] as usize % 24).min(data.len() - 2);
    let placement = CString::new(
        data[2..2 + text_len]
            .iter()
            .map(|&b| b.max(1))
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let values: Vec<u64> = data[2 + text_len..]
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect();
    let mut array = std::ptr::null_mut();
    // SAFETY: values and placement are live for the call; `array` is a local out slot.
    let status = unsafe {
        sa_array_from_u64(
            values.as_ptr(),
            values.len(),
            placement.as_ptr(),
            bits,
            &mut array,
        )
    };
    if status == SaStatus::Ok {
        let mut len = 0usize;
        // SAFETY: `array` is the live handle just made; `len` is a local.
        assert_eq!(unsafe { sa_array_len(array, &mut len) }, SaStatus::Ok);
        assert_eq!(len, values.len());
        for (i, &v) in values.iter().enumerate() {
            let mut got = 0u64;
            // SAFETY: as above.
            assert_eq!(unsafe { sa_array_get(array, i, &mut got) }, SaStatus::Ok);
            assert_eq!(got, v);
        }
        // SAFETY: freed once, not used afterwards.
        unsafe { sa_array_free(array) };
    } else {
        assert!(array.is_null(), "no half-built array on failure");
    }
    // Sizes from the data: huge ones must be refused with a status, never an abort.
    let length = u64::from_le_bytes(
        data[..3]
            .iter()
            .chain([0u8; 5].iter())
            .copied()
            .collect::<Vec<_>>()
            .try_into()
            .unwrap(),
    ) << (data[2] % 40);
    let mut zeros = std::ptr::null_mut();
    if (1 << 20..1 << 45).contains(&length) {
        return; // plausible sizes would really be allocated and filled: not this target's concern
    }
    // SAFETY: placement is live; `zeros` is a local out slot.
    if unsafe { sa_array_new(length as usize, placement.as_ptr(), bits, &mut zeros) }
        == SaStatus::Ok
    {
        // SAFETY: freed once.
        unsafe { sa_array_free(zeros) };
    }
}
