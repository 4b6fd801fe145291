/* test_columns.c - tests of the encoded columns of the C ABI (sa_column_*, sa_selection_*) from
 * plain C: every value, sum, minimum, maximum and filter result is compared with a plain C
 * reference computed here, at edge lengths (0, 1, 63, 64, 65, 1023, 1025), for every encoding
 * that applies, with extreme values (INT64_MIN/MAX, UINT64_MAX, NaN, -0.0, infinities), with and
 * without nulls; every error path checks its status and message. Exits 0 when all checks pass. */
#include "check.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static const char *INT_ENCODINGS[] = {NULL, "auto", "bitpacked", "frame", "dictionary", "run_end"};
#define N_INT_ENCODINGS (sizeof INT_ENCODINGS / sizeof INT_ENCODINGS[0])

static bool bit(const uint8_t *bitmap, size_t i) { return bitmap == NULL || (bitmap[i / 8] >> (i % 8) & 1) != 0; }

/* Values of several shapes: extremes, small, clustered, runs. */
static int64_t i64_value(size_t i, int shape) {
    switch (shape) {
    case 0: /* extremes mixed with small values */
        switch (i % 6) {
        case 0: return INT64_MIN;
        case 1: return INT64_MAX;
        case 2: return -1;
        case 3: return 0;
        case 4: return (int64_t)(i * 7919) - 4000;
        default: return (int64_t)i;
        }
    case 1: return 1000000 + (int64_t)(i % 50); /* narrow range far from 0: frame */
    case 2: return (int64_t)(i / 100) - 3;       /* runs: run_end */
    default: return (int64_t)((i * 2654435761u) % 5) * -1000; /* few distinct: dictionary */
    }
}

static void check_selection_i64(SaSelection *selection, const bool *expected, size_t len, const char *where) {
    size_t rows = 0, count = 0, want = 0;
    CHECK_OK(sa_selection_rows(selection, &rows));
    CHECK(rows == len, "%s: rows %zu", where, rows);
    for (size_t i = 0; i < len; i++) want += expected[i];
    CHECK_OK(sa_selection_count(selection, &count));
    CHECK(count == want, "%s: count %zu expected %zu", where, count, want);
    size_t *ids = malloc((count + 1) * sizeof *ids);
    if (count > 0) {
        CHECK_STATUS(sa_selection_row_ids(selection, ids, count - 1), SA_STATUS_BUFFER_TOO_SMALL);
    }
    CHECK_OK(sa_selection_row_ids(selection, ids, count));
    size_t at = 0, wrong = 0;
    for (size_t i = 0; i < len; i++) {
        if (expected[i]) {
            wrong += at >= count || ids[at] != i;
            at++;
        }
    }
    CHECK(wrong == 0, "%s: %zu row ids differ", where, wrong);
    size_t words = (len + 63) / 64;
    uint64_t *bitmap = calloc(words + 1, sizeof *bitmap);
    if (words > 0) {
        CHECK_STATUS(sa_selection_words(selection, bitmap, words - 1), SA_STATUS_BUFFER_TOO_SMALL);
    }
    CHECK_OK(sa_selection_words(selection, bitmap, words));
    wrong = 0;
    for (size_t i = 0; i < words * 64; i++) {
        bool set = (bitmap[i / 64] >> (i % 64) & 1) != 0;
        wrong += set != (i < len && expected[i]);
    }
    CHECK(wrong == 0, "%s: %zu bitmap bits differ", where, wrong);
    free(bitmap);
    free(ids);
    sa_selection_free(selection);
}

