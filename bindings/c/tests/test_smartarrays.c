/* test_smartarrays.c - tests of the smartarrays C ABI from plain C: every value read back is
 * compared with a plain C array, at edge lengths, over many widths and every placement; every
 * error path checks its status code and message; Arrow exports are read through the C structs.
 * Exits 0 when all checks pass and prints each failure otherwise. */
#include <smartarrays.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char *PLACEMENTS[] = {NULL, "os", "node:0", "interleaved", "interleaved:0", "replicated"};
static const size_t N_PLACEMENTS = sizeof PLACEMENTS / sizeof PLACEMENTS[0];

static uint64_t max_of(uint32_t bits) { return bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1; }

/* Values that use the whole width: the maximum, zero, mixed patterns. */
static uint64_t *make_values(size_t len, uint32_t bits) {
    uint64_t *values = malloc((len ? len : 1) * sizeof *values);
    uint64_t max = max_of(bits);
    for (size_t i = 0; i < len; i++) {
        switch (i % 5) {
        case 0: values[i] = max; break;
        case 1: values[i] = 0; break;
        case 2: values[i] = ((uint64_t)i * 0x9E3779B97F4A7C15ull) & max; break;
        case 3: values[i] = max >> (i % 7); break;
        default: values[i] = (uint64_t)i & max; break;
        }
    }
    return values;
}

struct Collected {
    uint64_t *values;
    size_t next;
    size_t calls;
    size_t stop_after; /* 0 = never */
    int out_of_order;
};

static int32_t collect(void *user, size_t first, const uint64_t *values, size_t count) {
    struct Collected *c = user;
    if (first != c->next || count == 0 || count > 1024) {
        c->out_of_order = 1;
    }
    memcpy(c->values + first, values, count * sizeof *values);
    c->next = first + count;
    c->calls++;
    return c->stop_after != 0 && c->calls >= c->stop_after;
}

/* Checks every read function of `array` against `expected[0..len]`. */
static void check_array(const SaArray *array, const uint64_t *expected, size_t len, uint32_t bits, const char *where) {
    size_t got_len = 0;
    uint32_t got_bits = 0;
    CHECK_OK(sa_array_len(array, &got_len));
    CHECK(got_len == len, "%s: len %zu", where, got_len);
    CHECK_OK(sa_array_bits(array, &got_bits));
    CHECK(got_bits == bits, "%s: bits %" PRIu32 " expected %" PRIu32, where, got_bits, bits);

    size_t wrong = 0;
    uint64_t sum = 0, min = UINT64_MAX, max = 0;
    for (size_t i = 0; i < len; i++) {
        uint64_t v = 0;
        if (sa_array_get(array, i, &v) != SA_STATUS_OK || v != expected[i]) {
            wrong++;
        }
        sum += expected[i];
        min = expected[i] < min ? expected[i] : min;
        max = expected[i] > max ? expected[i] : max;
    }
    CHECK(wrong == 0, "%s: %zu values differ", where, wrong);
    uint64_t v = 0;
    CHECK_STATUS(sa_array_get(array, len, &v), SA_STATUS_INDEX_OUT_OF_RANGE);

    uint64_t *out = calloc(len + 1, sizeof *out);
    CHECK_OK(sa_array_unpack(array, 0, out, len));
    CHECK(len == 0 || memcmp(out, expected, len * sizeof *out) == 0, "%s: unpack differs", where);
    if (len > 3) {
        CHECK_OK(sa_array_unpack(array, 2, out, len - 3));
        CHECK(memcmp(out, expected + 2, (len - 3) * sizeof *out) == 0, "%s: partial unpack differs", where);
    }
    CHECK_STATUS(sa_array_unpack(array, 0, out, len + 1), SA_STATUS_RANGE_OUT_OF_BOUNDS);
    /* The prefetching variant decodes the same values, chunk by chunk, whatever the distance. */
    memset(out, 0, (len + 1) * sizeof *out);
    for (size_t first = 0; first < len; first += 1000) {
        size_t count = len - first < 1000 ? len - first : 1000;
        CHECK_OK(sa_array_unpack_ahead(array, first, out + first, count, 2000));
    }
    CHECK(len == 0 || memcmp(out, expected, len * sizeof *out) == 0, "%s: unpack_ahead differs", where);
    CHECK_OK(sa_array_unpack_ahead(array, len, out, 0, SIZE_MAX));
    CHECK_STATUS(sa_array_unpack_ahead(array, 0, out, len + 1, 0), SA_STATUS_RANGE_OUT_OF_BOUNDS);

    uint64_t got = 0;
    CHECK_OK(sa_array_sum(array, &got));
    CHECK(got == sum, "%s: sum %" PRIu64 " expected %" PRIu64, where, got, sum);
    CHECK_OK(sa_array_sum_range(array, 0, len, &got));
    CHECK(got == sum, "%s: sum_range", where);
    if (len > 0) {
        CHECK_OK(sa_array_min(array, &got));
        CHECK(got == min, "%s: min %" PRIu64 " expected %" PRIu64, where, got, min);
        CHECK_OK(sa_array_max(array, &got));
        CHECK(got == max, "%s: max %" PRIu64 " expected %" PRIu64, where, got, max);
    } else {
        CHECK_STATUS(sa_array_min(array, &got), SA_STATUS_EMPTY_ARRAY);
        CHECK_STATUS(sa_array_max(array, &got), SA_STATUS_EMPTY_ARRAY);
    }

    memset(out, 0, (len + 1) * sizeof *out);
    struct Collected c = {out, 0, 0, 0, 0};
    CHECK_OK(sa_array_for_each_chunk(array, 0, len, collect, &c));
    CHECK(!c.out_of_order && c.next == len, "%s: chunks out of order", where);
    CHECK(len == 0 || memcmp(out, expected, len * sizeof *out) == 0, "%s: chunks differ", where);

    const uint64_t *raw = NULL;
    if (bits == 64) {
        CHECK_OK(sa_array_raw_values(array, &raw));
        CHECK(len == 0 || memcmp(raw, expected, len * sizeof *raw) == 0, "%s: raw values differ", where);
    } else {
        CHECK_STATUS(sa_array_raw_values(array, &raw), SA_STATUS_NOT_UNCOMPRESSED);
    }
    free(out);
}

