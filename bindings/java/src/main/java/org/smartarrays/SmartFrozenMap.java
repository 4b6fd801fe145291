// SmartFrozenMap: the Java face of a read-only succinct hash map from long keys to long values
// (sa_frozen_map_* in the C ABI, FrozenMap<i64, i64> of smartarrays-collections) in placed native
// memory, built once from long[] arrays or frozen from a SmartMap. Owns one C handle; it never
// changes, so every call runs on any number of threads at once without a lock.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A read-only hash map from {@code long} keys to {@code long} values in native memory placed by a
 * {@link Placement}, in a static succinct layout (about half the bytes of a {@link SmartMap}).
 * Built once, from arrays or with {@link SmartMap#freeze()}; a key given twice is a
 * {@link SmartArrayException} with status {@code INVALID_ARGUMENT} naming the key.
 *
 * <pre>{@code
 * try (SmartFrozenMap prices = SmartFrozenMap.of(new long[] {10, 20, 30}, new long[] {100, 200, 300})) {
 *     assert prices.get(20).getAsLong() == 200;
 *     long[] found = prices.getMany(new long[] {20, 40}, -1);   // {200, -1}
 * }
 * }</pre>
 *
 * <p>Thread safety: the map never changes, so every call runs on any number of threads at once.
 * {@link #close()} fails with {@link IllegalStateException} while a call is running; every use
 * after close is an {@link IllegalStateException}. Maps never closed are freed by a Cleaner.
 */
public final class SmartFrozenMap implements AutoCloseable {
    /** The owned C handle. */
    private final NativeHandle handle;

    private SmartFrozenMap(MemorySegment raw) {
        this.handle = new NativeHandle(this, raw, Native.FROZEN_MAP_FREE);
    }

    /** Wraps the handle {@code sa_map_freeze} returned. */
    static SmartFrozenMap adopt(MemorySegment raw) {
        return new SmartFrozenMap(raw);
    }

    /**
     * A frozen map of {@code keys[i] -> values[i]} in OS default memory.
     *
     * @param keys the keys, each once
     * @param values their values (as many)
     * @return the map
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a key given twice
     */
    public static SmartFrozenMap of(long[] keys, long[] values) {
        return of(keys, values, Placement.osDefault());
    }

    /**
     * A frozen map of {@code keys[i] -> values[i]}.
     *
     * @param keys the keys, each once
     * @param values their values (as many)
     * @param placement where the memory goes
     * @return the map
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a key given twice, {@code INVALID_PLACEMENT}
     *     or {@code UNKNOWN_NODE} for a bad placement
     */
    public static SmartFrozenMap of(long[] keys, long[] values, Placement placement) {
        CollectionCalls.sameLength(keys, values);
        Objects.requireNonNull(placement, "placement");
        return new SmartFrozenMap(CollectionCalls.run(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(ADDRESS);
                int status = (int) Native.FROZEN_MAP_NEW.invokeExact(CollectionCalls.copy(arena, keys), CollectionCalls.copy(arena, values),
                        (long) keys.length, arena.allocateFrom(placement.toString()), out);
                return NativeHandle.created(status, out);
            }
        }));
    }

    /** @return the number of keys */
    public long size() {
        return handle.size(Native.FROZEN_MAP_LEN);
    }

    /** @return bytes of memory the map occupies (every replica, whole pages) */
    public long memoryBytes() {
        return handle.size(Native.FROZEN_MAP_MEMORY_BYTES);
    }

    /** @return where the map's bytes go (entries, buckets, widths, index, bits per entry), as text */
    public String memoryReport() {
        return handle.text(Native.FROZEN_MAP_MEMORY_REPORT_TEXT);
    }

    /** @return the map's placement */
    public Placement placement() {
        return Placement.parse(handle.text(Native.FROZEN_MAP_PLACEMENT));
    }

    /**
     * @param key a key
     * @return its value, empty when absent
     */
    public OptionalLong get(long key) {
        return CollectionCalls.run(() -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.FROZEN_MAP_GET.invokeExact(handle.get(), key, slot, slot.asSlice(8)));
            return slot.get(JAVA_BOOLEAN, 8) ? OptionalLong.of(slot.get(JAVA_LONG, 0)) : OptionalLong.empty();
        });
    }

    /**
     * @param key a key
     * @return whether it is present
     */
    public boolean containsKey(long key) {
        return CollectionCalls.run(() -> CollectionCalls.keyCall(Native.FROZEN_MAP_CONTAINS, handle.get(), key).get(JAVA_BOOLEAN, 0));
    }

    /**
     * Looks up a batch, prefetching ahead.
     *
     * @param keys the keys
     * @param missing the value for absent keys
     * @return {@code values[i]}: the value of {@code keys[i]}, or {@code missing}
     */
    public long[] getMany(long[] keys, long missing) {
        return getMany(keys, missing, null);
    }

    /**
     * Looks up a batch, and which keys were found.
     *
     * @param keys the keys
     * @param missing the value for absent keys
     * @param found {@code null}, or as many flags as keys: set to whether each key is present
     * @return the values, {@code missing} for absent keys
     */
    public long[] getMany(long[] keys, long missing, boolean[] found) {
        Objects.requireNonNull(keys, "keys");
        if (found != null && found.length != keys.length) {
            throw new IllegalArgumentException("found holds " + found.length + " flags for " + keys.length + " keys");
        }
        return CollectionCalls.run(() -> {
            try (Arena arena = Arena.ofConfined()) {
                int n = keys.length;
                MemorySegment values = arena.allocate(JAVA_LONG, Math.max(1, n));
                MemorySegment flags = found == null ? MemorySegment.NULL : arena.allocate(Math.max(1, n));
                Native.check((int) Native.FROZEN_MAP_GET_MANY.invokeExact(handle.get(), CollectionCalls.copy(arena, keys), (long) n, values, flags,
                        missing, MemorySegment.NULL));
                if (found != null) {
                    for (int i = 0; i < n; i++) {
                        found[i] = flags.get(JAVA_BYTE, i) != 0;
                    }
                }
                return values.asSlice(0, (long) n * Long.BYTES).toArray(JAVA_LONG);
            }
        });
    }

    /**
     * @param keys the keys
     * @return whether each key is present
     */
    public boolean[] containsMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return CollectionCalls.run(() -> CollectionCalls.containsMany(Native.FROZEN_MAP_CONTAINS_MANY, handle.get(), keys));
    }

    /** @return every (key, value), in no particular order */
    public SmartMap.Entries entries() {
        return CollectionCalls.run(() -> {
            long[][] pairs = CollectionCalls.exportPairs(Native.FROZEN_MAP_EXPORT, handle.get(), size());
            return new SmartMap.Entries(pairs[0], pairs[1]);
        });
    }

    /** @return whether {@link #close()} has run (or the cleaner has freed the map) */
    public boolean isClosed() {
        return handle.isClosed();
    }

    /**
     * Frees the native map; repeated calls do nothing.
     *
     * @throws IllegalStateException when another thread is inside a call on this map (it stays open)
     */
    @Override
    public void close() {
        handle.close();
    }

    @Override
    public String toString() {
        return isClosed() ? "SmartFrozenMap[closed]" : "SmartFrozenMap[size=" + size() + ", placement=" + placement() + "]";
    }
}
