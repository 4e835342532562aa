package io.sqe.engine.exec.join;

import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.TestOptions;
import static io.sqe.engine.TestTables.appendFile;
import static io.sqe.engine.TestQueries.sorted;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.TestQueries;
import io.sqe.engine.session.Session;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Joins on integer keys return the same rows through {@link LongKeyHashJoin} as through Calcite's
 * runtime ({@code -Dsqe.exec.primitiveJoin=false}), over seeded random tables with NULL and
 * duplicate keys: inner, left, right, full, semi and anti joins on INTEGER, BIGINT and DATE keys and
 * on two keys, with other conditions on the matching pairs, with an empty side, with keys too wide
 * to pack (Calcite's runtime then runs), under a dynamic filter and in a parallel pipeline whose
 * parts share one build table.
 */
class LongKeyHashJoinTest {
  private static final org.apache.iceberg.Schema SCHEMA =
      new org.apache.iceberg.Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "i", Types.IntegerType.get()),
          Types.NestedField.optional(3, "l", Types.LongType.get()),
          Types.NestedField.optional(4, "d", Types.DateType.get()),
          Types.NestedField.optional(5, "j", Types.IntegerType.get()),
          Types.NestedField.optional(6, "w", Types.LongType.get()),
          Types.NestedField.optional(7, "v", Types.IntegerType.get()));
  private static final String[] OUTER_TYPES = {"join", "left join", "right join", "full join"};
  /** Conditions between {@code a} and {@code b}; the last two hold keys too wide to pack into one long. */
  private static final String[] CONDITIONS = {
    "a.i = b.i",
    "a.l = b.l",
    "a.d = b.d",
    "a.i = b.i and a.j = b.j",
    "a.l = b.l and a.d = b.d",
    "a.i = b.i and a.v < b.v",
    "a.i = b.i and a.j = b.j and a.v + b.v > 90",
    "a.w = b.w and a.i = b.i",
    "a.w = b.w and a.l = b.l",
  };
  private static final int PACKABLE_CONDITIONS = CONDITIONS.length - 2;

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.empty();
  private final AtomicInteger statements = new AtomicInteger();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    long seed = System.nanoTime();
    System.out.println("LongKeyHashJoinTest seed: " + seed);
    Random random = new Random(seed);
    long[] wideKeys = new long[6];
    for (int k = 0; k < wideKeys.length; k++) {
      wideKeys[k] = random.nextLong();
    }
    wideKeys[0] = Long.MIN_VALUE;
    wideKeys[1] = Long.MAX_VALUE;
    lake.catalog().namespaces().createNamespace(Namespace.of("s"));
    fill(lake.catalog().iceberg().createTable(TableIdentifier.of("s", "a"), SCHEMA), 4, 250, 0, random, wideKeys);
    fill(lake.catalog().iceberg().createTable(TableIdentifier.of("s", "b"), SCHEMA), 2, 150, 1_000_000, random, wideKeys);
    fill(lake.catalog().iceberg().createTable(TableIdentifier.of("s", "c"), SCHEMA), 1, 12, 2_000_000, random, wideKeys);
    lake.catalog().iceberg().createTable(TableIdentifier.of("s", "e"), SCHEMA);
    engine = lake.engine(TestOptions.WIDE);
    // The row runtime's joins are under test: the columnar ones have ColumnarJoinTest.
    session = TestOptions.set(TestOptions.defaultParallel(EmbeddedLake.session("test")), PlannerOptions.COLUMNAR, false);
  }


  @Test
  void innerAndOuterJoinsReturnCalcitesRows() {
    session = TestOptions.parallel(session, 1, PlannerOptions.DEFAULT_PARALLEL_MIN_ROWS);
    for (String type : OUTER_TYPES) {
      for (int c = 0; c < CONDITIONS.length; c++) {
        String sql = "select a.id, a.v, b.id, b.v from s.a " + type + " s.b on " + CONDITIONS[c];
        TestQueries.Result primitive = compare(sql);
        if (c < PACKABLE_CONDITIONS) {
          assertThat(primitive.stats().joinTablesBuilt()).as(sql).isEqualTo(1);
        } else {
          assertThat(primitive.stats().joinTablesBuilt()).as(sql).isZero();
        }
      }
    }
  }

  @Test
  void subqueriesReturnCalcitesRows() {
    session = TestOptions.parallel(session, 1, PlannerOptions.DEFAULT_PARALLEL_MIN_ROWS);
    List<String> queries =
        List.of(
            "select id from s.a where i in (select i from s.b)",
            "select id from s.a where exists (select 1 from s.b where b.l = a.l)",
            "select id from s.a where exists (select 1 from s.b where b.d = a.d and b.v > a.v)",
            "select id from s.a where not exists (select 1 from s.b where b.i = a.i)",
            "select id from s.a where not exists (select 1 from s.b where b.l = a.l and b.d = a.d)",
            "select id from s.a where not exists (select 1 from s.b where b.i = a.i and b.v > a.v)",
            "select id from s.a where i not in (select i from s.b where i is not null)",
            "select id from s.a where exists (select 1 from s.b where b.w = a.w and b.l = a.l)",
            "select id from s.c where not exists (select 1 from s.a where c.d = a.d)",
            "select id from s.c where not exists (select 1 from s.a where c.w = a.w and c.j = a.j)");
    for (String sql : queries) {
      compare(sql);
    }
    // The few keys of c reduce a by a semi-join before the aggregate (see SemiJoinReduction).
    for (String sql :
        List.of(
            "select id from s.c where exists (select 1 from s.a where c.i = a.i)",
            "select id from s.c where exists (select 1 from s.a where c.i = a.i and c.j = a.j)")) {
      assertThat(TestQueries.plan(engine, session, sql)).contains("joinType=[semi]");
      assertThat(compare(sql).stats().joinTablesBuilt()).as(sql).isEqualTo(2);
    }
  }

  @Test
  void anEmptySideReturnsCalcitesRows() {
    session = TestOptions.parallel(session, 1, PlannerOptions.DEFAULT_PARALLEL_MIN_ROWS);
    for (String type : OUTER_TYPES) {
      compare("select a.id, e.id from s.a " + type + " s.e on a.i = e.i and a.j = e.j");
      compare("select a.id, e.id from s.e " + type + " s.a on a.l = e.l");
    }
    compare("select id from s.a where exists (select 1 from s.e where e.i = a.i)");
    compare("select id from s.a where not exists (select 1 from s.e where e.i = a.i and e.v > a.v)");
    compare("select id from s.e where exists (select 1 from s.a where e.i = a.i)");
    compare("select id from s.e where not exists (select 1 from s.a where e.d = a.d)");
  }

  @Test
  void aDynamicFilterStillNarrowsTheProbeScan() {
    session = TestOptions.parallel(session, 1, PlannerOptions.DEFAULT_PARALLEL_MIN_ROWS);
    String sql = "select a.id, b.id from s.a join (select * from s.b where v < 30) b on a.i = b.i";
    TestQueries.Result primitive = compare(sql);
    assertThat(primitive.stats().dynamicFiltersApplied()).isPositive();
    assertThat(primitive.stats().joinTablesBuilt()).isEqualTo(1);
  }

  @Test
  void thePartsOfAParallelPipelineShareOneBuildTable() {
    session = TestOptions.parallel(session, 3, 0);
    for (String condition : List.of("a.i = b.i", "a.i = b.i and a.j = b.j", "a.l = b.l and a.v < b.v")) {
      for (String type : List.of("join", "left join")) {
        String sql = "select count(*), sum(a.v), sum(b.v), count(b.id) from s.a " + type + " s.b on " + condition;
        assertThat(TestQueries.plan(engine, session, sql)).as(sql).contains("SharedInput");
        TestQueries.Result primitive = compare(sql);
        assertThat(primitive.stats().joinTablesBuilt()).as(sql).isEqualTo(1);
      }
    }
    compare("select count(*), sum(a.v) from s.a where exists (select 1 from s.b where b.i = a.i and b.d = a.d)");
    compare("select count(*), sum(a.v) from s.a where not exists (select 1 from s.b where b.l = a.l)");
  }

  /** Runs {@code sql} through both runtimes and checks they return the same rows; the primitive run's result. */
  private TestQueries.Result compare(String sql) {
    session = TestOptions.set(session, ExecutionOptions.LONG_KEY_JOIN, false);
    TestQueries.Result calcite = TestQueries.run(engine, session, comment("calcite") + sql);
    session = TestOptions.set(session, ExecutionOptions.LONG_KEY_JOIN, true);
    TestQueries.Result primitive = TestQueries.run(engine, session, comment("primitive") + sql);
    assertThat(calcite.stats().resultCached()).isFalse();
    assertThat(primitive.stats().resultCached()).isFalse();
    assertThat(calcite.stats().joinTablesBuilt()).as(sql).isZero();
    assertThat(sorted(primitive.rows())).as(sql).isEqualTo(sorted(calcite.rows()));
    return primitive;
  }

  private String comment(String runtime) {
    return "/* " + statements.incrementAndGet() + " " + runtime + " */ ";
  }

  private static void fill(Table table, int files, int rowsPerFile, long firstId, Random random, long[] wideKeys) {
    for (int file = 0; file < files; file++) {
      List<Record> rows = new ArrayList<>();
      for (int r = 0; r < rowsPerFile; r++) {
        Record record = GenericRecord.create(SCHEMA);
        record.setField("id", firstId + (long) file * rowsPerFile + r);
        record.setField("i", maybeNull(random, random.nextInt(60) - 10));
        record.setField("l", maybeNull(random, (random.nextInt(80) - 20) * 3_000_000_019L));
        record.setField("d", maybeNull(random, LocalDate.ofEpochDay(18_000 + random.nextInt(90))));
        record.setField("j", maybeNull(random, random.nextInt(4)));
        record.setField("w", maybeNull(random, wideKeys[random.nextInt(wideKeys.length)]));
        record.setField("v", maybeNull(random, random.nextInt(100)));
        rows.add(record);
      }
      appendFile(table, rows);
    }
  }

  private static Object maybeNull(Random random, Object value) {
    return random.nextInt(10) == 0 ? null : value;
  }
}
