// Round trips: values written from Java come back identical through every read path (get,
// toArray/unpack, the chunk cursor, direct segments, reductions) at widths 1, 7, 32, 33, 63, 64,
// for every placement and the edge lengths, compared with plain long[] references.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class SmartArrayRoundTripTest {
    static Stream<Arguments> widthsAndPlacements() {
        List<Arguments> cases = new ArrayList<>();
        for (int bits : Reference.WIDTHS) {
            for (Placement placement : Reference.placements()) {
                cases.add(Arguments.of(bits, placement));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} bits, {1}")
    @MethodSource("widthsAndPlacements")
    void everyReadPathReturnsTheValuesWritten(int bits, Placement placement) {
        for (int length : Reference.LENGTHS) {
            long[] values = Reference.values(length, bits, 31L * length + bits);
            try (SmartArray array = SmartArray.of(values, placement, bits)) {
                String what = length + " values at " + bits + " bits, " + placement;
                assertEquals(length, array.length(), what);
                assertEquals(bits, array.bits(), what);
                assertEquals(placement, array.placement(), what);
                assertEquals(bits == 64, array.isUncompressed(), what);
                for (int i = 0; i < length; i++) {
                    assertEquals(values[i], array.get(i), what + ", index " + i);
                }
                assertArrayEquals(values, array.toArray(), what);
                assertArrayEquals(values, viaCursor(array, 0, length, ChunkCursor.DEFAULT_CHUNK_VALUES), what);
                assertEquals(Reference.sum(values), array.sum(), what);
                assertEquals(Reference.sum(values), array.sumRange(0, length), what);
                assertEquals(length == 0 ? OptionalLong.empty() : OptionalLong.of(Reference.unsignedMin(values)), array.min(), what);
                assertEquals(length == 0 ? OptionalLong.empty() : OptionalLong.of(Reference.unsignedMax(values)), array.max(), what);
                assertEquals(((long) length * bits + 7) / 8, array.packedBytes(), what);
                assertTrue(array.memoryBytes() >= array.packedBytes(), what);
                assertTrue(array.replicaCount() >= 1, what);
                if (bits == 64) {
                    MemorySegment segment = array.segment();
                    assertEquals((long) length * Long.BYTES, segment.byteSize(), what);
                    assertTrue(segment.isReadOnly(), what);
                    assertArrayEquals(values, segment.toArray(ValueLayout.JAVA_LONG), what);
                }
            }
        }
    }

    @Test
    void everyWidthFrom1To64RoundTrips() {
        for (int bits = 1; bits <= 64; bits++) {
            long[] values = Reference.values(1025, bits, 1000L + bits);
            try (SmartArray array = SmartArray.of(values, Placement.osDefault(), bits)) {
                assertArrayEquals(values, array.toArray(), bits + " bits");
                assertArrayEquals(values, viaCursor(array, 0, values.length, ChunkCursor.MIN_CHUNK_VALUES), bits + " bits");
                assertEquals(Reference.sum(values), array.sum(), bits + " bits");
                assertEquals(values[1024], array.get(1024), bits + " bits");
            }
        }
    }

    @Test
    void randomCasesAgreeWithTheReference() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(20180423);
        List<Placement> placements = Reference.placements();
        for (int round = 0; round < 60; round++) {
            int bits = 1 + random.nextInt(64);
            int length = random.nextInt(6000);
            Placement placement = placements.get(random.nextInt(placements.size()));
            long[] values = Reference.values(length, bits, random.nextLong());
            String what = length + " values at " + bits + " bits, " + placement;
            try (SmartArray array = SmartArray.of(values, placement, random.nextBoolean() ? bits : SmartArray.MINIMAL_BITS)) {
                assertArrayEquals(values, array.toArray(), what);
                int start = length == 0 ? 0 : random.nextInt(length);
                int end = start + (length == start ? 0 : random.nextInt(length - start + 1));
                long expected = 0;
                for (int i = start; i < end; i++) {
                    expected += values[i];
                }
                assertEquals(expected, array.sumRange(start, end), what + ", range " + start + ".." + end);
                int chunk = ChunkCursor.MIN_CHUNK_VALUES + random.nextInt(3000);
                assertArrayEquals(java.util.Arrays.copyOfRange(values, start, end), viaCursor(array, start, end, chunk), what + ", chunk " + chunk);
                for (int probe = 0; probe < 20 && length > 0; probe++) {
                    int index = random.nextInt(length);
                    assertEquals(values[index], array.get(index), what + ", index " + index);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} bits")
    @ValueSource(ints = {1, 7, 32, 33, 63, 64})
    void automaticWidthIsTheFewestBitsForTheLargestValue(int bits) {
        long[] values = Reference.values(777, bits, bits);
        try (SmartArray array = SmartArray.of(values, Placement.osDefault(), SmartArray.MINIMAL_BITS)) {
            assertEquals(bits, array.bits());
            assertEquals(Reference.bitsNeeded(values), array.bits());
            assertArrayEquals(values, array.toArray());
        }
        try (SmartArray zeros = SmartArray.of(new long[100])) {
            assertEquals(1, zeros.bits());
            assertEquals(0, zeros.sum());
        }
        try (SmartArray empty = SmartArray.of()) {
            assertEquals(0, empty.length());
            assertEquals(1, empty.bits());
            assertEquals(0, empty.toArray().length);
        }
    }

    @Test
    void unsignedExtremesSurvive() {
        long[] values = {-1L, Long.MIN_VALUE, Long.MAX_VALUE, 0, 1, -2L};
        try (SmartArray array = SmartArray.of(values)) {
            assertEquals(64, array.bits());
            assertArrayEquals(values, array.toArray());
            assertEquals(OptionalLong.of(0), array.min());
            assertEquals(OptionalLong.of(-1L), array.max(), "max is unsigned: 2^64 - 1");
            assertEquals(Reference.sum(values), array.sum(), "the sum wraps mod 2^64");
        }
        for (int bits : Reference.WIDTHS) {
            long max = Reference.maxValue(bits);
            try (SmartArray array = SmartArray.of(new long[] {max, max, max}, Placement.interleaved(), bits)) {
                assertEquals(max, array.get(1));
                assertEquals(3 * max, array.sum());
            }
        }
    }

    @Test
    void zerosAndSetsRoundTrip() {
        for (int bits : Reference.WIDTHS) {
            try (SmartArray array = SmartArray.zeros(1025, Placement.replicated(), bits)) {
                assertEquals(1025, array.length());
                assertEquals(bits, array.bits());
                assertEquals(0, array.sum());
                long[] expected = new long[1025];
                long max = Reference.maxValue(bits);
                for (int i : new int[] {0, 1, 63, 64, 65, 512, 1023, 1024}) {
                    expected[i] = max - i % 2;
                    array.set(i, expected[i]);
                }
                assertArrayEquals(expected, array.toArray(), bits + " bits");
                assertEquals(Reference.sum(expected), array.sumRange(0, 1025));
            }
        }
    }

    @Test
    void setIsVisibleThroughTheDirectSegment() {
        try (SmartArray array = SmartArray.of(new long[] {1, 2, 3}, Placement.osDefault(), 64)) {
            MemorySegment segment = array.segment();
            array.set(1, -5L);
            assertEquals(-5L, segment.getAtIndex(ValueLayout.JAVA_LONG, 1));
        }
    }

    @Test
    void sumRangeCoversPartialRanges() {
        long[] values = Reference.values(5000, 33, 5);
        try (SmartArray array = SmartArray.of(values, Placement.osDefault(), 33)) {
            for (int[] range : new int[][] {{0, 0}, {0, 1}, {1, 64}, {63, 65}, {100, 4999}, {4999, 5000}}) {
                long expected = 0;
                for (int i = range[0]; i < range[1]; i++) {
                    expected += values[i];
                }
                assertEquals(expected, array.sumRange(range[0], range[1]), range[0] + ".." + range[1]);
            }
        }
    }

    @Test
    void unpackFillsPartOfAJavaArray() {
        long[] values = Reference.values(200_000, 7, 9);
        try (SmartArray array = SmartArray.of(values, Placement.osDefault(), 7)) {
            long[] target = new long[150_000];
            target[0] = 42;
            array.unpack(10, target, 1, 149_999);
            assertEquals(42, target[0]);
            for (int i = 1; i < target.length; i++) {
                assertEquals(values[9 + i], target[i], "position " + i);
            }
            array.unpack(0, target, 5, 0);
        }
    }

    @Test
    void arraysFromNativeSegments() {
        long[] values = Reference.values(3000, 63, 2);
        try (var arena = java.lang.foreign.Arena.ofConfined();
                SmartArray array = SmartArray.of(arena.allocateFrom(ValueLayout.JAVA_LONG, values), Placement.interleaved(), 63)) {
            assertArrayEquals(values, array.toArray());
        }
    }

    static long[] viaCursor(SmartArray array, long start, long end, int chunkValues) {
        long[] out = new long[(int) (end - start)];
        try (ChunkCursor cursor = array.cursor(start, end, chunkValues)) {
            int filled = 0;
            while (cursor.next()) {
                assertEquals(start + filled, cursor.start());
                for (int i = 0; i < cursor.count(); i++) {
                    out[filled + i] = cursor.value(i);
                }
                filled += cursor.count();
            }
            assertEquals(out.length, filled);
        }
        return out;
    }
}
