#!/usr/bin/env bash
# bench/languages.sh: the paper's Figure 3 for every language. Runs a single-threaded sum over N
# values (default 100M) from Rust, C++, Python and Java, each against that language's own array
# (Vec<u64>, std::vector, numpy, long[]) and through smartarrays at 64 bits (uncompressed) and 33
# bits (compressed); Java also through one native call per element (the JNI-like path). Each
# language's part prints `RESULT language=... variant=... bits=... ns_per_element=...` lines; this
# script collects them and prints one table with ratios against each language's own baseline.
#
# Usage: bench/languages.sh            (or `make bench-languages`)
# Environment: N (values, default 100000000), REPETITIONS (timed runs per variant, default 5),
#   LANGUAGES (subset, default "rust cpp python java"), JAVA_HOME (a JDK 25; else /usr/lib/jvm/*25* is used),
#   CARGO_TARGET_DIR, SMARTARRAYS_LIBRARY (path of libsmartarrays.so), BENCH_PYTHON (default .venv/bin/python),
#   CXX (default g++), JAVA_BENCH_OPTS (extra JVM options for the Java part, e.g. JIT flags; default none).
# A language whose part is missing or does not build is skipped with a message, not a failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
N="${N:-100000000}"
REPETITIONS="${REPETITIONS:-5}"
LANGUAGES="${LANGUAGES:-rust cpp python java}"
CARGO="${CARGO:-cargo}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
LIBRARY="${SMARTARRAYS_LIBRARY:-$TARGET_DIR/release/libsmartarrays.so}"
PYTHON="${BENCH_PYTHON:-$ROOT/.venv/bin/python}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/smartarrays-langbench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
RESULTS="$WORK/results.txt"
: >"$RESULTS"

# Fair single-thread comparison: the library's runtime gets one worker in every language.
export SMARTARRAYS_THREADS=1

note() { printf 'bench-languages: %s\n' "$*"; }
skip() { note "skipping $1: $2"; printf 'SKIPPED language=%s reason=%s\n' "$1" "$2" >>"$RESULTS"; }

# Runs one language's command, echoes its output, keeps its RESULT lines; a failure skips it.
collect() {
    local language="$1"
    shift
    note "running $language: $*"
    if "$@" >"$WORK/$language.out" 2>"$WORK/$language.err"; then
        sed 's/^/  /' "$WORK/$language.out"
        grep '^RESULT ' "$WORK/$language.out" >>"$RESULTS" || skip "$language" "it printed no RESULT lines"
    else
        sed 's/^/  /' "$WORK/$language.out" "$WORK/$language.err"
        skip "$language" "its benchmark failed (exit status $?)"
    fi
}

ensure_library() {
    if [ ! -f "$LIBRARY" ]; then
        note "building libsmartarrays.so (cargo build --release -p smartarrays-capi)"
        CARGO_TARGET_DIR="$TARGET_DIR" "$CARGO" build --quiet --release -p smartarrays-capi
    fi
}

run_rust() {
    if [ ! -f crates/smartarrays-lab/examples/langbench.rs ]; then
        skip rust "crates/smartarrays-lab/examples/langbench.rs is missing"
        return
    fi
    note "building langbench-rust (cargo build --release -p smartarrays-lab --example langbench-rust)"
    if ! CARGO_TARGET_DIR="$TARGET_DIR" "$CARGO" build --quiet --release -p smartarrays-lab --example langbench-rust; then
        skip rust "cargo could not build the lab's example langbench-rust"
        return
    fi
    collect rust "$TARGET_DIR/release/examples/langbench-rust" --n "$N" --repetitions "$REPETITIONS"
}

run_cpp() {
    local source=bindings/cpp/bench/sum_bench.cpp
    if [ ! -f "$source" ]; then
        skip cpp "$source is missing"
        return
    fi
    ensure_library
    local compiler="${CXX:-g++}"
    # -O2 without -march=native, as bindings/cpp/CMakeLists.txt builds it.
    note "building $source ($compiler -O2)"
    if ! "$compiler" -std=c++17 -O2 -DNDEBUG -Ibindings/cpp/include -Icrates/smartarrays-ffi/include "$source" \
        -L"$(dirname "$LIBRARY")" -lsmartarrays -Wl,-rpath,"$(dirname "$LIBRARY")" -o "$WORK/sum_bench_cpp"; then
        skip cpp "$source did not compile"
        return
    fi
    collect cpp "$WORK/sum_bench_cpp" --elements "$N" --repetitions "$REPETITIONS"
}

run_python() {
    local script=crates/smartarrays-python/bench/sum_bench.py
    if [ ! -f "$script" ]; then
        skip python "$script is missing"
        return
    fi
    if ! "$PYTHON" -c 'import numpy, smartarrays' 2>/dev/null; then
        if [ -f mk/python.mk ]; then
            note "building the Python package (make build-python)"
            make --no-print-directory -s build-python || true
        fi
        if ! "$PYTHON" -c 'import numpy, smartarrays' 2>/dev/null; then
            skip python "$PYTHON cannot import numpy and smartarrays (run make build-python)"
            return
        fi
    fi
    collect python "$PYTHON" "$script" --elements "$N" --repetitions "$REPETITIONS"
}

is_jdk25() { [ -x "$1/bin/javac" ] && "$1/bin/java" -version 2>&1 | grep -Eq 'version "(2[5-9]|[3-9][0-9])'; }

run_java() {
    if [ ! -f bindings/java/pom.xml ]; then
        skip java "bindings/java is missing"
        return
    fi
    if [ -z "${JAVA_HOME:-}" ] || ! is_jdk25 "$JAVA_HOME"; then
        JAVA_HOME=""
        for jdk in /usr/lib/jvm/*25*; do
            if is_jdk25 "$jdk"; then JAVA_HOME="$jdk"; fi
        done
    fi
    if [ -z "$JAVA_HOME" ]; then
        skip java "no JDK 25 found (set JAVA_HOME, or run make setup-java)"
        return
    fi
    ensure_library
    note "compiling the Java binding and its benchmark (mvn test-compile)"
    if ! JAVA_HOME="$JAVA_HOME" MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow ${MAVEN_OPTS:-}" \
        mvn -B -ntp -q -f bindings/java/pom.xml test-compile 2>&1 | sed -e 's/\x1b\[[0-9;]*m//g' | awk 'NF'; then
        skip java "mvn test-compile failed"
        return
    fi
    # The long[] and the arrays need about 2.5 GiB at N = 100M; the heap gets the long[] plus room.
    local heap_mib=$((N * 8 / 1048576 + 512))
    # shellcheck disable=SC2086 # JAVA_BENCH_OPTS is a list of options
    collect java "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xms${heap_mib}m -Xmx${heap_mib}m -XX:+UseParallelGC ${JAVA_BENCH_OPTS:-} \
        -Dsmartarrays.library="$LIBRARY" -cp bindings/java/target/classes:bindings/java/target/test-classes \
        org.smartarrays.bench.SumBench --n "$N" --repetitions "$REPETITIONS"
}

note "N=$N values, $REPETITIONS timed repetitions per variant, one thread (SMARTARRAYS_THREADS=1)"
for language in $LANGUAGES; do
    case "$language" in
        rust) run_rust ;;
        cpp | c++) run_cpp ;;
        python) run_python ;;
        java) run_java ;;
        *) skip "$language" "unknown language (use rust, cpp, python, java)" ;;
    esac
done

python3 "$ROOT/bench/languages_table.py" "$RESULTS"
