// SmartBag: the Java face of a smart multiset of long keys with counts (sa_bag_* in the C ABI,
// Bag<i64> of smartarrays-collections) in placed native memory.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A multiset of {@code long} keys: a count per key, in native memory placed by a
 * {@link Placement}. Counts are unsigned 64-bit values in {@code long}s and never wrap: passing
 * 2^64 - 1 is an {@code OVERFLOW} error.
 *
 * <pre>{@code
 * try (SmartBag words = new SmartBag()) {
 *     words.addMany(new long[] {5, 1, 5, 5, 2});
 *     assert words.count(5) == 3;
 *     long[] counts = words.countMany(new long[] {1, 7});   // {1, 0}
 * }
 * }</pre>
 *
 * <p>Thread safety and lifetime as for {@link SmartMap}.
 */
public final class SmartBag extends SmartCollection {
    /**
     * Every key with its count, in no particular order: {@code counts[i]} belongs to {@code keys[i]}.
     *
     * @param keys the keys
     * @param counts their counts
     */
    public record Counts(long[] keys, long[] counts) {}

    private static final Functions FUNCTIONS = new Functions(
            Native.BAG_NEW,
            Native.BAG_FREE,
            Native.BAG_LEN,
            Native.BAG_MEMORY_BYTES,
            Native.BAG_MEMORY_REPORT_TEXT,
            Native.BAG_PLACEMENT,
            Native.BAG_PLACEMENT_REPORT_TEXT);

    /** An empty bag in OS default memory. */
    public SmartBag() {
        this(Placement.osDefault());
    }

    /**
     * An empty bag.
     *
     * @param placement where the memory goes
     * @throws SmartArrayException {@code INVALID_PLACEMENT} or {@code UNKNOWN_NODE} for a bad placement
     */
    public SmartBag(Placement placement) {
        super(placement, FUNCTIONS);
    }

    /**
     * Adds one to the count of {@code key}.
     *
     * @param key the key
     * @return its new count
     */
    public long add(long key) {
        return add(key, 1);
    }

    /**
     * Adds {@code n} (unsigned) to the count of {@code key}.
     *
     * @param key the key
     * @param n how many
     * @return its new count
     * @throws SmartArrayException {@code OVERFLOW} when the count would pass 2^64 - 1 (the bag is unchanged)
     */
    public long add(long key, long n) {
        return write(() -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.BAG_ADD.invokeExact(handle.get(), key, n, slot));
            return slot.get(JAVA_LONG, 0);
        });
    }

    /**
     * @param key a key
     * @return its count, 0 when absent
     */
    public long count(long key) {
        return read(() -> CollectionCalls.keyCall(Native.BAG_COUNT, handle.get(), key).get(JAVA_LONG, 0));
    }

    /**
     * Removes {@code key}.
     *
     * @param key the key
     * @return its count, 0 when it was absent
     */
    public long remove(long key) {
        return write(() -> CollectionCalls.keyCall(Native.BAG_REMOVE, handle.get(), key).get(JAVA_LONG, 0));
    }

    /**
     * Adds one to the count of every key of a batch, prefetching ahead.
     *
     * @param keys the keys
     * @throws SmartArrayException {@code OVERFLOW} when a count would pass 2^64 - 1 (the keys before it were counted)
     */
    public void addMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        write(() -> {
            CollectionCalls.keysCall(Native.BAG_ADD_MANY, handle.get(), keys);
            return null;
        });
    }

    /**
     * @param keys the keys
     * @return the count of each key, 0 for absent ones
     */
    public long[] countMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return read(() -> {
            try (Arena arena = Arena.ofConfined()) {
                int n = keys.length;
                MemorySegment counts = arena.allocate(JAVA_LONG, Math.max(1, n));
                Native.check((int) Native.BAG_COUNT_MANY.invokeExact(handle.get(), CollectionCalls.copy(arena, keys), (long) n, counts,
                        MemorySegment.NULL));
                return counts.asSlice(0, (long) n * Long.BYTES).toArray(JAVA_LONG);
            }
        });
    }

    /** @return every key with its count, in no particular order */
    public Counts counts() {
        return read(() -> {
            long[][] pairs = CollectionCalls.exportPairs(Native.BAG_EXPORT, handle.get(), handle.size(Native.BAG_LEN));
            return new Counts(pairs[0], pairs[1]);
        });
    }

    /**
     * Removes a batch of keys (absent ones are skipped, with their counts).
     *
     * @param keys the keys
     * @return how many of them were present
     */
    public long removeMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return write(() -> CollectionCalls.removeMany(Native.BAG_REMOVE_MANY, handle.get(), keys));
    }
}
