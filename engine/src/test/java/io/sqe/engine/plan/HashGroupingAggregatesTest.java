package io.sqe.engine.plan;

import io.sqe.engine.TestOptions;
import static io.sqe.engine.TestTables.appendFile;
import static io.sqe.engine.TestQueries.sorted;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.TestQueries;
import io.sqe.engine.session.Session;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.calcite.runtime.Hook;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * GROUP BY and DISTINCT on SQE's hash grouping return the rows Calcite's own grouping returns,
 * over a seeded random table: int, bigint, date, string and decimal keys, several keys at once,
 * NULL keys, thousands of groups, DISTINCT rows and aggregates, grouping sets (left to Calcite),
 * empty inputs, on one thread and with parallel parts (whose final aggregate combines the parts').
 */
class HashGroupingAggregatesTest {
  private static final org.apache.iceberg.Schema T =
      new org.apache.iceberg.Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "i", Types.IntegerType.get()),
          Types.NestedField.optional(3, "b", Types.LongType.get()),
          Types.NestedField.optional(4, "d", Types.DateType.get()),
          Types.NestedField.optional(5, "s", Types.StringType.get()),
          Types.NestedField.optional(6, "m", Types.DecimalType.of(12, 2)),
          Types.NestedField.required(7, "g", Types.IntegerType.get()));
  private static final int FILES = 4;
  private static final int ROWS_PER_FILE = 5_000;

  private static final List<String> QUERIES =
      List.of(
          "select i, count(*), sum(m) from s.t group by i",
          "select b, count(*), min(s), max(m) from s.t group by b",
          "select d, count(*), max(i) from s.t group by d",
          "select s, sum(m), avg(m), count(i) from s.t group by s",
          "select m, count(*) from s.t group by m",
          "select i, g, count(*) from s.t group by i, g",
          "select g, i from s.t where i is not null group by g, i",
          "select b, g, sum(i) from s.t group by b, g",
          "select g, s, d, sum(b), min(m) from s.t group by g, s, d",
          "select g, count(*) from s.t group by g having count(*) > 10",
          "select distinct i from s.t",
          "select distinct g, i from s.t",
          "select distinct s, m from s.t",
          "select g, count(distinct i), count(distinct s) from s.t group by g",
          "select count(distinct b) from s.t",
          "select c, count(*) from (select i, count(*) as c from s.t group by i) group by c",
          "select g, s, count(*) from s.t group by grouping sets ((g), (s), ())",
          "select g, i, sum(m) from s.t where g < 3 group by rollup (g, i)",
          "select count(*), sum(m) from s.t where i < -5",
          "select g, count(*), sum(m) from s.t where i < -5 group by g",
          "select distinct g, s from s.t where i < -5");

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.empty();
  private final AtomicInteger statements = new AtomicInteger();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    long seed = System.nanoTime();
    System.out.println("HashGroupingAggregatesTest seed: " + seed);
    Random random = new Random(seed);
    lake.catalog().namespaces().createNamespace(Namespace.of("s"));
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "t"), T);
    for (int file = 0; file < FILES; file++) {
      List<Record> rows = new ArrayList<>();
      for (int n = 0; n < ROWS_PER_FILE; n++) {
        Record r = GenericRecord.create(T);
        r.setField("id", (long) file * ROWS_PER_FILE + n);
        r.setField("i", random.nextInt(20) == 0 ? null : random.nextInt(6_000));
        // Beyond 32 bits, so that pairs with it do not fit one long.
        r.setField("b", random.nextInt(20) == 0 ? null : (random.nextInt(2_000) - 1_000) * 5_000_000L);
        r.setField("d", random.nextInt(30) == 0 ? null : LocalDate.of(2020, 1, 1).plusDays(random.nextInt(1_000)));
        r.setField("s", random.nextInt(20) == 0 ? null : "s" + random.nextInt(300));
        r.setField("m", random.nextInt(20) == 0 ? null : BigDecimal.valueOf(random.nextInt(800), 2));
        r.setField("g", random.nextInt(7));
        rows.add(r);
      }
      appendFile(table, rows);
    }
    engine = lake.engine(TestOptions.WIDE);
    session = TestOptions.defaultParallel(EmbeddedLake.session("test"));
  }


  @Test
  void resultsEqualCalcitesGrouping() {
    for (int parallelism : new int[] {1, 3}) {
      for (String sql : QUERIES) {
        List<List<Object>> calcite = sorted(run(sql, parallelism, false));
        List<List<Object>> hash = sorted(run(sql, parallelism, true));
        assertThat(hash).as("%s, parallelism %d", sql, parallelism).isEqualTo(calcite);
        if (sql.contains("i < -5")) {
          // No input rows: one row for the global aggregate, none for a grouped one.
          assertThat(hash).as(sql).hasSize(sql.startsWith("select count(*)") ? 1 : 0);
        } else {
          assertThat(hash).as(sql).isNotEmpty();
        }
      }
    }
  }

  @Test
  void manyGroupsAndNullKeysAreAllThere() {
    // Invariants, not only agreement: every row is in one group, and NULL is a group of its own.
    for (boolean on : new boolean[] {true, false}) {
      List<List<Object>> groups = run("select i, count(*) from s.t group by i", 1, on);
      long rows = groups.stream().mapToLong(row -> (Long) row.get(1)).sum();
      assertThat(rows).isEqualTo((long) FILES * ROWS_PER_FILE);
      assertThat(groups.stream().filter(row -> row.get(0) == null).count()).isEqualTo(1);
      assertThat(groups).hasSizeGreaterThan(4_000);
      List<List<Object>> distinct = run("select count(*) from (select distinct i, g from s.t)", 1, on);
      List<List<Object>> grouped = run("select count(*) from (select i, g from s.t group by i, g)", 1, on);
      assertThat(distinct).isEqualTo(grouped);
    }
  }

  @Test
  void aggregatesOverJoinsAndCalcsEqualCalcites() {
    // Aggregates above a join, through Calcs with arithmetic and conditions, with the parallel
    // parts' partial sums (DECIMAL(38, 2), wider than a long) aggregated again.
    List<String> queries =
        List.of(
            "select a.g, sum(a.m * 3 - b.m), count(*), count(b.i), min(b.m), max(a.d) from s.t a join s.t b on a.i = b.i"
                + " where b.g <> a.g group by a.g",
            "select a.s, sum(b.m), sum(a.b) from s.t a join s.t b on a.id = b.id where a.m > 1.50 or b.i is null group by a.s",
            "select a.i, b.g, count(*) from s.t a join s.t b on a.id = b.id + 1 group by a.i, b.g",
            "select count(*), sum(a.m), min(b.d) from s.t a join s.t b on a.id = b.id where a.i < -5",
            "select distinct a.g, b.s from s.t a join s.t b on a.i = b.i",
            // Values wider than a long.
            "select g, sum(x), min(x), max(x), count(x) from (select a.g, a.m * 100000000000000000 as x from s.t a"
                + " join s.t b on a.id = b.id) group by g");
    for (int parallelism : new int[] {1, 3}) {
      for (String sql : queries) {
        List<List<Object>> calcite = sorted(run(sql, parallelism, false));
        List<List<Object>> hash = sorted(run(sql, parallelism, true));
        assertThat(hash).as("%s, parallelism %d", sql, parallelism).isEqualTo(calcite).isNotEmpty();
      }
    }
  }

  @Test
  void theGeneratedCodeCallsHashGroupingOnlyWhenOn() {
    String grouped = "select g, s, sum(m) from s.t group by g, s";
    String distinct = "select distinct g, i from s.t";
    String sets = "select g, s, count(*) from s.t group by grouping sets ((g), (s))";
    String on = code(grouped, true);
    assertThat(on).contains("HashGrouping.groupBy(");
    assertThat(on.replace("HashGrouping.groupBy(", "")).doesNotContain(".groupBy(");
    assertThat(code(grouped, false)).doesNotContain("HashGrouping").contains(".groupBy(");
    on = code(distinct, true);
    assertThat(on).contains("HashGrouping.distinct(");
    assertThat(on.replace("HashGrouping.distinct(", "")).doesNotContain(".distinct(");
    assertThat(code(distinct, false)).doesNotContain("HashGrouping").contains(".distinct(");
    // Grouping sets stay Calcite's.
    assertThat(code(sets, true)).doesNotContain("HashGrouping").contains("groupByMultiple(");
  }

  /**
   * The Java code Calcite generates for {@code sql} on the row runtime (a columnar plan's row form
   * is generated only if something runs it).
   */
  private String code(String sql, boolean on) {
    session = TestOptions.parallel(session, 1, PlannerOptions.DEFAULT_PARALLEL_MIN_ROWS);
    session = TestOptions.set(session, PlannerOptions.HASH_GROUPING, on);
    session = TestOptions.set(session, PlannerOptions.COLUMNAR, false);
    StringBuilder code = new StringBuilder();
    // Every thread's: statements are planned on planning threads, not the test's.
    try (Hook.Closeable hook = Hook.JAVA_PLAN.add((String s) -> code.append(s))) {
      engine.prepare(session, comment(1, on) + sql);
    }
    assertThat(code).as(sql).isNotEmpty();
    return code.toString().replace("io.sqe.engine.exec.grouping.HashGrouping.", "HashGrouping.");
  }

  private List<List<Object>> run(String sql, int parallelism, boolean on) {
    // Every file a part of its own when parallel.
    session = TestOptions.parallel(session, parallelism, parallelism == 1 ? PlannerOptions.DEFAULT_PARALLEL_MIN_ROWS : 0);
    session = TestOptions.set(session, PlannerOptions.HASH_GROUPING, on);
    return TestQueries.rows(engine, session, comment(parallelism, on) + sql);
  }

  /** A fresh comment keeps plans and results apart in the caches. */
  private String comment(int parallelism, boolean on) {
    return "/* " + statements.incrementAndGet() + " parallelism " + parallelism + " hash " + on + " */ ";
  }
}
