/* test_graph_sssp.c - tests of edge weights and single-source shortest paths in the C ABI
 * (sa_graph_from_weighted_edges, sa_graph_generate_weights, sa_graph_is_weighted, sa_graph_sssp,
 * sa_graph_sssp_array, weighted files through sa_graph_load/save/convert) from plain C: hand-checked
 * distances of small graphs (directed and undirected, unreachable vertices, a source without
 * out-edges, zero weights, UINT32_MAX weights whose sums pass 32 bits, 0 and 1 vertices), random
 * graphs of the edge sizes and of 1000 vertices against a Dijkstra written here, for every delta
 * in {1, 2, 7, 1000}, progress callbacks, weights regenerated while other threads run SSSP, and
 * every error with its status and message. Exits 0 when all checks pass. */
#include "check.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static const uint64_t DELTAS[] = {1, 2, 7, 1000};
#define N_DELTAS (sizeof DELTAS / sizeof DELTAS[0])

/* Dijkstra over the edge list (both directions of an undirected edge), O(n^2 + n m) with a
 * linear scan for the next vertex: plain and obviously right. -1 for unreached. */
static void dijkstra(const uint64_t *src, const uint64_t *dst, const uint64_t *w, size_t len, size_t n, bool directed,
                     uint64_t source, int64_t *dist) {
    bool *done = calloc(n + 1, sizeof(bool));
    for (size_t v = 0; v < n; v++) dist[v] = -1;
    dist[source] = 0;
    for (;;) {
        int64_t best = -1;
        size_t u = 0;
        for (size_t v = 0; v < n; v++) {
            if (!done[v] && dist[v] >= 0 && (best < 0 || dist[v] < best)) best = dist[v], u = v;
        }
        if (best < 0) break;
        done[u] = true;
        for (size_t i = 0; i < len; i++) {
            uint64_t to;
            if (src[i] == u) to = dst[i];
            else if (!directed && dst[i] == u) to = src[i];
            else continue;
            int64_t candidate = best + (int64_t)w[i];
            if (dist[to] < 0 || candidate < dist[to]) dist[to] = candidate;
        }
    }
    free(done);
}

static uint64_t state = 0x243F6A8885A308D3ull;
static uint64_t next_random(void) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
}

/* Distances of `graph` from `source` for every delta, checked against `expected`, with the
 * reached count. */
static void check_distances(const SaGraph *graph, uint64_t source, const int64_t *expected, size_t n, const char *what) {
    uint64_t want_reached = 0;
    for (size_t v = 0; v < n; v++) want_reached += expected[v] >= 0;
    int64_t *got = malloc((n + 1) * sizeof(int64_t));
    for (size_t d = 0; d < N_DELTAS; d++) {
        for (size_t v = 0; v < n; v++) got[v] = -7;
        uint64_t reached = 0;
        CHECK_OK(sa_graph_sssp(graph, source, DELTAS[d], got, n, &reached, NULL, NULL));
        size_t wrong = 0, first = 0;
        for (size_t v = 0; v < n; v++) {
            if (got[v] != expected[v] && wrong++ == 0) first = v;
        }
        CHECK(wrong == 0, "%s, source %" PRIu64 ", delta %" PRIu64 ": %zu wrong, vertex %zu: %" PRId64 " != %" PRId64, what,
              source, DELTAS[d], wrong, first, got[first], expected[first]);
        CHECK(reached == want_reached, "%s: reached %" PRIu64 " != %" PRIu64, what, reached, want_reached);
    }
    free(got);
}

static SaGraph *weighted(const uint64_t *src, const uint64_t *dst, const uint64_t *w, size_t len, uint64_t vertices,
                         bool directed) {
    SaGraph *graph = NULL;
    CHECK_OK(sa_graph_from_weighted_edges(src, dst, w, len, vertices, directed, NULL, &graph));
    return graph;
}

