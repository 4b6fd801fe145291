// SmartCollection: what SmartMap, SmartSet and SmartBag share: one owned C handle, a read-write
// lock (reads run together, writes alone), and the size, memory and placement reports that every
// collection has. Each subclass names its C functions once and adds its own operations.
package org.smartarrays;

import java.lang.invoke.MethodHandle;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A smart collection of {@code long} keys in native memory placed by a {@link Placement}: a
 * {@link SmartMap}, {@link SmartSet} or {@link SmartBag}.
 *
 * <p>Thread safety: reads (lookups, {@code size}, the reports) run on any number of threads at
 * once; writes wait for them and run alone. {@link #close()} fails with
 * {@link IllegalStateException} while a call is running; every use after close is an
 * {@link IllegalStateException}. Collections never closed are freed by a Cleaner.
 */
public abstract sealed class SmartCollection implements AutoCloseable permits SmartMap, SmartSet, SmartBag {
    /** The C functions of one kind of collection that the shared methods call. */
    record Functions(
            MethodHandle create,
            MethodHandle free,
            MethodHandle len,
            MethodHandle memoryBytes,
            MethodHandle memoryReport,
            MethodHandle placement,
            MethodHandle placementReport) {}

    /** The owned C handle. */
    final NativeHandle handle;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Functions functions;

    SmartCollection(Placement placement, Functions functions) {
        this.functions = functions;
        this.handle = new NativeHandle(this, CollectionCalls.create(functions.create(), placement), functions.free());
    }

    /** Runs a read under the shared side of the lock. */
    final <T> T read(CollectionCalls.Call<T> call) {
        return CollectionCalls.read(lock, call);
    }

    /** Runs a write under the exclusive side of the lock. */
    final <T> T write(CollectionCalls.Call<T> call) {
        return CollectionCalls.write(lock, call);
    }

    /** @return the number of keys (distinct keys for a bag) */
    public long size() {
        return read(() -> handle.size(functions.len()));
    }

    /** @return bytes of memory the collection occupies (all partitions and replicas, whole pages) */
    public long memoryBytes() {
        return read(() -> handle.size(functions.memoryBytes()));
    }

    /** @return what the collection's memory holds (entries, buckets, widths, bytes per entry), as text */
    public String memoryReport() {
        return read(() -> handle.text(functions.memoryReport()));
    }

    /** @return the collection's placement */
    public Placement placement() {
        return Placement.parse(read(() -> handle.text(functions.placement())));
    }

    /** @return where the collection's pages are, read back from the kernel, as readable lines (one block per partition) */
    public String placementReport() {
        return read(() -> handle.text(functions.placementReport()));
    }

    /** @return whether {@link #close()} has run (or the cleaner has freed the collection) */
    public boolean isClosed() {
        return handle.isClosed();
    }

    /**
     * Frees the native collection; repeated calls do nothing.
     *
     * @throws IllegalStateException when another thread is inside a call on this collection (it stays open)
     */
    @Override
    public void close() {
        handle.close();
    }

    @Override
    public String toString() {
        String name = getClass().getSimpleName();
        return isClosed() ? name + "[closed]" : name + "[size=" + size() + ", placement=" + placement() + "]";
    }
}
