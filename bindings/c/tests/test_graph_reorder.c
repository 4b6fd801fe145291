/* test_graph_reorder.c - vertex relabelling by degree through the C ABI
 * (sa_graph_reorder_by_degree, sa_graph_parents_to_original, sa_graph_labels_to_original):
 * "relabel once, run many kernels, map the results back". On a Kronecker graph and random
 * directed and weighted graphs, BFS levels, SSSP distances, component labels, PageRank,
 * betweenness and triangle counts of the relabelled graph, read in input order through the id
 * map, equal those of the input graph; the map is a permutation with vertex 0 of the largest
 * degree; 0- and 1-vertex graphs; every bad argument as a typed error. Exits 0 when all checks
 * pass. */
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t vertex_count(const SaGraph *graph) {
    size_t n = 0;
    CHECK_OK(sa_graph_shape(graph, &n, NULL, NULL));
    return n;
}

/* Relabels `graph` and checks every kernel against the input order. */
static void check_same_results(const SaGraph *graph, const char *name) {
    size_t n = vertex_count(graph);
    size_t cap = n == 0 ? 1 : n;
    bool directed = false, weighted = false;
    CHECK_OK(sa_graph_shape(graph, NULL, NULL, &directed));
    CHECK_OK(sa_graph_is_weighted(graph, &weighted));
    uint64_t *new_ids = malloc(cap * sizeof(uint64_t)), *original_ids = malloc(cap * sizeof(uint64_t));
    SaGraph *fast = NULL;
    CHECK_OK(sa_graph_reorder_by_degree(graph, &fast, new_ids, original_ids, n));
    if (fast == NULL) {
        free(new_ids);
        free(original_ids);
        return;
    }
    size_t fast_n = 0;
    uint64_t edges = 0, fast_edges = 0;
    bool fast_directed = false, fast_weighted = false;
    CHECK_OK(sa_graph_shape(graph, NULL, &edges, NULL));
    CHECK_OK(sa_graph_shape(fast, &fast_n, &fast_edges, &fast_directed));
    CHECK_OK(sa_graph_is_weighted(fast, &fast_weighted));
    CHECK(fast_n == n && fast_edges == edges && fast_directed == directed && fast_weighted == weighted,
          "%s: shape of the relabelled graph", name);
    for (size_t v = 0; v < n; v++) {
        CHECK(new_ids[v] < n && original_ids[new_ids[v]] == v, "%s: the map is not a bijection at %zu", name, v);
    }

    int64_t *levels = malloc(cap * sizeof(int64_t)), *parents = malloc(cap * sizeof(int64_t));
    int64_t *fast_levels = malloc(cap * sizeof(int64_t)), *fast_parents = malloc(cap * sizeof(int64_t));
    int64_t *mapped = malloc(cap * sizeof(int64_t));
    uint64_t sources[3] = {0, n / 2, n == 0 ? 0 : n - 1};
    for (size_t s = 0; s < 3 && n > 0; s++) {
        uint64_t source = sources[s];
        CHECK_OK(sa_graph_bfs(graph, source, levels, parents, n));
        CHECK_OK(sa_graph_bfs(fast, new_ids[source], fast_levels, fast_parents, n));
        CHECK_OK(sa_graph_parents_to_original(new_ids, fast_parents, n, mapped));
        for (size_t v = 0; v < n; v++) {
            CHECK(fast_levels[new_ids[v]] == levels[v], "%s: BFS level of %zu from %llu", name, v,
                  (unsigned long long)source);
            /* BFS trees may differ; a parent is one level up (the source is its own). */
            if (levels[v] < 0) {
                CHECK(mapped[v] == -1, "%s: unreached vertex %zu has a parent", name, v);
            } else {
                CHECK(mapped[v] >= 0 && levels[mapped[v]] == levels[v] - (v == source ? 0 : 1),
                      "%s: parent of %zu from %llu", name, v, (unsigned long long)source);
            }
        }
        if (weighted) {
            CHECK_OK(sa_graph_sssp(graph, source, 3, levels, n, NULL, NULL, NULL));
            CHECK_OK(sa_graph_sssp(fast, new_ids[source], 3, fast_levels, n, NULL, NULL, NULL));
            for (size_t v = 0; v < n; v++) {
                CHECK(fast_levels[new_ids[v]] == levels[v], "%s: distance of %zu", name, v);
            }
        }
    }

    uint64_t *labels = malloc(cap * sizeof(uint64_t)), *fast_labels = malloc(cap * sizeof(uint64_t));
    uint64_t count = 0, fast_count = 0;
    CHECK_OK(sa_graph_connected_components(graph, labels, n, &count));
    CHECK_OK(sa_graph_connected_components(fast, fast_labels, n, &fast_count));
    CHECK_OK(sa_graph_labels_to_original(new_ids, fast_labels, n, fast_labels)); /* in place */
    CHECK(count == fast_count, "%s: component counts %llu and %llu", name, (unsigned long long)count,
          (unsigned long long)fast_count);
    for (size_t v = 0; v < n; v++) CHECK(fast_labels[v] == labels[v], "%s: label of %zu", name, v);

    double *ranks = malloc(cap * sizeof(double)), *fast_ranks = malloc(cap * sizeof(double));
    if (n > 0) {
        CHECK_OK(sa_graph_pagerank(graph, 0.85, 1e-12, 1000, false, ranks, n, NULL, NULL, NULL));
        CHECK_OK(sa_graph_pagerank(fast, 0.85, 1e-12, 1000, false, fast_ranks, n, NULL, NULL, NULL));
        for (size_t v = 0; v < n; v++) {
            CHECK(fabs(fast_ranks[new_ids[v]] - ranks[v]) <= 1e-9 * fabs(ranks[v]) + 1e-15, "%s: rank of %zu", name,
                  v);
        }
        CHECK_OK(sa_graph_betweenness(graph, NULL, 0, ranks, n, NULL, NULL));
        CHECK_OK(sa_graph_betweenness(fast, NULL, 0, fast_ranks, n, NULL, NULL));
        for (size_t v = 0; v < n; v++) {
            CHECK(fabs(fast_ranks[new_ids[v]] - ranks[v]) <= 1e-9 * fabs(ranks[v]) + 1e-9, "%s: score of %zu", name,
                  v);
        }
    }
    if (!directed) {
        uint64_t triangles = 0, fast_triangles = 0;
        CHECK_OK(sa_graph_triangle_count(graph, &triangles));
        CHECK_OK(sa_graph_triangle_count(fast, &fast_triangles));
        CHECK(triangles == fast_triangles, "%s: triangles", name);
    }
    sa_graph_free(fast);
    free(new_ids), free(original_ids), free(levels), free(parents), free(fast_levels), free(fast_parents);
    free(mapped), free(labels), free(fast_labels), free(ranks), free(fast_ranks);
}

