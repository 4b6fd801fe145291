// SumBench: the Java part of the cross-language benchmark (the paper's Figure 3; run by
// bench/languages.sh). Sums the same N values on one thread from a long[] (the baseline), and from
// smart arrays at 64 bits (uncompressed) and 33 bits (compressed) through the chunk cursor (its
// chunkSum(), the binding's Java sum of a chunk: the headline; and a plain loop over each chunk's
// segment), the direct segment, the native single-thread sum, and one native call per element (the
// JNI-like path). Prints `RESULT language=java variant=... bits=... n=... ns_per_element=... sum=...`
// lines: each variant's best of several rounds (variants run round-robin) after JIT warm-up.
// Not a unit test (Surefire skips it).
//
// Usage (classpath target/classes:target/test-classes, --enable-native-access=ALL-UNNAMED,
// -Dsmartarrays.library=...): SumBench [--n N] [--repetitions R] [--chunk VALUES] [--only REGEX]
// (N also from the environment; --chunk sets the cursor's chunk, else each array's default chunk
// is used, as array.cursor() gives it; --only keeps matching variants).
package org.smartarrays.bench;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.regex.Pattern;
import org.smartarrays.ChunkCursor;
import org.smartarrays.Placement;
import org.smartarrays.SmartArray;

/** Single-threaded sums over N values from Java; see the file header. */
public final class SumBench {
    /** Values per warm-up call, and values summed in warm-up per variant: enough for C2 to compile every loop. */
    private static final int WARMUP_VALUES = 1 << 20;

    private static final long WARMUP_TOTAL = 40_000_000L;

    private interface Sum {
        long over(long limit);
    }

    private SumBench() {}

    /** The benchmark's value at index i: 33 significant bits, the same formula as langbench-rust. */
    static long value(long i) {
        return (i * 0x9E3779B97F4A7C15L) >>> 31;
    }

