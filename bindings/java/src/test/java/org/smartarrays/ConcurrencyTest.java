// set() is guarded against concurrent reads: a reader never sees a half-written value (it used to
// see torn values: 9 in 10 s), set refuses while readers are inside the array and set(..., timeout)
// waits for them; negative indices and widths name themselves.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {
    @Test
    void readersNeverSeeATornValueWhileAnotherThreadSets() throws Exception {
        // 33-bit values straddle words, so an unguarded set is two separate word writes.
        long a = (1L << 33) - 1;
        long b = 0x1_5555_5555L;
        long[] values = new long[4096];
        java.util.Arrays.fill(values, a);
        try (SmartArray array = SmartArray.of(values, Placement.osDefault(), 33)) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong torn = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            Thread reader = new Thread(() -> {
                while (!stop.get()) {
                    for (long i = 1; i < 4096; i += 64) {
                        long v = array.get(i);
                        if (v != a && v != b) {
                            torn.incrementAndGet();
                        }
                    }
                    long sum = array.sumRange(1, 2);
                    if (sum != a && sum != b) {
                        torn.incrementAndGet();
                    }
                    try (ChunkCursor cursor = array.cursor()) {
                        while (cursor.next()) {
                            for (int k = 0; k < cursor.count(); k++) {
                                long v = cursor.value(k);
                                if (v != a && v != b) {
                                    torn.incrementAndGet();
                                }
                            }
                        }
                    }
                    reads.incrementAndGet();
                }
            });
            reader.start();
            long writes = 0;
            long refused = 0;
            long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (System.nanoTime() < until) {
                for (long i = 1; i < 4096; i += 64) {
                    long value = (writes & 1) == 0 ? b : a;
                    try {
                        array.set(i, value);
                    } catch (IllegalStateException busy) {
                        refused++;
                        array.set(i, value, Duration.ofSeconds(10));
                    }
                    writes++;
                }
            }
            stop.set(true);
            reader.join();
            assertEquals(0, torn.get(), "torn values seen by readers");
            assertTrue(reads.get() > 0 && writes > 0, "both sides ran: " + reads + " reads, " + writes + " writes, " + refused + " refused");
        }
    }

    @Test
    void negativeIndicesAndWidthsAreNamed() {
        try (SmartArray array = SmartArray.of(new long[] {1, 2, 3})) {
            IndexOutOfBoundsException error = assertThrows(IndexOutOfBoundsException.class, () -> array.get(-1));
            assertEquals("index -1 is negative", error.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> array.set(-5, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> array.sumRange(-1, 2));
        }
        IllegalArgumentException bits = assertThrows(IllegalArgumentException.class,
                () -> SmartArray.of(new long[] {1}, Placement.osDefault(), -1));
        assertEquals("bits must be 1..64, or MINIMAL_BITS (0), got -1", bits.getMessage());
        assertEquals(SmartArrayException.Status.INVALID_BIT_WIDTH,
                assertThrows(SmartArrayException.class, () -> SmartArray.zeros(3, Placement.osDefault(), 65)).status());
    }
}
