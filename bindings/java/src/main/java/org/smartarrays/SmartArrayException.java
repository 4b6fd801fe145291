// SmartArrayException: a failed call into the C ABI, carrying its status code and the library's
// last-error message for the calling thread.
package org.smartarrays;

import java.io.Serial;

/**
 * A call into the native smartarrays library failed. The message is the library's own error
 * text ({@code sa_last_error_message}); {@link #status()} says which class of failure it was.
 *
 * <pre>{@code
 * try (SmartArray a = SmartArray.of(new long[] {1, 2, 3})) {
 *     a.get(7);
 * } catch (SmartArrayException e) {
 *     assert e.status() == SmartArrayException.Status.INDEX_OUT_OF_RANGE;
 * }
 * }</pre>
 */
public final class SmartArrayException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The C ABI's status codes ({@code SA_STATUS_*}), in their numeric order. */
    public enum Status {
        /** Success (never carried by an exception). */
        OK,
        /** A pointer argument that must not be NULL was NULL. */
        NULL_POINTER,
        /** An argument is invalid. */
        INVALID_ARGUMENT,
        /** An index is past the end of the array. */
        INDEX_OUT_OF_RANGE,
        /** A range is reversed or reaches past the end of the array. */
        RANGE_OUT_OF_BOUNDS,
        /** A value does not fit in the array's bit width. */
        VALUE_TOO_WIDE,
        /** A bit width outside 1..64. */
        INVALID_BIT_WIDTH,
        /** A placement text that could not be parsed. */
        INVALID_PLACEMENT,
        /** A NUMA node that does not exist. */
        UNKNOWN_NODE,
        /** Not enough memory. */
        OUT_OF_MEMORY,
        /** A system call failed. */
        SYSTEM,
        /** The topology could not be read or is invalid. */
        INVALID_TOPOLOGY,
        /** A runtime setting is invalid. */
        INVALID_RUNTIME,
        /** A caller buffer is too small. */
        BUFFER_TOO_SMALL,
        /** The operation needs a non-empty array. */
        EMPTY_ARRAY,
        /** The operation needs an uncompressed (64-bit) array. */
        NOT_UNCOMPRESSED,
        /** The array is shared by a live Arrow export. */
        BUSY,
        /** A visit ended early on request. */
        STOPPED,
        /** Exporting to the Arrow C Data Interface failed. */
        ARROW,
        /** A bug inside the library was caught. */
        PANIC,
        /** Any other failure, including codes newer than this binding. */
        OTHER,
        /** The operation means nothing for the column's type (the sum of strings, a prefix filter on numbers). */
        UNSUPPORTED,
        /** A value or reader of another type than the column's. */
        TYPE_MISMATCH,
        /** A result that does not fit its type (a sum outside {@code long}, a count past 2^64 - 1). */
        OVERFLOW,
        /** A query that does not parse, names an unknown table or column, or uses what is not supported; the message gives the line and column. */
        SQL,
        /** A file or Arrow stream that cannot be loaded (the message names the file, line or row, and column). */
        LOAD;

        /**
         * @param code a numeric {@code SA_STATUS_*} value
         * @return its constant ({@link #OTHER} for codes this binding does not know)
         */
        public static Status of(int code) {
            Status[] all = values();
            return code >= 0 && code < all.length ? all[code] : OTHER;
        }
    }

    private final Status status;
    private final int code;

    /**
     * @param code the numeric status the C function returned
     * @param message the library's error text
     */
    public SmartArrayException(int code, String message) {
        super(message);
        this.code = code;
        this.status = Status.of(code);
    }

    /** @return the class of failure */
    public Status status() {
        return status;
    }

    /** @return the numeric status code the C function returned */
    public int code() {
        return code;
    }
}