    public static void main(String[] args) {
        long n = 100_000_000L;
        String fromEnvironment = System.getenv("N");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            n = Long.parseLong(fromEnvironment.replace("_", "").trim());
        }
        int repetitions = 5;
        int chunk = 0; // 0: each array's default (ChunkCursor.defaultChunkValues)
        Pattern only = Pattern.compile(".*");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--n" -> n = Long.parseLong(args[++i].replace("_", ""));
                case "--repetitions" -> repetitions = Integer.parseInt(args[++i]);
                case "--chunk" -> chunk = Integer.parseInt(args[++i]);
                case "--only" -> only = Pattern.compile(args[++i]);
                default -> throw new IllegalArgumentException(
                        "usage: SumBench [--n N] [--repetitions R] [--chunk VALUES] [--only REGEX]; unknown " + args[i]);
            }
        }
        if (n < 1 || n > Integer.MAX_VALUE - 8 || repetitions < 1) {
            throw new IllegalArgumentException("N must be within 1.." + (Integer.MAX_VALUE - 8) + " (a long[] holds it) and R at least 1");
        }
        // One worker: building runs on it, and sum()/min()/max() would too; every timed sum below is single-threaded.
        SmartArray.setRuntimeThreads(1);
        final long count = n;
        final int chunkValues = chunk;
        long[] plain = new long[(int) n];
        for (int i = 0; i < plain.length; i++) {
            plain[i] = value(i);
        }
        long expected = 0;
        for (long v : plain) {
            expected += v;
        }
        try (SmartArray wide = build(count, 64); SmartArray packed = build(count, 33)) {
            MemorySegment segment = wide.segment();
            Bench bench = new Bench(n, expected, only);
            bench.add("long_array", 64, false, limit -> sumLongArray(plain, limit));
            for (SmartArray array : new SmartArray[] {wide, packed}) {
                bench.add("smartarray_cursor", array.bits(), false, limit -> sumCursor(array, limit, chunkValues));
                bench.add("smartarray_cursor_loop", array.bits(), false, limit -> sumCursorLoop(array, limit, chunkValues));
                if (array.isUncompressed()) {
                    bench.add("smartarray_segment", 64, false, limit -> sumSegment(segment, limit));
                }
                bench.add("smartarray_native_sum", array.bits(), false, limit -> array.sumRange(0, limit));
                bench.add("native_get", array.bits(), true, limit -> sumGet(array, limit));
            }
            bench.run(repetitions);
        }
    }

    /** Builds the array from the values in a temporary native segment (no second Java copy). */
    private static SmartArray build(long n, int bits) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment values = arena.allocate(JAVA_LONG, n);
            for (long i = 0; i < n; i++) {
                values.setAtIndex(JAVA_LONG, i, value(i));
            }
            return SmartArray.of(values, Placement.osDefault(), bits);
        }
    }

    static long sumLongArray(long[] values, long limit) {
        long total = 0;
        for (int i = 0; i < (int) limit; i++) {
            total += values[i];
        }
        return total;
    }

    /** A cursor over the first {@code limit} values: the array's default chunk when chunkValues is 0. */
    private static ChunkCursor open(SmartArray array, long limit, int chunkValues) {
        return chunkValues == 0 ? array.cursor(0, limit) : array.cursor(0, limit, chunkValues);
    }

    /** The cursor's own sum of each chunk (four accumulators over a long[] for compressed chunks). */
    static long sumCursor(SmartArray array, long limit, int chunkValues) {
        long total = 0;
        try (ChunkCursor cursor = open(array, limit, chunkValues)) {
            while (cursor.next()) {
                total += cursor.chunkSum();
            }
        }
        return total;
    }

    /** A plain one-accumulator loop over each chunk's segment, as a user might write it. */
    static long sumCursorLoop(SmartArray array, long limit, int chunkValues) {
        long total = 0;
        try (ChunkCursor cursor = open(array, limit, chunkValues)) {
            while (cursor.next()) {
                MemorySegment chunk = cursor.values();
                int count = cursor.count();
                for (int i = 0; i < count; i++) {
                    total += chunk.getAtIndex(JAVA_LONG, i);
                }
            }
        }
        return total;
    }

    static long sumSegment(MemorySegment values, long limit) {
        long total = 0;
        for (long i = 0; i < limit; i++) {
            total += values.getAtIndex(JAVA_LONG, i);
        }
        return total;
    }

    static long sumGet(SmartArray array, long limit) {
        long total = 0;
        for (long i = 0; i < limit; i++) {
            total += array.get(i);
        }
        return total;
    }

    /**
     * Times variants round-robin: every round runs each variant once, so a burst of load from other
     * processes hits all of them alike; each variant's best round is reported.
     */
    private static final class Bench {
        private record Variant(String name, int bits, boolean slow, Sum sum, double[] best) {}

        private final long n;
        private final long expected;
        private final Pattern only;
        private final java.util.List<Variant> variants = new java.util.ArrayList<>();

        Bench(long n, long expected, Pattern only) {
            this.n = n;
            this.expected = expected;
            this.only = only;
        }

        /** Adds a variant; slow ones (one native call per value) get at most two timed rounds. */
        void add(String name, int bits, boolean slow, Sum sum) {
            if (name.equals("long_array") || only.matcher(name).find()) {
                variants.add(new Variant(name, bits, slow, sum, new double[] {Double.POSITIVE_INFINITY}));
            }
        }

        void run(int repetitions) {
            long warmLength = Math.min(n, WARMUP_VALUES);
            long calls = Math.max(30, Math.min(5_000, WARMUP_TOTAL / warmLength));
            for (Variant variant : variants) {
                // Varying warm-up lengths (so partial chunks are seen too), then one full untimed run: C2 must
                // not meet a branch for the first time, and deoptimise, inside a timed run.
                for (long i = 0; i < (variant.slow() ? Math.min(calls, 30) : calls); i++) {
                    variant.sum().over(Math.max(1, warmLength - 997L * (i % 64)));
                }
                check(variant, variant.sum().over(n));
            }
            for (int round = 0; round < repetitions; round++) {
                for (Variant variant : variants) {
                    if (variant.slow() && round >= 2) {
                        continue;
                    }
                    long start = System.nanoTime();
                    long total = variant.sum().over(n);
                    long elapsed = System.nanoTime() - start;
                    check(variant, total);
                    variant.best()[0] = Math.min(variant.best()[0], elapsed);
                }
            }
            for (Variant variant : variants) {
                System.out.println(String.format(Locale.ROOT, "RESULT language=java variant=%s bits=%d n=%d ns_per_element=%.4f sum=%s",
                        variant.name(), variant.bits(), n, variant.best()[0] / n, Long.toUnsignedString(expected)));
            }
        }

        private void check(Variant variant, long total) {
            if (total != expected) {
                throw new IllegalStateException(variant.name() + " at " + variant.bits() + " bits summed to " + Long.toUnsignedString(total)
                        + ", expected " + Long.toUnsignedString(expected));
            }
        }
    }
}
