// Native: the only place that touches the C ABI. Loads libsmartarrays, looks up every sa_*
// function this binding uses, and holds their downcall handles; turns non-zero statuses into
// SmartArrayException with the library's last-error text. No codec logic lives here or anywhere
// else in the Java binding.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
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

    private static MethodHandle handle(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LIBRARY.find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("the smartarrays library has no function " + name + " (is it out of date?)"));
        return LINKER.downcallHandle(symbol, descriptor, options);
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
