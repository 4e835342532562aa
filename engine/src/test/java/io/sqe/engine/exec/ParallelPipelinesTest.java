package io.sqe.engine.exec;

import io.sqe.engine.TestOptions;
import static io.sqe.engine.TestTables.appendFile;
import static io.sqe.engine.TestQueries.sorted;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.SqeException;
import io.sqe.engine.TestQueries;
import io.sqe.engine.session.Session;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Aggregates over scans split into parallel parts return exactly what one thread returns (groups,
 * NULLs, empty tables, decimals), and a cancelled query or a failing part stops every part.
 */
class ParallelPipelinesTest {
  private static final org.apache.iceberg.Schema SCHEMA =
      new org.apache.iceberg.Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "g", Types.IntegerType.get()),
          Types.NestedField.optional(3, "k", Types.StringType.get()),
          Types.NestedField.optional(4, "d", Types.DecimalType.of(12, 2)),
          Types.NestedField.optional(5, "x", Types.DoubleType.get()));
  private static final org.apache.iceberg.Schema DIM =
      new org.apache.iceberg.Schema(
          Types.NestedField.required(1, "key", Types.IntegerType.get()),
          Types.NestedField.required(2, "name", Types.StringType.get()));
  private static final int FILES = 6;
  private static final int ROWS_PER_FILE = 2_000;

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.empty();
  private QueryEngine engine;
  private Session session;
  private long firstSnapshot;

  @BeforeEach
  void setUp() {
    long seed = Long.getLong("sqe.test.seed", System.nanoTime());
    System.out.println("ParallelPipelinesTest seed: " + seed);
    Random random = new Random(seed);
    lake.catalog().namespaces().createNamespace(Namespace.of("s"));
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "r"), SCHEMA);
    for (int file = 0; file < FILES; file++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < ROWS_PER_FILE; i++) {
        Record r = GenericRecord.create(SCHEMA);
        long id = (long) file * ROWS_PER_FILE + i;
        r.setField("id", id);
        Integer g = random.nextInt(10) == 0 ? null : random.nextInt(25);
        // The row that divides by zero in the failure tests stays in their build side (g <> 3);
        // with g = 3 it was filtered out, about one seed in 28, and the query did not fail.
        r.setField("g", id == 7777 && g != null && g == 3 ? Integer.valueOf(4) : g);
        r.setField("k", random.nextInt(8) == 0 ? null : "k" + random.nextInt(40));
        r.setField("d", random.nextInt(12) == 0 ? null : BigDecimal.valueOf(random.nextLong() % 10_000_000_000L, 2));
        // Quarters add up exactly in any order, so double sums compare exactly too.
        r.setField("x", random.nextInt(9) == 0 ? null : random.nextInt(1_000_000) / 4.0);
        rows.add(r);
      }
      appendFile(table, rows);
      if (file == 2) {
        firstSnapshot = table.currentSnapshot().snapshotId();
      }
    }
    lake.catalog().iceberg().createTable(TableIdentifier.of("s", "e"), SCHEMA);
    Table dim = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "dim"), DIM);
    List<Record> dimRows = new ArrayList<>();
    for (int key = 0; key < 30; key += 2) {
      Record r = GenericRecord.create(DIM);
      r.setField("key", key);
      r.setField("name", "n" + (key % 7));
      dimRows.add(r);
    }
    appendFile(dim, dimRows);
    engine = lake.engine(TestOptions.WIDE);
    session = TestOptions.defaultParallel(EmbeddedLake.session("test"));
  }


  @Test
  void parallelAggregatesEqualSerialOnes() {
    List<String> queries =
        List.of(
            "select g, count(*), count(k), sum(d), min(d), max(d), avg(d), sum(x), min(k), max(k) from s.r group by g",
            "select count(*), sum(d), avg(x), min(id), max(id) from s.r where mod(id, 7) = 3",
            "select k, g, sum(d), count(x) from s.r where g is null or g < 5 group by k, g",
            "select count(*), sum(d), min(k), avg(x) from s.e",
            "select g, sum(d) from s.e group by g",
            "select count(*) from s.r",
            // Calcite turns it into a distinct aggregate with no calls under one without, which splits.
            "select count(distinct g) from s.r",
            "select sum(d) filter (where g = 3), count(*) filter (where k is null) from s.r",
            "select g, sum(d) from s.r for version as of " + firstSnapshot + " group by g",
            // Hash joins probed by the split scan, their build side shared by the parts.
            "select dim.name, sum(r.d), count(*), max(r.k) from s.r join s.dim on r.g = dim.key group by dim.name",
            "select dim.name, count(*), sum(r.x) from s.r left join s.dim on r.g = dim.key group by dim.name",
            "select count(*), sum(d) from s.r where g in (select key from s.dim where key < 10)",
            "select g, count(*) from s.r where not exists (select 1 from s.dim where dim.key = r.g) group by g",
            // A build side as large as the probe side: read by parts of its own.
            "select a.g, count(*), sum(b.d) from s.r a join s.r b on a.id = b.id and a.k = b.k group by a.g",
            // A large build side under a probe side too small to split: gathered from parts of its own.
            "select dim.name, count(r.id), sum(r.d) from s.dim left join s.r on dim.key = r.g and r.x > 1000 group by dim.name");
    for (String sql : queries) {
      List<List<Object>> serial = sorted(run(sql, 1));
      List<List<Object>> parallel = sorted(run(sql, 3));
      assertThat(parallel).as(sql).isEqualTo(serial);
      // On the row runtime's ParallelGather, or the columnar operators' SqeGather.
      assertThat(explain(sql, 3)).as(sql).containsPattern("ParallelGather|SqeGather").contains("parallel=[true]");
      assertThat(explain(sql, 1)).as(sql).doesNotContainPattern("ParallelGather|SqeGather");
    }
    // The row runtime's SharedInput, or a columnar join's build side shared by the parts.
    assertThat(explain("select dim.name, count(*) from s.r join s.dim on r.g = dim.key group by dim.name", 3))
        .containsPattern("SharedInput|sharedBuild=\\[true]");
    // The shared build side's scan split too, under a gather of its own.
    assertThat(explain("select a.g, count(*), sum(b.d) from s.r a join s.r b on a.id = b.id and a.k = b.k group by a.g", 3))
        .containsPattern("SharedInput|sharedBuild=\\[true]")
        .containsPattern("(?s)(ParallelGather|SqeGather).*(ParallelGather|SqeGather)");
    assertThat(run("select count(*) from s.r for version as of " + firstSnapshot, 3))
        .isEqualTo(List.of(List.of(3L * ROWS_PER_FILE)));
  }

  /**
   * A final phase with keys is split by their hash too, over an exchange; only the partial phase
   * may return a group more than once. Above a DISTINCT's inner aggregate, itself split, the
   * outer one is split by its keys but the inner final phase returns each group once.
   */
  @Test
  void finalPhasesAreSplitByKeyAndOnlyPartialOnesStartAgain() {
    String grouped = "select k, sum(d), count(*) from s.r group by k";
    String plan = explain(grouped, 3);
    assertThat(plan).contains("SqeExchange(keys=[{0}], parts=[3])");
    assertThat(plan.split("partial=\\[true]", -1)).hasSize(2);
    assertThat(sorted(run(grouped, 3))).isEqualTo(sorted(run(grouped, 1)));
    String distinct = "select k, count(distinct g) from s.r group by k";
    String distinctPlan = explain(distinct, 3);
    assertThat(distinctPlan.split("SqeExchange", -1)).hasSize(3);
    // The inner aggregate's partial phase only: its final phase feeds the outer aggregate's.
    assertThat(distinctPlan.split("partial=\\[true]", -1)).hasSize(2);
    assertThat(sorted(run(distinct, 3))).isEqualTo(sorted(run(distinct, 1)));
  }

  @Test
  void countOfAFileSplitIntoPartsCountsItOnce() throws Exception {
    // Random longs do not compress: row groups of 1 MiB make a file of about 20 MiB, split in parts.
    org.apache.iceberg.Schema schema =
        new org.apache.iceberg.Schema(Types.NestedField.required(1, "a", Types.LongType.get()), Types.NestedField.required(2, "b", Types.LongType.get()));
    Table big = lake.catalog().iceberg().createTable(
        TableIdentifier.of("s", "big"), schema, PartitionSpec.unpartitioned(), Map.of("write.parquet.row-group-size-bytes", "1048576"));
    long rows = 1_300_000;
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(big).dataFileFormat(FileFormat.PARQUET).build()
        .newDataWriter(OutputFileFactory.builderFor(big, 0, 0).format(FileFormat.PARQUET).build().newOutputFile(), big.spec(), null);
    Random random = new Random(7);
    Record row = GenericRecord.create(schema);
    try (writer) {
      for (long i = 0; i < rows; i++) {
        row.setField("a", random.nextLong());
        row.setField("b", random.nextLong());
        writer.write(row);
      }
    }
    big.newAppend().appendFile(writer.toDataFile()).commit();
    assertThat(writer.toDataFile().splitOffsets()).hasSizeGreaterThan(10);

    // Columnar (SqeGather) or on the row runtime (ParallelGather): three parts either way.
    assertThat(explain("select count(*) from s.big", 3)).contains("Gather(parts=[3])");
    assertThat(run("select count(*) from s.big", 3)).isEqualTo(List.of(List.of(rows)));
    assertThat(run("select count(*) from s.big where a > 0", 3)).isEqualTo(run("select count(*) from s.big where a > 0", 1));
  }

  @Test
  void partsThePoolHasNoThreadForRunOnTheQueryingThread() {
    // More parts than the shared pool has threads: the rest run inline, after the querying thread's own.
    int parts = 4 * Runtime.getRuntime().availableProcessors() + 6;
    String sql = "select g, count(*), sum(d), min(k) from s.r group by g";
    assertThat(sorted(run(sql, parts))).isEqualTo(sorted(run(sql, 1)));
  }

  @Test
  void aggregatesThatCannotBeSplitKeepTheirPlan() {
    String limited = "select count(*) from (select * from s.r limit 100)";
    assertThat(explain(limited, 3)).doesNotContain("ParallelGather");
    assertThat(run(limited, 3)).isEqualTo(run(limited, 1));
    // Not split, and its input is read on the querying thread.
    String bitOr = "select g, bit_or(id) from s.r group by g";
    assertThat(explain(bitOr, 3)).doesNotContain("ParallelGather").containsOnlyOnce("EnumerableAggregate");
    assertThat(sorted(run(bitOr, 3))).isEqualTo(sorted(run(bitOr, 1)));
  }

  @Test
  void aFailingPartFailsTheQueryWithItsError() {
    // Exactly one row divides by zero; whichever part reads it fails, and the others stop.
    String sql = "select g, sum(100 / (id - 7777)) from s.r group by g";
    SqeException serial = failure(sql, 1);
    SqeException parallel = failure(sql, 3);
    assertThat(parallel.code()).isEqualTo(serial.code());
    assertThat(parallel.getMessage()).isEqualTo(serial.getMessage());
    awaitIdleParts();
    assertThat(run("select count(*) from s.r where g is not null", 3)).hasSize(1);
  }

  @Test
  void cancellingAQueryStopsEveryPart() throws Exception {
    session = TestOptions.parallel(session, 3, 0);
    // Slow enough per row that the query is still running when it is cancelled.
    Prepared prepared =
        engine.prepare(session, "select g, sum(length(repeat(coalesce(k, 'z'), 2000))) from s.r group by g");
    ExecutorService consumer = Executors.newSingleThreadExecutor();
    try (QueryExecution exec = engine.execute(session, prepared, List.of(), "cancel-me")) {
      Future<Boolean> first = consumer.submit(exec::next);
      while (!partsAreScanning() && !first.isDone()) {
        Thread.sleep(5);
      }
      assertThat(first.isDone()).as("the query ended before it could be cancelled").isFalse();
      exec.cancel("cancelled by the test");
      assertThatThrownBy(() -> first.get(60, TimeUnit.SECONDS))
          .hasCauseInstanceOf(SqeException.class)
          .cause()
          .satisfies(e -> assertThat(((SqeException) e).code()).isEqualTo(ErrorCode.CANCELLED));
    } finally {
      consumer.shutdownNow();
    }
    awaitIdleParts();
  }

  private static boolean partsAreScanning() {
    for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
      if (thread.getKey().getName().startsWith("sqe-part-")) {
        for (StackTraceElement frame : thread.getValue()) {
          if (frame.getClassName().startsWith("io.sqe.engine.iceberg.")) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** Waits until no part thread is running a query any more (they stop at their next check). */
  private static void awaitIdleParts() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (partsAreScanning()) {
      assertThat(System.nanoTime()).as("part threads still scanning after the query ended").isLessThan(deadline);
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private SqeException failure(String sql, int parallelism) {
    try {
      run(sql, parallelism);
    } catch (SqeException e) {
      return e;
    }
    throw new AssertionError("No failure from " + sql);
  }

  private String explain(String sql, int parallelism) {
    session = TestOptions.parallel(session, parallelism, 0);
    Prepared prepared = engine.prepare(session, "/* parallelism " + parallelism + " */ " + sql);
    return ((Prepared.Query) prepared).plan().explain();
  }

  /** The rows of {@code sql} planned and run with {@code parallelism}; the comment keeps the plans apart in the plan cache. */
  private List<List<Object>> run(String sql, int parallelism) {
    session = TestOptions.parallel(session, parallelism, 0);
    return TestQueries.rows(engine, session, "/* parallelism " + parallelism + " */ " + sql);
  }
}
