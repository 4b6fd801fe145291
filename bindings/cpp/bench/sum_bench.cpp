// sum_bench.cpp - the C++ part of the cross-language sum benchmark (the paper's Figure 3):
// sums the same N values on one thread from a std::vector<uint64_t> (the baseline) and through
// the C++ wrapper over a 64-bit (uncompressed) and a 33-bit (compressed) smart array: with the
// element iterator (std::accumulate over begin/end), the chunk range, the library's fused
// unpack-and-sum kernel (Array::sum(start, end)), and one C call per element (sa_array_get).
// Smart arrays ask for transparent huge pages (madvise); a std::vector only gets them when the
// system's THP mode is "always", so a second baseline, std_vector_hugepages (a vector whose
// allocator madvises huge pages), separates the wrapper's cost from the page size's.
//
// Prints one machine-readable line per variant (read by bench/languages.sh):
//   RESULT language=cpp variant=<name> bits=<64|33> ns_per_element=<median> best_ns_per_element=<best> elements=<N> ...
// then the ratios against std::vector (goal: iteration >= 0.9x) and compressed against
// uncompressed (goal: within 1.3x). Build with -O2 (no -march=native).
//
// Usage: sum_bench [--elements N] [--repetitions R] [--warmups W] [--skip-get]
#include <smartarrays/smartarrays.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include <sys/mman.h>

namespace {

// Allocates 2 MiB-aligned memory and asks for transparent huge pages, as smart arrays do.
template <typename T>
struct HugePageAllocator {
    using value_type = T;
    HugePageAllocator() = default;
    template <typename U>
    HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        constexpr std::size_t huge = std::size_t{2} << 20;
        std::size_t bytes = (n * sizeof(T) + huge - 1) / huge * huge;
        void* memory = std::aligned_alloc(huge, bytes == 0 ? huge : bytes);
        if (memory == nullptr) {
            throw std::bad_alloc();
        }
        madvise(memory, bytes, MADV_HUGEPAGE);
        return static_cast<T*>(memory);
    }
    void deallocate(T* p, std::size_t) noexcept { std::free(p); }
    template <typename U>
    bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
    template <typename U>
    bool operator!=(const HugePageAllocator<U>&) const noexcept { return false; }
};

struct Options {
    std::size_t elements = 100'000'000;
    int repetitions = 5;
    int warmups = 1;
    bool skip_get = false;
};

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "sum_bench: %s needs a value\n", arg.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--elements" || arg == "-n" || arg == "--n") {
            options.elements = std::strtoull(value(), nullptr, 10);
        } else if (arg == "--repetitions") {
            options.repetitions = std::max(1, std::atoi(value()));
        } else if (arg == "--warmups") {
            options.warmups = std::max(0, std::atoi(value()));
        } else if (arg == "--skip-get") {
            options.skip_get = true;
        } else {
            std::fprintf(stderr, "usage: sum_bench [--elements N] [--repetitions R] [--warmups W] [--skip-get]\n");
            std::exit(arg == "--help" || arg == "-h" ? 0 : 2);
        }
    }
    return options;
}

struct Measurement {
    std::string variant;
    unsigned bits;
    double median_ns;
    double best_ns;
    std::uint64_t sum;
};

// Runs `body` warmups + repetitions times; ns per element of the median and best run.
Measurement measure(const std::string& variant, unsigned bits, const Options& options, const std::function<std::uint64_t()>& body) {
    std::uint64_t sum = 0;
    for (int i = 0; i < options.warmups; i++) {
        sum = body();
    }
    std::vector<double> ns;
    for (int i = 0; i < options.repetitions; i++) {
        auto start = std::chrono::steady_clock::now();
        std::uint64_t result = body();
        auto end = std::chrono::steady_clock::now();
        if (options.warmups > 0 && result != sum) {
            std::fprintf(stderr, "sum_bench: %s gave different sums across runs\n", variant.c_str());
            std::exit(1);
        }
        sum = result;
        ns.push_back(std::chrono::duration<double, std::nano>(end - start).count() / static_cast<double>(std::max<std::size_t>(options.elements, 1)));
    }
    std::sort(ns.begin(), ns.end());
    Measurement m{variant, bits, ns[ns.size() / 2], ns.front(), sum};
    std::printf("RESULT language=cpp variant=%s bits=%u ns_per_element=%.4f best_ns_per_element=%.4f elements=%zu repetitions=%d sum=%llu\n",
                m.variant.c_str(), m.bits, m.median_ns, m.best_ns, options.elements, options.repetitions,
                static_cast<unsigned long long>(m.sum));
    std::fflush(stdout);
    return m;
}

std::uint64_t sum_iterator(const smartarrays::Array& array) { return std::accumulate(array.begin(), array.end(), std::uint64_t{0}); }

std::uint64_t sum_chunks(const smartarrays::Array& array) {
    std::uint64_t total = 0;
    for (const smartarrays::Chunk& chunk : array.chunks()) {
        total = std::accumulate(chunk.begin(), chunk.end(), total);
    }
    return total;
}

