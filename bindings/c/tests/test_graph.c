/* test_graph.c - tests of the graphs of the C ABI (sa_graph_*) from plain C: BFS levels, component
 * labels, PageRank ranks and triangle counts are compared with plain C references computed here
 * (a queue, union-find, power iteration over the edge list, a triple loop) on random graphs of
 * edge sizes, directed and undirected, with repeated edges and self-loops; betweenness against
 * hand-computed values; progress callbacks, files, saving and converting, results handed out as
 * smart arrays, and every error path. Exits 0 when
 * all checks pass. */
#include "check.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Adjacency of the edge list as the library stores it: both directions of an undirected edge,
 * a self-loop once. */
typedef struct {
    size_t n, m;
    size_t *begin; /* n + 1 */
    uint64_t *to;
} Adjacency;

static Adjacency adjacency(const uint64_t *src, const uint64_t *dst, size_t len, size_t n, bool directed, bool reverse) {
    Adjacency a = {n, 0, calloc(n + 2, sizeof(size_t)), NULL};
    for (size_t i = 0; i < len; i++) {
        uint64_t s = reverse ? dst[i] : src[i], t = reverse ? src[i] : dst[i];
        a.begin[s + 1]++;
        if (!directed && s != t) a.begin[t + 1]++;
    }
    for (size_t v = 0; v < n; v++) a.begin[v + 1] += a.begin[v];
    a.m = a.begin[n];
    a.to = malloc((a.m + 1) * sizeof(uint64_t));
    size_t *at = malloc((n + 1) * sizeof(size_t));
    for (size_t v = 0; v <= n; v++) at[v] = a.begin[v];
    for (size_t i = 0; i < len; i++) {
        uint64_t s = reverse ? dst[i] : src[i], t = reverse ? src[i] : dst[i];
        a.to[at[s]++] = t;
        if (!directed && s != t) a.to[at[t]++] = s;
    }
    free(at);
    return a;
}

static void drop(Adjacency *a) { free(a->begin), free(a->to); }

static void bfs_reference(const Adjacency *a, uint64_t source, int64_t *levels) {
    uint64_t *queue = malloc((a->n + 1) * sizeof(uint64_t));
    for (size_t v = 0; v < a->n; v++) levels[v] = -1;
    size_t head = 0, tail = 0;
    levels[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        uint64_t u = queue[head++];
        for (size_t e = a->begin[u]; e < a->begin[u + 1]; e++) {
            if (levels[a->to[e]] < 0) {
                levels[a->to[e]] = levels[u] + 1;
                queue[tail++] = a->to[e];
            }
        }
    }
    free(queue);
}