/* Builds an Int64 column of `shape` (nulls where `valid` says) and checks every read against C. */
static void check_i64_column(size_t len, int shape, const char *encoding, const uint8_t *valid) {
    char where[128];
    snprintf(where, sizeof where, "i64 len %zu shape %d encoding %s%s", len, shape, encoding ? encoding : "NULL",
             valid ? " with nulls" : "");
    int64_t *values = malloc((len + 1) * sizeof *values);
    for (size_t i = 0; i < len; i++) values[i] = i64_value(i, shape);
    SaColumn *column = NULL;
    CHECK_OK(sa_column_from_i64(values, len, valid, encoding, "os", &column));
    if (column == NULL) {
        free(values);
        return;
    }
    size_t got_len = 0, nulls = 0, expected_nulls = 0;
    CHECK_OK(sa_column_len(column, &got_len));
    CHECK(got_len == len, "%s: len %zu", where, got_len);
    for (size_t i = 0; i < len; i++) expected_nulls += !bit(valid, i);
    CHECK_OK(sa_column_null_count(column, &nulls));
    CHECK(nulls == expected_nulls, "%s: nulls %zu expected %zu", where, nulls, expected_nulls);
    SaDataType type = -1;
    CHECK_OK(sa_column_data_type(column, &type));
    CHECK(type == SA_DATA_TYPE_INT64, "%s: type %d", where, (int)type);
    char *name = NULL;
    CHECK_OK(sa_column_encoding(column, &name));
    if (name != NULL && encoding != NULL && strcmp(encoding, "auto") != 0) {
        CHECK(strcmp(name, encoding) == 0, "%s: encoding %s", where, name);
    }
    char *explanation = NULL;
    CHECK_OK(sa_column_explanation(column, &explanation));
    CHECK(explanation != NULL && name != NULL && strstr(explanation, name) != NULL, "%s: explanation %s", where, explanation);
    sa_string_free(explanation);
    sa_string_free(name);
    size_t memory = 0, packed = 0;
    CHECK_OK(sa_column_memory_bytes(column, &memory));
    CHECK_OK(sa_column_packed_bytes(column, &packed));
    CHECK(memory >= packed, "%s: memory %zu packed %zu", where, memory, packed);

    /* get, with the reference */
    size_t wrong = 0;
    i128 sum = 0;
    int64_t min = INT64_MAX, max = INT64_MIN;
    for (size_t i = 0; i < len; i++) {
        int64_t v = 12345;
        bool ok = false;
        if (sa_column_get_i64(column, i, &v, &ok) != SA_STATUS_OK || ok != bit(valid, i) || (ok && v != values[i])) {
            wrong++;
        }
        if (bit(valid, i)) {
            sum += values[i];
            min = values[i] < min ? values[i] : min;
            max = values[i] > max ? values[i] : max;
        }
    }
    CHECK(wrong == 0, "%s: %zu values differ", where, wrong);
    int64_t v = 0;
    bool ok = false;
    CHECK_STATUS(sa_column_get_i64(column, len, &v, &ok), SA_STATUS_INDEX_OUT_OF_RANGE);
    uint64_t u = 0;
    CHECK_STATUS(sa_column_get_u64(column, 0, &u, &ok), SA_STATUS_TYPE_MISMATCH);

    /* unpack all and a middle part, with the validity bitmap */
    int64_t *out = calloc(len + 1, sizeof *out);
    uint8_t *bits = calloc(len / 8 + 2, 1);
    CHECK_OK(sa_column_unpack_i64(column, 0, out, len, bits));
    wrong = 0;
    for (size_t i = 0; i < len; i++) wrong += bit(bits, i) != bit(valid, i) || (bit(valid, i) && out[i] != values[i]);
    CHECK(wrong == 0, "%s: unpack: %zu rows differ", where, wrong);
    if (len > 3) {
        CHECK_OK(sa_column_unpack_i64(column, 2, out, len - 3, bits));
        wrong = 0;
        for (size_t i = 0; i < len - 3; i++) wrong += bit(valid, i + 2) && out[i] != values[i + 2];
        CHECK(wrong == 0, "%s: partial unpack: %zu rows differ", where, wrong);
    }
    CHECK_STATUS(sa_column_unpack_i64(column, 0, out, len + 1, bits), SA_STATUS_RANGE_OUT_OF_BOUNDS);
    if (valid == NULL) {
        CHECK_OK(sa_column_unpack_i64(column, 0, out, len, NULL));
    } else if (expected_nulls > 0) {
        CHECK_STATUS(sa_column_unpack_i64(column, 0, out, len, NULL), SA_STATUS_INVALID_ARGUMENT);
        CHECK_MESSAGE("is null");
    }

    /* take, in reverse with a repeat */
    size_t *indices = malloc((len + 2) * sizeof *indices);
    for (size_t i = 0; i < len; i++) indices[i] = len - 1 - i;
    if (len > 0) {
        indices[len] = 0;
        CHECK_OK(sa_column_take_i64(column, indices, len + 1, out, bits));
        wrong = 0;
        for (size_t i = 0; i <= len; i++) {
            size_t row = indices[i];
            wrong += bit(bits, i) != bit(valid, row) || (bit(valid, row) && out[i] != values[row]);
        }
        CHECK(wrong == 0, "%s: take: %zu rows differ", where, wrong);
        indices[0] = len;
        CHECK_STATUS(sa_column_take_i64(column, indices, 1, out, bits), SA_STATUS_INDEX_OUT_OF_RANGE);
    }

    /* sums: exact in 128 bits; int64_t only when it fits */
    uint64_t low = 0;
    int64_t high = 0, sum64 = 0;
    CHECK_OK(sa_column_sum_i128(column, &low, &high));
    i128 got_sum = (i128)(((u128)(uint64_t)high << 64) | low);
    CHECK(got_sum == sum, "%s: 128-bit sum differs", where);
    if (sum >= INT64_MIN && sum <= INT64_MAX) {
        CHECK_OK(sa_column_sum_i64(column, &sum64));
        CHECK(sum64 == (int64_t)sum, "%s: sum %" PRId64, where, sum64);
    } else {
        CHECK_STATUS(sa_column_sum_i64(column, &sum64), SA_STATUS_OVERFLOW);
        CHECK_MESSAGE("does not fit");
    }
    double fsum = 0;
    CHECK_STATUS(sa_column_sum_f64(column, &fsum), SA_STATUS_TYPE_MISMATCH);

    int64_t got_min = 0, got_max = 0;
    if (len - expected_nulls > 0) {
        CHECK_OK(sa_column_min_max_i64(column, &got_min, &got_max));
        CHECK(got_min == min && got_max == max, "%s: min %" PRId64 " max %" PRId64, where, got_min, got_max);
    } else {
        CHECK_STATUS(sa_column_min_max_i64(column, &got_min, &got_max), SA_STATUS_EMPTY_ARRAY);
    }

    /* filters against the reference */
    bool *expected = calloc(len + 1, sizeof *expected);
    int64_t probe = len > 0 ? values[len / 2] : 7;
    SaSelection *selection = NULL;
    for (size_t i = 0; i < len; i++) expected[i] = bit(valid, i) && values[i] == probe;
    CHECK_OK(sa_column_filter_eq_i64(column, probe, &selection));
    check_selection_i64(selection, expected, len, where);

    int64_t lo = -1000, hi = 1000010;
    for (size_t i = 0; i < len; i++) expected[i] = bit(valid, i) && values[i] >= lo && values[i] <= hi;
    CHECK_OK(sa_column_filter_range_i64(column, lo, hi, &selection));
    check_selection_i64(selection, expected, len, where);
    for (size_t i = 0; i < len; i++) expected[i] = bit(valid, i);
    CHECK_OK(sa_column_filter_range_i64(column, INT64_MIN, INT64_MAX, &selection));
    check_selection_i64(selection, expected, len, where);
    for (size_t i = 0; i < len; i++) expected[i] = false;
    CHECK_OK(sa_column_filter_range_i64(column, 5, 4, &selection)); /* reversed: nothing */
    check_selection_i64(selection, expected, len, where);

    int64_t list[] = {INT64_MIN, INT64_MAX, 0, -3, 1000007, -2000};
    size_t n_list = sizeof list / sizeof list[0];
    for (size_t i = 0; i < len; i++) {
        expected[i] = false;
        for (size_t j = 0; j < n_list; j++) expected[i] = expected[i] || (bit(valid, i) && values[i] == list[j]);
    }
    CHECK_OK(sa_column_filter_in_i64(column, list, n_list, &selection));
    check_selection_i64(selection, expected, len, where);
    for (size_t i = 0; i < len; i++) expected[i] = false;
    CHECK_OK(sa_column_filter_in_i64(column, NULL, 0, &selection));
    check_selection_i64(selection, expected, len, where);

    for (size_t i = 0; i < len; i++) expected[i] = !bit(valid, i);
    CHECK_OK(sa_column_filter_null(column, true, &selection));
    check_selection_i64(selection, expected, len, where);
    for (size_t i = 0; i < len; i++) expected[i] = bit(valid, i);
    CHECK_OK(sa_column_filter_null(column, false, &selection));
    check_selection_i64(selection, expected, len, where);

    CHECK_STATUS(sa_column_filter_eq_u64(column, 1, &selection), SA_STATUS_TYPE_MISMATCH);
    CHECK_STATUS(sa_column_filter_prefix_utf8(column, "a", 1, &selection), SA_STATUS_UNSUPPORTED);

    free(expected);
    free(indices);
    free(bits);
    free(out);
    sa_column_free(column);
    free(values);
}

