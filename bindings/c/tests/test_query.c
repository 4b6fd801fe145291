/* test_query.c - tests of tables and SQL in the C ABI (sa_catalog_*, sa_query) from plain C: a
 * query's Arrow C stream is compared with a plain C evaluation over the table's own Arrow export
 * (TPC-H lineitem at SF 0.01), tables go through an Arrow stream import and a saved file and give
 * the same answers, and every error path (bad SQL with its place, unknown tables, corrupted
 * files, NULL arguments) returns its status. Run under valgrind by `make test-ffi`: every stream,
 * schema and array is released. Exits 0 when all checks pass. */
#include "check.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* The child of a record-batch schema (or array) called `name`, or -1. */
static int64_t child_index(const struct ArrowSchema *schema, const char *name) {
    for (int64_t i = 0; i < schema->n_children; i++) {
        if (strcmp(schema->children[i]->name, name) == 0) return i;
    }
    return -1;
}

/* Plain C: sum(l_quantity) and count(*) per l_returnflag ('A', 'N', 'R') over an exported
 * stream of lineitem. Returns the rows read. */
static int64_t reference(struct ArrowArrayStream *stream, int64_t sums[3], int64_t counts[3]) {
    struct ArrowSchema schema;
    CHECK(stream->get_schema(stream, &schema) == 0, "get_schema failed");
    int64_t flag = child_index(&schema, "l_returnflag"), quantity = child_index(&schema, "l_quantity");
    CHECK(flag >= 0 && quantity >= 0, "lineitem lacks its columns");
    CHECK(strcmp(schema.children[flag]->format, "u") == 0, "l_returnflag is utf8, not %s", schema.children[flag]->format);
    CHECK(strcmp(schema.children[quantity]->format, "l") == 0, "l_quantity is int64, not %s", schema.children[quantity]->format);
    int64_t rows = 0;
    for (;;) {
        struct ArrowArray batch;
        CHECK(stream->get_next(stream, &batch) == 0, "get_next failed: %s", stream->get_last_error(stream));
        if (batch.release == NULL) break;
        const struct ArrowArray *f = batch.children[flag], *q = batch.children[quantity];
        const int32_t *offsets = (const int32_t *)f->buffers[1] + f->offset;
        const char *text = f->buffers[2];
        const int64_t *values = (const int64_t *)q->buffers[1] + q->offset;
        for (int64_t r = 0; r < batch.length; r++) {
            CHECK(offsets[r + 1] - offsets[r] == 1, "a return flag of one letter");
            const char *at = strchr("ANR", text[offsets[r]]);
            CHECK(at != NULL, "flag %c", text[offsets[r]]);
            if (at == NULL) continue;
            sums[at - "ANR"] += values[r];
            counts[at - "ANR"]++;
        }
        rows += batch.length;
        batch.release(&batch);
    }
    schema.release(&schema);
    stream->release(stream);
    return rows;
}

/* Runs the grouped query over table `table` and compares it with the reference. */
static void check_grouped(const SaCatalog *catalog, const char *table, const int64_t sums[3], const int64_t counts[3]) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "select l_returnflag, sum(l_quantity) as q, count(*) as n from %s group by l_returnflag order by l_returnflag", table);
    struct ArrowArrayStream result;
    CHECK_OK(sa_query(catalog, sql, 1, &result));
    struct ArrowSchema schema;
    CHECK(result.get_schema(&result, &schema) == 0, "get_schema");
    CHECK(schema.n_children == 3, "three columns, not %" PRId64, schema.n_children);
    CHECK(strcmp(schema.children[0]->format, "u") == 0 && strcmp(schema.children[2]->format, "l") == 0,
          "formats %s %s", schema.children[0]->format, schema.children[2]->format);
    /* sum(int) is exact in 128 bits: int64 when every sum fits. */
    CHECK(strcmp(schema.children[1]->format, "l") == 0, "sum format %s", schema.children[1]->format);
    struct ArrowArray batch;
    CHECK(result.get_next(&result, &batch) == 0, "get_next");
    CHECK(batch.length == 3, "three groups, not %" PRId64, batch.length);
    if (batch.length == 3) {
        const int32_t *offsets = batch.children[0]->buffers[1];
        const char *text = batch.children[0]->buffers[2];
        const int64_t *q = batch.children[1]->buffers[1], *n = batch.children[2]->buffers[1];
        for (int g = 0; g < 3; g++) {
            CHECK(text[offsets[g]] == "ANR"[g], "group %d is %c", g, text[offsets[g]]);
            CHECK(q[g] == sums[g], "%s: sum %" PRId64 " against %" PRId64, table, q[g], sums[g]);
            CHECK(n[g] == counts[g], "%s: count %" PRId64 " against %" PRId64, table, n[g], counts[g]);
        }
    }
    batch.release(&batch);
    CHECK(result.get_next(&result, &batch) == 0 && batch.release == NULL, "one batch only");
    schema.release(&schema);
    result.release(&result);
}