static uint64_t find(uint64_t *parent, uint64_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

/* Labels: the smallest id of each weak component. */
static void components_reference(const uint64_t *src, const uint64_t *dst, size_t len, size_t n, uint64_t *labels) {
    uint64_t *parent = malloc((n + 1) * sizeof(uint64_t));
    for (size_t v = 0; v < n; v++) parent[v] = v;
    for (size_t i = 0; i < len; i++) {
        uint64_t a = find(parent, src[i]), b = find(parent, dst[i]);
        if (a < b) parent[b] = a; else parent[a] = b;
    }
    for (size_t v = 0; v < n; v++) labels[v] = find(parent, v);
    free(parent);
}

/* Jacobi power iteration over the forward adjacency, dangling rank spread over every vertex. */
static void pagerank_reference(const Adjacency *out, size_t n, double *ranks) {
    double *next = malloc((n + 1) * sizeof(double));
    for (size_t v = 0; v < n; v++) ranks[v] = 1.0 / (double)n;
    for (int iteration = 0; iteration < 10000; iteration++) {
        double dangling = 0;
        for (size_t v = 0; v < n; v++) {
            next[v] = 0;
            if (out->begin[v + 1] == out->begin[v]) dangling += ranks[v];
        }
        for (size_t v = 0; v < n; v++) {
            size_t degree = out->begin[v + 1] - out->begin[v];
            for (size_t e = out->begin[v]; e < out->begin[v + 1]; e++) next[out->to[e]] += ranks[v] / (double)degree;
        }
        double change = 0;
        for (size_t v = 0; v < n; v++) {
            double rank = (1 - 0.85) / (double)n + 0.85 * (next[v] + dangling / (double)n);
            change += fabs(rank - ranks[v]);
            ranks[v] = rank;
        }
        if (change < 1e-14) break;
    }
    free(next);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_random_graphs(void) {
    static const size_t sizes[] = {1, 2, 63, 64, 65, 1025};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k], len = n * 3;
        for (int directed = 0; directed < 2; directed++) {
            uint64_t *src = malloc(len * sizeof(uint64_t)), *dst = malloc(len * sizeof(uint64_t));
            for (size_t i = 0; i < len; i++) src[i] = next_random() % n, dst[i] = next_random() % n;
            SaGraph *graph = NULL;
            CHECK_OK(sa_graph_from_edges(src, dst, len, n, directed, "interleaved", &graph));
            if (graph == NULL) continue;
            size_t vertices = 0;
            bool is_directed = !directed;
            CHECK_OK(sa_graph_shape(graph, &vertices, NULL, &is_directed));
            CHECK(vertices == n && is_directed == (bool)directed, "shape n %zu", vertices);
            Adjacency forward = adjacency(src, dst, len, n, directed, false);
            int64_t *levels = malloc(n * sizeof(int64_t)), *parents = malloc(n * sizeof(int64_t));
            int64_t *want = malloc(n * sizeof(int64_t));
            size_t wrong = 0;
            for (uint64_t source = 0; source < n; source += n / 3 + 1) {
                CHECK_OK(sa_graph_bfs(graph, source, levels, parents, n));
                bfs_reference(&forward, source, want);
                for (size_t v = 0; v < n; v++) {
                    wrong += levels[v] != want[v];
                    if (v == source) wrong += parents[v] != (int64_t)source;
                    else if (want[v] < 0) wrong += parents[v] != -1;
                    else wrong += parents[v] < 0 || levels[parents[v]] != want[v] - 1;
                }
            }
            CHECK(wrong == 0, "bfs n %zu directed %d: %zu wrong", n, directed, wrong);
            uint64_t *labels = malloc(n * sizeof(uint64_t)), *want_labels = malloc(n * sizeof(uint64_t));
            uint64_t count = 0;
            CHECK_OK(sa_graph_connected_components(graph, labels, n, &count));
            components_reference(src, dst, len, n, want_labels);
            wrong = 0;
            uint64_t want_count = 0;
            for (size_t v = 0; v < n; v++) wrong += labels[v] != want_labels[v], want_count += want_labels[v] == v;
            CHECK(wrong == 0 && count == want_count, "components n %zu: %zu wrong, %" PRIu64 " of %" PRIu64, n, wrong, count, want_count);
            double *ranks = malloc(n * sizeof(double)), *want_ranks = malloc(n * sizeof(double));
            size_t iterations = 0;
            CHECK_OK(sa_graph_pagerank(graph, 0.85, 1e-13, 10000, false, ranks, n, &iterations, NULL, NULL));
            pagerank_reference(&forward, n, want_ranks);
            double worst = 0, sum = 0;
            for (size_t v = 0; v < n; v++) worst = fmax(worst, fabs(ranks[v] - want_ranks[v])), sum += ranks[v];
            CHECK(worst < 1e-9 && fabs(sum - 1) < 1e-9 && iterations > 0, "pagerank n %zu: off by %g", n, worst);
            CHECK_OK(sa_graph_pagerank(graph, 0.85, 1e-13, 10000, true, ranks, n, NULL, NULL, NULL));
            worst = 0;
            for (size_t v = 0; v < n; v++) worst = fmax(worst, fabs(ranks[v] - want_ranks[v]));
            CHECK(worst < 1e-8, "gauss-seidel pagerank n %zu: off by %g", n, worst);
            free(levels), free(parents), free(want), free(labels), free(want_labels), free(ranks), free(want_ranks);
            drop(&forward);
            sa_graph_free(graph);
            free(src), free(dst);
        }
    }
}

/* Triangles of simple undirected graphs (no repeats, no self-loops) against a triple loop. */
static void test_triangles(void) {
    static const size_t sizes[] = {1, 3, 63, 64, 65};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k], len = 0;
        bool *edge = calloc(n * n, sizeof(bool));
        uint64_t *src = malloc(n * n * sizeof(uint64_t)), *dst = malloc(n * n * sizeof(uint64_t));
        for (size_t u = 0; u < n; u++)
            for (size_t v = u + 1; v < n; v++)
                if (next_random() % 4 == 0 || n == 3) edge[u * n + v] = edge[v * n + u] = true, src[len] = u, dst[len++] = v;
        uint64_t want = 0;
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++)
                for (size_t c = b + 1; c < n; c++) want += edge[a * n + b] && edge[b * n + c] && edge[a * n + c];
        SaGraph *graph = NULL;
        CHECK_OK(sa_graph_from_edges(src, dst, len, n, false, NULL, &graph));
        uint64_t got = 0;
        CHECK_OK(sa_graph_triangle_count(graph, &got));
        CHECK(got == want, "triangles n %zu: %" PRIu64 " expected %" PRIu64, n, got, want);
        sa_graph_free(graph);
        free(edge), free(src), free(dst);
    }
}

