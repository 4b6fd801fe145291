// SmartGraph.reorderByDegree and VertexIds: every kernel run on the relabelled graph and read back
// through the id map equals the run on the input graph (Kronecker graphs directed and undirected,
// random weighted graphs, 0 and 1 vertices); the map is a bijection with the hub first; bad input
// is an IllegalArgumentException or IndexOutOfBoundsException naming the problem.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SmartGraphReorderTest {
    static void assertClose(double[] want, double[] got) {
        assertEquals(want.length, got.length);
        for (int v = 0; v < want.length; v++) {
            assertEquals(want[v], got[v], 1e-9 * Math.abs(want[v]) + 1e-12, "vertex " + v);
        }
    }

    /** Relabels {@code graph} and checks every kernel against the input order. */
    static void checkSameResults(SmartGraph graph) {
        int n = (int) graph.vertexCount();
        try (SmartGraph.Reordered fast = graph.reorderByDegree()) {
            SmartGraph g = fast.graph();
            VertexIds ids = fast.ids();
            assertEquals(n, g.vertexCount());
            assertEquals(graph.edgeCount(), g.edgeCount());
            assertEquals(graph.isDirected(), g.isDirected());
            assertEquals(graph.isWeighted(), g.isWeighted());
            assertEquals(n, ids.size());
            for (int v = 0; v < n; v++) {
                assertEquals(v, ids.toOriginal(ids.toNew(v)));
            }
            if (n == 0) {
                return;
            }
            for (long source : new long[] {0, n / 2, n - 1}) {
                SmartGraph.Bfs want = graph.bfs(source);
                SmartGraph.Bfs got = g.bfs(ids.toNew(source));
                assertArrayEquals(want.levels(), ids.resultsToOriginal(got.levels()));
                long[] parents = ids.parentsToOriginal(got.parents());
                for (int v = 0; v < n; v++) {
                    if (want.levels()[v] < 0) {
                        assertEquals(-1, parents[v]);
                    } else {
                        // BFS trees may differ; a parent is one level up (the source is its own).
                        assertEquals(want.levels()[v] - (v == source ? 0 : 1), want.levels()[(int) parents[v]]);
                    }
                }
                if (graph.isWeighted()) {
                    assertArrayEquals(graph.sssp(source, 3), ids.resultsToOriginal(g.sssp(ids.toNew(source), 3)));
                }
            }
            assertArrayEquals(graph.connectedComponents(), ids.labelsToOriginal(g.connectedComponents()));
            assertClose(graph.pagerank(0.85, 1e-12, 1000, false, null), ids.resultsToOriginal(g.pagerank(0.85, 1e-12, 1000, false, null)));
            assertClose(graph.betweenness(null, null), ids.resultsToOriginal(g.betweenness(null, null)));
            if (!graph.isDirected()) {
                assertEquals(graph.triangleCount(), g.triangleCount());
            }
        }
    }

    @Test
    void kroneckerGraphsGiveTheSameResults() {
        for (boolean directed : new boolean[] {false, true}) {
            try (SmartGraph graph = SmartGraph.kronecker(8, 8, 2, directed, Placement.osDefault())) {
                checkSameResults(graph);
                graph.generateWeights(5);
                checkSameResults(graph);
            }
        }
    }

    @Test
    void randomWeightedGraphsGiveTheSameResults() {
        Random random = new Random(7);
        for (boolean directed : new boolean[] {false, true}) {
            int n = 150;
            int m = 600;
            long[] src = new long[m];
            long[] dst = new long[m];
            long[] w = new long[m];
            for (int i = 0; i < m; i++) {
                src[i] = random.nextInt(n);
                dst[i] = i % 2 == 0 ? n - 1 - random.nextInt(3) : random.nextInt(n);
                w[i] = random.nextInt(50);
            }
            try (SmartGraph graph = SmartGraph.fromEdges(src, dst, w, n, directed, Placement.osDefault())) {
                checkSameResults(graph);
            }
        }
    }

    @Test
    void emptyAndOneVertexGraphs() {
        try (SmartGraph graph = SmartGraph.fromEdges(new long[0], new long[0], 0, false, Placement.osDefault())) {
            checkSameResults(graph);
        }
        try (SmartGraph graph = SmartGraph.fromEdges(new long[] {0}, new long[] {0}, 1, true, Placement.osDefault())) {
            checkSameResults(graph);
        }
    }

    @Test
    void theHubComesFirst() {
        try (SmartGraph graph = SmartGraph.fromEdges(new long[] {5, 5, 5, 5, 5, 1}, new long[] {0, 1, 2, 3, 4, 2}, 0, false,
                Placement.osDefault()); SmartGraph.Reordered fast = graph.reorderByDegree()) {
            assertArrayEquals(new long[] {5, 1, 2, 0, 3, 4}, fast.ids().originalIds());
            assertArrayEquals(new long[] {3, 1, 2, 4, 5, 0}, fast.ids().newIds());
            assertTrue(!graph.isClosed());
            long[] values = {0, 10, 20, 30, 40, 50};
            assertArrayEquals(values, fast.ids().resultsToOriginal(fast.ids().resultsToNew(values)));
        }
    }

    @Test
    void badInputIsAClearError() {
        VertexIds ids = VertexIds.fromNewIds(new long[] {2, 0, 1});
        assertEquals(1, ids.toOriginal(0));
        assertArrayEquals(new double[] {30, 10, 20}, ids.resultsToOriginal(new double[] {10, 20, 30}));
        assertArrayEquals(new long[] {0, 0, 2}, ids.labelsToOriginal(new long[] {0, 1, 0}));
        assertEquals(VertexIds.fromNewIds(new long[] {2, 0, 1}), ids);
        IndexOutOfBoundsException outside = assertThrows(IndexOutOfBoundsException.class, () -> ids.toNew(3));
        assertTrue(outside.getMessage().contains("3 vertices"), outside.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> ids.toOriginal(-1));
        IllegalArgumentException length = assertThrows(IllegalArgumentException.class, () -> ids.resultsToOriginal(new long[2]));
        assertTrue(length.getMessage().contains("2 values"), length.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ids.parentsToOriginal(new long[] {0, 7, -1}));
        assertThrows(IllegalArgumentException.class, () -> ids.labelsToOriginal(new long[] {0, 3, 0}));
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> VertexIds.fromNewIds(new long[] {0, 0}));
        assertTrue(twice.getMessage().contains("permutation"), twice.getMessage());
        assertThrows(IllegalArgumentException.class, () -> VertexIds.fromNewIds(new long[] {1, 2}));
        SmartGraph closed = SmartGraph.kronecker(3, 2, 1, false, Placement.osDefault());
        closed.close();
        assertThrows(IllegalStateException.class, closed::reorderByDegree);
    }
}
