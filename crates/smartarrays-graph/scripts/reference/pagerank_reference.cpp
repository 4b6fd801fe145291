// In-run C++/OpenMP reference for `smartarrays graph bench`: pull-direction Jacobi PageRank on a
// binary `.sag` graph file, timed per thread count, so the Rust PageRank can be compared with a
// plain compiled loop in the same run and on the same machine.
//
// The algorithm is the one the GAP Benchmark Suite (Beamer, Asanovic, Patterson, "The GAP
// Benchmark Suite", arXiv:1508.03619) describes for its PageRank kernel; this file is written
// from that description, not from its code:
//   - ranks are `float`, all 1/n at the start;
//   - each iteration first computes contrib[v] = rank[v] / out_degree[v] in a parallel loop
//     (0 where the out-degree is 0; the rank of vertices without out-edges is not spread);
//   - then every vertex v pulls: sum = sum of contrib[u] over its in-neighbours u (float),
//     new = (1 - d) / n + d * sum, and the L1 change |new - old| is summed in a double
//     reduction (OpenMP `schedule(dynamic, 16384)`);
//   - it stops when the L1 change is below the tolerance or after the maximum iterations.
//
// Input: the `.sag` layout documented in crates/smartarrays-graph/src/io/binary.rs. The file is
// memory-mapped and its arrays used in place; only 64-bit `begin`/`rbegin` and 32-bit
// `edge`/`redge` are accepted (the natural widths of the default variant u).
// Magic, version, array table, bounds and the CSR invariants are checked; the XXH3 checksums
// are not (this program has no hash library; the Rust loader verifies them).
//
// usage: pagerank_reference FILE [--threads 1,2] [--repetitions 3] [--tolerance 1e-3]
//                           [--max-iterations 20] [--damping 0.85] [--top 5] [--scores OUT.f32]
//                           [--huge-pages]
// --huge-pages puts the rank and contribution arrays on transparent huge pages (MADV_HUGEPAGE);
// by default they are plain heap memory, as in that suite. --scores writes the ranks of the
// last measured run as raw little-endian float32. Prints the per-iteration L1 changes of the
// warm-up run, one `RESULT ...` line per thread count (best of the repetitions after one
// untimed warm-up run; edges = stored in-edges, the pull's work per iteration), then `SUM` and
// `TOP` lines for the ranks of the last thread count.

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "pagerank_reference: error: %s\n", message.c_str());
    std::exit(1);
}

// A read-only mapping of a whole file, unmapped on destruction.
class MappedFile {
  public:
    explicit MappedFile(const std::string& path) : path_(path) {
        int fd = ::open(path.c_str(), O_RDONLY);
        if (fd < 0) fail(path + ": cannot open: " + std::strerror(errno));
        struct stat info {};
        if (::fstat(fd, &info) != 0) fail(path + ": cannot stat: " + std::strerror(errno));
        size_ = static_cast<std::size_t>(info.st_size);
        if (size_ == 0) fail(path + ": the file is empty");
        void* data = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        if (data == MAP_FAILED) fail(path + ": cannot map: " + std::strerror(errno));
        data_ = static_cast<const unsigned char*>(data);
    }
    ~MappedFile() { ::munmap(const_cast<unsigned char*>(data_), size_); }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const unsigned char* data() const { return data_; }
    std::size_t size() const { return size_; }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
    const unsigned char* data_ = nullptr;
    std::size_t size_ = 0;
};

template <typename T>
T read_le(const unsigned char* bytes) {
    T value;  // x86-64 is little-endian, like the format
    std::memcpy(&value, bytes, sizeof(T));
    return value;
}

// The graph as views into the mapping: out-offsets (for out-degrees) and the reverse CSR.
struct Graph {
    std::uint64_t vertices = 0;
    bool directed = false;
    const std::uint64_t* begin = nullptr;   // n + 1 out-offsets
    const std::uint64_t* rbegin = nullptr;  // n + 1 in-offsets
    const std::uint32_t* redge = nullptr;   // in-neighbour ids
    std::uint64_t out_entries = 0;
    std::uint64_t in_entries = 0;
};

