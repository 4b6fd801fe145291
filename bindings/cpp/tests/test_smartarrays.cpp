// test_smartarrays.cpp - GoogleTest tests of the C++ wrapper (smartarrays.hpp): values against
// a std::vector reference at edge lengths, many widths and every placement; RAII and moves;
// exceptions with the library's message; iterators and chunk ranges with range-for and the
// standard algorithms; chunk visitors (stop, exceptions); doubles; Arrow export.
#include <smartarrays/smartarrays.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace sa = smartarrays;

namespace {

const std::vector<std::size_t> kLengths = {0, 1, 63, 64, 65, 1023, 1025, 2047, 2048, 2049, 5000};
const std::vector<std::string> kPlacements = {"os", "node:0", "interleaved", "interleaved:0", "replicated"};
const std::vector<std::uint32_t> kWidths = {1, 2, 7, 13, 31, 32, 33, 48, 63, 64};

std::uint64_t max_of(std::uint32_t bits) { return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }

std::vector<std::uint64_t> values_for(std::size_t len, std::uint32_t bits) {
    std::vector<std::uint64_t> values(len);
    const std::uint64_t max = max_of(bits);
    for (std::size_t i = 0; i < len; i++) {
        switch (i % 5) {
            case 0: values[i] = max; break;
            case 1: values[i] = 0; break;
            case 2: values[i] = (i * 0x9E3779B97F4A7C15ull) & max; break;
            case 3: values[i] = max >> (i % 7); break;
            default: values[i] = i & max; break;
        }
    }
    return values;
}

std::uint64_t wrapping_sum(const std::vector<std::uint64_t>& values) { return std::accumulate(values.begin(), values.end(), std::uint64_t{0}); }

void expect_matches(const sa::Array& array, const std::vector<std::uint64_t>& expected, const std::string& where) {
    SCOPED_TRACE(where);
    ASSERT_EQ(array.size(), expected.size());
    EXPECT_EQ(array.empty(), expected.empty());
    for (std::size_t i = 0; i < expected.size(); i++) {
        ASSERT_EQ(array[i], expected[i]) << "index " << i;
    }
    EXPECT_EQ(array.to_vector(), expected);
    // Iterators: range-for, std algorithms, distance.
    std::vector<std::uint64_t> seen;
    for (std::uint64_t v : array) {
        seen.push_back(v);
    }
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(std::accumulate(array.begin(), array.end(), std::uint64_t{0}), wrapping_sum(expected));
    EXPECT_EQ(static_cast<std::size_t>(std::distance(array.begin(), array.end())), expected.size());
    EXPECT_TRUE(std::equal(array.begin(), array.end(), expected.begin(), expected.end()));
    if (!expected.empty()) {
        EXPECT_EQ(*std::max_element(array.begin(), array.end()), *std::max_element(expected.begin(), expected.end()));
        EXPECT_EQ(array.min(), *std::min_element(expected.begin(), expected.end()));
        EXPECT_EQ(array.max(), *std::max_element(expected.begin(), expected.end()));
    } else {
        EXPECT_THROW(array.min(), sa::Error);
    }
    // Chunk ranges with different windows, and the chunk visitor.
    for (std::size_t window : {std::size_t{0}, std::size_t{1}, std::size_t{64}, std::size_t{1000}}) {
        std::vector<std::uint64_t> joined;
        std::size_t next = 0;
        for (const sa::Chunk& chunk : array.chunks(window)) {
            EXPECT_EQ(chunk.first(), next);
            EXPECT_FALSE(chunk.empty());
            joined.insert(joined.end(), chunk.begin(), chunk.end());
            next += chunk.size();
        }
        EXPECT_EQ(joined, expected) << "window " << window;
    }
    std::vector<std::uint64_t> visited;
    array.for_each_chunk([&](const sa::Chunk& chunk) { visited.insert(visited.end(), chunk.begin(), chunk.end()); });
    EXPECT_EQ(visited, expected);
    EXPECT_EQ(array.sum(), wrapping_sum(expected));
    EXPECT_EQ(array.sum(0, expected.size()), wrapping_sum(expected));
}

}  // namespace

