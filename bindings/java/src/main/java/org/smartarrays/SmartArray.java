// SmartArray: the Java face of a native smart array (unsigned 64-bit values at 1..64 bits, with
// a NUMA placement). Owns one C handle; every operation is a downcall into libsmartarrays, so
// the codec, placement and runtime stay implemented once, in Rust. Lifetime: explicit close()
// (try-with-resources), safe to repeat, with a Cleaner as the fallback for forgotten arrays.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.StampedLock;

/**
 * An array of unsigned 64-bit integers stored in {@link #bits()} bits each, in native memory
 * placed on NUMA nodes by a {@link Placement}. Values are Java {@code long}s read as unsigned:
 * a 64-bit value above {@link Long#MAX_VALUE} comes back negative (use
 * {@link Long#toUnsignedString(long)} and {@link Long#compareUnsigned(long, long)}).
 *
 * <pre>{@code
 * try (SmartArray array = SmartArray.of(new long[] {3, 1, 4, 1, 5}, Placement.interleaved(), SmartArray.MINIMAL_BITS)) {
 *     assert array.bits() == 3;          // 5 fits in 3 bits
 *     assert array.get(2) == 4;
 *     assert array.sum() == 14;
 *     try (ChunkCursor cursor = array.cursor()) {
 *         while (cursor.next()) {
 *             for (int i = 0; i < cursor.count(); i++) {
 *                 long value = cursor.value(i);  // decoded 1024 values per native call
 *             }
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Thread safety: reads ({@code get}, sums, cursors, segments) may run on any number of threads
 * at once. {@link #set(long, long)} is guarded: while another thread reads the array (get, sums,
 * unpack, a compressed cursor's chunk), it throws {@link IllegalStateException} instead of letting the
 * reader see a half-written value; {@link #set(long, long, Duration)} waits for the readers instead. {@link #close()} fails with {@link IllegalStateException} while another thread is inside
 * a native call on the array, and every use after close fails with {@link IllegalStateException}
 * instead of touching freed memory.
 */
@SuppressWarnings("restricted") // handles and raw values get their size and lifetime from the C ABI's contract
public final class SmartArray implements AutoCloseable {
    /** Width argument that asks for the fewest bits that hold the largest value ("minimal"). */
    public static final int MINIMAL_BITS = 0;

    /**
     * The old name of {@link #MINIMAL_BITS}: 0 asks for the fewest bits, not for the advisor's "auto".
     *
     * @deprecated use {@link #MINIMAL_BITS}; the name "auto" means the advisor's choice in every language
     */
    @Deprecated
    public static final int AUTO_BITS = MINIMAL_BITS;

    /** Readers hold it shared for the length of their native call; {@link #set} takes it exclusively. */
    private final StampedLock access = new StampedLock();

    /** The owned C handle: scoped, freed once (by {@link #close()} or the Cleaner). */
    private final NativeHandle owned;

    /** The native handle, scoped: once the array is closed it can no longer be passed to C. */
    private final MemorySegment handle;

    private final long length;
    private final int bits;
    private final Placement placement;

