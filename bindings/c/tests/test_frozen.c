/* test_frozen.c - tests of the read-only frozen collections of the C ABI (sa_frozen_map_*,
 * sa_frozen_set_*, sa_map_freeze, sa_set_freeze) from plain C: every single and batched lookup,
 * hit and miss, and every export is compared with a plain C reference (a sorted array searched
 * with bsearch), at edge lengths with extreme keys and negative values, for every placement;
 * frozen copies of a map and a set equal their source; duplicate keys, NULLs, bad placements
 * and short buffers check their status and message; four threads read one frozen map at once.
 * Exits 0 when all checks pass. */
#include "check.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static const char *PLACEMENTS[] = {NULL, "os", "node:0", "interleaved", "replicated"};
#define N_PLACEMENTS (sizeof PLACEMENTS / sizeof PLACEMENTS[0])

/* Distinct keys: the extremes first, then an odd multiplier's images (a bijection of uint64_t). */
static int64_t key_of(size_t i) {
    switch (i) {
    case 0: return INT64_MIN;
    case 1: return INT64_MAX;
    case 2: return 0;
    case 3: return -1;
    default: return (int64_t)(i * 0x9E3779B97F4A7C15ull);
    }
}

/* A value for key number i: negative and extreme ones included. */
static int64_t value_of(size_t i) {
    if (i % 5 == 0) return INT64_MIN + (int64_t)i;
    if (i % 5 == 1) return INT64_MAX - (int64_t)i;
    return (int64_t)(i * 1000) * (i % 2 ? -1 : 1) - 7;
}

typedef struct {
    int64_t key;
    int64_t value;
} Entry;

