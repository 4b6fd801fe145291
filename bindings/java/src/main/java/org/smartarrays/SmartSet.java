// SmartSet: the Java face of a smart set of long keys (sa_set_* in the C ABI, Set<i64> of
// smartarrays-collections) in placed native memory, with single and batched operations.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantReadWriteLock;

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
public final class SmartSet implements AutoCloseable {
    private final NativeHandle handle;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

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
        this.handle = new NativeHandle(this, CollectionCalls.create(Native.SET_NEW, placement), Native.SET_FREE);
    }

    /** @return the number of keys */
    public long size() {
        return CollectionCalls.read(lock, () -> handle.size(Native.SET_LEN));
    }

    /** @return bytes of memory the set occupies */
    public long memoryBytes() {
        return CollectionCalls.read(lock, () -> handle.size(Native.SET_MEMORY_BYTES));
    }

    /** @return what the set's memory holds, as text */
    public String memoryReport() {
        return CollectionCalls.read(lock, () -> handle.text(Native.SET_MEMORY_REPORT_TEXT));
    }

    /** @return the set's placement */
    public Placement placement() {
        return Placement.parse(CollectionCalls.read(lock, () -> handle.text(Native.SET_PLACEMENT)));
    }

    /** @return where the set's pages are, read back from the kernel, as readable lines */
    public String placementReport() {
        return CollectionCalls.read(lock, () -> handle.text(Native.SET_PLACEMENT_REPORT_TEXT));
    }

    /**
     * @param key a key
     * @return whether it was new
     */
    public boolean insert(long key) {
        return CollectionCalls.write(lock, () -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.SET_INSERT.invokeExact(handle.get(), key, slot));
            return slot.get(JAVA_BOOLEAN, 0);
        });
    }

    /**
     * @param key a key
     * @return whether it is present
     */
    public boolean contains(long key) {
        return CollectionCalls.read(lock, () -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.SET_CONTAINS.invokeExact(handle.get(), key, slot));
            return slot.get(JAVA_BOOLEAN, 0);
        });
    }

    /**
     * @param key a key
     * @return whether it was present
     */
    public boolean remove(long key) {
        return CollectionCalls.write(lock, () -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.SET_REMOVE.invokeExact(handle.get(), key, slot));
            return slot.get(JAVA_BOOLEAN, 0);
        });
    }

    /**
     * Adds a batch of keys, prefetching ahead.
     *
     * @param keys the keys
     */
    public void insertMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        CollectionCalls.write(lock, () -> {
            try (Arena arena = Arena.ofConfined()) {
                Native.check((int) Native.SET_INSERT_MANY.invokeExact(handle.get(), CollectionCalls.copy(arena, keys), (long) keys.length));
            }
            return null;
        });
    }

    /**
     * @param keys the keys
     * @return whether each key is present
     */
    public boolean[] containsMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return CollectionCalls.read(lock, () -> CollectionCalls.containsMany(Native.SET_CONTAINS_MANY, handle.get(), keys));
    }

    /** @return every key, in no particular order */
    public long[] toArray() {
        return CollectionCalls.read(lock, () -> {
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
     * Removes a batch of keys (absent ones are skipped).
     *
     * @param keys the keys
     * @return how many of them were present
     */
    public long removeMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return CollectionCalls.write(lock, () -> CollectionCalls.removeMany(Native.SET_REMOVE_MANY, handle.get(), keys));
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
        return isClosed() ? "SmartSet[closed]" : "SmartSet[size=" + size() + ", placement=" + placement() + "]";
    }
}