static void test_hand_checked(void) {
    /* 0->1 (4), 0->2 (1), 2->1 (2), 1->3 (1), 2->3 (5), 4->0 (1); vertex 5 has no edges */
    uint64_t src[] = {0, 0, 2, 1, 2, 4}, dst[] = {1, 2, 1, 3, 3, 0}, w[] = {4, 1, 2, 1, 5, 1};
    SaGraph *directed = weighted(src, dst, w, 6, 6, true);
    int64_t from0[] = {0, 3, 1, 4, -1, -1};
    check_distances(directed, 0, from0, 6, "directed from 0");
    int64_t from3[] = {-1, -1, -1, 0, -1, -1}; /* 3 has no out-edges */
    check_distances(directed, 3, from3, 6, "directed from a sink");
    int64_t from4[] = {1, 4, 2, 5, 0, -1};
    check_distances(directed, 4, from4, 6, "directed from 4");
    int64_t from5[] = {-1, -1, -1, -1, -1, 0};
    check_distances(directed, 5, from5, 6, "directed from an isolated vertex");
    bool flag = false;
    CHECK_OK(sa_graph_is_weighted(directed, &flag));
    CHECK(flag, "a graph from weighted edges is weighted");
    size_t vertices = 0;
    uint64_t edges = 0;
    CHECK_OK(sa_graph_shape(directed, &vertices, &edges, NULL));
    CHECK(vertices == 6 && edges == 6, "shape %zu %" PRIu64, vertices, edges);
    sa_graph_free(directed);

    SaGraph *undirected = weighted(src, dst, w, 6, 6, false);
    int64_t both0[] = {0, 3, 1, 4, 1, -1};
    check_distances(undirected, 0, both0, 6, "undirected from 0");
    int64_t both3[] = {4, 1, 3, 0, 5, -1};
    check_distances(undirected, 3, both3, 6, "undirected from 3");
    sa_graph_free(undirected);

    /* zero weights: everything at distance 0, the heavy shortcut unused */
    uint64_t zs[] = {0, 1, 0, 2}, zd[] = {1, 2, 2, 3}, zw[] = {0, 0, 5, 0};
    SaGraph *zeros = weighted(zs, zd, zw, 4, 0, true);
    int64_t zero[] = {0, 0, 0, 0};
    check_distances(zeros, 0, zero, 4, "zero weights");
    sa_graph_free(zeros);

    /* repeated edges keep the lightest; a self-loop changes nothing */
    uint64_t rs[] = {0, 0, 0, 1, 1}, rd[] = {1, 1, 1, 1, 2}, rw[] = {9, 3, 6, 1, 2};
    SaGraph *repeats = weighted(rs, rd, rw, 5, 0, true);
    int64_t rdist[] = {0, 3, 5};
    check_distances(repeats, 0, rdist, 3, "repeated edges");
    sa_graph_free(repeats);
}

static void test_wide_weights(void) {
    /* a path 0-1-2-3 of UINT32_MAX weights: sums pass 32 bits */
    const uint64_t max = UINT32_MAX;
    uint64_t src[] = {0, 1, 2}, dst[] = {1, 2, 3}, w[] = {max, max, max};
    SaGraph *graph = weighted(src, dst, w, 3, 5, false);
    int64_t expected[] = {0, (int64_t)max, 2 * (int64_t)max, 3 * (int64_t)max, -1};
    check_distances(graph, 0, expected, 5, "UINT32_MAX weights");
    int64_t from3[] = {3 * (int64_t)max, 2 * (int64_t)max, (int64_t)max, 0, -1};
    check_distances(graph, 3, from3, 5, "UINT32_MAX weights from the end");

    SaArray *array = NULL;
    uint64_t reached = 0;
    CHECK_OK(sa_graph_sssp_array(graph, 0, 1000, &array, &reached, NULL, NULL));
    uint32_t bits = 0;
    CHECK_OK(sa_array_bits(array, &bits));
    CHECK(bits == 64 && reached == 4, "wide distances: %u bits, %" PRIu64 " reached", bits, reached);
    uint64_t value = 0;
    CHECK_OK(sa_array_get(array, 3, &value));
    CHECK(value == 3 * max, "distance of 3: %" PRIu64, value);
    CHECK_OK(sa_array_get(array, 4, &value));
    CHECK(value == UINT64_MAX, "unreached at 64 bits: %" PRIu64, value);
    sa_array_free(array);
    sa_graph_free(graph);
}

