// Native: the only place that touches the C ABI. Loads libsmartarrays, looks up every sa_*
// function this binding uses, and holds their downcall handles; turns non-zero statuses into
// SmartArrayException with the library's last-error text. No codec logic lives here or anywhere
// else in the Java binding.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/** Downcall handles for the C ABI (crate smartarrays-ffi, header smartarrays.h). */
@SuppressWarnings("restricted") // this class is the binding's one doorway to native code
final class Native {
    /** System property naming the shared library file; the environment variable is the fallback. */
    static final String LIBRARY_PROPERTY = "smartarrays.library";

    static final String LIBRARY_ENV = "SMARTARRAYS_LIBRARY";

    private static final Linker LINKER = Linker.nativeLinker();

    private static final SymbolLookup LIBRARY = load();

    // Short calls that neither block nor call back into Java: critical, so no thread-state switch.
    private static final Linker.Option[] SHORT = {Linker.Option.critical(false)};

    private static final Linker.Option[] NORMAL = {};

    static final MethodHandle LAST_ERROR_MESSAGE = handle("sa_last_error_message", FunctionDescriptor.of(ADDRESS), SHORT);
    static final MethodHandle VERSION = handle("sa_version", FunctionDescriptor.of(ADDRESS), SHORT);
    static final MethodHandle STRING_FREE = handle("sa_string_free", FunctionDescriptor.ofVoid(ADDRESS), SHORT);
    static final MethodHandle RUNTIME_SET_THREADS = handle("sa_runtime_set_threads", FunctionDescriptor.of(JAVA_INT, JAVA_LONG), NORMAL);
    static final MethodHandle RUNTIME_THREADS = handle("sa_runtime_threads", FunctionDescriptor.of(JAVA_INT, ADDRESS), NORMAL);
    static final MethodHandle TOPOLOGY_JSON = handle("sa_topology_json", FunctionDescriptor.of(JAVA_INT, ADDRESS), NORMAL);

