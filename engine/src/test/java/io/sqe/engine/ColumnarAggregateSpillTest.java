package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sqe.engine.TestQueries.Result;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.spill.SpillConfig;
import io.sqe.engine.session.Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
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
 * A GROUP BY of about 170,000 groups under a {@code query.max-memory} of 24 MiB spills rows to
 * partitions and returns the groups an engine with room returns, in one part and in parallel
 * parts, with text and numeric keys with NULLs and every kind of call; its spill files are gone
 * after success, failure, cancel and an early close. The lake's allocator, closed after each
 * test, fails on any buffer a query left behind.
 */
class ColumnarAggregateSpillTest {
  private static final int ROWS = 200_000;
  private static final long SPILLING_MEMORY = 24L << 20;
  private static final List<String> QUERIES = List.of(
      "select label, count(*), count(i), sum(l), sum(amount), sum(big), sum(d), min(color), max(bytes), min(stamp), max(code)"
          + " from many group by label",
      "select i, color, count(*), sum(rate), max(label), min(label), sum(f), min(ship_day) from many group by i, color",
      "select big, count(*) filter (where b), sum(l) filter (where color = 'red'), max(amount), min(stamp_tz)"
          + " from many group by big");

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  @TempDir Path spillDir;
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("test");
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "many"), TypedRows.SCHEMA, PartitionSpec.unpartitioned());
    List<Record> records = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      records.add(TypedRows.row(n));
      if (records.size() == 50_000 || n == ROWS - 1) {
        TestTables.appendFile(table, records);
        records = new ArrayList<>();
      }
    }
  }

  @Test
  void aSpilledAggregateGivesTheGroupsOfAnUnspilledOne() throws IOException {
    QueryEngine spilling = lake.engine(EngineConfig.DEFAULT.withMaxQueryMemoryBytes(SPILLING_MEMORY).withSpill(spillConfig(Long.MAX_VALUE)));
    for (String sql : QUERIES) {
      assertSpilledMatches(spilling, session, sql);
    }
  }

  @Test
  void parallelPartialAggregatesAndTheFinalOneSpillAndMatch() throws IOException {
    // Twice the memory: each part's scan reads ahead batches of its own.
    QueryEngine spilling = lake.engine(EngineConfig.DEFAULT.withMaxQueryMemoryBytes(2 * SPILLING_MEMORY).withSpill(spillConfig(Long.MAX_VALUE)));
    Session parallel = TestOptions.parallel(session, 2, 0);
    assertThat(TestQueries.plan(spilling, parallel, QUERIES.get(0))).contains("SqeGather");
    assertSpilledMatches(spilling, parallel, QUERIES.get(0));
  }

  private void assertSpilledMatches(QueryEngine spilling, Session on, String sql) throws IOException {
    assertThat(TestQueries.plan(spilling, on, sql)).as(sql).contains("SqeAggregate").doesNotContain("Enumerable");
    Result roomy = TestQueries.run(engine, on, sql);
    assertThat(roomy.stats().spillFiles()).as(sql).isZero();
    Result spilled = TestQueries.run(spilling, on, sql);
    assertThat(spilled.stats().spilledBytes()).as(sql).isPositive();
    assertThat(roomy.rows().size()).as(sql).isGreaterThan(100_000);
    assertThat(counts(spilled.rows())).as(sql).isEqualTo(counts(roomy.rows()));
    assertThat(entries(spillDir)).as(sql).isEmpty();
  }

  @Test
  void spillFilesAreRemovedAfterFailureCancelAndAnEarlyClose() throws IOException {
    String sql = QUERIES.get(0);
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
      assertThat(entries(spillDir)).as("the partitions not yet aggregated").isNotEmpty();
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

  /** How many times each row occurs: the groups of two runs, in whatever order they came. */
  private static Map<List<Object>, Integer> counts(List<List<Object>> rows) {
    Map<List<Object>, Integer> counts = new HashMap<>();
    for (List<Object> row : rows) {
      counts.merge(row, 1, Integer::sum);
    }
    return counts;
  }

  private SpillConfig spillConfig(long maxBytes) {
    return new SpillConfig(spillDir, maxBytes);
  }

  private static List<Path> entries(Path directory) throws IOException {
    try (Stream<Path> list = Files.list(directory)) {
      return list.toList();
    }
  }
}
