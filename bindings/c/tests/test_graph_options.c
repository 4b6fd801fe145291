/* test_graph_options.c - graph algorithms with every setting through the C ABI. PageRank
 * (sa_graph_pagerank_with_options, sa_pagerank_options_default, sa_graph_prepare_degree_order):
 * the defaults against sa_graph_pagerank, dangling "drop" against a plain reference, f32
 * contributions against f64, both cell orders against each other, the run's summary, progress
 * calls, and every bad setting as a typed error. Sampled betweenness
 * (sa_graph_betweenness_sampled): the sources it drew, run as a list, give the same scores.
 * Triangle counts in both orders (sa_graph_triangle_count_ordered) against a triple loop.
 * PageRank and betweenness handed out as SaF64Array (sa_graph_pagerank_array,
 * sa_graph_betweenness_array) against the buffer forms. */
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t rng_state = 0x2545F4914F6CDD1Du;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Plain PageRank with dangling ranks dropped: rank = (1 - d) / n + d * (sum of in-neighbours'
 * rank / out-degree), iterated to a fixed point. */
static void pagerank_drop_reference(const uint64_t *src, const uint64_t *dst, size_t len, size_t n, double *ranks) {
    size_t *degree = calloc(n, sizeof(size_t));
    double *next = malloc(n * sizeof(double));
    for (size_t e = 0; e < len; e++) degree[src[e]]++;
    for (size_t v = 0; v < n; v++) ranks[v] = 1.0 / (double)n;
    for (int iteration = 0; iteration < 10000; iteration++) {
        for (size_t v = 0; v < n; v++) next[v] = 0;
        for (size_t e = 0; e < len; e++) next[dst[e]] += ranks[src[e]] / (double)degree[src[e]];
        double change = 0;
        for (size_t v = 0; v < n; v++) {
            double rank = (1 - 0.85) / (double)n + 0.85 * next[v];
            change += fabs(rank - ranks[v]);
            ranks[v] = rank;
        }
        if (change < 1e-15) break;
    }
    free(degree);
    free(next);
}

static SaGraph *random_graph(size_t n, size_t len, bool directed, uint64_t **src_out, uint64_t **dst_out) {
    uint64_t *src = malloc((len + 1) * sizeof(uint64_t)), *dst = malloc((len + 1) * sizeof(uint64_t));
    for (size_t i = 0; i < len; i++) src[i] = next_random() % n, dst[i] = next_random() % n;
    SaGraph *graph = NULL;
    CHECK_OK(sa_graph_from_edges(src, dst, len, n, directed, NULL, &graph));
    *src_out = src;
    *dst_out = dst;
    return graph;
}

static double worst_difference(const double *a, const double *b, size_t n) {
    double worst = 0;
    for (size_t v = 0; v < n; v++) worst = fmax(worst, fabs(a[v] - b[v]));
    return worst;
}

static void test_defaults_match_the_plain_call(void) {
    static const size_t sizes[] = {1, 2, 63, 64, 65, 1023, 1025};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        for (int gauss_seidel = 0; gauss_seidel < 2; gauss_seidel++) {
            uint64_t *src, *dst;
            SaGraph *graph = random_graph(n, 4 * n, true, &src, &dst);
            double *plain = malloc(n * sizeof(double)), *ranks = malloc(n * sizeof(double));
            size_t iterations = 0;
            CHECK_OK(sa_graph_pagerank(graph, 0.85, 1e-6, 1000, gauss_seidel, plain, n, &iterations, NULL, NULL));
            SaPageRankOptions options = sa_pagerank_options_default();
            options.gauss_seidel = gauss_seidel;
            SaPageRankSummary summary = {0};
            CHECK_OK(sa_graph_pagerank_with_options(graph, &options, ranks, n, &summary, NULL, NULL));
            CHECK(worst_difference(plain, ranks, n) == 0, "n %zu gs %d: defaults differ from sa_graph_pagerank", n, gauss_seidel);
            CHECK(summary.iterations == iterations && summary.converged, "n %zu: %zu iterations, want %zu", n,
                  summary.iterations, iterations);
            CHECK(summary.change < 1e-6, "n %zu: change %g", n, summary.change);
            CHECK(strcmp(summary.cell_order, "vertex") == 0, "n %zu: auto chose %s on a small graph", n, summary.cell_order);
            /* NULL options are the defaults too (Jacobi). */
            if (!gauss_seidel) {
                CHECK_OK(sa_graph_pagerank_with_options(graph, NULL, ranks, n, NULL, NULL, NULL));
                CHECK(worst_difference(plain, ranks, n) == 0, "n %zu: NULL options differ", n);
            }
            free(plain), free(ranks), free(src), free(dst);
            sa_graph_free(graph);
        }
    }
}

