/* test_collections.c - tests of the smart collections of the C ABI (sa_map_*, sa_set_*, sa_bag_*)
 * from plain C: every lookup, batch, upsert and export is compared with a plain C reference (a
 * direct-indexed table over a small key domain mapped onto extreme int64 keys), at edge lengths,
 * for every placement; overflows, bad operations, NULLs and short buffers check their status and
 * message. Exits 0 when all checks pass. */
#include "check.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static const char *PLACEMENTS[] = {NULL, "os", "node:0", "interleaved", "replicated"};
#define N_PLACEMENTS (sizeof PLACEMENTS / sizeof PLACEMENTS[0])

/* The key domain: DOMAIN slots, slot s is key_of(s) (extremes, negatives, zero, large strides). */
#define DOMAIN 97
static int64_t key_of(size_t slot) {
    switch (slot) {
    case 0: return INT64_MIN;
    case 1: return INT64_MAX;
    case 2: return 0;
    case 3: return -1;
    default: return (int64_t)(slot * 0x9E3779B97F4A7C15ull >> 1) * (slot % 2 ? -1 : 1);
    }
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_map(void) {
    for (size_t p = 0; p < N_PLACEMENTS; p++) {
        for (size_t l = 0; l < N_LENGTHS; l++) {
            size_t len = LENGTHS[l];
            char where[64];
            snprintf(where, sizeof where, "map %s len %zu", PLACEMENTS[p] ? PLACEMENTS[p] : "NULL", len);
            SaMap *map = NULL;
            CHECK_OK(sa_map_new(PLACEMENTS[p], &map));
            if (map == NULL) continue;
            /* reference: present[s], value[s] */
            bool present[DOMAIN] = {false};
            int64_t value[DOMAIN] = {0};
            int64_t *keys = malloc((len + 1) * sizeof *keys);
            int64_t *values = malloc((len + 1) * sizeof *values);
            for (size_t i = 0; i < len; i++) {
                size_t slot = (i * 31) % DOMAIN;
                keys[i] = key_of(slot);
                values[i] = i % 3 == 0 ? INT64_MIN + (int64_t)i : (int64_t)(i * 1000) - 7;
                present[slot] = true;
                value[slot] = values[i]; /* later duplicates win */
            }
            CHECK_OK(sa_map_insert_many(map, keys, values, len));
            size_t n = 0, expected_len = 0;
            for (size_t s = 0; s < DOMAIN; s++) expected_len += present[s];
            CHECK_OK(sa_map_len(map, &n));
            CHECK(n == expected_len, "%s: len %zu expected %zu", where, n, expected_len);

            /* single and batched lookups over the whole domain */
            int64_t probe[DOMAIN], got[DOMAIN];
            uint8_t found[DOMAIN], contained[DOMAIN];
            size_t hits = 0, contained_hits = 0, wrong = 0, expected_hits = 0;
            for (size_t s = 0; s < DOMAIN; s++) probe[s] = key_of(s);
            CHECK_OK(sa_map_get_many(map, probe, DOMAIN, got, found, 42, &hits));
            CHECK_OK(sa_map_contains_many(map, probe, DOMAIN, contained, &contained_hits));
            for (size_t s = 0; s < DOMAIN; s++) {
                int64_t v = 0;
                bool f = false, c = false;
                CHECK_OK(sa_map_get(map, probe[s], &v, &f));
                CHECK_OK(sa_map_contains(map, probe[s], &c));
                expected_hits += present[s];
                wrong += f != present[s] || c != present[s] || (f && v != value[s]) || (!f && v != 0);
                wrong += found[s] != present[s] || contained[s] != present[s];
                wrong += got[s] != (present[s] ? value[s] : 42);
            }
            CHECK(wrong == 0, "%s: %zu lookups differ", where, wrong);
            CHECK(hits == expected_hits && contained_hits == expected_hits, "%s: hits %zu %zu of %zu", where, hits, contained_hits,
                  expected_hits);
            CHECK_OK(sa_map_get_many(map, probe, DOMAIN, got, NULL, -1, NULL)); /* mask and hits are optional */

            /* upsert_many with every operation, against the reference */
            static const SaCombine ops[] = {SA_COMBINE_MIN, SA_COMBINE_MAX, SA_COMBINE_REPLACE, SA_COMBINE_SUM};
            for (size_t o = 0; o < 4; o++) {
                int64_t *add = malloc((len + 1) * sizeof *add);
                for (size_t i = 0; i < len; i++) {
                    size_t slot = (i * 7 + 3) % DOMAIN;
                    keys[i] = key_of(slot);
                    add[i] = (int64_t)(i % 11) - 5;
                    if (!present[slot]) {
                        value[slot] = add[i];
                        present[slot] = true;
                    } else if (ops[o] == SA_COMBINE_MIN) {
                        value[slot] = add[i] < value[slot] ? add[i] : value[slot];
                    } else if (ops[o] == SA_COMBINE_MAX) {
                        value[slot] = add[i] > value[slot] ? add[i] : value[slot];
                    } else if (ops[o] == SA_COMBINE_REPLACE) {
                        value[slot] = add[i];
                    } else {
                        value[slot] += add[i]; /* values are small after replace: no overflow */
                    }
                }
                CHECK_OK(sa_map_upsert_many(map, keys, add, len, ops[o]));
                wrong = 0;
                for (size_t s = 0; s < DOMAIN; s++) {
                    int64_t v = 0;
                    bool f = false;
                    CHECK_OK(sa_map_get(map, key_of(s), &v, &f));
                    wrong += f != present[s] || (f && v != value[s]);
                }
                CHECK(wrong == 0, "%s: op %d: %zu values differ", where, (int)ops[o], wrong);
                free(add);
            }

            /* export, sorted, against the reference */
            CHECK_OK(sa_map_len(map, &n));
            int64_t *out_keys = malloc((n + 1) * sizeof *out_keys);
            int64_t *out_values = malloc((n + 1) * sizeof *out_values);
            size_t written = 0;
            if (n > 0) {
                CHECK_STATUS(sa_map_export(map, out_keys, out_values, n - 1, &written), SA_STATUS_BUFFER_TOO_SMALL);
            }
            CHECK_OK(sa_map_export(map, out_keys, out_values, n, &written));
            CHECK(written == n, "%s: exported %zu of %zu", where, written, n);
            wrong = 0;
            for (size_t i = 0; i < written; i++) {
                size_t s = 0;
                while (s < DOMAIN && key_of(s) != out_keys[i]) s++;
                wrong += s == DOMAIN || !present[s] || value[s] != out_values[i];
            }
            CHECK(wrong == 0, "%s: %zu exported entries differ", where, wrong);
            qsort(out_keys, written, sizeof *out_keys, cmp_i64);
            for (size_t i = 1; i < written; i++) wrong += out_keys[i] == out_keys[i - 1];
            CHECK(wrong == 0, "%s: exported keys repeat", where);

            /* single insert, upsert, remove */
            bool replaced = true, removed = false;
            int64_t old = 1, result = 0;
            CHECK_OK(sa_map_remove(map, INT64_MAX, NULL, NULL));
            CHECK_OK(sa_map_insert(map, INT64_MAX, INT64_MAX, &replaced, &old));
            CHECK(!replaced && old == 0, "%s: fresh insert", where);
            CHECK_OK(sa_map_insert(map, INT64_MAX, 5, &replaced, &old));
            CHECK(replaced && old == INT64_MAX, "%s: replacing insert", where);
            CHECK_STATUS(sa_map_upsert(map, INT64_MAX, INT64_MAX, SA_COMBINE_SUM, &result), SA_STATUS_OVERFLOW);
            CHECK_OK(sa_map_upsert(map, INT64_MAX, -6, SA_COMBINE_SUM, &result));
            CHECK(result == -1, "%s: upsert result %" PRId64, where, result);
            CHECK_OK(sa_map_remove(map, INT64_MAX, &removed, &old));
            CHECK(removed, "%s: remove", where);
            CHECK_OK(sa_map_remove(map, INT64_MAX, &removed, &old));
            CHECK(!removed && old == 0, "%s: remove absent", where);
            /* remove a batch: present keys and absent ones, with a repeat */
            int64_t gone_keys[] = {key_of(0), key_of(5), 424242, key_of(0)};
            size_t expected_gone = present[0] + present[5], gone = 99;
            CHECK_OK(sa_map_remove_many(map, gone_keys, 4, &gone));
            CHECK(gone == expected_gone, "%s: removed %zu of %zu", where, gone, expected_gone);
            present[0] = present[5] = false;
            CHECK_OK(sa_map_contains(map, key_of(5), &removed));
            CHECK(!removed, "%s: removed key is gone", where);
            CHECK_OK(sa_map_remove_many(map, NULL, 0, NULL));

            char *text = NULL;
            CHECK_OK(sa_map_placement(map, &text));
            CHECK(text && strcmp(text, PLACEMENTS[p] ? PLACEMENTS[p] : "os") == 0, "%s: placement %s", where, text);
            sa_string_free(text);
            CHECK_OK(sa_map_memory_report_text(map, &text));
            CHECK(text && strstr(text, "entries") != NULL, "%s: report %s", where, text);
            sa_string_free(text);
            CHECK_OK(sa_map_placement_report_text(map, &text));
            CHECK(text && strstr(text, "partition 0") != NULL, "%s: placement report %s", where, text);
            sa_string_free(text);
            CHECK_OK(sa_map_placement_report_json(map, &text));
            CHECK(text && text[0] == '[' && strstr(text, "\"replicas\"") != NULL, "%s: placement json %s", where, text);
            sa_string_free(text);
            size_t bytes = 0;
            CHECK_OK(sa_map_memory_bytes(map, &bytes));
            free(out_values);
            free(out_keys);
            free(values);
            free(keys);
            sa_map_free(map);
        }
    }
}

static void test_map_errors(void) {
    SaMap *map = NULL;
    CHECK_STATUS(sa_map_new("mirrored", &map), SA_STATUS_INVALID_PLACEMENT);
    CHECK_MESSAGE("mirrored");
    CHECK_STATUS(sa_map_new("node:4096", &map), SA_STATUS_UNKNOWN_NODE);
    CHECK_STATUS(sa_map_new(NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK(map == NULL, "no map on failure");
    CHECK_OK(sa_map_new(NULL, &map));
    int64_t result = 0, v = 0;
    bool found = true;
    /* sums never wrap: the key keeps its value */
    CHECK_OK(sa_map_upsert(map, 7, INT64_MAX, SA_COMBINE_SUM, &result));
    CHECK(result == INT64_MAX, "first upsert inserts");
    CHECK_STATUS(sa_map_upsert(map, 7, 1, SA_COMBINE_SUM, &result), SA_STATUS_OVERFLOW);
    CHECK_MESSAGE("does not fit in int64_t");
    CHECK_OK(sa_map_get(map, 7, &v, &found));
    CHECK(found && v == INT64_MAX, "value kept after overflow: %" PRId64, v);
    CHECK_OK(sa_map_upsert(map, 8, INT64_MIN, SA_COMBINE_SUM, NULL));
    CHECK_STATUS(sa_map_upsert(map, 8, -1, SA_COMBINE_SUM, NULL), SA_STATUS_OVERFLOW);
    int64_t keys[] = {1, 7, 2};
    int64_t values[] = {10, 1, 20};
    CHECK_STATUS(sa_map_upsert_many(map, keys, values, 3, SA_COMBINE_SUM), SA_STATUS_OVERFLOW);
    CHECK_MESSAGE("entry 1 of the batch");
    CHECK_OK(sa_map_get(map, 1, &v, &found));
    CHECK(found && v == 10, "entries before the overflow are applied");
    CHECK_OK(sa_map_get(map, 2, &v, &found));
    CHECK(!found, "entries after the overflow are not");
    CHECK_STATUS(sa_map_upsert(map, 1, 1, 9, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("unknown combine operation 9");
    CHECK_STATUS(sa_map_upsert_many(map, keys, values, 3, -1), SA_STATUS_INVALID_ARGUMENT);
    /* NULLs */
    size_t n = 0;
    CHECK_STATUS(sa_map_len(NULL, &n), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `map` is NULL") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_map_get(map, 1, NULL, &found), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_map_get(map, 1, &v, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_map_insert(NULL, 1, 1, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_map_insert_many(map, NULL, values, 3), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `keys` is NULL") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_map_insert_many(map, keys, NULL, 3), SA_STATUS_NULL_POINTER);
    CHECK_OK(sa_map_insert_many(map, NULL, NULL, 0));
    CHECK_STATUS(sa_map_get_many(map, keys, 3, NULL, NULL, 0, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_map_contains_many(map, keys, 3, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_map_export(map, NULL, NULL, 100, &n), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_map_export(map, keys, values, 3, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_map_remove_many(map, NULL, 2, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_map_remove_many(NULL, keys, 2, NULL), SA_STATUS_NULL_POINTER);
    sa_map_free(map);
    sa_map_free(NULL);
}

static void test_set(void) {
    for (size_t p = 0; p < N_PLACEMENTS; p++) {
        for (size_t l = 0; l < N_LENGTHS; l++) {
            size_t len = LENGTHS[l];
            SaSet *set = NULL;
            CHECK_OK(sa_set_new(PLACEMENTS[p], &set));
            if (set == NULL) continue;
            bool present[DOMAIN] = {false};
            int64_t *keys = malloc((len + 1) * sizeof *keys);
            for (size_t i = 0; i < len; i++) {
                keys[i] = key_of((i * 13) % DOMAIN);
                present[(i * 13) % DOMAIN] = true;
            }
            CHECK_OK(sa_set_insert_many(set, keys, len));
            size_t n = 0, expected = 0, hits = 0, wrong = 0;
            for (size_t s = 0; s < DOMAIN; s++) expected += present[s];
            CHECK_OK(sa_set_len(set, &n));
            CHECK(n == expected, "set len %zu: %zu expected %zu", len, n, expected);
            int64_t probe[DOMAIN];
            uint8_t mask[DOMAIN];
            for (size_t s = 0; s < DOMAIN; s++) probe[s] = key_of(s);
            CHECK_OK(sa_set_contains_many(set, probe, DOMAIN, mask, &hits));
            for (size_t s = 0; s < DOMAIN; s++) {
                bool c = false;
                CHECK_OK(sa_set_contains(set, probe[s], &c));
                wrong += c != present[s] || mask[s] != present[s];
            }
            CHECK(wrong == 0 && hits == expected, "set len %zu: %zu lookups differ", len, wrong);
            bool inserted = false, removed = false;
            CHECK_OK(sa_set_insert(set, key_of(0), &inserted));
            CHECK(inserted == !present[0], "set insert says whether new");
            CHECK_OK(sa_set_remove(set, key_of(0), &removed));
            CHECK(removed, "set remove");
            CHECK_OK(sa_set_remove(set, key_of(0), &removed));
            CHECK(!removed, "set remove absent");
            present[0] = false;
            int64_t gone_keys[] = {key_of(13), key_of(13), 777};
            size_t gone = 0;
            CHECK_OK(sa_set_remove_many(set, gone_keys, 3, &gone));
            CHECK(gone == (size_t)present[13], "set remove_many: %zu", gone);
            present[13] = false;
            CHECK_OK(sa_set_len(set, &n));
            int64_t *out = malloc((n + 1) * sizeof *out);
            size_t written = 0;
            CHECK_OK(sa_set_export(set, out, n, &written));
            wrong = written != n;
            for (size_t i = 0; i < written; i++) {
                size_t s = 0;
                while (s < DOMAIN && key_of(s) != out[i]) s++;
                wrong += s == DOMAIN || !present[s];
            }
            CHECK(wrong == 0, "set len %zu: export differs", len);
            if (n > 0) {
                CHECK_STATUS(sa_set_export(set, out, n - 1, &written), SA_STATUS_BUFFER_TOO_SMALL);
            }
            char *text = NULL;
            CHECK_OK(sa_set_placement(set, &text));
            CHECK(text && strcmp(text, PLACEMENTS[p] ? PLACEMENTS[p] : "os") == 0, "set placement %s", text);
            sa_string_free(text);
            CHECK_OK(sa_set_memory_report_text(set, &text));
            sa_string_free(text);
            CHECK_OK(sa_set_placement_report_text(set, &text));
            sa_string_free(text);
            size_t bytes = 0;
            CHECK_OK(sa_set_memory_bytes(set, &bytes));
            free(out);
            free(keys);
            sa_set_free(set);
        }
    }
    size_t n = 0;
    CHECK_STATUS(sa_set_len(NULL, &n), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `set` is NULL") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_set_new("bogus", NULL), SA_STATUS_NULL_POINTER);
    SaSet *set = NULL;
    CHECK_STATUS(sa_set_new("bogus", &set), SA_STATUS_INVALID_PLACEMENT);
    sa_set_free(NULL);
}

static void test_bag(void) {
    for (size_t p = 0; p < N_PLACEMENTS; p++) {
        for (size_t l = 0; l < N_LENGTHS; l++) {
            size_t len = LENGTHS[l];
            SaBag *bag = NULL;
            CHECK_OK(sa_bag_new(PLACEMENTS[p], &bag));
            if (bag == NULL) continue;
            uint64_t counts[DOMAIN] = {0};
            int64_t *keys = malloc((len + 1) * sizeof *keys);
            for (size_t i = 0; i < len; i++) {
                size_t slot = (i * i + 3) % DOMAIN;
                keys[i] = key_of(slot);
                counts[slot]++;
            }
            CHECK_OK(sa_bag_add_many(bag, keys, len));
            uint64_t total = 0;
            CHECK_OK(sa_bag_add(bag, INT64_MIN, 5, &total));
            counts[0] += 5;
            CHECK(total == counts[0], "bag add returns the new count");
            int64_t probe[DOMAIN];
            uint64_t got[DOMAIN];
            size_t hits = 0, wrong = 0, expected_hits = 0, n = 0;
            for (size_t s = 0; s < DOMAIN; s++) probe[s] = key_of(s);
            CHECK_OK(sa_bag_count_many(bag, probe, DOMAIN, got, &hits));
            for (size_t s = 0; s < DOMAIN; s++) {
                uint64_t c = 99;
                CHECK_OK(sa_bag_count(bag, probe[s], &c));
                wrong += c != counts[s] || got[s] != counts[s];
                expected_hits += counts[s] > 0;
            }
            CHECK(wrong == 0 && hits == expected_hits, "bag len %zu: %zu counts differ", len, wrong);
            CHECK_OK(sa_bag_len(bag, &n));
            CHECK(n == expected_hits, "bag len");
            int64_t *out_keys = malloc((n + 1) * sizeof *out_keys);
            uint64_t *out_counts = malloc((n + 1) * sizeof *out_counts);
            size_t written = 0;
            CHECK_OK(sa_bag_export(bag, out_keys, out_counts, n, &written));
            wrong = written != n;
            for (size_t i = 0; i < written; i++) {
                size_t s = 0;
                while (s < DOMAIN && key_of(s) != out_keys[i]) s++;
                wrong += s == DOMAIN || counts[s] != out_counts[i];
            }
            CHECK(wrong == 0, "bag len %zu: export differs", len);
            uint64_t old = 0;
            CHECK_OK(sa_bag_remove(bag, INT64_MIN, &old));
            CHECK(old == counts[0], "bag remove returns the count");
            CHECK_OK(sa_bag_remove(bag, INT64_MIN, &old));
            CHECK(old == 0, "bag remove absent");
            int64_t gone_keys[] = {key_of(3), key_of(4), INT64_MIN};
            size_t gone = 0;
            CHECK_OK(sa_bag_remove_many(bag, gone_keys, 3, &gone));
            CHECK(gone == (size_t)(counts[3] > 0) + (counts[4] > 0), "bag remove_many: %zu", gone);
            CHECK_OK(sa_bag_count(bag, key_of(4), &old));
            CHECK(old == 0, "bag key removed by the batch");
            char *text = NULL;
            CHECK_OK(sa_bag_placement(bag, &text));
            CHECK(text && strcmp(text, PLACEMENTS[p] ? PLACEMENTS[p] : "os") == 0, "bag placement %s", text);
            sa_string_free(text);
            CHECK_OK(sa_bag_memory_report_text(bag, &text));
            sa_string_free(text);
            CHECK_OK(sa_bag_placement_report_text(bag, &text));
            sa_string_free(text);
            size_t bytes = 0;
            CHECK_OK(sa_bag_memory_bytes(bag, &bytes));
            free(out_counts);
            free(out_keys);
            free(keys);
            sa_bag_free(bag);
        }
    }
    /* counts never wrap */
    SaBag *bag = NULL;
    CHECK_OK(sa_bag_new(NULL, &bag));
    uint64_t count = 0;
    CHECK_OK(sa_bag_add(bag, -3, UINT64_MAX, &count));
    CHECK(count == UINT64_MAX, "count at the maximum");
    CHECK_STATUS(sa_bag_add(bag, -3, 1, &count), SA_STATUS_OVERFLOW);
    CHECK_MESSAGE("overflow");
    int64_t keys[] = {4, -3, 5};
    CHECK_STATUS(sa_bag_add_many(bag, keys, 3), SA_STATUS_OVERFLOW);
    CHECK_OK(sa_bag_count(bag, -3, &count));
    CHECK(count == UINT64_MAX, "count kept after overflow");
    CHECK_OK(sa_bag_count(bag, 4, &count));
    CHECK(count == 1, "keys before the overflow are counted");
    size_t n = 0;
    CHECK_STATUS(sa_bag_len(NULL, &n), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `bag` is NULL") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_bag_count_many(bag, keys, 3, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_bag_add_many(bag, NULL, 2), SA_STATUS_NULL_POINTER);
    sa_bag_free(bag);
    sa_bag_free(NULL);
}

/* Readers share a const map (and a column) from many threads: every answer is the reference. */
#define SHARED_KEYS 5000
struct Shared {
    const SaMap *map;
    const SaColumn *column;
    int64_t keys[SHARED_KEYS];
    int wrong;
};

static void *read_shared(void *arg) {
    struct Shared *shared = arg;
    int64_t got[SHARED_KEYS];
    for (int round = 0; round < 20; round++) {
        size_t hits = 0, count = 0;
        if (sa_map_get_many(shared->map, shared->keys, SHARED_KEYS, got, NULL, 0, &hits) != SA_STATUS_OK || hits != SHARED_KEYS) {
            shared->wrong = 1;
        }
        for (size_t i = 0; i < SHARED_KEYS; i++) {
            if (got[i] != -shared->keys[i]) shared->wrong = 1;
        }
        SaSelection *selection = NULL;
        if (sa_column_filter_range_i64(shared->column, 0, 999, &selection) != SA_STATUS_OK ||
            sa_selection_count(selection, &count) != SA_STATUS_OK || count != 1000) {
            shared->wrong = 1;
        }
        sa_selection_free(selection);
    }
    return NULL;
}

static void test_concurrent_readers(void) {
    static struct Shared shared;
    SaMap *map = NULL;
    SaColumn *column = NULL;
    int64_t values[SHARED_KEYS];
    for (size_t i = 0; i < SHARED_KEYS; i++) {
        shared.keys[i] = (int64_t)(i * 7919) - 1000000;
        values[i] = -shared.keys[i];
    }
    CHECK_OK(sa_map_new("replicated", &map));
    CHECK_OK(sa_map_insert_many(map, shared.keys, values, SHARED_KEYS));
    int64_t rows[SHARED_KEYS];
    for (size_t i = 0; i < SHARED_KEYS; i++) rows[i] = (int64_t)i;
    CHECK_OK(sa_column_from_i64(rows, SHARED_KEYS, NULL, NULL, "replicated", &column));
    shared.map = map;
    shared.column = column;
    shared.wrong = 0;
    pthread_t threads[4];
    for (int t = 0; t < 4; t++) pthread_create(&threads[t], NULL, read_shared, &shared);
    for (int t = 0; t < 4; t++) pthread_join(threads[t], NULL);
    CHECK(shared.wrong == 0, "a concurrent reader saw a wrong answer");
    sa_column_free(column);
    sa_map_free(map);
}

int main(void) {
    test_map();
    test_concurrent_readers();
    test_map_errors();
    test_set();
    test_bag();
    return finish("C ABI collection tests");
}