static void test_i64_columns(void) {
    for (size_t l = 0; l < N_LENGTHS; l++) {
        size_t len = LENGTHS[l];
        uint8_t *valid = malloc(len / 8 + 1);
        for (size_t i = 0; i < len / 8 + 1; i++) valid[i] = 0xB6; /* 0,3,6: nulls every third-ish row */
        for (int shape = 0; shape < 4; shape++) {
            for (size_t e = 0; e < N_INT_ENCODINGS; e++) {
                check_i64_column(len, shape, INT_ENCODINGS[e], NULL);
            }
            check_i64_column(len, shape, NULL, valid);
            check_i64_column(len, shape, "dictionary", valid);
        }
        free(valid);
    }
    /* A column of one value: the constant encoding, and min == max. */
    int64_t same[100];
    for (size_t i = 0; i < 100; i++) same[i] = INT64_MIN;
    SaColumn *column = NULL;
    CHECK_OK(sa_column_from_i64(same, 100, NULL, NULL, NULL, &column));
    char *name = NULL;
    CHECK_OK(sa_column_encoding(column, &name));
    CHECK(name && strcmp(name, "constant") == 0, "encoding %s", name);
    sa_string_free(name);
    i128 expected = (i128)INT64_MIN * 100;
    uint64_t low = 0;
    int64_t high = 0, sum = 0;
    CHECK_OK(sa_column_sum_i128(column, &low, &high));
    CHECK(low == (uint64_t)expected && high == (int64_t)(expected >> 64), "sum of INT64_MIN x 100");
    CHECK_STATUS(sa_column_sum_i64(column, &sum), SA_STATUS_OVERFLOW);
    sa_column_free(column);
    /* An all-null column has no minimum. */
    uint8_t none[2] = {0, 0};
    CHECK_OK(sa_column_from_i64(same, 9, none, NULL, NULL, &column));
    int64_t lo = 0, hi = 0;
    CHECK_STATUS(sa_column_min_max_i64(column, &lo, &hi), SA_STATUS_EMPTY_ARRAY);
    CHECK_OK(sa_column_sum_i64(column, &sum));
    CHECK(sum == 0, "all-null sum %" PRId64, sum);
    sa_column_free(column);
}

