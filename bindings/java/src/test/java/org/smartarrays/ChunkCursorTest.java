// The chunk cursor: chunk boundaries and sizes, partial ranges, the reused (cache-line aligned)
// decoding buffer with its prefetching decode calls at every width, the in-place path of 64-bit
// arrays, and its errors.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
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

    @Test
    void decodingBufferIsCacheLineAligned() {
        try (SmartArray array = SmartArray.of(Reference.values(3000, 33, 5), Placement.osDefault(), 33);
                ChunkCursor cursor = array.cursor()) {
            assertEquals(1024, ChunkCursor.DEFAULT_CHUNK_VALUES);
            assertTrue(cursor.next());
            assertEquals(0, cursor.values().address() % 64, "the decoding buffer starts on a cache line");
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
        array.close();
        assertThrows(IllegalStateException.class, orphan::next, "the array's handle is gone");
        orphan.close();

        SmartArray wide = SmartArray.of(Reference.values(5000, 64, 4), Placement.osDefault(), 64);
        ChunkCursor inPlace = wide.cursor(0, 5000, 1024);
        assertTrue(inPlace.next());
        wide.close();
        assertThrows(IllegalStateException.class, () -> inPlace.value(0), "in-place chunks die with the array");
        inPlace.close();
    }
}
