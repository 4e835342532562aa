package io.sqe.engine;

import io.sqe.engine.plan.PlannerOptions;
import static io.sqe.engine.TestQueries.sorted;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.iceberg.ScanAggregation;
import io.sqe.engine.session.Session;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Aggregates folded into the Iceberg scan return exactly what the unfolded plan returns: over a
 * seeded random table of several Parquet files with several row groups each, NULLs, dictionary and
 * plain-encoded strings, decimals of different scales, sums and products beyond a long, filters
 * that drop everything, delete files (read by the row reader), parallel parts or not, and a join
 * whose dynamic filter reaches the folded scan.
 */
class ScanAggregationTest {
  private static final List<String> COLORS = List.of("red", "green", "blue", "cyan", "magenta", "yellow");

  /** Queries whose aggregate the scan computes. */
  private static final List<String> FOLDED =
      List.of(
          "select color, count(*), count(i), sum(amount), sum(amount * (1 - rate)), min(amount), max(rate), min(day), max(day),"
              + " sum(i), avg(amount), count(label) from t group by color",
          "select color, flag, sum(huge), sum(huge * amount), max(huge * huge), count(*) from t group by color, flag",
          "select label, sum(amount), count(*) from t where day >= date '1995-01-01' group by label",
          "select i, day, sum(amount), min(l) from t group by i, day",
          "select sum(amount * rate), count(*), min(huge), max(huge), sum(l) from t"
              + " where amount between 10 and 500 and (rate < 0 or i is null)",
          "select sum(amount), count(*), min(day) from t where day < date '1900-01-01'",
          "select color, sum(amount) from t where day < date '1900-01-01' group by color",
          "select l, count(*) from t group by l",
          "select amount, rate, count(*) from t group by amount, rate",
          "select color, sum(amount + rate), sum(amount - 2.5) from t where not (i <> 5) or amount > 100 or rate is null group by color",
          "select flag, sum(cast(i as decimal(20, 3)) * rate), count(*) from t where i is not null and day <> date '1996-02-29' group by flag",
          "select count(*) from t where amount > 0",
          "select color, count(distinct i) from t group by color");

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;
  private Table table;
  private final List<DataFile> files = new ArrayList<>();