static SaGraph *random_graph(size_t n, size_t len, bool directed, bool weighted) {
    uint64_t *src = malloc((len + 1) * sizeof(uint64_t)), *dst = malloc((len + 1) * sizeof(uint64_t));
    uint64_t *w = malloc((len + 1) * sizeof(uint64_t));
    /* Skewed: half the edges touch the last few vertices. */
    for (size_t i = 0; i < len; i++) {
        src[i] = next_random() % n;
        dst[i] = (i % 2 == 0) ? n - 1 - next_random() % 4 : next_random() % n;
        w[i] = next_random() % 20;
    }
    SaGraph *graph = NULL;
    if (weighted) {
        CHECK_OK(sa_graph_from_weighted_edges(src, dst, w, len, n, directed, NULL, &graph));
    } else {
        CHECK_OK(sa_graph_from_edges(src, dst, len, n, directed, NULL, &graph));
    }
    free(src), free(dst), free(w);
    return graph;
}

int main(void) {
    SaGraph *graph = NULL;
    CHECK_OK(sa_graph_kronecker(8, 8, 2, false, NULL, &graph));
    check_same_results(graph, "kronecker");
    /* A star around vertex 5: the hub gets id 0, the leaves keep their order. */
    {
        uint64_t hub[5] = {5, 5, 5, 5, 5}, leaves[5] = {0, 1, 2, 3, 4}, original_ids[6], new_ids[6];
        SaGraph *star = NULL, *fast = NULL;
        CHECK_OK(sa_graph_from_edges(hub, leaves, 5, 0, false, NULL, &star));
        CHECK_OK(sa_graph_reorder_by_degree(star, &fast, new_ids, original_ids, 6));
        CHECK(original_ids[0] == 5 && original_ids[1] == 0 && original_ids[5] == 4, "star order %llu %llu %llu",
              (unsigned long long)original_ids[0], (unsigned long long)original_ids[1],
              (unsigned long long)original_ids[5]);
        CHECK(new_ids[5] == 0 && new_ids[0] == 1, "star map");
        sa_graph_free(fast);
        sa_graph_free(star);
    }
    CHECK_OK(sa_graph_generate_weights(graph, 5));
    check_same_results(graph, "kronecker, generated weights");
    sa_graph_free(graph);
    graph = NULL;
    CHECK_OK(sa_graph_kronecker(8, 8, 2, true, NULL, &graph));
    check_same_results(graph, "directed kronecker");
    sa_graph_free(graph);

    for (int round = 0; round < 4; round++) {
        bool directed = round % 2 == 1, weighted = round >= 2;
        graph = random_graph(200, 800, directed, weighted);
        check_same_results(graph, directed ? (weighted ? "random directed weighted" : "random directed")
                                           : (weighted ? "random weighted" : "random"));
        sa_graph_free(graph);
    }

    /* 0 and 1 vertices. */
    graph = NULL;
    CHECK_OK(sa_graph_from_edges(NULL, NULL, 0, 0, false, NULL, &graph));
    check_same_results(graph, "empty");
    sa_graph_free(graph);
    uint64_t loop = 0;
    graph = NULL;
    CHECK_OK(sa_graph_from_edges(&loop, &loop, 1, 1, true, NULL, &graph));
    check_same_results(graph, "one vertex");
    sa_graph_free(graph);

    /* Bad arguments. */
    graph = NULL;
    CHECK_OK(sa_graph_kronecker(4, 4, 1, false, NULL, &graph));
    uint64_t ids[16];
    SaGraph *out = NULL;
    CHECK_STATUS(sa_graph_reorder_by_degree(NULL, &out, NULL, NULL, 0), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_reorder_by_degree(graph, NULL, NULL, NULL, 0), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_reorder_by_degree(graph, &out, ids, NULL, 15), SA_STATUS_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("new_ids");
    CHECK(out == NULL, "a failed call wrote its output");
    uint64_t map[3] = {0, 2, 2}, labels[3] = {0, 1, 2}, result[3];
    int64_t parents[3] = {0, 0, -1}, mapped[3];
    CHECK_STATUS(sa_graph_labels_to_original(map, labels, 3, result), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("permutation");
    map[1] = 1;
    labels[2] = 7;
    CHECK_STATUS(sa_graph_labels_to_original(map, labels, 3, result), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("label 7");
    parents[1] = 9;
    CHECK_STATUS(sa_graph_parents_to_original(map, parents, 3, mapped), SA_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sa_graph_parents_to_original(NULL, parents, 3, mapped), SA_STATUS_NULL_POINTER);
    parents[1] = 0;
    CHECK_OK(sa_graph_parents_to_original(map, parents, 3, mapped));
    CHECK(mapped[0] == 0 && mapped[1] == 0 && mapped[2] == -1, "parents %lld %lld %lld", (long long)mapped[0],
          (long long)mapped[1], (long long)mapped[2]);
    sa_graph_free(graph);
    return finish("test_graph_reorder");
}
