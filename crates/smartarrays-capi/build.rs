//! Gives the shared library the soname `libsmartarrays.so`, so programs linked against it record
//! that name (and find it through their run path) rather than the build path.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libsmartarrays.so");
    }
}
