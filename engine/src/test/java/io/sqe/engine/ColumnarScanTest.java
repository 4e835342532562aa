package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.TestQueries.Result;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * A plan of scans, column selections, OFFSET and FETCH runs on SQE's columnar operators and returns
 * exactly the rows Calcite's row runtime returns for it ({@code planner.columnar} off), for every
 * type, with nulls, dictionary-encoded and plain pages, partition constants, files read row by row
 * (a TIME column, delete files), LIKE predicates the scan evaluates, and bounds inside batches.
 */
class ColumnarScanTest {
  private static final int ROWS = 9000;
  private static final String COLUMNS = TypedRows.DECODED_COLUMNS;

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
  void everyTypeMatchesTheRowRuntime() {
    Result columnar = matchesRowRuntime("select " + COLUMNS + " from typed");
    assertThat(columnar.rows()).hasSize(ROWS);
    assertThat(columnar.stats().filesReadByColumns()).isEqualTo(2);
    assertThat(row(columnar, 3).subList(1, 16)).containsOnlyNulls();
    assertThat(row(columnar, 5).subList(0, 9))
        .isEqualTo(List.of(5L, false, -2995, 5_000_000_035L, 0.625f, 5 / 3.0, "red", "label-é-5", new BigDecimal("-493.15")));
    // A TIME column is not decoded column by column: the scan writes those files' rows into batches.
    Result withTime = matchesRowRuntime("select " + COLUMNS + ", clock from typed");
    assertThat(withTime.stats().filesReadByColumns()).isZero();
    assertThat(withTime.rows()).hasSize(ROWS);
  }

  @Test
  void selectedColumnsOffsetAndFetchCutBatchesWhereTheyFall() {
    // The decoder's batches hold 4,096 rows: these bounds fall inside the first and second batch.
    for (String sql : List.of(
        "select label, id, stamp from typed limit 10 offset 4090",
        "select amount, color from typed offset 8190",
        "select * from typed fetch first 4097 rows only",
        "select code, bytes from typed offset 2 rows fetch next 8997 rows only",
        "select id, label, id, 'x' as x, 2.50 as price, date '2024-02-29' as day, cast(null as integer) as n from typed limit 5000")) {
      assertThat(plan(sql)).doesNotContain("Enumerable");
      matchesRowRuntime(sql);
    }
    assertThat(plan("select label, id from typed limit 10 offset 4090")).contains("SqeLimit", "SqeProject", "SqeTableScan");
  }

  @Test
  void likePredicatesAndPartitionConstantsAreEvaluatedByTheScan() {
    String like = "select id, label from typed where label like 'label-é-1%'";
    assertThat(plan(like)).contains("SqeTableScan").contains("like").doesNotContain("Enumerable");
    long expected = java.util.stream.IntStream.range(0, ROWS).filter(n -> n % 7 != 3 && String.valueOf(n).startsWith("1")).count();
    assertThat(matchesRowRuntime(like).rows()).hasSize((int) expected);

    Schema schema =
        new Schema(Types.NestedField.required(1, "region", Types.StringType.get()), Types.NestedField.required(2, "v", Types.IntegerType.get()));
    Table table =
        lake.catalog().iceberg().createTable(TableIdentifier.of("s", "parts"), schema, PartitionSpec.builderFor(schema).identity("region").build());
    for (String region : List.of("eu", "us")) {
      List<Record> records = new ArrayList<>();
      for (int v = 0; v < 10; v++) {
        GenericRecord r = GenericRecord.create(schema);
        r.setField("region", region);
        r.setField("v", v + (region.equals("eu") ? 0 : 100));
        records.add(r);
      }
      TestTables.appendPartitionFile(table, records, region);
    }
    assertThat(matchesRowRuntime("select v, region from parts").rows()).hasSize(20);
  }

