// SmartGraph's edge weights and shortest paths against a Dijkstra written here (a
// java.util.PriorityQueue): hand-checked small graphs (directed and undirected, unreachable
// vertices, a source without out-edges, zero weights, 2^32 - 1 weights whose sums pass 32 bits,
// 0 and 1 vertices), random graphs of edge sizes and 1000 vertices for every delta in
// {1, 2, 7, 1000}, generated weights, weighted files, progress listeners and every error.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmartGraphSsspTest {
    static final long[] DELTAS = {1, 2, 7, 1000};
    static final long MAX_WEIGHT = 0xFFFF_FFFFL;

    /** Dijkstra over the edge list (both directions of an undirected edge); -1 where not reached. */
    static long[] dijkstra(long[] src, long[] dst, long[] w, int n, boolean directed, int source) {
        List<List<long[]>> out = new ArrayList<>();
        for (int v = 0; v < n; v++) {
            out.add(new ArrayList<>());
        }
        for (int i = 0; i < src.length; i++) {
            out.get((int) src[i]).add(new long[] {dst[i], w[i]});
            if (!directed) {
                out.get((int) dst[i]).add(new long[] {src[i], w[i]});
            }
        }
        long[] dist = new long[n];
        Arrays.fill(dist, -1);
        boolean[] done = new boolean[n];
        PriorityQueue<long[]> queue = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        dist[source] = 0;
        queue.add(new long[] {0, source});
        while (!queue.isEmpty()) {
            long[] top = queue.poll();
            int u = (int) top[1];
            if (done[u]) {
                continue;
            }
            done[u] = true;
            for (long[] edge : out.get(u)) {
                int v = (int) edge[0];
                long candidate = top[0] + edge[1];
                if (dist[v] < 0 || candidate < dist[v]) {
                    dist[v] = candidate;
                    queue.add(new long[] {candidate, v});
                }
            }
        }
        return dist;
    }

    static void assertDistances(SmartGraph graph, long source, long[] expected, String what) {
        for (long delta : DELTAS) {
            assertArrayEquals(expected, graph.sssp(source, delta), what + ", source " + source + ", delta " + delta);
        }
    }

    static SmartGraph weighted(long[] src, long[] dst, long[] w, long vertices, boolean directed) {
        return SmartGraph.fromEdges(src, dst, w, vertices, directed, Placement.osDefault());
    }

    @Test
    void handCheckedDistances() {
        // 0->1 (4), 0->2 (1), 2->1 (2), 1->3 (1), 2->3 (5), 4->0 (1); vertex 5 has no edges
        long[] src = {0, 0, 2, 1, 2, 4};
        long[] dst = {1, 2, 1, 3, 3, 0};
        long[] w = {4, 1, 2, 1, 5, 1};
        try (SmartGraph g = weighted(src, dst, w, 6, true)) {
            assertTrue(g.isWeighted());
            assertEquals(6, g.vertexCount());
            assertDistances(g, 0, new long[] {0, 3, 1, 4, -1, -1}, "directed");
            assertDistances(g, 3, new long[] {-1, -1, -1, 0, -1, -1}, "from a sink");
            assertDistances(g, 4, new long[] {1, 4, 2, 5, 0, -1}, "directed from 4");
            assertDistances(g, 5, new long[] {-1, -1, -1, -1, -1, 0}, "from an isolated vertex");
            assertArrayEquals(new long[] {0, 3, 1, 4, -1, -1}, g.sssp(0, 1, null));
        }
        try (SmartGraph g = weighted(src, dst, w, 6, false)) {
            assertDistances(g, 0, new long[] {0, 3, 1, 4, 1, -1}, "undirected");
            assertDistances(g, 3, new long[] {4, 1, 3, 0, 5, -1}, "undirected from 3");
        }
        // zero weights; repeated edges keep the lightest
        try (SmartGraph g = weighted(new long[] {0, 1, 0, 2}, new long[] {1, 2, 2, 3}, new long[] {0, 0, 5, 0}, 0, true)) {
            assertDistances(g, 0, new long[] {0, 0, 0, 0}, "zero weights");
        }
        try (SmartGraph g = weighted(new long[] {0, 0, 0, 1, 1}, new long[] {1, 1, 1, 1, 2}, new long[] {9, 3, 6, 1, 2}, 0, true)) {
            assertDistances(g, 0, new long[] {0, 3, 5}, "repeated edges");
        }
    }

    @Test
    void widestWeightsPass32Bits() {
        try (SmartGraph g = weighted(new long[] {0, 1, 2}, new long[] {1, 2, 3}, new long[] {MAX_WEIGHT, MAX_WEIGHT, MAX_WEIGHT}, 5, false)) {
            assertDistances(g, 0, new long[] {0, MAX_WEIGHT, 2 * MAX_WEIGHT, 3 * MAX_WEIGHT, -1}, "2^32 - 1 weights");
            assertDistances(g, 3, new long[] {3 * MAX_WEIGHT, 2 * MAX_WEIGHT, MAX_WEIGHT, 0, -1}, "from the end");
        }
    }

    @Test
    void tinyGraphs() {
        try (SmartGraph empty = weighted(new long[0], new long[0], new long[0], 0, true)) {
            assertTrue(empty.isWeighted());
            SmartArrayException none = assertThrows(SmartArrayException.class, () -> empty.sssp(0, 1));
            assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, none.status());
            assertTrue(none.getMessage().contains("source vertex 0 does not exist"), none.getMessage());
        }
        try (SmartGraph one = weighted(new long[0], new long[0], new long[0], 1, false)) {
            assertDistances(one, 0, new long[] {0}, "one vertex");
        }
        try (SmartGraph loop = weighted(new long[] {0}, new long[] {0}, new long[] {3}, 0, true)) {
            assertDistances(loop, 0, new long[] {0}, "one vertex with a self-loop");
        }
    }

    @Test
    void randomGraphsMatchDijkstra() {
        Random random = new Random(15);
        int[] sizes = {1, 63, 64, 65, 1023, 1025, 1000};
        for (int k = 0; k < sizes.length; k++) {
            int n = sizes[k];
            int m = 3 * n;
            long limit = k == sizes.length - 1 ? MAX_WEIGHT : 20;
            long[] src = new long[m];
            long[] dst = new long[m];
            long[] w = new long[m];
            for (int i = 0; i < m; i++) {
                src[i] = random.nextInt(n);
                dst[i] = random.nextInt(n);
                w[i] = random.nextLong(limit + 1);
            }
            for (boolean directed : new boolean[] {true, false}) {
                try (SmartGraph g = weighted(src, dst, w, n, directed)) {
                    for (int source : new int[] {0, n / 2, n - 1}) {
                        assertDistances(g, source, dijkstra(src, dst, w, n, directed, source),
                                (directed ? "directed" : "undirected") + " random graph of " + n + " vertices");
                    }
                }
            }
        }
    }

    @Test
    void generatedWeightsFilesAndProgress(@TempDir Path folder) throws IOException {
        Random random = new Random(7);
        int n = 200;
        long[] src = new long[800];
        long[] dst = new long[800];
        for (int i = 0; i < src.length; i++) {
            src[i] = random.nextInt(n);
            dst[i] = random.nextInt(n);
        }
        try (SmartGraph g = SmartGraph.fromEdges(src, dst, n, false, Placement.osDefault())) {
            assertFalse(g.isWeighted());
            SmartArrayException unweighted = assertThrows(SmartArrayException.class, () -> g.sssp(0, 1));
            assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, unweighted.status());
            assertTrue(unweighted.getMessage().contains("sssp needs edge weights"), unweighted.getMessage());
            assertTrue(unweighted.getMessage().contains("sa_graph_generate_weights"), unweighted.getMessage());
            g.generateWeights(42);
            assertTrue(g.isWeighted());
            List<Long> rounds = new ArrayList<>();
            long[] first = g.sssp(0, 1, (done, total) -> {
                assertEquals(0, total);
                rounds.add(done);
            });
            assertFalse(rounds.isEmpty());
            for (int i = 0; i < rounds.size(); i++) {
                assertEquals(i + 1, rounds.get(i));
            }
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> g.sssp(0, 1, (done, total) -> {
                throw new IllegalStateException("listener failed at " + done);
            }));
            assertEquals("listener failed at 1", thrown.getMessage());
            g.generateWeights(43);
            assertNotEquals(Arrays.toString(first), Arrays.toString(g.sssp(0, 1)));
            g.generateWeights(42);
            assertDistances(g, 0, first, "the same seed");
            for (long d : first) {
                assertTrue(d == -1 || d <= 255L * n, "distance " + d);
            }
        }
        // a .wel file (source target weight) loads weighted; a plain edge list does not
        Path wel = folder.resolve("g.wel");
        Files.writeString(wel, "# a weighted cycle\n0 1 5\n1 2 7\n2 0 1\n");
        try (SmartGraph g = SmartGraph.load(wel, false, Placement.osDefault())) {
            assertTrue(g.isWeighted());
            assertDistances(g, 0, new long[] {0, 5, 12}, "directed .wel");
        }
        try (SmartGraph g = SmartGraph.load(wel, true, Placement.osDefault())) {
            assertDistances(g, 0, new long[] {0, 5, 1}, "undirected .wel");
        }
        Path plain = folder.resolve("g.el");
        Files.writeString(plain, "0 1\n1 2\n");
        try (SmartGraph g = SmartGraph.load(plain, false, Placement.osDefault())) {
            assertFalse(g.isWeighted());
        }
        Path bad = folder.resolve("bad.wel");
        Files.writeString(bad, "0 1 5\n1 2 -3\n");
        SmartArrayException malformed = assertThrows(SmartArrayException.class, () -> SmartGraph.load(bad, false, Placement.osDefault()));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, malformed.status());
        assertTrue(malformed.getMessage().contains("bad.wel:2"), malformed.getMessage());
    }

    @Test
    void errorsNameTheProblem() {
        assertThrows(IllegalArgumentException.class, () -> weighted(new long[] {0}, new long[] {1}, new long[] {1, 2}, 0, true));
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> weighted(new long[] {0, 1}, new long[] {1, 2}, new long[] {1, -3}, 0, true));
        assertEquals("weights[1] = -3 is negative", negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> weighted(new long[] {0, -1}, new long[] {1, 2}, new long[] {1, 1}, 0, true));
        assertThrows(NullPointerException.class, () -> weighted(new long[] {0}, new long[] {1}, null, 0, true));
        SmartArrayException wide = assertThrows(SmartArrayException.class,
                () -> weighted(new long[] {0, 1}, new long[] {1, 2}, new long[] {1, MAX_WEIGHT + 1}, 0, true));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, wide.status());
        assertTrue(wide.getMessage().contains("weights[1] = 4294967296"), wide.getMessage());
        SmartArrayException tooFew = assertThrows(SmartArrayException.class,
                () -> weighted(new long[] {0}, new long[] {5}, new long[] {1}, 3, true));
        assertTrue(tooFew.getMessage().contains("vertex id 5"), tooFew.getMessage());

        SmartGraph g = weighted(new long[] {0, 1}, new long[] {1, 2}, new long[] {1, 2}, 0, true);
        SmartArrayException source = assertThrows(SmartArrayException.class, () -> g.sssp(3, 1));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, source.status());
        assertTrue(source.getMessage().contains("source vertex 3 does not exist"), source.getMessage());
        SmartArrayException delta = assertThrows(SmartArrayException.class, () -> g.sssp(0, 0));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, delta.status());
        assertTrue(delta.getMessage().contains("delta must be at least 1"), delta.getMessage());
        assertArrayEquals(new long[] {0, 1, 3}, g.sssp(0, 1));
        g.close();
        assertThrows(IllegalStateException.class, () -> g.sssp(0, 1));
        assertThrows(IllegalStateException.class, g::isWeighted);
        assertThrows(IllegalStateException.class, () -> g.generateWeights(1));
    }
}
