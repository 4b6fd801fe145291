// SmartQuery: the Java face of tables and SQL (sa_catalog_* and sa_query in the C ABI): named
// typed compressed tables from TPC-H generated in-process, Parquet, CSV or saved files, or an
// Arrow C stream; queries whose results come back as an Arrow C stream (ArrowArrayStream), read
// here into Java values or handed to Arrow Java by address. The queries run in Rust.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Named tables and SQL over them. Results are Arrow C streams ({@link ArrowStream}): read them
 * into Java values with {@link ArrowStream#read()}, or pass {@link ArrowStream#address()} to Arrow
 * Java ({@code Data.importArrayArrowStream}).
 *
 * <pre>{@code
 * try (SmartQuery tables = SmartQuery.create()) {
 *     tables.addTpch(0.01);
 *     try (SmartQuery.ArrowStream result = tables.query("select l_returnflag, count(*) as n from lineitem group by l_returnflag order by l_returnflag")) {
 *         SmartQuery.Result rows = result.read();   // names [l_returnflag, n]; columns of String and Long
 *     }
 * }
 * }</pre>
 *
 * <p>Queries, exports and saves may run concurrently on one instance; adding tables needs it to
 * itself. A bad query throws {@link SmartArrayException} with status {@code SQL}, whose message
 * gives the line and column; a malformed file status {@code LOAD}.
 */
@SuppressWarnings("restricted") // the Arrow structs' sizes and lifetimes come from the Arrow C stream contract
public final class SmartQuery implements AutoCloseable {
    private static final MethodHandle NEW = Native.lookup("sa_catalog_new", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle FREE = Native.lookup("sa_catalog_free", FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle ADD_TPCH =
            Native.lookup("sa_catalog_add_tpch", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_DOUBLE));
    private static final MethodHandle LOAD =
            Native.lookup("sa_catalog_load", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle IMPORT =
            Native.lookup("sa_catalog_import_arrow_stream", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle ROWS =
            Native.lookup("sa_catalog_table_rows", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle SAVE =
            Native.lookup("sa_catalog_save", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle EXPORT =
            Native.lookup("sa_catalog_export_arrow_stream", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle QUERY =
            Native.lookup("sa_query", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    // The Arrow structs' callbacks: int (*)(void *, void *) and void (*)(void *).
    private static final MethodHandle CALL_INT = Native.pointerCall(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle CALL_VOID = Native.pointerCall(FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle CALL_TEXT = Native.pointerCall(FunctionDescriptor.of(ADDRESS, ADDRESS));

    /** Bytes of the C structs (64-bit): ArrowArrayStream, ArrowSchema, ArrowArray. */
    private static final long STREAM_BYTES = 40, SCHEMA_BYTES = 72, ARRAY_BYTES = 80;

    private final NativeHandle handle;

    private SmartQuery(MemorySegment raw) {
        this.handle = new NativeHandle(this, raw, FREE);
    }

    /** @return an empty set of tables */
    public static SmartQuery create() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            Native.check((int) NEW.invokeExact(out));
            return new SmartQuery(out.get(ADDRESS, 0));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Adds the eight TPC-H tables generated at scale factor {@code sf}.
     *
     * @param sf the scale factor (positive)
     * @return this
     */
    public SmartQuery addTpch(double sf) {
        try {
            Native.check((int) ADD_TPCH.invokeExact(handle.get(), sf));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        return this;
    }

    /**
     * Loads a file as table {@code name}, by its extension: {@code .parquet}, {@code .csv}
     * ({@code .tbl} with {@code |}, {@code .tsv} with tabs; a header line, types inferred) or a
     * saved table ({@code .sat}).
     *
     * @param name the table's name in queries
     * @param path the file
     * @return this
     */
    public SmartQuery load(String name, Path path) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(path, "path");
        try (Arena arena = Arena.ofConfined()) {
            Native.check((int) LOAD.invokeExact(handle.get(), arena.allocateFrom(name), arena.allocateFrom(path.toString())));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        return this;
    }

    /**
     * Imports every batch of an Arrow stream as table {@code name}; the stream is consumed
     * (closed), also on failure.
     *
     * @param name the table's name in queries
     * @param stream a stream, for example {@link #export(String)} of another table
     * @return this
     */
    public SmartQuery importStream(String name, ArrowStream stream) {
        Objects.requireNonNull(name, "name");
        try (Arena arena = Arena.ofConfined(); stream) {
            Native.check((int) IMPORT.invokeExact(handle.get(), arena.allocateFrom(name), stream.address()));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        return this;
    }

    /**
     * @param name a table
     * @return its number of rows
     */
    public long rows(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            Native.check((int) ROWS.invokeExact(handle.get(), arena.allocateFrom(name), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Saves a table in the saved-table format (versioned, checksummed; reload with
     * {@link #load(String, Path)} and a {@code .sat} path).
     *
     * @param name a table
     * @param path the file to write
     */
    public void save(String name, Path path) {
        try (Arena arena = Arena.ofConfined()) {
            Native.check((int) SAVE.invokeExact(handle.get(), arena.allocateFrom(name), arena.allocateFrom(path.toString())));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * @param name a table
     * @return its rows as an Arrow stream (batches of 65536 rows, decoded as they are read)
     */
    public ArrowStream export(String name) {
        ArrowStream stream = new ArrowStream();
        try (Arena arena = Arena.ofConfined()) {
            Native.check((int) EXPORT.invokeExact(handle.get(), arena.allocateFrom(name), stream.address()));
        } catch (Throwable t) {
            stream.close();
            throw Native.rethrow(t);
        }
        return stream;
    }

    /**
     * Runs a query on the library's default workers.
     *
     * @param sql a query, or {@code EXPLAIN} of one (a {@code plan} column of text lines)
     * @return its result as an Arrow stream of one batch
     */
    public ArrowStream query(String sql) {
        return query(sql, 0);
    }

    /**
     * @param sql a query, or {@code EXPLAIN} of one
     * @param threads worker threads (0: the library's default)
     * @return its result as an Arrow stream of one batch
     */
    public ArrowStream query(String sql, int threads) {
        Objects.requireNonNull(sql, "sql");
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be at least 0, not " + threads);
        }
        ArrowStream stream = new ArrowStream();
        try (Arena arena = Arena.ofConfined()) {
            Native.check((int) QUERY.invokeExact(handle.get(), arena.allocateFrom(sql), (long) threads, stream.address()));
        } catch (Throwable t) {
            stream.close();
            throw Native.rethrow(t);
        }
        return stream;
    }

    /** Frees the tables (streams already handed out stay readable). */
    @Override
    public void close() {
        handle.close();
    }

    /**
     * Rows read from an Arrow stream, by column.
     *
     * @param names the columns' names
     * @param formats the columns' Arrow format strings ({@code l} int64, {@code u} utf8, {@code d:38,2} decimal128, {@code tdD} date32, {@code g} float64, {@code b} boolean)
     * @param columns per column, its values ({@code Long}, {@code String}, {@code BigDecimal}, {@code LocalDate}, {@code Double}, {@code Boolean}; {@code null} for nulls)
     */
    public record Result(List<String> names, List<String> formats, List<List<Object>> columns) {
        /** @return the number of rows */
        public int rows() {
            return columns.isEmpty() ? 0 : columns.get(0).size();
        }
    }

    /**
     * An Arrow C stream ({@code struct ArrowArrayStream}) in native memory owned by this object:
     * read it with {@link #read()}, or hand {@link #address()} to another Arrow implementation,
     * which then owns (and releases) it. {@link #close()} releases it if nobody did.
     */
    public static final class ArrowStream implements AutoCloseable {
        private final Arena arena = Arena.ofShared();
        private final MemorySegment stream = arena.allocate(STREAM_BYTES, 8);

        private ArrowStream() {}

        /** @return the address of the {@code struct ArrowArrayStream} */
        public MemorySegment address() {
            return stream;
        }

        /**
         * Reads every batch into Java values and releases the stream.
         *
         * @return the rows, by column
         */
        public Result read() {
            MemorySegment getSchema = stream.get(ADDRESS, 0);
            MemorySegment getNext = stream.get(ADDRESS, 8);
            if (stream.get(ADDRESS, 24).equals(MemorySegment.NULL)) {
                throw new IllegalStateException("the Arrow stream was already released");
            }
            try (Arena scratch = Arena.ofConfined()) {
                MemorySegment schema = scratch.allocate(SCHEMA_BYTES, 8);
                checkStream((int) CALL_INT.invokeExact(getSchema, stream, schema));
                List<String> names = new ArrayList<>();
                List<String> formats = new ArrayList<>();
                List<List<Object>> columns = new ArrayList<>();
                long n = schema.get(JAVA_LONG, 32);
                MemorySegment children = schema.get(ADDRESS, 40).reinterpret(8 * n);
                for (long i = 0; i < n; i++) {
                    MemorySegment child = children.getAtIndex(ADDRESS, i).reinterpret(SCHEMA_BYTES);
                    formats.add(Native.cString(child.get(ADDRESS, 0)));
                    names.add(Native.cString(child.get(ADDRESS, 8)));
                    columns.add(new ArrayList<>());
                }
                releaseStruct(schema, 56);
                MemorySegment batch = scratch.allocate(ARRAY_BYTES, 8);
                for (;;) {
                    checkStream((int) CALL_INT.invokeExact(getNext, stream, batch));
                    if (batch.get(ADDRESS, 64).equals(MemorySegment.NULL)) {
                        break;
                    }
                    try {
                        long length = batch.get(JAVA_LONG, 0);
                        MemorySegment arrays = batch.get(ADDRESS, 48).reinterpret(8 * n);
                        for (int i = 0; i < n; i++) {
                            decode(arrays.getAtIndex(ADDRESS, i).reinterpret(ARRAY_BYTES), length, formats.get(i), columns.get(i));
                        }
                    } finally {
                        releaseStruct(batch, 64);
                    }
                }
                return new Result(List.copyOf(names), List.copyOf(formats), columns);
            } catch (Throwable t) {
                throw Native.rethrow(t);
            } finally {
                close();
            }
        }

        private void checkStream(int code) throws Throwable {
            if (code != 0) {
                MemorySegment text = (MemorySegment) CALL_TEXT.invokeExact(stream.get(ADDRESS, 16), stream);
                throw new SmartArrayException(SmartArrayException.Status.ARROW.ordinal(),
                        "the Arrow stream failed (" + code + "): " + Native.cString(text));
            }
        }

        private static void releaseStruct(MemorySegment struct, long releaseOffset) throws Throwable {
            MemorySegment release = struct.get(ADDRESS, releaseOffset);
            if (!release.equals(MemorySegment.NULL)) {
                CALL_VOID.invokeExact(release, struct);
            }
        }

        private static void decode(MemorySegment array, long length, String format, List<Object> out) {
            long offset = array.get(JAVA_LONG, 16);
            long nBuffers = array.get(JAVA_LONG, 24);
            MemorySegment buffers = array.get(ADDRESS, 40).reinterpret(8 * nBuffers);
            MemorySegment validity = buffers.getAtIndex(ADDRESS, 0);
            MemorySegment values = buffers.getAtIndex(ADDRESS, 1).reinterpret(Long.MAX_VALUE);
            MemorySegment bits = validity.equals(MemorySegment.NULL) ? null : validity.reinterpret(Long.MAX_VALUE);
            for (long r = 0; r < length; r++) {
                long at = offset + r;
                if (bits != null && ((bits.get(JAVA_BYTE, at >>> 3) >>> (at & 7)) & 1) == 0) {
                    out.add(null);
                    continue;
                }
                out.add(switch (format.isEmpty() ? ' ' : format.charAt(0)) {
                    case 'l' -> values.getAtIndex(JAVA_LONG, at);
                    case 'g' -> values.getAtIndex(JAVA_DOUBLE, at);
                    case 'b' -> ((values.get(JAVA_BYTE, at >>> 3) >>> (at & 7)) & 1) == 1;
                    case 't' -> LocalDate.ofEpochDay(values.getAtIndex(JAVA_INT, at));
                    case 'd' -> {
                        byte[] little = values.asSlice(16 * at, 16).toArray(JAVA_BYTE);
                        byte[] big = new byte[16];
                        for (int i = 0; i < 16; i++) {
                            big[i] = little[15 - i];
                        }
                        int scale = Integer.parseInt(format.substring(format.indexOf(',') + 1).split(",")[0]);
                        yield new BigDecimal(new BigInteger(big), scale);
                    }
                    case 'u' -> {
                        MemorySegment text = buffers.getAtIndex(ADDRESS, 2).reinterpret(Long.MAX_VALUE);
                        int start = values.getAtIndex(JAVA_INT, at);
                        int end = values.getAtIndex(JAVA_INT, at + 1);
                        yield new String(text.asSlice(start, end - start).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
                    }
                    default -> throw new UnsupportedOperationException("Arrow format " + format + " is not read by this binding");
                });
            }
        }

        /** Releases the stream unless a consumer took it, and frees the struct. */
        @Override
        public void close() {
            if (!arena.scope().isAlive()) {
                return;
            }
            try {
                releaseStruct(stream, 24);
            } catch (Throwable t) {
                throw Native.rethrow(t);
            } finally {
                arena.close();
            }
        }

        static {
            if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
                throw new ExceptionInInitializerError("the Arrow reader assumes a little-endian machine");
            }
        }
    }
}
