//! Feature unification, and nothing else: `cargo hakari` generates this crate's dependency list
//! so that every build of any workspace crate (the CLI, the C library, the Python extension, the
//! tests) compiles each shared dependency with the same features, and cargo builds it once.
//! Regenerate after changing dependencies: `cargo hakari generate && cargo hakari manage-deps`.
