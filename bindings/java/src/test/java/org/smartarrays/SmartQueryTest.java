// SmartQuery against a plain Java reference: a grouped TPC-H query's Arrow result is compared with
// sums and counts computed in Java over the table's own Arrow export; tables go through an Arrow
// stream import and a saved file and give the same answers; every type a result can hold is read
// back; bad SQL, unknown tables and corrupted files throw with their status and place.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmartQueryTest {
    static SmartQuery tables;

    @BeforeAll
    static void generate() {
        tables = SmartQuery.create().addTpch(0.01);
    }

    @AfterAll
    static void free() {
        tables.close();
    }

    static final String GROUPED = "select l_returnflag, sum(l_quantity) as q, count(*) as n, sum(l_extendedprice) as p from %s group by l_returnflag order by l_returnflag";

    /** flag -> {sum of quantities, count, sum of prices in cents}, from the exported table. */
    static Map<String, long[]> reference(SmartQuery.Result lineitem) {
        int flag = lineitem.names().indexOf("l_returnflag");
        int quantity = lineitem.names().indexOf("l_quantity");
        int price = lineitem.names().indexOf("l_extendedprice");
        Map<String, long[]> groups = new TreeMap<>();
        for (int r = 0; r < lineitem.rows(); r++) {
            long[] g = groups.computeIfAbsent((String) lineitem.columns().get(flag).get(r), k -> new long[3]);
            g[0] += (Long) lineitem.columns().get(quantity).get(r);
            g[1] += 1;
            g[2] += ((BigDecimal) lineitem.columns().get(price).get(r)).unscaledValue().longValueExact();
        }
        return groups;
    }

    static void checkGrouped(String table, Map<String, long[]> expected) {
        try (SmartQuery.ArrowStream stream = tables.query(GROUPED.formatted(table), 1)) {
            SmartQuery.Result result = stream.read();
            assertEquals(List.of("l_returnflag", "q", "n", "p"), result.names());
            assertEquals(List.of("u", "l", "l", "d:38,2"), result.formats());
            assertEquals(expected.size(), result.rows());
            int r = 0;
            for (Map.Entry<String, long[]> e : expected.entrySet()) {
                assertEquals(e.getKey(), result.columns().get(0).get(r));
                assertEquals(e.getValue()[0], result.columns().get(1).get(r), table);
                assertEquals(e.getValue()[1], result.columns().get(2).get(r), table);
                assertEquals(BigDecimal.valueOf(e.getValue()[2], 2), result.columns().get(3).get(r), table);
                r++;
            }
        }
    }

    @Test
    void queriesMatchAPlainReferenceThroughEveryPath(@TempDir Path dir) {
        SmartQuery.Result lineitem = tables.export("lineitem").read();
        assertEquals(tables.rows("lineitem"), lineitem.rows());
        Map<String, long[]> expected = reference(lineitem);
        assertEquals(List.of("A", "N", "R"), List.copyOf(expected.keySet()));
        checkGrouped("lineitem", expected);
        tables.importStream("imported", tables.export("lineitem"));
        checkGrouped("imported", expected);
        Path saved = dir.resolve("lineitem.sat");
        tables.save("lineitem", saved);
        tables.load("saved", saved);
        checkGrouped("saved", expected);
    }

    @Test
    void everyResultTypeReadsBack() {
        try (SmartQuery.ArrowStream stream = tables.query(
                "select min(o_orderdate) as d, avg(o_totalprice) as a, count(*) as n, sum(o_totalprice) as t from orders where o_orderkey < 0")) {
            SmartQuery.Result result = stream.read();
            assertEquals(1, result.rows());
            assertEquals(java.util.Arrays.asList(null, null, 0L, null),
                    result.columns().stream().map(c -> c.get(0)).toList());
        }
        try (SmartQuery.ArrowStream stream = tables.query("select min(o_orderdate) as d, avg(o_shippriority) as a from orders")) {
            SmartQuery.Result result = stream.read();
            assertEquals(List.of("tdD", "g"), result.formats());
            assertEquals(LocalDate.of(1992, 1, 1), result.columns().get(0).get(0));
            assertEquals(0.0, (Double) result.columns().get(1).get(0));
        }
        try (SmartQuery.ArrowStream stream = tables.query("explain select count(*) from lineitem")) {
            SmartQuery.Result plan = stream.read();
            assertEquals(List.of("plan"), plan.names());
            assertTrue(plan.rows() > 0);
        }
    }

    @Test
    void badInputThrowsWithItsStatusAndPlace(@TempDir Path dir) throws Exception {
        SmartArrayException e = assertThrows(SmartArrayException.class, () -> tables.query("select l_nothing\nfrom lineitem"));
        assertEquals(SmartArrayException.Status.SQL, e.status());
        assertTrue(e.getMessage().contains("unknown column l_nothing (line 1, column 8)"), e.getMessage());
        e = assertThrows(SmartArrayException.class, () -> tables.query("select * from nowhere"));
        assertEquals(SmartArrayException.Status.SQL, e.status());
        e = assertThrows(SmartArrayException.class, () -> tables.export("nowhere"));
        assertTrue(e.getMessage().contains("unknown table nowhere"), e.getMessage());
        e = assertThrows(SmartArrayException.class, () -> tables.load("t", dir.resolve("missing.parquet")));
        assertEquals(SmartArrayException.Status.LOAD, e.status());
        Path saved = dir.resolve("nation.sat");
        tables.save("nation", saved);
        try (RandomAccessFile file = new RandomAccessFile(saved.toFile(), "rw")) {
            file.seek(100);
            int b = file.read();
            file.seek(100);
            file.write(b ^ 0x20);
        }
        e = assertThrows(SmartArrayException.class, () -> tables.load("broken", saved));
        assertEquals(SmartArrayException.Status.LOAD, e.status());
        assertTrue(e.getMessage().contains("corrupted"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> tables.query("select 1", -1));
        e = assertThrows(SmartArrayException.class, () -> tables.addTpch(0));
        assertEquals(SmartArrayException.Status.INVALID_ARGUMENT, e.status());
    }
}
