// SmartGraph.fromCsr against SmartGraph.fromEdges of the same pairs (shape, BFS levels, component
// labels, PageRank) on random graphs of edge sizes, directed and undirected, with unsorted lists,
// repeated edges and self-loops; a hand-checked small graph; and every error: empty or negative
// arrays, offsets that do not start at 0, decrease or do not end at the target count, a target
// that is not a vertex, NULL arguments.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SmartGraphCsrTest {
    /** CSR arrays of the pairs, each list in input order (so unsorted): {offsets, targets}. */
    static long[][] csrOf(long[] src, long[] dst, int n) {
        long[] offsets = new long[n + 1];
        for (long s : src) {
            offsets[(int) s + 1]++;
        }
        for (int v = 0; v < n; v++) {
            offsets[v + 1] += offsets[v];
        }
        long[] at = offsets.clone();
        long[] targets = new long[src.length];
        for (int i = 0; i < src.length; i++) {
            targets[(int) at[(int) src[i]]++] = dst[i];
        }
        return new long[][] {offsets, targets};
    }

    @Test
    void randomGraphsEqualTheEdgeListBuild() {
        Random random = new Random(15);
        for (int n : new int[] {0, 1, 63, 64, 65, 1023, 1025}) {
            for (boolean directed : new boolean[] {false, true}) {
                int m = n == 0 ? 0 : 3 * n + 1;
                long[] src = new long[m];
                long[] dst = new long[m];
                for (int i = 0; i < m; i++) {
                    src[i] = random.nextInt(n);
                    dst[i] = random.nextInt(n);
                }
                if (m > 2) {
                    dst[1] = src[1]; // a self-loop
                    src[2] = src[0]; // a repeated edge
                    dst[2] = dst[0];
                }
                long[][] csr = csrOf(src, dst, n);
                String where = n + " vertices, directed " + directed;
                try (SmartGraph fromCsr = SmartGraph.fromCsr(csr[0], csr[1], directed, Placement.interleaved());
                        SmartGraph fromEdges = SmartGraph.fromEdges(src, dst, n, directed, Placement.osDefault())) {
                    assertEquals(n, fromCsr.vertexCount(), where);
                    assertEquals(m, fromCsr.edgeCount(), where);
                    assertEquals(fromEdges.edgeCount(), fromCsr.edgeCount(), where);
                    assertEquals(directed, fromCsr.isDirected(), where);
                    for (int source = 0; source < n; source += n / 3 + 1) {
                        assertArrayEquals(fromEdges.bfs(source).levels(), fromCsr.bfs(source).levels(), where);
                    }
                    assertArrayEquals(fromEdges.connectedComponents(), fromCsr.connectedComponents(), where);
                    if (n > 0) {
                        assertArrayEquals(fromEdges.pagerank(0.85, 1e-12, 1000, false, null),
                                fromCsr.pagerank(0.85, 1e-12, 1000, false, null), 1e-10, where);
                    }
                }
            }
        }
    }

    @Test
    void smallGraphsByHand() {
        // 0 -> 2, 0 -> 1 (unsorted), 2 -> 1; vertex 3 has no edges.
        long[] offsets = {0, 2, 2, 3, 3};
        long[] targets = {2, 1, 1};
        try (SmartGraph directed = SmartGraph.fromCsr(offsets, targets, true, Placement.osDefault())) {
            assertEquals(4, directed.vertexCount());
            assertEquals(3, directed.edgeCount());
            assertArrayEquals(new long[] {0, 1, 1, -1}, directed.bfs(0).levels());
            assertArrayEquals(new long[] {-1, 0, -1, -1}, directed.bfs(1).levels());
            assertArrayEquals(new long[] {0, 0, 0, 3}, directed.connectedComponents());
        }
        try (SmartGraph undirected = SmartGraph.fromCsr(offsets, targets, false, Placement.osDefault())) {
            assertEquals(3, undirected.edgeCount());
            assertArrayEquals(new long[] {1, 0, 1, -1}, undirected.bfs(1).levels());
            assertEquals(1, undirected.triangleCount());
        }
        try (SmartGraph empty = SmartGraph.fromCsr(new long[] {0}, new long[0], true, Placement.osDefault())) {
            assertEquals(0, empty.vertexCount());
            assertEquals(0, empty.edgeCount());
        }
        try (SmartGraph lonely = SmartGraph.fromCsr(new long[] {0, 0}, new long[0], false, Placement.osDefault())) {
            assertEquals(1, lonely.vertexCount());
            assertArrayEquals(new long[] {0}, lonely.bfs(0).levels());
        }
    }

    static String invalid(long[] offsets, long[] targets) {
        SmartArrayException error = assertThrows(SmartArrayException.class,
                () -> SmartGraph.fromCsr(offsets, targets, true, Placement.osDefault()));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, error.status());
        return error.getMessage();
    }

    @Test
    void errorsNameTheProblem() {
        String message = invalid(new long[] {1, 2}, new long[] {0});
        assertTrue(message.contains("offsets[0] = 1 must be 0"), message);
        message = invalid(new long[] {0, 2, 4, 6, 7, 3, 8, 8, 8, 8, 10}, new long[10]);
        assertTrue(message.contains("offsets[5] = 3 is below offsets[4] = 7"), message);
        message = invalid(new long[] {0, 1, 2}, new long[] {0, 1, 1});
        assertTrue(message.contains("offsets[2] = 2") && message.contains("(3)"), message);
        long[] far = new long[13];
        far[12] = 99;
        message = invalid(new long[] {0, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13}, far);
        assertTrue(message.contains("targets[12] = 99 is not a vertex (the graph has 10 vertices)"), message);
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> SmartGraph.fromCsr(new long[0], new long[0], true, Placement.osDefault()));
        assertTrue(empty.getMessage().contains("offsets is empty"), empty.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> SmartGraph.fromCsr(new long[] {0, -1}, new long[0], true, Placement.osDefault()));
        assertTrue(negative.getMessage().contains("offsets[1] = -1"), negative.getMessage());
        negative = assertThrows(IllegalArgumentException.class,
                () -> SmartGraph.fromCsr(new long[] {0, 2}, new long[] {0, -5}, true, Placement.osDefault()));
        assertTrue(negative.getMessage().contains("targets[1] = -5"), negative.getMessage());
        assertThrows(NullPointerException.class, () -> SmartGraph.fromCsr(null, new long[0], true, Placement.osDefault()));
        assertThrows(NullPointerException.class, () -> SmartGraph.fromCsr(new long[] {0}, null, true, Placement.osDefault()));
        assertThrows(NullPointerException.class, () -> SmartGraph.fromCsr(new long[] {0}, new long[0], true, null));
    }
}
