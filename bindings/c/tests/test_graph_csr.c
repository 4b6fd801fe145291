/* test_graph_csr.c - tests of sa_graph_from_csr from plain C: on random graphs of edge sizes
 * (0, 1, 63, 64, 65, 1023, 1025 vertices), directed and undirected, with unsorted lists,
 * repeated edges and self-loops, the graph built from CSR arrays and the graph built by
 * sa_graph_from_edges from the same pairs give the same shape, BFS levels and parents,
 * component labels and PageRank ranks, for several placements; then every error: NULLs, a bad
 * placement, offsets that do not start at 0, decrease or do not end at the edge count, a target
 * that is not a vertex, a vertex count that overflows. Exits 0 when all checks pass. */
#include "check.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static const char *PLACEMENTS[] = {NULL, "os", "interleaved", "replicated"};
#define N_PLACEMENTS (sizeof PLACEMENTS / sizeof PLACEMENTS[0])

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* CSR arrays of `len` pairs over `n` vertices, each list in input order (so unsorted). */
static void csr_of(const uint64_t *src, const uint64_t *dst, size_t len, size_t n, uint64_t *offsets, uint64_t *targets) {
    for (size_t v = 0; v <= n; v++) offsets[v] = 0;
    for (size_t i = 0; i < len; i++) offsets[src[i] + 1]++;
    for (size_t v = 0; v < n; v++) offsets[v + 1] += offsets[v];
    uint64_t *at = malloc((n + 1) * sizeof(uint64_t));
    for (size_t v = 0; v <= n; v++) at[v] = offsets[v];
    for (size_t i = 0; i < len; i++) targets[at[src[i]]++] = dst[i];
    free(at);
}

/* The pairs of CSR arrays in CSR order. */
static void pairs_of(const uint64_t *offsets, const uint64_t *targets, size_t n, uint64_t *src, uint64_t *dst) {
    for (size_t v = 0; v < n; v++)
        for (uint64_t e = offsets[v]; e < offsets[v + 1]; e++) src[e] = v, dst[e] = targets[e];
}

/* Compares every result of two graphs that should be the same. */
static void check_same(SaGraph *csr, SaGraph *edges, size_t n, bool directed, const char *what) {
    size_t vertices_a = 0, vertices_b = 1;
    uint64_t edges_a = 0, edges_b = 1;
    bool directed_a = !directed, directed_b = directed;
    CHECK_OK(sa_graph_shape(csr, &vertices_a, &edges_a, &directed_a));
    CHECK_OK(sa_graph_shape(edges, &vertices_b, &edges_b, &directed_b));
    CHECK(vertices_a == n && vertices_b == n, "%s: vertices %zu and %zu, expected %zu", what, vertices_a, vertices_b, n);
    CHECK(edges_a == edges_b, "%s: edges %" PRIu64 " and %" PRIu64, what, edges_a, edges_b);
    CHECK(directed_a == directed && directed_b == directed, "%s: directed", what);
    if (n == 0) return;
    int64_t *levels_a = malloc(n * sizeof(int64_t)), *levels_b = malloc(n * sizeof(int64_t));
    int64_t *parents_a = malloc(n * sizeof(int64_t)), *parents_b = malloc(n * sizeof(int64_t));
    size_t wrong = 0;
    for (uint64_t source = 0; source < n; source += n / 3 + 1) {
        CHECK_OK(sa_graph_bfs(csr, source, levels_a, parents_a, n));
        CHECK_OK(sa_graph_bfs(edges, source, levels_b, parents_b, n));
        for (size_t v = 0; v < n; v++) {
            wrong += levels_a[v] != levels_b[v];
            /* Parents may differ between BFS trees; each must be a vertex one level up. */
            if (levels_a[v] > 0) wrong += parents_a[v] < 0 || levels_a[parents_a[v]] != levels_a[v] - 1;
        }
    }
    CHECK(wrong == 0, "%s: %zu BFS levels or parents differ", what, wrong);
    uint64_t *labels_a = malloc(n * sizeof(uint64_t)), *labels_b = malloc(n * sizeof(uint64_t));
    uint64_t count_a = 0, count_b = 1;
    CHECK_OK(sa_graph_connected_components(csr, labels_a, n, &count_a));
    CHECK_OK(sa_graph_connected_components(edges, labels_b, n, &count_b));
    wrong = 0;
    for (size_t v = 0; v < n; v++) wrong += labels_a[v] != labels_b[v];
    CHECK(wrong == 0 && count_a == count_b, "%s: %zu labels differ, counts %" PRIu64 " %" PRIu64, what, wrong, count_a, count_b);
    double *ranks_a = malloc(n * sizeof(double)), *ranks_b = malloc(n * sizeof(double));
    size_t iterations_a = 0, iterations_b = 1;
    CHECK_OK(sa_graph_pagerank(csr, 0.85, 1e-9, 100, false, ranks_a, n, &iterations_a, NULL, NULL));
    CHECK_OK(sa_graph_pagerank(edges, 0.85, 1e-9, 100, false, ranks_b, n, &iterations_b, NULL, NULL));
    double worst = 0, total = 0;
    for (size_t v = 0; v < n; v++) {
        worst = fmax(worst, fabs(ranks_a[v] - ranks_b[v]));
        total += ranks_a[v];
    }
    CHECK(worst < 1e-9 && iterations_a == iterations_b, "%s: ranks differ by %g, iterations %zu %zu", what, worst, iterations_a, iterations_b);
    CHECK(fabs(total - 1.0) < 1e-6, "%s: ranks sum to %g", what, total);
    free(levels_a), free(levels_b), free(parents_a), free(parents_b);
    free(labels_a), free(labels_b), free(ranks_a), free(ranks_b);
}

