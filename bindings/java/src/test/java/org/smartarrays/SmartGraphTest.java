// SmartGraph against plain Java references: BFS levels (a queue), component labels (union-find),
// PageRank (power iteration over the edge list) and triangles (a triple loop) on random graphs of
// edge sizes, directed and undirected, with repeated edges and self-loops; betweenness against
// hand-computed values; progress listeners (and their exceptions), files and errors.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmartGraphTest {
    /** Out-lists as the library stores them: both directions of an undirected edge, a self-loop once. */
    static List<List<Integer>> adjacency(long[] src, long[] dst, int n, boolean directed) {
        List<List<Integer>> out = new ArrayList<>();
        for (int v = 0; v < n; v++) {
            out.add(new ArrayList<>());
        }
        for (int i = 0; i < src.length; i++) {
            out.get((int) src[i]).add((int) dst[i]);
            if (!directed && src[i] != dst[i]) {
                out.get((int) dst[i]).add((int) src[i]);
            }
        }
        return out;
    }

    static long[] bfsLevels(List<List<Integer>> out, int source) {
        long[] levels = new long[out.size()];
        Arrays.fill(levels, -1);
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        levels[source] = 0;
        queue.add(source);
        while (!queue.isEmpty()) {
            int u = queue.poll();
            for (int v : out.get(u)) {
                if (levels[v] < 0) {
                    levels[v] = levels[u] + 1;
                    queue.add(v);
                }
            }
        }
        return levels;
    }

    static int find(int[] parent, int x) {
        while (parent[x] != x) {
            x = parent[x] = parent[parent[x]];
        }
        return x;
    }

    static long[] components(long[] src, long[] dst, int n) {
        int[] parent = new int[n];
        for (int v = 0; v < n; v++) {
            parent[v] = v;
        }
        for (int i = 0; i < src.length; i++) {
            int a = find(parent, (int) src[i]);
            int b = find(parent, (int) dst[i]);
            parent[Math.max(a, b)] = Math.min(a, b);
        }
        long[] labels = new long[n];
        for (int v = 0; v < n; v++) {
            labels[v] = find(parent, v);
        }
        return labels;
    }

    static double[] pagerank(List<List<Integer>> out) {
        int n = out.size();
        double[] ranks = new double[n];
        Arrays.fill(ranks, 1.0 / n);
        for (int iteration = 0; iteration < 10_000; iteration++) {
            double[] next = new double[n];
            double dangling = 0;
            for (int v = 0; v < n; v++) {
                if (out.get(v).isEmpty()) {
                    dangling += ranks[v];
                }
                for (int w : out.get(v)) {
                    next[w] += ranks[v] / out.get(v).size();
                }
            }
            double change = 0;
            for (int v = 0; v < n; v++) {
                double rank = 0.15 / n + 0.85 * (next[v] + dangling / n);
                change += Math.abs(rank - ranks[v]);
                ranks[v] = rank;
            }
            if (change < 1e-14) {
                break;
            }
        }
        return ranks;
    }

    @Test
    void randomGraphsMatchTheReferences() {
        Random random = new Random(42);
        for (int n : new int[] {1, 2, 63, 64, 65, 1025}) {
            for (boolean directed : new boolean[] {false, true}) {
                long[] src = new long[3 * n];
                long[] dst = new long[3 * n];
                for (int i = 0; i < src.length; i++) {
                    src[i] = random.nextInt(n);
                    dst[i] = random.nextInt(n);
                }
                String where = n + " vertices, directed " + directed;
                try (SmartGraph graph = SmartGraph.fromEdges(src, dst, n, directed, Placement.interleaved())) {
                    assertEquals(n, graph.vertexCount(), where);
                    assertEquals(directed, graph.isDirected(), where);
                    List<List<Integer>> out = adjacency(src, dst, n, directed);
                    for (int source = 0; source < n; source += n / 3 + 1) {
                        SmartGraph.Bfs bfs = graph.bfs(source);
                        long[] want = bfsLevels(out, source);
                        assertArrayEquals(want, bfs.levels(), where);
                        for (int v = 0; v < n; v++) {
                            long parent = bfs.parents()[v];
                            if (v == source) {
                                assertEquals(source, parent, where);
                            } else if (want[v] < 0) {
                                assertEquals(-1, parent, where);
                            } else {
                                assertEquals(want[v] - 1, want[(int) parent], where);
                            }
                        }
                    }
                    assertArrayEquals(components(src, dst, n), graph.connectedComponents(), where);
                    double[] want = pagerank(out);
                    assertArrayEquals(want, graph.pagerank(0.85, 1e-13, 10_000, false, null), 1e-9, where);
                    assertArrayEquals(want, graph.pagerank(0.85, 1e-13, 10_000, true, null), 1e-8, where);
                }
            }
        }
    }

    @Test
    void trianglesMatchATripleLoop() {
        Random random = new Random(7);
        for (int n : new int[] {1, 3, 63, 64, 65}) {
            boolean[][] edge = new boolean[n][n];
            List<long[]> edges = new ArrayList<>();
            for (int u = 0; u < n; u++) {
                for (int v = u + 1; v < n; v++) {
                    if (n == 3 || random.nextInt(4) == 0) {
                        edge[u][v] = edge[v][u] = true;
                        edges.add(new long[] {u, v});
                    }
                }
            }
            long want = 0;
            for (int a = 0; a < n; a++) {
                for (int b = a + 1; b < n; b++) {
                    for (int c = b + 1; c < n; c++) {
                        want += edge[a][b] && edge[b][c] && edge[a][c] ? 1 : 0;
                    }
                }
            }
            long[] src = edges.stream().mapToLong(e -> e[0]).toArray();
            long[] dst = edges.stream().mapToLong(e -> e[1]).toArray();
            try (SmartGraph graph = SmartGraph.fromEdges(src, dst, n, false, Placement.osDefault())) {
                assertEquals(want, graph.triangleCount(), n + " vertices");
            }
        }
    }

    @Test
    void betweennessProgressAndFiles(@TempDir Path folder) throws Exception {
        try (SmartGraph path = SmartGraph.fromEdges(new long[] {0, 1, 2}, new long[] {1, 2, 3}, 0, false, Placement.osDefault())) {
            List<Long> steps = new ArrayList<>();
            assertArrayEquals(new double[] {0, 4, 4, 0}, path.betweenness(null, (done, total) -> steps.add(done)), 0);
            assertEquals(List.of(1L, 2L, 3L, 4L), steps);
            assertArrayEquals(new double[] {0, 2, 1, 0}, path.betweenness(new long[] {0}, null), 0);
            long[] iterations = {0};
            double[] ranks = path.pagerank(0.85, 1e-12, 100, false, (done, total) -> iterations[0] = done);
            assertTrue(iterations[0] > 1 && Math.abs(Arrays.stream(ranks).sum() - 1) < 1e-9);
            IllegalStateException thrown = assertThrows(IllegalStateException.class,
                    () -> path.pagerank(0.85, 1e-12, 100, false, (done, total) -> {
                        throw new IllegalStateException("listener failed at " + done);
                    }));
            assertEquals("listener failed at 1", thrown.getMessage());
            assertEquals(0, path.triangleCount());
        }
        Path good = folder.resolve("g.el");
        Files.writeString(good, "# triangle and a pair\n0 1\n1 2\n2 0\n5 6\n");
        try (SmartGraph loaded = SmartGraph.load(good, true, Placement.osDefault())) {
            assertEquals(7, loaded.vertexCount());
            assertEquals(4, loaded.edgeCount());
            assertArrayEquals(new long[] {0, 0, 0, 3, 4, 5, 5}, loaded.connectedComponents());
            assertEquals("SmartGraph(7 vertices, 4 undirected edges)", loaded.toString());
        }
        Path bad = folder.resolve("bad.el");
        Files.writeString(bad, "0 1\n1 x\n");
        SmartArrayException malformed = assertThrows(SmartArrayException.class, () -> SmartGraph.load(bad, false, Placement.osDefault()));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, malformed.status());
        assertTrue(malformed.getMessage().contains("bad.el:2"), malformed.getMessage());
        assertEquals(SmartArrayException.Status.SYSTEM,
                assertThrows(SmartArrayException.class, () -> SmartGraph.load(folder.resolve("none.el"), false, Placement.osDefault())).status());
        try (SmartGraph kron = SmartGraph.kronecker(10, 4, 7, false, Placement.osDefault())) {
            assertEquals(1024, kron.vertexCount());
        }
    }

    @Test
    void errorsNameTheProblem() {
        assertThrows(IllegalArgumentException.class,
                () -> SmartGraph.fromEdges(new long[] {0, -1}, new long[] {1, 2}, 0, true, Placement.osDefault()));
        assertThrows(IllegalArgumentException.class,
                () -> SmartGraph.fromEdges(new long[] {0}, new long[] {1, 2}, 0, true, Placement.osDefault()));
        SmartArrayException tooFew = assertThrows(SmartArrayException.class,
                () -> SmartGraph.fromEdges(new long[] {0}, new long[] {5}, 3, true, Placement.osDefault()));
        assertTrue(tooFew.getMessage().contains("vertex id 5"), tooFew.getMessage());
        SmartGraph graph = SmartGraph.fromEdges(new long[] {0}, new long[] {1}, 0, true, Placement.osDefault());
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, assertThrows(SmartArrayException.class, () -> graph.bfs(9)).status());
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, assertThrows(SmartArrayException.class, graph::triangleCount).status());
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT,
                assertThrows(SmartArrayException.class, () -> graph.pagerank(1.5, 1e-6, 10, false, null)).status());
        graph.close();
        graph.close();
        assertTrue(graph.isClosed());
        assertThrows(IllegalStateException.class, graph::connectedComponents);
        try (SmartGraph empty = SmartGraph.fromEdges(new long[0], new long[0], 0, false, Placement.osDefault())) {
            assertEquals(0, empty.vertexCount());
            assertEquals(0, empty.connectedComponents().length);
        }
    }
}