Graph parse(const MappedFile& file) {
    static const unsigned char magic[8] = {'S', 'A', 'G', 'R', 'A', 'P', 'H', 0};
    const unsigned char* bytes = file.data();
    const std::string& path = file.path();
    if (file.size() < 40 || std::memcmp(bytes, magic, 8) != 0) fail(path + ": not a .sag graph file (bad magic)");
    std::uint32_t version = read_le<std::uint32_t>(bytes + 8);
    if (version != 1) fail(path + ": .sag version " + std::to_string(version) + " is not supported (only 1)");
    Graph graph;
    graph.directed = (read_le<std::uint32_t>(bytes + 12) & 1u) != 0;
    graph.vertices = read_le<std::uint64_t>(bytes + 16);
    std::uint32_t count = read_le<std::uint32_t>(bytes + 32);
    if (count != 2 && count != 4) fail(path + ": array count " + std::to_string(count) + " (expected 2 or 4)");
    if (file.size() < 40 + 48ull * count + 8) fail(path + ": truncated array table");
    if (graph.vertices >= (1ull << 32)) fail(path + ": more than 2^32 vertices do not fit 32-bit ids");

    static const char* names[4] = {"begin", "edge", "rbegin", "redge"};
    static const std::uint32_t wanted_bits[4] = {64, 32, 64, 32};
    const void* arrays[4] = {nullptr, nullptr, nullptr, nullptr};
    std::uint64_t lengths[4] = {0, 0, 0, 0};
    for (std::uint32_t i = 0; i < count; ++i) {
        const unsigned char* entry = bytes + 40 + 48ull * i;
        std::uint32_t kind = read_le<std::uint32_t>(entry);
        std::uint32_t bits = read_le<std::uint32_t>(entry + 4);
        std::uint64_t length = read_le<std::uint64_t>(entry + 8);
        std::uint64_t offset = read_le<std::uint64_t>(entry + 16);
        std::uint64_t data_bytes = read_le<std::uint64_t>(entry + 24);
        if (kind != i) fail(path + ": array " + std::to_string(i) + " has kind " + std::to_string(kind) + " (expected " + std::to_string(i) + ")");
        std::string name = names[kind];
        if (bits != wanted_bits[kind])
            fail(path + ": array `" + name + "` is stored at " + std::to_string(bits) + " bits; this reference reads only " +
                 std::to_string(wanted_bits[kind]) + "-bit " + name +
                 " (save the graph with natural widths: `smartarrays graph convert IN.sag -o OUT.sag --variant u`)");
        if (offset % 64 != 0) fail(path + ": array `" + name + "` starts at an offset that is not a multiple of 64");
        std::uint64_t needed = length * (bits / 8);
        if (data_bytes < needed || offset > file.size() || file.size() - offset < data_bytes)
            fail(path + ": array `" + name + "` runs past the end of the file (truncated?)");
        arrays[kind] = bytes + offset;
        lengths[kind] = length;
    }
    if (count == 2) {
        if (graph.directed) fail(path + ": a directed graph without reverse arrays (rbegin/redge)");
        arrays[2] = arrays[0];  // undirected: in-neighbours are the neighbours
        arrays[3] = arrays[1];
        lengths[2] = lengths[0];
        lengths[3] = lengths[1];
    }
    std::uint64_t n = graph.vertices;
    if (lengths[0] != n + 1 || lengths[2] != n + 1) fail(path + ": begin/rbegin do not have n + 1 values");
    graph.begin = static_cast<const std::uint64_t*>(arrays[0]);
    graph.rbegin = static_cast<const std::uint64_t*>(arrays[2]);
    graph.redge = static_cast<const std::uint32_t*>(arrays[3]);
    graph.out_entries = lengths[1];
    graph.in_entries = lengths[3];

    // CSR invariants: offsets start at 0, never decrease, end at the edge count; ids below n.
    for (int side = 0; side < 2; ++side) {
        const std::uint64_t* offsets = side == 0 ? graph.begin : graph.rbegin;
        std::uint64_t entries = side == 0 ? graph.out_entries : graph.in_entries;
        const char* name = side == 0 ? "begin" : "rbegin";
        if (offsets[0] != 0 || offsets[n] != entries) fail(path + ": `" + name + "` does not span its edge array");
        bool monotone = true;
#pragma omp parallel for reduction(&& : monotone)
        for (std::uint64_t v = 0; v < n; ++v) monotone = monotone && offsets[v] <= offsets[v + 1];
        if (!monotone) fail(path + ": `" + std::string(name) + "` decreases");
    }
    const std::uint32_t* ids = graph.redge;
    std::uint64_t bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (std::uint64_t e = 0; e < graph.in_entries; ++e) bad += ids[e] >= n;
    if (bad != 0) fail(path + ": " + std::to_string(bad) + " in-neighbour ids are not below the vertex count");
    return graph;
}

