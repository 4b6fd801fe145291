// EncodedColumn: the Java face of a typed, compressed column of smartarrays-encodings (sa_column_*
// in the C ABI): signed or unsigned 64-bit integers, doubles, strings, booleans, dates or exact
// decimals, optionally with nulls,
// in an encoding the sampling compressor chooses (or the caller names). Owns one C handle; every
// operation is a downcall, so encodings, filters and sums stay implemented once, in Rust.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * A typed, compressed column in native memory placed by a {@link Placement}: the values of one
 * {@link DataType}, stored in an encoding ({@code bitpacked}, {@code frame}, {@code dictionary},
 * {@code run_end}, {@code delta}, {@code constant}, {@code alp} for doubles, {@code dictionary} or {@code fsst}
 * for strings) that the sampling compressor chooses unless one is named; {@link #explanation()}
 * says why. Filters run on the encoded data and return a {@link Selection}.
 *
 * <pre>{@code
 * long[] prices = new long[5000];
 * for (int i = 0; i < prices.length; i++) prices[i] = 10_000 + (i * 37) % 2000;
 * try (EncodedColumn column = EncodedColumn.ofLongs(prices)) {
 *     assert column.encoding().equals("frame");       // 11 bits above a base of 10000
 *     Selection cheap = column.filterRange(10_000, 10_099);
 *     long[] rows = cheap.rowIds();
 *     long total = column.sum();                       // exact; OVERFLOW instead of wrapping
 *     System.out.println(column.explanation());
 * }
 * }</pre>
 *
 * <p>Nulls: pass a {@code boolean[] nulls} ({@code true} marks a null row) when building from
 * numbers, or {@code null} elements when building from strings. Null rows never match a value
 * filter; sums, minimum and maximum skip them. Reading a null row as a primitive
 * ({@link #getLong(long)}, {@link #toLongArray()}) is a {@link SmartArrayException} with status
 * {@code INVALID_ARGUMENT}, never a made-up value; {@link #get(long)} returns {@code null}.
 *
 * <p>Unsigned columns ({@link #ofUnsignedLongs}) hold 64-bit patterns in Java {@code long}s, as
 * {@link SmartArray} does: use {@link Long#toUnsignedString(long)}.
 *
 * <p>Thread safety: a column never changes after it is built; every method may run on any number
 * of threads at once. {@link #close()} fails with {@link IllegalStateException} while another
 * thread is inside a native call on the column; every use after close is an
 * {@link IllegalStateException}. Columns that are never closed are freed by a {@code Cleaner}.
 */
public final class EncodedColumn implements AutoCloseable {
    /** The encoding name that lets the sampling compressor choose (as {@code null} does). */
    public static final String AUTO = "auto";

    /** The logical type of a column ({@code SaDataType} in C), in the C ABI's numeric order. */
    public enum DataType {
        /** Unsigned 64-bit integers ({@link #ofUnsignedLongs}). */
        UINT64,
        /** Signed 64-bit integers ({@link #ofLongs}). */
        INT64,
        /** IEEE doubles, every bit pattern kept ({@link #ofDoubles}). */
        FLOAT64,
        /** UTF-8 strings ({@link #ofStrings}). */
        UTF8,
        /** Exact decimals: 64-bit unscaled values at a scale of 0..18 ({@link #ofDecimals}). */
        DECIMAL,
        /** Dates as days since 1970-01-01 ({@link #ofDates}, {@link #ofEpochDays}). */
        DATE32,
        /** Booleans ({@link #ofBooleans}). */
        BOOL
    }

    private final NativeHandle handle;
    private final long length;
    private final DataType dataType;

    private EncodedColumn(MemorySegment raw) {
        this.handle = new NativeHandle(this, raw, Native.COLUMN_FREE);
        try {
            this.length = handle.size(Native.COLUMN_LEN);
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.COLUMN_DATA_TYPE.invokeExact(handle.get(), slot));
            this.dataType = DataType.values()[slot.get(JAVA_INT, 0)];
        } catch (Throwable t) {
            handle.close();
            throw Native.rethrow(t);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Building

    /**
     * A signed 64-bit column, encoding chosen by the compressor, OS default placement.
     *
     * @param values the values (copied)
     * @return the new column
     */
    public static EncodedColumn ofLongs(long... values) {
        return ofLongs(values, null, AUTO, Placement.osDefault());
    }

    /**
     * A signed 64-bit column.
     *
     * @param values the values (copied)
     * @param nulls {@code null} for no nulls, or one flag per value, {@code true} for a null row
     * @param encoding {@code null} or {@link #AUTO} for the compressor's choice, else {@code bitpacked},
     *     {@code frame}, {@code dictionary}, {@code run_end} or {@code constant}
     * @param placement where the memory goes
     * @return the new column
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for an unknown encoding or one that cannot hold
     *     the values, {@code INVALID_PLACEMENT} or {@code UNKNOWN_NODE} for a bad placement
     */
    public static EncodedColumn ofLongs(long[] values, boolean[] nulls, String encoding, Placement placement) {
        Objects.requireNonNull(values, "values");
        return build(Native.COLUMN_FROM_I64, values.length, nulls, encoding, placement,
                arena -> arena.allocateFrom(JAVA_LONG, values));
    }

    /**
     * An unsigned 64-bit column (each {@code long} read as 64 unsigned bits); arguments as for
     * {@link #ofLongs(long[], boolean[], String, Placement)}.
     *
     * @param values the values (copied)
     * @param nulls {@code null}, or {@code true} for each null row
     * @param encoding the encoding name, or {@code null} / {@link #AUTO}
     * @param placement where the memory goes
     * @return the new column
     */
    public static EncodedColumn ofUnsignedLongs(long[] values, boolean[] nulls, String encoding, Placement placement) {
        Objects.requireNonNull(values, "values");
        return build(Native.COLUMN_FROM_U64, values.length, nulls, encoding, placement,
                arena -> arena.allocateFrom(JAVA_LONG, values));
    }

    /**
     * A double column (every bit pattern kept: NaN payloads, -0.0, infinities), encoding chosen by
     * the compressor (ALP for decimal-like values), OS default placement.
     *
     * @param values the values (copied)
     * @return the new column
     */
    public static EncodedColumn ofDoubles(double... values) {
        return ofDoubles(values, null, AUTO, Placement.osDefault());
    }

    /**
     * A double column; {@code encoding} may also be {@code alp}.
     *
     * @param values the values (copied)
     * @param nulls {@code null}, or {@code true} for each null row
     * @param encoding the encoding name, or {@code null} / {@link #AUTO}
     * @param placement where the memory goes
     * @return the new column
     */
    public static EncodedColumn ofDoubles(double[] values, boolean[] nulls, String encoding, Placement placement) {
        Objects.requireNonNull(values, "values");
        return build(Native.COLUMN_FROM_F64, values.length, nulls, encoding, placement,
                arena -> arena.allocateFrom(JAVA_DOUBLE, values));
    }

    /**
     * A string column ({@code null} elements are null rows), encoding chosen by the compressor.
     *
     * @param values the strings (copied as UTF-8)
     * @return the new column
     */
    public static EncodedColumn ofStrings(String... values) {
        return ofStrings(values, AUTO, Placement.osDefault());
    }

    /**
     * A string column ({@code null} elements are null rows).
     *
     * @param values the strings (copied as UTF-8; a lone surrogate becomes {@code ?})
     * @param encoding {@code null} / {@link #AUTO}, {@code dictionary} or {@code fsst}
     * @param placement where the memory goes
     * @return the new column
     */
    public static EncodedColumn ofStrings(String[] values, String encoding, Placement placement) {
        Objects.requireNonNull(values, "values");
        Objects.requireNonNull(placement, "placement");
        boolean[] nulls = new boolean[values.length];
        boolean anyNull = false;
        for (int i = 0; i < values.length; i++) {
            nulls[i] = values[i] == null;
            anyNull |= nulls[i];
        }
        Utf8 strings = Utf8.of(values);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment bytes = arena.allocateFrom(JAVA_BYTE, strings.bytes);
            MemorySegment offsets = arena.allocateFrom(JAVA_LONG, strings.offsets);
            // Locals, not expressions: invokeExact takes each argument's static type as the signature.
            MemorySegment valid = anyNull ? bitmap(arena, nulls) : MemorySegment.NULL;
            int status = (int) Native.COLUMN_FROM_UTF8.invokeExact(bytes, (long) strings.bytes.length, offsets, (long) values.length,
                    valid, text(arena, encoding), arena.allocateFrom(placement.toString()), out);
            return new EncodedColumn(NativeHandle.created(status, out));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * A boolean column, encoding chosen by the compressor, OS default placement.
     *
     * @param values the values (copied)
     * @return the new column
     */
    public static EncodedColumn ofBooleans(boolean... values) {
        return ofBooleans(values, null, AUTO, Placement.osDefault());
    }

    /**
     * A boolean column; arguments as for {@link #ofLongs(long[], boolean[], String, Placement)}.
     *
     * @param values the values (copied)
     * @param nulls {@code null}, or {@code true} for each null row
     * @param encoding the encoding name, or {@code null} / {@link #AUTO}
     * @param placement where the memory goes
     * @return the new column
     */
    public static EncodedColumn ofBooleans(boolean[] values, boolean[] nulls, String encoding, Placement placement) {
        Objects.requireNonNull(values, "values");
        return build(Native.COLUMN_FROM_BOOL, values.length, nulls, encoding, placement, arena -> {
            MemorySegment bytes = arena.allocate(Math.max(1, values.length));
            for (int i = 0; i < values.length; i++) {
                bytes.set(JAVA_BYTE, i, (byte) (values[i] ? 1 : 0));
            }
            return bytes;
        });
    }

    /**
     * A date column, encoding chosen by the compressor, OS default placement; {@code null}
     * elements are null rows.
     *
     * @param values the dates (copied)
     * @return the new column
     * @throws IllegalArgumentException for a date more than 2^31 days from 1970-01-01
     */
    public static EncodedColumn ofDates(LocalDate... values) {
        Objects.requireNonNull(values, "values");
        int[] days = new int[values.length];
        boolean[] nulls = new boolean[values.length];
        boolean anyNull = false;
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                nulls[i] = anyNull = true;
                continue;
            }
            long epochDay = values[i].toEpochDay();
            if (epochDay != (int) epochDay) {
                throw new IllegalArgumentException("date " + i + " (" + values[i] + ") is out of the range of 32-bit days since 1970-01-01");
            }
            days[i] = (int) epochDay;
        }
        return ofEpochDays(days, anyNull ? nulls : null, AUTO, Placement.osDefault());
    }

    /**
     * A date column of days since 1970-01-01 (negative before); arguments as for
     * {@link #ofLongs(long[], boolean[], String, Placement)}.
     *
     * @param days the days (copied)
     * @param nulls {@code null}, or {@code true} for each null row
     * @param encoding the encoding name, or {@code null} / {@link #AUTO}
     * @param placement where the memory goes
     * @return the new column
     */
    public static EncodedColumn ofEpochDays(int[] days, boolean[] nulls, String encoding, Placement placement) {
        Objects.requireNonNull(days, "days");
        return build(Native.COLUMN_FROM_DATE32, days.length, nulls, encoding, placement,
                arena -> arena.allocateFrom(JAVA_INT, days));
    }

    /**
     * An exact decimal column at the largest scale of the values (each rescaled without rounding),
     * encoding chosen by the compressor, OS default placement; {@code null} elements are null rows.
     *
     * <pre>{@code
     * try (EncodedColumn prices = EncodedColumn.ofDecimals(new BigDecimal("12.5"), new BigDecimal("0.05"))) {
     *     assert prices.decimalScale() == 2;
     *     assert prices.getDecimal(0).equals(new BigDecimal("12.50"));
     * }
     * }</pre>
     *
     * @param values the values (copied)
     * @return the new column
     * @throws IllegalArgumentException for a scale past 18, or an unscaled value that does not fit in 64 bits
     *     at that scale, naming the value
     */
    public static EncodedColumn ofDecimals(BigDecimal... values) {
        Objects.requireNonNull(values, "values");
        int scale = 0;
        boolean anyNull = false;
        for (BigDecimal value : values) {
            if (value == null) {
                anyNull = true;
            } else {
                scale = Math.max(scale, value.scale());
            }
        }
        if (scale > 18) {
            throw new IllegalArgumentException("the decimals need a scale of " + scale + ": columns hold scales 0 to 18");
        }
        long[] unscaled = new long[values.length];
        boolean[] nulls = new boolean[values.length];
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                nulls[i] = true;
                continue;
            }
            try {
                unscaled[i] = values[i].setScale(scale).unscaledValue().longValueExact();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("decimal " + i + " (" + values[i] + ") does not fit in 64 bits at scale " + scale, e);
            }
        }
        return ofDecimals(unscaled, scale, anyNull ? nulls : null, AUTO, Placement.osDefault());
    }

    /**
     * An exact decimal column: row {@code i} is {@code unscaled[i] / 10^scale}; other arguments as
     * for {@link #ofLongs(long[], boolean[], String, Placement)}.
     *
     * @param unscaled the unscaled values (copied)
     * @param scale digits after the point, 0 to 18
     * @param nulls {@code null}, or {@code true} for each null row
     * @param encoding the encoding name, or {@code null} / {@link #AUTO}
     * @param placement where the memory goes
     * @return the new column
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a scale outside 0..18, as for {@code ofLongs} otherwise
     */
    public static EncodedColumn ofDecimals(long[] unscaled, int scale, boolean[] nulls, String encoding, Placement placement) {
        Objects.requireNonNull(unscaled, "unscaled");
        Objects.requireNonNull(placement, "placement");
        if (scale < 0 || scale > 255) {
            throw new SmartArrayException(SmartArrayException.Status.INVALID_ARGUMENT.ordinal(),
                    "decimal scale " + scale + " is outside 0..18");
        }
        if (nulls != null && nulls.length != unscaled.length) {
            throw new IllegalArgumentException("nulls holds " + nulls.length + " flags for " + unscaled.length + " values");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment values = arena.allocateFrom(JAVA_LONG, unscaled);
            MemorySegment valid = nulls == null ? MemorySegment.NULL : bitmap(arena, nulls);
            int status = (int) Native.COLUMN_FROM_DECIMAL.invokeExact(values, (long) unscaled.length, (byte) scale, valid,
                    text(arena, encoding), arena.allocateFrom(placement.toString()), out);
            return new EncodedColumn(NativeHandle.created(status, out));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private interface Values {
        MemorySegment copy(Arena arena);
    }

    private static EncodedColumn build(MethodHandle from, int length, boolean[] nulls, String encoding, Placement placement, Values values) {
        Objects.requireNonNull(placement, "placement");
        if (nulls != null && nulls.length != length) {
            throw new IllegalArgumentException("nulls holds " + nulls.length + " flags for " + length + " values");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment valid = nulls == null ? MemorySegment.NULL : bitmap(arena, nulls);
            int status = (int) from.invokeExact(values.copy(arena), (long) length, valid, text(arena, encoding),
                    arena.allocateFrom(placement.toString()), out);
            return new EncodedColumn(NativeHandle.created(status, out));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** The C validity bitmap (bit set = valid) of a Java null mask ({@code true} = null). */
    private static MemorySegment bitmap(Arena arena, boolean[] nulls) {
        MemorySegment bits = arena.allocate((nulls.length + 7) / 8 + 1);
        for (int i = 0; i < nulls.length; i++) {
            if (!nulls[i]) {
                bits.set(JAVA_BYTE, i / 8, (byte) (bits.get(JAVA_BYTE, i / 8) | 1 << (i % 8)));
            }
        }
        return bits;
    }

    private static MemorySegment text(Arena arena, String text) {
        return text == null ? MemorySegment.NULL : arena.allocateFrom(text);
    }

    /** Strings as UTF-8 bytes back to back and {@code n + 1} offsets (null elements are empty). */
    private record Utf8(byte[] bytes, long[] offsets) {
        static Utf8 of(String[] values) {
            byte[][] encoded = new byte[values.length][];
            long[] offsets = new long[values.length + 1];
            long total = 0;
            for (int i = 0; i < values.length; i++) {
                encoded[i] = values[i] == null ? new byte[0] : values[i].getBytes(StandardCharsets.UTF_8);
                total += encoded[i].length;
                offsets[i + 1] = total;
            }
            byte[] bytes = new byte[Math.toIntExact(total)];
            for (int i = 0; i < values.length; i++) {
                System.arraycopy(encoded[i], 0, bytes, (int) offsets[i], encoded[i].length);
            }
            return new Utf8(bytes, offsets);
        }
    }

    // ---------------------------------------------------------------------------------------
    // What the column is

    /** @return the number of rows */
    public long length() {
        return length;
    }

    /** @return the column's type */
    public DataType dataType() {
        return dataType;
    }

    /** @return the number of null rows */
    public long nullCount() {
        return handle.size(Native.COLUMN_NULL_COUNT);
    }

    /** @return the encoding's name ({@code bitpacked}, {@code frame}, {@code dictionary}, {@code run_end}, {@code delta}, {@code constant}, {@code alp}, {@code fsst}) */
    public String encoding() {
        return handle.text(Native.COLUMN_ENCODING);
    }

    /** @return why the column has its encoding: every candidate's estimated and real size, and the decision */
    public String explanation() {
        return handle.text(Native.COLUMN_EXPLANATION);
    }

    /** @return where the column's memory is and how much, by role, as readable lines */
    public String memoryReport() {
        return handle.text(Native.COLUMN_MEMORY_REPORT_TEXT);
    }

    /** @return the placement of the column's memory */
    public Placement placement() {
        return Placement.parse(handle.text(Native.COLUMN_PLACEMENT));
    }

    /** @return bytes of memory the column occupies (every replica, whole pages) */
    public long memoryBytes() {
        return handle.size(Native.COLUMN_MEMORY_BYTES);
    }

    /** @return bytes of the encoded data densely packed in one copy */
    public long packedBytes() {
        return handle.size(Native.COLUMN_PACKED_BYTES);
    }

    // ---------------------------------------------------------------------------------------
    // Reading rows

    private static void checkRow(long row) {
        if (row < 0) {
            throw new IndexOutOfBoundsException("a row index is never negative, got " + row);
        }
    }

    /**
     * Reads row {@code row} through {@code sa_column_get_*} into this thread's scratch slot: the
     * value at offset 0 and, when {@code withValid}, whether the row is valid at offset 8 (without
     * it, a null row is {@code INVALID_ARGUMENT}).
     */
    private MemorySegment readRow(MethodHandle get, long row, boolean withValid) {
        checkRow(row);
        try {
            MemorySegment slot = NativeHandle.scratch();
            MemorySegment valid = withValid ? slot.asSlice(8) : MemorySegment.NULL;
            Native.check((int) get.invokeExact(handle.get(), row, slot, valid));
            return slot;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private MethodHandle longGet() {
        return dataType == DataType.UINT64 ? Native.COLUMN_GET_U64 : Native.COLUMN_GET_I64;
    }

    /**
     * @param row a row index
     * @return the row of a signed or unsigned 64-bit column
     * @throws SmartArrayException {@code INDEX_OUT_OF_RANGE} past the end, {@code INVALID_ARGUMENT} for a null row,
     *     {@code TYPE_MISMATCH} for another type
     */
    public long getLong(long row) {
        return readRow(longGet(), row, false).get(JAVA_LONG, 0);
    }

    /**
     * @param row a row index
     * @return the row of a double column (the exact bit pattern stored)
     * @throws SmartArrayException as for {@link #getLong(long)}
     */
    public double getDouble(long row) {
        return readRow(Native.COLUMN_GET_F64, row, false).get(JAVA_DOUBLE, 0);
    }

    /**
     * @param row a row index
     * @return the row of a string column, {@code null} for a null row
     * @throws SmartArrayException {@code INDEX_OUT_OF_RANGE} past the end, {@code TYPE_MISMATCH} for another type
     */
    public String getString(long row) {
        checkRow(row);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment len = arena.allocate(JAVA_LONG);
            MemorySegment valid = arena.allocate(JAVA_BOOLEAN);
            long capacity = 64;
            while (true) {
                MemorySegment buffer = arena.allocate(capacity);
                int status = (int) Native.COLUMN_GET_UTF8.invokeExact(handle.get(), row, buffer, capacity, len, valid);
                if (status == SmartArrayException.Status.BUFFER_TOO_SMALL.ordinal()) {
                    capacity = len.get(JAVA_LONG, 0) + 1;
                    continue;
                }
                Native.check(status);
                if (!valid.get(JAVA_BOOLEAN, 0)) {
                    return null;
                }
                byte[] bytes = buffer.asSlice(0, len.get(JAVA_LONG, 0)).toArray(JAVA_BYTE);
                return new String(bytes, StandardCharsets.UTF_8);
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * @param row a row index
     * @return the row of a boolean column
     * @throws SmartArrayException {@code INDEX_OUT_OF_RANGE} past the end, {@code INVALID_ARGUMENT} for a null row,
     *     {@code TYPE_MISMATCH} for another type
     */
    public boolean getBoolean(long row) {
        return readRow(Native.COLUMN_GET_BOOL, row, false).get(JAVA_BOOLEAN, 0);
    }

    /**
     * @param row a row index
     * @return the row of a date column, {@code null} for a null row
     * @throws SmartArrayException {@code INDEX_OUT_OF_RANGE} past the end, {@code TYPE_MISMATCH} for another type
     */
    public LocalDate getDate(long row) {
        MemorySegment slot = readRow(Native.COLUMN_GET_DATE32, row, true);
        return slot.get(JAVA_BOOLEAN, 8) ? LocalDate.ofEpochDay(slot.get(JAVA_INT, 0)) : null;
    }

    /**
     * @param row a row index
     * @return the row of a decimal column at the column's scale, {@code null} for a null row
     * @throws SmartArrayException {@code INDEX_OUT_OF_RANGE} past the end, {@code TYPE_MISMATCH} for another type
     */
    public BigDecimal getDecimal(long row) {
        checkRow(row);
        int scale = decimalScale();
        MemorySegment slot = readRow(Native.COLUMN_GET_DECIMAL, row, true);
        return slot.get(JAVA_BOOLEAN, 8) ? BigDecimal.valueOf(slot.get(JAVA_LONG, 0), scale) : null;
    }

    /**
     * @return the digits after the point of a decimal column (0 to 18)
     * @throws SmartArrayException {@code TYPE_MISMATCH} for another type
     */
    public int decimalScale() {
        try {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.COLUMN_DECIMAL_SCALE.invokeExact(handle.get(), slot));
            return Byte.toUnsignedInt(slot.get(JAVA_BYTE, 0));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * @param row a row index
     * @return the row as a {@link Long}, {@link Double}, {@link String}, {@link Boolean}, {@link LocalDate} or
     *     {@link BigDecimal}, or {@code null} for a null row
     * @throws SmartArrayException {@code INDEX_OUT_OF_RANGE} past the end
     */
    public Object get(long row) {
        checkRow(row);
        return switch (dataType) {
            case UTF8 -> getString(row);
            case INT64, UINT64 -> {
                MemorySegment slot = readRow(longGet(), row, true);
                yield slot.get(JAVA_BOOLEAN, 8) ? (Object) slot.get(JAVA_LONG, 0) : null;
            }
            case FLOAT64 -> {
                MemorySegment slot = readRow(Native.COLUMN_GET_F64, row, true);
                yield slot.get(JAVA_BOOLEAN, 8) ? (Object) slot.get(JAVA_DOUBLE, 0) : null;
            }
            case DATE32 -> getDate(row);
            case DECIMAL -> getDecimal(row);
            case BOOL -> {
                MemorySegment slot = readRow(Native.COLUMN_GET_BOOL, row, true);
                yield slot.get(JAVA_BOOLEAN, 8) ? (Object) slot.get(JAVA_BOOLEAN, 0) : null;
            }
        };
    }

    /**
     * @param row a row index
     * @return whether the row is null
     */
    public boolean isNull(long row) {
        return get(row) == null;
    }

    /** @return one flag per row, {@code true} for a null row */
    public boolean[] nullMask() {
        boolean[] mask = new boolean[Math.toIntExact(length)];
        Selection nulls = filterNull(true);
        for (long row : nulls.rowIds()) {
            mask[(int) row] = true;
        }
        return mask;
    }

    /**
     * Decodes every row of a signed or unsigned 64-bit column.
     *
     * @return the values
     * @throws SmartArrayException {@code INVALID_ARGUMENT} when a row is null (use {@link #toLongArray(long)}),
     *     {@code TYPE_MISMATCH} for another type
     */
    public long[] toLongArray() {
        return decodeLongs(false, 0);
    }

    /**
     * Decodes every row of a signed or unsigned 64-bit column, null rows as {@code whenNull}.
     *
     * @param whenNull the value for null rows
     * @return the values
     */
    public long[] toLongArray(long whenNull) {
        return decodeLongs(true, whenNull);
    }

    private long[] decodeLongs(boolean fillNulls, long whenNull) {
        MethodHandle unpack = dataType == DataType.UINT64 ? Native.COLUMN_UNPACK_U64 : Native.COLUMN_UNPACK_I64;
        try (Arena arena = Arena.ofConfined()) {
            return decodeAll(arena, unpack, JAVA_LONG, fillNulls ? (out, i) -> out.setAtIndex(JAVA_LONG, i, whenNull) : null)
                    .toArray(JAVA_LONG);
        }
    }

    /** Writes the stand-in value of null row {@code index} into the decoded values. */
    private interface NullFill {
        void fill(MemorySegment values, long index);
    }

    /**
     * Decodes every row through {@code sa_column_unpack_*} into values of {@code layout}: with a
     * {@code fill}, null rows get its stand-in; without one, a null row is {@code INVALID_ARGUMENT}.
     */
    private MemorySegment decodeAll(Arena arena, MethodHandle unpack, ValueLayout layout, NullFill fill) {
        int n = Math.toIntExact(length);
        try {
            MemorySegment out = arena.allocate(layout, Math.max(1, n));
            MemorySegment valid = fill != null ? arena.allocate(n / 8 + 1) : MemorySegment.NULL;
            Native.check((int) unpack.invokeExact(handle.get(), 0L, out, (long) n, valid));
            if (fill != null) {
                for (int i = 0; i < n; i++) {
                    if (!isValid(valid, i)) {
                        fill.fill(out, i);
                    }
                }
            }
            return out.asSlice(0, n * layout.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** Whether bit {@code i} of a C validity bitmap is set (row {@code i} is valid). */
    private static boolean isValid(MemorySegment bitmap, int i) {
        return (bitmap.get(JAVA_BYTE, i / 8) >> (i % 8) & 1) != 0;
    }

    /**
     * Decodes every row of a double column.
     *
     * @return the values (exact bit patterns)
     * @throws SmartArrayException {@code INVALID_ARGUMENT} when a row is null (use {@link #toDoubleArray(double)}),
     *     {@code TYPE_MISMATCH} for another type
     */
    public double[] toDoubleArray() {
        return decodeDoubles(false, 0);
    }

    /**
     * Decodes every row of a double column, null rows as {@code whenNull}.
     *
     * @param whenNull the value for null rows
     * @return the values
     */
    public double[] toDoubleArray(double whenNull) {
        return decodeDoubles(true, whenNull);
    }

    private double[] decodeDoubles(boolean fillNulls, double whenNull) {
        try (Arena arena = Arena.ofConfined()) {
            NullFill fill = fillNulls ? (out, i) -> out.setAtIndex(JAVA_DOUBLE, i, whenNull) : null;
            return decodeAll(arena, Native.COLUMN_UNPACK_F64, JAVA_DOUBLE, fill).toArray(JAVA_DOUBLE);
        }
    }

    /**
     * Decodes every row of a string column.
     *
     * @return the strings, {@code null} for null rows
     * @throws SmartArrayException {@code TYPE_MISMATCH} for another type
     */
    public String[] toStringArray() {
        return decodeStrings(null, Math.toIntExact(length));
    }

    /** Decodes strings: rows {@code 0 .. count} ({@code indices == null}) or the rows {@code indices}. */
    private String[] decodeStrings(long[] indices, int count) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rows = indices == null ? MemorySegment.NULL : arena.allocateFrom(JAVA_LONG, indices);
            MemorySegment offsets = arena.allocate(JAVA_LONG, count + 1L);
            MemorySegment valid = arena.allocate(count / 8 + 1);
            MemorySegment needed = arena.allocate(JAVA_LONG);
            MemorySegment bytes = MemorySegment.NULL;
            long capacity = 0;
            while (true) {
                int status = indices == null
                        ? (int) Native.COLUMN_UNPACK_UTF8.invokeExact(handle.get(), 0L, (long) count, offsets, bytes, capacity, needed, valid)
                        : (int) Native.COLUMN_TAKE_UTF8.invokeExact(handle.get(), rows, (long) count, offsets, bytes, capacity, needed, valid);
                if (status == SmartArrayException.Status.BUFFER_TOO_SMALL.ordinal() && capacity < needed.get(JAVA_LONG, 0)) {
                    capacity = needed.get(JAVA_LONG, 0);
                    bytes = arena.allocate(capacity);
                    continue;
                }
                Native.check(status);
                break;
            }
            String[] strings = new String[count];
            for (int i = 0; i < count; i++) {
                if (isValid(valid, i)) {
                    long start = offsets.getAtIndex(JAVA_LONG, i);
                    long end = offsets.getAtIndex(JAVA_LONG, i + 1);
                    strings[i] = new String(bytes.asSlice(start, end - start).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
                }
            }
            return strings;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * The rows {@code rows} (any order, repeats allowed) of a signed or unsigned 64-bit column.
     *
     * @param rows row indices, e.g. {@link Selection#rowIds()}
     * @return their values
     * @throws SmartArrayException {@code INDEX_OUT_OF_RANGE} naming the first row past the end,
     *     {@code INVALID_ARGUMENT} when one of them is null
     */
    public long[] takeLongs(long[] rows) {
        MethodHandle take = dataType == DataType.UINT64 ? Native.COLUMN_TAKE_U64 : Native.COLUMN_TAKE_I64;
        try (Arena arena = Arena.ofConfined()) {
            return take(arena, take, JAVA_LONG, rows).toArray(JAVA_LONG);
        }
    }

    /**
     * The rows {@code rows} of a double column.
     *
     * @param rows row indices
     * @return their values
     * @throws SmartArrayException as for {@link #takeLongs(long[])}
     */
    public double[] takeDoubles(long[] rows) {
        try (Arena arena = Arena.ofConfined()) {
            return take(arena, Native.COLUMN_TAKE_F64, JAVA_DOUBLE, rows).toArray(JAVA_DOUBLE);
        }
    }

    /** Decodes the rows {@code rows} through {@code sa_column_take_*} into values of {@code layout} (a null row is refused). */
    private MemorySegment take(Arena arena, MethodHandle take, ValueLayout layout, long[] rows) {
        Objects.requireNonNull(rows, "rows");
        try {
            MemorySegment out = arena.allocate(layout, Math.max(1, rows.length));
            Native.check((int) take.invokeExact(handle.get(), indices(arena, rows), (long) rows.length, out, MemorySegment.NULL));
            return out.asSlice(0, rows.length * layout.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * The rows {@code rows} of a string column.
     *
     * @param rows row indices
     * @return their strings, {@code null} for null rows
     * @throws SmartArrayException {@code INDEX_OUT_OF_RANGE} naming the first row past the end
     */
    public String[] takeStrings(long[] rows) {
        Objects.requireNonNull(rows, "rows");
        for (long row : rows) {
            checkRow(row);
        }
        return decodeStrings(rows, rows.length);
    }

    private static MemorySegment indices(Arena arena, long[] rows) {
        for (long row : rows) {
            checkRow(row);
        }
        return rows.length == 0 ? MemorySegment.NULL : arena.allocateFrom(JAVA_LONG, rows);
    }

    // ---------------------------------------------------------------------------------------
    // Filters

    private interface Filter {
        int call(MemorySegment column, MemorySegment out) throws Throwable;
    }

    /** Runs a C filter and copies its selection into Java (the native selection is freed). */
    private Selection filter(Filter filter) {
        try {
            MemorySegment out = NativeHandle.scratch();
            Native.check(filter.call(handle.get(), out));
            MemorySegment selection = out.get(ADDRESS, 0);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment rows = arena.allocate(JAVA_LONG);
                Native.check((int) Native.SELECTION_ROWS.invokeExact(selection, rows));
                long count = rows.get(JAVA_LONG, 0);
                long words = (count + 63) / 64;
                MemorySegment bits = arena.allocate(JAVA_LONG, Math.max(1, words));
                Native.check((int) Native.SELECTION_WORDS.invokeExact(selection, bits, words));
                return new Selection(bits.asSlice(0, words * Long.BYTES).toArray(JAVA_LONG), count);
            } finally {
                Native.SELECTION_FREE.invokeExact(selection);
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * The rows equal to {@code value} (null rows never match). On an unsigned column the value is
     * read as 64 unsigned bits.
     *
     * @param value the value
     * @return the matching rows
     * @throws SmartArrayException {@code TYPE_MISMATCH} for a double or string column
     */
    public Selection filterEquals(long value) {
        MethodHandle eq = dataType == DataType.UINT64 ? Native.COLUMN_FILTER_EQ_U64 : Native.COLUMN_FILTER_EQ_I64;
        return filter((column, out) -> (int) eq.invokeExact(column, value, out));
    }

    /**
     * The rows of a double column equal to {@code value}, bit for bit (NaN matches the same NaN,
     * -0.0 does not match 0.0).
     *
     * @param value the value
     * @return the matching rows
     */
    public Selection filterEquals(double value) {
        return filter((column, out) -> (int) Native.COLUMN_FILTER_EQ_F64.invokeExact(column, value, out));
    }

    /**
     * The rows of a string column equal to {@code value}.
     *
     * @param value the string
     * @return the matching rows
     */
    public Selection filterEquals(String value) {
        byte[] bytes = Objects.requireNonNull(value, "value").getBytes(StandardCharsets.UTF_8);
        return filterText(Native.COLUMN_FILTER_EQ_UTF8, bytes);
    }

    /**
     * The rows of a string column that start with {@code prefix}.
     *
     * @param prefix the prefix
     * @return the matching rows
     * @throws SmartArrayException {@code UNSUPPORTED} for a numeric column
     */
    public Selection filterPrefix(String prefix) {
        byte[] bytes = Objects.requireNonNull(prefix, "prefix").getBytes(StandardCharsets.UTF_8);
        return filterText(Native.COLUMN_FILTER_PREFIX_UTF8, bytes);
    }

    private Selection filterText(MethodHandle function, byte[] bytes) {
        return filterList(function, bytes.length, arena -> arena.allocateFrom(JAVA_BYTE, bytes));
    }

    /** Runs {@code f(column, list, count, &out)} over {@code count} elements copied to native memory ({@code NULL} for none). */
    private Selection filterList(MethodHandle function, int count, Values list) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment elements = count == 0 ? MemorySegment.NULL : list.copy(arena);
            return filter((column, out) -> (int) function.invokeExact(column, elements, (long) count, out));
        }
    }

    /**
     * The rows with {@code lo <= value <= hi} (both ends included; nothing when {@code lo > hi}).
     * On an unsigned column the bounds are read as unsigned.
     *
     * @param lo the smallest value selected
     * @param hi the largest value selected
     * @return the matching rows
     */
    public Selection filterRange(long lo, long hi) {
        MethodHandle range = dataType == DataType.UINT64 ? Native.COLUMN_FILTER_RANGE_U64 : Native.COLUMN_FILTER_RANGE_I64;
        return filter((column, out) -> (int) range.invokeExact(column, lo, hi, out));
    }

    /**
     * The rows of a double column with {@code lo <= value <= hi} in IEEE total order (-0.0 is below 0.0).
     *
     * @param lo the smallest value selected
     * @param hi the largest value selected
     * @return the matching rows
     */
    public Selection filterRange(double lo, double hi) {
        return filter((column, out) -> (int) Native.COLUMN_FILTER_RANGE_F64.invokeExact(column, lo, hi, out));
    }

    /**
     * The rows equal to any of {@code values} (none for an empty list).
     *
     * @param values the values
     * @return the matching rows
     */
    public Selection filterIn(long... values) {
        Objects.requireNonNull(values, "values");
        MethodHandle in = dataType == DataType.UINT64 ? Native.COLUMN_FILTER_IN_U64 : Native.COLUMN_FILTER_IN_I64;
        return filterList(in, values.length, arena -> arena.allocateFrom(JAVA_LONG, values));
    }

    /**
     * The rows of a double column equal to any of {@code values}, bit for bit.
     *
     * @param values the values
     * @return the matching rows
     */
    public Selection filterIn(double... values) {
        Objects.requireNonNull(values, "values");
        return filterList(Native.COLUMN_FILTER_IN_F64, values.length, arena -> arena.allocateFrom(JAVA_DOUBLE, values));
    }

    /**
     * The rows of a string column equal to any of {@code values}.
     *
     * @param values the strings (no {@code null})
     * @return the matching rows
     */
    public Selection filterIn(String... values) {
        Objects.requireNonNull(values, "values");
        for (String value : values) {
            Objects.requireNonNull(value, "values contains null");
        }
        Utf8 strings = Utf8.of(values);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bytes = strings.bytes.length == 0 ? MemorySegment.NULL : arena.allocateFrom(JAVA_BYTE, strings.bytes);
            MemorySegment offsets = arena.allocateFrom(JAVA_LONG, strings.offsets);
            return filter((column, out) -> (int) Native.COLUMN_FILTER_IN_UTF8.invokeExact(column, bytes, (long) strings.bytes.length,
                    offsets, (long) values.length, out));
        }
    }

    /**
     * @param isNull {@code true} for the null rows, {@code false} for the valid ones
     * @return those rows
     */
    public Selection filterNull(boolean isNull) {
        return filter((column, out) -> (int) Native.COLUMN_FILTER_NULL.invokeExact(column, isNull, out));
    }

    // ---------------------------------------------------------------------------------------
    // Aggregates

    /**
     * The exact sum of the valid values of an integer column (nulls skipped; 0 when empty). On an
     * unsigned column the result is 64 unsigned bits.
     *
     * @return the sum
     * @throws SmartArrayException {@code OVERFLOW} when it does not fit a {@code long} (unsigned: 64 bits;
     *     see {@link #sumExact()}), {@code TYPE_MISMATCH} for doubles ({@link #sumDouble()}), {@code UNSUPPORTED}
     *     for strings
     */
    public long sum() {
        return handle.size(dataType == DataType.UINT64 ? Native.COLUMN_SUM_U64 : Native.COLUMN_SUM_I64);
    }

    /**
     * @return the exact sum of the valid values of an integer column, however large
     * @throws SmartArrayException as for {@link #sum()}, but never {@code OVERFLOW} for a signed column
     */
    public BigInteger sumExact() {
        try {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.COLUMN_SUM_I128.invokeExact(handle.get(), slot, slot.asSlice(8)));
            BigInteger low = new BigInteger(Long.toUnsignedString(slot.get(JAVA_LONG, 0)));
            return BigInteger.valueOf(slot.get(JAVA_LONG, 8)).shiftLeft(64).add(low);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * @return the exact sum of the valid values of a decimal column, at the column's scale
     * @throws SmartArrayException {@code TYPE_MISMATCH} for another type
     */
    public BigDecimal sumDecimal() {
        int scale = decimalScale();
        return new BigDecimal(sumExact(), scale);
    }

    /**
     * @return the sum of the valid values of a double column, added in row order
     * @throws SmartArrayException {@code TYPE_MISMATCH} for other types
     */
    public double sumDouble() {
        try {
            MemorySegment slot = NativeHandle.scratch();
            Native.check((int) Native.COLUMN_SUM_F64.invokeExact(handle.get(), slot));
            return slot.get(JAVA_DOUBLE, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** Runs a min/max function; {@code null} when the column has no valid value. */
    private MemorySegment minMax(MethodHandle function) {
        try {
            MemorySegment slot = NativeHandle.scratch();
            int status = (int) function.invokeExact(handle.get(), slot, slot.asSlice(8));
            if (status == SmartArrayException.Status.EMPTY_ARRAY.ordinal()) {
                return null;
            }
            Native.check(status);
            return slot;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private MethodHandle longMinMax() {
        return dataType == DataType.UINT64 ? Native.COLUMN_MIN_MAX_U64 : Native.COLUMN_MIN_MAX_I64;
    }

    /** @return the smallest valid value of an integer column (unsigned order on an unsigned column), empty when there is none */
    public OptionalLong minLong() {
        MemorySegment slot = minMax(longMinMax());
        return slot == null ? OptionalLong.empty() : OptionalLong.of(slot.get(JAVA_LONG, 0));
    }

    /** @return the largest valid value of an integer column, empty when there is none */
    public OptionalLong maxLong() {
        MemorySegment slot = minMax(longMinMax());
        return slot == null ? OptionalLong.empty() : OptionalLong.of(slot.get(JAVA_LONG, 8));
    }

    /** @return the smallest valid value of a double column in IEEE total order, empty when there is none */
    public OptionalDouble minDouble() {
        MemorySegment slot = minMax(Native.COLUMN_MIN_MAX_F64);
        return slot == null ? OptionalDouble.empty() : OptionalDouble.of(slot.get(JAVA_DOUBLE, 0));
    }

    /** @return the largest valid value of a double column in IEEE total order (a positive NaN is the largest) */
    public OptionalDouble maxDouble() {
        MemorySegment slot = minMax(Native.COLUMN_MIN_MAX_F64);
        return slot == null ? OptionalDouble.empty() : OptionalDouble.of(slot.get(JAVA_DOUBLE, 8));
    }

    // ---------------------------------------------------------------------------------------
    // Lifetime

    /** @return whether {@link #close()} has run (or the cleaner has freed the column) */
    public boolean isClosed() {
        return handle.isClosed();
    }

    /**
     * Frees the native column. Repeated calls do nothing; afterwards every method throws {@link IllegalStateException}.
     *
     * @throws IllegalStateException when another thread is inside a native call on this column (it stays open)
     */
    @Override
    public void close() {
        handle.close();
    }

    @Override
    public String toString() {
        return "EncodedColumn[" + dataType + ", length=" + length + (isClosed() ? ", closed]" : ", " + encoding() + "]");
    }
}
