// ChunkCursor: forward iteration over a SmartArray in chunks. Compressed chunks are decoded by the
// native library, many values per call (each call also prefetches the packed memory of the chunk
// two steps ahead, sa_array_unpack_ahead), into one reused native buffer, or, once the caller has
// asked for a long[] (longs(), chunkSum()), straight into one reused long[]. 64-bit arrays are read
// in place through the array's own segment (no decoding, no native call).
package org.smartarrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Walks a range of a {@link SmartArray} chunk by chunk. Each {@link #next()} moves to the next
 * chunk of up to {@link #chunkValues()} values, which are then read through {@link #value(int)},
 * {@link #values()} (a {@code MemorySegment}), {@link #longs()} (a {@code long[]}) or summed by
 * {@link #chunkSum()}. Buffers are reused, so a chunk's values must be read before the following
 * {@code next()}.
 *
 * <pre>{@code
 * long total = 0;
 * try (ChunkCursor cursor = array.cursor()) {
 *     while (cursor.next()) {
 *         MemorySegment chunk = cursor.values();
 *         for (int i = 0; i < cursor.count(); i++) {
 *             total += chunk.getAtIndex(ValueLayout.JAVA_LONG, i);
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #longs()} hands out the chunk as a Java {@code long[]}, over which a loop with several
 * accumulators runs about twice as fast as a plain one (HotSpot removes a {@code long[]}'s bounds
 * checks from such a loop, not a segment's; a plain {@code long} sum loop is not vectorised and waits
 * for every addition). Once a cursor over a compressed array has been asked for {@code longs()} (or
 * {@code chunkSum()}, which uses it), it decodes its later chunks straight into that array, with no
 * copy. To sum a range, {@code chunkSum()} is the fastest Java path:
 *
 * <pre>{@code
 * long total = 0;
 * try (ChunkCursor cursor = array.cursor()) {
 *     while (cursor.next()) {
 *         total += cursor.chunkSum();
 *     }
 * }
 * }</pre>
 *
 * <p>A cursor belongs to the thread that created it (its buffer is confined to that thread).
 * Closing it frees the buffer; closing the array ends the cursor too.
 */
public final class ChunkCursor implements AutoCloseable {
    /**
     * Values decoded per native call unless asked otherwise for a compressed array: 8 KiB of buffer, which stays in the L1
     * cache next to the packed input while the caller reads it (2048 values measured 10-15% slower
     * for compressed arrays on the dev machine's 32 KiB L1, 4096 slower still; a call costs about
     * 25 ns, so fewer values per call would let that dominate).
     */
    public static final int DEFAULT_CHUNK_VALUES = 1024;

    /**
     * Values per chunk unless asked otherwise for a 64-bit array, which is read in place (no buffer):
     * 512 KiB of the array. Each chunk has a fixed cost (moving to it and starting its loop), which
     * 1024-value chunks measured at about a quarter of their time; from 8192 values on it is lost in
     * the memory time.
     */
    public static final int IN_PLACE_CHUNK_VALUES = 1 << 16;

    /**
     * The chunk a cursor over {@code array} gets unless asked otherwise: {@link #IN_PLACE_CHUNK_VALUES}
     * for a 64-bit array, {@link #DEFAULT_CHUNK_VALUES} for a compressed one.
     *
     * @param array the array to walk
     * @return values per chunk
     */
    public static int defaultChunkValues(SmartArray array) {
        return array.isUncompressed() ? IN_PLACE_CHUNK_VALUES : DEFAULT_CHUNK_VALUES;
    }

    /** Fewest values per chunk: fewer would let the per-call cost dominate. */
    public static final int MIN_CHUNK_VALUES = 1024;

    /** Most values per chunk (8 MiB of buffer). */
    public static final int MAX_CHUNK_VALUES = 1 << 20;

    /**
     * How many chunks ahead each decoding call prefetches the packed memory: that memory then arrives
     * while the caller works on the current chunk (two measured better than one or four).
     */
    static final int PREFETCH_CHUNKS = 2;

    /** Alignment of the decoding buffer: a cache line, so the library's vector stores never straddle two. */
    private static final long BUFFER_ALIGNMENT = 64;

    private final SmartArray array;
    private final MemorySegment handle;
    private final long end;
    private final int chunkValues;
    private final long prefetchDistance;
    private final Arena arena;
    /** Decoding buffer (compressed arrays) or the array's own values (64-bit arrays). */
    private final MemorySegment source;
    private final boolean inPlace;
    private long next;
    private long start;
    private int count;
    /**
     * The current chunk as a native segment: a slice of {@link #source}. Stale while {@link #currentInHeap}
     * (the chunk was decoded into {@link #heap}; {@link #values()} then copies it here first).
     */
    private MemorySegment current;
    /** The Java buffer of {@link #longs()}, allocated on first use; {@link #heapSegment} views it. */
    private long[] heap;
    private MemorySegment heapSegment;
    /** Whether {@link #heap} holds the current chunk. */
    private boolean inHeap;
    /** Whether the current chunk is only in {@link #heap}, not yet in {@link #current}. */
    private boolean currentInHeap;
    /** Set by the first {@link #longs()} of a compressed array's cursor: later chunks are decoded into {@link #heap}. */
    private boolean decodeToHeap;
    /** Whether {@link #current} has not been sliced for an in-place chunk yet ({@link #values()} does it). */
    private boolean currentStale;

    ChunkCursor(SmartArray array, long start, long end, int chunkValues) {
        this.array = Objects.requireNonNull(array, "array");
        if (start < 0 || start > end || end > array.length()) {
            throw new IndexOutOfBoundsException(
                    "cursor range " + start + ".." + end + " is not within the array's " + array.length() + " values");
        }
        if (chunkValues < MIN_CHUNK_VALUES || chunkValues > MAX_CHUNK_VALUES) {
            throw new IllegalArgumentException(
                    "chunkValues must be within " + MIN_CHUNK_VALUES + ".." + MAX_CHUNK_VALUES + ", got " + chunkValues);
        }
        this.handle = array.handle();
        this.end = end;
        this.chunkValues = chunkValues;
        this.prefetchDistance = (long) chunkValues * PREFETCH_CHUNKS;
        this.next = start;
        this.start = start;
        this.inPlace = array.isUncompressed();
        this.arena = Arena.ofConfined();
        this.source = inPlace ? array.segment() : arena.allocate((long) chunkValues * Long.BYTES, BUFFER_ALIGNMENT);
        this.current = source.asSlice(0, 0);
    }

    /**
     * Moves to the next chunk.
     *
     * @return false when the range is exhausted (and on every later call)
     * @throws IllegalStateException when the cursor or its array was closed
     * @throws SmartArrayException when the library fails to decode
     */
    public boolean next() {
        if (!arena.scope().isAlive()) {
            throw new IllegalStateException("the cursor is closed");
        }
        inHeap = false;
        currentInHeap = false;
        currentStale = false;
        if (next >= end) {
            count = 0;
            current = source.asSlice(0, 0);
            return false;
        }
        int take = (int) Math.min(chunkValues, end - next);
        if (inPlace) {
            // The slice is made only when asked for (values()): chunkSum() and value() read the
            // array's segment at the chunk's offset, so a chunk costs no allocation.
            currentStale = true;
        } else if (decodeToHeap) {
            long stamp = array.readLock(); // no set may change the packed words while they decode
            try {
                Native.check((int) Native.ARRAY_UNPACK_AHEAD_HEAP.invokeExact(handle, next, heapSegment, (long) take, prefetchDistance));
            } catch (Throwable t) {
                throw noChunk(t);
            } finally {
                array.readUnlock(stamp);
            }
            inHeap = true;
            currentInHeap = true;
        } else {
            long stamp = array.readLock();
            try {
                Native.check((int) Native.ARRAY_UNPACK_AHEAD.invokeExact(handle, next, source, (long) take, prefetchDistance));
            } catch (Throwable t) {
                throw noChunk(t);
            } finally {
                array.readUnlock(stamp);
            }
            current = take == chunkValues ? source : source.asSlice(0, (long) take * Long.BYTES);
        }
        start = next;
        count = take;
        next += take;
        return true;
    }

    /** After a failed decode: no current chunk (so no stale values can be read), then the failure. */
    private RuntimeException noChunk(Throwable failure) {
        count = 0;
        current = source.asSlice(0, 0);
        inHeap = false;
        currentInHeap = false;
        return Native.rethrow(failure);
    }

    /** @return index in the array of the current chunk's first value */
    public long start() {
        return start;
    }

    /** @return number of values in the current chunk (0 before the first and after the last) */
    public int count() {
        return count;
    }

    /** @return the most values a chunk holds */
    public int chunkValues() {
        return chunkValues;
    }

    /**
     * Value {@code i} of the current chunk.
     *
     * @param i 0-based position in the chunk, below {@link #count()}
     * @return the value, as an unsigned 64-bit pattern
     * @throws IndexOutOfBoundsException when {@code i} is not below {@link #count()}
     */
    public long value(int i) {
        if (currentInHeap) {
            return heap[Objects.checkIndex(i, count)];
        }
        if (inPlace) {
            return source.getAtIndex(JAVA_LONG, start + Objects.checkIndex(i, count));
        }
        return current.getAtIndex(JAVA_LONG, i);
    }

    /**
     * The current chunk's values: {@code count() * 8} bytes, one {@code long} each in native order, in
     * native memory (a reused buffer for compressed arrays, the array's own read-only memory for 64-bit
     * ones). Valid until the next call to {@link #next()} (the buffer is reused) and never written by readers.
     *
     * @return the segment of the current chunk
     * @throws IllegalStateException when the cursor was closed
     */
    public MemorySegment values() {
        if (currentStale) {
            current = source.asSlice(start * Long.BYTES, (long) count * Long.BYTES);
            currentStale = false;
        }
        if (currentInHeap) {
            current = count == chunkValues ? source : source.asSlice(0, (long) count * Long.BYTES);
            MemorySegment.copy(heap, 0, current, JAVA_LONG, 0, count);
            currentInHeap = false;
        }
        return current;
    }

    /**
     * The current chunk's values in a Java array: elements {@code 0 .. count() - 1} hold them, the rest
     * is unspecified. The array is the cursor's own buffer, reused for every chunk, so it is valid until
     * the next call to {@link #next()}; treat it as read-only ({@link #chunkSum()} of the same chunk may
     * read it; writes never reach the array). The first call on a cursor over a compressed array copies
     * the current chunk into it and makes the cursor decode every later chunk straight into it (chunks
     * of up to 65536 values; larger ones are copied too); for 64-bit arrays each chunk is copied from the
     * array's memory (there {@link #values()} reads in place).
     *
     * <pre>{@code
     * while (cursor.next()) {
     *     long[] chunk = cursor.longs();
     *     for (int i = 0; i < cursor.count(); i++) {
     *         use(chunk[i]);
     *     }
     * }
     * }</pre>
     *
     * @return the cursor's buffer of {@link #chunkValues()} longs, with the current chunk at its start
     * @throws IllegalStateException when the cursor or its array was closed
     */
    public long[] longs() {
        if (!arena.scope().isAlive()) {
            throw new IllegalStateException("the cursor is closed");
        }
        if (!inHeap) {
            fillHeap();
        }
        return heap;
    }

    /** Copies the current chunk into the Java buffer (allocated here on first use). */
    private void fillHeap() {
        if (heap == null) {
            heap = new long[chunkValues];
            heapSegment = MemorySegment.ofArray(heap);
        }
        MemorySegment.copy(values(), JAVA_LONG, 0, heap, 0, count);
        inHeap = true;
        // A decode into a Java array holds up the garbage collector for the call, so only chunks that
        // decode in well under a millisecond go there directly; larger ones are copied.
        decodeToHeap = !inPlace && chunkValues <= Native.HEAP_UNPACK_VALUES;
    }

    /**
     * Wrapping sum of the current chunk's values, in Java. A compressed chunk is summed from the
     * {@link #longs()} buffer with four independent accumulators (about twice as fast as a plain loop);
     * a 64-bit chunk is summed in place, where memory rather than additions sets the pace. The one-call
     * native sum of a whole range is {@link SmartArray#sumRange}.
     *
     * @return the sum modulo 2<sup>64</sup> (an unsigned pattern); 0 when there is no current chunk
     * @throws IllegalStateException when the cursor or its array was closed
     */
    public long chunkSum() {
        return inPlace ? sumSegment(source, start, count) : sumArray(longs(), count);
    }

    /** Sums {@code count} values of {@code values} from index {@code from}, in place. */
    private static long sumSegment(MemorySegment values, long from, int count) {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += values.getAtIndex(JAVA_LONG, from + i);
        }
        return total;
    }

    /** Four accumulators, so that four additions run at once instead of each waiting for the last. */
    private static long sumArray(long[] values, int count) {
        long total0 = 0;
        long total1 = 0;
        long total2 = 0;
        long total3 = 0;
        int whole = count & ~3;
        for (int i = 0; i < whole; i += 4) {
            total0 += values[i];
            total1 += values[i + 1];
            total2 += values[i + 2];
            total3 += values[i + 3];
        }
        for (int i = whole; i < count; i++) {
            total0 += values[i];
        }
        return (total0 + total1) + (total2 + total3);
    }

    /** @return the array this cursor walks */
    public SmartArray array() {
        return array;
    }

    /** Frees the decoding buffer; repeated calls do nothing. */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