  @BeforeEach
  void setUp() {
    // Every aggregate here is folded whatever its groups; one test checks the default.
    engine = lake.engine(TestOptions.WIDE);
    session = TestOptions.set(
        TestOptions.defaultParallel(EmbeddedLake.session("test")), PlannerOptions.SCAN_AGGREGATION_MAX_GROUP_RATIO, 1e12);
    // The folding is the row runtime's: where the columnar operators run a plan, they compute its
    // aggregate themselves (ColumnarAggregateTest).
    session = TestOptions.set(session, PlannerOptions.COLUMNAR, false);
    long seed = Long.getLong("sqe.test.seed", System.nanoTime());
    System.out.println("ScanAggregationTest seed: " + seed + " (replay with -Dsqe.test.seed=" + seed + ")");
    Random random = new Random(seed);
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "color", Types.StringType.get()),
            Types.NestedField.optional(3, "label", Types.StringType.get()),
            Types.NestedField.optional(4, "i", Types.IntegerType.get()),
            Types.NestedField.optional(5, "l", Types.LongType.get()),
            Types.NestedField.optional(6, "day", Types.DateType.get()),
            Types.NestedField.optional(7, "amount", Types.DecimalType.of(15, 2)),
            Types.NestedField.optional(8, "rate", Types.DecimalType.of(7, 3)),
            Types.NestedField.optional(9, "huge", Types.DecimalType.of(18, 4)),
            Types.NestedField.optional(10, "flag", Types.BooleanType.get()));
    // Small row groups and dictionaries: several row groups per file, labels falling back to plain pages.
    table =
        lake.catalog()
            .iceberg()
            .createTable(
                TableIdentifier.of("s", "t"),
                schema,
                PartitionSpec.unpartitioned(),
                Map.of("write.parquet.dict-size-bytes", "2048", "write.parquet.row-group-size-bytes", "65536",
                    "write.parquet.page-size-bytes", "8192"));
    long id = 0;
    for (int file = 0; file < 4; file++) {
      List<Record> records = new ArrayList<>();
      int rows = 2000 + random.nextInt(3000);
      for (int n = 0; n < rows; n++) {
        GenericRecord r = GenericRecord.create(schema);
        r.setField("id", id++);
        r.setField("color", random.nextInt(20) == 0 ? null : COLORS.get(random.nextInt(COLORS.size())));
        r.setField("label", random.nextInt(15) == 0 ? null : "label-" + random.nextInt(rows / 3 + 1));
        r.setField("i", random.nextInt(10) == 0 ? null : random.nextInt(40) - 20);
        // Up to 2^47: every sum of them fits a BIGINT (a sum that does not fails: bigintSumsBeyondTheRangeFail).
        r.setField("l", random.nextInt(10) == 0 ? null : random.nextLong() >> (16 + random.nextInt(48)));
        r.setField("day", random.nextInt(12) == 0 ? null : LocalDate.of(1992, 1, 1).plusDays(random.nextInt(2500)));
        r.setField("amount", random.nextInt(9) == 0 ? null : BigDecimal.valueOf(random.nextInt(2_000_000) - 500_000, 2));
        r.setField("rate", random.nextInt(8) == 0 ? null : BigDecimal.valueOf(random.nextInt(2000) - 1000, 3));
        // Near the largest 18-digit decimal: their sums and products do not fit in a long.
        r.setField("huge", random.nextInt(7) == 0 ? null : BigDecimal.valueOf(999_999_999_999_999_999L - random.nextInt(1000), 4)
            .multiply(BigDecimal.valueOf(random.nextBoolean() ? 1 : -1)));
        r.setField("flag", random.nextInt(6) == 0 ? null : random.nextBoolean());
        records.add(r);
      }
      files.add(TestTables.appendFile(table, records));
    }
  }


  @Test
  void foldedAggregatesMatchTheUnfoldedPlan() {
    for (int parallelism : List.of(1, 3)) {
      session = TestOptions.parallel(session, parallelism, 0);
      for (String sql : FOLDED) {
        assertFoldedMatches(sql + (parallelism == 1 ? "" : " "));
      }
    }
  }

  @Test
  void tasksWithDeleteFilesAreFoldedFromTheRowReader() {
    TestTables.deletePositions(table, files.get(1), 0, 5, 17, 1000, 1999);
    TestTables.deleteWhereEquals(table, "color", List.of("cyan"));
    for (String sql : FOLDED) {
      assertFoldedMatches(sql);
    }
    TestQueries.Result folded = TestQueries.run(engine, session, FOLDED.get(0));
    assertThat(folded.stats().filesReadByColumns()).isLessThan(files.size());
  }

  @Test
  void dynamicFiltersReachTheFoldedScan() {
    lake.catalog()
        .iceberg()
        .createTable(TableIdentifier.of("s", "keys"), new Schema(Types.NestedField.required(1, "k", Types.IntegerType.get())));
    Table keys = lake.catalog().iceberg().loadTable(TableIdentifier.of("s", "keys"));
    List<Record> records = new ArrayList<>();
    // Most of the keys of t.i: too many for the planner's semi-join reduction, so the join's own dynamic filter acts.
    for (int k = -15; k < 15; k++) {
      GenericRecord r = GenericRecord.create(keys.schema());
      r.setField("k", k);
      records.add(r);
    }
    TestTables.appendFile(keys, records);
    String sql = "select a.i, a.s, a.c from (select i, sum(amount) s, count(*) c from t group by i) a join keys on a.i = keys.k";
    for (int parallelism : List.of(1, 3)) {
      session = TestOptions.parallel(session, parallelism, 0);
      String text = sql + " ".repeat(parallelism);
      assertFoldedMatches(text);
      assertThat(TestQueries.run(engine, session, text + "\n").stats().dynamicFiltersApplied()).isPositive();
    }
  }

  @Test
  void unsupportedAggregatesKeepThePlan() {
    for (String sql :
        List.of(
            "select color, sum(i * 2) from t group by color",
            "select color, sum(amount) filter (where i > 0) from t group by color",
            "select color, sum(amount) from t where label like 'label-1%' or i > 3 group by color",
            "select color, max(label) from t group by color")) {
      assertThat(TestQueries.plan(engine, session, sql)).as(sql).doesNotContain("aggregate=[");
      session = TestOptions.set(session, PlannerOptions.SCAN_AGGREGATION, false);
      List<List<Object>> unfolded = sorted(TestQueries.rows(engine, session, sql + " "));
      session = TestOptions.set(session, PlannerOptions.SCAN_AGGREGATION, true);
      assertThat(sorted(TestQueries.rows(engine, session, sql))).as(sql).isEqualTo(unfolded);
    }
  }

  @Test
  void manyGroupsKeepThePlanByDefault() {
    session = TestOptions.set(session, PlannerOptions.SCAN_AGGREGATION_MAX_GROUP_RATIO, PlannerOptions.DEFAULT_SCAN_AGGREGATION_MAX_GROUP_RATIO);
    // id is unique: as many groups as rows.
    assertThat(TestQueries.plan(engine, session, "select id, sum(amount) from t group by id")).doesNotContain("aggregate=[");
    assertThat(TestQueries.plan(engine, session, "select color, sum(amount) from t group by color")).contains("aggregate=[");
  }

  @Test
  void bigintSumsBeyondTheRangeFailFoldedOrNot() {
    Schema schema = new Schema(Types.NestedField.required(1, "k", Types.IntegerType.get()), Types.NestedField.required(2, "v", Types.LongType.get()));
    Table big = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "big"), schema);
    List<Record> records = new ArrayList<>();
    for (long v : new long[] {Long.MAX_VALUE, Long.MAX_VALUE, -5}) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("k", 1);
      r.setField("v", v);
      records.add(r);
    }
    TestTables.appendFile(big, records);
    for (String sql : List.of("select k, sum(v) from big group by k", "select sum(v) from big")) {
      assertThat(TestQueries.plan(engine, session, sql)).as(sql).contains("aggregate=[");
      assertThatThrownBy(() -> TestQueries.rows(engine, session, sql)).as(sql).hasMessageContaining("bigint overflow in sum");
      session = TestOptions.set(session, PlannerOptions.SCAN_AGGREGATION, false);
      try {
        assertThatThrownBy(() -> TestQueries.rows(engine, session, sql + " ")).as(sql).hasMessageContaining("bigint overflow in sum");
      } finally {
        session = TestOptions.set(session, PlannerOptions.SCAN_AGGREGATION, true);
      }
    }
  }

  private void assertFoldedMatches(String sql) {
    assertThat(TestQueries.plan(engine, session, sql)).as(sql).contains("aggregate=[");
    List<List<Object>> folded = sorted(TestQueries.rows(engine, session, sql));
    session = TestOptions.set(session, PlannerOptions.SCAN_AGGREGATION, false);
    try {
      String unfoldedSql = sql + "  ";
      assertThat(TestQueries.plan(engine, session, unfoldedSql)).doesNotContain("aggregate=[");
      List<List<Object>> unfolded = sorted(TestQueries.rows(engine, session, unfoldedSql));
      assertThat(folded).as(sql).isEqualTo(unfolded);
    } finally {
      session = TestOptions.set(session, PlannerOptions.SCAN_AGGREGATION, true);
    }
  }
}
