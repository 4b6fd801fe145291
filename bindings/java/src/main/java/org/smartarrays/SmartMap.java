// SmartMap: the Java face of a smart hash map from long keys to long values (sa_map_* in the C
// ABI, Map<i64, i64> of smartarrays-collections) in placed native memory, with single and batched
// operations over long[] arrays. Owns one C handle; reads share a lock, writes take it alone.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A hash map from {@code long} keys to {@code long} values in native memory placed by a
 * {@link Placement} (replicated: one copy per node, each reader reading its own). A probe reads
 * one 64-byte bucket; key and value widths follow the data, so nothing is ever truncated.
 *
 * <pre>{@code
 * try (SmartMap prices = new SmartMap(Placement.interleaved())) {
 *     prices.insertMany(new long[] {10, 20, 30}, new long[] {100, 200, 300});
 *     assert prices.get(20).getAsLong() == 200;
 *     long[] found = prices.getMany(new long[] {20, 40}, -1);   // {200, -1}
 *     prices.upsertMany(new long[] {10, 10}, new long[] {5, 7}, SmartMap.Combine.SUM);
 *     assert prices.get(10).getAsLong() == 112;
 * }
 * }</pre>
 *
 * <p>Thread safety: reads ({@code get}, {@code containsKey}, the batched lookups, {@code size},
 * reports, {@code entries}) run on any number of threads at once; writes wait for them and run
 * alone. {@link #close()} fails with {@link IllegalStateException} while a call is running; every
 * use after close is an {@link IllegalStateException}. Maps never closed are freed by a Cleaner.
 */
public final class SmartMap extends SmartCollection {
    /** How {@link #upsert} and {@link #upsertMany} combine a key's value with a new one ({@code SaCombine} in C). */
    public enum Combine {
        /** {@code old + new}; a sum outside {@code long} is an {@code OVERFLOW} error (the key keeps {@code old}). */
        SUM,
        /** The smaller of the two. */
        MIN,
        /** The larger of the two. */
        MAX,
        /** {@code new} (as {@link #insert}). */
        REPLACE
    }

    /**
     * Every entry of a map, in no particular order: {@code values[i]} belongs to {@code keys[i]}.
     *
     * @param keys the keys
     * @param values their values
     */
    public record Entries(long[] keys, long[] values) {}

    private static final Functions FUNCTIONS = new Functions(
            Native.MAP_NEW,
            Native.MAP_FREE,
            Native.MAP_LEN,
            Native.MAP_MEMORY_BYTES,
            Native.MAP_MEMORY_REPORT_TEXT,
            Native.MAP_PLACEMENT,
            Native.MAP_PLACEMENT_REPORT_TEXT);

    /** An empty map in OS default memory. */
    public SmartMap() {
        this(Placement.osDefault());
    }

    /**
     * An empty map.
     *
     * @param placement where the memory goes
     * @throws SmartArrayException {@code INVALID_PLACEMENT} or {@code UNKNOWN_NODE} for a bad placement
     */
    public SmartMap(Placement placement) {
        super(placement, FUNCTIONS);
    }

    /** @return the placement report as JSON (an array with one object per partition) */
    public String placementReportJson() {
        return read(() -> handle.text(Native.MAP_PLACEMENT_REPORT_JSON));
    }

    /**
     * @param key a key
     * @return its value, empty when absent
     */
    public OptionalLong get(long key) {
        return read(() -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.MAP_GET.invokeExact(handle.get(), key, slot, slot.asSlice(8)));
            return previous(slot);
        });
    }

    /**
     * @param key a key
     * @return whether it is present
     */
    public boolean containsKey(long key) {
        return read(() -> CollectionCalls.keyCall(Native.MAP_CONTAINS, handle.get(), key).get(JAVA_BOOLEAN, 0));
    }

    /**
     * Sets {@code key} to {@code value}.
     *
     * @param key the key
     * @param value the value
     * @return the previous value, empty when the key was absent
     */
    public OptionalLong insert(long key, long value) {
        return write(() -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.MAP_INSERT.invokeExact(handle.get(), key, value, slot.asSlice(8), slot));
            return previous(slot);
        });
    }

    /**
     * Removes {@code key}.
     *
     * @param key the key
     * @return its value, empty when it was absent
     */
    public OptionalLong remove(long key) {
        return write(() -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.MAP_REMOVE.invokeExact(handle.get(), key, slot.asSlice(8), slot));
            return previous(slot);
        });
    }

    /**
     * Sets {@code key} to {@code combine(old, value)} when present, else to {@code value}.
     *
     * @param key the key
     * @param value the new value
     * @param combine how to combine
     * @return the key's new value
     * @throws SmartArrayException {@code OVERFLOW} for a sum outside {@code long} (the key keeps its value)
     */
    public long upsert(long key, long value, Combine combine) {
        int op = Objects.requireNonNull(combine, "combine").ordinal();
        return write(() -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.MAP_UPSERT.invokeExact(handle.get(), key, value, op, slot));
            return slot.get(JAVA_LONG, 0);
        });
    }

    /**
     * Sets {@code keys[i]} to {@code values[i]}, in order (a later duplicate wins), prefetching ahead.
     *
     * @param keys the keys
     * @param values their values (as many)
     */
    public void insertMany(long[] keys, long[] values) {
        CollectionCalls.sameLength(keys, values);
        write(() -> {
            try (Arena arena = Arena.ofConfined()) {
                Native.check((int) Native.MAP_INSERT_MANY.invokeExact(handle.get(), CollectionCalls.copy(arena, keys),
                        CollectionCalls.copy(arena, values), (long) keys.length));
            }
            return null;
        });
    }

    /**
     * Upserts a batch: each {@code keys[i]} becomes {@code combine(old, values[i])} when present,
     * else {@code values[i]}, in order.
     *
     * @param keys the keys
     * @param values the new values (as many)
     * @param combine how to combine
     * @throws SmartArrayException {@code OVERFLOW} when a sum leaves {@code long}: the entries before it
     *     are applied, that one and those after it are not (the message names its index)
     */
    public void upsertMany(long[] keys, long[] values, Combine combine) {
        CollectionCalls.sameLength(keys, values);
        int op = Objects.requireNonNull(combine, "combine").ordinal();
        write(() -> {
            try (Arena arena = Arena.ofConfined()) {
                Native.check((int) Native.MAP_UPSERT_MANY.invokeExact(handle.get(), CollectionCalls.copy(arena, keys),
                        CollectionCalls.copy(arena, values), (long) keys.length, op));
            }
            return null;
        });
    }

    /** The value a single-key call wrote at offset 0 when its flag at offset 8 is set, else empty. */
    private static OptionalLong previous(MemorySegment slot) {
        return slot.get(JAVA_BOOLEAN, 8) ? OptionalLong.of(slot.get(JAVA_LONG, 0)) : OptionalLong.empty();
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
        return read(() -> {
            try (Arena arena = Arena.ofConfined()) {
                int n = keys.length;
                MemorySegment values = arena.allocate(JAVA_LONG, Math.max(1, n));
                MemorySegment flags = found == null ? MemorySegment.NULL : arena.allocate(Math.max(1, n));
                Native.check((int) Native.MAP_GET_MANY.invokeExact(handle.get(), CollectionCalls.copy(arena, keys), (long) n, values, flags, missing,
                        MemorySegment.NULL));
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
        return read(() -> CollectionCalls.containsMany(Native.MAP_CONTAINS_MANY, handle.get(), keys));
    }

    /** @return every (key, value), in no particular order */
    public Entries entries() {
        return read(() -> {
            long[][] pairs = CollectionCalls.exportPairs(Native.MAP_EXPORT, handle.get(), handle.size(Native.MAP_LEN));
            return new Entries(pairs[0], pairs[1]);
        });
    }

    /**
     * A read-only copy of this map in the frozen layout (about half the bytes), placed like it;
     * this map is unchanged.
     *
     * @return the frozen copy (close it when done)
     */
    public SmartFrozenMap freeze() {
        return SmartFrozenMap.adopt(read(() -> CollectionCalls.freeze(Native.MAP_FREEZE, handle.get())));
    }

    /**
     * Removes a batch of keys (absent ones are skipped).
     *
     * @param keys the keys
     * @return how many of them were present
     */
    public long removeMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return write(() -> CollectionCalls.removeMany(Native.MAP_REMOVE_MANY, handle.get(), keys));
    }
}