double cpu_seconds() {
    struct rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

struct Run {
    std::vector<float> ranks;
    std::vector<double> errors;  // L1 change of every iteration
    double seconds = 0;
    double cpu = 0;
};

// An uninitialised float per vertex. With `huge_pages` the block is 2 MiB-aligned and advised
// MADV_HUGEPAGE (transparent huge pages, when the kernel allows them only on request), which
// spares the random reads of the pull most TLB misses; without, it is ordinary heap memory, as
// a program using `new float[n]` gets.
class VertexFloats {
  public:
    VertexFloats(std::int64_t n, bool huge_pages) {
        const std::size_t huge = std::size_t{1} << 21;
        std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
        if (huge_pages) {
            bytes = (bytes + huge - 1) / huge * huge;
            data_ = static_cast<float*>(std::aligned_alloc(huge, bytes));
            if (data_ != nullptr) ::madvise(data_, bytes, MADV_HUGEPAGE);  // advice only: failure is harmless
        } else {
            data_ = static_cast<float*>(std::malloc(bytes));
        }
        if (data_ == nullptr) fail("out of memory for " + std::to_string(n) + " vertex values");
    }
    ~VertexFloats() { std::free(data_); }
    VertexFloats(const VertexFloats&) = delete;
    VertexFloats& operator=(const VertexFloats&) = delete;
    float* data() { return data_; }

  private:
    float* data_ = nullptr;
};

// One PageRank run; the timer covers allocation, initialisation and every iteration.
Run pagerank(const Graph& graph, float damping, double tolerance, int max_iterations, bool huge_pages) {
    Run run;
    auto started = std::chrono::steady_clock::now();
    double cpu_started = cpu_seconds();
    const std::int64_t n = static_cast<std::int64_t>(graph.vertices);
    const float base = (1.0f - damping) / static_cast<float>(n);
    VertexFloats ranks(n, huge_pages), contrib(n, huge_pages);
    float* rank = ranks.data();
    float* out = contrib.data();
    const std::uint64_t* begin = graph.begin;
    const std::uint64_t* rbegin = graph.rbegin;
    const std::uint32_t* redge = graph.redge;
    const float initial = 1.0f / static_cast<float>(n);
#pragma omp parallel for
    for (std::int64_t v = 0; v < n; ++v) rank[v] = initial;
    for (int iteration = 0; iteration < max_iterations; ++iteration) {
#pragma omp parallel for
        for (std::int64_t v = 0; v < n; ++v) {
            std::uint64_t degree = begin[v + 1] - begin[v];
            out[v] = degree == 0 ? 0.0f : rank[v] / static_cast<float>(degree);
        }
        double error = 0;
#pragma omp parallel for schedule(dynamic, 16384) reduction(+ : error)
        for (std::int64_t v = 0; v < n; ++v) {
            float sum = 0;
            for (std::uint64_t e = rbegin[v], end = rbegin[v + 1]; e < end; ++e) sum += out[redge[e]];
            float old = rank[v];
            float updated = base + damping * sum;
            rank[v] = updated;
            error += std::fabs(updated - old);
        }
        run.errors.push_back(error);
        if (error < tolerance) break;
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    run.cpu = cpu_seconds() - cpu_started;
    run.ranks.assign(rank, rank + n);
    return run;
}

std::vector<int> parse_threads(const std::string& text) {
    std::vector<int> threads;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        char* end = nullptr;
        long value = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != 0 || value < 1 || value > 4096) fail("--threads wants positive integers separated by commas, got `" + text + "`");
        threads.push_back(static_cast<int>(value));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return threads;
}

double parse_number(const std::string& option, const char* text) {
    char* end = nullptr;
    double value = std::strtod(text, &end);
    if (*text == 0 || *end != 0 || !std::isfinite(value)) fail(option + " wants a number, got `" + text + "`");
    return value;
}

}  // namespace

