// VertexIds: the id map of a graph relabelled by SmartGraph.reorderByDegree() (sa_graph_reorder_by_degree
// in the C ABI), between the input's vertex ids ("original") and the relabelled graph's ("new"),
// with the translations of results that the Rust crate and the Python binding name the same way:
// toNew, toOriginal, resultsToOriginal, resultsToNew, parentsToOriginal, labelsToOriginal.
package org.smartarrays;

import java.util.Arrays;
import java.util.Objects;

/**
 * The map between a graph's original vertex ids and those of its relabelled copy: vertex
 * {@code toNew(v)} of the relabelled graph is vertex {@code v} of the input. Immutable; plain Java
 * arrays, so it outlives the graphs.
 *
 * <pre>{@code
 * VertexIds ids = VertexIds.fromNewIds(new long[] {2, 0, 1});
 * long v = ids.toOriginal(0);                                            // 1
 * double[] ranks = ids.resultsToOriginal(new double[] {10, 20, 30});     // {30, 10, 20}
 * long[] labels = ids.labelsToOriginal(new long[] {0, 1, 0});            // {0, 0, 2}
 * }</pre>
 */
public final class VertexIds {
    private final long[] newIds;
    private final long[] originalIds;

    private VertexIds(long[] newIds, long[] originalIds) {
        this.newIds = newIds;
        this.originalIds = originalIds;
    }

    /**
     * The map from the new id of every original vertex.
     *
     * @param newIds {@code newIds[v]} is the new id of original vertex {@code v}
     * @return the map
     * @throws IllegalArgumentException when {@code newIds} is not a permutation of {@code 0..newIds.length}
     */
    public static VertexIds fromNewIds(long[] newIds) {
        Objects.requireNonNull(newIds, "newIds");
        int n = newIds.length;
        long[] originalIds = new long[n];
        Arrays.fill(originalIds, -1);
        for (int v = 0; v < n; v++) {
            long id = newIds[v];
            if (id < 0 || id >= n || originalIds[(int) id] != -1) {
                throw new IllegalArgumentException("new id " + id + " of vertex " + v + " is "
                        + (id < 0 || id >= n ? "out of range" : "given twice") + " (ids must be a permutation of 0.." + n + ")");
            }
            originalIds[(int) id] = v;
        }
        return new VertexIds(newIds.clone(), originalIds);
    }

    /** @return the number of vertices */
    public int size() {
        return newIds.length;
    }

    /** @return the new id of every original vertex (indexed by original id), a copy */
    public long[] newIds() {
        return newIds.clone();
    }

    /** @return the original id of every new vertex (indexed by new id), a copy */
    public long[] originalIds() {
        return originalIds.clone();
    }

    /**
     * @param v an original vertex id
     * @return its new id
     * @throws IndexOutOfBoundsException when {@code v} is not a vertex
     */
    public long toNew(long v) {
        return newIds[index(v, "original")];
    }

    /**
     * @param v a new vertex id
     * @return its original id
     * @throws IndexOutOfBoundsException when {@code v} is not a vertex
     */
    public long toOriginal(long v) {
        return originalIds[index(v, "new")];
    }

    private int index(long v, String kind) {
        if (v < 0 || v >= newIds.length) {
            throw new IndexOutOfBoundsException(kind + " vertex " + v + " does not exist (the graph has " + newIds.length + " vertices)");
        }
        return (int) v;
    }

    private void checkLength(int length, String name) {
        if (length != newIds.length) {
            throw new IllegalArgumentException(name + " holds " + length + " values; the graph has " + newIds.length + " vertices");
        }
    }

    /**
     * Per-vertex results of the relabelled graph (levels, distances) in original order.
     *
     * @param values one value per vertex, indexed by new id
     * @return {@code result[v] = values[toNew(v)]}
     * @throws IllegalArgumentException for a length other than {@link #size()}
     */
    public long[] resultsToOriginal(long[] values) {
        checkLength(values.length, "values");
        long[] out = new long[values.length];
        for (int v = 0; v < out.length; v++) {
            out[v] = values[(int) newIds[v]];
        }
        return out;
    }