static void test_round_trips(void) {
    static const uint32_t widths[] = {1, 2, 3, 7, 8, 13, 31, 32, 33, 47, 57, 63, 64};
    for (size_t p = 0; p < N_PLACEMENTS; p++) {
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
            for (size_t l = 0; l < N_LENGTHS; l++) {
                size_t len = LENGTHS[l];
                uint64_t *values = make_values(len, widths[w]);
                char where[96];
                snprintf(where, sizeof where, "placement %s bits %" PRIu32 " len %zu", PLACEMENTS[p] ? PLACEMENTS[p] : "NULL",
                         widths[w], len);
                SaArray *array = NULL;
                CHECK_OK(sa_array_from_u64(values, len, PLACEMENTS[p], widths[w], &array));
                if (array != NULL) {
                    check_array(array, values, len, widths[w], where);
                    char *placement = NULL;
                    CHECK_OK(sa_array_placement(array, &placement));
                    CHECK(strcmp(placement, PLACEMENTS[p] ? PLACEMENTS[p] : "os") == 0, "%s: placement %s", where, placement);
                    sa_string_free(placement);
                    size_t packed = 0, memory = 0, replicas = 0;
                    CHECK_OK(sa_array_packed_bytes(array, &packed));
                    CHECK_OK(sa_array_memory_bytes(array, &memory));
                    CHECK_OK(sa_array_replica_count(array, &replicas));
                    CHECK(packed == (len * widths[w] + 7) / 8, "%s: packed %zu", where, packed);
                    CHECK(memory >= packed && replicas >= 1, "%s: memory %zu replicas %zu", where, memory, replicas);
                }
                sa_array_free(array);
                free(values);
            }
        }
    }
}

static void test_every_width_and_automatic_widths(void) {
    for (uint32_t bits = 1; bits <= 64; bits++) {
        uint64_t *values = make_values(1025, bits);
        SaArray *exact = NULL, *automatic = NULL;
        CHECK_OK(sa_array_from_u64(values, 1025, "os", bits, &exact));
        CHECK_OK(sa_array_from_u64(values, 1025, "os", 0, &automatic)); /* holds max_of(bits): needs exactly bits */
        char where[32];
        snprintf(where, sizeof where, "bits %" PRIu32, bits);
        check_array(exact, values, 1025, bits, where);
        check_array(automatic, values, 1025, bits, where);
        sa_array_free(exact);
        sa_array_free(automatic);
        free(values);
    }
    uint32_t values32[] = {0, 1, 4000000000u, 77};
    uint64_t values64[] = {0, 1, 4000000000u, 77};
    SaArray *array = NULL;
    CHECK_OK(sa_array_from_u32(values32, 4, "replicated", 0, &array));
    check_array(array, values64, 4, 32, "from_u32");
    sa_array_free(array);
    CHECK_OK(sa_array_new(100, "interleaved", 0, &array));
    uint64_t zeros[100] = {0};
    check_array(array, zeros, 100, 1, "zeros");
    sa_array_free(array);
}

