// Selection: the rows a filter of an EncodedColumn kept, copied out of the native selection
// (sa_selection_words) into Java memory, so it needs no closing.
package org.smartarrays;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The rows an {@link EncodedColumn} filter kept, out of the column's {@link #rows()}: a bitmap
 * (bit {@code i % 64} of word {@code i / 64} is row {@code i}), as the Rust {@code Selection} is.
 *
 * <pre>{@code
 * try (EncodedColumn column = EncodedColumn.ofLongs(new long[] {5, 7, 5, 9})) {
 *     Selection fives = column.filterEquals(5);
 *     assert fives.count() == 2;
 *     assert Arrays.equals(fives.rowIds(), new long[] {0, 2});
 *     assert fives.toBitSet().get(2);
 * }
 * }</pre>
 */
public final class Selection {
    private final long[] words;
    private final long rows;

    Selection(long[] words, long rows) {
        this.words = words;
        this.rows = rows;
    }

    /** @return the number of rows the selection is over (the column's length) */
    public long rows() {
        return rows;
    }

    /** @return the number of selected rows */
    public long count() {
        long count = 0;
        for (long word : words) {
            count += Long.bitCount(word);
        }
        return count;
    }

    /**
     * @param row a row index
     * @return whether it is selected ({@code false} past the end)
     */
    public boolean contains(long row) {
        return row >= 0 && row < rows && (words[(int) (row >>> 6)] >>> (row & 63) & 1) != 0;
    }

    /** @return the selected row ids, ascending (pass them to {@link EncodedColumn#takeLongs(long[])} and friends) */
    public long[] rowIds() {
        long[] ids = new long[Math.toIntExact(count())];
        int at = 0;
        for (int w = 0; w < words.length; w++) {
            long word = words[w];
            while (word != 0) {
                ids[at++] = ((long) w << 6) + Long.numberOfTrailingZeros(word);
                word &= word - 1;
            }
        }
        return ids;
    }

    /**
     * @return the selected row ids as {@code int}s
     * @throws ArithmeticException when a row id does not fit an {@code int}
     */
    public int[] rowIdsAsInts() {
        long[] ids = rowIds();
        int[] ints = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            ints[i] = Math.toIntExact(ids[i]);
        }
        return ints;
    }

    /** @return the selection as a {@link BitSet} (a copy) */
    public BitSet toBitSet() {
        return BitSet.valueOf(words);
    }

    /** @return the bitmap words (a copy): bit {@code i % 64} of word {@code i / 64} is row {@code i} */
    public long[] words() {
        return words.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Selection that && rows == that.rows && Arrays.equals(words, that.words);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(rows) * 31 + Arrays.hashCode(words);
    }

    @Override
    public String toString() {
        return "Selection[" + count() + " of " + rows + " rows]";
    }
}