static void test_u64_columns(void) {
    for (size_t l = 0; l < N_LENGTHS; l++) {
        size_t len = LENGTHS[l];
        uint64_t *values = malloc((len + 1) * sizeof *values);
        for (size_t i = 0; i < len; i++) values[i] = i % 4 == 0 ? UINT64_MAX : (uint64_t)i * 3;
        for (size_t e = 0; e < N_INT_ENCODINGS; e++) {
            SaColumn *column = NULL;
            CHECK_OK(sa_column_from_u64(values, len, NULL, INT_ENCODINGS[e], "interleaved", &column));
            if (column == NULL) continue;
            u128 sum = 0;
            uint64_t min = UINT64_MAX, max = 0;
            size_t wrong = 0;
            for (size_t i = 0; i < len; i++) {
                uint64_t v = 0;
                wrong += sa_column_get_u64(column, i, &v, NULL) != SA_STATUS_OK || v != values[i];
                sum += values[i];
                min = values[i] < min ? values[i] : min;
                max = values[i] > max ? values[i] : max;
            }
            CHECK(wrong == 0, "u64 len %zu: %zu values differ", len, wrong);
            uint64_t *out = calloc(len + 1, sizeof *out);
            CHECK_OK(sa_column_unpack_u64(column, 0, out, len, NULL));
            CHECK(len == 0 || memcmp(out, values, len * sizeof *out) == 0, "u64 len %zu: unpack differs", len);
            uint64_t sum64 = 0, low = 0;
            int64_t high = 0;
            if (sum <= UINT64_MAX) {
                CHECK_OK(sa_column_sum_u64(column, &sum64));
                CHECK(sum64 == (uint64_t)sum, "u64 sum");
            } else {
                CHECK_STATUS(sa_column_sum_u64(column, &sum64), SA_STATUS_OVERFLOW);
                CHECK_MESSAGE("does not fit in u64");
            }
            CHECK_OK(sa_column_sum_i128(column, &low, &high));
            CHECK(low == (uint64_t)sum && (uint64_t)high == (uint64_t)(sum >> 64), "u64 len %zu: 128-bit sum", len);
            uint64_t got_min = 0, got_max = 0;
            if (len > 0) {
                CHECK_OK(sa_column_min_max_u64(column, &got_min, &got_max));
                CHECK(got_min == min && got_max == max, "u64 min/max");
            }
            size_t count = 0, want = 0;
            SaSelection *selection = NULL;
            for (size_t i = 0; i < len; i++) want += values[i] == UINT64_MAX;
            CHECK_OK(sa_column_filter_eq_u64(column, UINT64_MAX, &selection));
            CHECK_OK(sa_selection_count(selection, &count));
            CHECK(count == want, "u64 eq max: %zu of %zu", count, want);
            sa_selection_free(selection);
            want = 0;
            for (size_t i = 0; i < len; i++) want += values[i] >= 3 && values[i] <= 300;
            CHECK_OK(sa_column_filter_range_u64(column, 3, 300, &selection));
            CHECK_OK(sa_selection_count(selection, &count));
            CHECK(count == want, "u64 range: %zu of %zu", count, want);
            sa_selection_free(selection);
            free(out);
            sa_column_free(column);
        }
        free(values);
    }
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_f64_columns(void) {
    static const char *encodings[] = {NULL, "alp", "bitpacked", "dictionary", "frame"};
    for (size_t l = 0; l < N_LENGTHS; l++) {
        size_t len = LENGTHS[l];
        double *values = malloc((len + 1) * sizeof *values);
        for (size_t i = 0; i < len; i++) {
            switch (i % 8) {
            case 0: values[i] = NAN; break;
            case 1: values[i] = -0.0; break;
            case 2: values[i] = INFINITY; break;
            case 3: values[i] = -INFINITY; break;
            case 4: values[i] = 0.0; break;
            default: values[i] = (double)(i % 100) * 0.25 - 3.5; break;
            }
        }
        for (size_t e = 0; e < sizeof encodings / sizeof encodings[0]; e++) {
            SaColumn *column = NULL;
            CHECK_OK(sa_column_from_f64(values, len, NULL, encodings[e], "replicated", &column));
            if (column == NULL) continue;
            size_t wrong = 0;
            for (size_t i = 0; i < len; i++) {
                double v = 1;
                wrong += sa_column_get_f64(column, i, &v, NULL) != SA_STATUS_OK || !same_bits(v, values[i]);
            }
            CHECK(wrong == 0, "f64 len %zu encoding %s: %zu values differ", len, encodings[e] ? encodings[e] : "NULL", wrong);
            double *out = calloc(len + 1, sizeof *out);
            CHECK_OK(sa_column_unpack_f64(column, 0, out, len, NULL));
            CHECK(len == 0 || memcmp(out, values, len * sizeof *out) == 0, "f64 unpack differs");
            size_t count = 0, want = 0;
            SaSelection *selection = NULL;
            for (size_t i = 0; i < len; i++) want += same_bits(values[i], -0.0);
            CHECK_OK(sa_column_filter_eq_f64(column, -0.0, &selection));
            CHECK_OK(sa_selection_count(selection, &count));
            CHECK(count == want, "f64 eq -0.0: %zu of %zu", count, want);
            sa_selection_free(selection);
            want = 0;
            for (size_t i = 0; i < len; i++) want += isnan(values[i]);
            CHECK_OK(sa_column_filter_eq_f64(column, NAN, &selection));
            CHECK_OK(sa_selection_count(selection, &count));
            CHECK(count == want, "f64 eq NaN: %zu of %zu", count, want);
            sa_selection_free(selection);
            want = 0;
            for (size_t i = 0; i < len; i++) want += !isnan(values[i]) && values[i] >= -1.0 && values[i] <= 2.0;
            CHECK_OK(sa_column_filter_range_f64(column, -1.0, 2.0, &selection)); /* total order: -0.0 and 0.0 are in */
            CHECK_OK(sa_selection_count(selection, &count));
            CHECK(count == want, "f64 range: %zu of %zu", count, want);
            sa_selection_free(selection);
            double lo = 0, hi = 0;
            if (len > 0) {
                CHECK_OK(sa_column_min_max_f64(column, &lo, &hi));
                CHECK(isnan(hi) || len < 3, "f64 max in total order is NaN, got %g", hi);
                CHECK(len < 4 || same_bits(lo, -INFINITY), "f64 min is -inf, got %g", lo);
            }
            double sum = 0;
            CHECK_OK(sa_column_sum_f64(column, &sum));
            CHECK(len == 0 ? sum == 0 : isnan(sum), "f64 sum with NaN: %g", sum);
            int64_t isum = 0;
            CHECK_STATUS(sa_column_sum_i64(column, &isum), SA_STATUS_TYPE_MISMATCH);
            free(out);
            sa_column_free(column);
        }
        free(values);
    }
    /* Finite values: the sum in row order equals C's. */
    double prices[1025];
    double reference = 0;
    for (size_t i = 0; i < 1025; i++) {
        prices[i] = (double)((i * 37) % 2000) / 100.0 + 10.0;
        reference += prices[i];
    }
    SaColumn *column = NULL;
    CHECK_OK(sa_column_from_f64(prices, 1025, NULL, NULL, NULL, &column));
    char *name = NULL;
    CHECK_OK(sa_column_encoding(column, &name));
    CHECK(name && strcmp(name, "alp") == 0, "decimal prices are ALP-encoded, got %s", name);
    sa_string_free(name);
    double sum = 0;
    CHECK_OK(sa_column_sum_f64(column, &sum));
    CHECK(sum == reference, "f64 sum %.17g expected %.17g", sum, reference);
    sa_column_free(column);
}

/* Strings as offsets + bytes. */
struct Strings {
    char *bytes;
    size_t *offsets;
    size_t len;
    size_t bytes_len;
};

static struct Strings make_strings(const char *const *texts, size_t len) {
    struct Strings s = {NULL, calloc(len + 1, sizeof(size_t)), len, 0};
    for (size_t i = 0; i < len; i++) s.bytes_len += strlen(texts[i]);
    s.bytes = malloc(s.bytes_len + 1);
    size_t at = 0;
    for (size_t i = 0; i < len; i++) {
        size_t n = strlen(texts[i]);
        memcpy(s.bytes + at, texts[i], n);
        at += n;
        s.offsets[i + 1] = at;
    }
    return s;
}

static const char *string_value(size_t i) {
    static const char *words[] = {"apple", "apricot", "banana", "", "cherry", "\xc3\xa9t\xc3\xa9", "apple pie", "b"};
    return words[(i * 7 + i / 3) % 8];
}

static void test_utf8_columns(void) {
    static const char *encodings[] = {NULL, "dictionary", "fsst"};
    for (size_t l = 0; l < N_LENGTHS; l++) {
        size_t len = LENGTHS[l];
        const char **texts = malloc((len + 1) * sizeof *texts);
        for (size_t i = 0; i < len; i++) texts[i] = string_value(i);
        struct Strings s = make_strings(texts, len);
        uint8_t *valid = malloc(len / 8 + 1);
        memset(valid, 0xEF, len / 8 + 1); /* row 4 of every 8 is null */
        for (size_t e = 0; e < 3; e++) {
            for (int with_nulls = 0; with_nulls < 2; with_nulls++) {
                const uint8_t *v = with_nulls ? valid : NULL;
                SaColumn *column = NULL;
                CHECK_OK(sa_column_from_utf8(s.bytes, s.bytes_len, s.offsets, len, v, encodings[e], "os", &column));
                if (column == NULL) continue;
                char *name = NULL;
                CHECK_OK(sa_column_encoding(column, &name));
                CHECK(name && (encodings[e] == NULL || strcmp(name, encodings[e]) == 0), "utf8 encoding %s", name);
                sa_string_free(name);
                size_t wrong = 0;
                char buffer[32];
                for (size_t i = 0; i < len; i++) {
                    size_t n = 0;
                    bool ok = false;
                    if (sa_column_get_utf8(column, i, buffer, sizeof buffer, &n, &ok) != SA_STATUS_OK || ok != bit(v, i) ||
                        (ok && strcmp(buffer, texts[i]) != 0) || (ok && n != strlen(texts[i]))) {
                        wrong++;
                    }
                }
                CHECK(wrong == 0, "utf8 len %zu: %zu strings differ", len, wrong);
                if (len > 0 && bit(v, 0)) {
                    size_t n = 0;
                    CHECK_STATUS(sa_column_get_utf8(column, 0, buffer, strlen(texts[0]), &n, NULL), SA_STATUS_BUFFER_TOO_SMALL);
                    CHECK(n == strlen(texts[0]), "needed length %zu", n);
                }
                /* unpack into offsets + bytes, with a first call that is too small */
                size_t *offsets = calloc(len + 1, sizeof *offsets);
                char *bytes = malloc(s.bytes_len + 1);
                uint8_t *bits = calloc(len / 8 + 1, 1);
                size_t needed = 0;
                if (s.bytes_len > 0 && !with_nulls) {
                    CHECK_STATUS(sa_column_unpack_utf8(column, 0, len, offsets, bytes, 0, &needed, bits), SA_STATUS_BUFFER_TOO_SMALL);
                    CHECK(needed == s.bytes_len, "needed %zu of %zu", needed, s.bytes_len);
                }
                CHECK_OK(sa_column_unpack_utf8(column, 0, len, offsets, bytes, s.bytes_len, &needed, bits));
                wrong = 0;
                for (size_t i = 0; i < len; i++) {
                    size_t n = offsets[i + 1] - offsets[i];
                    if (bit(bits, i) != bit(v, i)) wrong++;
                    else if (bit(v, i) && (n != strlen(texts[i]) || memcmp(bytes + offsets[i], texts[i], n) != 0)) wrong++;
                    else if (!bit(v, i) && n != 0) wrong++;
                }
                CHECK(wrong == 0, "utf8 unpack len %zu: %zu strings differ", len, wrong);
                if (len > 2) {
                    size_t rows[] = {len - 1, 0, len - 1};
                    CHECK_OK(sa_column_take_utf8(column, rows, 3, offsets, bytes, s.bytes_len, &needed, bits));
                    CHECK(!bit(v, len - 1) || (offsets[1] == strlen(texts[len - 1]) && memcmp(bytes, texts[len - 1], offsets[1]) == 0),
                          "take_utf8");
                }
                /* filters */
                size_t count = 0, want = 0;
                SaSelection *selection = NULL;
                for (size_t i = 0; i < len; i++) want += bit(v, i) && strcmp(texts[i], "apple") == 0;
                CHECK_OK(sa_column_filter_eq_utf8(column, "apple", 5, &selection));
                CHECK_OK(sa_selection_count(selection, &count));
                CHECK(count == want, "utf8 eq: %zu of %zu", count, want);
                sa_selection_free(selection);
                want = 0;
                for (size_t i = 0; i < len; i++) want += bit(v, i) && strncmp(texts[i], "ap", 2) == 0;
                CHECK_OK(sa_column_filter_prefix_utf8(column, "ap", 2, &selection));
                CHECK_OK(sa_selection_count(selection, &count));
                CHECK(count == want, "utf8 prefix: %zu of %zu", count, want);
                sa_selection_free(selection);
                want = 0;
                for (size_t i = 0; i < len; i++) want += bit(v, i) && texts[i][0] == '\0';
                CHECK_OK(sa_column_filter_eq_utf8(column, NULL, 0, &selection)); /* the empty string */
                CHECK_OK(sa_selection_count(selection, &count));
                CHECK(count == want, "utf8 eq empty: %zu of %zu", count, want);
                sa_selection_free(selection);
                const char *list[] = {"b", "\xc3\xa9t\xc3\xa9", "zebra"};
                struct Strings in = make_strings(list, 3);
                want = 0;
                for (size_t i = 0; i < len; i++) {
                    want += bit(v, i) && (strcmp(texts[i], list[0]) == 0 || strcmp(texts[i], list[1]) == 0);
                }
                CHECK_OK(sa_column_filter_in_utf8(column, in.bytes, in.bytes_len, in.offsets, 3, &selection));
                CHECK_OK(sa_selection_count(selection, &count));
                CHECK(count == want, "utf8 in: %zu of %zu", count, want);
                sa_selection_free(selection);
                free(in.bytes);
                free(in.offsets);
                /* what strings cannot do */
                int64_t sum = 0;
                CHECK_STATUS(sa_column_sum_i64(column, &sum), SA_STATUS_UNSUPPORTED);
                CHECK_MESSAGE("sum is not supported for a Utf8 column");
                CHECK_STATUS(sa_column_filter_eq_i64(column, 1, &selection), SA_STATUS_TYPE_MISMATCH);
                int64_t lo = 0, hi = 0;
                CHECK_STATUS(sa_column_min_max_i64(column, &lo, &hi), SA_STATUS_TYPE_MISMATCH);
                free(bits);
                free(bytes);
                free(offsets);
                sa_column_free(column);
            }
        }
        free(valid);
        free(s.bytes);
        free(s.offsets);
        free(texts);
    }
}

/* Bool, Date32 and Decimal columns: every row read back, with and without nulls, at edge
 * lengths, for every encoding that applies; the decimal sum against a 128-bit C sum. */
static void test_bool_date_decimal_columns(void) {
    static const size_t lengths[] = {0, 1, 63, 64, 65, 1023, 1025};
    static const char *encodings[] = {NULL, "auto", "bitpacked", "dictionary", "run_end"};
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        size_t len = lengths[l];
        uint8_t *flags = malloc(len + 1);
        int32_t *days = malloc((len + 1) * sizeof *days);
        int64_t *unscaled = malloc((len + 1) * sizeof *unscaled);
        uint8_t *valid = calloc(len / 8 + 1, 1);
        for (size_t i = 0; i < len; i++) {
            flags[i] = (uint8_t)((i * 7 / 3) % 2);
            days[i] = i % 5 == 0 ? INT32_MIN : i % 5 == 1 ? INT32_MAX : (int32_t)(i * 37) - 20000;
            unscaled[i] = i % 4 == 0 ? INT64_MIN : i % 4 == 1 ? INT64_MAX : (int64_t)(i * 1999) - 1000000;
            if (i % 3 != 1) valid[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        for (size_t e = 0; e < sizeof encodings / sizeof encodings[0]; e++) {
            for (int with_nulls = 0; with_nulls < 2; with_nulls++) {
                const uint8_t *v = with_nulls ? valid : NULL;
                SaColumn *b = NULL, *d = NULL, *m = NULL;
                CHECK_OK(sa_column_from_bool(flags, len, v, encodings[e], NULL, &b));
                CHECK_OK(sa_column_from_date32(days, len, v, encodings[e], NULL, &d));
                CHECK_OK(sa_column_from_decimal(unscaled, len, 4, v, encodings[e], NULL, &m));
                if (b == NULL || d == NULL || m == NULL) {
                    sa_column_free(b), sa_column_free(d), sa_column_free(m);
                    continue;
                }
                SaDataType type = SA_DATA_TYPE_UINT64;
                CHECK_OK(sa_column_data_type(b, &type));
                CHECK(type == SA_DATA_TYPE_BOOL, "bool type %d", (int)type);
                CHECK_OK(sa_column_data_type(d, &type));
                CHECK(type == SA_DATA_TYPE_DATE32, "date type %d", (int)type);
                CHECK_OK(sa_column_data_type(m, &type));
                CHECK(type == SA_DATA_TYPE_DECIMAL, "decimal type %d", (int)type);
                uint8_t scale = 0;
                CHECK_OK(sa_column_decimal_scale(m, &scale));
                CHECK(scale == 4, "scale %u", scale);
                size_t wrong = 0;
                i128 expected = 0;
                for (size_t i = 0; i < len; i++) {
                    bool ok = !with_nulls || bit(valid, i), got_valid = !ok;
                    bool flag = false;
                    int32_t day = 0;
                    int64_t u = 0;
                    CHECK_OK(sa_column_get_bool(b, i, &flag, &got_valid));
                    wrong += got_valid != ok || (ok && flag != (flags[i] == 1));
                    CHECK_OK(sa_column_get_date32(d, i, &day, &got_valid));
                    wrong += got_valid != ok || (ok && day != days[i]);
                    CHECK_OK(sa_column_get_decimal(m, i, &u, &got_valid));
                    wrong += got_valid != ok || (ok && u != unscaled[i]);
                    if (ok) expected += unscaled[i];
                }
                CHECK(wrong == 0, "len %zu encoding %s nulls %d: %zu rows differ", len,
                      encodings[e] ? encodings[e] : "NULL", with_nulls, wrong);
                uint64_t low = 0;
                int64_t high = 0;
                CHECK_OK(sa_column_sum_i128(m, &low, &high));
                CHECK(((i128)high << 64 | (i128)low) == expected, "decimal sum at len %zu", len);
                bool flag = false;
                CHECK_STATUS(sa_column_get_bool(b, len, &flag, NULL), SA_STATUS_INDEX_OUT_OF_RANGE);
                sa_column_free(b);
                sa_column_free(d);
                sa_column_free(m);
            }
        }
        free(flags), free(days), free(unscaled), free(valid);
    }

    /* bad input: a boolean byte that is neither 0 nor 1, a scale past 18, reads of another type */
    uint8_t bad[] = {0, 1, 2};
    SaColumn *column = NULL;
    CHECK_STATUS(sa_column_from_bool(bad, 3, NULL, NULL, NULL, &column), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("values[2] is 2");
    CHECK(column == NULL, "no column on failure");
    int64_t one[] = {1};
    CHECK_STATUS(sa_column_from_decimal(one, 1, 19, NULL, NULL, NULL, &column), SA_STATUS_INVALID_ARGUMENT);
    CHECK(column == NULL, "no column on failure");
    CHECK_STATUS(sa_column_from_date32(NULL, 2, NULL, NULL, NULL, &column), SA_STATUS_NULL_POINTER);
    CHECK_OK(sa_column_from_i64(one, 1, NULL, NULL, NULL, &column));
    bool flag = false;
    int32_t day = 0;
    int64_t u = 0;
    uint8_t scale = 0;
    CHECK_STATUS(sa_column_get_bool(column, 0, &flag, NULL), SA_STATUS_TYPE_MISMATCH);
    CHECK_STATUS(sa_column_get_date32(column, 0, &day, NULL), SA_STATUS_TYPE_MISMATCH);
    CHECK_STATUS(sa_column_get_decimal(column, 0, &u, NULL), SA_STATUS_TYPE_MISMATCH);
    CHECK_MESSAGE("reads Decimal columns, but this column is Int64");
    CHECK_STATUS(sa_column_decimal_scale(column, &scale), SA_STATUS_TYPE_MISMATCH);
    sa_column_free(column);
}

static void test_errors(void) {
    int64_t values[] = {1, 2, 3, 4};
    SaColumn *column = NULL;
    CHECK_STATUS(sa_column_from_i64(values, 4, NULL, "zstd", NULL, &column), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("unknown encoding \"zstd\"");
    CHECK_MESSAGE("run_end");
    CHECK(column == NULL, "no column on failure");
    CHECK_STATUS(sa_column_from_i64(values, 4, NULL, "constant", NULL, &column), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("constant");
    CHECK_STATUS(sa_column_from_i64(values, 4, NULL, "fsst", NULL, &column), SA_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sa_column_from_i64(values, 4, NULL, NULL, "mirrored", &column), SA_STATUS_INVALID_PLACEMENT);
    CHECK_STATUS(sa_column_from_i64(values, 4, NULL, NULL, "node:4096", &column), SA_STATUS_UNKNOWN_NODE);
    /* one value is a constant column, which maps no memory: the node is checked all the same */
    CHECK_STATUS(sa_column_from_i64(values, 1, NULL, NULL, "node:4096", &column), SA_STATUS_UNKNOWN_NODE);
    CHECK_STATUS(sa_column_from_i64(NULL, 4, NULL, NULL, NULL, &column), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `values` is NULL") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_column_from_i64(values, 4, NULL, NULL, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `out` is NULL") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_column_from_i64(values, 4, NULL, "\xff", NULL, &column), SA_STATUS_INVALID_ARGUMENT);
    CHECK(column == NULL, "no column on failure");
    CHECK_OK(sa_column_from_i64(NULL, 0, NULL, NULL, NULL, &column)); /* NULL is fine for no values */
    size_t len = 9;
    CHECK_OK(sa_column_len(column, &len));
    CHECK(len == 0, "empty column");
    sa_column_free(column);
    column = NULL;

    /* bad strings: offsets past the end, decreasing, not UTF-8 */
    size_t offsets[] = {0, 3, 9};
    CHECK_STATUS(sa_column_from_utf8("abcdef", 6, offsets, 2, NULL, NULL, NULL, &column), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("string 1");
    size_t backwards[] = {0, 4, 2};
    CHECK_STATUS(sa_column_from_utf8("abcdef", 6, backwards, 2, NULL, NULL, NULL, &column), SA_STATUS_INVALID_ARGUMENT);
    size_t fine[] = {0, 1, 2};
    CHECK_STATUS(sa_column_from_utf8("a\xff", 2, fine, 2, NULL, NULL, NULL, &column), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("string 1 is not UTF-8");
    CHECK_STATUS(sa_column_from_utf8("ab", 2, NULL, 2, NULL, NULL, NULL, &column), SA_STATUS_NULL_POINTER);
    CHECK_MESSAGE("offsets");
    CHECK_STATUS(sa_column_from_utf8("ab", 2, fine, 2, NULL, "frame", NULL, &column), SA_STATUS_INVALID_ARGUMENT);
    CHECK(column == NULL, "no column on failure");

    /* NULL handles and outputs */
    CHECK_OK(sa_column_from_i64(values, 4, NULL, NULL, NULL, &column));
    int64_t v = 0;
    SaSelection *selection = NULL;
    CHECK_STATUS(sa_column_len(NULL, &len), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `column` is NULL") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_column_len(column, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_column_get_i64(NULL, 0, &v, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_column_get_i64(column, 0, NULL, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_column_unpack_i64(column, 0, NULL, 2, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_column_filter_eq_i64(column, 1, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_column_filter_eq_i64(NULL, 1, &selection), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_column_filter_in_i64(column, NULL, 3, &selection), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_column_take_i64(column, NULL, 3, &v, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_column_sum_i128(column, NULL, &v), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_column_explanation(column, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_selection_count(NULL, &len), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_last_error_message(), "argument `selection` is NULL") == 0, "%s", sa_last_error_message());
    CHECK_STATUS(sa_column_filter_eq_utf8(column, "\xff", 1, &selection), SA_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sa_column_unpack_i64(column, SIZE_MAX, &v, 2, NULL), SA_STATUS_RANGE_OUT_OF_BOUNDS);
    size_t needed = 0;
    CHECK_STATUS(sa_column_unpack_utf8(column, 0, 1, (size_t[2]){0}, NULL, 0, &needed, NULL), SA_STATUS_TYPE_MISMATCH);
    CHECK_MESSAGE("reads Utf8 columns, but this column is Int64");
    char *placement = NULL;
    CHECK_OK(sa_column_placement(column, &placement));
    CHECK(placement && strcmp(placement, "os") == 0, "placement %s", placement);
    sa_string_free(placement);
    char *report = NULL;
    CHECK_OK(sa_column_memory_report_text(column, &report));
    CHECK(report && strlen(report) > 0, "memory report");
    sa_string_free(report);
    sa_column_free(column);
    sa_column_free(NULL);
    sa_selection_free(NULL);

    /* a null row read without `valid` is an error, not a made-up value */
    uint8_t valid[] = {0x0D}; /* rows 0, 2, 3 valid; row 1 null */
    CHECK_OK(sa_column_from_i64(values, 4, valid, NULL, NULL, &column));
    CHECK_OK(sa_column_get_i64(column, 0, &v, NULL));
    CHECK_STATUS(sa_column_get_i64(column, 1, &v, NULL), SA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE("row 1 is null");
    int64_t sum = 0;
    CHECK_OK(sa_column_sum_i64(column, &sum));
    CHECK(sum == 1 + 3 + 4, "sum skips nulls: %" PRId64, sum);
    sa_column_free(column);
    CHECK(strcmp(sa_status_name(SA_STATUS_OVERFLOW), "SA_STATUS_OVERFLOW") == 0, "name");
    CHECK(strcmp(sa_status_name(SA_STATUS_TYPE_MISMATCH), "SA_STATUS_TYPE_MISMATCH") == 0, "name");
    CHECK(strcmp(sa_status_name(SA_STATUS_UNSUPPORTED), "SA_STATUS_UNSUPPORTED") == 0, "name");
}

int main(void) {
    test_i64_columns();
    test_u64_columns();
    test_f64_columns();
    test_utf8_columns();
    test_bool_date_decimal_columns();
    test_errors();
    return finish("C ABI column tests");
}
