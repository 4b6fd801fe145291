//! Workloads built on smart arrays: the paper's experiments, usable from the CLI, benchmarks and
//! bindings. Each module owns one job: its data generation, its parallel kernel and the plain
//! baseline it is measured against.

pub mod aggregate;