    /**
     * Per-vertex results of the relabelled graph (ranks, scores) in original order.
     *
     * @param values one value per vertex, indexed by new id
     * @return {@code result[v] = values[toNew(v)]}
     * @throws IllegalArgumentException for a length other than {@link #size()}
     */
    public double[] resultsToOriginal(double[] values) {
        checkLength(values.length, "values");
        double[] out = new double[values.length];
        for (int v = 0; v < out.length; v++) {
            out[v] = values[(int) newIds[v]];
        }
        return out;
    }

    /**
     * Per-vertex values in original order in the relabelled graph's order.
     *
     * @param values one value per vertex, indexed by original id
     * @return {@code result[w] = values[toOriginal(w)]}
     * @throws IllegalArgumentException for a length other than {@link #size()}
     */
    public long[] resultsToNew(long[] values) {
        checkLength(values.length, "values");
        long[] out = new long[values.length];
        for (int w = 0; w < out.length; w++) {
            out[w] = values[(int) originalIds[w]];
        }
        return out;
    }

    /**
     * Per-vertex values in original order in the relabelled graph's order.
     *
     * @param values one value per vertex, indexed by original id
     * @return {@code result[w] = values[toOriginal(w)]}
     * @throws IllegalArgumentException for a length other than {@link #size()}
     */
    public double[] resultsToNew(double[] values) {
        checkLength(values.length, "values");
        double[] out = new double[values.length];
        for (int w = 0; w < out.length; w++) {
            out[w] = values[(int) originalIds[w]];
        }
        return out;
    }

    /**
     * BFS parents of the relabelled graph in original order and original ids.
     *
     * @param parents as {@link SmartGraph#bfs} returns them on the relabelled graph: indexed by new id, holding new
     *     ids, -1 where not reached
     * @return the parent of every original vertex as an original id, -1 where not reached
     * @throws IllegalArgumentException for a length other than {@link #size()} or a parent that is not a vertex
     */
    public long[] parentsToOriginal(long[] parents) {
        checkLength(parents.length, "parents");
        long[] out = new long[parents.length];
        for (int v = 0; v < out.length; v++) {
            long parent = parents[(int) newIds[v]];
            if (parent == -1) {
                out[v] = -1;
            } else if (parent < 0 || parent >= originalIds.length) {
                throw new IllegalArgumentException("parent " + parent + " is not a vertex (there are " + originalIds.length + ")");
            } else {
                out[v] = originalIds[(int) parent];
            }
        }
        return out;
    }

    /**
     * Component labels of the relabelled graph as the input graph's: the smallest original id of
     * each vertex's component, what {@link SmartGraph#connectedComponents()} gives on the input.
     *
     * @param labels as {@link SmartGraph#connectedComponents()} returns them on the relabelled graph (indexed by new
     *     id, any label below {@link #size()})
     * @return the label of every original vertex
     * @throws IllegalArgumentException for a length other than {@link #size()} or a label that is not a vertex id
     */
    public long[] labelsToOriginal(long[] labels) {
        checkLength(labels.length, "labels");
        int n = labels.length;
        long[] smallest = new long[n];
        Arrays.fill(smallest, -1);
        long[] out = new long[n];
        // Original ids in increasing order: the first one seen of a label is its smallest.
        for (int v = 0; v < n; v++) {
            long label = labels[(int) newIds[v]];
            if (label < 0 || label >= n) {
                throw new IllegalArgumentException("label " + label + " is not a vertex id (there are " + n + " vertices)");
            }
            if (smallest[(int) label] == -1) {
                smallest[(int) label] = v;
            }
            out[v] = smallest[(int) label];
        }
        return out;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof VertexIds ids && Arrays.equals(newIds, ids.newIds);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(newIds);
    }

    @Override
    public String toString() {
        return "VertexIds(" + newIds.length + " vertices)";
    }
}