static void test_dangling_drop(void) {
    static const size_t sizes[] = {1, 64, 65, 1025};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k], len = 2 * n;
        uint64_t *src, *dst;
        SaGraph *graph = random_graph(n, len, true, &src, &dst);
        double *want = malloc(n * sizeof(double)), *ranks = malloc(n * sizeof(double));
        pagerank_drop_reference(src, dst, len, n, want);
        SaPageRankOptions options = sa_pagerank_options_default();
        options.dangling = "drop";
        options.tolerance = 1e-13;
        options.max_iterations = 10000;
        CHECK_OK(sa_graph_pagerank_with_options(graph, &options, ranks, n, NULL, NULL, NULL));
        double sum = 0;
        for (size_t v = 0; v < n; v++) sum += ranks[v];
        CHECK(worst_difference(want, ranks, n) < 1e-10, "n %zu: drop off by %g", n, worst_difference(want, ranks, n));
        /* 2n random edges leave some vertex without out-edges, so rank is lost. */
        CHECK(sum < 1 - 1e-6 || n == 1, "n %zu: ranks with dangling dropped sum to %.12f", n, sum);
        free(want), free(ranks), free(src), free(dst);
        sa_graph_free(graph);
    }
}

static void test_contributions_and_cell_orders(void) {
    size_t n = 5000;
    uint64_t *src, *dst;
    SaGraph *graph = random_graph(n, 8 * n, true, &src, &dst);
    double *exact = malloc(n * sizeof(double)), *ranks = malloc(n * sizeof(double));
    for (int gauss_seidel = 0; gauss_seidel < 2; gauss_seidel++) {
        SaPageRankOptions options = sa_pagerank_options_default();
        options.gauss_seidel = gauss_seidel;
        options.cell_order = "vertex";
        SaPageRankSummary summary = {0};
        CHECK_OK(sa_graph_pagerank_with_options(graph, &options, exact, n, &summary, NULL, NULL));
        CHECK(strcmp(summary.cell_order, "vertex") == 0, "asked vertex, got %s", summary.cell_order);
        /* Degree order moves only the cells: the same ranks for Jacobi; Gauss-Seidel on several
         * threads reads neighbours' new or old ranks as the threads meet, so its runs agree only
         * to within the tolerance. */
        options.cell_order = "degree";
        CHECK_OK(sa_graph_pagerank_with_options(graph, &options, ranks, n, &summary, NULL, NULL));
        CHECK(strcmp(summary.cell_order, "degree") == 0, "asked degree, got %s", summary.cell_order);
        CHECK(worst_difference(exact, ranks, n) <= (gauss_seidel ? 1e-6 : 0), "gs %d: degree order off by %g",
              gauss_seidel, worst_difference(exact, ranks, n));
        /* f32 contributions: the ranks agree to within the tolerance. */
        options.cell_order = NULL;
        options.contributions = "f32";
        options.tolerance = 1e-4;
        CHECK_OK(sa_graph_pagerank_with_options(graph, &options, ranks, n, &summary, NULL, NULL));
        options.contributions = "f64";
        CHECK_OK(sa_graph_pagerank_with_options(graph, &options, exact, n, NULL, NULL, NULL));
        /* Each run stops once an iteration changes the ranks by less than the tolerance (L1), so
         * each lies within tolerance * d / (1 - d) of the fixed point, and the two within twice
         * that (Gauss-Seidel on several threads stops at a different point on each run: a fixed
         * 1e-4 was once missed by 1.4e-6). */
        double total = 0, bound = 2 * options.tolerance * options.damping / (1 - options.damping);
        for (size_t v = 0; v < n; v++) total += fabs(ranks[v] - exact[v]);
        CHECK(total < bound, "gs %d: f32 contributions off by %g in all (bound %g)", gauss_seidel, total, bound);
    }
    bool built = false;
    CHECK_OK(sa_graph_prepare_degree_order(graph, &built));
    CHECK(built, "the degree order of a 5000-vertex graph was not built");
    CHECK_OK(sa_graph_prepare_degree_order(graph, NULL));
    free(exact), free(ranks), free(src), free(dst);
    sa_graph_free(graph);
}

