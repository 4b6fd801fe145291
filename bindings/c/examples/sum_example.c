/* sum_example.c - the smartarrays C ABI in a few lines: build an array from a C buffer with an
 * automatic bit width, read it back, sum it in parallel and print where its pages are.
 * Usage: sum_example [values]   (default 10000000) */
#include <smartarrays.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Prints the failed call's status and message and exits. */
static void check(SaStatus status, const char *what) {
    if (status != SA_STATUS_OK) {
        fprintf(stderr, "%s failed: %s: %s\n", what, sa_status_name(status), sa_last_error_message());
        exit(1);
    }
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 10000000;
    uint64_t *values = malloc((n ? n : 1) * sizeof *values);
    if (values == NULL) {
        return 1;
    }
    uint64_t expected = 0;
    for (size_t i = 0; i < n; i++) {
        values[i] = (i * 7919) % 1000000; /* fits in 20 bits */
        expected += values[i];
    }

    SaArray *array = NULL;
    check(sa_array_from_u64(values, n, "interleaved", 0, &array), "sa_array_from_u64");
    free(values); /* the array holds its own copy */

    uint32_t bits = 0;
    size_t packed = 0, memory = 0;
    uint64_t sum = 0, max = 0;
    check(sa_array_bits(array, &bits), "sa_array_bits");
    check(sa_array_packed_bytes(array, &packed), "sa_array_packed_bytes");
    check(sa_array_memory_bytes(array, &memory), "sa_array_memory_bytes");
    check(sa_array_sum(array, &sum), "sa_array_sum");
    if (n > 0) {
        check(sa_array_max(array, &max), "sa_array_max");
    }
    printf("smartarrays %s: %zu values at %" PRIu32 " bits (%zu bytes packed, %zu mapped), sum %" PRIu64 ", max %" PRIu64 "\n",
           sa_version(), n, bits, packed, memory, sum, max);

    char *report = NULL;
    check(sa_array_placement_report_text(array, &report), "sa_array_placement_report_text");
    fputs(report, stdout);
    sa_string_free(report);

    /* Errors come back as status codes with a message, never as crashes. */
    SaStatus status = sa_array_set(array, n, 1);
    printf("set past the end: %s (%s)\n", sa_status_name(status), sa_last_error_message());

    sa_array_free(array);
    if (sum != expected) {
        fprintf(stderr, "wrong sum: %" PRIu64 " != %" PRIu64 "\n", sum, expected);
        return 1;
    }
    return 0;
}
