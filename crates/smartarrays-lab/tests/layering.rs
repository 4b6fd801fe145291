//! The crate graph is the architecture: this test reads `cargo metadata` and fails on any
//! dependency edge between the workspace's crates that the layering does not allow.
//!
//! core `smartarrays` -> `smartarrays-encodings` (typed compressed columns, core only) and
//! `smartarrays-collections` (maps, sets, bags; core only) -> `smartarrays-query` (tables, SQL
//! and pipelines over both), `smartarrays-jobs` (the Spark study's jobs over both) and
//! `smartarrays-adapt` -> `smartarrays-graph` (adapt only behind its
//! feature) -> `smartarrays-arrow` -> bindings (C ABI, Python; Java loads the C library) and the
//! experiments (`smartarrays-lab`) -> the CLI on top. Bindings never depend on each other. The
//! baselines' and benches' outside crates (fastlanes and the macros it expands to, criterion) are
//! the lab's alone.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Every workspace crate and the workspace crates it may depend on (normal and build
/// dependencies; dev-dependencies are listed separately below).
const ALLOWED: &[(&str, &[&str])] = &[
    (FEATURE_UNIFICATION, &[]),
    ("smartarrays", &[]),
    ("smartarrays-adapt", &["smartarrays"]),
    ("smartarrays-graph", &["smartarrays", "smartarrays-adapt"]),
    ("smartarrays-arrow", &["smartarrays"]),
    ("smartarrays-encodings", &["smartarrays"]),
    ("smartarrays-collections", &["smartarrays"]),
    (
        "smartarrays-query",
        &[
            "smartarrays",
            "smartarrays-encodings",
            "smartarrays-collections",
        ],
    ),
    (
        "smartarrays-jobs",
        &[
            "smartarrays",
            "smartarrays-encodings",
            "smartarrays-collections",
        ],
    ),
    (
        "smartarrays-ffi",
        &[
            "smartarrays",
            "smartarrays-adapt",
            "smartarrays-graph",
            "smartarrays-arrow",
            "smartarrays-encodings",
            "smartarrays-collections",
            "smartarrays-query",
        ],
    ),
    ("smartarrays-capi", &["smartarrays-ffi"]),
    (
        "smartarrays-python",
        &[
            "smartarrays",
            "smartarrays-adapt",
            "smartarrays-graph",
            "smartarrays-arrow",
            "smartarrays-encodings",
            "smartarrays-collections",
            "smartarrays-jobs",
            "smartarrays-query",
        ],
    ),
    (
        "smartarrays-numa-tests",
        &[
            "smartarrays",
            "smartarrays-adapt",
            "smartarrays-encodings",
            "smartarrays-collections",
            "smartarrays-query",
        ],
    ),
    (
        "smartarrays-lab",
        &[
            "smartarrays",
            "smartarrays-adapt",
            "smartarrays-graph",
            "smartarrays-collections",
            "smartarrays-encodings",
        ],
    ),
    (
        "smartarrays-cli",
        &[
            "smartarrays",
            "smartarrays-adapt",
            "smartarrays-graph",
            "smartarrays-lab",
            "smartarrays-query",
            "smartarrays-jobs",
        ],
    ),
];

/// The crate `cargo hakari` generates so that every build compiles each outside dependency with
/// the same features (see `.config/hakari.toml`). It holds no code; every crate depends on it.
const FEATURE_UNIFICATION: &str = "smartarrays-workspace-hack";

/// Dev-dependencies may reach further down, never up into bindings or experiments.
const DEV_FORBIDDEN: &[&str] = &[
    "smartarrays-ffi",
    "smartarrays-python",
    "smartarrays-capi",
    "smartarrays-cli",
];

/// Outside crates that only some of ours may use (any kind of dependency): the baselines and
/// benchmark tools belong to the experiments, not to the libraries or the command line.
const EXTERNAL_ONLY_IN: &[(&str, &[&str])] = &[
    ("fastlanes", &["smartarrays-lab"]),
    ("pastey", &["smartarrays-lab"]),
    ("criterion", &["smartarrays-lab"]),
    ("seq-macro", &["smartarrays", "smartarrays-lab"]),
];

/// Crates whose edges to the graph crate must stay optional (behind a feature).
const OPTIONAL_ONLY: &[(&str, &str)] = &[("smartarrays-graph", "smartarrays-adapt")];

fn metadata() -> serde_json::Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn no_forbidden_dependency_edge_between_workspace_crates() {
    let metadata = metadata();
    let packages = metadata["packages"].as_array().unwrap();
    let ours: BTreeSet<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let allowed: BTreeMap<&str, BTreeSet<&str>> = ALLOWED
        .iter()
        .map(|(name, deps)| (*name, deps.iter().copied().collect()))
        .collect();
    let mut problems = Vec::new();
    for name in &ours {
        if !allowed.contains_key(name) {
            problems.push(format!(
                "{name} is not in the layering table of this test: add it"
            ));
        }
    }
    for package in packages {
        let name = package["name"].as_str().unwrap();
        for dependency in package["dependencies"].as_array().unwrap() {
            let target = dependency["name"].as_str().unwrap();
            if let Some((_, users)) = EXTERNAL_ONLY_IN.iter().find(|(dep, _)| *dep == target) {
                if !users.contains(&name) {
                    problems.push(format!(
                        "{name} depends on {target}, which belongs to {users:?} only"
                    ));
                }
            }
            if !ours.contains(target) || target == FEATURE_UNIFICATION {
                continue;
            }
            let kind = dependency["kind"].as_str().unwrap_or("normal");
            if kind == "dev" {
                if DEV_FORBIDDEN.contains(&target) && name != target {
                    problems.push(format!("{name} has a dev-dependency on {target}"));
                }
                continue;
            }
            if !allowed.get(name).is_some_and(|deps| deps.contains(target)) {
                problems.push(format!("{name} -> {target} is not allowed by the layering"));
            }
            let optional = dependency["optional"].as_bool().unwrap_or(false);
            if OPTIONAL_ONLY.contains(&(name, target)) && !optional {
                problems.push(format!(
                    "{name} -> {target} must be optional (behind a feature)"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "forbidden dependency edges:\n  {}",
        problems.join("\n  ")
    );
}

/// A crate without the feature-unification dependency would build its outside dependencies with
/// its own features, and every binary that uses it would compile them again: run
/// `cargo hakari manage-deps` after adding a crate.
#[test]
fn every_crate_depends_on_the_feature_unification_crate() {
    let metadata = metadata();
    let missing: Vec<&str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|package| package["name"] != FEATURE_UNIFICATION)
        .filter(|package| {
            !package["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["name"] == FEATURE_UNIFICATION && d["kind"].is_null())
        })
        .map(|package| package["name"].as_str().unwrap())
        .collect();
    assert!(
        missing.is_empty(),
        "crates without a normal dependency on {FEATURE_UNIFICATION}: {missing:?}"
    );
}