std::uint64_t sum_get(const smartarrays::Array& array, std::size_t n) {
    std::uint64_t total = 0;
    const SaArray* handle = array.handle();
    for (std::size_t i = 0; i < n; i++) {
        std::uint64_t v = 0;
        sa_array_get(handle, i, &v);
        total += v;
    }
    return total;
}

}  // namespace

int main(int argc, char** argv) {
    Options options = parse(argc, argv);
    const std::size_t n = options.elements;
    const std::uint64_t mask = (std::uint64_t{1} << 33) - 1;
    std::vector<std::uint64_t> values(n);
    for (std::size_t i = 0; i < n; i++) {
        values[i] = (i * 0x9E3779B97F4A7C15ull >> 7) & mask;  // 33-bit values, spread out
    }
    if (n > 0) {
        values[0] = mask;  // so the automatic width would also be 33
    }
    std::fprintf(stderr, "sum_bench: %zu values, %d repetitions (+%d warm-up), smartarrays %s, %zu worker thread(s) for building\n", n,
                 options.repetitions, options.warmups, smartarrays::version().c_str(), smartarrays::threads());

    std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> huge_values(values.begin(), values.end());
    auto uncompressed = smartarrays::Array::from_values(values, "os", 64);
    auto compressed = smartarrays::Array::from_values(values, "os", 33);

    std::vector<Measurement> results;
    results.push_back(measure("std_vector", 64, options, [&] { return std::accumulate(values.begin(), values.end(), std::uint64_t{0}); }));
    results.push_back(measure("std_vector_hugepages", 64, options,
                              [&] { return std::accumulate(huge_values.begin(), huge_values.end(), std::uint64_t{0}); }));
    for (const smartarrays::Array* array : {&uncompressed, &compressed}) {
        unsigned bits = array->bits();
        results.push_back(measure("smartarray_iter", bits, options, [&] { return sum_iterator(*array); }));
        results.push_back(measure("smartarray_chunks", bits, options, [&] { return sum_chunks(*array); }));
        results.push_back(measure("smartarray_sum_kernel", bits, options, [&] { return array->sum(0, n); }));
        if (!options.skip_get) {
            results.push_back(measure("smartarray_get", bits, options, [&] { return sum_get(*array, n); }));
        }
    }

    const std::uint64_t expected = results.front().sum;
    bool same = std::all_of(results.begin(), results.end(), [&](const Measurement& m) { return m.sum == expected; });
    auto find = [&](const std::string& variant, unsigned bits) -> const Measurement* {
        for (const auto& m : results) {
            if (m.variant == variant && m.bits == bits) {
                return &m;
            }
        }
        return nullptr;
    };
    const Measurement* baseline = find("std_vector", 64);
    const Measurement* huge_baseline = find("std_vector_hugepages", 64);
    std::printf("\nC++ single-threaded sum of %zu values (median ns/element; speed = std::vector time / variant time)\n", n);
    std::printf("%-24s %5s %12s %10s %12s\n", "variant", "bits", "ns/element", "speed", "vs 64-bit");
    for (const auto& m : results) {
        const Measurement* wide = find(m.variant, 64);
        char versus[32] = "";
        if (m.bits != 64 && wide != nullptr) {
            std::snprintf(versus, sizeof versus, "%.2fx", m.median_ns / wide->median_ns);
        }
        std::printf("%-24s %5u %12.4f %9.2fx %12s\n", m.variant.c_str(), m.bits, m.median_ns, baseline->median_ns / m.median_ns, versus);
    }
    const Measurement* iter64 = find("smartarray_iter", 64);
    const Measurement* iter33 = find("smartarray_iter", 33);
    const Measurement* chunks64 = find("smartarray_chunks", 64);
    const Measurement* chunks33 = find("smartarray_chunks", 33);
    double iter_speed = baseline->median_ns / iter64->median_ns;
    double chunk_speed = baseline->median_ns / chunks64->median_ns;
    double iter_compressed = iter33->median_ns / iter64->median_ns;
    double chunk_compressed = chunks33->median_ns / chunks64->median_ns;
    double iter_speed_huge = huge_baseline->median_ns / iter64->median_ns;
    std::printf("RATIO language=cpp iterator_vs_vector=%.3f chunks_vs_vector=%.3f iterator_vs_hugepage_vector=%.3f iterator_33_vs_64=%.3f "
                "chunks_33_vs_64=%.3f\n",
                iter_speed, chunk_speed, iter_speed_huge, iter_compressed, chunk_compressed);
    std::printf("goal C++ iteration >= 0.9x std::vector: %s (%.2fx); compressed within 1.3x of uncompressed: iterator %s (%.2fx), chunks %s (%.2fx)\n",
                iter_speed >= 0.9 ? "met" : "NOT met", iter_speed, iter_compressed <= 1.3 ? "met" : "NOT met", iter_compressed,
                chunk_compressed <= 1.3 ? "met" : "NOT met", chunk_compressed);
    if (!same) {
        std::fprintf(stderr, "sum_bench: the variants disagree on the sum\n");
        return 1;
    }
    return 0;
}