static int calls = 0;
static void count_calls(void *user_data, uint64_t done, uint64_t total) {
    (void)user_data;
    calls++;
    CHECK(done == (uint64_t)calls && done <= total, "progress %" PRIu64 " of %" PRIu64, done, total);
}
static void last_step(void *user_data, uint64_t done, uint64_t total) {
    (void)total;
    *(uint64_t *)user_data = done;
}

static void test_betweenness_progress_and_files(void) {
    /* the path 0-1-2-3: every pair through 1 or 2, counted from both ends */
    uint64_t src[] = {0, 1, 2}, dst[] = {1, 2, 3};
    SaGraph *path = NULL;
    CHECK_OK(sa_graph_from_edges(src, dst, 3, 0, false, NULL, &path));
    double scores[4] = {-1, -1, -1, -1};
    calls = 0;
    CHECK_OK(sa_graph_betweenness(path, NULL, 0, scores, 4, count_calls, NULL));
    CHECK(scores[0] == 0 && scores[1] == 4 && scores[2] == 4 && scores[3] == 0, "path scores %g %g %g %g", scores[0], scores[1], scores[2], scores[3]);
    CHECK(calls == 4, "one progress call per source, got %d", calls);
    uint64_t one_source[] = {0};
    CHECK_OK(sa_graph_betweenness(path, one_source, 1, scores, 4, NULL, NULL));
    CHECK(scores[1] == 2 && scores[2] == 1, "from vertex 0: %g %g", scores[1], scores[2]);
    uint64_t last = 0;
    size_t iterations = 0;
    double ranks[4];
    CHECK_OK(sa_graph_pagerank(path, 0.85, 1e-12, 100, false, ranks, 4, &iterations, last_step, &last));
    CHECK(last == iterations && iterations > 1, "progress after every iteration: %" PRIu64 " of %zu", last, iterations);
    uint64_t triangles = 9;
    CHECK_OK(sa_graph_triangle_count(path, &triangles));
    CHECK(triangles == 0, "a path has no triangle");
    sa_graph_free(path);

    /* files: an edge list with a comment, a malformed one, a missing one */
    const char *good = "test_graph_good.el", *bad = "test_graph_bad.el";
    FILE *file = fopen(good, "w");
    fputs("# triangle and a pair\n0 1\n1 2\n2 0\n5 6\n", file);
    fclose(file);
    file = fopen(bad, "w");
    fputs("0 1\n1 x\n", file);
    fclose(file);
    SaGraph *loaded = NULL;
    CHECK_OK(sa_graph_load(good, true, NULL, &loaded));
    size_t vertices = 0;
    uint64_t edges = 0;
    CHECK_OK(sa_graph_shape(loaded, &vertices, &edges, NULL));
    CHECK(vertices == 7 && edges == 4, "loaded %zu vertices, %" PRIu64 " edges", vertices, edges);
    uint64_t labels[7], count = 0;
    CHECK_OK(sa_graph_connected_components(loaded, labels, 7, &count));
    CHECK(count == 4 && labels[2] == 0 && labels[6] == 5 && labels[3] == 3, "components %" PRIu64, count);
    sa_graph_free(loaded);
    loaded = NULL;
    CHECK_STATUS(sa_graph_load(bad, false, NULL, &loaded), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("test_graph_bad.el:2");
    CHECK(loaded == NULL, "no graph on failure");
    CHECK_STATUS(sa_graph_load("no/such/file.el", false, NULL, &loaded), SA_STATUS_SYSTEM);
    remove(good);
    remove(bad);

    SaGraph *kron = NULL;
    CHECK_OK(sa_graph_kronecker(10, 4, 7, false, "os", &kron));
    CHECK_OK(sa_graph_shape(kron, &vertices, NULL, NULL));
    CHECK(vertices == 1024, "kronecker vertices %zu", vertices);
    sa_graph_free(kron);
}

static void test_errors(void) {
    uint64_t src[] = {0, 1}, dst[] = {1, 5};
    SaGraph *graph = NULL;
    CHECK_STATUS(sa_graph_from_edges(src, dst, 2, 3, true, NULL, &graph), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("vertex id 5");
    CHECK(graph == NULL, "no graph on failure");
    CHECK_STATUS(sa_graph_from_edges(NULL, dst, 2, 0, true, NULL, &graph), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("sources");
    CHECK_STATUS(sa_graph_from_edges(src, dst, 2, 0, true, "mirrored", &graph), SA_STATUS_INVALID_PLACEMENT);
    CHECK_STATUS(sa_graph_from_edges(src, dst, 2, 0, true, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_OK(sa_graph_from_edges(NULL, NULL, 0, 0, true, NULL, &graph)); /* no edges, no vertices */
    size_t vertices = 9;
    CHECK_OK(sa_graph_shape(graph, &vertices, NULL, NULL));
    CHECK(vertices == 0, "empty graph");
    sa_graph_free(graph);
    graph = NULL;
    CHECK_OK(sa_graph_from_edges(src, dst, 2, 0, true, NULL, &graph));
    int64_t levels[6];
    CHECK_STATUS(sa_graph_bfs(graph, 6, levels, NULL, 6), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("source vertex 6");
    CHECK_STATUS(sa_graph_bfs(graph, 0, levels, NULL, 5), SA_STATUS_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("6 vertices");
    CHECK_OK(sa_graph_bfs(graph, 0, NULL, NULL, 0)); /* nothing wanted */
    CHECK_STATUS(sa_graph_bfs(NULL, 0, levels, NULL, 6), SA_STATUS_NULL_POINTER);
    uint64_t count = 0;
    CHECK_STATUS(sa_graph_triangle_count(graph, &count), SA_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sa_graph_connected_components(graph, NULL, 6, NULL), SA_STATUS_NULL_POINTER);
    double ranks[6];
    CHECK_STATUS(sa_graph_pagerank(graph, 1.5, 1e-6, 10, false, ranks, 6, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    sa_graph_free(graph);
    sa_graph_free(NULL);
}

static void test_save_and_convert(void) {
    /* A directed multigraph with a self-loop and an isolated last vertex. */
    uint64_t src[] = {0, 0, 1, 2, 3, 3, 4}, dst[] = {1, 1, 2, 0, 3, 4, 0};
    SaGraph *graph = NULL;
    CHECK_OK(sa_graph_from_edges(src, dst, 7, 6, true, NULL, &graph));
    const char *binary = "test_graph_save.sag", *text = "test_graph_save.el",
               *market = "test_graph_save.mtx", *converted = "test_graph_converted.sag";
    CHECK_OK(sa_graph_save(graph, binary));
    CHECK_OK(sa_graph_save(graph, market));
    CHECK_OK(sa_graph_save(graph, text));
    /* Every saved file reloads to the same shape and the same BFS levels. */
    int64_t want_levels[6], want_parents[6];
    CHECK_OK(sa_graph_bfs(graph, 0, want_levels, want_parents, 6));
    const char *files[] = {binary, market, converted};
    CHECK_OK(sa_graph_convert(text, converted, false));
    for (size_t f = 0; f < 3; f++) {
        SaGraph *loaded = NULL;
        CHECK_OK(sa_graph_load(files[f], false, NULL, &loaded));
        size_t vertices = 0;
        uint64_t edges = 0;
        bool directed = false;
        CHECK_OK(sa_graph_shape(loaded, &vertices, &edges, &directed));
        /* The isolated last vertex survives every format (edge lists declare `# Nodes: 6`). */
        size_t want_vertices = 6;
        CHECK(vertices == want_vertices && edges == 7 && directed, "%s: %zu vertices, %" PRIu64 " edges, directed %d",
              files[f], vertices, edges, (int)directed);
        int64_t levels[6], parents[6];
        CHECK_OK(sa_graph_bfs(loaded, 0, levels, parents, 6));
        for (size_t v = 0; v < want_vertices; v++) {
            CHECK(levels[v] == want_levels[v], "%s: level of %zu is %" PRId64, files[f], v, levels[v]);
        }
        sa_graph_free(loaded);
    }
    /* Undirected conversion of the same list. */
    CHECK_OK(sa_graph_convert(text, converted, true));
    SaGraph *undirected = NULL;
    CHECK_OK(sa_graph_load(converted, false, NULL, &undirected));
    bool directed = true;
    CHECK_OK(sa_graph_shape(undirected, NULL, NULL, &directed));
    CHECK(!directed, "converted with undirected=true");
    sa_graph_free(undirected);
    /* Errors: NULL arguments, a missing input (nothing written), an unwritable output. */
    CHECK_STATUS(sa_graph_save(NULL, binary), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_save(graph, NULL), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("path");
    CHECK_STATUS(sa_graph_convert(NULL, converted, false), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("input");
    CHECK_STATUS(sa_graph_convert(text, NULL, false), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("output");
    remove(converted);
    CHECK_STATUS(sa_graph_convert("no/such/file.el", converted, false), SA_STATUS_SYSTEM);
    FILE *written = fopen(converted, "r");
    CHECK(written == NULL, "nothing written when the input is missing");
    if (written) fclose(written);
    CHECK_STATUS(sa_graph_save(graph, "no/such/folder/g.sag"), SA_STATUS_SYSTEM);
    CHECK_MESSAGE("no/such/folder/g.sag");
    sa_graph_free(graph);
    remove(binary);
    remove(text);
    remove(market);
}

static void test_results_as_arrays(void) {
    /* Two components (0-1-2 and 3-4) and an isolated vertex 5; vertex 5 and 3, 4 unreached from 0. */
    uint64_t src[] = {0, 1, 3}, dst[] = {1, 2, 4};
    SaGraph *graph = NULL;
    CHECK_OK(sa_graph_from_edges(src, dst, 3, 6, false, NULL, &graph));
    SaArray *levels = NULL, *parents = NULL;
    CHECK_OK(sa_graph_bfs_arrays(graph, 1, &levels, &parents));
    size_t len = 0;
    uint32_t bits = 0;
    CHECK_OK(sa_array_len(levels, &len));
    CHECK_OK(sa_array_bits(levels, &bits));
    CHECK(len == 6 && bits >= 1 && bits <= 64, "levels: %zu values of %u bits", len, bits);
    uint64_t unreached = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint64_t want[] = {1, 0, 1, unreached, unreached, unreached};
    for (size_t v = 0; v < 6; v++) {
        uint64_t level = 0;
        CHECK_OK(sa_array_get(levels, v, &level));
        CHECK(level == want[v], "level of %zu: %" PRIu64, v, level);
    }
    uint64_t parent = 0;
    CHECK_OK(sa_array_get(parents, 1, &parent));
    CHECK(parent == 1, "the source is its own parent");
    CHECK_OK(sa_array_get(parents, 2, &parent));
    CHECK(parent == 1, "parent of 2: %" PRIu64, parent);
    sa_array_free(levels);
    sa_array_free(parents);
    /* One output is enough; none is allowed. */
    parents = NULL;
    CHECK_OK(sa_graph_bfs_arrays(graph, 0, NULL, &parents));
    CHECK(parents != NULL, "parents alone");
    sa_array_free(parents);
    CHECK_OK(sa_graph_bfs_arrays(graph, 0, NULL, NULL));
    SaArray *labels = NULL;
    uint64_t count = 0;
    CHECK_OK(sa_graph_connected_components_array(graph, &labels, &count));
    uint64_t want_labels[] = {0, 0, 0, 3, 3, 5};
    for (size_t v = 0; v < 6; v++) {
        uint64_t label = 9;
        CHECK_OK(sa_array_get(labels, v, &label));
        CHECK(label == want_labels[v], "label of %zu: %" PRIu64, v, label);
    }
    CHECK(count == 3, "components: %" PRIu64, count);
    sa_array_free(labels);
    /* Errors: nothing handed out. */
    levels = NULL;
    CHECK_STATUS(sa_graph_bfs_arrays(graph, 6, &levels, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("source vertex 6");
    CHECK(levels == NULL, "no array on failure");
    CHECK_STATUS(sa_graph_bfs_arrays(NULL, 0, &levels, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_connected_components_array(graph, NULL, &count), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("labels");
    sa_graph_free(graph);
}

int main(void) {
    test_random_graphs();
    test_triangles();
    test_betweenness_progress_and_files();
    test_errors();
    test_save_and_convert();
    test_results_as_arrays();
    return finish("C ABI graph tests");
}
