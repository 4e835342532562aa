package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sqe.engine.TestQueries.Result;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * GROUP BY and global aggregates run on SQE's columnar hash aggregate and return the rows Calcite's
 * row runtime returns ({@code planner.columnar} off), for keys and values of every type, with
 * nulls, FILTER clauses, empty input and overflow. The lake's allocator, closed after each test,
 * fails on any buffer a query left behind.
 */
class ColumnarAggregateTest {
  private static final int ROWS = 9000;
  private static final List<String> KEYS =
      List.of("b", "i", "l", "f", "d", "color", "label", "amount", "rate", "big", "ship_day", "stamp", "stamp_tz", "bytes", "code");

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("test");
    typedTable();
  }

  @Test
  void groupsByEveryKeyType() {
    for (String key : KEYS) {
      String sql = "select " + key + ", count(*), count(i), sum(l) from typed group by " + key;
      assertColumnar(sql);
      matchesRowRuntime(sql);
    }
    String several = "select color, b, ship_day, code, count(*), sum(amount), max(label) from typed group by color, b, ship_day, code";
    assertColumnar(several);
    assertThat(matchesRowRuntime(several).rows().size()).isGreaterThan(1000);
  }

  @Test
  void minAndMaxOfEveryTypeAndSumsOfEveryNumber() {
    for (String value : KEYS) {
      String sql = "select b, min(" + value + "), max(" + value + ") from typed group by b";
      assertColumnar(sql);
      matchesRowRuntime(sql);
    }
    for (String value : List.of("i", "l", "f", "d", "amount", "rate", "big")) {
      String sql = "select b, sum(" + value + "), count(" + value + ") from typed group by b";
      assertColumnar(sql);
      matchesRowRuntime(sql);
    }
  }

  @Test
  void globalAggregatesReturnOneRowEvenOverNoRows() {
    for (String where : List.of("", " where id < 0", " where color = 'red'")) {
      String sql = "select count(*), count(i), sum(i), sum(amount), sum(d), min(label), max(stamp), sum(big), max(b) from typed" + where;
      assertColumnar(sql);
      Result result = matchesRowRuntime(sql);
      assertThat(result.rows()).hasSize(1);
    }
    assertThat(matchesRowRuntime("select count(*), sum(i) from typed where id < 0").rows())
        .containsExactly(java.util.Arrays.asList(0L, null));
    assertThat(matchesRowRuntime("select b, count(*) from typed where id < 0 group by b").rows()).isEmpty();
  }

  @Test
  void aCountOverAScanOfNoColumnCountsItsRows() {
    // COUNT(*) reads no column: the scan reads one, and a projection drops it (TPC-H Q16's NOT IN).
    for (String sql : List.of(
        "select count(*) from typed",
        "select count(*) from typed where label like '%-1%'",
        "select count(*) as n from typed where label like '%-2%' having count(*) > 0")) {
      assertThat(TestQueries.plan(engine, rowRuntime(), sql)).as(sql).contains("columns=[[]]");
      assertColumnar(sql);
      assertThat((Long) matchesRowRuntime(sql).rows().get(0).get(0)).as(sql).isPositive();
    }
  }

  @Test
  void havingAndBooleanAggregates() {
    for (String sql : List.of(
        "select ship_day, sum(i) from typed group by ship_day having sum(i) > 0",
        "select ship_day, bool_and(b), bool_or(b), every(b) from typed group by ship_day")) {
      assertColumnar(sql);
      matchesRowRuntime(sql);
    }
  }

  @Test
  void aDistinctAggregateAloneRunsAsAnAggregateOfGroups() {
    // Calcite groups by the distinct values first; with other calls beside it, it plans grouping
    // sets and FILTERs on GROUPING() instead (ColumnarGroupingSetsTest).
    for (String sql : List.of(
        "select ship_day, count(distinct i) from typed group by ship_day",
        "select count(distinct l) from typed",
        "select b, sum(distinct rate) from typed group by b")) {
      assertColumnar(sql);
      matchesRowRuntime(sql);
    }
    assertThat(TestQueries.plan(engine, session, "select ship_day, count(distinct i), count(*) from typed group by ship_day"))
        .contains("SqeGroupingSets").doesNotContain("Enumerable");
  }

  @Test
  void sumOverflowFailsAsOnTheRowRuntime() {
    Schema schema = new Schema(Types.NestedField.required(1, "k", Types.IntegerType.get()), Types.NestedField.required(2, "v", Types.LongType.get()));
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "bigs"), schema, PartitionSpec.unpartitioned());
    List<Record> records = new ArrayList<>();
    for (int n = 0; n < 10; n++) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("k", n % 2);
      r.setField("v", Long.MAX_VALUE / 4);
      records.add(r);
    }
    TestTables.appendFile(table, records);
    for (String sql : List.of("select k, sum(v) from bigs group by k", "select sum(v) from bigs")) {
      assertColumnar(sql);
      SqeException columnar = catchThrowableOfType(SqeException.class, () -> TestQueries.run(engine, session, sql));
      SqeException rows = catchThrowableOfType(SqeException.class, () -> TestQueries.run(engine, rowRuntime(), sql));
      assertThat(columnar).as(sql).isNotNull();
      assertThat(rows).as(sql).isNotNull();
      assertThat(columnar.code()).isEqualTo(rows.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(columnar.getMessage()).isEqualTo(rows.getMessage());
    }
  }

  @Test
  void parallelPartsAggregateTheirSplitsAndTheFinalAggregateCombinesThem() {
    Session parallel = TestOptions.parallel(session, 3, 0);
    for (String sql : List.of(
        "select b, count(*), count(i), sum(l), sum(amount), min(label), max(stamp), sum(big) from typed group by b",
        "select ship_day, b, count(*), sum(d), max(amount) from typed where i > 0 group by ship_day, b",
        "select count(*), sum(i), min(code), max(bytes) from typed",
        "select count(*), sum(i) from typed where id < 0")) {
      assertThat(TestQueries.plan(engine, parallel, sql)).as(sql).contains("SqeGather", "parallel=[true]").doesNotContain("Enumerable");
      Result columnar = TestQueries.run(engine, parallel, sql);
      Result rows = TestQueries.run(engine, TestOptions.set(parallel, PlannerOptions.COLUMNAR, false), sql);
      assertSameRows(sql, columnar, rows);
    }
  }

  @Test
  void aFailingPartFailsTheQueryAndEveryPartReleasesItsBuffers() {
    Session parallel = TestOptions.parallel(session, 3, 0);
    String sql = "select b, sum(l * 1000000000) from typed group by b";
    assertThat(TestQueries.plan(engine, parallel, sql)).contains("SqeGather").doesNotContain("Enumerable");
    SqeException columnar = catchThrowableOfType(SqeException.class, () -> TestQueries.run(engine, parallel, sql));
    SqeException rows = catchThrowableOfType(SqeException.class, () -> TestQueries.run(engine, TestOptions.set(parallel, PlannerOptions.COLUMNAR, false), sql));
    assertThat(columnar).isNotNull();
    assertThat(columnar.code()).isEqualTo(rows.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    // Both compute the product, which overflows a BIGINT.
    assertThat(columnar.getMessage()).startsWith("bigint overflow");
    assertThat(rows.getMessage()).startsWith("bigint overflow");
  }

  @Test
  void aMemoryLimitFailsTheAggregateWithResourceExhausted() {
    QueryEngine small = lake.engine(EngineConfig.DEFAULT.withMaxQueryMemoryBytes(96 * 1024));
    String sql = "select id, count(*) from typed group by id";
    assertThat(TestQueries.plan(small, session, sql)).contains("SqeAggregate");
    SqeException error = catchThrowableOfType(SqeException.class, () -> TestQueries.run(small, session, sql));
    assertThat(error).isNotNull();
    assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(error.getMessage()).contains("HashAggregate");
  }

  private void assertColumnar(String sql) {
    assertThat(TestQueries.plan(engine, session, sql)).as(sql).contains("SqeAggregate").doesNotContain("Enumerable");
  }

  private Session rowRuntime() {
    return TestOptions.set(session, PlannerOptions.COLUMNAR, false);
  }

  /**
   * Runs {@code sql} on the columnar operators and on the row runtime; both give the same rows, in
   * any order, floating-point sums equal to 12 digits (the row runtime may add them in another order).
   */
  private Result matchesRowRuntime(String sql) {
    Result columnar = TestQueries.run(engine, session, sql);
    assertSameRows(sql, columnar, TestQueries.run(engine, rowRuntime(), sql));
    return columnar;
  }

  private static void assertSameRows(String sql, Result columnar, Result rows) {
    List<List<Object>> expected = TestQueries.sorted(rows.rows());
    List<List<Object>> actual = TestQueries.sorted(columnar.rows());
    assertThat(actual).as(sql).hasSameSizeAs(expected);
    for (int r = 0; r < actual.size(); r++) {
      for (int c = 0; c < actual.get(r).size(); c++) {
        Object a = actual.get(r).get(c);
        Object e = expected.get(r).get(c);
        if (a instanceof Double x && e instanceof Double y && !x.equals(y)) {
          assertThat(x).as("%s row %s", sql, r).isCloseTo(y, org.assertj.core.data.Percentage.withPercentage(1e-10));
        } else {
          assertThat(a).as("%s row %s column %s", sql, r, c).isEqualTo(e);
        }
      }
    }
  }

  /** Two files of {@link TypedRows}, the first of 6,000 rows. */
  private void typedTable() {
    Table table =
        lake.catalog()
            .iceberg()
            .createTable(TableIdentifier.of("s", "typed"), TypedRows.SCHEMA, PartitionSpec.unpartitioned(), Map.of("write.parquet.dict-size-bytes", "4096"));
    List<Record> records = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      records.add(TypedRows.row(n));
      if (records.size() == 6000 || n == ROWS - 1) {
        TestTables.appendFile(table, records);
        records = new ArrayList<>();
      }
    }
  }
}
