/* check.h - the checks every C test shares: CHECK counts and
 * reports a failed condition, CHECK_STATUS compares a call's status (printing the library's
 * message), CHECK_MESSAGE looks for a piece of text in the last error message. */
#ifndef SMARTARRAYS_TEST_CHECK_H
#define SMARTARRAYS_TEST_CHECK_H

#include <smartarrays.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        checks++;                                                                          \
        if (!(cond)) {                                                                     \
            failures++;                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
        }                                                                                  \
    } while (0)

#define CHECK_STATUS(call, expected)                                                                \
    do {                                                                                            \
        SaStatus got_ = (call);                                                                     \
        CHECK(got_ == (expected), "%s returned %s, expected %s (%s)", #call, sa_status_name(got_), \
              sa_status_name(expected), sa_last_error_message());                                   \
    } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, SA_STATUS_OK)

#define CHECK_MESSAGE(text) \
    CHECK(strstr(sa_last_error_message(), (text)) != NULL, "message \"%s\" lacks \"%s\"", sa_last_error_message(), (text))

static int finish(const char *suite) {
    if (failures != 0) {
        fprintf(stderr, "%s: %d of %d checks failed\n", suite, failures, checks);
        return 1;
    }
    printf("%s: all %d checks passed\n", suite, checks);
    return 0;
}

static const size_t LENGTHS[] = {0, 1, 63, 64, 65, 1023, 1025};
#define N_LENGTHS (sizeof LENGTHS / sizeof LENGTHS[0])

#endif