static void test_auto_order_on_a_large_graph(void) {
    /* Auto picks the degree order above 262,144 vertices. */
    size_t n = 262145, len = 4096;
    uint64_t *src, *dst;
    SaGraph *graph = random_graph(n, len, true, &src, &dst);
    double *ranks = malloc(n * sizeof(double));
    SaPageRankSummary summary = {0};
    CHECK_OK(sa_graph_pagerank_with_options(graph, NULL, ranks, n, &summary, NULL, NULL));
    CHECK(summary.cell_order != NULL && strcmp(summary.cell_order, "degree") == 0, "auto chose %s", summary.cell_order);
    free(ranks), free(src), free(dst);
    sa_graph_free(graph);
}

static uint64_t steps = 0, last_total = 0;
static void count_steps(void *user_data, uint64_t done, uint64_t total) {
    (void)user_data;
    steps++;
    CHECK(done == steps, "progress step %llu reported as %llu", (unsigned long long)steps, (unsigned long long)done);
    last_total = total;
}

static void test_summary_and_progress(void) {
    size_t n = 1000;
    uint64_t *src, *dst;
    SaGraph *graph = random_graph(n, 5 * n, true, &src, &dst);
    double *ranks = malloc(n * sizeof(double));
    SaPageRankOptions options = sa_pagerank_options_default();
    options.max_iterations = 3;
    options.tolerance = 1e-15;
    SaPageRankSummary summary = {0};
    steps = 0;
    CHECK_OK(sa_graph_pagerank_with_options(graph, &options, ranks, n, &summary, count_steps, NULL));
    CHECK(summary.iterations == 3 && !summary.converged && summary.change > 1e-15, "stopped at the limit: %zu, %d, %g",
          summary.iterations, summary.converged, summary.change);
    CHECK(steps == 3 && last_total == 3, "progress: %llu steps of %llu", (unsigned long long)steps,
          (unsigned long long)last_total);
    free(ranks), free(src), free(dst);
    sa_graph_free(graph);
}