    private SmartArray(MemorySegment raw) {
        this.owned = new NativeHandle(this, raw, Native.ARRAY_FREE);
        this.handle = owned.get();
        try {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.ARRAY_LEN.invokeExact(handle, slot));
            this.length = slot.get(JAVA_LONG, 0);
            Native.check((int) Native.ARRAY_BITS.invokeExact(handle, slot));
            this.bits = slot.get(JAVA_INT, 0);
            Native.check((int) Native.ARRAY_PLACEMENT.invokeExact(handle, slot));
            this.placement = Placement.parse(Native.takeString(slot));
        } catch (Throwable t) {
            owned.close();
            throw Native.rethrow(t);
        }
    }

    /**
     * Builds an array from values, at the fewest bits that hold the largest, with the OS default placement.
     *
     * @param values the values (read as unsigned; copied)
     * @return the new array
     */
    public static SmartArray of(long... values) {
        return of(values, Placement.osDefault(), MINIMAL_BITS);
    }

    /**
     * Builds an array from a copy of {@code values}.
     *
     * @param values the values (read as unsigned)
     * @param placement where the memory goes
     * @param bits the width, 1..64, or {@link #MINIMAL_BITS}
     * @return the new array
     * @throws SmartArrayException when a value does not fit the width ({@code VALUE_TOO_WIDE}, naming the
     *     first such index), the width or placement is invalid, or memory runs out
     */
    public static SmartArray of(long[] values, Placement placement, int bits) {
        Objects.requireNonNull(values, "values");
        try (Arena temporary = Arena.ofConfined()) {
            MemorySegment copy = temporary.allocate(JAVA_LONG, Math.max(1, values.length));
            MemorySegment.copy(values, 0, copy, JAVA_LONG, 0, values.length);
            return of(copy.asSlice(0, (long) values.length * Long.BYTES), placement, bits);
        }
    }

    /**
     * Builds an array from the 64-bit values in a native segment, without an extra copy on the Java side.
     *
     * @param values a native segment holding {@code byteSize() / 8} values in native byte order
     * @param placement where the memory goes
     * @param bits the width, 1..64, or {@link #MINIMAL_BITS}
     * @return the new array
     * @throws IllegalArgumentException when the segment is on the Java heap or not a whole number of values
     * @throws SmartArrayException as for {@link #of(long[], Placement, int)}
     */
    public static SmartArray of(MemorySegment values, Placement placement, int bits) {
        Objects.requireNonNull(values, "values");
        Objects.requireNonNull(placement, "placement");
        checkBits(bits);
        if (!values.isNative()) {
            throw new IllegalArgumentException("values must be a native segment; use of(long[], ...) for Java arrays");
        }
        if (values.byteSize() % Long.BYTES != 0) {
            throw new IllegalArgumentException("values must hold whole 8-byte values, got " + values.byteSize() + " bytes");
        }
        try (Arena temporary = Arena.ofConfined()) {
            MemorySegment out = temporary.allocate(ADDRESS);
            int status = (int) Native.ARRAY_FROM_U64.invokeExact(values, values.byteSize() / Long.BYTES,
                    temporary.allocateFrom(placement.toString()), bits, out);
            Native.check(status);
            return new SmartArray(out.get(ADDRESS, 0));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * An array of {@code length} zeros.
     *
     * @param length the number of values
     * @param placement where the memory goes
     * @param bits the width, 1..64 ({@link #MINIMAL_BITS} gives 1 bit)
     * @return the new array
     * @throws SmartArrayException for an invalid width or placement, or when memory runs out
     */
    public static SmartArray zeros(long length, Placement placement, int bits) {
        Objects.requireNonNull(placement, "placement");
        checkBits(bits);
        if (length < 0) {
            throw new IllegalArgumentException("length must not be negative, got " + length);
        }
        try (Arena temporary = Arena.ofConfined()) {
            MemorySegment out = temporary.allocate(ADDRESS);
            Native.check((int) Native.ARRAY_NEW.invokeExact(length, temporary.allocateFrom(placement.toString()), bits, out));
            return new SmartArray(out.get(ADDRESS, 0));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** @return the number of values */
    public long length() {
        return length;
    }

    /** @return the bits each value takes, 1..64 */
    public int bits() {
        return bits;
    }

    /** @return whether values are stored uncompressed (64 bits), so {@link #segment()} works */
    public boolean isUncompressed() {
        return bits == 64;
    }

    /** @return the placement the array was built with */
    public Placement placement() {
        return placement;
    }

    /**
     * Value {@code index} (one native call; for scans use {@link #cursor()} or {@link #segment()}).
     *
     * @param index 0-based index
     * @return the value, as an unsigned 64-bit pattern
     * @throws SmartArrayException {@code INDEX_OUT_OF_RANGE} past the end
     */
    public long get(long index) {
        checkNotNegative(index, "index");
        long stamp = access.readLock();
        try {
            MemorySegment slot = NativeHandle.scratch();
            int status = (int) Native.ARRAY_GET.invokeExact(handle, index, slot);
            if (status != 0) {
                throw Native.failure(status);
            }
            return slot.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            access.unlockRead(stamp);
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Sets value {@code index} (in every replica), refusing while another thread reads the array.
     *
     * @param index 0-based index
     * @param value the value, read as unsigned
     * @throws SmartArrayException {@code INDEX_OUT_OF_RANGE}, {@code VALUE_TOO_WIDE} (nothing is written), or
     *     {@code BUSY} while an Arrow export shares the array
     * @throws IllegalStateException while another thread reads the array (use {@link #set(long, long, Duration)})
     * @throws IndexOutOfBoundsException for a negative index
     */
    public void set(long index, long value) {
        checkNotNegative(index, "index");
        long stamp = access.tryWriteLock();
        if (stamp == 0) {
            throw new IllegalStateException(
                    "set while another thread reads this array: refused so no reader sees a half-written value; "
                            + "set(index, value, timeout) waits for the readers");
        }
        write(stamp, index, value);
    }

    /**
     * Sets value {@code index} (in every replica), waiting up to {@code timeout} for other threads' reads to end.
     *
     * @param index 0-based index
     * @param value the value, read as unsigned
     * @param timeout how long to wait for readers
     * @throws IllegalStateException when readers still hold the array after {@code timeout}
     * @throws SmartArrayException as for {@link #set(long, long)}
     */
    public void set(long index, long value, Duration timeout) {
        checkNotNegative(index, "index");
        Objects.requireNonNull(timeout, "timeout");
        long stamp;
        try {
            stamp = access.tryWriteLock(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to set", e);
        }
        if (stamp == 0) {
            throw new IllegalStateException("other threads still read this array after " + timeout + "; nothing was written");
        }
        write(stamp, index, value);
    }

    private void write(long stamp, long index, long value) {
        try {
            Native.check((int) Native.ARRAY_SET.invokeExact(handle, index, value));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            access.unlockWrite(stamp);
            Reference.reachabilityFence(this);
        }
    }

    /** Runs a read with the access lock held shared (package-private: the cursor's compressed chunks use it). */
    long readLock() {
        return access.readLock();
    }

    void readUnlock(long stamp) {
        access.unlockRead(stamp);
    }

    private static void checkNotNegative(long index, String name) {
        if (index < 0) {
            throw new IndexOutOfBoundsException(name + " " + index + " is negative");
        }
    }

    /** A negative width would reach C as a huge unsigned number: refuse it here, naming it (65.. the library refuses). */
    private static void checkBits(int bits) {
        if (bits < 0) {
            throw new IllegalArgumentException("bits must be 1..64, or MINIMAL_BITS (0), got " + bits);
        }
    }

    /**
     * Wrapping (mod 2<sup>64</sup>) sum of all values, in parallel on the library's runtime workers.
     *
     * @return the sum, as an unsigned 64-bit pattern
     */
    public long sum() {
        return reduce(Native.ARRAY_SUM).orElseThrow();
    }

    /**
     * Wrapping sum of the values at {@code start..end} (end exclusive), on the calling thread only.
     *
     * @param start first index
     * @param end index after the last
     * @return the sum, as an unsigned 64-bit pattern
     * @throws SmartArrayException {@code RANGE_OUT_OF_BOUNDS} for a reversed range or one past the end
     */
    public long sumRange(long start, long end) {
        checkNotNegative(start, "start");
        checkNotNegative(end, "end");
        long stamp = access.readLock();
        try {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.ARRAY_SUM_RANGE.invokeExact(handle, start, end, slot));
            return slot.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            access.unlockRead(stamp);
            Reference.reachabilityFence(this);
        }
    }

    /** @return the smallest value (unsigned order), or empty for an empty array; computed in parallel */
    public OptionalLong min() {
        return reduce(Native.ARRAY_MIN);
    }

    /** @return the largest value (unsigned order), or empty for an empty array; computed in parallel */
    public OptionalLong max() {
        return reduce(Native.ARRAY_MAX);
    }

    private OptionalLong reduce(java.lang.invoke.MethodHandle function) {
        long stamp = access.readLock();
        try {
            MemorySegment slot = NativeHandle.scratch();
            int status = (int) function.invokeExact(handle, slot);
            if (status == SmartArrayException.Status.EMPTY_ARRAY.ordinal()) {
                return OptionalLong.empty();
            }
            Native.check(status);
            return OptionalLong.of(slot.get(JAVA_LONG, 0));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            access.unlockRead(stamp);
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Decodes values {@code start .. start + count} into {@code destination[offset .. offset + count]}.
     *
     * @param start index of the first value
     * @param destination Java array to fill
     * @param offset first position written in {@code destination}
     * @param count number of values
     * @throws SmartArrayException {@code RANGE_OUT_OF_BOUNDS} when the range reaches past the end
     */
    public void unpack(long start, long[] destination, int offset, int count) {
        Objects.checkFromIndexSize(offset, count, destination.length);
        checkNotNegative(start, "start");
        MemorySegment target = MemorySegment.ofArray(destination);
        long stamp = access.readLock();
        try {
            int done = 0;
            do {
                int step = Math.min(count - done, Native.HEAP_UNPACK_VALUES);
                MemorySegment piece = target.asSlice((long) (offset + done) * Long.BYTES, (long) step * Long.BYTES);
                Native.check((int) Native.ARRAY_UNPACK_HEAP.invokeExact(handle, start + done, piece, (long) step));
                done += step;
            } while (done < count);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            access.unlockRead(stamp);
            Reference.reachabilityFence(this);
        }
    }

    /**
     * @return all values, decoded into a new Java array
     * @throws IllegalStateException when the array has more values than a Java array can hold
     */
    public long[] toArray() {
        if (length > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(length + " values do not fit in a Java array; use cursor() instead");
        }
        long[] values = new long[(int) length];
        unpack(0, values, 0, values.length);
        return values;
    }

    /**
     * @return a cursor over all values, with the default chunk for this array ({@link
     *     ChunkCursor#defaultChunkValues(SmartArray)})
     */
    public ChunkCursor cursor() {
        return cursor(0, length);
    }

    /**
     * A cursor over values {@code start..end} (end exclusive), with the default chunk for this array:
     * {@value ChunkCursor#DEFAULT_CHUNK_VALUES} values for a compressed array (decoded into a buffer that
     * stays in the L1 cache), {@value ChunkCursor#IN_PLACE_CHUNK_VALUES} for a 64-bit one (read in place,
     * so a chunk costs no buffer).
     *
     * @param start first index
     * @param end index after the last
     * @return the cursor, before its first chunk
     */
    public ChunkCursor cursor(long start, long end) {
        return new ChunkCursor(this, start, end, ChunkCursor.defaultChunkValues(this));
    }

    /**
     * A cursor over values {@code start..end} (end exclusive).
     *
     * @param start first index
     * @param end index after the last
     * @param chunkValues values per chunk, at least {@value ChunkCursor#MIN_CHUNK_VALUES}
     * @return the cursor, before its first chunk
     */
    public ChunkCursor cursor(long start, long end, int chunkValues) {
        return new ChunkCursor(this, start, end, chunkValues);
    }

    /**
     * A read-only segment over the values of an uncompressed (64-bit) array, in place: no copy and no
     * native call per read (the array's copy on the calling thread's node, for replicated arrays). It is
     * valid until the array is closed; reading it afterwards throws {@link IllegalStateException}.
     *
     * @return {@code length() * 8} bytes, one {@code long} per value in native byte order
     * @throws SmartArrayException {@code NOT_UNCOMPRESSED} for arrays of fewer than 64 bits
     */
    public MemorySegment segment() {
        try {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.ARRAY_RAW_VALUES.invokeExact(handle, slot));
            return owned.scoped(slot.get(ADDRESS, 0), length * Long.BYTES).asReadOnly();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** @return the number of copies of the data (the node count when replicated, else 1) */
    public long replicaCount() {
        return sizeQuery(Native.ARRAY_REPLICA_COUNT);
    }

    /** @return bytes of memory the array occupies (all replicas, whole pages) */
    public long memoryBytes() {
        return sizeQuery(Native.ARRAY_MEMORY_BYTES);
    }

    /** @return bytes the values take densely packed in one copy, {@code ceil(length * bits / 8)} */
    public long packedBytes() {
        return sizeQuery(Native.ARRAY_PACKED_BYTES);
    }

    private long sizeQuery(java.lang.invoke.MethodHandle function) {
        try {
            return owned.size(function);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** @return where the array's pages are, read back from the kernel, as readable lines */
    public String placementReport() {
        return stringQuery(Native.ARRAY_PLACEMENT_REPORT_TEXT);
    }

    /** @return the placement report as JSON text (see {@code sa_array_placement_report_json}) */
    public String placementReportJson() {
        return stringQuery(Native.ARRAY_PLACEMENT_REPORT_JSON);
    }

    private String stringQuery(java.lang.invoke.MethodHandle function) {
        try {
            return owned.text(function);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The handle, for cursors of this array (scoped: unusable once the array is closed). */
    MemorySegment handle() {
        return handle;
    }

    /** @return whether {@link #close()} has run (or the cleaner has freed the array) */
    public boolean isClosed() {
        return owned.isClosed();
    }

    /**
     * Frees the native array. Repeated calls do nothing. Afterwards every method that reads the
     * array, and every segment from {@link #segment()}, throws {@link IllegalStateException}.
     *
     * @throws IllegalStateException when another thread is inside a native call on this array (it stays open)
     */
    @Override
    public void close() {
        owned.close();
    }

    @Override
    public String toString() {
        return "SmartArray[length=" + length + ", bits=" + bits + ", placement=" + placement + (isClosed() ? ", closed]" : "]");
    }

    /** @return the native library's version ("MAJOR.MINOR.PATCH") */
    public static String libraryVersion() {
        try {
            return Native.cString((MemorySegment) Native.VERSION.invokeExact());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Sets the number of worker threads for arrays created from now on (building, {@link #sum()},
     * {@link #min()}, {@link #max()}); 0 restores the default (one per CPU, or {@code SMARTARRAYS_THREADS}).
     *
     * @param threads worker count, or 0
     */
    public static void setRuntimeThreads(int threads) {
        if (threads < 0) {
            throw new IllegalArgumentException("the thread count must not be negative, got " + threads);
        }
        try {
            Native.check((int) Native.RUNTIME_SET_THREADS.invokeExact((long) threads));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** @return the number of worker threads arrays created now will use */
    public static long runtimeThreads() {
        try {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.RUNTIME_THREADS.invokeExact(slot));
            return slot.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** @return the machine's NUMA topology (nodes, CPUs, memory, distances) as JSON text */
    public static String topologyJson() {
        try {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.TOPOLOGY_JSON.invokeExact(slot));
            return Native.takeString(slot);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