    static final MethodHandle ARRAY_NEW =
            handle("sa_array_new", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_INT, ADDRESS), NORMAL);
    static final MethodHandle ARRAY_FROM_U64 =
            handle("sa_array_from_u64", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT, ADDRESS), NORMAL);
    static final MethodHandle ARRAY_FREE = handle("sa_array_free", FunctionDescriptor.ofVoid(ADDRESS), NORMAL);
    static final MethodHandle ARRAY_LEN = handle("sa_array_len", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), SHORT);
    static final MethodHandle ARRAY_BITS = handle("sa_array_bits", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), SHORT);
    static final MethodHandle ARRAY_REPLICA_COUNT =
            handle("sa_array_replica_count", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), SHORT);
    static final MethodHandle ARRAY_MEMORY_BYTES =
            handle("sa_array_memory_bytes", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), SHORT);
    static final MethodHandle ARRAY_PACKED_BYTES =
            handle("sa_array_packed_bytes", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), SHORT);
    static final MethodHandle ARRAY_PLACEMENT = handle("sa_array_placement", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), SHORT);
    static final MethodHandle ARRAY_GET =
            handle("sa_array_get", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), SHORT);
    static final MethodHandle ARRAY_SET =
            handle("sa_array_set", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), SHORT);
    // Decodes straight into a Java long[]; callers keep each call to HEAP_UNPACK_VALUES values.
    static final MethodHandle ARRAY_UNPACK_HEAP = handle("sa_array_unpack",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG), Linker.Option.critical(true));
    // Decodes a chunk and prefetches the packed memory of a later one (a cursor's step).
    static final MethodHandle ARRAY_UNPACK_AHEAD = handle("sa_array_unpack_ahead",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG), SHORT);
    // The same, decoding straight into a Java long[] (a cursor's longs(); one chunk per call).
    static final MethodHandle ARRAY_UNPACK_AHEAD_HEAP = handle("sa_array_unpack_ahead",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG), Linker.Option.critical(true));
    static final MethodHandle ARRAY_SUM = handle("sa_array_sum", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle ARRAY_SUM_RANGE =
            handle("sa_array_sum_range", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle ARRAY_MIN = handle("sa_array_min", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle ARRAY_MAX = handle("sa_array_max", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle ARRAY_PLACEMENT_REPORT_TEXT =
            handle("sa_array_placement_report_text", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle ARRAY_PLACEMENT_REPORT_JSON =
            handle("sa_array_placement_report_json", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle ARRAY_RAW_VALUES =
            handle("sa_array_raw_values", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), SHORT);

    // Encoded columns (sa_column_*) and their selections (sa_selection_*).
    private static final FunctionDescriptor COLUMN_FROM =
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle COLUMN_FROM_U64 = handle("sa_column_from_u64", COLUMN_FROM, NORMAL);
    static final MethodHandle COLUMN_FROM_I64 = handle("sa_column_from_i64", COLUMN_FROM, NORMAL);
    static final MethodHandle COLUMN_FROM_F64 = handle("sa_column_from_f64", COLUMN_FROM, NORMAL);
    static final MethodHandle COLUMN_FROM_UTF8 = handle("sa_column_from_utf8",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle COLUMN_FROM_BOOL = handle("sa_column_from_bool", COLUMN_FROM, NORMAL);
    static final MethodHandle COLUMN_FROM_DATE32 = handle("sa_column_from_date32", COLUMN_FROM, NORMAL);
    static final MethodHandle COLUMN_FROM_DECIMAL = handle("sa_column_from_decimal",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_BYTE, ADDRESS, ADDRESS, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle COLUMN_FREE = handle("sa_column_free", FunctionDescriptor.ofVoid(ADDRESS), NORMAL);
    private static final FunctionDescriptor QUERY = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle COLUMN_LEN = handle("sa_column_len", QUERY, SHORT);
    static final MethodHandle COLUMN_NULL_COUNT = handle("sa_column_null_count", QUERY, SHORT);
    static final MethodHandle COLUMN_DATA_TYPE = handle("sa_column_data_type", QUERY, SHORT);
    static final MethodHandle COLUMN_ENCODING = handle("sa_column_encoding", QUERY, SHORT);
    static final MethodHandle COLUMN_EXPLANATION = handle("sa_column_explanation", QUERY, NORMAL);
    static final MethodHandle COLUMN_MEMORY_REPORT_TEXT = handle("sa_column_memory_report_text", QUERY, NORMAL);
    static final MethodHandle COLUMN_PLACEMENT = handle("sa_column_placement", QUERY, SHORT);
    static final MethodHandle COLUMN_MEMORY_BYTES = handle("sa_column_memory_bytes", QUERY, SHORT);
    static final MethodHandle COLUMN_PACKED_BYTES = handle("sa_column_packed_bytes", QUERY, SHORT);
    private static final FunctionDescriptor COLUMN_GET = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS);
    static final MethodHandle COLUMN_GET_U64 = handle("sa_column_get_u64", COLUMN_GET, NORMAL);
    static final MethodHandle COLUMN_GET_I64 = handle("sa_column_get_i64", COLUMN_GET, NORMAL);
    static final MethodHandle COLUMN_GET_F64 = handle("sa_column_get_f64", COLUMN_GET, NORMAL);
    static final MethodHandle COLUMN_GET_BOOL = handle("sa_column_get_bool", COLUMN_GET, NORMAL);
    static final MethodHandle COLUMN_GET_DATE32 = handle("sa_column_get_date32", COLUMN_GET, NORMAL);
    static final MethodHandle COLUMN_GET_DECIMAL = handle("sa_column_get_decimal", COLUMN_GET, NORMAL);
    static final MethodHandle COLUMN_DECIMAL_SCALE = handle("sa_column_decimal_scale", QUERY, SHORT);
    static final MethodHandle COLUMN_GET_UTF8 = handle("sa_column_get_utf8",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), NORMAL);
    private static final FunctionDescriptor COLUMN_DECODE =
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS);
    static final MethodHandle COLUMN_UNPACK_U64 = handle("sa_column_unpack_u64", COLUMN_DECODE, NORMAL);
    static final MethodHandle COLUMN_UNPACK_I64 = handle("sa_column_unpack_i64", COLUMN_DECODE, NORMAL);
    static final MethodHandle COLUMN_UNPACK_F64 = handle("sa_column_unpack_f64", COLUMN_DECODE, NORMAL);
    private static final FunctionDescriptor COLUMN_TAKE =
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS);
    static final MethodHandle COLUMN_TAKE_U64 = handle("sa_column_take_u64", COLUMN_TAKE, NORMAL);
    static final MethodHandle COLUMN_TAKE_I64 = handle("sa_column_take_i64", COLUMN_TAKE, NORMAL);
    static final MethodHandle COLUMN_TAKE_F64 = handle("sa_column_take_f64", COLUMN_TAKE, NORMAL);
    static final MethodHandle COLUMN_UNPACK_UTF8 = handle("sa_column_unpack_utf8",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle COLUMN_TAKE_UTF8 = handle("sa_column_take_utf8",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle COLUMN_FILTER_EQ_U64 =
            handle("sa_column_filter_eq_u64", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle COLUMN_FILTER_EQ_I64 =
            handle("sa_column_filter_eq_i64", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle COLUMN_FILTER_EQ_F64 =
            handle("sa_column_filter_eq_f64", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_DOUBLE, ADDRESS), NORMAL);
    private static final FunctionDescriptor COLUMN_FILTER_TEXT =
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS);
    static final MethodHandle COLUMN_FILTER_EQ_UTF8 = handle("sa_column_filter_eq_utf8", COLUMN_FILTER_TEXT, NORMAL);
    static final MethodHandle COLUMN_FILTER_PREFIX_UTF8 = handle("sa_column_filter_prefix_utf8", COLUMN_FILTER_TEXT, NORMAL);
    static final MethodHandle COLUMN_FILTER_RANGE_U64 = handle("sa_column_filter_range_u64",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle COLUMN_FILTER_RANGE_I64 = handle("sa_column_filter_range_i64",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle COLUMN_FILTER_RANGE_F64 = handle("sa_column_filter_range_f64",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_DOUBLE, JAVA_DOUBLE, ADDRESS), NORMAL);
    private static final FunctionDescriptor COLUMN_FILTER_IN =
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS);
    static final MethodHandle COLUMN_FILTER_IN_U64 = handle("sa_column_filter_in_u64", COLUMN_FILTER_IN, NORMAL);
    static final MethodHandle COLUMN_FILTER_IN_I64 = handle("sa_column_filter_in_i64", COLUMN_FILTER_IN, NORMAL);
    static final MethodHandle COLUMN_FILTER_IN_F64 = handle("sa_column_filter_in_f64", COLUMN_FILTER_IN, NORMAL);
    static final MethodHandle COLUMN_FILTER_IN_UTF8 = handle("sa_column_filter_in_utf8",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle COLUMN_FILTER_NULL =
            handle("sa_column_filter_null", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BOOLEAN, ADDRESS), NORMAL);
    static final MethodHandle COLUMN_SUM_I64 = handle("sa_column_sum_i64", QUERY, NORMAL);
    static final MethodHandle COLUMN_SUM_U64 = handle("sa_column_sum_u64", QUERY, NORMAL);
    static final MethodHandle COLUMN_SUM_F64 = handle("sa_column_sum_f64", QUERY, NORMAL);
    static final MethodHandle COLUMN_SUM_I128 =
            handle("sa_column_sum_i128", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), NORMAL);
    private static final FunctionDescriptor MIN_MAX = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    static final MethodHandle COLUMN_MIN_MAX_U64 = handle("sa_column_min_max_u64", MIN_MAX, NORMAL);
    static final MethodHandle COLUMN_MIN_MAX_I64 = handle("sa_column_min_max_i64", MIN_MAX, NORMAL);
    static final MethodHandle COLUMN_MIN_MAX_F64 = handle("sa_column_min_max_f64", MIN_MAX, NORMAL);
    static final MethodHandle SELECTION_FREE = handle("sa_selection_free", FunctionDescriptor.ofVoid(ADDRESS), SHORT);
    static final MethodHandle SELECTION_ROWS = handle("sa_selection_rows", QUERY, SHORT);
    static final MethodHandle SELECTION_COUNT = handle("sa_selection_count", QUERY, SHORT);
    static final MethodHandle SELECTION_ROW_IDS =
            handle("sa_selection_row_ids", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG), NORMAL);
    static final MethodHandle SELECTION_WORDS =
            handle("sa_selection_words", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG), NORMAL);

    // Smart collections (sa_map_*, sa_set_*, sa_bag_*).
    private static final FunctionDescriptor NEW = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    private static final FunctionDescriptor FREE = FunctionDescriptor.ofVoid(ADDRESS);
    static final MethodHandle MAP_NEW = handle("sa_map_new", NEW, NORMAL);
    static final MethodHandle MAP_FREE = handle("sa_map_free", FREE, NORMAL);
    static final MethodHandle MAP_LEN = handle("sa_map_len", QUERY, SHORT);
    static final MethodHandle MAP_MEMORY_BYTES = handle("sa_map_memory_bytes", QUERY, SHORT);
    static final MethodHandle MAP_MEMORY_REPORT_TEXT = handle("sa_map_memory_report_text", QUERY, NORMAL);
    static final MethodHandle MAP_PLACEMENT = handle("sa_map_placement", QUERY, SHORT);
    static final MethodHandle MAP_PLACEMENT_REPORT_TEXT = handle("sa_map_placement_report_text", QUERY, NORMAL);
    static final MethodHandle MAP_PLACEMENT_REPORT_JSON = handle("sa_map_placement_report_json", QUERY, NORMAL);
    static final MethodHandle MAP_INSERT = handle("sa_map_insert",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle MAP_GET =
            handle("sa_map_get", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), SHORT);
    static final MethodHandle MAP_CONTAINS =
            handle("sa_map_contains", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), SHORT);
    static final MethodHandle MAP_REMOVE =
            handle("sa_map_remove", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle MAP_UPSERT = handle("sa_map_upsert",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS), NORMAL);
    static final MethodHandle MAP_INSERT_MANY = handle("sa_map_insert_many",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG), NORMAL);
    static final MethodHandle MAP_UPSERT_MANY = handle("sa_map_upsert_many",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), NORMAL);
    static final MethodHandle MAP_GET_MANY = handle("sa_map_get_many",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    private static final FunctionDescriptor CONTAINS_MANY =
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS);
    static final MethodHandle MAP_CONTAINS_MANY = handle("sa_map_contains_many", CONTAINS_MANY, NORMAL);
    private static final FunctionDescriptor REMOVE_MANY = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS);
    static final MethodHandle MAP_REMOVE_MANY = handle("sa_map_remove_many", REMOVE_MANY, NORMAL);
    static final MethodHandle SET_REMOVE_MANY = handle("sa_set_remove_many", REMOVE_MANY, NORMAL);
    static final MethodHandle BAG_REMOVE_MANY = handle("sa_bag_remove_many", REMOVE_MANY, NORMAL);
    static final MethodHandle MAP_EXPORT = handle("sa_map_export",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle SET_NEW = handle("sa_set_new", NEW, NORMAL);
    static final MethodHandle SET_FREE = handle("sa_set_free", FREE, NORMAL);
    static final MethodHandle SET_LEN = handle("sa_set_len", QUERY, SHORT);
    static final MethodHandle SET_MEMORY_BYTES = handle("sa_set_memory_bytes", QUERY, SHORT);
    static final MethodHandle SET_MEMORY_REPORT_TEXT = handle("sa_set_memory_report_text", QUERY, NORMAL);
    static final MethodHandle SET_PLACEMENT = handle("sa_set_placement", QUERY, SHORT);
    static final MethodHandle SET_PLACEMENT_REPORT_TEXT = handle("sa_set_placement_report_text", QUERY, NORMAL);
    static final MethodHandle SET_INSERT =
            handle("sa_set_insert", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle SET_CONTAINS =
            handle("sa_set_contains", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), SHORT);
    static final MethodHandle SET_REMOVE =
            handle("sa_set_remove", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle SET_INSERT_MANY =
            handle("sa_set_insert_many", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG), NORMAL);
    static final MethodHandle SET_CONTAINS_MANY = handle("sa_set_contains_many", CONTAINS_MANY, NORMAL);
    static final MethodHandle SET_EXPORT =
            handle("sa_set_export", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle BAG_NEW = handle("sa_bag_new", NEW, NORMAL);
    static final MethodHandle BAG_FREE = handle("sa_bag_free", FREE, NORMAL);
    static final MethodHandle BAG_LEN = handle("sa_bag_len", QUERY, SHORT);
    static final MethodHandle BAG_MEMORY_BYTES = handle("sa_bag_memory_bytes", QUERY, SHORT);
    static final MethodHandle BAG_MEMORY_REPORT_TEXT = handle("sa_bag_memory_report_text", QUERY, NORMAL);
    static final MethodHandle BAG_PLACEMENT = handle("sa_bag_placement", QUERY, SHORT);
    static final MethodHandle BAG_PLACEMENT_REPORT_TEXT = handle("sa_bag_placement_report_text", QUERY, NORMAL);
    static final MethodHandle BAG_ADD =
            handle("sa_bag_add", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle BAG_COUNT =
            handle("sa_bag_count", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), SHORT);
    static final MethodHandle BAG_REMOVE =
            handle("sa_bag_remove", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle BAG_ADD_MANY =
            handle("sa_bag_add_many", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG), NORMAL);
    static final MethodHandle BAG_COUNT_MANY = handle("sa_bag_count_many",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle BAG_EXPORT = handle("sa_bag_export",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);

    // Read-only frozen collections (sa_frozen_map_*, sa_frozen_set_*, sa_map_freeze, sa_set_freeze).
    static final MethodHandle FROZEN_MAP_NEW = handle("sa_frozen_map_new",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle MAP_FREEZE = handle("sa_map_freeze", NEW, NORMAL);
    static final MethodHandle FROZEN_MAP_FREE = handle("sa_frozen_map_free", FREE, NORMAL);
    static final MethodHandle FROZEN_MAP_LEN = handle("sa_frozen_map_len", QUERY, SHORT);
    static final MethodHandle FROZEN_MAP_GET =
            handle("sa_frozen_map_get", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), SHORT);
    static final MethodHandle FROZEN_MAP_CONTAINS =
            handle("sa_frozen_map_contains", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), SHORT);
    static final MethodHandle FROZEN_MAP_GET_MANY = handle("sa_frozen_map_get_many",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle FROZEN_MAP_CONTAINS_MANY = handle("sa_frozen_map_contains_many", CONTAINS_MANY, NORMAL);
    static final MethodHandle FROZEN_MAP_MEMORY_BYTES = handle("sa_frozen_map_memory_bytes", QUERY, SHORT);
    static final MethodHandle FROZEN_MAP_MEMORY_REPORT_TEXT = handle("sa_frozen_map_memory_report_text", QUERY, NORMAL);
    static final MethodHandle FROZEN_MAP_PLACEMENT = handle("sa_frozen_map_placement", QUERY, SHORT);
    static final MethodHandle FROZEN_MAP_EXPORT = handle("sa_frozen_map_export",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle FROZEN_SET_NEW = handle("sa_frozen_set_new",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle SET_FREEZE = handle("sa_set_freeze", NEW, NORMAL);
    static final MethodHandle FROZEN_SET_FREE = handle("sa_frozen_set_free", FREE, NORMAL);
    static final MethodHandle FROZEN_SET_LEN = handle("sa_frozen_set_len", QUERY, SHORT);
    static final MethodHandle FROZEN_SET_CONTAINS =
            handle("sa_frozen_set_contains", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS), SHORT);
    static final MethodHandle FROZEN_SET_CONTAINS_MANY = handle("sa_frozen_set_contains_many", CONTAINS_MANY, NORMAL);
    static final MethodHandle FROZEN_SET_MEMORY_BYTES = handle("sa_frozen_set_memory_bytes", QUERY, SHORT);
    static final MethodHandle FROZEN_SET_MEMORY_REPORT_TEXT = handle("sa_frozen_set_memory_report_text", QUERY, NORMAL);
    static final MethodHandle FROZEN_SET_PLACEMENT = handle("sa_frozen_set_placement", QUERY, SHORT);
    static final MethodHandle FROZEN_SET_EXPORT = handle("sa_frozen_set_export",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);

    /** Most values one critical unpack into a Java array decodes (keeps each call well under a millisecond). */
    static final int HEAP_UNPACK_VALUES = 1 << 16;

    private Native() {}

    /**
     * Opens the library: the file named by the system property {@value #LIBRARY_PROPERTY}, else
     * by the environment variable {@value #LIBRARY_ENV}, else {@code libsmartarrays.so} found by
     * the dynamic linker (LD_LIBRARY_PATH, the system's library directories).
     */
    private static SymbolLookup load() {
        String configured = System.getProperty(LIBRARY_PROPERTY);
        if (configured == null || configured.isBlank()) {
            configured = System.getenv(LIBRARY_ENV);
        }
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured);
            if (!Files.isRegularFile(path)) {
                throw new UnsatisfiedLinkError("the smartarrays library " + path + " (from -D" + LIBRARY_PROPERTY + " or $" + LIBRARY_ENV
                        + ") does not exist; build it with `cargo build --release -p smartarrays-capi`");
            }
            return SymbolLookup.libraryLookup(path, Arena.global());
        }
        String name = System.mapLibraryName("smartarrays");
        try {
            return SymbolLookup.libraryLookup(name, Arena.global());
        } catch (IllegalArgumentException e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot load " + name + ": pass its path with -D" + LIBRARY_PROPERTY
                    + "=/path/to/" + name + " (built by `cargo build --release -p smartarrays-capi`) or put it on LD_LIBRARY_PATH");
            error.initCause(e);
            throw error;
        }
    }

    // Graphs (sa_graph_*).
    static final MethodHandle GRAPH_FROM_EDGES = handle("sa_graph_from_edges",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_BOOLEAN, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle GRAPH_LOAD = handle("sa_graph_load",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BOOLEAN, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle GRAPH_KRONECKER = handle("sa_graph_kronecker",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_BOOLEAN, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle GRAPH_FREE = handle("sa_graph_free", FunctionDescriptor.ofVoid(ADDRESS), NORMAL);
    static final MethodHandle GRAPH_SHAPE = handle("sa_graph_shape",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS), SHORT);
    static final MethodHandle GRAPH_BFS = handle("sa_graph_bfs",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG), NORMAL);
    static final MethodHandle GRAPH_COMPONENTS = handle("sa_graph_connected_components",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), NORMAL);
    static final MethodHandle GRAPH_PAGERANK = handle("sa_graph_pagerank",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_DOUBLE, JAVA_DOUBLE, JAVA_LONG, JAVA_BOOLEAN, ADDRESS, JAVA_LONG,
                    ADDRESS, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle GRAPH_PAGERANK_WITH_OPTIONS = handle("sa_graph_pagerank_with_options",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle GRAPH_PREPARE_DEGREE_ORDER = handle("sa_graph_prepare_degree_order",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle GRAPH_BETWEENNESS = handle("sa_graph_betweenness",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle GRAPH_BETWEENNESS_SAMPLED = handle("sa_graph_betweenness_sampled",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle GRAPH_TRIANGLE_COUNT = handle("sa_graph_triangle_count",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), NORMAL);
    static final MethodHandle GRAPH_TRIANGLE_COUNT_ORDERED = handle("sa_graph_triangle_count_ordered",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), NORMAL);

    private static MethodHandle handle(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LIBRARY.find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("the smartarrays library has no function " + name + " (is it out of date?)"));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /** The downcall handle of the library function {@code name} (for classes that keep their own). */
    static MethodHandle lookup(String name, FunctionDescriptor descriptor) {
        return handle(name, descriptor, NORMAL);
    }

    /** A downcall handle for C function pointers of {@code descriptor} (the address goes first). */
    static MethodHandle pointerCall(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor);
    }

    /** A C function pointer that calls {@code target}, valid while {@code arena} is open. */
    static MemorySegment upcall(MethodHandle target, FunctionDescriptor descriptor, Arena arena) {
        return LINKER.upcallStub(target, descriptor, arena);
    }

    /** Throws the library's error for a non-zero status (reading this thread's last-error text). */
    static void check(int status) {
        if (status != 0) {
            throw failure(status);
        }
    }

    static SmartArrayException failure(int status) {
        String message;
        try {
            message = cString((MemorySegment) LAST_ERROR_MESSAGE.invokeExact());
        } catch (Throwable t) {
            message = "(the error message could not be read: " + t + ")";
        }
        SmartArrayException.Status known = SmartArrayException.Status.of(status);
        return new SmartArrayException(status, (message.isEmpty() ? "the smartarrays call failed" : message) + " [SA_STATUS_" + known + "]");
    }

    /** Reads a NUL-terminated string owned by the library. */
    static String cString(MemorySegment pointer) {
        return pointer.equals(MemorySegment.NULL) ? "" : pointer.reinterpret(Long.MAX_VALUE).getString(0);
    }

    /** Reads, then frees (with sa_string_free), a string the library handed over through {@code char **}. */
    static String takeString(MemorySegment slot) {
        MemorySegment pointer = slot.get(ADDRESS, 0);
        try {
            return cString(pointer);
        } finally {
            try {
                STRING_FREE.invokeExact(pointer);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }
    }

    /** Passes unchecked throwables through; wraps the (impossible) checked ones from invokeExact. */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (t instanceof Error error) {
            throw error;
        }
        throw new IllegalStateException("unexpected exception from a native call", t);
    }
}
