// header_check.cpp - compiles smartarrays.hpp under strict warnings (-Wconversion -Wshadow
// -Werror) and runs a tiny program through it, so the header stays clean for users' builds.
#include <smartarrays/smartarrays.hpp>

#include <cstdio>
#include <numeric>

int main() {
    auto array = smartarrays::Array::from_values({1, 2, 3, 4}, "interleaved");
    std::uint64_t total = std::accumulate(array.begin(), array.end(), std::uint64_t{0});
    for (const smartarrays::Chunk& chunk : array.chunks()) {
        total += std::accumulate(chunk.begin(), chunk.end(), std::uint64_t{0});
    }
    std::printf("header check: %zu values at %u bits, twice the sum is %llu\n", array.size(), array.bits(),
                static_cast<unsigned long long>(total));
    return total == 20 ? 0 : 1;
}
