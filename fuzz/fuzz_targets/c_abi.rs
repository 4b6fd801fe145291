//! The C ABI's input paths with arbitrary placement text, widths, lengths and values: every call
//! returns a status (never a panic through the boundary, never a crash), and a built array holds
//! exactly the values given.
#![no_main]

use std::ffi::CString;

use libfuzzer_sys::fuzz_target;
use smartarrays_ffi::array::{
    sa_array_free, sa_array_from_u64, sa_array_get, sa_array_len, sa_array_new,
};
use smartarrays_ffi::status::SaStatus;

fuzz_target!(|data: &[u8]| {
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
});
