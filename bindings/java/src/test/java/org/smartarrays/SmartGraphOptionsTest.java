// SmartGraph.pagerank(PageRankOptions, Progress): the defaults against the positional call, dangling
// "drop" against a plain power iteration, f32 contributions and both cell orders against f64 and
// vertex order, the run's summary and progress, prepareDegreeOrder, and every bad setting; sampled
// betweenness against the listed sources it drew; triangle counts in both orders; save and convert.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmartGraphOptionsTest {
    private static long[][] randomEdges(int n, int m, long seed) {
        Random random = new Random(seed);
        long[] src = new long[m];
        long[] dst = new long[m];
        for (int i = 0; i < m; i++) {
            src[i] = random.nextInt(n);
            dst[i] = random.nextInt(n);
        }
        return new long[][] {src, dst};
    }

    /** Power iteration with dangling rank left out: rank = (1 - d) / n + d * pulled. */
    private static double[] dropReference(long[] src, long[] dst, int n) {
        int[] degree = new int[n];
        for (long s : src) {
            degree[(int) s]++;
        }
        double[] ranks = new double[n];
        java.util.Arrays.fill(ranks, 1.0 / n);
        for (int iteration = 0; iteration < 10_000; iteration++) {
            double[] pulled = new double[n];
            for (int e = 0; e < src.length; e++) {
                pulled[(int) dst[e]] += ranks[(int) src[e]] / degree[(int) src[e]];
            }
            double change = 0;
            for (int v = 0; v < n; v++) {
                double rank = 0.15 / n + 0.85 * pulled[v];
                change += Math.abs(rank - ranks[v]);
                ranks[v] = rank;
            }
            if (change < 1e-15) {
                break;
            }
        }
        return ranks;
    }

    @Test
    void defaultsMatchThePositionalCall() {
        for (int n : new int[] {1, 63, 64, 65, 1025}) {
            long[][] edges = randomEdges(n, 4 * n, n);
            try (SmartGraph g = SmartGraph.fromEdges(edges[0], edges[1], n, true, Placement.osDefault())) {
                SmartGraph.PageRank run = g.pagerank(SmartGraph.PageRankOptions.defaults(), null);
                assertArrayEquals(g.pagerank(), run.ranks(), 0.0, "n " + n);
                assertTrue(run.converged() && run.iterations() > 0 && run.change() < 1e-6, "n " + n);
                assertEquals("vertex", run.cellOrder(), "auto on a small graph");
            }
        }
    }

    @Test
    void danglingDropMatchesThePlainIteration() {
        for (int n : new int[] {1, 64, 65, 1025}) {
            long[][] edges = randomEdges(n, 2 * n, 7 * n);
            try (SmartGraph g = SmartGraph.fromEdges(edges[0], edges[1], n, true, Placement.interleaved())) {
                for (boolean gaussSeidel : new boolean[] {false, true}) {
                    SmartGraph.PageRankOptions options = SmartGraph.PageRankOptions.defaults().withDangling("drop")
                            .withTolerance(1e-13).withMaxIterations(10_000).withGaussSeidel(gaussSeidel);
                    assertArrayEquals(dropReference(edges[0], edges[1], n), g.pagerank(options, null).ranks(), 1e-10,
                            "n " + n + " gauss-seidel " + gaussSeidel);
                }
            }
        }
    }

    @Test
    void cellOrdersAndPrecisionsAgree() {
        int n = 5000;
        long[][] edges = randomEdges(n, 8 * n, 3);
        try (SmartGraph g = SmartGraph.fromEdges(edges[0], edges[1], n, true, Placement.osDefault())) {
            SmartGraph.PageRankOptions options = SmartGraph.PageRankOptions.defaults().withCellOrder("vertex");
            SmartGraph.PageRank byVertex = g.pagerank(options, null);
            SmartGraph.PageRank byDegree = g.pagerank(options.withCellOrder("degree"), null);
            assertEquals("vertex", byVertex.cellOrder());
            assertEquals("degree", byDegree.cellOrder());
            assertArrayEquals(byVertex.ranks(), byDegree.ranks(), 0.0, "Jacobi: only the cells move");
            double[] single = g.pagerank(options.withContributions("f32").withTolerance(1e-4), null).ranks();
            double[] exact = g.pagerank(options.withTolerance(1e-4), null).ranks();
            double total = 0;
            for (int v = 0; v < n; v++) {
                total += Math.abs(single[v] - exact[v]);
            }
            assertTrue(total < 1e-4, "f32 contributions off by " + total);
            assertTrue(g.prepareDegreeOrder());
        }
    }

    @Test
    void summaryAndProgressAtTheLimit() {
        long[][] edges = randomEdges(1000, 5000, 11);
        try (SmartGraph g = SmartGraph.fromEdges(edges[0], edges[1], 1000, true, Placement.osDefault())) {
            long[] seen = new long[2];
            SmartGraph.PageRank run = g.pagerank(SmartGraph.PageRankOptions.defaults().withMaxIterations(3).withTolerance(1e-15),
                    (done, total) -> {
                        seen[0] = done;
                        seen[1] = total;
                    });
            assertEquals(3, run.iterations());
            assertFalse(run.converged());
            assertTrue(run.change() > 1e-15);
            assertArrayEquals(new long[] {3, 3}, seen);
        }
    }

    @Test
    void sampledBetweennessRunsTheSourcesItDrew() {
        try (SmartGraph g = SmartGraph.kronecker(8, 4, 3, false, Placement.osDefault())) {
            long[] seen = new long[1];
            SmartGraph.SampledBetweenness run = g.betweennessSampled(5, 7, (done, total) -> seen[0] = total);
            assertEquals(5, run.sources().length);
            assertEquals(5, seen[0]);
            assertArrayEquals(g.betweenness(run.sources(), null), run.scores(), 1e-7);
            assertArrayEquals(run.sources(), g.betweennessSampled(5, 7, null).sources());
            assertEquals(0, g.betweennessSampled(0, 7, null).sources().length);
            assertThrows(IllegalArgumentException.class, () -> g.betweennessSampled(-1, 7, null));
        }
        try (SmartGraph empty = SmartGraph.fromEdges(new long[0], new long[0], 3, true, Placement.osDefault())) {
            SmartArrayException e = assertThrows(SmartArrayException.class, () -> empty.betweennessSampled(2, 1, null));
            assertTrue(e.getMessage().contains("no vertex has out-edges"), e.getMessage());
        }
    }

    @Test
    void triangleOrdersCountTheSame() {
        try (SmartGraph g = SmartGraph.kronecker(9, 8, 2, false, Placement.osDefault())) {
            long plain = g.triangleCount();
            assertTrue(plain > 0);
            assertEquals(plain, g.triangleCount("degree"));
            assertEquals(plain, g.triangleCount("id"));
            SmartArrayException e = assertThrows(SmartArrayException.class, () -> g.triangleCount("random"));
            assertTrue(e.getMessage().contains("expected id or degree"), e.getMessage());
        }
    }

    @Test
    void savedAndConvertedGraphsLoadTheSame(@TempDir Path folder) throws Exception {
        long[][] edges = randomEdges(65, 300, 5);
        try (SmartGraph g = SmartGraph.fromEdges(edges[0], edges[1], 65, true, Placement.osDefault())) {
            Path binary = folder.resolve("g.sag");
            Path text = folder.resolve("g.el");
            Path market = folder.resolve("g.mtx");
            g.save(binary);
            SmartGraph.convert(binary, text, false);
            SmartGraph.convert(text, market, false);
            double[] ranks = g.pagerank();
            for (Path file : new Path[] {binary, text, market}) {
                try (SmartGraph loaded = SmartGraph.load(file, false, Placement.osDefault())) {
                    assertEquals(g.vertexCount(), loaded.vertexCount(), file.toString());
                    assertEquals(g.edgeCount(), loaded.edgeCount(), file.toString());
                    assertArrayEquals(g.bfs(0).levels(), loaded.bfs(0).levels(), file.toString());
                    assertArrayEquals(ranks, loaded.pagerank(), 1e-12, file.toString());
                }
            }
            Path missing = folder.resolve("no/such/folder/g.sag");
            assertEquals(SmartArrayException.Status.SYSTEM, assertThrows(SmartArrayException.class, () -> g.save(missing)).status());
            Path out = folder.resolve("never.el");
            assertEquals(SmartArrayException.Status.SYSTEM,
                    assertThrows(SmartArrayException.class, () -> SmartGraph.convert(folder.resolve("none.el"), out, false)).status());
            assertFalse(Files.exists(out));
            Path bad = folder.resolve("bad.el");
            Files.writeString(bad, "0 1\n1 x\n");
            SmartArrayException e = assertThrows(SmartArrayException.class, () -> SmartGraph.convert(bad, out, false));
            assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, e.status());
            assertTrue(e.getMessage().contains("bad.el:2:"), e.getMessage());
        }
    }

    @Test
    void badSettingsAreTypedErrors() {
        try (SmartGraph g = SmartGraph.fromEdges(new long[] {0, 1}, new long[] {1, 2}, 0, false, Placement.osDefault())) {
            SmartGraph.PageRankOptions defaults = SmartGraph.PageRankOptions.defaults();
            SmartArrayException e = assertThrows(SmartArrayException.class, () -> g.pagerank(defaults.withDangling("keep"), null));
            assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, e.status());
            assertTrue(e.getMessage().contains("expected spread or drop"), e.getMessage());
            e = assertThrows(SmartArrayException.class, () -> g.pagerank(defaults.withContributions("f16"), null));
            assertTrue(e.getMessage().contains("expected f64 or f32"), e.getMessage());
            e = assertThrows(SmartArrayException.class, () -> g.pagerank(defaults.withCellOrder("hubs"), null));
            assertTrue(e.getMessage().contains("expected auto, vertex or degree"), e.getMessage());
            assertEquals(SmartArrayException.Status.INVALID_ARGUMENT,
                    assertThrows(SmartArrayException.class, () -> g.pagerank(defaults.withDamping(1.5), null)).status());
            assertThrows(NullPointerException.class, () -> g.pagerank(null, null));
            assertThrows(NullPointerException.class, () -> defaults.withCellOrder(null));
        }
    }
}