static void test_same_as_edges(void) {
    for (size_t i = 0; i < N_LENGTHS; i++) {
        size_t n = LENGTHS[i];
        size_t len = n == 0 ? 0 : 3 * n + 1;
        uint64_t *src = malloc((len + 1) * sizeof(uint64_t)), *dst = malloc((len + 1) * sizeof(uint64_t));
        for (size_t e = 0; e < len; e++) src[e] = next_random() % n, dst[e] = next_random() % n;
        if (len > 2) src[1] = dst[1] = src[0], src[2] = src[0], dst[2] = dst[0]; /* a self-loop, a repeat */
        uint64_t *offsets = malloc((n + 1) * sizeof(uint64_t)), *targets = malloc((len + 1) * sizeof(uint64_t));
        csr_of(src, dst, len, n, offsets, targets);
        uint64_t *csr_src = malloc((len + 1) * sizeof(uint64_t)), *csr_dst = malloc((len + 1) * sizeof(uint64_t));
        pairs_of(offsets, targets, n, csr_src, csr_dst);
        for (int directed = 0; directed <= 1; directed++) {
            for (size_t p = 0; p < N_PLACEMENTS; p++) {
                char what[96];
                snprintf(what, sizeof what, "n %zu, %s, placement %s", n, directed ? "directed" : "undirected",
                         PLACEMENTS[p] ? PLACEMENTS[p] : "NULL");
                SaGraph *from_csr = NULL, *from_edges = NULL;
                CHECK_OK(sa_graph_from_csr(offsets, n, len == 0 ? NULL : targets, len, directed, PLACEMENTS[p], &from_csr));
                /* the pairs in CSR order and in input order make the same graph */
                CHECK_OK(sa_graph_from_edges(p % 2 ? src : csr_src, p % 2 ? dst : csr_dst, len, n, directed, PLACEMENTS[p], &from_edges));
                if (from_csr != NULL && from_edges != NULL) check_same(from_csr, from_edges, n, directed, what);
                sa_graph_free(from_csr);
                sa_graph_free(from_edges);
            }
        }
        free(src), free(dst), free(offsets), free(targets), free(csr_src), free(csr_dst);
    }
}