TEST(Array, RoundTripsEveryPlacementWidthAndEdgeLength) {
    for (const auto& placement : kPlacements) {
        for (std::uint32_t bits : kWidths) {
            for (std::size_t len : kLengths) {
                auto values = values_for(len, bits);
                auto array = sa::Array::from_values(values, placement, bits);
                EXPECT_EQ(array.bits(), bits);
                EXPECT_EQ(array.uncompressed(), bits == 64);
                EXPECT_EQ(array.placement(), placement);
                EXPECT_EQ(array.packed_bytes(), (len * bits + 7) / 8);
                EXPECT_GE(array.memory_bytes(), array.packed_bytes());
                EXPECT_GE(array.replica_count(), 1u);
                expect_matches(array, values, placement + " bits " + std::to_string(bits) + " len " + std::to_string(len));
            }
        }
    }
}

TEST(Array, EveryWidthFrom1To64) {
    for (std::uint32_t bits = 1; bits <= 64; bits++) {
        auto values = values_for(1025, bits);
        auto array = sa::Array::from_values(values);  // automatic width: the maximum needs exactly `bits`
        EXPECT_EQ(array.bits(), bits);
        expect_matches(array, values, "bits " + std::to_string(bits));
    }
}

TEST(Array, ConstructorsAndMoves) {
    sa::Array zeros(100, "interleaved", 5);
    EXPECT_EQ(zeros.bits(), 5u);
    expect_matches(zeros, std::vector<std::uint64_t>(100, 0), "zeros");
    auto small = sa::Array::from_values({3, 1, 4, 1, 5});
    EXPECT_EQ(small.bits(), 3u);
    auto from32 = sa::Array::from_values(std::vector<std::uint32_t>{7, 4000000000u});
    EXPECT_EQ(from32.to_vector(), (std::vector<std::uint64_t>{7, 4000000000u}));

    sa::Array moved = std::move(small);
    EXPECT_EQ(small.handle(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is specified
    EXPECT_EQ(moved.to_vector(), (std::vector<std::uint64_t>{3, 1, 4, 1, 5}));
    moved = std::move(from32);
    EXPECT_EQ(moved.size(), 2u);
    static_assert(!std::is_copy_constructible_v<sa::Array>, "arrays are move-only");
    static_assert(std::is_nothrow_move_constructible_v<sa::Array>, "moves do not throw");

    SaArray* raw = moved.release();
    auto adopted = sa::Array::adopt(raw);
    EXPECT_EQ(adopted.size(), 2u);
    EXPECT_THROW(sa::Array::adopt(nullptr), sa::Error);
}

TEST(Array, SetAndErrorsCarryTheMessage) {
    auto values = values_for(130, 9);
    auto array = sa::Array::from_values(values, "replicated", 9);
    array.set(0, 511);
    values[0] = 511;
    expect_matches(array, values, "after set");
    try {
        array.set(3, 512);
        FAIL() << "set of a too-wide value did not throw";
    } catch (const sa::Error& e) {
        EXPECT_EQ(e.status(), SA_STATUS_VALUE_TOO_WIDE);
        EXPECT_STREQ(e.what(), "SA_STATUS_VALUE_TOO_WIDE: value 512 at index 3 does not fit in 9 bits (largest allowed is 511)");
    }
    try {
        (void)array.at(130);
        FAIL() << "at past the end did not throw";
    } catch (const sa::Error& e) {
        EXPECT_EQ(e.status(), SA_STATUS_INDEX_OUT_OF_RANGE);
        EXPECT_NE(std::string(e.what()).find("index 130 is out of range for an array of length 130"), std::string::npos);
    }
    EXPECT_THROW(sa::Array::from_values({1, 2}, "mirrored"), sa::Error);
    EXPECT_THROW(sa::Array::from_values({1, 2}, "node:4096"), sa::Error);
    EXPECT_THROW(sa::Array::from_values({300}, "os", 8), sa::Error);
    EXPECT_THROW(sa::Array(10, "os", 65), sa::Error);
    EXPECT_THROW((void)array.sum(5, 2), sa::Error);
    std::vector<std::uint64_t> out(2);
    EXPECT_THROW(array.unpack(129, out.data(), 2), sa::Error);
    EXPECT_THROW((void)array.raw_values(), sa::Error);
    try {
        (void)sa::Array::from_values({1}, "node:4096");
    } catch (const sa::Error& e) {
        EXPECT_EQ(e.status(), SA_STATUS_UNKNOWN_NODE);
    }
}

TEST(Array, IteratorsAreForwardIteratorsWithIndependentCopies) {
    auto values = values_for(5000, 17);
    auto array = sa::Array::from_values(values, "os", 17);
    auto a = array.begin();
    std::advance(a, 3000);
    auto b = a;  // shares the window until one of them moves to another
    EXPECT_EQ(*a, values[3000]);
    std::advance(a, 1500);
    EXPECT_EQ(*a, values[4500]);
    EXPECT_EQ(*b, values[3000]);
    std::advance(b, 1);
    EXPECT_EQ(*b, values[3001]);
    EXPECT_EQ(a.index(), 4500u);
    EXPECT_TRUE(a != b);
    auto c = array.begin();
    std::advance(c, 4500);
    EXPECT_TRUE(a == c);
    auto found = std::find(array.begin(), array.end(), values[4321]);
    EXPECT_LE(found.index(), 4321u);
    EXPECT_EQ(std::count(array.begin(), array.end(), max_of(17)), std::count(values.begin(), values.end(), max_of(17)));
    EXPECT_EQ(array.end().index(), 5000u);
    using Tag = std::iterator_traits<sa::Array::const_iterator>::iterator_category;
    static_assert(std::is_same_v<Tag, std::forward_iterator_tag>, "forward iterator");
}

TEST(Array, IteratorCopiesAssignmentsAndMoves) {
    auto values = values_for(10000, 29);
    auto array = sa::Array::from_values(values, "os", 29);
    std::vector<sa::Array::const_iterator> its;
    auto it = array.begin();
    for (std::size_t i = 0; i < values.size(); i += 777) {
        its.push_back(it);  // copies share windows until they move on
        std::advance(it, 777);
    }
    for (std::size_t k = 0; k < its.size(); k++) {
        EXPECT_EQ(*its[k], values[k * 777]);
        EXPECT_EQ(its[k].index(), k * 777);
    }
    auto a = its[3];
    a = its[7];  // copy assignment releases the old window
    EXPECT_EQ(*a, values[7 * 777]);
    a = a;  // self-assignment keeps the iterator intact
    EXPECT_EQ(*a, values[7 * 777]);
    auto b = std::move(a);
    EXPECT_EQ(*b, values[7 * 777]);
    EXPECT_TRUE(a == array.end());  // NOLINT(bugprone-use-after-move): a moved-from iterator is the end
    b = std::move(its[1]);
    EXPECT_EQ(*b, values[777]);
    std::advance(b, 5000);
    EXPECT_EQ(*b, values[5777]);
    EXPECT_EQ(*its[2], values[2 * 777]);
    EXPECT_TRUE(sa::Array::const_iterator() == array.end());
}

TEST(Array, ChunkVisitorsStopAndRethrow) {
    auto values = values_for(5000, 20);
    auto array = sa::Array::from_values(values, "os", 20);
    std::size_t calls = 0;
    array.for_each_chunk([&](const sa::Chunk& chunk) {
        calls++;
        return chunk.first() < 1024;  // stop after the second chunk
    });
    EXPECT_EQ(calls, 2u);
    std::vector<std::uint64_t> part;
    array.for_each_chunk([&](const sa::Chunk& chunk) { part.insert(part.end(), chunk.begin(), chunk.end()); }, 10, 2000);
    EXPECT_EQ(part, std::vector<std::uint64_t>(values.begin() + 10, values.begin() + 2000));
    EXPECT_THROW(array.for_each_chunk([](const sa::Chunk&) { throw std::logic_error("from the visitor"); }), std::logic_error);
    EXPECT_THROW(array.for_each_chunk([](const sa::Chunk&) {}, 0, 5001), sa::Error);
}

TEST(Array, RawValuesOf64BitArrays) {
    auto values = values_for(1025, 64);
    auto array = sa::Array::from_values(values, "interleaved", 64);
    const std::uint64_t* raw = array.raw_values();
    EXPECT_TRUE(std::equal(values.begin(), values.end(), raw));
    // Iterators and chunks of 64-bit arrays read in place.
    EXPECT_EQ(&*array.begin(), raw);
    EXPECT_EQ((*array.chunks().begin()).data(), raw);
}

TEST(Array, ConcurrentReaders) {
    auto values = values_for(100000, 40);
    auto array = sa::Array::from_values(values, "interleaved", 40);
    std::vector<std::thread> threads;
    std::vector<int> ok(4, 0);
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([&, t] {
            bool good = std::equal(array.begin(), array.end(), values.begin(), values.end()) && array.sum() == wrapping_sum(values);
            ok[t] = good ? 1 : 0;
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    EXPECT_EQ(std::accumulate(ok.begin(), ok.end(), 0), 4);
}

TEST(Library, VersionThreadsTopology) {
    EXPECT_FALSE(sa::version().empty());
    EXPECT_GE(sa::node_count(), 1u);
    EXPECT_GE(sa::cpu_count(), sa::node_count());
    EXPECT_NE(sa::topology_json().find("\"nodes\""), std::string::npos);
    sa::set_threads(2);
    EXPECT_EQ(sa::threads(), 2u);
    sa::set_threads(0);
    EXPECT_GE(sa::threads(), 1u);
    auto array = sa::Array::from_values(values_for(5000, 64), "replicated");
    EXPECT_NE(array.placement_report_json().find("\"placement\":\"replicated\""), std::string::npos);
    EXPECT_EQ(array.placement_report_text().rfind("placement replicated", 0), 0u);
}

TEST(F64Array, RoundTripsAndViews) {
    for (std::size_t len : kLengths) {
        std::vector<double> values(len);
        for (std::size_t i = 0; i < len; i++) {
            values[i] = static_cast<double>(i) * 0.5 - 3.0;
        }
        auto array = sa::F64Array::from_values(values, "interleaved");
        ASSERT_EQ(array.size(), len);
        EXPECT_EQ(array.to_vector(), values);
        EXPECT_DOUBLE_EQ(array.sum(), std::accumulate(values.begin(), values.end(), 0.0));
        if (len > 0) {
            array.set(len - 1, 42.0);
            EXPECT_EQ(array[len - 1], 42.0);
        }
        EXPECT_THROW((void)array.at(len), sa::Error);
    }
    sa::F64Array zeros(10);
    EXPECT_EQ(zeros.to_vector(), std::vector<double>(10, 0.0));
}

TEST(Arrow, ExportsArraysAndStreams) {
    auto values = values_for(10000, 64);
    auto array = sa::Array::from_values(values, "os", 64);
    ArrowArray exported;
    ArrowSchema schema;
    array.export_arrow(&exported, &schema);
    EXPECT_STREQ(schema.format, "L");
    EXPECT_EQ(exported.length, 10000);
    EXPECT_EQ(static_cast<const std::uint64_t*>(exported.buffers[1]) + exported.offset, array.raw_values());
    EXPECT_THROW(array.set(0, 1), sa::Error);  // busy while exported
    exported.release(&exported);
    schema.release(&schema);
    array.set(0, 1);  // released: writable again
    values[0] = 1;

    auto compressed = sa::Array::from_values(values_for(10000, 33), "os", 33);
    ArrowArrayStream stream;
    compressed.export_arrow_stream(&stream, 3000);
    std::vector<std::uint64_t> joined;
    std::vector<std::int64_t> lengths;
    for (;;) {
        ArrowArray chunk;
        ASSERT_EQ(stream.get_next(&stream, &chunk), 0);
        if (chunk.release == nullptr) {
            break;
        }
        auto data = static_cast<const std::uint64_t*>(chunk.buffers[1]) + chunk.offset;
        joined.insert(joined.end(), data, data + chunk.length);
        lengths.push_back(chunk.length);
        chunk.release(&chunk);
    }
    stream.release(&stream);
    EXPECT_EQ(lengths, (std::vector<std::int64_t>{3000, 3000, 3000, 1000}));
    EXPECT_EQ(joined, values_for(10000, 33));

    std::vector<double> doubles = {1.5, -2.0};
    auto f = sa::F64Array::from_values(doubles);
    f.export_arrow(&exported, &schema);
    EXPECT_STREQ(schema.format, "g");
    EXPECT_EQ(static_cast<const double*>(exported.buffers[1])[1], -2.0);
    exported.release(&exported);
    schema.release(&schema);
}
