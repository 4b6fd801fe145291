// main.cpp - uses the installed package: a replicated, automatically compressed array summed
// with the standard library through the wrapper's iterator and by the library in parallel.
#include <smartarrays/smartarrays.hpp>

#include <cstdio>
#include <numeric>
#include <vector>

int main() {
    std::vector<std::uint64_t> values(100000);
    std::iota(values.begin(), values.end(), std::uint64_t{0});
    auto array = smartarrays::Array::from_values(values, "replicated");
    std::uint64_t by_iterator = std::accumulate(array.begin(), array.end(), std::uint64_t{0});
    std::uint64_t expected = std::accumulate(values.begin(), values.end(), std::uint64_t{0});
    std::printf("consumer: %zu values at %u bits, sum %llu (smartarrays %s)\n", array.size(), array.bits(),
                static_cast<unsigned long long>(array.sum()), smartarrays::version().c_str());
    return by_iterator == expected && array.sum() == expected ? 0 : 1;
}
