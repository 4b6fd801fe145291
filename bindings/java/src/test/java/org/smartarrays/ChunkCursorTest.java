// The chunk cursor: chunk boundaries and sizes, partial ranges, the reused (cache-line aligned)
// decoding buffer with its prefetching decode calls at every width, the long[] view (longs(), and
// decoding straight into it once asked for) mixed with the segment view in every order, chunkSum,
// the in-place path of 64-bit arrays, and its errors.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ChunkCursorTest {
    @ParameterizedTest(name = "{0} bits")
    @ValueSource(ints = {1, 7, 32, 33, 63, 64})
    void chunksCoverRangesInOrder(int bits) {
        long[] values = Reference.values(10_000, bits, bits * 7L);
        try (SmartArray array = SmartArray.of(values, Placement.interleaved(), bits)) {
            for (int chunk : new int[] {1024, 1025, 4096, 20_000}) {
                for (long[] range : new long[][] {{0, 10_000}, {1, 9_999}, {64, 65}, {1023, 3073}, {5000, 5000}, {9_999, 10_000}}) {
                    long[] expected = Arrays.copyOfRange(values, (int) range[0], (int) range[1]);
                    assertArrayEquals(expected, SmartArrayRoundTripTest.viaCursor(array, range[0], range[1], chunk),
                            bits + " bits, chunk " + chunk + ", range " + range[0] + ".." + range[1]);
                }
            }
        }
    }

    @Test
    void everyWidthAndEdgeLengthWalksLikeTheReference() {
        for (int bits = 1; bits <= 64; bits++) {
            for (int length : new int[] {0, 1, 1023, 1024, 1025, 2049}) {
                long[] values = Reference.values(length, bits, 977L * bits + length);
                try (SmartArray array = SmartArray.of(values, Placement.osDefault(), bits)) {
                    for (int chunk : new int[] {ChunkCursor.DEFAULT_CHUNK_VALUES, 1025, 2048}) {
                        String what = length + " values at " + bits + " bits, chunk " + chunk;
                        long[] walked = new long[length];
                        long total = 0;
                        int chunks = 0;
                        try (ChunkCursor cursor = array.cursor(0, length, chunk)) {
                            while (cursor.next()) {
                                assertEquals((long) chunks * chunk, cursor.start(), what);
                                assertEquals(Math.min(chunk, length - chunks * chunk), cursor.count(), what);
                                for (int i = 0; i < cursor.count(); i++) {
                                    walked[(int) cursor.start() + i] = cursor.value(i);
                                }
                                total += cursor.chunkSum();
                                chunks++;
                            }
                            assertFalse(cursor.next(), what);
                        }
                        assertArrayEquals(values, walked, what);
                        assertEquals(Reference.sum(values), total, what);
                        assertEquals((length + chunk - 1) / chunk, chunks, what);
                    }
                }
            }
        }
    }

    /** One way to read a chunk. */
    private enum Read {
        LONGS, SEGMENT, VALUES
    }

    /** The orders in which a test reads each chunk (then always chunkSum()), so every switch between views is walked. */
    private enum Reads {
        LONGS_ONLY, SUM_ONLY, LONGS_THEN_SEGMENT, SEGMENT_THEN_LONGS, VALUES_ONLY, ALTERNATING;

        List<Read> forChunk(int chunk) {
            return switch (this) {
                case LONGS_ONLY -> List.of(Read.LONGS);
                case SUM_ONLY -> List.of();
                case LONGS_THEN_SEGMENT -> List.of(Read.LONGS, Read.SEGMENT);
                case SEGMENT_THEN_LONGS -> List.of(Read.SEGMENT, Read.LONGS);
                case VALUES_ONLY -> List.of(Read.VALUES);
                case ALTERNATING -> chunk % 2 == 0 ? List.of(Read.LONGS, Read.VALUES) : List.of(Read.SEGMENT);
            };
        }
    }

    @Test
    void longsAndChunkSumMatchTheReferenceAtEveryWidthAndEdgeLength() {
        for (int bits = 1; bits <= 64; bits++) {
            for (int length : new int[] {0, 1, 1023, 1024, 1025, 2049}) {
                long[] values = Reference.values(length, bits, 131L * bits + length);
                try (SmartArray array = SmartArray.of(values, Placement.osDefault(), bits)) {
                    for (Reads reads : Reads.values()) {
                        for (int chunk : new int[] {ChunkCursor.DEFAULT_CHUNK_VALUES, 1027}) {
                            String what = length + " values at " + bits + " bits, chunk " + chunk + ", " + reads;
                            assertEquals(Reference.sum(values), walk(array, values, chunk, reads, what), what);
                        }
                    }
                }
            }
        }
    }

    /** Walks the whole array reading each chunk as {@code reads} says, checks every value read, returns the sum of chunkSum(). */
    private static long walk(SmartArray array, long[] values, int chunk, Reads reads, String what) {
        long total = 0;
        int chunks = 0;
        try (ChunkCursor cursor = array.cursor(0, values.length, chunk)) {
            assertEquals(0, cursor.chunkSum(), what + ": no chunk yet");
            while (cursor.next()) {
                int count = cursor.count();
                int first = (int) cursor.start();
                String where = what + ", chunk at " + first;
                long[] expected = Arrays.copyOfRange(values, first, first + count);
                for (Read read : reads.forChunk(chunks)) {
                    switch (read) {
                        case LONGS -> {
                            long[] buffer = cursor.longs();
                            assertEquals(chunk, buffer.length, where);
                            assertSame(buffer, cursor.longs(), where + ": one buffer");
                            assertArrayEquals(expected, Arrays.copyOf(buffer, count), where + " via longs()");
                        }
                        case SEGMENT -> {
                            MemorySegment segment = cursor.values();
                            assertTrue(segment.isNative(), where + ": values() is native memory");
                            assertEquals((long) count * Long.BYTES, segment.byteSize(), where);
                            assertArrayEquals(expected, segment.toArray(ValueLayout.JAVA_LONG), where + " via values()");
                        }
                        case VALUES -> checkValues(cursor, expected, where);
                    }
                }
                long sum = cursor.chunkSum();
                assertEquals(Reference.sum(expected), sum, where + ": chunkSum()");
                assertEquals(sum, cursor.chunkSum(), where + ": chunkSum() again");
                checkValues(cursor, expected, where + " after chunkSum()");
                total += sum;
                chunks++;
            }
            assertFalse(cursor.next(), what);
            assertEquals(0, cursor.chunkSum(), what + ": exhausted");
            assertEquals(chunk, cursor.longs().length, what + ": longs() stays usable");
        }
        return total;
    }

    /** value(i) at every position, and its refusal just outside the chunk. */
    private static void checkValues(ChunkCursor cursor, long[] expected, String where) {
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], cursor.value(i), where + ", value " + i);
        }
        assertThrows(IndexOutOfBoundsException.class, () -> cursor.value(expected.length), where);
        assertThrows(IndexOutOfBoundsException.class, () -> cursor.value(-1), where);
    }

    @Test
    void longsBeforeTheFirstChunkAndPartialRanges() {
        long[] values = Reference.values(5000, 33, 9);
        try (SmartArray array = SmartArray.of(values, Placement.interleaved(), 33); ChunkCursor cursor = array.cursor(7, 4100, 1024)) {
            long[] buffer = cursor.longs();
            assertEquals(1024, buffer.length, "longs() before next() is the (empty) buffer");
            assertEquals(0, cursor.count());
            long total = 0;
            while (cursor.next()) {
                assertSame(buffer, cursor.longs(), "the long[] is reused");
                for (int i = 0; i < cursor.count(); i++) {
                    assertEquals(values[(int) cursor.start() + i], buffer[i]);
                }
                total += cursor.chunkSum();
            }
            assertEquals(Reference.sum(Arrays.copyOfRange(values, 7, 4100)), total);
        }
    }

    @Test
    void chunksTooLargeToDecodeIntoTheJavaArrayAreCopied() {
        long[] values = Reference.values(200_001, 21, 12);
        try (SmartArray array = SmartArray.of(values, Placement.osDefault(), 21); ChunkCursor cursor = array.cursor(0, values.length, 70_000)) {
            long total = 0;
            while (cursor.next()) {
                long[] chunk = cursor.longs();
                for (int i = 0; i < cursor.count(); i++) {
                    assertEquals(values[(int) cursor.start() + i], chunk[i]);
                }
                assertEquals(values[(int) cursor.start() + cursor.count() - 1], cursor.value(cursor.count() - 1));
                total += cursor.chunkSum();
            }
            assertEquals(Reference.sum(values), total);
        }
    }

    @Test
    void chunkSumWrapsLikeUnsignedAddition() {
        for (int bits : new int[] {63, 64}) {
            long[] fitted = new long[3000];
            Arrays.setAll(fitted, i -> Reference.maxValue(bits) - i);
            try (SmartArray array = SmartArray.of(fitted, Placement.osDefault(), bits); ChunkCursor cursor = array.cursor()) {
                long total = 0;
                while (cursor.next()) {
                    total += cursor.chunkSum();
                }
                assertEquals(Reference.sum(fitted), total, bits + " bits");
            }
        }
    }

    @Test
    void decodingBufferIsCacheLineAligned() {
        try (SmartArray array = SmartArray.of(Reference.values(3000, 33, 5), Placement.osDefault(), 33);
                ChunkCursor cursor = array.cursor()) {
            assertEquals(1024, ChunkCursor.DEFAULT_CHUNK_VALUES);
            assertTrue(cursor.next());
            assertEquals(0, cursor.values().address() % 64, "the decoding buffer starts on a cache line");
            cursor.longs();
            assertTrue(cursor.next());
            assertEquals(0, cursor.values().address() % 64, "values() is the native buffer after longs() too");
        }
    }

    @Test
    void chunkSizesAndStartsAreAsDocumented() {
        long[] values = Reference.values(5000, 33, 1);
        try (SmartArray array = SmartArray.of(values, Placement.osDefault(), 33);
                ChunkCursor cursor = array.cursor(100, 5000, 1024)) {
            assertEquals(0, cursor.count(), "no chunk before the first next()");
            long[] starts = new long[5];
            int[] counts = new int[5];
            int chunks = 0;
            MemorySegment buffer = null;
            while (cursor.next()) {
                starts[chunks] = cursor.start();
                counts[chunks] = cursor.count();
                assertEquals((long) cursor.count() * Long.BYTES, cursor.values().byteSize());
                long expected = 0;
                for (int i = 0; i < cursor.count(); i++) {
                    expected += values[(int) cursor.start() + i];
                }
                assertEquals(expected, cursor.chunkSum());
                if (chunks == 1) {
                    buffer = cursor.values();
                } else if (chunks == 2) {
                    assertEquals(buffer.address(), cursor.values().address(), "the decoding buffer is reused");
                }
                chunks++;
            }
            assertEquals(5, chunks);
            assertArrayEquals(new long[] {100, 1124, 2148, 3172, 4196}, starts);
            assertArrayEquals(new int[] {1024, 1024, 1024, 1024, 804}, counts);
            assertFalse(cursor.next(), "an exhausted cursor stays exhausted");
            assertEquals(0, cursor.count());
        }
    }

    @Test
    void uncompressedArraysAreReadInPlace() {
        long[] values = Reference.values(3000, 64, 3);
        try (SmartArray array = SmartArray.of(values, Placement.osDefault(), 64); ChunkCursor cursor = array.cursor()) {
            MemorySegment whole = array.segment();
            assertTrue(cursor.next());
            assertEquals(whole.address(), cursor.values().address(), "the first chunk is the array's own memory");
            assertTrue(cursor.values().isReadOnly());
            assertSame(array, cursor.array());
        }
    }

    @Test
    void defaultChunksAreLargeInPlaceAndSmallForDecoding() {
        int n = 3 * ChunkCursor.IN_PLACE_CHUNK_VALUES + 5;
        for (int bits : new int[] {33, 64}) {
            long[] values = Reference.values(n, bits, bits);
            try (SmartArray array = SmartArray.of(values, Placement.osDefault(), bits);
                    ChunkCursor cursor = array.cursor(1, n)) {
                int expectedChunk = bits == 64 ? ChunkCursor.IN_PLACE_CHUNK_VALUES : ChunkCursor.DEFAULT_CHUNK_VALUES;
                assertEquals(expectedChunk, ChunkCursor.defaultChunkValues(array));
                assertEquals(expectedChunk, cursor.chunkValues());
                try (ChunkCursor whole = array.cursor()) {
                    assertEquals(expectedChunk, whole.chunkValues());
                }
                long total = 0;
                long expectedTotal = 0;
                long next = 1;
                while (cursor.next()) {
                    assertEquals(next, cursor.start());
                    long chunkTotal = cursor.chunkSum();
                    long expected = 0;
                    for (int i = 0; i < cursor.count(); i++) {
                        expected += values[(int) cursor.start() + i];
                    }
                    assertEquals(expected, chunkTotal, bits + " bits, chunk at " + cursor.start());
                    // Read after the sum, in every view: the value, the segment, the long[].
                    int last = cursor.count() - 1;
                    assertEquals(values[(int) cursor.start() + last], cursor.value(last));
                    assertEquals(values[(int) cursor.start()], cursor.values().getAtIndex(ValueLayout.JAVA_LONG, 0));
                    assertEquals((long) cursor.count() * Long.BYTES, cursor.values().byteSize());
                    assertEquals(values[(int) cursor.start() + last], cursor.longs()[last]);
                    assertThrows(IndexOutOfBoundsException.class, () -> cursor.value(cursor.count()));
                    total += chunkTotal;
                    next += cursor.count();
                }
                for (int i = 1; i < n; i++) {
                    expectedTotal += values[i];
                }
                assertEquals(n, next);
                assertEquals(expectedTotal, total);
            }
        }
    }

    @Test
    void badArgumentsAreRefused() {
        try (SmartArray array = SmartArray.of(new long[2000])) {
            assertThrows(IllegalArgumentException.class, () -> array.cursor(0, 10, 1023));
            assertThrows(IllegalArgumentException.class, () -> array.cursor(0, 10, ChunkCursor.MAX_CHUNK_VALUES + 1));
            assertThrows(IndexOutOfBoundsException.class, () -> array.cursor(0, 2001, 1024));
            assertThrows(IndexOutOfBoundsException.class, () -> array.cursor(10, 9, 1024));
            assertThrows(IndexOutOfBoundsException.class, () -> array.cursor(-1, 9, 1024));
        }
    }

    @Test
    void closedCursorsAndArraysStopTheCursor() {
        SmartArray array = SmartArray.of(Reference.values(5000, 7, 4), Placement.osDefault(), 7);
        ChunkCursor cursor = array.cursor();
        assertTrue(cursor.next());
        cursor.close();
        cursor.close();
        assertThrows(IllegalStateException.class, cursor::next);

        ChunkCursor orphan = array.cursor(0, 5000, 1024);
        assertTrue(orphan.next());
        ChunkCursor heapOrphan = array.cursor(0, 5000, 1024);
        assertTrue(heapOrphan.next());
        heapOrphan.longs();
        array.close();
        assertThrows(IllegalStateException.class, orphan::next, "the array's handle is gone");
        assertThrows(IllegalStateException.class, heapOrphan::next, "the array's handle is gone (decoding into the long[])");
        assertEquals(0, heapOrphan.count(), "no stale chunk after a failed decode");
        assertThrows(IndexOutOfBoundsException.class, () -> heapOrphan.value(0));
        orphan.close();
        heapOrphan.close();
        assertThrows(IllegalStateException.class, heapOrphan::longs, "a closed cursor hands out nothing");
        assertThrows(IllegalStateException.class, heapOrphan::chunkSum);

        SmartArray wide = SmartArray.of(Reference.values(5000, 64, 4), Placement.osDefault(), 64);
        ChunkCursor inPlace = wide.cursor(0, 5000, 1024);
        assertTrue(inPlace.next());
        wide.close();
        assertThrows(IllegalStateException.class, () -> inPlace.value(0), "in-place chunks die with the array");
        inPlace.close();
    }
}