static void test_set(void) {
    for (size_t p = 0; p < N_PLACEMENTS; p++) {
        uint64_t *values = make_values(130, 9);
        SaArray *array = NULL;
        CHECK_OK(sa_array_from_u64(values, 130, PLACEMENTS[p], 9, &array));
        CHECK_OK(sa_array_set(array, 0, 511));
        CHECK_OK(sa_array_set(array, 64, 1));
        CHECK_OK(sa_array_set(array, 129, 0));
        values[0] = 511;
        values[64] = 1;
        values[129] = 0;
        CHECK_STATUS(sa_array_set(array, 3, 512), SA_STATUS_VALUE_TOO_WIDE);
        CHECK(strcmp(sa_last_error_message(), "value 512 at index 3 does not fit in 9 bits (largest allowed is 511)") == 0, "%s",
              sa_last_error_message());
        CHECK_STATUS(sa_array_set(array, 130, 1), SA_STATUS_INDEX_OUT_OF_RANGE);
        CHECK(strcmp(sa_last_error_message(), "index 130 is out of range for an array of length 130") == 0, "%s",
              sa_last_error_message());
        check_array(array, values, 130, 9, "after set");
        sa_array_free(array);
        free(values);
    }
}

static void test_errors(void) {
    SaArray *array = NULL;
    uint64_t values[] = {1, 2, 300, 5000};
    sa_clear_last_error();
    CHECK(strcmp(sa_last_error_message(), "") == 0, "cleared: %s", sa_last_error_message());
    CHECK_STATUS(sa_array_from_u64(values, 4, NULL, 8, &array), SA_STATUS_VALUE_TOO_WIDE);
    CHECK(array == NULL, "no array on failure");
    CHECK(strcmp(sa_last_error_message(), "value 300 at index 2 does not fit in 8 bits (largest allowed is 255)") == 0, "%s",
          sa_last_error_message());
    CHECK_STATUS(sa_array_from_u64(values, 4, NULL, 65, &array), SA_STATUS_INVALID_BIT_WIDTH);
    CHECK(strstr(sa_last_error_message(), "65") != NULL, "%s", sa_last_error_message());
    CHECK_STATUS(sa_array_from_u64(values, 4, "mirrored", 0, &array), SA_STATUS_INVALID_PLACEMENT);
    CHECK(strstr(sa_last_error_message(), "mirrored") != NULL, "%s", sa_last_error_message());
    CHECK_STATUS(sa_array_from_u64(values, 4, "node:4096", 0, &array), SA_STATUS_UNKNOWN_NODE);
    CHECK(strstr(sa_last_error_message(), "NUMA node 4096 does not exist") != NULL, "%s", sa_last_error_message());
    CHECK_STATUS(sa_array_from_u64(values, 4, "\xff", 0, &array), SA_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sa_array_new(4, NULL, 0, NULL), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `out` is NULL") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_array_from_u64(NULL, 4, NULL, 0, &array), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `values` is NULL") == 0, "%s", sa_last_error_message());
    CHECK(array == NULL, "no array on failure");
    CHECK_OK(sa_array_from_u64(NULL, 0, NULL, 0, &array)); /* NULL is fine for no values */
    sa_array_free(array);

    CHECK_OK(sa_array_from_u64(values, 4, NULL, 0, &array));
    size_t len = 0;
    uint64_t v = 0;
    char *text = NULL;
    CHECK_STATUS(sa_array_len(NULL, &len), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `array` is NULL") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_array_len(array, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_get(NULL, 0, &v), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_get(array, 0, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_set(NULL, 0, 1), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_sum(NULL, &v), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_sum(array, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_unpack(array, 0, NULL, 2), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_unpack_ahead(array, 0, NULL, 2, 2), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_unpack_ahead(NULL, 0, &v, 1, 2), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_for_each_chunk(array, 0, 4, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_placement(array, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_placement_report_json(NULL, &text), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_export_arrow(array, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_topology_json(NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_array_sum_range(array, 3, 2, &v), SA_STATUS_RANGE_OUT_OF_BOUNDS);
    CHECK(strcmp(sa_last_error_message(), "range 3..2 is out of bounds for an array of length 4") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_array_unpack(array, SIZE_MAX, &v, 1), SA_STATUS_RANGE_OUT_OF_BOUNDS);
    CHECK_STATUS(sa_array_unpack_ahead(array, SIZE_MAX, &v, 1, SIZE_MAX), SA_STATUS_RANGE_OUT_OF_BOUNDS);
    CHECK_STATUS(sa_array_for_each_chunk(array, 2, 5, collect, NULL), SA_STATUS_RANGE_OUT_OF_BOUNDS);
    sa_array_free(array);
    sa_array_free(NULL);
    sa_f64_array_free(NULL);
    sa_string_free(NULL);

    CHECK(strcmp(sa_status_name(SA_STATUS_OK), "SA_STATUS_OK") == 0, "name");
    CHECK(strcmp(sa_status_name(SA_STATUS_BUSY), "SA_STATUS_BUSY") == 0, "name");
    CHECK(strcmp(sa_status_name(-7), "SA_STATUS_UNKNOWN") == 0, "name");
}