static void test_undirected_is_symmetrised(void) {
    /* The upper triangle of the path 0-1-2-3: three edges, BFS from 3 reaches 0 in 3 hops. */
    uint64_t offsets[] = {0, 1, 2, 3, 3}, targets[] = {1, 2, 3};
    SaGraph *graph = NULL;
    CHECK_OK(sa_graph_from_csr(offsets, 4, targets, 3, false, NULL, &graph));
    uint64_t edges = 0;
    CHECK_OK(sa_graph_shape(graph, NULL, &edges, NULL));
    CHECK(edges == 3, "path edges %" PRIu64, edges);
    int64_t levels[4] = {-2, -2, -2, -2};
    CHECK_OK(sa_graph_bfs(graph, 3, levels, NULL, 4));
    CHECK(levels[0] == 3 && levels[1] == 2 && levels[2] == 1 && levels[3] == 0, "levels %" PRId64 " %" PRId64, levels[0], levels[1]);
    sa_graph_free(graph);
    /* Directed, the same arrays: vertex 3 reaches nothing. */
    CHECK_OK(sa_graph_from_csr(offsets, 4, targets, 3, true, NULL, &graph));
    CHECK_OK(sa_graph_bfs(graph, 3, levels, NULL, 4));
    CHECK(levels[0] == -1 && levels[3] == 0, "directed levels %" PRId64, levels[0]);
    sa_graph_free(graph);
    /* No vertices: offsets is {0}, targets may be NULL. */
    uint64_t zero[] = {0};
    CHECK_OK(sa_graph_from_csr(zero, 0, NULL, 0, true, NULL, &graph));
    size_t vertices = 9;
    CHECK_OK(sa_graph_shape(graph, &vertices, NULL, NULL));
    CHECK(vertices == 0, "empty graph has %zu vertices", vertices);
    sa_graph_free(graph);
}

static void test_errors(void) {
    uint64_t offsets[] = {0, 2, 3}, targets[] = {1, 0, 1};
    SaGraph *graph = NULL;
    CHECK_STATUS(sa_graph_from_csr(NULL, 2, targets, 3, true, NULL, &graph), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("offsets");
    CHECK_STATUS(sa_graph_from_csr(offsets, 2, NULL, 3, true, NULL, &graph), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("targets");
    CHECK_STATUS(sa_graph_from_csr(offsets, 2, targets, 3, true, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("out");
    CHECK_STATUS(sa_graph_from_csr(offsets, 2, targets, 3, true, "mirrored", &graph), SA_STATUS_INVALID_PLACEMENT);
    CHECK_STATUS(sa_graph_from_csr(offsets, SIZE_MAX, targets, 3, true, NULL, &graph), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("vertices + 1");
    uint64_t not_zero[] = {1, 2, 3};
    CHECK_STATUS(sa_graph_from_csr(not_zero, 2, targets, 3, true, NULL, &graph), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("offsets[0] = 1 must be 0");
    uint64_t decreasing[] = {0, 2, 4, 6, 7, 3, 8, 8, 8, 8, 10}, ten[10] = {0};
    CHECK_STATUS(sa_graph_from_csr(decreasing, 10, ten, 10, false, NULL, &graph), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("offsets[5] = 3 is below offsets[4] = 7");
    CHECK_STATUS(sa_graph_from_csr(offsets, 2, targets, 2, true, NULL, &graph), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("offsets[2] = 3");
    uint64_t far[13] = {0}, thirteen[11] = {0, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13};
    far[12] = 99;
    CHECK_STATUS(sa_graph_from_csr(thirteen, 10, far, 13, true, NULL, &graph), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("targets[12] = 99 is not a vertex (the graph has 10 vertices)");
    CHECK(graph == NULL, "no graph on failure");
}

int main(void) {
    test_same_as_edges();
    test_undirected_is_symmetrised();
    test_errors();
    return finish("test_graph_csr");
}