  @Test
  void filesWithDeletesAreReadAsRowsIntoBatches() {
    Schema schema =
        new Schema(Types.NestedField.required(1, "id", Types.LongType.get()), Types.NestedField.required(2, "name", Types.StringType.get()));
    Table table =
        lake.catalog().iceberg().createTable(TableIdentifier.of("s", "deleted"), schema, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
    List<DataFile> files = new ArrayList<>();
    for (int file = 0; file < 2; file++) {
      List<Record> records = new ArrayList<>();
      for (long id = file * 100L; id < file * 100L + 100; id++) {
        GenericRecord r = GenericRecord.create(schema);
        r.setField("id", id);
        r.setField("name", "n" + id);
        records.add(r);
      }
      files.add(TestTables.appendFile(table, records));
    }
    TestTables.deletePositions(table, files.get(0), 0, 1, 2);
    Result result = matchesRowRuntime("select name, id from deleted");
    assertThat(result.rows()).hasSize(197);
    // The second file has no deletes to apply: its vectors are gathered.
    assertThat(result.stats().filesReadByColumns()).isEqualTo(1);
  }

  @Test
  void conditionsTheEvaluatorRunsFilterTheBatches() {
    List<String> conditions = List.of(
        "i > 0",
        "i between -100 and 100",
        "i in (1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233)",
        "i not in (1, 2, 3)",
        "l = i",
        "l >= 4000000000000 or i < -2900",
        "color = 'red'",
        "color in ('red', 'blue')",
        "color >= 'cyan' and color < 'red'",
        "label < 'label-é-2' and label <> 'label-é-1000'",
        "label > color",
        "amount > 10.5",
        "amount between -100 and 100.25",
        "amount < 1.375",
        "rate <= 0 or rate is null",
        "ship_day >= date '1995-01-01' and ship_day < date '1996-01-01'",
        "d > 1000.5",
        "d in (1.0, 2.0, 3.0)",
        "b",
        "not b",
        "b is null",
        "i is not null and (color = 'red' or d < 5)",
        "id > 4090 and id < 4100",
        "label like '%-1_' or color = 'red'",
        "color not like '%e%' and i > 0",
        "color like 'bl%' or label like '%99'",
        "label like 'label-é-#_%' escape '#' or i < -2990");
    for (String condition : conditions) {
      String sql = "select " + COLUMNS + " from typed where " + condition;
      assertThat(plan(sql)).as(sql).contains("SqeFilter").doesNotContain("Enumerable");
      matchesRowRuntime(sql);
    }
    assertThat(matchesRowRuntime("select id, color from typed where color = 'red' limit 5 offset 1000").rows()).hasSize(5);
  }

  @Test
  void orderByUnderAFetchKeepsOnlyTheFirstRows() {
    List<String> queries = List.of(
        "select * from typed order by id desc limit 10",
        "select id, amount from typed order by amount desc nulls last, id limit 25 offset 5",
        "select id, color, d from typed order by color, d desc, id limit 100",
        "select id, label from typed where color = 'red' order by label limit 7",
        "select id, ship_day, stamp from typed order by stamp nulls first, id fetch first 50 rows only",
        "select id, b from typed order by b, id limit 20",
        "select id, big from typed order by big, id limit 9",
        "select id, f from typed order by f desc, id limit 5000",
        "select id + 1 as n, rate from typed order by rate, n offset 8990 rows fetch next 20 rows only");
    for (String sql : queries) {
      assertThat(plan(sql)).as(sql).contains("SqeTopN").doesNotContain("Enumerable");
      matchesRowRuntime(sql);
    }
  }

  @Test
  void parametersAreBoundForEachExecution() {
    String sql = "select id, color, amount from typed where i > ? and color = ? and amount < ?";
    assertThat(plan(sql)).contains("SqeFilter").doesNotContain("Enumerable");
    List<List<Object>> bindings = List.of(
        java.util.Arrays.asList(100, "red", new BigDecimal("1000.375")),
        java.util.Arrays.asList(-3000, "blue", new BigDecimal("1e30")),
        java.util.Arrays.asList(-3000, "blue", new BigDecimal("-1e30")),
        java.util.Arrays.asList(null, "red", BigDecimal.ONE),
        java.util.Arrays.asList(0, "cyan", new BigDecimal("50.005")));
    Session rowRuntime = TestOptions.set(session, PlannerOptions.COLUMNAR, false);
    for (List<Object> values : bindings) {
      List<List<Object>> columnar = runWith(session, sql, values);
      assertThat(columnar).as("%s", values).isEqualTo(runWith(rowRuntime, sql, values));
    }
    assertThat(runWith(session, sql, bindings.get(1))).isNotEmpty();
    assertThat(runWith(session, sql, bindings.get(2))).isEmpty();
  }

  private List<List<Object>> runWith(Session on, String sql, List<Object> parameters) {
    Prepared prepared = engine.prepare(on, sql);
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(on, prepared, parameters, "p")) {
      while (exec.next()) {
        for (int r = 0; r < exec.root().getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (org.apache.arrow.vector.FieldVector vector : exec.root().getFieldVectors()) {
            Object value = vector.getObject(r);
            row.add(value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  @Test
  void expressionsTheEvaluatorComputesMatchTheRowRuntime() {
    List<String> computed = List.of(
        "select id + 1, i * 2, l - i, id * i from typed",
        "select amount * 2, amount - 1, 1 - rate, amount + amount from typed",
        "select rate * rate, rate * 3, amount * 0.5 from typed",
        "select d * 2.5, d / 3, cast(i as double), cast(amount as double), f + d from typed",
        "select case when i > 0 then color else 'neg' end, case when b then amount end from typed",
        "select case when color in ('red', 'blue') then label when d < 100 then color end as c, ship_day from typed",
        "select cast(i as bigint) * 3, i from typed where color = 'red'",
        "select id, l * 10 from typed offset 5 limit 3",
        "select id, coalesce(color, label, 'none'), coalesce(amount, 0) from typed",
        // Decimal products past 18 digits, in 128 bits.
        "select amount * amount, amount * rate, -amount * rate, (amount - 1) * amount from typed");
    for (String sql : computed) {
      assertThat(plan(sql)).as(sql).contains("SqeProject").doesNotContain("Enumerable");
      matchesRowRuntime(sql);
    }
    // An output that others contain is computed once, below, and read there (TPC-H Q1's shape),
    // row-wise functions and outputs of several of them included; rand() is never shared.
    List<String> shared = List.of(
        "select amount * (1 - rate) as a, amount * (1 - rate) * (1 + rate) as b, i from typed",
        "select upper(color) as u, upper(color) || label as ul, length(upper(color)) + i as n, id + 1, (id + 1) * 2 from typed");
    for (String sql : shared) {
      assertThat(plan(sql)).as(sql).contains("$common0").doesNotContain("Enumerable");
      matchesRowRuntime(sql);
    }
    assertThat(plan("select rand() as r, rand() * 2 from typed")).doesNotContain("$common");
    // Overflow fails on the columnar path as on the row runtime, with the same error.
    String overflow = "select l * 1000000000 from typed";
    assertThat(plan(overflow)).contains("SqeProject");
    SqeException columnar = org.assertj.core.api.Assertions.catchThrowableOfType(SqeException.class, () -> TestQueries.run(engine, session, overflow));
    SqeException rows = org.assertj.core.api.Assertions.catchThrowableOfType(
        SqeException.class, () -> TestQueries.run(engine, TestOptions.set(session, PlannerOptions.COLUMNAR, false), overflow));
    assertThat(columnar).isNotNull();
    assertThat(columnar.code()).isEqualTo(rows.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(columnar.getMessage()).isEqualTo(rows.getMessage());
  }

  @Test
  void functionsTheEvaluatorLacksRunRowWiseAndMatchTheRowRuntime() {
    List<String> queries = List.of(
        "select upper(color), lower(label), length(label), substring(label, 2, 4), trim(color) from typed",
        "select color || '-' || label, concat(color, label), replace(label, 'label', 'L'), position('-' in label) from typed",
        "select amount * rate, round(amount, 1), abs(i), mod(l, 7), floor(d), sqrt(abs(d)) from typed",
        "select extract(year from ship_day), ship_day + interval '1' day, stamp + interval '1' hour, date_trunc('month', stamp) from typed",
        "select regexp_like(label, '5$'), cast(i as varchar), cast(amount as varchar), coalesce(upper(color), 'none') from typed",
        "select id from typed where upper(color) = 'RED'",
        "select id, label from typed where i + 1 > 0 and color = 'red' and length(label) > 8",
        "select id from typed where amount > rate or b",
        "select id, upper(label) from typed where lower(color) in ('red', 'blue') order by id desc limit 30",
        "select bytes, md5(bytes), to_hex(bytes) from typed where bytes is not null");
    for (String sql : queries) {
      assertThat(plan(sql)).as(sql).contains("SqeTableScan").doesNotContain("Enumerable");
      matchesRowRuntime(sql);
    }
    // Parameters and the execution's variables reach the row-wise code.
    String sql = "select id, label from typed where upper(color) = ? and current_date > ship_day";
    for (String color : List.of("RED", "BLUE")) {
      assertThat(runWith(session, sql, List.of(color)))
          .isEqualTo(runWith(TestOptions.set(session, PlannerOptions.COLUMNAR, false), sql, List.of(color)));
    }
    // A row-wise error is the row runtime's.
    String failing = "select cast(label as integer) from typed";
    assertThat(plan(failing)).contains("SqeProject");
    SqeException columnar = org.assertj.core.api.Assertions.catchThrowableOfType(SqeException.class, () -> TestQueries.run(engine, session, failing));
    SqeException rows = org.assertj.core.api.Assertions.catchThrowableOfType(
        SqeException.class, () -> TestQueries.run(engine, TestOptions.set(session, PlannerOptions.COLUMNAR, false), failing));
    assertThat(columnar).isNotNull();
    assertThat(columnar.code()).isEqualTo(rows.code());
    assertThat(columnar.getMessage()).isEqualTo(rows.getMessage());
  }

  @Test
  void valuesUnionsAndMetadataTablesAreColumnarSources() {
    List<String> queries = List.of(
        "select * from (values (1, 'a', 2.50), (2, null, -1.25), (3, 'c', null)) t(n, s, p)",
        "select id, color from typed where id < 3 union all select id + 100, label from typed where id > 8995",
        "select n from (values (1), (2)) t(n) union all select cast(id as integer) from typed where id < 2",
        "select id from typed where 1 = 0",
        "select snapshot_id, operation, parent_id is null from \"typed$snapshots\"",
        "select content, record_count, file_size_in_bytes > 0 from \"typed$files\" order by record_count limit 5",
        "select upper(operation) from \"typed$snapshots\" where operation like 'app%'");
    for (String sql : queries) {
      assertThat(plan(sql)).as(sql).contains("Sqe").doesNotContain("Enumerable");
      matchesRowRuntime(sql);
    }
    assertThat(matchesRowRuntime(queries.get(1)).rows()).hasSize(7);
  }

  @Test
  void plansTheColumnarOperatorsDoNotCoverYetRunOnTheRowRuntime() {
    for (String sql : List.of(
        "select hour(clock) from typed",
        "select id, sum(i) over (order by id range between 10 preceding and current row) from typed")) {
      assertThat(plan(sql)).as(sql).contains("Enumerable").doesNotContain("Sqe");
      matchesRowRuntime(sql);
    }
  }

  @Test
  void anExecutionClosedBeforeItsEndReleasesEveryBuffer() {
    // The query's allocator refuses to close while a buffer is left: the scan's readers, their
    // queued batches and the batch being handed out must all be released by close().
    for (int batches = 1; batches <= 2; batches++) {
      Prepared prepared = engine.prepare(session, "select * from typed");
      try (QueryExecution exec = engine.execute(session, prepared, List.of(), "early-" + batches)) {
        for (int i = 0; i < batches; i++) {
          assertThat(exec.next()).isTrue();
        }
      }
    }
    assertThat(TestQueries.rows(engine, session, "select count(*) from typed")).isEqualTo(List.of(List.of((long) ROWS)));
  }

  /** Runs {@code sql} on the columnar operators and on the row runtime, checks both give the same rows in the same order. */
  private Result matchesRowRuntime(String sql) {
    Result columnar = TestQueries.run(engine, session, sql);
    Result rows = TestQueries.run(engine, TestOptions.set(session, PlannerOptions.COLUMNAR, false), sql);
    assertThat(columnar.rows()).as(sql).isEqualTo(rows.rows());
    return columnar;
  }

  private static List<Object> row(Result result, long id) {
    return result.rows().stream().filter(row -> row.get(0).equals(id)).findFirst().orElseThrow();
  }

  private String plan(String sql) {
    return TestQueries.plan(engine, session, sql);
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