static void test_errors(void) {
    size_t n = 10;
    uint64_t *src, *dst;
    SaGraph *graph = random_graph(n, 20, false, &src, &dst);
    double ranks[10];
    SaPageRankOptions options = sa_pagerank_options_default();
    options.dangling = "spreadd";
    CHECK_STATUS(sa_graph_pagerank_with_options(graph, &options, ranks, n, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("expected spread or drop");
    options = sa_pagerank_options_default();
    options.contributions = "f16";
    CHECK_STATUS(sa_graph_pagerank_with_options(graph, &options, ranks, n, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("expected f64 or f32");
    options = sa_pagerank_options_default();
    options.cell_order = "random";
    CHECK_STATUS(sa_graph_pagerank_with_options(graph, &options, ranks, n, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("expected auto, vertex or degree");
    options = sa_pagerank_options_default();
    options.damping = 1.5;
    CHECK_STATUS(sa_graph_pagerank_with_options(graph, &options, ranks, n, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    options = sa_pagerank_options_default();
    options.tolerance = -1;
    CHECK_STATUS(sa_graph_pagerank_with_options(graph, &options, ranks, n, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sa_graph_pagerank_with_options(graph, NULL, ranks, n - 1, NULL, NULL, NULL), SA_STATUS_BUFFER_TOO_SMALL);
    CHECK_STATUS(sa_graph_pagerank_with_options(graph, NULL, NULL, n, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_pagerank_with_options(NULL, NULL, ranks, n, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_prepare_degree_order(NULL, NULL), SA_STATUS_NULL_POINTER);
    free(src), free(dst);
    sa_graph_free(graph);
}

static void test_sampled_betweenness(void) {
    SaGraph *graph = NULL;
    CHECK_OK(sa_graph_kronecker(8, 4, 3, false, NULL, &graph));
    size_t n = 256;
    double *scores = malloc(n * sizeof(double)), *listed = malloc(n * sizeof(double));
    uint64_t drawn[5] = {0}, again[5] = {0};
    steps = 0;
    CHECK_OK(sa_graph_betweenness_sampled(graph, 5, 7, scores, n, drawn, count_steps, NULL));
    CHECK(steps == 5 && last_total == 5, "progress: %llu of %llu", (unsigned long long)steps, (unsigned long long)last_total);
    CHECK_OK(sa_graph_betweenness(graph, drawn, 5, listed, n, NULL, NULL));
    double worst = worst_difference(scores, listed, n), sum = 0;
    for (size_t v = 0; v < n; v++) sum += scores[v];
    CHECK(worst < 1e-7 && sum > 0, "sampled scores off the listed ones by %g (sum %g)", worst, sum);
    CHECK_OK(sa_graph_betweenness_sampled(graph, 5, 7, listed, n, again, NULL, NULL));
    CHECK(memcmp(drawn, again, sizeof drawn) == 0, "the same seed drew other sources");
    for (size_t k = 0; k < 5; k++) CHECK(drawn[k] < n, "source %llu is not a vertex", (unsigned long long)drawn[k]);
    CHECK_OK(sa_graph_betweenness_sampled(graph, 0, 7, scores, n, NULL, NULL, NULL));
    sum = 0;
    for (size_t v = 0; v < n; v++) sum += fabs(scores[v]);
    CHECK(sum == 0, "no sources, yet scores sum to %g", sum);
    CHECK_STATUS(sa_graph_betweenness_sampled(graph, 5, 7, scores, n - 1, NULL, NULL, NULL), SA_STATUS_BUFFER_TOO_SMALL);
    CHECK_STATUS(sa_graph_betweenness_sampled(graph, 5, 7, NULL, n, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_betweenness_sampled(NULL, 5, 7, scores, n, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    sa_graph_free(graph);
    uint64_t none[1] = {0};
    SaGraph *empty = NULL;
    CHECK_OK(sa_graph_from_edges(none, none, 0, 3, true, NULL, &empty));
    CHECK_STATUS(sa_graph_betweenness_sampled(empty, 2, 1, scores, n, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("no vertex has out-edges");
    sa_graph_free(empty);
    free(scores), free(listed);
}

/* Triangles by a triple loop over an adjacency matrix (no repeats, no self-loops). */
static uint64_t triangles_reference(const uint64_t *src, const uint64_t *dst, size_t len, size_t n) {
    unsigned char *adjacent = calloc(n * n, 1);
    for (size_t e = 0; e < len; e++)
        if (src[e] != dst[e]) adjacent[src[e] * n + dst[e]] = adjacent[dst[e] * n + src[e]] = 1;
    uint64_t count = 0;
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            if (adjacent[a * n + b])
                for (size_t c = b + 1; c < n; c++) count += adjacent[a * n + c] && adjacent[b * n + c];
    free(adjacent);
    return count;
}

static void test_triangle_orders(void) {
    static const size_t sizes[] = {1, 3, 63, 64, 65, 200};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k], len = 4 * n;
        uint64_t *src = malloc(len * sizeof(uint64_t)), *dst = malloc(len * sizeof(uint64_t));
        size_t kept = 0;
        /* Distinct pairs a < b: the graph keeps repeats, the reference would not count them. */
        for (size_t i = 0; i < len; i++) {
            uint64_t a = next_random() % n, b = next_random() % n;
            if (a >= b) continue;
            bool seen = false;
            for (size_t j = 0; j < kept; j++) seen |= src[j] == a && dst[j] == b;
            if (!seen) src[kept] = a, dst[kept] = b, kept++;
        }
        SaGraph *graph = NULL;
        CHECK_OK(sa_graph_from_edges(src, dst, kept, n, false, NULL, &graph));
        uint64_t want = triangles_reference(src, dst, kept, n), by_degree = 1, by_id = 1, plain = 1;
        CHECK_OK(sa_graph_triangle_count_ordered(graph, "degree", &by_degree));
        CHECK_OK(sa_graph_triangle_count_ordered(graph, "id", &by_id));
        CHECK_OK(sa_graph_triangle_count_ordered(graph, NULL, &plain));
        CHECK(by_degree == want && by_id == want && plain == want, "n %zu: %llu / %llu / %llu triangles, want %llu", n,
              (unsigned long long)by_degree, (unsigned long long)by_id, (unsigned long long)plain, (unsigned long long)want);
        CHECK_STATUS(sa_graph_triangle_count_ordered(graph, "random", &plain), SA_STATUS_INVALID_ARGUMENT);
        CHECK_MESSAGE("expected id or degree");
        CHECK_STATUS(sa_graph_triangle_count_ordered(graph, "id", NULL), SA_STATUS_NULL_POINTER);
        free(src), free(dst);
        sa_graph_free(graph);
    }
}

static void test_results_as_arrays(void) {
    size_t n = 1025;
    uint64_t *src, *dst;
    SaGraph *graph = random_graph(n, 4 * n, true, &src, &dst);
    double *want = malloc(n * sizeof(double)), *got = malloc(n * sizeof(double));
    SaPageRankOptions options = sa_pagerank_options_default();
    options.gauss_seidel = false;
    options.dangling = "drop";
    SaPageRankSummary in_buffer = {0}, as_array = {0};
    CHECK_OK(sa_graph_pagerank_with_options(graph, &options, want, n, &in_buffer, NULL, NULL));
    SaF64Array *ranks = NULL;
    CHECK_OK(sa_graph_pagerank_array(graph, &options, &ranks, &as_array, NULL, NULL));
    size_t len = 0;
    CHECK_OK(sa_f64_array_len(ranks, &len));
    CHECK(len == n, "ranks array holds %zu values", len);
    CHECK_OK(sa_f64_array_unpack(ranks, 0, got, n));
    CHECK(worst_difference(want, got, n) == 0, "array ranks differ by %g", worst_difference(want, got, n));
    CHECK(as_array.iterations == in_buffer.iterations && as_array.converged == in_buffer.converged, "summaries differ");
    sa_f64_array_free(ranks);
    uint64_t sources[] = {0, 5, 1024};
    CHECK_OK(sa_graph_betweenness(graph, sources, 3, want, n, NULL, NULL));
    SaF64Array *scores = NULL;
    CHECK_OK(sa_graph_betweenness_array(graph, sources, 3, &scores, NULL, NULL));
    CHECK_OK(sa_f64_array_unpack(scores, 0, got, n));
    CHECK(worst_difference(want, got, n) < 1e-9, "array scores differ by %g", worst_difference(want, got, n));
    sa_f64_array_free(scores);
    CHECK_STATUS(sa_graph_pagerank_array(graph, NULL, NULL, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_betweenness_array(graph, NULL, 0, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    uint64_t bad[] = {n};
    scores = NULL;
    CHECK_STATUS(sa_graph_betweenness_array(graph, bad, 1, &scores, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK(scores == NULL, "a failed call handed out an array");
    options.cell_order = "hubs";
    ranks = NULL;
    CHECK_STATUS(sa_graph_pagerank_array(graph, &options, &ranks, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK(ranks == NULL, "a failed call handed out an array");
    free(want), free(got), free(src), free(dst);
    sa_graph_free(graph);
}

int main(void) {
    test_defaults_match_the_plain_call();
    test_dangling_drop();
    test_contributions_and_cell_orders();
    test_auto_order_on_a_large_graph();
    test_summary_and_progress();
    test_errors();
    test_sampled_betweenness();
    test_triangle_orders();
    test_results_as_arrays();
    return finish("test_graph_options");
}
