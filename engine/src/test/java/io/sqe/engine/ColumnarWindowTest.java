package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sqe.engine.TestQueries.Result;
import io.sqe.engine.exec.spill.SpillConfig;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import java.nio.file.Path;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * Window functions run on SQE's columnar window operator and return the rows Calcite's row runtime
 * returns ({@code planner.columnar} off): every ranking, offset and value function, aggregates
 * over whole-partition, running and sliding frames, with nulls in partition keys, order keys and
 * values, ties, several window groups in one query, empty input, overflow and a spilled sort
 * underneath. The lake's allocator, closed after each test, fails on any buffer left behind.
 */
class ColumnarWindowTest {
  private static final int ROWS = 9000;

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  @TempDir Path spillDir;
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("test");
    table("typed", ROWS, 6000);
  }

  /** A table of {@code rows} rows of {@link TypedRows}, in files of {@code perFile} rows. */
  private void table(String name, int rows, int perFile) {
    Table table =
        lake.catalog()
            .iceberg()
            .createTable(TableIdentifier.of("s", name), TypedRows.SCHEMA, PartitionSpec.unpartitioned(), Map.of("write.parquet.dict-size-bytes", "4096"));
    List<Record> records = new ArrayList<>();
    for (int n = 0; n < rows; n++) {
      records.add(TypedRows.row(n));
      if (records.size() == perFile || n == rows - 1) {
        TestTables.appendFile(table, records);
        records = new ArrayList<>();
      }
    }
  }

  @Test
  void rankingFunctionsWithTiesAndNullKeys() {
    // Order keys with ties (b, color, ship_day) give RANK and DENSE_RANK one answer; ROW_NUMBER and
    // NTILE take id as a last key so that their answer is one too. (The row runtime has no
    // PERCENT_RANK nor CUME_DIST over a window: they keep it, and fail as before.)
    check("select id, row_number() over (partition by color order by i, id), rank() over (partition by color order by b),"
        + " dense_rank() over (partition by color order by b desc), rank() over (partition by color order by ship_day nulls first), ntile(4) over (partition by color order by i desc, id)"
        + " from typed");
    check("select id, row_number() over (order by id desc), rank() over (order by color), ntile(7) over (order by id), dense_rank() over (order by b) from typed");
    check("select id, rank() over (partition by b, color order by amount), dense_rank() over (partition by ship_day order by color)"
        + " from typed where id < 3000");
    check("select id, rank() over (partition by label order by d), ntile(3) over (partition by b order by id) from typed");
  }

  @Test
  void offsetAndValueFunctions() {
    check("select id, lag(l) over (partition by b order by id), lead(label, 2) over (partition by b order by id),"
        + " lag(i, 3, -1) over (partition by color order by id), lead(amount, 1, amount) over (order by id desc) from typed");
    check("select id, first_value(label) over (partition by color order by ship_day, id),"
        + " last_value(d) over (partition by color order by ship_day),"
        + " nth_value(stamp, 3) over (partition by color order by id) from typed");
    check("select id, first_value(i) over (partition by color), last_value(big) over (partition by color),"
        + " nth_value(bytes, 2) over (partition by b order by id rows between unbounded preceding and unbounded following),"
        + " first_value(rate) over (partition by b order by id rows between 2 preceding and 1 following),"
        + " last_value(code) over (partition by b order by id rows between 3 preceding and current row) from typed");
  }

  @Test
  void aggregatesOverEveryFrame() {
    for (String frame : List.of(
        "partition by color",
        "partition by color order by ship_day",
        "partition by b order by color nulls first",
        "partition by color order by id rows between unbounded preceding and unbounded following",
        "partition by color order by ship_day range between unbounded preceding and current row",
        "partition by color order by id rows between unbounded preceding and current row",
        "partition by color order by id rows between 3 preceding and current row",
        "partition by color order by id rows between 2 preceding and 4 following",
        "partition by color order by id rows between current row and 2 following",
        "partition by color order by id rows between 5 preceding and 2 preceding",
        "order by i")) {
      String w = " over (" + frame + ")";
      check("select id, count(*)" + w + ", count(label)" + w + ", sum(i)" + w + ", sum(l)" + w + ", sum(amount)" + w
          + ", sum(d)" + w + ", avg(i)" + w + ", avg(amount)" + w + ", avg(d)" + w + ", min(label)" + w + ", max(stamp)" + w
          + ", min(rate)" + w + ", max(big)" + w + " from typed");
    }
  }

  @Test
  void severalWindowGroupsAndExpressionsAroundThem() {
    check("select id, color, rank() over (partition by color order by b), sum(i) over (partition by b order by id),"
        + " count(*) over (), lag(id) over (order by label) from typed where i > 0");
    check("select color, rn from (select color, row_number() over (partition by color order by id) as rn from typed) where rn <= 3");
    check("select id, sum(i) over w + 1, max(l) over w from typed window w as (partition by color order by ship_day)");
  }

  @Test
  void emptyInputGivesNoRows() {
    assertThat(check("select id, rank() over (partition by color order by i), sum(i) over () from typed where id < 0").rows()).isEmpty();
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
    for (String sql : List.of("select k, sum(v) over (partition by k) from bigs", "select k, sum(v) over (order by k) from bigs")) {
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
  void framesAndFunctionsItDoesNotComputeKeepTheRowRuntime() {
    for (String sql : List.of(
        "select id, sum(i) over (partition by color order by id range between 10 preceding and current row) from typed",
        "select id, count(distinct color) over (partition by b) from typed")) {
      assertThat(TestQueries.plan(engine, session, sql)).as(sql).contains("EnumerableWindow").doesNotContain("SqeWindow");
      assertSameRows(sql, TestQueries.run(engine, session, sql), TestQueries.run(engine, rowRuntime(), sql));
    }
  }

  @Test
  void aWindowOverASpilledSortGivesTheRowsOfAnUnspilledOne() {
    table("many", 80_000, 3_000);
    QueryEngine spilling = lake.engine(EngineConfig.DEFAULT.withMaxQueryMemoryBytes(12L << 20).withSpill(new SpillConfig(spillDir, Long.MAX_VALUE)));
    String sql = "select id, label, amount, row_number() over (partition by b order by id desc), sum(l) over (partition by b order by id),"
        + " lag(label) over (partition by b order by id), rank() over (partition by color order by ship_day) from many";
    assertThat(TestQueries.plan(spilling, session, sql)).contains("SqeWindow").doesNotContain("Enumerable");
    Result spilled = TestQueries.run(spilling, session, sql);
    assertThat(spilled.stats().spillFiles()).isPositive();
    assertSameRows(sql, spilled, TestQueries.run(engine, session, sql));
  }

  @Test
  void aPartitionLargerThanTheQueryMemoryFailsWithResourceExhausted() {
    table("many", 80_000, 3_000);
    QueryEngine small = lake.engine(EngineConfig.DEFAULT.withMaxQueryMemoryBytes(6L << 20).withSpill(new SpillConfig(spillDir, Long.MAX_VALUE)));
    // One partition of every row: the window holds it all, which the sort below cannot spill for it.
    String sql = "select id, label, bytes, big, stamp, count(*) over () from many";
    assertThat(TestQueries.plan(small, session, sql)).contains("SqeWindow").doesNotContain("Enumerable");
    SqeException error = catchThrowableOfType(SqeException.class, () -> TestQueries.run(small, session, sql));
    assertThat(error).isNotNull();
    assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(error.getMessage()).contains("operator Window");
  }

  private Result check(String sql) {
    assertColumnar(sql);
    Result columnar = TestQueries.run(engine, session, sql);
    assertSameRows(sql, columnar, TestQueries.run(engine, rowRuntime(), sql));
    return columnar;
  }

  private void assertColumnar(String sql) {
    assertThat(TestQueries.plan(engine, session, sql)).as(sql).contains("SqeWindow").doesNotContain("Enumerable");
  }

  private Session rowRuntime() {
    return TestOptions.set(session, PlannerOptions.COLUMNAR, false);
  }

  /** The same rows in any order; doubles equal to 12 digits (sums may add in another order). */
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
}
