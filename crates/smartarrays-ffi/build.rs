//! Generates the C header from this crate's sources with cbindgen into `$OUT_DIR/smartarrays.h`.
//! The checked-in copy (`include/smartarrays.h`) is compared with it by the test
//! `header::checked_in_header_is_up_to_date`; `make ffi-header` refreshes the copy.

use std::path::PathBuf;

fn main() {
    let crate_dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("smartarrays.h");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is valid");
    match cbindgen::generate_with_config(&crate_dir, config) {
        Ok(bindings) => {
            bindings.write_to_file(&out);
        }
        // A syntax error is reported by rustc with better context; leave no stale header behind.
        Err(error) => {
            let _ = std::fs::remove_file(&out);
            println!("cargo:warning=cbindgen could not generate the C header: {error}");
        }
    }
}
