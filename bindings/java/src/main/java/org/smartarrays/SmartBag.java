// SmartBag: the Java face of a smart multiset of long keys with counts (sa_bag_* in the C ABI,
// Bag<i64> of smartarrays-collections) in placed native memory.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantReadWriteLock;

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
public final class SmartBag implements AutoCloseable {
    /**
     * Every key with its count, in no particular order: {@code counts[i]} belongs to {@code keys[i]}.
     *
     * @param keys the keys
     * @param counts their counts
     */
    public record Counts(long[] keys, long[] counts) {}

    private final NativeHandle handle;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

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
        this.handle = new NativeHandle(this, CollectionCalls.create(Native.BAG_NEW, placement), Native.BAG_FREE);
    }

    /** @return the number of distinct keys */
    public long size() {
        return CollectionCalls.read(lock, () -> handle.size(Native.BAG_LEN));
    }

    /** @return bytes of memory the bag occupies */
    public long memoryBytes() {
        return CollectionCalls.read(lock, () -> handle.size(Native.BAG_MEMORY_BYTES));
    }

    /** @return what the bag's memory holds, as text */
    public String memoryReport() {
        return CollectionCalls.read(lock, () -> handle.text(Native.BAG_MEMORY_REPORT_TEXT));
    }

    /** @return the bag's placement */
    public Placement placement() {
        return Placement.parse(CollectionCalls.read(lock, () -> handle.text(Native.BAG_PLACEMENT)));
    }

    /** @return where the bag's pages are, read back from the kernel, as readable lines */
    public String placementReport() {
        return CollectionCalls.read(lock, () -> handle.text(Native.BAG_PLACEMENT_REPORT_TEXT));
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
        return CollectionCalls.write(lock, () -> {
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
        return CollectionCalls.read(lock, () -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.BAG_COUNT.invokeExact(handle.get(), key, slot));
            return slot.get(JAVA_LONG, 0);
        });
    }

    /**
     * Removes {@code key}.
     *
     * @param key the key
     * @return its count, 0 when it was absent
     */
    public long remove(long key) {
        return CollectionCalls.write(lock, () -> {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.BAG_REMOVE.invokeExact(handle.get(), key, slot));
            return slot.get(JAVA_LONG, 0);
        });
    }

    /**
     * Adds one to the count of every key of a batch, prefetching ahead.
     *
     * @param keys the keys
     * @throws SmartArrayException {@code OVERFLOW} when a count would pass 2^64 - 1 (the keys before it were counted)
     */
    public void addMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        CollectionCalls.write(lock, () -> {
            try (Arena arena = Arena.ofConfined()) {
                Native.check((int) Native.BAG_ADD_MANY.invokeExact(handle.get(), CollectionCalls.copy(arena, keys), (long) keys.length));
            }
            return null;
        });
    }

    /**
     * @param keys the keys
     * @return the count of each key, 0 for absent ones
     */
    public long[] countMany(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return CollectionCalls.read(lock, () -> {
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
        return CollectionCalls.read(lock, () -> {
            int n = Math.toIntExact(handle.size(Native.BAG_LEN));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment keys = arena.allocate(JAVA_LONG, Math.max(1, n));
                MemorySegment counts = arena.allocate(JAVA_LONG, Math.max(1, n));
                MemorySegment written = arena.allocate(JAVA_LONG);
                Native.check((int) Native.BAG_EXPORT.invokeExact(handle.get(), keys, counts, (long) n, written));
                long count = written.get(JAVA_LONG, 0);
                return new Counts(keys.asSlice(0, count * Long.BYTES).toArray(JAVA_LONG), counts.asSlice(0, count * Long.BYTES).toArray(JAVA_LONG));
            }
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
        return CollectionCalls.write(lock, () -> CollectionCalls.removeMany(Native.BAG_REMOVE_MANY, handle.get(), keys));
    }

    /** @return whether {@link #close()} has run (or the cleaner has freed the bag) */
    public boolean isClosed() {
        return handle.isClosed();
    }

    /**
     * Frees the native bag; repeated calls do nothing.
     *
     * @throws IllegalStateException when another thread is inside a call on this bag (it stays open)
     */
    @Override
    public void close() {
        handle.close();
    }

    @Override
    public String toString() {
        return isClosed() ? "SmartBag[closed]" : "SmartBag[size=" + size() + ", placement=" + placement() + "]";
    }
}