static void test_chunk_stop(void) {
    uint64_t *values = make_values(5000, 20);
    SaArray *array = NULL;
    CHECK_OK(sa_array_from_u64(values, 5000, NULL, 20, &array));
    uint64_t *out = calloc(5000, sizeof *out);
    struct Collected c = {out, 0, 0, 2, 0};
    CHECK_STATUS(sa_array_for_each_chunk(array, 0, 5000, collect, &c), SA_STATUS_STOPPED);
    CHECK(c.calls == 2 && c.next == 2048, "stopped after %zu calls at %zu", c.calls, c.next);
    CHECK(memcmp(out, values, 2048 * sizeof *out) == 0, "stopped chunks differ");
    struct Collected d = {out, 10, 0, 0, 0};
    CHECK_OK(sa_array_for_each_chunk(array, 10, 2000, collect, &d));
    CHECK(d.calls == 2 && d.next == 2000 && !d.out_of_order, "sub-range visit");
    free(out);
    free(values);
    sa_array_free(array);
}

struct Reader {
    const SaArray *array;
    const uint64_t *values;
    size_t len;
    uint64_t sum;
    int ok;
};

static void *read_concurrently(void *arg) {
    struct Reader *r = arg;
    r->ok = 1;
    for (size_t i = 0; i < r->len; i += 97) {
        uint64_t v = 0;
        if (sa_array_get(r->array, i, &v) != SA_STATUS_OK || v != r->values[i]) {
            r->ok = 0;
        }
    }
    uint64_t sum = 0;
    if (sa_array_sum(r->array, &sum) != SA_STATUS_OK || sum != r->sum) {
        r->ok = 0;
    }
    /* Each thread has its own last error. */
    uint64_t v;
    if (sa_array_get(r->array, r->len, &v) != SA_STATUS_INDEX_OUT_OF_RANGE || strstr(sa_last_error_message(), "out of range") == NULL) {
        r->ok = 0;
    }
    return NULL;
}

static void test_threads(void) {
    size_t len = 200000;
    uint64_t *values = make_values(len, 37);
    uint64_t sum = 0;
    for (size_t i = 0; i < len; i++) {
        sum += values[i];
    }
    SaArray *array = NULL;
    CHECK_OK(sa_array_from_u64(values, len, "interleaved", 37, &array));
    pthread_t threads[4];
    struct Reader readers[4];
    for (int t = 0; t < 4; t++) {
        readers[t] = (struct Reader){array, values, len, sum, 0};
        pthread_create(&threads[t], NULL, read_concurrently, &readers[t]);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(threads[t], NULL);
        CHECK(readers[t].ok, "thread %d read wrong values", t);
    }
    sa_array_free(array);
    free(values);

    CHECK_OK(sa_runtime_set_threads(3));
    size_t n = 0;
    CHECK_OK(sa_runtime_threads(&n));
    CHECK(n == 3, "threads %zu", n);
    CHECK_OK(sa_runtime_set_threads(0));
    CHECK_OK(sa_runtime_threads(&n));
    CHECK(n >= 1, "threads %zu", n);
}

