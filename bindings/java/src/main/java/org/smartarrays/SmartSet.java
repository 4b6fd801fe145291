// SmartSet: the Java face of a smart set of long keys (sa_set_* in the C ABI, Set<i64> of
// smartarrays-collections) in placed native memory, with single and batched operations.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A set of {@code long} keys in native memory placed by a {@link Placement}.
 *
 * <pre>{@code
 * try (SmartSet seen = new SmartSet()) {
 *     seen.insertMany(new long[] {3, 1, 4, 1, 5});
 *     assert seen.size() == 4;
 *     boolean[] present = seen.containsMany(new long[] {1, 2});   // {true, false}
 * }
 * }</pre>
 *
 * <p>Thread safety and lifetime as for {@link SmartMap}.
 */
public final class SmartSet extends SmartCollection {
    private static final Functions FUNCTIONS = new Functions(
            Native.SET_NEW,
            Native.SET_FREE,
            Native.SET_LEN,
            Native.SET_MEMORY_BYTES,
            Native.SET_MEMORY_REPORT_TEXT,
            Native.SET_PLACEMENT,
            Native.SET_PLACEMENT_REPORT_TEXT);

    /** An empty set in OS default memory. */
    public SmartSet() {
        this(Placement.osDefault());
    }

    /**
     * An empty set.
     *
     * @param placement where the memory goes
     * @throws SmartArrayException {@code INVALID_PLACEMENT} or {@code UNKNOWN_NODE} for a bad placement
     */
    public SmartSet(Placement placement) {
        super(placement, FUNCTIONS);
    }

    /**
     * @param key a key
     * @return whether it was new
     */
    public boolean insert(long key) {
        return write(() -> CollectionCalls.keyCall(Native.SET_INSERT, handle.get(), key).get(JAVA_BOOLEAN, 0));
    }

    /**
     * @param key a key
     * @return whether it is present
     */
    public boolean contains(long key) {
        return read(() -> CollectionCalls.keyCall(Native.SET_CONTAINS, handle.get(), key).get(JAVA_BOOLEAN, 0));
    }

    /**
     * @param key a key
     * @return whether it was present
     */
    public boolean remove(long key) {
        return write(() -> CollectionCalls.keyCall(Native.SET_REMOVE, handle.get(), key).get(JAVA_BOOLEAN, 0));
    }

    /**
     * Adds a batch of keys, prefetching ahead.
     *
     * @param keys the keys
     */
    public void insertMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        write(() -> {
            CollectionCalls.keysCall(Native.SET_INSERT_MANY, handle.get(), keys);
            return null;
        });
    }

    /**
     * @param keys the keys
     * @return whether each key is present
     */
    public boolean[] containsMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return read(() -> CollectionCalls.containsMany(Native.SET_CONTAINS_MANY, handle.get(), keys));
    }

    /** @return every key, in no particular order */
    public long[] toArray() {
        return read(() -> {
            int n = Math.toIntExact(handle.size(Native.SET_LEN));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment keys = arena.allocate(JAVA_LONG, Math.max(1, n));
                MemorySegment written = arena.allocate(JAVA_LONG);
                Native.check((int) Native.SET_EXPORT.invokeExact(handle.get(), keys, (long) n, written));
                return keys.asSlice(0, written.get(JAVA_LONG, 0) * Long.BYTES).toArray(JAVA_LONG);
            }
        });
    }

    /**
     * A read-only copy of this set in the frozen layout (about half the bytes), placed like it;
     * this set is unchanged.
     *
     * @return the frozen copy (close it when done)
     */
    public SmartFrozenSet freeze() {
        return SmartFrozenSet.adopt(read(() -> CollectionCalls.freeze(Native.SET_FREEZE, handle.get())));
    }

    /**
     * Removes a batch of keys (absent ones are skipped).
     *
     * @param keys the keys
     * @return how many of them were present
     */
    public long removeMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return write(() -> CollectionCalls.removeMany(Native.SET_REMOVE_MANY, handle.get(), keys));
    }
}
