// SmartMap, SmartSet and SmartBag against java.util references over every placement: single and
// batched operations, every upsert combine, exports; overflows and bad arguments carry the C
// ABI's status and message; use after close is an IllegalStateException.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class SmartCollectionsTest {
    static final int[] LENGTHS = {0, 1, 63, 64, 65, 1023, 1025};

    /** Keys from a small domain spread over the whole long range, extremes included. */
    static long key(int slot) {
        return switch (slot) {
            case 0 -> Long.MIN_VALUE;
            case 1 -> Long.MAX_VALUE;
            case 2 -> 0;
            case 3 -> -1;
            default -> (slot * 0x9E3779B97F4A7C15L >>> 1) * (slot % 2 == 1 ? -1 : 1);
        };
    }

    @Test
    void mapsMatchAHashMap() {
        for (Placement placement : Reference.placements()) {
            for (int length : LENGTHS) {
                try (SmartMap map = new SmartMap(placement)) {
                    Map<Long, Long> reference = new HashMap<>();
                    SplittableRandom random = new SplittableRandom(length);
                    long[] keys = new long[length];
                    long[] values = new long[length];
                    for (int i = 0; i < length; i++) {
                        keys[i] = key(random.nextInt(97));
                        values[i] = i % 3 == 0 ? Long.MIN_VALUE + i : random.nextLong();
                        reference.put(keys[i], values[i]);
                    }
                    map.insertMany(keys, values);
                    assertEquals(reference.size(), map.size());
                    for (SmartMap.Combine combine : SmartMap.Combine.values()) {
                        long[] more = new long[length];
                        for (int i = 0; i < length; i++) {
                            keys[i] = key(random.nextInt(97));
                            more[i] = random.nextInt(11) - 5;
                            long v = more[i];
                            reference.merge(keys[i], v, (old, add) -> switch (combine) {
                                case SUM -> old + add;
                                case MIN -> Math.min(old, add);
                                case MAX -> Math.max(old, add);
                                case REPLACE -> add;
                            });
                        }
                        if (combine == SmartMap.Combine.SUM) {
                            // the random values may be near the extremes: make sums safe first
                            map.upsertMany(keys, more, SmartMap.Combine.REPLACE);
                            for (int i = 0; i < length; i++) {
                                reference.put(keys[i], more[i]);
                            }
                            for (int i = 0; i < length; i++) {
                                reference.merge(keys[i], more[i], Long::sum);
                            }
                        }
                        map.upsertMany(keys, more, combine);
                    }
                    long[] probe = new long[97];
                    for (int s = 0; s < 97; s++) {
                        probe[s] = key(s);
                    }
                    boolean[] found = new boolean[97];
                    long[] got = map.getMany(probe, 42, found);
                    boolean[] present = map.containsMany(probe);
                    for (int s = 0; s < 97; s++) {
                        Long want = reference.get(probe[s]);
                        assertEquals(want != null, found[s]);
                        assertEquals(want != null, present[s]);
                        assertEquals(want != null ? want : 42L, got[s]);
                        assertEquals(want == null ? OptionalLong.empty() : OptionalLong.of(want), map.get(probe[s]));
                        assertEquals(want != null, map.containsKey(probe[s]));
                    }
                    SmartMap.Entries entries = map.entries();
                    assertEquals(reference.size(), entries.keys().length);
                    for (int i = 0; i < entries.keys().length; i++) {
                        assertEquals(reference.get(entries.keys()[i]), entries.values()[i]);
                    }
                    assertEquals(OptionalLong.empty(), map.remove(12345));
                    assertEquals(OptionalLong.empty(), map.insert(12345, 1));
                    assertEquals(OptionalLong.of(1), map.insert(12345, 2));
                    assertEquals(7, map.upsert(12345, 5, SmartMap.Combine.SUM));
                    assertEquals(OptionalLong.of(7), map.remove(12345));
                    long expectedGone = (reference.containsKey(key(0)) ? 1 : 0) + (reference.containsKey(key(5)) ? 1 : 0);
                    assertEquals(expectedGone, map.removeMany(new long[] {key(0), key(5), 424242, key(0)}));
                    assertFalse(map.containsKey(key(5)));
                    assertEquals(0, map.removeMany(new long[0]));
                    assertEquals(placement, map.placement());
                    assertTrue(map.memoryReport().contains("entries"));
                    assertTrue(map.placementReport().contains("partition 0"));
                    assertTrue(map.placementReportJson().startsWith("["));
                    assertTrue(map.memoryBytes() >= 0);
                }
            }
        }
    }

    @Test
    void mapSumsNeverWrap() {
        try (SmartMap map = new SmartMap()) {
            map.insert(7, Long.MAX_VALUE);
            SmartArrayException overflow = assertThrows(SmartArrayException.class, () -> map.upsert(7, 1, SmartMap.Combine.SUM));
            assertEquals(SmartArrayException.Status.OVERFLOW, overflow.status());
            assertTrue(overflow.getMessage().contains("does not fit in int64_t"), overflow.getMessage());
            assertEquals(OptionalLong.of(Long.MAX_VALUE), map.get(7));
            SmartArrayException batch = assertThrows(SmartArrayException.class,
                    () -> map.upsertMany(new long[] {1, 7, 2}, new long[] {10, 1, 20}, SmartMap.Combine.SUM));
            assertTrue(batch.getMessage().contains("entry 1 of the batch"), batch.getMessage());
            assertEquals(OptionalLong.of(10), map.get(1));
            assertFalse(map.containsKey(2));
            assertThrows(IllegalArgumentException.class, () -> map.insertMany(new long[] {1, 2}, new long[] {1}));
            assertThrows(IllegalArgumentException.class, () -> map.getMany(new long[] {1, 2}, 0, new boolean[1]));
            assertThrows(NullPointerException.class, () -> map.upsert(1, 1, null));
        }
        SmartArrayException bad = assertThrows(SmartArrayException.class, () -> new SmartMap(Placement.singleNode(4096)));
        assertEquals(SmartArrayException.Status.UNKNOWN_NODE, bad.status());
    }

    @Test
    void setsMatchAHashSet() {
        for (Placement placement : Reference.placements()) {
            for (int length : LENGTHS) {
                try (SmartSet set = new SmartSet(placement)) {
                    Set<Long> reference = new HashSet<>();
                    long[] keys = new long[length];
                    for (int i = 0; i < length; i++) {
                        keys[i] = key((i * 13) % 97);
                        reference.add(keys[i]);
                    }
                    set.insertMany(keys);
                    assertEquals(reference.size(), set.size());
                    long[] probe = new long[97];
                    for (int s = 0; s < 97; s++) {
                        probe[s] = key(s);
                    }
                    boolean[] present = set.containsMany(probe);
                    for (int s = 0; s < 97; s++) {
                        assertEquals(reference.contains(probe[s]), present[s]);
                        assertEquals(reference.contains(probe[s]), set.contains(probe[s]));
                    }
                    assertEquals(!reference.contains(Long.MIN_VALUE), set.insert(Long.MIN_VALUE));
                    assertTrue(set.remove(Long.MIN_VALUE));
                    assertFalse(set.remove(Long.MIN_VALUE));
                    reference.remove(Long.MIN_VALUE);
                    assertEquals(reference.contains(key(13)) ? 1 : 0, set.removeMany(new long[] {key(13), key(13), 777}));
                    reference.remove(key(13));
                    Set<Long> exported = new HashSet<>();
                    for (long k : set.toArray()) {
                        exported.add(k);
                    }
                    assertEquals(reference, exported);
                    assertEquals(placement, set.placement());
                    assertFalse(set.memoryReport().isEmpty());
                    assertFalse(set.placementReport().isEmpty());
                }
            }
        }
    }

    @Test
    void bagsCountLikeAHashMapAndNeverWrap() {
        for (Placement placement : Reference.placements()) {
            for (int length : LENGTHS) {
                try (SmartBag bag = new SmartBag(placement)) {
                    Map<Long, Long> reference = new HashMap<>();
                    long[] keys = new long[length];
                    for (int i = 0; i < length; i++) {
                        keys[i] = key((i * i + 3) % 97);
                        reference.merge(keys[i], 1L, Long::sum);
                    }
                    bag.addMany(keys);
                    assertEquals(reference.getOrDefault(-1L, 0L) + 5, bag.add(-1, 5));
                    reference.merge(-1L, 5L, Long::sum);
                    long[] probe = new long[97];
                    for (int s = 0; s < 97; s++) {
                        probe[s] = key(s);
                    }
                    long[] counts = bag.countMany(probe);
                    for (int s = 0; s < 97; s++) {
                        assertEquals(reference.getOrDefault(probe[s], 0L), counts[s]);
                        assertEquals(reference.getOrDefault(probe[s], 0L), bag.count(probe[s]));
                    }
                    SmartBag.Counts all = bag.counts();
                    assertEquals(reference.size(), all.keys().length);
                    for (int i = 0; i < all.keys().length; i++) {
                        assertEquals(reference.get(all.keys()[i]), all.counts()[i]);
                    }
                    assertEquals(reference.get(-1L), bag.remove(-1));
                    assertEquals(0, bag.remove(-1));
                    reference.remove(-1L);
                    long present = (reference.containsKey(key(3)) ? 1 : 0) + (reference.containsKey(key(4)) ? 1 : 0);
                    assertEquals(present, bag.removeMany(new long[] {key(3), key(4), Long.MIN_VALUE + 1}));
                    assertEquals(0, bag.count(key(4)));
                    assertEquals(placement, bag.placement());
                }
            }
        }
        try (SmartBag bag = new SmartBag()) {
            assertEquals(-1L, bag.add(3, -1L)); // 2^64 - 1
            SmartArrayException overflow = assertThrows(SmartArrayException.class, () -> bag.add(3));
            assertEquals(SmartArrayException.Status.OVERFLOW, overflow.status());
            assertEquals(-1L, bag.count(3));
        }
    }

    @Test
    void readsRunConcurrentlyAndCloseIsFinal() throws Exception {
        SmartMap map = new SmartMap(Placement.replicated());
        long[] keys = new long[10_000];
        long[] values = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = i * 31L;
            values[i] = -i;
        }
        map.insertMany(keys, values);
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
            for (int i = 0; i < 100; i++) {
                map.insert(-1 - i, i); // writers wait for readers, never overlap them
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
        SmartSet set = new SmartSet();
        set.close();
        assertThrows(IllegalStateException.class, () -> set.insert(1));
        SmartBag bag = new SmartBag();
        bag.close();
        assertThrows(IllegalStateException.class, () -> bag.count(1));
    }
}
