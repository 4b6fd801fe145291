// EncodedColumn against plain Java references: every value, filter, sum, minimum and maximum at
// edge lengths, for every encoding that applies, with extreme values (Long.MIN_VALUE/MAX_VALUE,
// unsigned 2^64 - 1, NaN, -0.0, infinities), with and without nulls; errors carry the C ABI's
// status and message; use after close is an IllegalStateException.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

class EncodedColumnTest {
    static final int[] LENGTHS = {0, 1, 63, 64, 65, 1023, 1025};
    static final String[] INT_ENCODINGS = {null, "auto", "bitpacked", "frame", "dictionary", "run_end"};

    private static SmartArrayException.Status statusOf(Runnable call) {
        return assertThrows(SmartArrayException.class, call::run).status();
    }

    static long value(int i, int shape) {
        return switch (shape) {
            case 0 -> switch (i % 6) {
                case 0 -> Long.MIN_VALUE;
                case 1 -> Long.MAX_VALUE;
                case 2 -> -1;
                case 3 -> 0;
                default -> i * 7919L - 4000;
            };
            case 1 -> 1_000_000 + i % 50;
            default -> i / 100 - 3;
        };
    }

    /** The rows of {@code 0..length} where {@code keep} holds. */
    static long[] rowsWhere(int length, LongPredicate keep) {
        List<Long> rows = new ArrayList<>();
        for (int i = 0; i < length; i++) {
            if (keep.test(i)) {
                rows.add((long) i);
            }
        }
        return rows.stream().mapToLong(Long::longValue).toArray();
    }

    @Test
    void longColumnsMatchTheReference() {
        for (int length : LENGTHS) {
            for (int shape = 0; shape < 3; shape++) {
                long[] values = new long[length];
                for (int i = 0; i < length; i++) {
                    values[i] = value(i, shape);
                }
                boolean[] nulls = new boolean[length];
                for (int i = 0; i < length; i++) {
                    nulls[i] = i % 3 == 1;
                }
                for (String encoding : INT_ENCODINGS) {
                    for (boolean withNulls : new boolean[] {false, true}) {
                        String where = "length " + length + " shape " + shape + " encoding " + encoding + (withNulls ? " with nulls" : "");
                        boolean[] mask = withNulls ? nulls : null;
                        try (EncodedColumn column = EncodedColumn.ofLongs(values, mask, encoding, Placement.osDefault())) {
                            check(column, values, withNulls ? nulls : new boolean[length], encoding, where);
                        }
                    }
                }
            }
        }
    }