static void test_topology(void) {
    size_t nodes = 0, cpus = 0;
    CHECK_OK(sa_topology_node_count(&nodes));
    CHECK_OK(sa_topology_cpu_count(&cpus));
    CHECK(nodes >= 1 && cpus >= nodes, "nodes %zu cpus %zu", nodes, cpus);
    char *json = NULL;
    CHECK_OK(sa_topology_json(&json));
    CHECK(json != NULL && strstr(json, "\"nodes\"") != NULL && strstr(json, "\"cpus\"") != NULL, "%s", json);
    sa_string_free(json);
    CHECK(strlen(sa_version()) >= 5, "version %s", sa_version());

    uint64_t values[4096];
    for (size_t i = 0; i < 4096; i++) {
        values[i] = i;
    }
    SaArray *array = NULL;
    CHECK_OK(sa_array_from_u64(values, 4096, "replicated", 64, &array));
    char *report = NULL;
    CHECK_OK(sa_array_placement_report_json(array, &report));
    CHECK(strstr(report, "\"placement\":\"replicated\"") != NULL && strstr(report, "\"replicas\"") != NULL, "%s", report);
    sa_string_free(report);
    sa_array_free(array);
}

static void test_f64(void) {
    for (size_t l = 0; l < N_LENGTHS; l++) {
        size_t len = LENGTHS[l];
        double *values = malloc((len ? len : 1) * sizeof *values);
        double sum = 0;
        for (size_t i = 0; i < len; i++) {
            values[i] = (double)i * 0.5 - 7.0;
            sum += values[i];
        }
        SaF64Array *array = NULL;
        CHECK_OK(sa_f64_array_from_f64(values, len, "interleaved", &array));
        size_t got_len = 0;
        CHECK_OK(sa_f64_array_len(array, &got_len));
        CHECK(got_len == len, "f64 len");
        size_t wrong = 0;
        for (size_t i = 0; i < len; i++) {
            double v = 0;
            if (sa_f64_array_get(array, i, &v) != SA_STATUS_OK || v != values[i]) {
                wrong++;
            }
        }
        CHECK(wrong == 0, "f64 len %zu: %zu differ", len, wrong);
        double total = 0;
        CHECK_OK(sa_f64_array_sum(array, &total));
        CHECK(total == sum, "f64 sum %f vs %f", total, sum); /* halves: exact in any order */
        const double *raw = NULL;
        CHECK_OK(sa_f64_array_raw_values(array, &raw));
        CHECK(len == 0 || memcmp(raw, values, len * sizeof *raw) == 0, "f64 raw");
        if (len > 0) {
            CHECK_OK(sa_f64_array_set(array, len - 1, 1e300));
            double v = 0;
            CHECK_OK(sa_f64_array_get(array, len - 1, &v));
            CHECK(v == 1e300, "f64 set");
        }
        double v;
        CHECK_STATUS(sa_f64_array_get(array, len, &v), SA_STATUS_INDEX_OUT_OF_RANGE);
        sa_f64_array_free(array);
        free(values);
    }
}

