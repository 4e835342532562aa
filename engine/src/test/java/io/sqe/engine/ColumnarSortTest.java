package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sqe.engine.TestQueries.Result;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.spill.SpillConfig;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An ORDER BY without a bounded FETCH runs on SQE's columnar sort ({@code SqeSort}) and returns
 * exactly the rows, in the same order, that Calcite's row runtime returns ({@code planner.columnar}
 * off), for every type and collation, with ties kept in input order; under a small {@code
 * query.max-memory} it spills sorted runs and gives the same rows, and its spill files are gone
 * after success, failure, cancel and an early close.
 */
class ColumnarSortTest {
  private static final int ROWS = 9000;
  /** Small enough that sorting the rows of table {@code many} spills several runs. */
  private static final long SPILLING_MEMORY = 12L << 20;
  private static final int MANY_ROWS = 80_000;
  private static final List<String> QUERIES = List.of(
      "select " + TypedRows.DECODED_COLUMNS + " from typed order by id desc",
      "select id, amount from typed order by amount desc nulls last, id",
      "select id, color, d from typed order by color, d desc",
      "select id, color from typed order by color nulls first",
      "select id, label, i from typed where color = 'red' order by label desc, i nulls last",
      "select id, ship_day, stamp, stamp_tz from typed order by stamp nulls first, stamp_tz desc, ship_day",
      "select id, b, f from typed order by b desc nulls first, f",
      "select id, big, rate from typed order by big, rate desc",
      "select id, bytes, l from typed order by bytes, l desc nulls first",
      "select id + 1 as n, rate from typed order by rate, n offset 8990 rows",
      "select id, code from typed order by id fetch first 200000 rows only");

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

  @Test
  void orderByOfAnySizeMatchesTheRowRuntime() {
    for (String sql : QUERIES) {
      assertThat(plan(engine, sql)).as(sql).contains("SqeSort").doesNotContain("Enumerable");
      Result columnar = TestQueries.run(engine, session, sql);
      Result rows = TestQueries.run(engine, TestOptions.set(session, PlannerOptions.COLUMNAR, false), sql);
      assertThat(columnar.rows()).as(sql).isEqualTo(rows.rows());
      assertThat(columnar.stats().spillFiles()).as(sql).isZero();
    }
    assertThat(plan(engine, "select id from typed order by id limit 10")).contains("SqeTopN").doesNotContain("SqeSort");
  }

  @Test
  void aSpilledSortGivesTheRowsOfAnUnspilledOne() throws IOException {
    table("many", MANY_ROWS, 3_000);
    QueryEngine spilling = lake.engine(EngineConfig.DEFAULT.withMaxQueryMemoryBytes(SPILLING_MEMORY).withSpill(spillConfig(Long.MAX_VALUE)));
    for (String query : QUERIES) {
      String sql = query.replace("from typed", "from many").replace("8990", "79990");
      Result spilled = TestQueries.run(spilling, session, sql);
      assertThat(spilled.rows()).as(sql).isEqualTo(TestQueries.run(engine, session, sql).rows());
      if (sql.contains(TypedRows.DECODED_COLUMNS)) {
        assertThat(spilled.stats().spillFiles()).as(sql).isGreaterThan(1);
        assertThat(spilled.stats().spilledBytes()).as(sql).isPositive();
      }
      assertThat(entries(spillDir)).as(sql).isEmpty();
    }
  }

  @Test
  void spillFilesAreRemovedAfterFailureCancelAndAnEarlyClose() throws IOException {
    table("many", MANY_ROWS, 3_000);
    String sql = QUERIES.get(0).replace("from typed", "from many");
    QueryEngine capped = lake.engine(EngineConfig.DEFAULT.withMaxQueryMemoryBytes(SPILLING_MEMORY).withSpill(spillConfig(100_000)));
    SqeException failed = catchThrowableOfType(SqeException.class, () -> TestQueries.run(capped, session, sql));
    assertThat(failed).isNotNull();
    assertThat(failed.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(failed.getMessage()).contains("query.max-spill");
    assertThat(entries(spillDir)).isEmpty();

    QueryEngine spilling = lake.engine(EngineConfig.DEFAULT.withMaxQueryMemoryBytes(SPILLING_MEMORY).withSpill(spillConfig(Long.MAX_VALUE)));
    Prepared prepared = spilling.prepare(session, sql);
    try (QueryExecution exec = spilling.execute(session, prepared, List.of(), "cancelled")) {
      assertThat(exec.next()).isTrue();
      assertThat(entries(spillDir)).as("the runs being merged").isNotEmpty();
      exec.cancel("test");
      SqeException cancelled = catchThrowableOfType(SqeException.class, () -> {
        while (exec.next()) {
          // Drains until the cancel is seen.
        }
      });
      assertThat(cancelled.code()).isEqualTo(ErrorCode.CANCELLED);
    }
    assertThat(entries(spillDir)).isEmpty();

    try (QueryExecution exec = spilling.execute(session, prepared, List.of(), "closed-early")) {
      assertThat(exec.next()).isTrue();
      assertThat(entries(spillDir)).isNotEmpty();
    }
    assertThat(entries(spillDir)).isEmpty();
  }

  @Test
  void anEngineStartingRemovesWhatACrashedOneLeftInItsSpillDirectory() throws IOException {
    Path leftover = Files.createDirectories(spillDir.resolve("query-crashed-7"));
    Files.writeString(leftover.resolve("run-1.arrow"), "rows");
    lake.engine(EngineConfig.DEFAULT.withSpill(spillConfig(Long.MAX_VALUE)));
    assertThat(leftover).doesNotExist();
  }

  private SpillConfig spillConfig(long maxBytes) {
    return new SpillConfig(spillDir, maxBytes);
  }

  private String plan(QueryEngine on, String sql) {
    return TestQueries.plan(on, session, sql);
  }

  private static List<Path> entries(Path directory) throws IOException {
    try (Stream<Path> list = Files.list(directory)) {
      return list.toList();
    }
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
}
