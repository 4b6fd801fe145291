// SmartFrozenSet: the Java face of a read-only succinct set of long keys (sa_frozen_set_* in the C
// ABI) in placed native memory, built once from a long[] or frozen from a SmartSet. Owns one C
// handle; it never changes, so every call runs on any number of threads at once without a lock.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A read-only set of {@code long} keys in native memory placed by a {@link Placement}, in the
 * layout of {@link SmartFrozenMap} without values. Built once, from an array or with
 * {@link SmartSet#freeze()}; a key given twice is a {@link SmartArrayException} with status
 * {@code INVALID_ARGUMENT} naming the key.
 *
 * <pre>{@code
 * try (SmartFrozenSet primes = SmartFrozenSet.of(new long[] {2, 3, 5, 7})) {
 *     assert primes.contains(5);
 *     boolean[] present = primes.containsMany(new long[] {4, 7});   // {false, true}
 * }
 * }</pre>
 *
 * <p>Thread safety and lifetime as for {@link SmartFrozenMap}.
 */
public final class SmartFrozenSet implements AutoCloseable {
    /** The owned C handle. */
    private final NativeHandle handle;

    private SmartFrozenSet(MemorySegment raw) {
        this.handle = new NativeHandle(this, raw, Native.FROZEN_SET_FREE);
    }

    /** Wraps the handle {@code sa_set_freeze} returned. */
    static SmartFrozenSet adopt(MemorySegment raw) {
        return new SmartFrozenSet(raw);
    }

    /**
     * A frozen set of {@code keys} in OS default memory.
     *
     * @param keys the keys, each once
     * @return the set
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a key given twice
     */
    public static SmartFrozenSet of(long[] keys) {
        return of(keys, Placement.osDefault());
    }

    /**
     * A frozen set of {@code keys}.
     *
     * @param keys the keys, each once
     * @param placement where the memory goes
     * @return the set
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a key given twice, {@code INVALID_PLACEMENT}
     *     or {@code UNKNOWN_NODE} for a bad placement
     */
    public static SmartFrozenSet of(long[] keys, Placement placement) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(placement, "placement");
        return new SmartFrozenSet(CollectionCalls.run(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(ADDRESS);
                int status = (int) Native.FROZEN_SET_NEW.invokeExact(CollectionCalls.copy(arena, keys), (long) keys.length,
                        arena.allocateFrom(placement.toString()), out);
                return NativeHandle.created(status, out);
            }
        }));
    }

    /** @return the number of keys */
    public long size() {
        return handle.size(Native.FROZEN_SET_LEN);
    }

    /** @return bytes of memory the set occupies (every replica, whole pages) */
    public long memoryBytes() {
        return handle.size(Native.FROZEN_SET_MEMORY_BYTES);
    }

    /** @return where the set's bytes go, as text */
    public String memoryReport() {
        return handle.text(Native.FROZEN_SET_MEMORY_REPORT_TEXT);
    }

    /** @return the set's placement */
    public Placement placement() {
        return Placement.parse(handle.text(Native.FROZEN_SET_PLACEMENT));
    }

    /**
     * @param key a key
     * @return whether it is present
     */
    public boolean contains(long key) {
        return CollectionCalls.run(() -> CollectionCalls.keyCall(Native.FROZEN_SET_CONTAINS, handle.get(), key).get(JAVA_BOOLEAN, 0));
    }

    /**
     * @param keys the keys
     * @return whether each key is present
     */
    public boolean[] containsMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return CollectionCalls.run(() -> CollectionCalls.containsMany(Native.FROZEN_SET_CONTAINS_MANY, handle.get(), keys));
    }

    /** @return every key, in no particular order */
    public long[] toArray() {
        return CollectionCalls.run(() -> {
            int n = Math.toIntExact(size());
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment keys = arena.allocate(JAVA_LONG, Math.max(1, n));
                MemorySegment written = arena.allocate(JAVA_LONG);
                Native.check((int) Native.FROZEN_SET_EXPORT.invokeExact(handle.get(), keys, (long) n, written));
                return keys.asSlice(0, written.get(JAVA_LONG, 0) * Long.BYTES).toArray(JAVA_LONG);
            }
        });
    }

    /** @return whether {@link #close()} has run (or the cleaner has freed the set) */
    public boolean isClosed() {
        return handle.isClosed();
    }

    /**
     * Frees the native set; repeated calls do nothing.
     *
     * @throws IllegalStateException when another thread is inside a call on this set (it stays open)
     */
    @Override
    public void close() {
        handle.close();
    }

    @Override
    public String toString() {
        return isClosed() ? "SmartFrozenSet[closed]" : "SmartFrozenSet[size=" + size() + ", placement=" + placement() + "]";
    }
}