static void test_arrow(void) {
    /* Zero-copy export of a 64-bit array. */
    uint64_t *values = make_values(1025, 64);
    SaArray *array = NULL;
    CHECK_OK(sa_array_from_u64(values, 1025, "interleaved", 64, &array));
    const uint64_t *raw = NULL;
    CHECK_OK(sa_array_raw_values(array, &raw));
    struct ArrowArray exported;
    struct ArrowSchema schema;
    CHECK_OK(sa_array_export_arrow(array, &exported, &schema));
    CHECK(strcmp(schema.format, "L") == 0, "format %s", schema.format);
    CHECK(exported.length == 1025 && exported.null_count == 0 && exported.n_buffers == 2, "length %" PRId64, exported.length);
    const uint64_t *data = (const uint64_t *)exported.buffers[1] + exported.offset;
    CHECK(data == raw, "the export shares the array's memory");
    CHECK_STATUS(sa_array_set(array, 0, 1), SA_STATUS_BUSY);
    sa_array_free(array); /* the export keeps the memory alive */
    CHECK(memcmp(data, values, 1025 * sizeof *data) == 0, "exported values differ");
    exported.release(&exported);
    schema.release(&schema);
    CHECK(exported.release == NULL && schema.release == NULL, "released structs are marked released");
    free(values);

    /* Decoded export and a stream of a compressed array. */
    values = make_values(10000, 33);
    CHECK_OK(sa_array_from_u64(values, 10000, "replicated", 33, &array));
    CHECK_OK(sa_array_export_arrow(array, &exported, &schema));
    data = (const uint64_t *)exported.buffers[1] + exported.offset;
    CHECK(exported.length == 10000 && memcmp(data, values, 10000 * sizeof *data) == 0, "decoded export differs");
    CHECK_OK(sa_array_set(array, 0, 5)); /* a decoded copy does not block writes */
    exported.release(&exported);
    schema.release(&schema);

    struct ArrowArrayStream stream;
    CHECK_OK(sa_array_export_arrow_stream(array, 4096, &stream));
    sa_array_free(array);
    values[0] = 5;
    CHECK(stream.get_schema(&stream, &schema) == 0, "get_schema");
    CHECK(strcmp(schema.format, "L") == 0, "stream format %s", schema.format);
    schema.release(&schema);
    size_t seen = 0, chunks = 0;
    int same = 1;
    for (;;) {
        struct ArrowArray chunk;
        if (stream.get_next(&stream, &chunk) != 0) {
            CHECK(0, "get_next failed: %s", stream.get_last_error(&stream));
            break;
        }
        if (chunk.release == NULL) {
            break; /* end of stream */
        }
        const uint64_t *chunk_data = (const uint64_t *)chunk.buffers[1] + chunk.offset;
        if (memcmp(chunk_data, values + seen, (size_t)chunk.length * sizeof *chunk_data) != 0) {
            same = 0;
        }
        seen += (size_t)chunk.length;
        chunks++;
        chunk.release(&chunk);
    }
    CHECK(seen == 10000 && chunks == 3 && same, "stream delivered %zu values in %zu chunks", seen, chunks);
    stream.release(&stream);
    CHECK(stream.release == NULL, "stream released");
    free(values);

    double doubles[] = {0.5, -1.5, 3.25};
    SaF64Array *f = NULL;
    CHECK_OK(sa_f64_array_from_f64(doubles, 3, NULL, &f));
    CHECK_OK(sa_f64_array_export_arrow(f, &exported, &schema));
    CHECK(strcmp(schema.format, "g") == 0 && exported.length == 3, "f64 export");
    CHECK(memcmp((const double *)exported.buffers[1] + exported.offset, doubles, sizeof doubles) == 0, "f64 export values");
    exported.release(&exported);
    schema.release(&schema);
    sa_f64_array_free(f);
}

/* "auto" placement: refused with a message that tells a C user what to call, then resolved once
 * sa_install_default_advisor has installed the advisor for this machine. */
static void test_auto_advisor(void) {
    uint64_t values[1000];
    for (size_t i = 0; i < 1000; i++) values[i] = i % 300;
    SaArray *array = NULL;
    CHECK_STATUS(sa_array_from_u64(values, 1000, "auto", 0, &array), SA_STATUS_OTHER);
    CHECK(array == NULL, "no array without an advisor");
    CHECK(strstr(sa_last_error_message(), "sa_install_default_advisor()") != NULL, "%s", sa_last_error_message());
    int32_t measured = -1;
    CHECK_OK(sa_install_default_advisor(&measured));
    CHECK(measured == 0 || measured == 1, "measured flag %d", measured);
    CHECK_OK(sa_install_default_advisor(NULL));
    CHECK_OK(sa_array_from_u64(values, 1000, "auto", 0, &array));
    char *placement = NULL;
    CHECK_OK(sa_array_placement(array, &placement));
    CHECK(placement != NULL && strcmp(placement, "auto") != 0, "a concrete placement: %s", placement ? placement : "(null)");
    sa_string_free(placement);
    check_array(array, values, 1000, 9, "auto placement");
    sa_array_free(array);
}

int main(void) {
    test_round_trips();
    test_every_width_and_automatic_widths();
    test_set();
    test_errors();
    test_chunk_stop();
    test_threads();
    test_topology();
    test_f64();
    test_arrow();
    test_auto_advisor();
    return finish("C ABI tests");
}