static int cmp_entry(const void *a, const void *b) {
    int64_t x = ((const Entry *)a)->key, y = ((const Entry *)b)->key;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The reference: `len` entries sorted by key. */
static const Entry *lookup(const Entry *sorted, size_t len, int64_t key) {
    Entry probe = {key, 0};
    return len == 0 ? NULL : bsearch(&probe, sorted, len, sizeof *sorted, cmp_entry);
}

/* Hits (every key) and mostly misses (each key plus one, wrapping: -1 + 1 and INT64_MAX + 1 are
 * keys again). */
static int64_t *probes_of(const int64_t *keys, size_t len, size_t *count) {
    int64_t *probes = malloc((2 * len + 1) * sizeof *probes);
    for (size_t i = 0; i < len; i++) {
        probes[2 * i] = keys[i];
        probes[2 * i + 1] = (int64_t)((uint64_t)keys[i] + 1);
    }
    *count = 2 * len;
    return probes;
}

static void test_frozen_map(void) {
    for (size_t p = 0; p < N_PLACEMENTS; p++) {
        for (size_t l = 0; l < N_LENGTHS; l++) {
            size_t len = LENGTHS[l];
            char where[80];
            snprintf(where, sizeof where, "frozen map %s len %zu", PLACEMENTS[p] ? PLACEMENTS[p] : "NULL", len);
            int64_t *keys = malloc((len + 1) * sizeof *keys);
            int64_t *values = malloc((len + 1) * sizeof *values);
            Entry *sorted = malloc((len + 1) * sizeof *sorted);
            for (size_t i = 0; i < len; i++) {
                keys[i] = key_of(i);
                values[i] = value_of(i);
                sorted[i] = (Entry){keys[i], values[i]};
            }
            qsort(sorted, len, sizeof *sorted, cmp_entry);
            SaFrozenMap *map = NULL;
            CHECK_OK(sa_frozen_map_new(keys, values, len, PLACEMENTS[p], &map));
            if (map == NULL) {
                free(keys), free(values), free(sorted);
                continue;
            }
            size_t n = 99;
            CHECK_OK(sa_frozen_map_len(map, &n));
            CHECK(n == len, "%s: len %zu", where, n);

            size_t count = 0;
            int64_t *probes = probes_of(keys, len, &count);
            int64_t *got = malloc((count + 1) * sizeof *got);
            uint8_t *found = malloc(count + 1), *contained = malloc(count + 1);
            size_t hits = 0, contained_hits = 0, expected_hits = 0, wrong = 0;
            CHECK_OK(sa_frozen_map_get_many(map, probes, count, got, found, 42, &hits));
            CHECK_OK(sa_frozen_map_contains_many(map, probes, count, contained, &contained_hits));
            for (size_t i = 0; i < count; i++) {
                const Entry *e = lookup(sorted, len, probes[i]);
                int64_t v = 1;
                bool f = false, c = false;
                CHECK_OK(sa_frozen_map_get(map, probes[i], &v, &f));
                CHECK_OK(sa_frozen_map_contains(map, probes[i], &c));
                expected_hits += e != NULL;
                wrong += f != (e != NULL) || c != (e != NULL) || v != (e ? e->value : 0);
                wrong += found[i] != (e != NULL) || contained[i] != (e != NULL) || got[i] != (e ? e->value : 42);
            }
            CHECK(wrong == 0, "%s: %zu lookups differ", where, wrong);
            CHECK(hits == expected_hits && contained_hits == expected_hits && expected_hits >= len, "%s: hits %zu %zu of %zu", where,
                  hits, contained_hits, expected_hits);
            CHECK_OK(sa_frozen_map_get_many(map, probes, count, got, NULL, -1, NULL)); /* mask and hits are optional */

            int64_t *out_keys = malloc((len + 1) * sizeof *out_keys);
            int64_t *out_values = malloc((len + 1) * sizeof *out_values);
            size_t written = 0;
            if (len > 0) {
                CHECK_STATUS(sa_frozen_map_export(map, out_keys, out_values, len - 1, &written), SA_STATUS_BUFFER_TOO_SMALL);
            }
            CHECK_OK(sa_frozen_map_export(map, out_keys, out_values, len, &written));
            CHECK(written == len, "%s: exported %zu", where, written);
            wrong = 0;
            for (size_t i = 0; i < written; i++) {
                const Entry *e = lookup(sorted, len, out_keys[i]);
                wrong += e == NULL || e->value != out_values[i];
            }
            CHECK(wrong == 0, "%s: %zu exported entries differ", where, wrong);

            size_t bytes = 0;
            CHECK_OK(sa_frozen_map_memory_bytes(map, &bytes));
            CHECK(len == 0 || bytes > 0, "%s: %zu bytes", where, bytes);
            char *text = NULL;
            CHECK_OK(sa_frozen_map_placement(map, &text));
            CHECK(text && strcmp(text, PLACEMENTS[p] ? PLACEMENTS[p] : "os") == 0, "%s: placement %s", where, text);
            sa_string_free(text);
            text = NULL;
            CHECK_OK(sa_frozen_map_memory_report_text(map, &text));
            CHECK(text && strlen(text) > 0, "%s: empty memory report", where);
            sa_string_free(text);

            sa_frozen_map_free(map);
            free(keys), free(values), free(sorted), free(probes), free(got), free(found), free(contained);
            free(out_keys), free(out_values);
        }
    }
}

static void test_frozen_set(void) {
    for (size_t p = 0; p < N_PLACEMENTS; p++) {
        for (size_t l = 0; l < N_LENGTHS; l++) {
            size_t len = LENGTHS[l];
            char where[80];
            snprintf(where, sizeof where, "frozen set %s len %zu", PLACEMENTS[p] ? PLACEMENTS[p] : "NULL", len);
            int64_t *keys = malloc((len + 1) * sizeof *keys);
            Entry *sorted = malloc((len + 1) * sizeof *sorted);
            for (size_t i = 0; i < len; i++) {
                keys[i] = key_of(len - 1 - i); /* reversed order in */
                sorted[i] = (Entry){keys[i], 0};
            }
            qsort(sorted, len, sizeof *sorted, cmp_entry);
            SaFrozenSet *set = NULL;
            CHECK_OK(sa_frozen_set_new(keys, len, PLACEMENTS[p], &set));
            if (set == NULL) {
                free(keys), free(sorted);
                continue;
            }
            size_t n = 99;
            CHECK_OK(sa_frozen_set_len(set, &n));
            CHECK(n == len, "%s: len %zu", where, n);
            size_t count = 0, hits = 0, wrong = 0, expected_hits = 0;
            int64_t *probes = probes_of(keys, len, &count);
            uint8_t *mask = malloc(count + 1);
            CHECK_OK(sa_frozen_set_contains_many(set, probes, count, mask, &hits));
            for (size_t i = 0; i < count; i++) {
                bool present = lookup(sorted, len, probes[i]) != NULL, c = !present;
                CHECK_OK(sa_frozen_set_contains(set, probes[i], &c));
                wrong += c != present || mask[i] != present;
                expected_hits += present;
            }
            CHECK(wrong == 0 && hits == expected_hits, "%s: %zu lookups differ, %zu hits", where, wrong, hits);
            int64_t *out = malloc((len + 1) * sizeof *out);
            size_t written = 0;
            if (len > 0) {
                CHECK_STATUS(sa_frozen_set_export(set, out, len - 1, &written), SA_STATUS_BUFFER_TOO_SMALL);
            }
            CHECK_OK(sa_frozen_set_export(set, out, len, &written));
            CHECK(written == len, "%s: exported %zu", where, written);
            qsort(out, written, sizeof *out, cmp_i64);
            wrong = 0;
            for (size_t i = 0; i < written; i++) wrong += out[i] != sorted[i].key;
            CHECK(wrong == 0, "%s: %zu exported keys differ", where, wrong);
            char *text = NULL;
            CHECK_OK(sa_frozen_set_placement(set, &text));
            CHECK(text && strcmp(text, PLACEMENTS[p] ? PLACEMENTS[p] : "os") == 0, "%s: placement %s", where, text);
            sa_string_free(text);
            text = NULL;
            CHECK_OK(sa_frozen_set_memory_report_text(set, &text));
            CHECK(text && strlen(text) > 0, "%s: empty memory report", where);
            sa_string_free(text);
            size_t bytes = 0;
            CHECK_OK(sa_frozen_set_memory_bytes(set, &bytes));
            CHECK(len == 0 || bytes > 0, "%s: %zu bytes", where, bytes);
            sa_frozen_set_free(set);
            free(keys), free(sorted), free(probes), free(mask), free(out);
        }
    }
}

/* A frozen copy of a map (and of a set) holds exactly the source's entries, placed like it. */
static void test_freeze(void) {
    for (size_t p = 0; p < N_PLACEMENTS; p++) {
        for (size_t l = 0; l < N_LENGTHS; l++) {
            size_t len = LENGTHS[l];
            SaMap *map = NULL;
            SaSet *set = NULL;
            CHECK_OK(sa_map_new(PLACEMENTS[p], &map));
            CHECK_OK(sa_set_new(PLACEMENTS[p], &set));
            if (map == NULL || set == NULL) {
                sa_map_free(map), sa_set_free(set);
                continue;
            }
            int64_t *keys = malloc((len + 1) * sizeof *keys);
            int64_t *values = malloc((len + 1) * sizeof *values);
            for (size_t i = 0; i < len; i++) keys[i] = key_of(i), values[i] = value_of(i);
            CHECK_OK(sa_map_insert_many(map, keys, values, len));
            CHECK_OK(sa_set_insert_many(set, keys, len));
            SaFrozenMap *frozen = NULL;
            SaFrozenSet *frozen_set = NULL;
            CHECK_OK(sa_map_freeze(map, &frozen));
            CHECK_OK(sa_set_freeze(set, &frozen_set));
            size_t n = 99, m = 99, hits = 0, set_hits = 0, wrong = 0;
            CHECK_OK(sa_frozen_map_len(frozen, &n));
            CHECK_OK(sa_frozen_set_len(frozen_set, &m));
            CHECK(n == len && m == len, "freeze len %zu: %zu %zu", len, n, m);
            size_t count = 0;
            int64_t *probes = probes_of(keys, len, &count);
            int64_t *want = malloc((count + 1) * sizeof *want), *got = malloc((count + 1) * sizeof *got);
            uint8_t *want_found = malloc(count + 1), *found = malloc(count + 1), *mask = malloc(count + 1);
            CHECK_OK(sa_map_get_many(map, probes, count, want, want_found, -5, NULL));
            CHECK_OK(sa_frozen_map_get_many(frozen, probes, count, got, found, -5, &hits));
            CHECK_OK(sa_frozen_set_contains_many(frozen_set, probes, count, mask, &set_hits));
            size_t want_hits = 0;
            for (size_t i = 0; i < count; i++) {
                wrong += got[i] != want[i] || found[i] != want_found[i] || mask[i] != want_found[i];
                want_hits += want_found[i];
            }
            CHECK(wrong == 0 && hits == want_hits && set_hits == want_hits, "freeze len %zu: %zu differ", len, wrong);
            char *text = NULL;
            CHECK_OK(sa_frozen_map_placement(frozen, &text));
            CHECK(text && strcmp(text, PLACEMENTS[p] ? PLACEMENTS[p] : "os") == 0, "frozen copy placement %s", text);
            sa_string_free(text);
            sa_frozen_map_free(frozen);
            sa_frozen_set_free(frozen_set);
            sa_map_free(map);
            sa_set_free(set);
            free(keys), free(values), free(probes), free(want), free(got), free(want_found), free(found), free(mask);
        }
    }
}

static void test_errors(void) {
    int64_t keys[] = {3, -7, 11, -7};
    int64_t values[] = {1, 2, 3, 4};
    SaFrozenMap *map = NULL;
    SaFrozenSet *set = NULL;
    CHECK_STATUS(sa_frozen_map_new(keys, values, 4, NULL, &map), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("key -7 ");
    CHECK(map == NULL, "a failed build wrote its handle");
    int64_t extremes[] = {INT64_MIN, 0, INT64_MIN};
    CHECK_STATUS(sa_frozen_set_new(extremes, 3, NULL, &set), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("key -9223372036854775808 ");
    CHECK(set == NULL, "a failed build wrote its handle");

    CHECK_STATUS(sa_frozen_map_new(NULL, values, 4, NULL, &map), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("keys");
    CHECK_STATUS(sa_frozen_map_new(keys, NULL, 4, NULL, &map), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("values");
    CHECK_STATUS(sa_frozen_map_new(keys, values, 2, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_frozen_set_new(NULL, 1, NULL, &set), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_frozen_map_new(keys, values, 2, "node:4096", &map), SA_STATUS_UNKNOWN_NODE);
    CHECK_STATUS(sa_frozen_set_new(keys, 2, "nowhere", &set), SA_STATUS_INVALID_PLACEMENT);
    CHECK_STATUS(sa_map_freeze(NULL, &map), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_set_freeze(NULL, &set), SA_STATUS_NULL_POINTER);
    CHECK_OK(sa_frozen_map_new(NULL, NULL, 0, NULL, &map)); /* NULL arrays are fine when empty */
    CHECK_OK(sa_frozen_set_new(NULL, 0, NULL, &set));

    size_t n = 0;
    int64_t v = 0;
    bool f = true;
    uint8_t mask[2];
    CHECK_STATUS(sa_frozen_map_len(NULL, &n), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("frozen map");
    CHECK_STATUS(sa_frozen_set_len(NULL, &n), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_frozen_map_len(map, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_frozen_map_get(map, 1, NULL, &f), SA_STATUS_NULL_POINTER);
    CHECK_OK(sa_frozen_map_get(map, 1, &v, &f));
    CHECK(!f && v == 0, "empty map found %" PRId64, v);
    CHECK_STATUS(sa_frozen_map_get_many(map, keys, 2, NULL, NULL, 0, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_frozen_map_contains_many(map, NULL, 2, mask, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_frozen_set_contains_many(set, keys, 2, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_frozen_map_export(map, NULL, NULL, 0, NULL), SA_STATUS_NULL_POINTER);
    CHECK_OK(sa_frozen_map_export(map, NULL, NULL, 0, &n));
    CHECK(n == 0, "empty export wrote %zu", n);
    sa_frozen_map_free(map);
    sa_frozen_set_free(set);
    sa_frozen_map_free(NULL);
    sa_frozen_set_free(NULL);
}

#define SHARED_KEYS 4096
struct Shared {
    SaFrozenMap *map;
    int64_t keys[SHARED_KEYS];
    int wrong;
};

static void *read_shared(void *arg) {
    struct Shared *shared = arg;
    int64_t values[SHARED_KEYS];
    for (int round = 0; round < 20; round++) {
        size_t hits = 0;
        if (sa_frozen_map_get_many(shared->map, shared->keys, SHARED_KEYS, values, NULL, 0, &hits) != SA_STATUS_OK ||
            hits != SHARED_KEYS) {
            shared->wrong = 1;
        }
        for (size_t i = 0; i < SHARED_KEYS; i++) {
            if (values[i] != -shared->keys[i]) shared->wrong = 1;
        }
    }
    return NULL;
}

/* Lookups take a const handle: four threads read one (replicated) frozen map at once. */
static void test_concurrent_readers(void) {
    static struct Shared shared;
    int64_t values[SHARED_KEYS];
    for (size_t i = 0; i < SHARED_KEYS; i++) {
        shared.keys[i] = (int64_t)(i * 7919) - 1000000;
        values[i] = -shared.keys[i];
    }
    CHECK_OK(sa_frozen_map_new(shared.keys, values, SHARED_KEYS, "replicated", &shared.map));
    shared.wrong = 0;
    pthread_t threads[4];
    for (int t = 0; t < 4; t++) pthread_create(&threads[t], NULL, read_shared, &shared);
    for (int t = 0; t < 4; t++) pthread_join(threads[t], NULL);
    CHECK(shared.wrong == 0, "a concurrent reader saw a wrong answer");
    sa_frozen_map_free(shared.map);
}

int main(void) {
    test_frozen_map();
    test_frozen_set();
    test_freeze();
    test_errors();
    test_concurrent_readers();
    return finish("C ABI frozen collection tests");
}