int main(void) {
    SaCatalog *catalog = NULL;
    CHECK_OK(sa_catalog_new(&catalog));
    CHECK_OK(sa_catalog_add_tpch(catalog, 0.01));
    uint64_t rows = 0;
    CHECK_OK(sa_catalog_table_rows(catalog, "lineitem", &rows));
    CHECK(rows > 50000, "lineitem has %" PRIu64 " rows", rows);

    /* The reference, from the table's own export. */
    int64_t sums[3] = {0, 0, 0}, counts[3] = {0, 0, 0};
    struct ArrowArrayStream stream;
    CHECK_OK(sa_catalog_export_arrow_stream(catalog, "lineitem", &stream));
    CHECK(reference(&stream, sums, counts) == (int64_t)rows, "the export has every row");
    check_grouped(catalog, "lineitem", sums, counts);

    /* An Arrow stream imported as a table, and a saved file reloaded. */
    CHECK_OK(sa_catalog_export_arrow_stream(catalog, "lineitem", &stream));
    CHECK_OK(sa_catalog_import_arrow_stream(catalog, "imported", &stream));
    CHECK(stream.release == NULL, "the stream was taken over");
    check_grouped(catalog, "imported", sums, counts);
    char path[128];
    snprintf(path, sizeof path, "/tmp/sa-test-query-%d.sat", (int)getpid());
    CHECK_OK(sa_catalog_save(catalog, "lineitem", path));
    CHECK_OK(sa_catalog_load(catalog, "saved", path));
    check_grouped(catalog, "saved", sums, counts);

    /* A corrupted file: one flipped byte is a load error naming the file. */
    FILE *file = fopen(path, "r+b");
    CHECK(file != NULL, "reopen %s", path);
    if (file != NULL) {
        fseek(file, 4096, SEEK_SET);
        int byte = fgetc(file);
        fseek(file, 4096, SEEK_SET);
        fputc(byte ^ 0x40, file);
        fclose(file);
    }
    CHECK_STATUS(sa_catalog_load(catalog, "broken", path), SA_STATUS_LOAD);
    CHECK_MESSAGE("corrupted");
    CHECK_MESSAGE(path);
    remove(path);

    /* EXPLAIN: one text column. */
    struct ArrowArrayStream result;
    CHECK_OK(sa_query(catalog, "explain select count(*) from lineitem where l_quantity < 5", 0, &result));
    struct ArrowSchema schema;
    CHECK(result.get_schema(&result, &schema) == 0 && schema.n_children == 1, "explain has one column");
    CHECK(strcmp(schema.children[0]->name, "plan") == 0, "named plan");
    schema.release(&schema);
    result.release(&result);

    /* Errors. */
    memset(&result, 0, sizeof result);
    CHECK_STATUS(sa_query(catalog, "select l_nothing\nfrom lineitem", 1, &result), SA_STATUS_SQL);
    CHECK_MESSAGE("unknown column l_nothing (line 1, column 8)");
    CHECK(result.release == NULL, "nothing written on failure");
    CHECK_STATUS(sa_query(catalog, "select * from nowhere", 1, &result), SA_STATUS_SQL);
    CHECK_MESSAGE("unknown table nowhere");
    CHECK_STATUS(sa_query(catalog, "selec 1", 1, &result), SA_STATUS_SQL);
    CHECK_MESSAGE("syntax error");
    CHECK_STATUS(sa_query(catalog, "select sum(l_quantity) over () from lineitem", 1, &result), SA_STATUS_SQL);
    CHECK_STATUS(sa_catalog_export_arrow_stream(catalog, "nowhere", &stream), SA_STATUS_SQL);
    CHECK_MESSAGE("unknown table nowhere");
    CHECK_STATUS(sa_catalog_load(catalog, "t", "/nonexistent/t.parquet"), SA_STATUS_LOAD);
    CHECK_MESSAGE("/nonexistent/t.parquet");
    CHECK_STATUS(sa_catalog_load(catalog, "t", "/tmp/t.unknown"), SA_STATUS_LOAD);
    CHECK_MESSAGE("unknown file kind");
    CHECK_STATUS(sa_catalog_add_tpch(catalog, -1.0), SA_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sa_query(NULL, "select 1", 1, &result), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_query(catalog, NULL, 1, &result), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_query(catalog, "select 1", 1, NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_catalog_import_arrow_stream(catalog, "t", NULL), SA_STATUS_NULL_POINTER);
    CHECK_STATUS(sa_catalog_load(catalog, NULL, path), SA_STATUS_NULL_POINTER);
    CHECK(strcmp(sa_status_name(SA_STATUS_SQL), "SA_STATUS_SQL") == 0, "status name");
    sa_catalog_free(catalog);
    sa_catalog_free(NULL);
    return finish("test_query");
}