static void test_tiny_graphs(void) {
    /* no vertices: weighted, but no source exists */
    SaGraph *empty = weighted(NULL, NULL, NULL, 0, 0, true);
    bool flag = false;
    CHECK_OK(sa_graph_is_weighted(empty, &flag));
    CHECK(flag, "an empty weighted graph is weighted");
    int64_t none[1] = {-7};
    CHECK_STATUS(sa_graph_sssp(empty, 0, 1, none, 0, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("source vertex 0 does not exist");
    CHECK(none[0] == -7, "nothing written on failure");
    SaArray *array = NULL;
    CHECK_STATUS(sa_graph_sssp_array(empty, 0, 1, &array, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK(array == NULL, "no array on failure");
    CHECK_OK(sa_graph_generate_weights(empty, 1));
    sa_graph_free(empty);

    /* one vertex, without and with a self-loop */
    SaGraph *one = weighted(NULL, NULL, NULL, 0, 1, false);
    int64_t zero[] = {0};
    check_distances(one, 0, zero, 1, "one vertex");
    sa_graph_free(one);
    uint64_t loop[] = {0}, weight[] = {3};
    one = weighted(loop, loop, weight, 1, 0, true);
    check_distances(one, 0, zero, 1, "one vertex with a self-loop");
    CHECK_OK(sa_graph_sssp_array(one, 0, 1, &array, NULL, NULL, NULL));
    uint32_t bits = 0;
    uint64_t value = 9;
    CHECK_OK(sa_array_bits(array, &bits));
    CHECK_OK(sa_array_get(array, 0, &value));
    CHECK(bits == 32 && value == 0, "one vertex as an array: %u bits, %" PRIu64, bits, value);
    sa_array_free(array);
    sa_graph_free(one);
}

/* A random multigraph of n vertices and `len` edges (repeats and self-loops), weights 0..limit. */
static void random_edges(size_t n, size_t len, uint64_t limit, uint64_t *src, uint64_t *dst, uint64_t *w) {
    for (size_t i = 0; i < len; i++) {
        src[i] = next_random() % n;
        dst[i] = next_random() % n;
        w[i] = next_random() % (limit + 1);
    }
}

static void test_random_graphs(void) {
    /* edge sizes of vertex counts, then 1000 vertices with small and with large weights */
    size_t sizes[N_LENGTHS + 2];
    uint64_t limits[N_LENGTHS + 2];
    size_t count = 0;
    for (size_t k = 0; k < N_LENGTHS; k++) {
        if (LENGTHS[k] > 0) sizes[count] = LENGTHS[k], limits[count++] = 20;
    }
    sizes[count] = 1000, limits[count++] = 9;
    sizes[count] = 1000, limits[count++] = UINT32_MAX;
    for (size_t k = 0; k < count; k++) {
        size_t n = sizes[k], len = 3 * n;
        uint64_t *src = malloc(len * sizeof(uint64_t)), *dst = malloc(len * sizeof(uint64_t)), *w = malloc(len * sizeof(uint64_t));
        int64_t *expected = malloc(n * sizeof(int64_t));
        random_edges(n, len, limits[k], src, dst, w);
        for (int directed = 0; directed < 2; directed++) {
            SaGraph *graph = weighted(src, dst, w, len, n, directed);
            uint64_t sources[] = {0, n / 2, n - 1};
            for (size_t s = 0; s < 3; s++) {
                dijkstra(src, dst, w, len, n, directed, sources[s], expected);
                char what[96];
                snprintf(what, sizeof what, "random %s graph of %zu vertices, weights to %" PRIu64,
                         directed ? "directed" : "undirected", n, limits[k]);
                check_distances(graph, sources[s], expected, n, what);
            }
            /* the array form agrees */
            SaArray *array = NULL;
            CHECK_OK(sa_graph_sssp_array(graph, 0, 7, &array, NULL, NULL, NULL));
            dijkstra(src, dst, w, len, n, directed, 0, expected);
            uint32_t bits = 0;
            CHECK_OK(sa_array_bits(array, &bits));
            uint64_t marker = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
            size_t wrong = 0;
            for (size_t v = 0; v < n; v++) {
                uint64_t value = 0;
                CHECK_OK(sa_array_get(array, v, &value));
                wrong += expected[v] < 0 ? value != marker : value != (uint64_t)expected[v];
            }
            CHECK(wrong == 0, "array distances: %zu wrong of %zu", wrong, n);
            sa_array_free(array);
            sa_graph_free(graph);
        }
        free(src), free(dst), free(w), free(expected);
    }
}

static int rounds = 0;
static void count_rounds(void *user_data, uint64_t done, uint64_t total) {
    (void)user_data;
    rounds++;
    CHECK(done == (uint64_t)rounds && total == 0, "round %" PRIu64 " of %" PRIu64 " after %d calls", done, total, rounds);
}

/* Reads the `u v w` lines of a .wel file written by sa_graph_save. */
static size_t read_wel(const char *path, uint64_t *src, uint64_t *dst, uint64_t *w, size_t capacity) {
    FILE *file = fopen(path, "r");
    CHECK(file != NULL, "cannot open %s", path);
    if (file == NULL) return 0;
    char line[256];
    size_t len = 0;
    while (fgets(line, sizeof line, file) != NULL) {
        if (line[0] == '#' || line[0] == '%' || line[0] == '\n') continue;
        if (len < capacity && sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64, &src[len], &dst[len], &w[len]) == 3) len++;
    }
    fclose(file);
    return len;
}

static void test_generated_weights_progress_and_files(void) {
    /* generated weights: in 1..255, deterministic per seed, checked through a .wel file */
    size_t n = 300, len = 1200;
    uint64_t *src = malloc(len * sizeof(uint64_t)), *dst = malloc(len * sizeof(uint64_t)), *w = malloc(len * sizeof(uint64_t));
    random_edges(n, len, 1, src, dst, w);
    SaGraph *graph = NULL;
    CHECK_OK(sa_graph_from_edges(src, dst, len, n, false, NULL, &graph));
    bool flag = true;
    CHECK_OK(sa_graph_is_weighted(graph, &flag));
    CHECK(!flag, "a graph from plain edges has no weights");
    int64_t *first = malloc(n * sizeof(int64_t)), *again = malloc(n * sizeof(int64_t)), *expected = malloc(n * sizeof(int64_t));
    CHECK_STATUS(sa_graph_sssp(graph, 0, 1, first, n, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("sa_graph_generate_weights");
    CHECK_STATUS(sa_graph_save(graph, "test_graph_sssp_unweighted.wel"), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("no edge weights");
    CHECK_OK(sa_graph_generate_weights(graph, 42));
    CHECK_OK(sa_graph_is_weighted(graph, &flag));
    CHECK(flag, "weighted after sa_graph_generate_weights");
    rounds = 0;
    CHECK_OK(sa_graph_sssp(graph, 0, 1, first, n, NULL, count_rounds, NULL));
    CHECK(rounds >= 1, "progress after every round: %d calls", rounds);
    CHECK_OK(sa_graph_generate_weights(graph, 43));
    CHECK_OK(sa_graph_sssp(graph, 0, 1, again, n, NULL, NULL, NULL));
    size_t differ = 0;
    for (size_t v = 0; v < n; v++) differ += first[v] != again[v];
    CHECK(differ > 0, "another seed gives other distances");
    CHECK_OK(sa_graph_generate_weights(graph, 42));
    CHECK_OK(sa_graph_sssp(graph, 0, 2, again, n, NULL, NULL, NULL));
    differ = 0;
    for (size_t v = 0; v < n; v++) differ += first[v] != again[v];
    CHECK(differ == 0, "the same seed gives the same distances (%zu differ)", differ);

    /* saved as .wel: weights in 1..255, Dijkstra over them agrees */
    CHECK_OK(sa_graph_save(graph, "test_graph_sssp.wel"));
    size_t read = read_wel("test_graph_sssp.wel", src, dst, w, len);
    CHECK(read == len, "the .wel file holds %zu of %zu edges", read, len);
    size_t outside = 0;
    for (size_t i = 0; i < read; i++) outside += w[i] < 1 || w[i] > 255;
    CHECK(outside == 0, "%zu generated weights outside 1..255", outside);
    dijkstra(src, dst, w, read, n, false, 0, expected);
    check_distances(graph, 0, expected, n, "generated weights");

    /* reloaded from .wel and .sag, converted between them: the weights travel along */
    const char *paths[] = {"test_graph_sssp.wel", "test_graph_sssp.sag", "test_graph_sssp_converted.sag"};
    CHECK_OK(sa_graph_save(graph, paths[1]));
    CHECK_OK(sa_graph_convert(paths[0], paths[2], true));
    for (size_t p = 0; p < 3; p++) {
        SaGraph *loaded = NULL;
        CHECK_OK(sa_graph_load(paths[p], true, NULL, &loaded));
        CHECK_OK(sa_graph_is_weighted(loaded, &flag));
        CHECK(flag, "%s keeps the weights", paths[p]);
        check_distances(loaded, 0, expected, n, paths[p]);
        sa_graph_free(loaded);
        remove(paths[p]);
    }
    /* a plain edge list and an unweighted .sag load without weights */
    CHECK_OK(sa_graph_save(graph, "test_graph_sssp.el"));
    SaGraph *plain = NULL;
    CHECK_OK(sa_graph_load("test_graph_sssp.el", true, NULL, &plain));
    CHECK_OK(sa_graph_is_weighted(plain, &flag));
    CHECK(!flag, "an edge list has no weights");
    CHECK_OK(sa_graph_save(plain, "test_graph_sssp_plain.sag"));
    sa_graph_free(plain);
    plain = NULL;
    CHECK_OK(sa_graph_load("test_graph_sssp_plain.sag", false, NULL, &plain));
    CHECK_OK(sa_graph_is_weighted(plain, &flag));
    CHECK(!flag, "an unweighted .sag has no weights");
    sa_graph_free(plain);
    remove("test_graph_sssp.el");
    remove("test_graph_sssp_plain.sag");

    /* a malformed .wel names its line */
    FILE *file = fopen("test_graph_sssp_bad.wel", "w");
    fputs("# a weighted list\n0 1 5\n1 2 -3\n", file);
    fclose(file);
    SaGraph *bad = NULL;
    CHECK_STATUS(sa_graph_load("test_graph_sssp_bad.wel", false, NULL, &bad), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("test_graph_sssp_bad.wel:3");
    CHECK_MESSAGE("negative");
    CHECK(bad == NULL, "no graph on failure");
    remove("test_graph_sssp_bad.wel");
    /* a directed .wel (undirected = false) */
    file = fopen("test_graph_sssp_directed.wel", "w");
    fputs("0 1 5\n1 2 7\n2 0 1\n", file);
    fclose(file);
    CHECK_OK(sa_graph_load("test_graph_sssp_directed.wel", false, NULL, &bad));
    int64_t cycle[] = {0, 5, 12};
    check_distances(bad, 0, cycle, 3, "directed .wel");
    sa_graph_free(bad);
    remove("test_graph_sssp_directed.wel");

    free(first), free(again), free(expected);
    free(src), free(dst), free(w);
    sa_graph_free(graph);
}

static void test_errors(void) {
    uint64_t src[] = {0, 1, 2}, dst[] = {1, 2, 0}, w[] = {1, 2, (uint64_t)UINT32_MAX + 1};
    SaGraph *graph = NULL;
    CHECK_STATUS(sa_graph_from_weighted_edges(src, dst, w, 3, 0, true, NULL, &graph), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("weights[2] = 4294967296");
    CHECK(graph == NULL, "no graph on failure");
    CHECK_STATUS(sa_graph_from_weighted_edges(src, dst, NULL, 3, 0, true, NULL, &graph), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("weights");
    CHECK_STATUS(sa_graph_from_weighted_edges(src, dst, w, 2, 2, true, NULL, &graph), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("vertex id 2");
    CHECK_STATUS(sa_graph_from_weighted_edges(src, dst, w, 2, 0, true, "nowhere", &graph), SA_STATUS_INVALID_PLACEMENT);
    CHECK_MESSAGE("nowhere");
    CHECK_STATUS(sa_graph_from_weighted_edges(src, dst, w, 2, 0, true, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("out");
    CHECK(graph == NULL, "no graph on failure");

    graph = weighted(src, dst, w, 2, 0, true); /* 0 -> 1 -> 2 */
    int64_t out[4] = {-7, -7, -7, -7};
    CHECK_STATUS(sa_graph_sssp(graph, 3, 1, out, 4, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("source vertex 3 does not exist (the graph has 3 vertices)");
    CHECK_STATUS(sa_graph_sssp(graph, 0, 0, out, 4, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("delta must be at least 1");
    CHECK_STATUS(sa_graph_sssp(graph, 0, 1, out, 2, NULL, NULL, NULL), SA_STATUS_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("`distances` holds 2 values; the graph has 3 vertices");
    CHECK(out[0] == -7 && out[1] == -7, "nothing written on failure");
    CHECK_STATUS(sa_graph_sssp(graph, 0, 1, NULL, 3, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("distances");
    CHECK_STATUS(sa_graph_sssp(NULL, 0, 1, out, 3, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("graph");
    CHECK_STATUS(sa_graph_sssp_array(graph, 0, 1, NULL, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("distances");
    SaArray *array = NULL;
    CHECK_STATUS(sa_graph_sssp_array(graph, 0, 0, &array, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("delta");
    CHECK_STATUS(sa_graph_sssp_array(graph, 9, 1, &array, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("source vertex 9");
    CHECK(array == NULL, "no array on failure");
    CHECK_STATUS(sa_graph_sssp_array(NULL, 0, 1, &array, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_is_weighted(graph, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_is_weighted(NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_graph_generate_weights(NULL, 1), SA_STATUS_NULL_POINTER);
    CHECK_OK(sa_graph_sssp(graph, 0, 1, out, 4, NULL, NULL, NULL));
    CHECK(out[0] == 0 && out[1] == 1 && out[2] == 3 && out[3] == -7, "a longer buffer: %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64,
          out[0], out[1], out[2], out[3]);
    sa_graph_free(graph);

    /* an unweighted graph says how to give weights */
    SaGraph *plain = NULL;
    CHECK_OK(sa_graph_from_edges(src, dst, 3, 0, true, NULL, &plain));
    CHECK_STATUS(sa_graph_sssp(plain, 0, 1, out, 3, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("sssp needs edge weights");
    CHECK_MESSAGE("sa_graph_from_weighted_edges");
    CHECK_STATUS(sa_graph_sssp_array(plain, 0, 1, &array, NULL, NULL, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("sa_graph_generate_weights");
    sa_graph_free(plain);
}

/* Runs SSSP from several threads while the main thread regenerates the weights: every result is
 * the distances of one of the two seeds (a run keeps the weights it started with). */
typedef struct {
    const SaGraph *graph;
    const int64_t *a, *b;
    size_t n;
    int mixed, failed;
} Racer;

static void *race(void *argument) {
    Racer *racer = argument;
    int64_t *got = malloc(racer->n * sizeof(int64_t));
    for (int round = 0; round < 20; round++) {
        if (sa_graph_sssp(racer->graph, 0, 3, got, racer->n, NULL, NULL, NULL) != SA_STATUS_OK) {
            racer->failed++;
            continue;
        }
        bool is_a = memcmp(got, racer->a, racer->n * sizeof(int64_t)) == 0;
        bool is_b = memcmp(got, racer->b, racer->n * sizeof(int64_t)) == 0;
        racer->mixed += !is_a && !is_b;
    }
    free(got);
    return NULL;
}

static void test_concurrent_generation(void) {
    size_t n = 200, len = 600;
    uint64_t *src = malloc(len * sizeof(uint64_t)), *dst = malloc(len * sizeof(uint64_t)), *w = malloc(len * sizeof(uint64_t));
    random_edges(n, len, 1, src, dst, w);
    SaGraph *graph = NULL;
    CHECK_OK(sa_graph_from_edges(src, dst, len, n, true, NULL, &graph));
    int64_t *a = malloc(n * sizeof(int64_t)), *b = malloc(n * sizeof(int64_t));
    CHECK_OK(sa_graph_generate_weights(graph, 2));
    CHECK_OK(sa_graph_sssp(graph, 0, 1, b, n, NULL, NULL, NULL));
    CHECK_OK(sa_graph_generate_weights(graph, 1));
    CHECK_OK(sa_graph_sssp(graph, 0, 1, a, n, NULL, NULL, NULL));
    enum { THREADS = 3 };
    pthread_t threads[THREADS];
    Racer racers[THREADS];
    for (int t = 0; t < THREADS; t++) {
        racers[t] = (Racer){graph, a, b, n, 0, 0};
        CHECK(pthread_create(&threads[t], NULL, race, &racers[t]) == 0, "thread %d", t);
    }
    for (int k = 0; k < 40; k++) CHECK_OK(sa_graph_generate_weights(graph, 1 + (uint64_t)(k % 2)));
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        CHECK(racers[t].failed == 0 && racers[t].mixed == 0, "thread %d: %d failed, %d mixed results", t, racers[t].failed,
              racers[t].mixed);
    }
    free(a), free(b), free(src), free(dst), free(w);
    sa_graph_free(graph);
}

int main(void) {
    test_hand_checked();
    test_wide_weights();
    test_tiny_graphs();
    test_random_graphs();
    test_generated_weights_progress_and_files();
    test_errors();
    test_concurrent_generation();
    return finish("C ABI SSSP tests");
}
