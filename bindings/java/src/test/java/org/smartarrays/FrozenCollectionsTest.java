// SmartFrozenMap and SmartFrozenSet against java.util references over every placement and the
// edge lengths: single and batched lookups (hits and misses), exports, frozen copies of a SmartMap
// and a SmartSet; a duplicate key is INVALID_ARGUMENT naming the key; concurrent readers; use
// after close is an IllegalStateException.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class FrozenCollectionsTest {
    static final int[] LENGTHS = {0, 1, 63, 64, 65, 1023, 1025};

    /** Distinct keys: the extremes first, then an odd multiplier's images (a bijection of long). */
    static long key(int i) {
        return switch (i) {
            case 0 -> Long.MIN_VALUE;
            case 1 -> Long.MAX_VALUE;
            case 2 -> 0;
            case 3 -> -1;
            default -> i * 0x9E3779B97F4A7C15L;
        };
    }

    static long value(int i) {
        return switch (i % 4) {
            case 0 -> Long.MIN_VALUE + i;
            case 1 -> Long.MAX_VALUE - i;
            default -> (i % 2 == 0 ? -1L : 1L) * i * 1000 - 7;
        };
    }

    /** Every key, then every key plus one (mostly misses). */
    static long[] probes(long[] keys) {
        long[] probes = new long[2 * keys.length];
        for (int i = 0; i < keys.length; i++) {
            probes[2 * i] = keys[i];
            probes[2 * i + 1] = keys[i] + 1;
        }
        return probes;
    }

    @Test
    void frozenMapsMatchAHashMap() {
        for (Placement placement : Reference.placements()) {
            for (int length : LENGTHS) {
                long[] keys = new long[length];
                long[] values = new long[length];
                Map<Long, Long> reference = new HashMap<>();
                for (int i = 0; i < length; i++) {
                    keys[i] = key(i);
                    values[i] = value(i);
                    reference.put(keys[i], values[i]);
                }
                try (SmartFrozenMap map = SmartFrozenMap.of(keys, values, placement)) {
                    String where = placement + " length " + length;
                    assertEquals(length, map.size(), where);
                    assertEquals(placement, map.placement(), where);
                    assertTrue(length == 0 || map.memoryBytes() > 0, where);
                    assertFalse(map.memoryReport().isEmpty(), where);
                    long[] probes = probes(keys);
                    boolean[] found = new boolean[probes.length];
                    long[] got = map.getMany(probes, 42, found);
                    boolean[] contained = map.containsMany(probes);
                    for (int i = 0; i < probes.length; i++) {
                        Long expected = reference.get(probes[i]);
                        assertEquals(expected == null ? 42 : expected, got[i], where);
                        assertEquals(expected != null, found[i], where);
                        assertEquals(expected != null, contained[i], where);
                        assertEquals(expected == null ? OptionalLong.empty() : OptionalLong.of(expected), map.get(probes[i]), where);
                        assertEquals(expected != null, map.containsKey(probes[i]), where);
                    }
                    assertArrayEquals(got, map.getMany(probes, 42), where);
                    SmartMap.Entries entries = map.entries();
                    assertEquals(length, entries.keys().length, where);
                    Map<Long, Long> exported = new HashMap<>();
                    for (int i = 0; i < entries.keys().length; i++) {
                        exported.put(entries.keys()[i], entries.values()[i]);
                    }
                    assertEquals(reference, exported, where);
                }
            }
        }
    }

    @Test
    void frozenSetsMatchAHashSet() {
        for (Placement placement : Reference.placements()) {
            for (int length : LENGTHS) {
                long[] keys = new long[length];
                Set<Long> reference = new HashSet<>();
                for (int i = 0; i < length; i++) {
                    keys[i] = key(length - 1 - i);
                    reference.add(keys[i]);
                }
                try (SmartFrozenSet set = SmartFrozenSet.of(keys, placement)) {
                    String where = placement + " length " + length;
                    assertEquals(length, set.size(), where);
                    assertEquals(placement, set.placement(), where);
                    assertFalse(set.memoryReport().isEmpty(), where);
                    long[] probes = probes(keys);
                    boolean[] present = set.containsMany(probes);
                    for (int i = 0; i < probes.length; i++) {
                        assertEquals(reference.contains(probes[i]), present[i], where);
                        assertEquals(reference.contains(probes[i]), set.contains(probes[i]), where);
                    }
                    long[] exported = set.toArray();
                    long[] sorted = keys.clone();
                    Arrays.sort(exported);
                    Arrays.sort(sorted);
                    assertArrayEquals(sorted, exported, where);
                }
            }
        }
    }

    @Test
    void freezingEqualsTheSource() {
        for (Placement placement : Reference.placements()) {
            for (int length : LENGTHS) {
                try (SmartMap map = new SmartMap(placement); SmartSet set = new SmartSet(placement)) {
                    long[] keys = new long[length];
                    long[] values = new long[length];
                    for (int i = 0; i < length; i++) {
                        keys[i] = key(i);
                        values[i] = value(i);
                    }
                    map.insertMany(keys, values);
                    set.insertMany(keys);
                    try (SmartFrozenMap frozen = map.freeze(); SmartFrozenSet frozenSet = set.freeze()) {
                        assertEquals(map.size(), frozen.size());
                        assertEquals(set.size(), frozenSet.size());
                        assertEquals(map.placement(), frozen.placement());
                        long[] probes = probes(keys);
                        boolean[] wantFound = new boolean[probes.length];
                        boolean[] found = new boolean[probes.length];
                        assertArrayEquals(map.getMany(probes, -5, wantFound), frozen.getMany(probes, -5, found));
                        assertArrayEquals(wantFound, found);
                        assertArrayEquals(set.containsMany(probes), frozenSet.containsMany(probes));
                    }
                    map.insert(12345, 1); // the source stays writable
                    assertEquals(length + 1, map.size());
                }
            }
        }
    }

    @Test
    void duplicateKeysAndBadArgumentsThrow() {
        SmartArrayException duplicate = assertThrows(SmartArrayException.class,
                () -> SmartFrozenMap.of(new long[] {3, -7, 11, -7}, new long[] {1, 2, 3, 4}));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, duplicate.status());
        assertTrue(duplicate.getMessage().contains("key -7 "), duplicate.getMessage());
        SmartArrayException duplicateSet = assertThrows(SmartArrayException.class,
                () -> SmartFrozenSet.of(new long[] {Long.MIN_VALUE, 0, Long.MIN_VALUE}));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, duplicateSet.status());
        assertTrue(duplicateSet.getMessage().contains("key " + Long.MIN_VALUE + " "), duplicateSet.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SmartFrozenMap.of(new long[] {1, 2}, new long[] {1}));
        assertThrows(NullPointerException.class, () -> SmartFrozenSet.of(null));
        SmartArrayException node = assertThrows(SmartArrayException.class,
                () -> SmartFrozenSet.of(new long[] {1}, Placement.singleNode(4096)));
        assertEquals(SmartArrayException.Status.UNKNOWN_NODE, node.status());
        try (SmartFrozenMap map = SmartFrozenMap.of(new long[] {1}, new long[] {2})) {
            assertThrows(IllegalArgumentException.class, () -> map.getMany(new long[] {1, 2}, 0, new boolean[1]));
        }
    }

    @Test
    void readsRunConcurrentlyAndCloseIsFinal() throws Exception {
        long[] keys = new long[10_000];
        long[] values = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = i * 31L - 100_000;
            values[i] = -i;
        }
        SmartFrozenMap map = SmartFrozenMap.of(keys, values, Placement.replicated());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            Future<?>[] readers = new Future<?>[4];
            for (int t = 0; t < readers.length; t++) {
                readers[t] = pool.submit(() -> {
                    for (int round = 0; round < 20; round++) {
                        assertArrayEquals(values, map.getMany(keys, 1));
                    }
                });
            }
            for (Future<?> reader : readers) {
                reader.get();
            }
        } finally {
            pool.shutdown();
        }
        map.close();
        map.close();
        assertTrue(map.isClosed());
        assertThrows(IllegalStateException.class, () -> map.get(1));
        assertThrows(IllegalStateException.class, map::size);
        SmartFrozenSet set = SmartFrozenSet.of(new long[] {1, 2});
        set.close();
        assertThrows(IllegalStateException.class, () -> set.contains(1));
    }
}
