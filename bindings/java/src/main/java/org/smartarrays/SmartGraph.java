// SmartGraph: the Java face of a graph of smartarrays-graph (sa_graph_* in the C ABI): CSR offsets
// and neighbour ids in placed, bit-packed native memory, built from edge arrays, files or the
// Kronecker generator, with BFS, connected components, PageRank, betweenness and triangle
// counting returning Java arrays. Owns one C handle; the algorithms run in Rust.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A directed or undirected graph in compressed sparse row form, in native memory placed by a
 * {@link Placement}. Edges are kept as given (repeats count, as in a multigraph).
 *
 * <pre>{@code
 * try (SmartGraph g = SmartGraph.fromEdges(new long[] {0, 1, 2, 3}, new long[] {1, 2, 0, 4}, 0, false, Placement.osDefault())) {
 *     long[] levels = g.bfs(0).levels();          // {0, 1, 1, -1, -1}
 *     long[] labels = g.connectedComponents();    // {0, 0, 0, 3, 3}
 *     double[] ranks = g.pagerank();              // sum to 1
 *     long triangles = g.triangleCount();         // 1
 * }
 * }</pre>
 *
 * <p>Every method may run concurrently with the others on one graph; {@link #close()} frees the
 * native memory (later calls are an {@link IllegalStateException}).
 */
public final class SmartGraph implements AutoCloseable {
    /** Progress of a long run: {@code done} of {@code total} steps (PageRank iterations, betweenness sources). */
    @FunctionalInterface
    public interface Progress {
        /**
         * Called on the calling thread between steps.
         *
         * @param done steps done
         * @param total steps in all (for PageRank, the iteration limit)
         */
        void step(long done, long total);
    }

    /**
     * The result of a breadth-first search.
     *
     * @param levels hops from the source, -1 where not reached
     * @param parents the parent of each vertex in one BFS tree (the source is its own), -1 where not reached
     */
    public record Bfs(long[] levels, long[] parents) {}

    /**
     * Every PageRank setting, for {@link #pagerank(PageRankOptions, Progress)}; start from
     * {@link #defaults()} and change what is wanted with the {@code with...} methods. The words are
     * the ones the C, Python and command-line interfaces use.
     *
     * @param damping the damping factor, in (0, 1)
     * @param tolerance stop when the sum of absolute rank changes of an iteration is below this
     * @param maxIterations stop after this many iterations
     * @param gaussSeidel update in place (fewer iterations to the same tolerance) instead of Jacobi
     * @param dangling "spread" (a dangling vertex's rank is spread over all) or "drop" (left out,
     *     as GAPBS does: ranks sum to less than 1)
     * @param contributions "f64" (ranks of the plain double formula) or "f32" (half the memory
     *     traffic of the gather; ranks agree to about 1e-7 of their value)
     * @param cellOrder "auto" ("degree" above 262,144 vertices), "vertex" or "degree" (the
     *     most-read contribution cells first; the ranks are the same)
     */
    public record PageRankOptions(double damping, double tolerance, int maxIterations, boolean gaussSeidel, String dangling,
            String contributions, String cellOrder) {
        /** Checks that the texts are given. */
        public PageRankOptions {
            Objects.requireNonNull(dangling, "dangling");
            Objects.requireNonNull(contributions, "contributions");
            Objects.requireNonNull(cellOrder, "cellOrder");
        }

        /** @return damping 0.85, tolerance 1e-6, 1000 iterations, Jacobi, "spread", "f64", "auto" */
        public static PageRankOptions defaults() {
            return new PageRankOptions(0.85, 1e-6, 1000, false, "spread", "f64", "auto");
        }

        /** @param value the damping factor @return a copy with it */
        public PageRankOptions withDamping(double value) {
            return new PageRankOptions(value, tolerance, maxIterations, gaussSeidel, dangling, contributions, cellOrder);
        }

        /** @param value the tolerance @return a copy with it */
        public PageRankOptions withTolerance(double value) {
            return new PageRankOptions(damping, value, maxIterations, gaussSeidel, dangling, contributions, cellOrder);
        }

        /** @param value the iteration limit @return a copy with it */
        public PageRankOptions withMaxIterations(int value) {
            return new PageRankOptions(damping, tolerance, value, gaussSeidel, dangling, contributions, cellOrder);
        }

        /** @param value whether to update in place @return a copy with it */
        public PageRankOptions withGaussSeidel(boolean value) {
            return new PageRankOptions(damping, tolerance, maxIterations, value, dangling, contributions, cellOrder);
        }

        /** @param value "spread" or "drop" @return a copy with it */
        public PageRankOptions withDangling(String value) {
            return new PageRankOptions(damping, tolerance, maxIterations, gaussSeidel, value, contributions, cellOrder);
        }

        /** @param value "f64" or "f32" @return a copy with it */
        public PageRankOptions withContributions(String value) {
            return new PageRankOptions(damping, tolerance, maxIterations, gaussSeidel, dangling, value, cellOrder);
        }

        /** @param value "auto", "vertex" or "degree" @return a copy with it */
        public PageRankOptions withCellOrder(String value) {
            return new PageRankOptions(damping, tolerance, maxIterations, gaussSeidel, dangling, contributions, value);
        }
    }

    /**
     * The result of {@link #pagerank(PageRankOptions, Progress)}.
     *
     * @param ranks each vertex's rank
     * @param iterations iterations run
     * @param converged whether the change fell below the tolerance (false: stopped at the limit)
     * @param change the last iteration's sum of absolute rank changes
     * @param cellOrder the contribution cells' order the run used: "vertex" or "degree"
     */
    public record PageRank(double[] ranks, long iterations, boolean converged, double change, String cellOrder) {}

    private final NativeHandle handle;
    private final long vertices;
    private final long edges;
    private final boolean directed;

    private SmartGraph(MemorySegment raw) {
        this.handle = new NativeHandle(this, raw, Native.GRAPH_FREE);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocate(JAVA_LONG);
            MemorySegment m = arena.allocate(JAVA_LONG);
            MemorySegment d = arena.allocate(JAVA_BOOLEAN);
            Native.check((int) Native.GRAPH_SHAPE.invokeExact(handle.get(), n, m, d));
            this.vertices = n.get(JAVA_LONG, 0);
            this.edges = m.get(JAVA_LONG, 0);
            this.directed = d.get(JAVA_BOOLEAN, 0);
        } catch (Throwable t) {
            handle.close();
            throw Native.rethrow(t);
        }
    }

    /**
     * A graph from edges {@code sources[i] -> targets[i]}.
     *
     * @param sources the edges' sources (vertex ids, not negative)
     * @param targets the edges' targets, as many as sources
     * @param vertices the vertex count, or 0 for one past the largest id
     * @param directed whether the edges are directed
     * @param placement where the memory goes
     * @return the new graph
     * @throws IllegalArgumentException for arrays of different lengths or a negative id, naming it
     * @throws SmartArrayException {@code INVALID_ARGUMENT} when {@code vertices} is too small for an id
     */
    public static SmartGraph fromEdges(long[] sources, long[] targets, long vertices, boolean directed, Placement placement) {
        Objects.requireNonNull(sources, "sources");
        Objects.requireNonNull(targets, "targets");
        Objects.requireNonNull(placement, "placement");
        if (sources.length != targets.length) {
            throw new IllegalArgumentException("sources holds " + sources.length + " vertex ids but targets " + targets.length);
        }
        for (int i = 0; i < sources.length; i++) {
            if (sources[i] < 0 || targets[i] < 0) {
                throw new IllegalArgumentException("edge " + i + " (" + sources[i] + " -> " + targets[i] + ") has a negative vertex id");
            }
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment from = arena.allocateFrom(JAVA_LONG, sources);
            MemorySegment to = arena.allocateFrom(JAVA_LONG, targets);
            int status = (int) Native.GRAPH_FROM_EDGES.invokeExact(from, to, (long) sources.length, vertices, directed,
                    arena.allocateFrom(placement.toString()), out);
            return new SmartGraph(NativeHandle.created(status, out));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** The downcall of {@code sa_graph_from_csr}, looked up on first use. */
    private static final class CsrCall {
        static final MethodHandle FROM_CSR = Native.lookup("sa_graph_from_csr",
                FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_BOOLEAN,
                        ADDRESS, ADDRESS));
    }

    /**
     * A graph from compressed sparse row arrays: vertex {@code v}'s neighbours are
     * {@code targets[offsets[v]]} up to {@code targets[offsets[v + 1] - 1]}, so {@code offsets}
     * holds one value more than there are vertices, starts at 0, never decreases and ends at
     * {@code targets.length}. Lists need not be sorted; repeated entries and self-loops are kept.
     * Undirected: each entry {@code (v, w)} is one edge, stored at both ends (pass one triangle
     * of a symmetric matrix), so the graph equals {@link #fromEdges} of the same pairs.
     *
     * <pre>{@code
     * // 0 -> 1, 0 -> 2, 2 -> 1
     * try (SmartGraph g = SmartGraph.fromCsr(new long[] {0, 2, 2, 3}, new long[] {2, 1, 1}, true, Placement.osDefault())) {
     *     long[] levels = g.bfs(0).levels();   // {0, 1, 1}
     * }
     * }</pre>
     *
     * @param offsets where each vertex's list starts in {@code targets}, then {@code targets.length}
     * @param targets the neighbour lists, one after the other (vertex ids, not negative)
     * @param directed whether the edges are directed
     * @param placement where the memory goes
     * @return the new graph
     * @throws IllegalArgumentException for empty {@code offsets} or a negative value, naming it
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for offsets that do not start at 0, decrease or do not
     *     end at {@code targets.length}, or a target that is not a vertex (the message names the position)
     */
    public static SmartGraph fromCsr(long[] offsets, long[] targets, boolean directed, Placement placement) {
        Objects.requireNonNull(offsets, "offsets");
        Objects.requireNonNull(targets, "targets");
        Objects.requireNonNull(placement, "placement");
        if (offsets.length == 0) {
            throw new IllegalArgumentException("offsets is empty: it holds the vertex count + 1 values ({0} for no vertices)");
        }
        for (int i = 0; i < offsets.length; i++) {
            if (offsets[i] < 0) {
                throw new IllegalArgumentException("offsets[" + i + "] = " + offsets[i] + " is negative");
            }
        }
        for (int i = 0; i < targets.length; i++) {
            if (targets[i] < 0) {
                throw new IllegalArgumentException("targets[" + i + "] = " + targets[i] + " is a negative vertex id");
            }
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment starts = arena.allocateFrom(JAVA_LONG, offsets);
            MemorySegment lists = targets.length == 0 ? MemorySegment.NULL : arena.allocateFrom(JAVA_LONG, targets);
            int status = (int) CsrCall.FROM_CSR.invokeExact(starts, (long) offsets.length - 1, lists, (long) targets.length,
                    directed, arena.allocateFrom(placement.toString()), out);
            return new SmartGraph(NativeHandle.created(status, out));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Loads an edge list, Matrix Market or {@code .sag} file.
     *
     * @param path the file
     * @param undirected whether an edge list's edges are undirected
     * @param placement where the memory goes
     * @return the new graph
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a malformed line (the message names the file and
     *     line), {@code SYSTEM} for a file that cannot be read
     */
    public static SmartGraph load(Path path, boolean undirected, Placement placement) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(placement, "placement");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int status = (int) Native.GRAPH_LOAD.invokeExact(arena.allocateFrom(path.toString()), undirected,
                    arena.allocateFrom(placement.toString()), out);
            return new SmartGraph(NativeHandle.created(status, out));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Writes the graph in the format the file name's extension names: {@code .sag} (binary, loads
     * without parsing), {@code .mtx} (Matrix Market), {@code .wel} (a weighted edge list), else an
     * edge list; a weighted graph's weights go into {@code .sag} and {@code .wel} files.
     *
     * @param path the file to write
     * @throws SmartArrayException {@code SYSTEM} for a file that cannot be written
     */
    public void save(Path path) {
        Objects.requireNonNull(path, "path");
        try (Arena arena = Arena.ofConfined()) {
            Native.check((int) GraphFileCalls.SAVE.invokeExact(handle.get(), arena.allocateFrom(path.toString())));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Converts a graph file into another format, as {@code smartarrays graph convert} does: loads
     * {@code input} as {@link #load} would and writes it as {@link #save} would; nothing is written
     * when the input cannot be read.
     *
     * @param input the file to read
     * @param output the file to write (its extension names the format)
     * @param undirected whether an edge list's edges are undirected
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a malformed input line, {@code SYSTEM}
     *     for a file that cannot be read or written
     */
    public static void convert(Path input, Path output, boolean undirected) {
        Objects.requireNonNull(input, "input");
        Objects.requireNonNull(output, "output");
        try (Arena arena = Arena.ofConfined()) {
            Native.check((int) GraphFileCalls.CONVERT.invokeExact(arena.allocateFrom(input.toString()),
                    arena.allocateFrom(output.toString()), undirected));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** The downcalls of the file functions (sa_graph_save, sa_graph_convert), looked up on first use. */
    private static final class GraphFileCalls {
        static final MethodHandle SAVE = Native.lookup("sa_graph_save",
                FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle CONVERT = Native.lookup("sa_graph_convert",
                FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT, ADDRESS, ADDRESS, JAVA_BOOLEAN));
    }

    /**
     * A seeded Kronecker graph (the Graph500 and GAPBS generator's parameters).
     *
     * @param scale log2 of the vertex count
     * @param edgeFactor generated edges per vertex
     * @param seed the generator's seed
     * @param directed whether the edges are directed
     * @param placement where the memory goes
     * @return the new graph
     */
    public static SmartGraph kronecker(int scale, long edgeFactor, long seed, boolean directed, Placement placement) {
        Objects.requireNonNull(placement, "placement");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int status = (int) Native.GRAPH_KRONECKER.invokeExact(scale, edgeFactor, seed, directed,
                    arena.allocateFrom(placement.toString()), out);
            return new SmartGraph(NativeHandle.created(status, out));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** @return the number of vertices */
    public long vertexCount() {
        return vertices;
    }

    /** @return the number of edges (an undirected edge counts once) */
    public long edgeCount() {
        return edges;
    }

    /** @return whether the edges are directed */
    public boolean isDirected() {
        return directed;
    }

    private int perVertex() {
        return Math.toIntExact(vertices);
    }

    /**
     * Breadth-first search.
     *
     * @param source the start vertex
     * @return levels and parents, -1 where not reached
     * @throws SmartArrayException {@code INVALID_ARGUMENT} when the source is not a vertex
     */
    public Bfs bfs(long source) {
        int n = perVertex();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment levels = arena.allocate(JAVA_LONG, Math.max(1, n));
            MemorySegment parents = arena.allocate(JAVA_LONG, Math.max(1, n));
            Native.check((int) Native.GRAPH_BFS.invokeExact(handle.get(), source, levels, parents, (long) n));
            return new Bfs(levels.asSlice(0, 8L * n).toArray(JAVA_LONG), parents.asSlice(0, 8L * n).toArray(JAVA_LONG));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** @return each vertex's component label: the smallest vertex id of its (weakly) connected component */
    public long[] connectedComponents() {
        int n = perVertex();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment labels = arena.allocate(JAVA_LONG, Math.max(1, n));
            Native.check((int) Native.GRAPH_COMPONENTS.invokeExact(handle.get(), labels, (long) n, MemorySegment.NULL));
            return labels.asSlice(0, 8L * n).toArray(JAVA_LONG);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** @return PageRank with damping 0.85 to a change below 1e-6 (Jacobi), ranks summing to 1 */
    public double[] pagerank() {
        return pagerank(0.85, 1e-6, 1000, false, null);
    }

    /**
     * PageRank; a dangling vertex's rank is spread over every vertex.
     *
     * @param damping the damping factor, in (0, 1)
     * @param tolerance stop when the sum of absolute rank changes of an iteration is below this
     * @param maxIterations stop after this many iterations
     * @param gaussSeidel update in place (fewer iterations to the same tolerance)
     * @param progress {@code null}, or called after every iteration
     * @return the ranks, summing to 1
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a damping or tolerance out of range
     */
    public double[] pagerank(double damping, double tolerance, int maxIterations, boolean gaussSeidel, Progress progress) {
        int n = perVertex();
        try (Arena arena = Arena.ofConfined()) {
            Upcall upcall = Upcall.of(progress, arena);
            MemorySegment ranks = arena.allocate(JAVA_DOUBLE, Math.max(1, n));
            int status = (int) Native.GRAPH_PAGERANK.invokeExact(handle.get(), damping, tolerance, (long) maxIterations, gaussSeidel,
                    ranks, (long) n, MemorySegment.NULL, upcall.stub, MemorySegment.NULL);
            upcall.rethrow();
            Native.check(status);
            return ranks.asSlice(0, 8L * n).toArray(JAVA_DOUBLE);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * PageRank with every setting, and how the run went.
     *
     * <pre>{@code
     * SmartGraph.PageRank run = g.pagerank(SmartGraph.PageRankOptions.defaults().withGaussSeidel(true).withCellOrder("degree"), null);
     * System.out.println(run.iterations() + " iterations, cells in " + run.cellOrder() + " order");
     * }</pre>
     *
     * @param options the settings
     * @param progress {@code null}, or called after every iteration (with the iteration limit as total)
     * @return the ranks and the run's summary
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a setting out of range or an unknown word
     */
    public PageRank pagerank(PageRankOptions options, Progress progress) {
        Objects.requireNonNull(options, "options");
        int n = perVertex();
        try (Arena arena = Arena.ofConfined()) {
            Upcall upcall = Upcall.of(progress, arena);
            // SaPageRankOptions: two doubles, size_t, bool (padded to 8), three text pointers.
            MemorySegment given = arena.allocate(56, 8);
            given.set(JAVA_DOUBLE, 0, options.damping());
            given.set(JAVA_DOUBLE, 8, options.tolerance());
            given.set(JAVA_LONG, 16, options.maxIterations());
            given.set(JAVA_BOOLEAN, 24, options.gaussSeidel());
            given.set(ADDRESS, 32, arena.allocateFrom(options.dangling()));
            given.set(ADDRESS, 40, arena.allocateFrom(options.contributions()));
            given.set(ADDRESS, 48, arena.allocateFrom(options.cellOrder()));
            // SaPageRankSummary: size_t, bool (padded to 8), double, a static text pointer.
            MemorySegment summary = arena.allocate(32, 8);
            MemorySegment ranks = arena.allocate(JAVA_DOUBLE, Math.max(1, n));
            int status = (int) Native.GRAPH_PAGERANK_WITH_OPTIONS.invokeExact(handle.get(), given, ranks, (long) n, summary,
                    upcall.stub, MemorySegment.NULL);
            upcall.rethrow();
            Native.check(status);
            String cellOrder = Native.cString(summary.get(ADDRESS, 24));
            return new PageRank(ranks.asSlice(0, 8L * n).toArray(JAVA_DOUBLE), summary.get(JAVA_LONG, 0),
                    summary.get(JAVA_BOOLEAN, 8), summary.get(JAVA_DOUBLE, 16), cellOrder);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Builds the degree order of the vertex cells now (a renamed copy of the incoming lists, as
     * large as them, that PageRank's "degree" cell order gathers through), so a timed PageRank
     * does not include it. It lives until {@link #close()}.
     *
     * @return whether the copy exists (false when the ids do not fit 32 bits)
     */
    public boolean prepareDegreeOrder() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment built = arena.allocate(JAVA_BOOLEAN);
            Native.check((int) Native.GRAPH_PREPARE_DEGREE_ORDER.invokeExact(handle.get(), built));
            return built.get(JAVA_BOOLEAN, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Betweenness centrality (Brandes), unnormalised.
     *
     * @param sources {@code null} for every vertex (exact), else the vertices to start from
     * @param progress {@code null}, or called after every source
     * @return each vertex's score
     */
    public double[] betweenness(long[] sources, Progress progress) {
        int n = perVertex();
        try (Arena arena = Arena.ofConfined()) {
            Upcall upcall = Upcall.of(progress, arena);
            MemorySegment from = sources == null ? MemorySegment.NULL : arena.allocateFrom(JAVA_LONG, sources);
            long count = sources == null ? 0 : sources.length;
            MemorySegment scores = arena.allocate(JAVA_DOUBLE, Math.max(1, n));
            int status = (int) Native.GRAPH_BETWEENNESS.invokeExact(handle.get(), from, count, scores, (long) n, upcall.stub,
                    MemorySegment.NULL);
            upcall.rethrow();
            Native.check(status);
            return scores.asSlice(0, 8L * n).toArray(JAVA_DOUBLE);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Betweenness from sampled sources.
     *
     * @param scores each vertex's unnormalised score
     * @param sources the sources drawn, in the order they ran
     */
    public record SampledBetweenness(double[] scores, long[] sources) {}

    /**
     * Betweenness centrality (Brandes), unnormalised, from {@code count} sources drawn uniformly
     * with a seeded generator among the vertices that have out-edges (GAPBS's sampled BC; the same
     * seed draws the same sources, repeats possible).
     *
     * @param count how many sources
     * @param seed the generator's seed
     * @param progress {@code null}, or called after every source
     * @return the scores and the sources drawn
     * @throws SmartArrayException {@code INVALID_ARGUMENT} when no vertex has out-edges
     */
    public SampledBetweenness betweennessSampled(int count, long seed, Progress progress) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        int n = perVertex();
        try (Arena arena = Arena.ofConfined()) {
            Upcall upcall = Upcall.of(progress, arena);
            MemorySegment scores = arena.allocate(JAVA_DOUBLE, Math.max(1, n));
            MemorySegment drawn = arena.allocate(JAVA_LONG, Math.max(1, count));
            int status = (int) Native.GRAPH_BETWEENNESS_SAMPLED.invokeExact(handle.get(), (long) count, seed, scores, (long) n,
                    drawn, upcall.stub, MemorySegment.NULL);
            upcall.rethrow();
            Native.check(status);
            return new SampledBetweenness(scores.asSlice(0, 8L * n).toArray(JAVA_DOUBLE),
                    drawn.asSlice(0, 8L * count).toArray(JAVA_LONG));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * @return the number of triangles of an undirected graph
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a directed graph
     */
    public long triangleCount() {
        return handle.size(Native.GRAPH_TRIANGLE_COUNT);
    }

    /**
     * Triangles of an undirected graph, counted in the given vertex order.
     *
     * @param order "degree" (by degree then id, on oriented lists gathered first: the default of
     *     {@link #triangleCount()}) or "id" (by vertex id, on the graph's lists in place); the count
     *     is the same
     * @return the number of triangles
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a directed graph or an unknown order
     */
    public long triangleCount(String order) {
        Objects.requireNonNull(order, "order");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_LONG);
            Native.check((int) Native.GRAPH_TRIANGLE_COUNT_ORDERED.invokeExact(handle.get(), arena.allocateFrom(order), count));
            return count.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    // Edge weights and single-source shortest paths (sa_graph_from_weighted_edges,
    // sa_graph_generate_weights, sa_graph_is_weighted, sa_graph_sssp).

    /** The downcalls of the weight and SSSP functions, looked up on first use. */
    private static final class SsspCalls {
        static final MethodHandle FROM_WEIGHTED_EDGES = Native.lookup("sa_graph_from_weighted_edges",
                FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG,
                        JAVA_BOOLEAN, ADDRESS, ADDRESS));
        static final MethodHandle GENERATE_WEIGHTS = Native.lookup("sa_graph_generate_weights",
                FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT, ADDRESS, JAVA_LONG));
        static final MethodHandle IS_WEIGHTED = Native.lookup("sa_graph_is_weighted",
                FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle SSSP = Native.lookup("sa_graph_sssp",
                FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG,
                        ADDRESS, ADDRESS, ADDRESS));
    }

    /**
     * A weighted graph from edges {@code sources[i] -> targets[i]} of weight {@code weights[i]}
     * (an undirected edge has its weight both ways); otherwise as {@link #fromEdges(long[], long[], long, boolean,
     * Placement)}. The weights are what {@link #sssp} adds up.
     *
     * <pre>{@code
     * // 0 -> 1 (5), 0 -> 2 (1), 2 -> 1 (2); vertex 3 has no edges
     * try (SmartGraph g = SmartGraph.fromEdges(new long[] {0, 0, 2}, new long[] {1, 2, 1}, new long[] {5, 1, 2}, 4, true,
     *         Placement.osDefault())) {
     *     long[] distances = g.sssp(0, 1);   // {0, 3, 1, -1}
     * }
     * }</pre>
     *
     * @param sources the edges' sources (vertex ids, not negative)
     * @param targets the edges' targets, as many as sources
     * @param weights the edges' weights, as many as sources: integers from 0 to 2^32 - 1
     * @param vertices the vertex count, or 0 for one past the largest id
     * @param directed whether the edges are directed
     * @param placement where the memory goes
     * @return the new graph, {@link #isWeighted() weighted}
     * @throws IllegalArgumentException for arrays of different lengths, a negative id or a negative weight, naming it
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a weight above 2^32 - 1 (the message names the edge
     *     index and the value) or a {@code vertices} too small for an id
     */
    public static SmartGraph fromEdges(long[] sources, long[] targets, long[] weights, long vertices, boolean directed,
            Placement placement) {
        Objects.requireNonNull(sources, "sources");
        Objects.requireNonNull(targets, "targets");
        Objects.requireNonNull(weights, "weights");
        Objects.requireNonNull(placement, "placement");
        if (sources.length != targets.length || sources.length != weights.length) {
            throw new IllegalArgumentException("sources holds " + sources.length + " vertex ids, targets " + targets.length
                    + " and weights " + weights.length + ": one of each per edge");
        }
        for (int i = 0; i < sources.length; i++) {
            if (sources[i] < 0 || targets[i] < 0) {
                throw new IllegalArgumentException("edge " + i + " (" + sources[i] + " -> " + targets[i] + ") has a negative vertex id");
            }
            if (weights[i] < 0) {
                throw new IllegalArgumentException("weights[" + i + "] = " + weights[i] + " is negative");
            }
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment from = sources.length == 0 ? MemorySegment.NULL : arena.allocateFrom(JAVA_LONG, sources);
            MemorySegment to = targets.length == 0 ? MemorySegment.NULL : arena.allocateFrom(JAVA_LONG, targets);
            MemorySegment by = weights.length == 0 ? MemorySegment.NULL : arena.allocateFrom(JAVA_LONG, weights);
            int status = (int) SsspCalls.FROM_WEIGHTED_EDGES.invokeExact(from, to, by, (long) sources.length, vertices, directed,
                    arena.allocateFrom(placement.toString()), out);
            return new SmartGraph(NativeHandle.created(status, out));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Gives every edge a generated weight in 1..255 from a hash of {@code seed} and the edge's
     * ends (both directions of an undirected edge agree; the same seed gives the same weights),
     * replacing the weights the graph had. Safe while other calls use the graph: an {@link #sssp}
     * already running keeps the weights it started with.
     *
     * @param seed the seed of the weights
     */
    public void generateWeights(long seed) {
        try {
            Native.check((int) SsspCalls.GENERATE_WEIGHTS.invokeExact(handle.get(), seed));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * @return whether the edges carry weights (given to {@link #fromEdges(long[], long[], long[], long, boolean,
     *     Placement)}, generated by {@link #generateWeights}, or loaded from a weighted {@code .sag} or {@code .wel} file)
     */
    public boolean isWeighted() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_BOOLEAN);
            Native.check((int) SsspCalls.IS_WEIGHTED.invokeExact(handle.get(), out));
            return out.get(JAVA_BOOLEAN, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Single-source shortest paths over the edge weights, without a progress listener.
     *
     * @param source the start vertex
     * @param delta the bucket width of delta-stepping, at least 1 (the distances do not depend on it)
     * @return each vertex's distance from the source (the sum of the weights along a shortest path), -1 where not reached
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a graph without weights, a source that is not a vertex
     *     or a delta of 0
     * @see #sssp(long, long, Progress)
     */
    public long[] sssp(long source, long delta) {
        return sssp(source, delta, null);
    }

    /**
     * Single-source shortest paths over the edge weights by delta-stepping: vertices are settled
     * in buckets of distances of width {@code delta}; 1 is a parallel Dijkstra, larger deltas take
     * fewer rounds at the price of repeated relaxations. The distances are exact whatever the delta.
     *
     * @param source the start vertex
     * @param delta the bucket width, at least 1
     * @param progress {@code null}, or called after every round with the rounds run so far and a total of 0 (the
     *     number of rounds is not known in advance); an exception it throws is rethrown here after the run
     * @return each vertex's distance from the source (the sum of the weights along a shortest path), -1 where not reached
     * @throws SmartArrayException {@code INVALID_ARGUMENT} for a graph without weights (the message says how to give
     *     them), a source that is not a vertex or a delta of 0
     */
    public long[] sssp(long source, long delta, Progress progress) {
        int n = perVertex();
        try (Arena arena = Arena.ofConfined()) {
            Upcall upcall = Upcall.of(progress, arena);
            MemorySegment distances = arena.allocate(JAVA_LONG, Math.max(1, n));
            int status = (int) SsspCalls.SSSP.invokeExact(handle.get(), source, delta, distances, (long) n, MemorySegment.NULL,
                    upcall.stub, MemorySegment.NULL);
            upcall.rethrow();
            Native.check(status);
            return distances.asSlice(0, 8L * n).toArray(JAVA_LONG);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    // Vertex relabelling by degree (sa_graph_reorder_by_degree).

    /** The downcall of {@code sa_graph_reorder_by_degree}, looked up on first use. */
    private static final class ReorderCall {
        static final MethodHandle REORDER = Native.lookup("sa_graph_reorder_by_degree",
                FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    }

    /**
     * A graph relabelled by {@link #reorderByDegree()} and its id map; closing it closes the graph.
     *
     * @param graph the relabelled graph: its vertex {@code ids.toNew(v)} is vertex {@code v} of the input
     * @param ids the map between the input's ids and the relabelled graph's
     */
    public record Reordered(SmartGraph graph, VertexIds ids) implements AutoCloseable {
        /** Closes the relabelled graph. */
        @Override
        public void close() {
            graph.close();
        }
    }

    /**
     * The graph relabelled by decreasing degree (out + in when directed; equal degrees keep their
     * order), with the id map. The kernels run faster on it for skewed graphs, and the relabelling
     * costs about as much as a few kernel runs: relabel once, run many kernels from
     * {@code ids.toNew(source)}, and read the results back with {@link VertexIds#resultsToOriginal},
     * {@link VertexIds#parentsToOriginal} (BFS parents) or {@link VertexIds#labelsToOriginal}
     * (component labels). Edge weights move with their edges. This graph stays open.
     *
     * <pre>{@code
     * try (SmartGraph g = SmartGraph.kronecker(10, 16, 1, false, Placement.osDefault());
     *         SmartGraph.Reordered fast = g.reorderByDegree()) {
     *     long[] levels = fast.ids().resultsToOriginal(fast.graph().bfs(fast.ids().toNew(0)).levels());
     *     long[] labels = fast.ids().labelsToOriginal(fast.graph().connectedComponents());
     * }
     * }</pre>
     *
     * @return the relabelled graph (the caller closes it) and the id map
     */
    public Reordered reorderByDegree() {
        int n = perVertex();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment newIds = arena.allocate(JAVA_LONG, Math.max(1, n));
            int status = (int) ReorderCall.REORDER.invokeExact(handle.get(), out, newIds, MemorySegment.NULL, (long) n);
            SmartGraph graph = new SmartGraph(NativeHandle.created(status, out));
            return new Reordered(graph, VertexIds.fromNewIds(newIds.asSlice(0, 8L * n).toArray(JAVA_LONG)));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** @return whether {@link #close()} has run */
    public boolean isClosed() {
        return handle.isClosed();
    }

    /** Frees the native memory; idempotent. */
    @Override
    public void close() {
        handle.close();
    }

    @Override
    public String toString() {
        return "SmartGraph(" + vertices + " vertices, " + edges + (directed ? " directed" : " undirected") + " edges)";
    }

    /**
     * A progress callback as a C function pointer (NULL without one). An exception thrown by the
     * listener must not cross into native code: it is kept and rethrown after the call.
     */
    private static final class Upcall {
        private static final MethodHandle STEP;

        static {
            try {
                STEP = MethodHandles.lookup().findVirtual(Upcall.class, "step",
                        MethodType.methodType(void.class, MemorySegment.class, long.class, long.class));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final MemorySegment stub;
        private final Progress progress;
        private RuntimeException failure;

        private Upcall(Progress progress, Arena arena) {
            this.progress = progress;
            this.stub = progress == null ? MemorySegment.NULL
                    : Native.upcall(STEP.bindTo(this), FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, JAVA_LONG), arena);
        }

        static Upcall of(Progress progress, Arena arena) {
            return new Upcall(progress, arena);
        }

        @SuppressWarnings("unused")
        private void step(MemorySegment userData, long done, long total) {
            if (failure != null) {
                return;
            }
            try {
                progress.step(done, total);
            } catch (RuntimeException e) {
                failure = e;
            } catch (Throwable t) {
                failure = new IllegalStateException("the progress listener failed", t);
            }
        }

        void rethrow() {
            if (failure != null) {
                throw failure;
            }
        }
    }
}
