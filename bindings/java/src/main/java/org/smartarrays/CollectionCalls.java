// CollectionCalls: what SmartMap, SmartSet and SmartBag share: creating a handle from placement
// text, running a call under the read or the write side of the collection's lock (rethrowing
// native failures as SmartArrayException), and copying long[] batches into native memory.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/** Helpers of the collection classes (package-private). */
final class CollectionCalls {
    private CollectionCalls() {}

    /** A native call that may throw anything {@code invokeExact} throws. */
    interface Call<T> {
        T run() throws Throwable;
    }

    /** Runs {@code sa_*_new(placement, &out)} and returns the new handle. */
    static MemorySegment create(MethodHandle create, Placement placement) {
        Objects.requireNonNull(placement, "placement");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            return NativeHandle.created((int) create.invokeExact(arena.allocateFrom(placement.toString()), out), out);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** Runs a call without a lock (the frozen collections never change), rethrowing native failures. */
    static <T> T run(Call<T> call) {
        try {
            return call.run();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** Runs {@code sa_map_freeze} or {@code sa_set_freeze} on a source handle and returns the new frozen handle. */
    static MemorySegment freeze(MethodHandle freeze, MemorySegment source) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            return NativeHandle.created((int) freeze.invokeExact(source, out), out);
        }
    }

    static <T> T read(ReentrantReadWriteLock lock, Call<T> call) {
        return locked(lock.readLock(), call);
    }

    static <T> T write(ReentrantReadWriteLock lock, Call<T> call) {
        return locked(lock.writeLock(), call);
    }

    private static <T> T locked(Lock lock, Call<T> call) {
        lock.lock();
        try {
            return call.run();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            lock.unlock();
        }
    }

    /** The values in native memory ({@code NULL} for none, which C accepts for a count of 0). */
    static MemorySegment copy(Arena arena, long[] values) {
        return values.length == 0 ? MemorySegment.NULL : arena.allocateFrom(JAVA_LONG, values);
    }

    static void sameLength(long[] keys, long[] values) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(values, "values");
        if (keys.length != values.length) {
            throw new IllegalArgumentException(keys.length + " keys but " + values.length + " values were given");
        }
    }

    /** Runs {@code f(handle, key, &out)} and returns this thread's scratch slot, holding {@code out}. */
    static MemorySegment keyCall(MethodHandle function, MemorySegment handle, long key) throws Throwable {
        MemorySegment slot = NativeHandle.scratch();
        Native.check((int) function.invokeExact(handle, key, slot));
        return slot;
    }

    /** Runs {@code f(handle, keys, count)}: a batch that writes nothing back ({@code insert_many}, {@code add_many}). */
    static void keysCall(MethodHandle function, MemorySegment handle, long[] keys) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            Native.check((int) function.invokeExact(handle, copy(arena, keys), (long) keys.length));
        }
    }

    /**
     * Runs {@code sa_map_export} or {@code sa_bag_export} with room for {@code size} entries.
     *
     * @return the keys and the values (or counts) written, as two arrays of the same length
     */
    static long[][] exportPairs(MethodHandle function, MemorySegment handle, long size) throws Throwable {
        int n = Math.toIntExact(size);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment keys = arena.allocate(JAVA_LONG, Math.max(1, n));
            MemorySegment values = arena.allocate(JAVA_LONG, Math.max(1, n));
            MemorySegment written = arena.allocate(JAVA_LONG);
            Native.check((int) function.invokeExact(handle, keys, values, (long) n, written));
            long count = written.get(JAVA_LONG, 0);
            return new long[][] {keys.asSlice(0, count * Long.BYTES).toArray(JAVA_LONG), values.asSlice(0, count * Long.BYTES).toArray(JAVA_LONG)};
        }
    }

    /** Runs {@code sa_*_remove_many} and returns how many keys were present. */
    static long removeMany(MethodHandle function, MemorySegment handle, long[] keys) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment removed = arena.allocate(JAVA_LONG);
            int status = (int) function.invokeExact(handle, copy(arena, keys), (long) keys.length, removed);
            Native.check(status);
            return removed.get(JAVA_LONG, 0);
        }
    }

    /** Runs {@code sa_*_contains_many} into a Java mask. */
    static boolean[] containsMany(MethodHandle function, MemorySegment handle, long[] keys) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            int n = keys.length;
            MemorySegment mask = arena.allocate(Math.max(1, n));
            int status = (int) function.invokeExact(handle, copy(arena, keys), (long) n, mask, MemorySegment.NULL);
            Native.check(status);
            boolean[] present = new boolean[n];
            for (int i = 0; i < n; i++) {
                present[i] = mask.get(JAVA_BYTE, i) != 0;
            }
            return present;
        }
    }
}
