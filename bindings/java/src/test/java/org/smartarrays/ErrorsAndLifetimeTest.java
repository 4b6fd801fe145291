// Errors carry the C ABI's status and message; closing is idempotent, every use after close is
// an IllegalStateException (never a crash), close refuses while another thread is in a native
// call, and forgotten arrays are freed by the Cleaner.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ErrorsAndLifetimeTest {
    private static SmartArrayException.Status statusOf(Runnable call) {
        return assertThrows(SmartArrayException.class, call::run).status();
    }

    @Test
    void valuesWiderThanTheWidthAreRefusedWithTheFirstIndex() {
        SmartArrayException error =
                assertThrows(SmartArrayException.class, () -> SmartArray.of(new long[] {1, 2, 300, 400}, Placement.osDefault(), 8));
        assertEquals(SmartArrayException.Status.VALUE_TOO_WIDE, error.status());
        assertEquals(5, error.code());
        assertTrue(error.getMessage().contains("index 2"), error.getMessage());
        assertTrue(error.getMessage().contains("300"), error.getMessage());
        assertEquals(SmartArrayException.Status.VALUE_TOO_WIDE, statusOf(() -> SmartArray.of(new long[] {-1L}, Placement.osDefault(), 63)));
    }

    @Test
    void badWidthsAndNodesAreRefused() {
        assertEquals(SmartArrayException.Status.INVALID_BIT_WIDTH, statusOf(() -> SmartArray.of(new long[] {1}, Placement.osDefault(), 65)));
        // A negative width is named as such in Java (it used to reach C as 4294967293).
        assertThrows(IllegalArgumentException.class, () -> SmartArray.zeros(10, Placement.osDefault(), -3));
        SmartArrayException unknown = assertThrows(SmartArrayException.class, () -> SmartArray.zeros(10, Placement.singleNode(4096), 8));
        assertEquals(SmartArrayException.Status.UNKNOWN_NODE, unknown.status());
        assertTrue(unknown.getMessage().contains("4096"), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SmartArray.zeros(-1, Placement.osDefault(), 8));
        assertThrows(IllegalArgumentException.class, () -> SmartArray.of(MemorySegment.ofArray(new long[2]), Placement.osDefault(), 8));
    }

    @Test
    void readsAndWritesOutOfRangeAreRefused() {
        try (SmartArray array = SmartArray.of(new long[] {5, 6, 7}, Placement.osDefault(), 4)) {
            SmartArrayException error = assertThrows(SmartArrayException.class, () -> array.get(3));
            assertEquals(SmartArrayException.Status.INDEX_OUT_OF_RANGE, error.status());
            assertTrue(error.getMessage().contains("index 3"), error.getMessage());
            // A negative index is named as such (it used to reach C as 18446744073709551615).
            assertThrows(IndexOutOfBoundsException.class, () -> array.get(-1));
            assertEquals(SmartArrayException.Status.INDEX_OUT_OF_RANGE, statusOf(() -> array.set(3, 1)));
            assertEquals(SmartArrayException.Status.VALUE_TOO_WIDE, statusOf(() -> array.set(0, 16)));
            assertEquals(5, array.get(0), "a refused set writes nothing");
            assertEquals(SmartArrayException.Status.RANGE_OUT_OF_BOUNDS, statusOf(() -> array.sumRange(2, 1)));
            assertEquals(SmartArrayException.Status.RANGE_OUT_OF_BOUNDS, statusOf(() -> array.sumRange(0, 4)));
            assertEquals(SmartArrayException.Status.RANGE_OUT_OF_BOUNDS, statusOf(() -> array.unpack(1, new long[3], 0, 3)));
            assertThrows(IndexOutOfBoundsException.class, () -> array.unpack(0, new long[3], 1, 3));
            SmartArrayException notWide = assertThrows(SmartArrayException.class, array::segment);
            assertEquals(SmartArrayException.Status.NOT_UNCOMPRESSED, notWide.status());
            assertTrue(notWide.getMessage().contains("4 bits"), notWide.getMessage());
        }
    }

    @Test
    void unknownStatusCodesMapToOther() {
        assertEquals(SmartArrayException.Status.OTHER, SmartArrayException.Status.of(999));
        assertEquals(SmartArrayException.Status.OTHER, SmartArrayException.Status.of(-1));
        assertEquals(SmartArrayException.Status.PANIC, SmartArrayException.Status.of(19));
    }

    @Test
    void closeIsIdempotentAndLaterUseFailsCleanly() {
        SmartArray array = SmartArray.of(new long[] {1, 2, 3}, Placement.osDefault(), 64);
        MemorySegment segment = array.segment();
        assertFalse(array.isClosed());
        array.close();
        assertTrue(array.isClosed());
        assertDoesNotThrow(array::close);
        assertThrows(IllegalStateException.class, () -> array.get(0));
        assertThrows(IllegalStateException.class, array::sum);
        assertThrows(IllegalStateException.class, () -> array.set(0, 1));
        assertThrows(IllegalStateException.class, array::toArray);
        assertThrows(IllegalStateException.class, array::cursor);
        assertThrows(IllegalStateException.class, () -> segment.getAtIndex(ValueLayout.JAVA_LONG, 0));
        assertEquals(3, array.length(), "cached properties stay readable");
        assertTrue(array.toString().contains("closed"));
    }

    @Test
    void closeIsRefusedWhileAnotherThreadIsInANativeCall() throws Exception {
        SmartArray array = SmartArray.zeros(8_000_000, Placement.osDefault(), 33);
        ExecutorService reader = Executors.newSingleThreadExecutor();
        AtomicBoolean started = new AtomicBoolean();
        try {
            Future<Integer> sums = reader.submit(() -> {
                int done = 0;
                try {
                    while (true) {
                        started.set(true);
                        array.sumRange(0, array.length());
                        done++;
                    }
                } catch (IllegalStateException closed) {
                    return done;
                }
            });
            while (!started.get()) {
                Thread.onSpinWait();
            }
            while (true) {
                try {
                    array.close();
                    break;
                } catch (IllegalStateException inUse) {
                    Thread.onSpinWait();
                }
            }
            assertTrue(array.isClosed());
            assertTrue(sums.get(60, TimeUnit.SECONDS) >= 0, "the reader ends with IllegalStateException, not a crash");
        } finally {
            reader.shutdownNow();
        }
    }

    @Test
    void forgottenArraysAreFreedByTheCleaner() throws InterruptedException {
        List<WeakReference<SmartArray>> forgotten = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            forgotten.add(new WeakReference<>(SmartArray.zeros(100_000, Placement.osDefault(), 17)));
        }
        for (int attempt = 0; attempt < 50 && forgotten.stream().anyMatch(r -> r.get() != null); attempt++) {
            System.gc();
            Thread.sleep(20);
        }
        for (WeakReference<SmartArray> reference : forgotten) {
            assertNull(reference.get(), "an unreferenced array can be collected (its Cleaner frees the native memory)");
        }
    }

    @Test
    void concurrentReadersSeeTheSameValues() throws Exception {
        long[] values = Reference.values(100_000, 33, 11);
        try (SmartArray array = SmartArray.of(values, Placement.replicated(), 33)) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Long>> sums = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    final int offset = t;
                    sums.add(pool.submit(() -> {
                        long total = 0;
                        try (ChunkCursor cursor = array.cursor()) {
                            while (cursor.next()) {
                                total += cursor.chunkSum();
                            }
                        }
                        for (int i = offset; i < values.length; i += 97) {
                            assertEquals(values[i], array.get(i));
                        }
                        return total;
                    }));
                }
                for (Future<Long> sum : sums) {
                    assertEquals(Reference.sum(values), sum.get(60, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void libraryWideQueries() {
        assertTrue(SmartArray.libraryVersion().matches("\\d+\\.\\d+\\.\\d+.*"), SmartArray.libraryVersion());
        assertTrue(SmartArray.runtimeThreads() >= 1);
        assertTrue(SmartArray.topologyJson().contains("\"nodes\""), SmartArray.topologyJson());
        try (SmartArray array = SmartArray.of(Reference.values(100_000, 12, 1), Placement.interleaved(), 12)) {
            assertTrue(array.placementReportJson().contains("\"placement\""), array.placementReportJson());
            assertFalse(array.placementReport().isBlank());
        }
    }
}