    private static void check(EncodedColumn column, long[] values, boolean[] nulls, String encoding, String where) {
        int length = values.length;
        assertEquals(length, column.length(), where);
        assertEquals(EncodedColumn.DataType.INT64, column.dataType(), where);
        if (encoding != null && !encoding.equals("auto")) {
            assertEquals(encoding, column.encoding(), where);
        }
        assertTrue(column.explanation().contains(column.encoding()), where);
        assertTrue(column.memoryBytes() >= column.packedBytes(), where);
        long nullCount = 0;
        BigInteger sum = BigInteger.ZERO;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < length; i++) {
            if (nulls[i]) {
                nullCount++;
                assertNull(column.get(i), where);
                assertTrue(column.isNull(i), where);
                final int row = i;
                assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, statusOf(() -> column.getLong(row)), where);
            } else {
                assertEquals(values[i], column.getLong(i), where);
                assertEquals(values[i], column.get(i), where);
                sum = sum.add(BigInteger.valueOf(values[i]));
                min = Math.min(min, values[i]);
                max = Math.max(max, values[i]);
            }
        }
        assertEquals(nullCount, column.nullCount(), where);
        assertArrayEquals(nulls, column.nullMask(), where);
        long[] filled = values.clone();
        for (int i = 0; i < length; i++) {
            if (nulls[i]) {
                filled[i] = 42;
            }
        }
        assertArrayEquals(filled, column.toLongArray(42), where);
        if (nullCount == 0) {
            assertArrayEquals(values, column.toLongArray(), where);
        } else {
            assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, statusOf(column::toLongArray), where);
        }
        assertEquals(SmartArrayException.Status.INDEX_OUT_OF_RANGE, statusOf(() -> column.getLong(length)), where);
        assertEquals(sum, column.sumExact(), where);
        if (sum.bitLength() < 64) {
            assertEquals(sum.longValueExact(), column.sum(), where);
        } else {
            SmartArrayException overflow = assertThrows(SmartArrayException.class, column::sum, where);
            assertEquals(SmartArrayException.Status.OVERFLOW, overflow.status(), where);
            assertTrue(overflow.getMessage().contains("does not fit"), overflow.getMessage());
        }
        assertEquals(length > nullCount ? OptionalLong.of(min) : OptionalLong.empty(), column.minLong(), where);
        assertEquals(length > nullCount ? OptionalLong.of(max) : OptionalLong.empty(), column.maxLong(), where);

        long probe = length > 0 ? values[length / 2] : 7;
        Selection equal = column.filterEquals(probe);
        assertArrayEquals(rowsWhere(length, i -> !nulls[(int) i] && values[(int) i] == probe), equal.rowIds(), where);
        assertEquals(length, equal.rows(), where);
        Selection range = column.filterRange(-1000, 1_000_010);
        long[] inRange = rowsWhere(length, i -> !nulls[(int) i] && values[(int) i] >= -1000 && values[(int) i] <= 1_000_010);
        assertArrayEquals(inRange, range.rowIds(), where);
        BitSet bits = range.toBitSet();
        assertEquals(inRange.length, bits.cardinality(), where);
        for (long row : inRange) {
            assertTrue(bits.get((int) row) && range.contains(row), where);
        }
        long[] list = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -3, 1_000_007};
        long[] inList = rowsWhere(length, i -> {
            if (nulls[(int) i]) {
                return false;
            }
            for (long v : list) {
                if (values[(int) i] == v) {
                    return true;
                }
            }
            return false;
        });
        assertArrayEquals(inList, column.filterIn(list).rowIds(), where);
        assertEquals(0, column.filterIn(new long[0]).count(), where);
        assertArrayEquals(rowsWhere(length, i -> nulls[(int) i]), column.filterNull(true).rowIds(), where);
        long[] valid = rowsWhere(length, i -> !nulls[(int) i]);
        long[] taken = column.takeLongs(valid);
        for (int k = 0; k < valid.length; k++) {
            assertEquals(values[(int) valid[k]], taken[k], where);
        }
        int[] ints = column.filterNull(false).rowIdsAsInts();
        assertEquals(valid.length, ints.length, where);
        assertEquals(SmartArrayException.Status.UNSUPPORTED, statusOf(() -> column.filterPrefix("a")), where);
        assertEquals(SmartArrayException.Status.TYPE_MISMATCH, statusOf(() -> column.filterEquals("a")), where);
        assertEquals(SmartArrayException.Status.TYPE_MISMATCH, statusOf(column::sumDouble), where);
    }

    @Test
    void unsignedColumnsKeepEverySixtyFourBitPattern() {
        for (int length : LENGTHS) {
            long[] values = new long[length];
            for (int i = 0; i < length; i++) {
                values[i] = i % 4 == 0 ? -1L : i * 3L; // -1L is 2^64 - 1
            }
            for (String encoding : INT_ENCODINGS) {
                try (EncodedColumn column = EncodedColumn.ofUnsignedLongs(values, null, encoding, Placement.interleaved())) {
                    assertEquals(EncodedColumn.DataType.UINT64, column.dataType());
                    assertArrayEquals(values, column.toLongArray());
                    BigInteger sum = BigInteger.ZERO;
                    for (long v : values) {
                        sum = sum.add(new BigInteger(Long.toUnsignedString(v)));
                    }
                    assertEquals(sum, column.sumExact());
                    if (sum.bitLength() <= 64) {
                        assertEquals(sum.longValue(), column.sum());
                    } else {
                        assertEquals(SmartArrayException.Status.OVERFLOW, statusOf(column::sum));
                    }
                    if (length > 0) {
                        assertEquals(-1L, column.maxLong().getAsLong(), "unsigned order: 2^64 - 1 is the largest");
                    }
                    assertEquals(rowsWhere(length, i -> values[(int) i] == -1L).length, column.filterEquals(-1L).count());
                    assertEquals(rowsWhere(length, i -> values[(int) i] >= 3 && values[(int) i] <= 300).length,
                            column.filterRange(3, 300).count());
                }
            }
        }
    }

    @Test
    void doubleColumnsKeepNanNegativeZeroAndInfinities() {
        double[] specials = {Double.NaN, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0};
        for (int length : LENGTHS) {
            double[] values = new double[length];
            for (int i = 0; i < length; i++) {
                values[i] = i % 8 < specials.length ? specials[i % 8] : (i % 100) * 0.25 - 3.5;
            }
            for (String encoding : new String[] {null, "alp", "bitpacked", "dictionary"}) {
                try (EncodedColumn column = EncodedColumn.ofDoubles(values, null, encoding, Placement.replicated())) {
                    double[] back = column.toDoubleArray();
                    for (int i = 0; i < length; i++) {
                        assertEquals(Double.doubleToRawLongBits(values[i]), Double.doubleToRawLongBits(back[i]));
                        assertEquals(Double.doubleToRawLongBits(values[i]), Double.doubleToRawLongBits(column.getDouble(i)));
                    }
                    assertEquals(rowsWhere(length, i -> Double.isNaN(values[(int) i])).length, column.filterEquals(Double.NaN).count());
                    assertEquals(rowsWhere(length, i -> Double.doubleToRawLongBits(values[(int) i]) == Double.doubleToRawLongBits(-0.0)).length,
                            column.filterEquals(-0.0).count());
                    assertEquals(rowsWhere(length, i -> values[(int) i] >= -1 && values[(int) i] <= 2).length, column.filterRange(-1.0, 2.0).count());
                    assertEquals(rowsWhere(length, i -> values[(int) i] == 0.25 || values[(int) i] == 1.5).length,
                            column.filterIn(0.25, 1.5).count());
                    if (length >= 4) {
                        assertEquals(Double.NEGATIVE_INFINITY, column.minDouble().getAsDouble());
                        assertTrue(Double.isNaN(column.maxDouble().getAsDouble()));
                        assertTrue(Double.isNaN(column.sumDouble()));
                    }
                    if (length == 0) {
                        assertEquals(OptionalDouble.empty(), column.minDouble());
                        assertEquals(0.0, column.sumDouble());
                    }
                    assertEquals(SmartArrayException.Status.TYPE_MISMATCH, statusOf(column::sum));
                }
            }
        }
        double[] prices = new double[1025];
        double reference = 0;
        for (int i = 0; i < prices.length; i++) {
            prices[i] = ((i * 37) % 2000) / 100.0 + 10.0;
            reference += prices[i];
        }
        boolean[] nulls = new boolean[prices.length];
        nulls[3] = true;
        try (EncodedColumn column = EncodedColumn.ofDoubles(prices, nulls, null, Placement.osDefault())) {
            assertEquals("alp", column.encoding());
            assertEquals(reference - prices[3], column.sumDouble(), 1e-9);
            assertEquals(-1.0, column.toDoubleArray(-1.0)[3]);
            assertNull(column.get(3));
        }
    }

    @Test
    void stringColumnsRoundTripAndFilter() {
        String[] words = {"apple", "apricot", "banana", "", "cherry", "été", "apple pie", "b"};
        for (int length : LENGTHS) {
            String[] values = new String[length];
            for (int i = 0; i < length; i++) {
                values[i] = i % 9 == 4 ? null : words[(i * 7 + i / 3) % words.length];
            }
            for (String encoding : new String[] {null, "dictionary", "fsst"}) {
                try (EncodedColumn column = EncodedColumn.ofStrings(values, encoding, Placement.osDefault())) {
                    assertEquals(EncodedColumn.DataType.UTF8, column.dataType());
                    if (encoding != null) {
                        assertEquals(encoding, column.encoding());
                    }
                    assertArrayEquals(values, column.toStringArray());
                    for (int i = 0; i < length; i++) {
                        assertEquals(values[i], column.getString(i));
                        assertEquals(values[i], column.get(i));
                    }
                    assertEquals(rowsWhere(length, i -> "apple".equals(values[(int) i])).length, column.filterEquals("apple").count());
                    assertArrayEquals(rowsWhere(length, i -> values[(int) i] != null && values[(int) i].startsWith("ap")),
                            column.filterPrefix("ap").rowIds());
                    assertEquals(rowsWhere(length, i -> "".equals(values[(int) i])).length, column.filterEquals("").count());
                    assertEquals(rowsWhere(length, i -> "b".equals(values[(int) i]) || "été".equals(values[(int) i])).length,
                            column.filterIn("b", "été", "zebra").count());
                    if (length > 2) {
                        assertArrayEquals(new String[] {values[length - 1], values[0], values[length - 1]},
                                column.takeStrings(new long[] {length - 1, 0, length - 1}));
                    }
                    assertEquals(SmartArrayException.Status.UNSUPPORTED, statusOf(column::sum));
                    assertEquals(SmartArrayException.Status.TYPE_MISMATCH, statusOf(() -> column.filterEquals(1L)));
                    assertEquals(SmartArrayException.Status.TYPE_MISMATCH, statusOf(column::minLong));
                }
            }
        }
        String longText = "x".repeat(10_000);
        try (EncodedColumn column = EncodedColumn.ofStrings(longText, "y")) {
            assertEquals(longText, column.getString(0));
        }
    }

    @Test
    void errorsCarryTheStatusAndMessage() {
        SmartArrayException unknown = assertThrows(SmartArrayException.class,
                () -> EncodedColumn.ofLongs(new long[] {1, 2}, null, "zstd", Placement.osDefault()));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, unknown.status());
        assertTrue(unknown.getMessage().contains("unknown encoding \"zstd\""), unknown.getMessage());
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT,
                statusOf(() -> EncodedColumn.ofLongs(new long[] {1, 2}, null, "constant", Placement.osDefault())));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT,
                statusOf(() -> EncodedColumn.ofStrings(new String[] {"a"}, "frame", Placement.osDefault())));
        assertEquals(SmartArrayException.Status.UNKNOWN_NODE,
                statusOf(() -> EncodedColumn.ofLongs(new long[] {1}, null, null, Placement.singleNode(4096))));
        assertThrows(IllegalArgumentException.class, () -> EncodedColumn.ofLongs(new long[] {1, 2}, new boolean[1], null, Placement.osDefault()));
        assertThrows(NullPointerException.class, () -> EncodedColumn.ofLongs((long[]) null));
        EncodedColumn column = EncodedColumn.ofLongs(new long[] {4, 5, 6});
        assertEquals(SmartArrayException.Status.INDEX_OUT_OF_RANGE, statusOf(() -> column.takeLongs(new long[] {0, 3})));
        assertThrows(IndexOutOfBoundsException.class, () -> column.getLong(-1));
        assertEquals(SmartArrayException.Status.TYPE_MISMATCH, statusOf(() -> column.getDouble(0)));
        assertEquals(Placement.osDefault(), column.placement());
        assertFalse(column.memoryReport().isEmpty());
        column.close();
        column.close();
        assertTrue(column.isClosed());
        assertThrows(IllegalStateException.class, () -> column.getLong(0));
        assertThrows(IllegalStateException.class, column::encoding);
        assertTrue(column.toString().contains("closed"));
        try (EncodedColumn empty = EncodedColumn.ofLongs()) {
            assertEquals(0, empty.length());
            assertEquals(0, empty.sum());
            assertEquals(OptionalLong.empty(), empty.minLong());
            assertEquals(0, empty.toLongArray().length);
        }
    }
    static final String[] SMALL_ENCODINGS = {null, "auto", "bitpacked", "dictionary", "run_end"};

    @Test
    void booleanDateAndDecimalColumnsMatchTheReference() {
        for (int length : LENGTHS) {
            boolean[] flags = new boolean[length];
            int[] days = new int[length];
            long[] unscaled = new long[length];
            boolean[] nulls = new boolean[length];
            for (int i = 0; i < length; i++) {
                flags[i] = (i * 7 / 3) % 2 == 1;
                days[i] = i % 5 == 0 ? Integer.MIN_VALUE : i % 5 == 1 ? Integer.MAX_VALUE : i * 37 - 20_000;
                unscaled[i] = i % 4 == 0 ? Long.MIN_VALUE : i % 4 == 1 ? Long.MAX_VALUE : i * 1999L - 1_000_000;
                nulls[i] = i % 3 == 1;
            }
            for (String encoding : SMALL_ENCODINGS) {
                for (boolean withNulls : new boolean[] {false, true}) {
                    boolean[] mask = withNulls ? nulls : null;
                    String where = "length " + length + ", " + encoding + ", nulls " + withNulls;
                    try (EncodedColumn b = EncodedColumn.ofBooleans(flags, mask, encoding, Placement.osDefault());
                            EncodedColumn d = EncodedColumn.ofEpochDays(days, mask, encoding, Placement.osDefault());
                            EncodedColumn m = EncodedColumn.ofDecimals(unscaled, 4, mask, encoding, Placement.osDefault())) {
                        assertEquals(EncodedColumn.DataType.BOOL, b.dataType(), where);
                        assertEquals(EncodedColumn.DataType.DATE32, d.dataType(), where);
                        assertEquals(EncodedColumn.DataType.DECIMAL, m.dataType(), where);
                        assertEquals(4, m.decimalScale(), where);
                        BigInteger sum = BigInteger.ZERO;
                        for (int i = 0; i < length; i++) {
                            boolean isNull = withNulls && nulls[i];
                            if (isNull) {
                                assertNull(b.get(i), where);
                                assertNull(d.getDate(i), where);
                                assertNull(m.getDecimal(i), where);
                                int row = i;
                                assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, statusOf(() -> b.getBoolean(row)), where);
                                continue;
                            }
                            assertEquals(flags[i], b.getBoolean(i), where);
                            assertEquals(flags[i], b.get(i), where);
                            assertEquals(LocalDate.ofEpochDay(days[i]), d.getDate(i), where);
                            assertEquals(LocalDate.ofEpochDay(days[i]), d.get(i), where);
                            assertEquals(BigDecimal.valueOf(unscaled[i], 4), m.getDecimal(i), where);
                            assertEquals(BigDecimal.valueOf(unscaled[i], 4), m.get(i), where);
                            sum = sum.add(BigInteger.valueOf(unscaled[i]));
                        }
                        assertEquals(sum, m.sumExact(), where);
                        assertEquals(new BigDecimal(sum, 4), m.sumDecimal(), where);
                    }
                }
            }
        }
    }

    @Test
    void decimalsAndDatesFromJavaValues() {
        try (EncodedColumn prices = EncodedColumn.ofDecimals(new BigDecimal("12.5"), null, new BigDecimal("-0.05"), new BigDecimal("1E+3"))) {
            assertEquals(2, prices.decimalScale());
            assertEquals(new BigDecimal("12.50"), prices.getDecimal(0));
            assertNull(prices.getDecimal(1));
            assertEquals(new BigDecimal("-0.05"), prices.getDecimal(2));
            assertEquals(new BigDecimal("1000.00"), prices.getDecimal(3));
            assertEquals(1, prices.nullCount());
            assertEquals(new BigDecimal("1012.45"), prices.sumDecimal());
        }
        LocalDate[] dates = {LocalDate.of(1992, 1, 2), null, LocalDate.of(1969, 12, 31), LocalDate.of(1970, 1, 1)};
        try (EncodedColumn column = EncodedColumn.ofDates(dates)) {
            for (int i = 0; i < dates.length; i++) {
                assertEquals(dates[i], column.getDate(i));
                assertEquals(dates[i], column.get(i));
            }
        }
        try (EncodedColumn column = EncodedColumn.ofBooleans(true, false, true)) {
            assertEquals(3, column.length());
            assertFalse(column.getBoolean(1));
            assertEquals(Boolean.TRUE, column.get(2));
        }
        IllegalArgumentException tooWide = assertThrows(IllegalArgumentException.class,
                () -> EncodedColumn.ofDecimals(new BigDecimal("92233720368547758.08")));
        assertTrue(tooWide.getMessage().contains("does not fit in 64 bits at scale 2"), tooWide.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EncodedColumn.ofDecimals(new BigDecimal("1.0000000000000000001")));
        assertThrows(IllegalArgumentException.class, () -> EncodedColumn.ofDates(LocalDate.MAX));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT,
                statusOf(() -> EncodedColumn.ofDecimals(new long[] {1}, 19, null, null, Placement.osDefault())));
        try (EncodedColumn longs = EncodedColumn.ofLongs(1, 2)) {
            assertEquals(SmartArrayException.Status.TYPE_MISMATCH, statusOf(() -> longs.getBoolean(0)));
            assertEquals(SmartArrayException.Status.TYPE_MISMATCH, statusOf(() -> longs.getDate(0)));
            assertEquals(SmartArrayException.Status.TYPE_MISMATCH, statusOf(longs::decimalScale));
        }
    }
}