int main(int argc, char** argv) {
    std::string path, scores_path;
    std::vector<int> threads = {1, 2};
    int repetitions = 3, max_iterations = 20, top = 5;
    bool huge_pages = false;
    double tolerance = 1e-3, damping = 0.85;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) fail(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--threads") threads = parse_threads(value());
        else if (arg == "--repetitions") repetitions = static_cast<int>(parse_number(arg, value()));
        else if (arg == "--tolerance") tolerance = parse_number(arg, value());
        else if (arg == "--max-iterations") max_iterations = static_cast<int>(parse_number(arg, value()));
        else if (arg == "--damping") damping = parse_number(arg, value());
        else if (arg == "--top") top = static_cast<int>(parse_number(arg, value()));
        else if (arg == "--scores") scores_path = value();
        else if (arg == "--huge-pages") huge_pages = true;
        else if (arg == "-h" || arg == "--help") {
            std::printf("usage: %s FILE.sag [--threads 1,2] [--repetitions 3] [--tolerance 1e-3] [--max-iterations 20] "
                        "[--damping 0.85] [--top 5] [--scores OUT.f32] [--huge-pages]\n", argv[0]);
            return 0;
        } else if (!arg.empty() && arg[0] == '-') fail("unknown option " + arg);
        else if (path.empty()) path = arg;
        else fail("more than one input file");
    }
    if (path.empty()) fail("no input file (usage: pagerank_reference FILE.sag [--threads 1,2] ...)");
    if (repetitions < 1 || max_iterations < 1 || top < 0) fail("--repetitions and --max-iterations must be at least 1, --top at least 0");
    if (!(damping > 0 && damping < 1) || !(tolerance > 0)) fail("--damping must be in (0, 1) and --tolerance above 0");

    MappedFile file(path);
    Graph graph = parse(file);
    if (graph.vertices == 0) fail(path + ": the graph has no vertices");
    std::printf("graph %s: %llu vertices, %llu out-edges, %llu in-edges (%s)\n", path.c_str(),
                static_cast<unsigned long long>(graph.vertices), static_cast<unsigned long long>(graph.out_entries),
                static_cast<unsigned long long>(graph.in_entries), graph.directed ? "directed" : "undirected");
    std::printf("settings: damping %g, tolerance %g, max %d iterations, best of %d runs after 1 warm-up, OpenMP max threads %d, "
                "vertex arrays on %s\n",
                damping, tolerance, max_iterations, repetitions, omp_get_max_threads(), huge_pages ? "huge pages" : "ordinary heap pages");

    Run last;
    for (int t : threads) {
        omp_set_num_threads(t);
        Run best;
        best.seconds = INFINITY;
        for (int r = 0; r <= repetitions; ++r) {
            Run run = pagerank(graph, static_cast<float>(damping), tolerance, max_iterations, huge_pages);
            if (r == 0) {  // warm-up: page tables of the mapping, caches; report its iterations once
                for (std::size_t k = 0; k < run.errors.size(); ++k) std::printf("threads %d iteration %2zu  L1 change %.6e\n", t, k + 1, run.errors[k]);
                continue;
            }
            double per = run.seconds / run.errors.size();
            std::printf("threads %d run %d: %zu iterations, %.4f s, %.4f s per iteration\n", t, r, run.errors.size(), run.seconds, per);
            if (run.seconds / run.errors.size() < best.seconds / std::max<std::size_t>(best.errors.size(), 1)) best = std::move(run);
        }
        double per = best.seconds / best.errors.size();
        double edges = static_cast<double>(graph.in_entries);
        std::printf("RESULT threads=%d iterations=%zu seconds_per_iteration=%.6f medges_per_second_per_core=%.2f medges_per_cpu_second=%.2f\n", t,
                    best.errors.size(), per, edges / per / t / 1e6, edges * best.errors.size() / best.cpu / 1e6);
        std::fflush(stdout);
        last = std::move(best);
    }

    double sum = 0;
    for (float r : last.ranks) sum += r;
    std::printf("SUM %.9f\n", sum);
    std::vector<std::uint32_t> order(last.ranks.size());
    std::iota(order.begin(), order.end(), 0u);
    std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(top), order.size());
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return last.ranks[a] > last.ranks[b] || (last.ranks[a] == last.ranks[b] && a < b);
    });
    for (std::size_t i = 0; i < k; ++i) std::printf("TOP %zu vertex=%u rank=%.9e\n", i + 1, order[i], last.ranks[order[i]]);
    if (!scores_path.empty()) {
        FILE* out = std::fopen(scores_path.c_str(), "wb");
        if (out == nullptr || std::fwrite(last.ranks.data(), sizeof(float), last.ranks.size(), out) != last.ranks.size() || std::fclose(out) != 0)
            fail(scores_path + ": cannot write the ranks");
    }
    return 0;
}
