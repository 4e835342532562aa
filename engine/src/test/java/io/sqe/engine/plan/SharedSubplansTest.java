package io.sqe.engine.plan;

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
import io.sqe.engine.exec.QueryExecution;
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
 * A subplan the plan holds twice is computed once per execution: its table's files are read once,
 * and the rows equal the unshared plan's, with and without parallel parts, where a part computes
 * the rows, where a dynamic filter would have reduced one occurrence, and errors and cancellation
 * in the shared computation reach the query as they would without sharing.
 */
class SharedSubplansTest {
  private static final org.apache.iceberg.Schema FACTS =
      new org.apache.iceberg.Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "g", Types.IntegerType.get()),
          Types.NestedField.optional(3, "k", Types.StringType.get()),
          Types.NestedField.optional(4, "d", Types.DecimalType.of(12, 2)));
  private static final org.apache.iceberg.Schema DIM =
      new org.apache.iceberg.Schema(
          Types.NestedField.required(1, "key", Types.IntegerType.get()),
          Types.NestedField.required(2, "name", Types.StringType.get()));
  private static final int FILES = 6;
  private static final int ROWS_PER_FILE = 2_000;
  /** Q15's shape: a view joined with its own maximum. */
  private static final String TOP_GROUPS =
      "with rev as (select g, sum(d) as total from s.r group by g) "
          + "select rev.g, rev.total from rev where rev.total = (select max(total) from rev)";

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.empty();
  private final AtomicInteger statements = new AtomicInteger();
  private QueryEngine engine;
  private Session session;
  private long firstSnapshot;

  @BeforeEach
  void setUp() {
    long seed = System.nanoTime();
    System.out.println("SharedSubplansTest seed: " + seed);
    Random random = new Random(seed);
    lake.catalog().namespaces().createNamespace(Namespace.of("s"));
    Table facts = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "r"), FACTS);
    for (int file = 0; file < FILES; file++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < ROWS_PER_FILE; i++) {
        Record r = GenericRecord.create(FACTS);
        r.setField("id", (long) file * ROWS_PER_FILE + i);
        r.setField("g", random.nextInt(10) == 0 ? null : random.nextInt(25));
        r.setField("k", random.nextInt(8) == 0 ? null : "k" + random.nextInt(40));
        r.setField("d", random.nextInt(12) == 0 ? null : BigDecimal.valueOf(random.nextLong() % 10_000_000L, 2));
        rows.add(r);
      }
      appendFile(facts, rows);
      if (file == 2) {
        firstSnapshot = facts.currentSnapshot().snapshotId();
      }
    }
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
  void aRepeatedAggregateReadsItsTableOnce() {
    for (int parallelism : new int[] {1, 3}) {
      TestQueries.Result unshared = run(TOP_GROUPS, parallelism, false);
      TestQueries.Result shared = run(TOP_GROUPS, parallelism, true);
      assertThat(shared.rows()).as("parallelism %d", parallelism).isEqualTo(unshared.rows()).isNotEmpty();
      assertThat(unshared.stats().filesScanned()).as("parallelism %d", parallelism).isEqualTo(2L * FILES);
      assertThat(shared.stats().filesScanned()).as("parallelism %d", parallelism).isEqualTo(FILES);
      String plan = explain(TOP_GROUPS, parallelism, true);
      assertThat(occurrences(plan, "SharedSubplan(id=[0])")).as(plan).isEqualTo(2);
      assertThat(explain(TOP_GROUPS, parallelism, false)).doesNotContain("SharedSubplan");
    }
  }

  @Test
  void aColumnarPlanComputesASharedSubplanOnceIntoBatches() {
    // The view's batches are computed once and replayed.
    for (int parallelism : new int[] {1, 3}) {
      String plan = explain(TOP_GROUPS, parallelism, true);
      assertThat(occurrences(plan, "SqeSharedSubplan(id=[0])")).as(plan).isEqualTo(2);
      assertThat(plan).doesNotContain("Enumerable");
      configure(parallelism, false);
      Session rowRuntime = TestOptions.set(session, PlannerOptions.COLUMNAR, false);
      TestQueries.Result rows = TestQueries.run(engine, rowRuntime, comment(parallelism, false) + TOP_GROUPS);
      TestQueries.Result shared = run(TOP_GROUPS, parallelism, true);
      assertThat(shared.stats().columnar()).isTrue();
      assertThat(shared.rows()).as("parallelism %d", parallelism).isEqualTo(rows.rows()).isNotEmpty();
      assertThat(shared.stats().filesScanned()).as("parallelism %d", parallelism).isEqualTo(FILES);
    }
  }

  @Test
  void aPartOfAParallelPipelineComputesTheRowsForTheOthers() {
    // The dimension's aggregate is the build side of the split join (shared by its parts) and also
    // read on its own: whichever comes first computes it, in a part or on the querying thread.
    String sql =
        "select sum(r.d * x.c), count(*) from s.r join (select key, count(*) as c from s.dim group by key) x on r.g = x.key "
            + "union all select sum(c), count(*) from (select key, count(*) as c from s.dim group by key)";
    String plan = explain(sql, 3, true);
    assertThat(plan).containsPattern("SharedInput|sharedBuild=\\[true]").containsPattern("ParallelGather|SqeGather");
    assertThat(occurrences(plan, "SharedSubplan(id=[0])")).as(plan).isEqualTo(2);
    TestQueries.Result serial = run(sql, 1, false);
    TestQueries.Result unshared = run(sql, 3, false);
    TestQueries.Result shared = run(sql, 3, true);
    assertThat(shared.rows()).isEqualTo(unshared.rows()).isEqualTo(serial.rows());
    assertThat(shared.stats().filesScanned()).isEqualTo(unshared.stats().filesScanned() - 1).isEqualTo(FILES + 1);
  }

  @Test
  void anOccurrenceAJoinWouldFilterDynamicallyKeepsAllItsRows() {
    // Unshared, the first occurrence's scan reads only the dimension's keys; shared, both
    // occurrences see every group.
    String sql =
        "select x.g, x.total from (select g, sum(d) as total from s.r group by g) x join s.dim on x.g = dim.key "
            + "union all select g, total from (select g, sum(d) as total from s.r group by g)";
    for (int parallelism : new int[] {1, 3}) {
      List<List<Object>> unshared = sorted(run(sql, parallelism, false).rows());
      TestQueries.Result shared = run(sql, parallelism, true);
      assertThat(sorted(shared.rows())).as("parallelism %d", parallelism).isEqualTo(unshared);
      // The fact table once, the dimension once.
      assertThat(shared.stats().filesScanned()).isEqualTo(FILES + 1);
    }
  }

  @Test
  void subplansThatDifferOrCostNothingAreNotShared() {
    session = TestOptions.sharing(session, true, PlannerOptions.DEFAULT_SHARED_SUBPLAN_MAX_ROWS, PlannerOptions.DEFAULT_SHARED_SUBPLAN_MIN_COST);
    session = TestOptions.parallel(session, 1, 0);
    // The same shape over different filters, and a tiny dimension read twice.
    assertThat(plan("select g, sum(d) from s.r where g < 5 group by g union all select g, sum(d) from s.r where g < 6 group by g"))
        .doesNotContain("SharedSubplan");
    assertThat(plan("select count(*) from s.dim union all select count(*) from s.dim")).doesNotContain("SharedSubplan");
    // An older snapshot of the same table is another table.
    session = TestOptions.sharing(session, true, PlannerOptions.DEFAULT_SHARED_SUBPLAN_MAX_ROWS, 0);
    String timeTravel =
        "select g, sum(d) from s.r for version as of " + firstSnapshot + " group by g union all select g, sum(d) from s.r group by g";
    assertThat(plan(timeTravel)).doesNotContain("SharedSubplan");
    List<List<Object>> both = sorted(TestQueries.rows(engine, session, comment(1, true) + timeTravel));
    session = TestOptions.sharing(session, false, PlannerOptions.DEFAULT_SHARED_SUBPLAN_MAX_ROWS, 0);
    assertThat(both).isEqualTo(sorted(TestQueries.rows(engine, session, comment(1, false) + timeTravel)));
    // Non-deterministic calls give different rows each time.
    session = TestOptions.sharing(session, true, PlannerOptions.DEFAULT_SHARED_SUBPLAN_MAX_ROWS, 0);
    assertThat(plan("select max(rand()) from s.r union all select max(rand()) from s.r")).doesNotContain("SharedSubplan");
    // Larger than the bound on what is kept.
    session = TestOptions.sharing(session, true, 10, 0);
    assertThat(plan(TOP_GROUPS)).doesNotContain("SharedSubplan");
  }

  @Test
  void aSubplanLargerThanItsEstimateIsNotKept() {
    // Calcite guesses half the rows for g <> 3, which keep about nine in ten: the plan shares the
    // filtered scan, and at run time it turns out too large to keep, so each consumer reads its own.
    String sql =
        "select max(id) from (select id from s.r where g <> 3) union all select min(id) from (select id from s.r where g <> 3)";
    session = TestOptions.parallel(session, 1, 0);
    session = TestOptions.sharing(session, false, PlannerOptions.DEFAULT_SHARED_SUBPLAN_MAX_ROWS, 0);
    TestQueries.Result unshared = TestQueries.run(engine, session, comment(1, false) + sql);
    session = TestOptions.sharing(session, true, 8_000, 0);
    assertThat(plan(sql)).contains("SharedSubplan");
    TestQueries.Result bounded = TestQueries.run(engine, session, comment(1, true) + sql);
    assertThat(bounded.rows()).isEqualTo(unshared.rows());
    assertThat(bounded.stats().filesScanned()).isEqualTo(2L * FILES);
    session = TestOptions.sharing(session, true, 100_000, 0);
    TestQueries.Result kept = TestQueries.run(engine, session, comment(1, true) + sql);
    assertThat(kept.rows()).isEqualTo(unshared.rows());
    assertThat(kept.stats().filesScanned()).isEqualTo(FILES);
  }

  @Test
  void aSubplanLargerThanItsShareOfTheQueryMemoryIsNotKept() {
    // About 1.8 MB of projected text in all, a few hundred KB per batch: keeping every batch would
    // pass a 1 MiB query.max-memory, streaming them does not.
    String sql =
        "select max(x), count(x) from (select repeat(k, 50) as x from s.r where g <> 3) "
            + "union all select min(x), count(x) from (select repeat(k, 50) as x from s.r where g <> 3)";
    session = TestOptions.parallel(session, 1, 0);
    session = TestOptions.sharing(session, false, PlannerOptions.DEFAULT_SHARED_SUBPLAN_MAX_ROWS, 0);
    TestQueries.Result unshared = TestQueries.run(engine, session, comment(1, false) + sql);
    session = TestOptions.sharing(session, true, PlannerOptions.DEFAULT_SHARED_SUBPLAN_MAX_ROWS, 0);
    assertThat(plan(sql)).contains("SqeSharedSubplan");
    QueryEngine small = lake.engine(TestOptions.WIDE.withMaxQueryMemoryBytes(1 << 20));
    TestQueries.Result bounded = TestQueries.run(small, session, comment(1, true) + sql);
    assertThat(bounded.rows()).isEqualTo(unshared.rows()).isNotEmpty();
    // Not kept: each consumer read the table itself.
    assertThat(bounded.stats().filesScanned()).isEqualTo(2L * FILES);
  }

  @Test
  void anErrorInTheSharedSubplanFailsTheQueryWithIt() {
    String sql =
        "with rev as (select g, sum(100 / (id - 7777)) as total from s.r group by g) "
            + "select rev.g, rev.total from rev where rev.total = (select max(total) from rev)";
    for (int parallelism : new int[] {1, 3}) {
      assertThat(explain(sql, parallelism, true)).contains("SharedSubplan");
      SqeException unshared = failure(sql, parallelism, false);
      SqeException shared = failure(sql, parallelism, true);
      assertThat(shared.code()).isEqualTo(unshared.code());
      assertThat(shared.getMessage()).isEqualTo(unshared.getMessage());
    }
    // The engine still answers afterwards.
    assertThat(run(TOP_GROUPS, 3, true).rows()).isNotEmpty();
  }

  @Test
  void cancellingAQueryStopsTheSharedComputation() throws Exception {
    // Slow enough per row that the query is still computing the shared rows when it is cancelled.
    String sql =
        "with rev as (select g, sum(length(repeat(coalesce(k, 'z'), 2000))) as total from s.r group by g) "
            + "select rev.g, rev.total from rev where rev.total = (select max(total) from rev)";
    configure(3, true);
    Prepared prepared = engine.prepare(session, "/* cancel */ " + sql);
    assertThat(((Prepared.Query) prepared).plan().explain()).contains("SharedSubplan");
    ExecutorService consumer = Executors.newSingleThreadExecutor();
    try (QueryExecution exec = engine.execute(session, prepared, List.of(), "cancel-me")) {
      Future<Boolean> first = consumer.submit(exec::next);
      while (!computingSharedRows() && !first.isDone()) {
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
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (computingSharedRows()) {
      assertThat(System.nanoTime()).as("threads still computing shared rows after the query ended").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  /** Whether some thread is computing a shared subplan's rows (or, on the columnar operators, its batches). */
  private static boolean computingSharedRows() {
    for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
      for (StackTraceElement frame : thread.getValue()) {
        boolean shared = frame.getClassName().startsWith("io.sqe.engine.exec.SharedRows")
            || frame.getClassName().startsWith("io.sqe.engine.exec.batch.SharedBatches");
        if (shared && frame.getMethodName().equals("compute")) {
          return true;
        }
      }
    }
    return false;
  }

  private void configure(int parallelism, boolean share) {
    // The fact table's scans split, the dimension's not.
    session = TestOptions.parallel(session, parallelism, ROWS_PER_FILE);
    session = TestOptions.sharing(session, share, PlannerOptions.DEFAULT_SHARED_SUBPLAN_MAX_ROWS, 0);
  }

  /** The rows and figures of {@code sql}; a fresh comment keeps plans and results apart in the caches. */
  private TestQueries.Result run(String sql, int parallelism, boolean share) {
    configure(parallelism, share);
    return TestQueries.run(engine, session, comment(parallelism, share) + sql);
  }

  private String explain(String sql, int parallelism, boolean share) {
    configure(parallelism, share);
    return plan(comment(parallelism, share) + sql);
  }

  private String plan(String sql) {
    Prepared prepared = engine.prepare(session, "/* " + statements.incrementAndGet() + " */ " + sql);
    return ((Prepared.Query) prepared).plan().explain();
  }

  private String comment(int parallelism, boolean share) {
    return "/* " + statements.incrementAndGet() + " parallelism " + parallelism + " share " + share + " */ ";
  }

  private SqeException failure(String sql, int parallelism, boolean share) {
    try {
      run(sql, parallelism, share);
    } catch (SqeException e) {
      return e;
    }
    throw new AssertionError("No failure from " + sql);
  }

  private static int occurrences(String text, String part) {
    int count = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      count++;
    }
    return count;
  }
}
