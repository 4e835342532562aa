package io.sqe.engine.offload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.cache.QueryCaches;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.SqeException;
import io.sqe.engine.TestQueries;
import io.sqe.engine.TestTables;
import io.sqe.engine.session.Session;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What SQE does with a query its session offloads, up to the Trino cluster: EXPLAIN shows where it
 * runs and the statement, pinned to the planned snapshot; a query of SQE's own tables stays here;
 * a cluster that cannot be reached is UNAVAILABLE naming it, or a local run with fallback. The
 * cluster itself is tested in flight-server's {@code OffloadToTrinoTest}.
 */
class OffloadPlanningTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private Table table;
  private String nobody;

  @BeforeEach
  void setUp() throws IOException {
    Schema schema = new Schema(
        Types.NestedField.required(1, "g", Types.LongType.get()), Types.NestedField.optional(2, "name", Types.StringType.get()));
    table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "t"), schema);
    // Three files of ten rows, g 0-9, 10-19 and 20-29: a filter on g prunes by the files' bounds.
    for (long file = 0; file < 3; file++) {
      TestTables.appendFile(table, rows(schema, "name", "n", file * 10, file * 10 + 10));
    }
    // A port nothing listens on: a cluster that is down.
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nobody = "http://127.0.0.1:" + socket.getLocalPort();
    }
  }

  /** Rows {@code g} from {@code from} to {@code to} (exclusive), with {@code text} the prefix and {@code g}. */
  private static List<Record> rows(Schema schema, String text, String prefix, long from, long to) {
    List<Record> records = new ArrayList<>();
    for (long g = from; g < to; g++) {
      Record r = GenericRecord.create(schema);
      r.setField("g", g);
      r.setField(text, prefix + g);
      records.add(r);
    }
    return records;
  }

  private QueryEngine engine(boolean fallback) {
    return engine(OffloadConfig.DEFAULT_MIN_SCAN_BYTES, fallback);
  }

  private QueryEngine engine(long minScanBytes, boolean fallback) {
    return lake.engine(EngineConfig.DEFAULT.withOffload(new OffloadConfig(Optional.of(nobody), "svc", minScanBytes, fallback)));
  }

  private static Session always() {
    return EmbeddedLake.session("test").withOption(OffloadConfig.SESSION_OPTION, "always");
  }

  @Test
  void explainShowsTheClusterAndTheStatementPinnedToThePlannedSnapshot() {
    long snapshot = lake.catalog().iceberg().loadTable(TableIdentifier.of("s", "t")).currentSnapshot().snapshotId();
    String plan = TestQueries.plan(engine(false), always(), "select name from s.t where g > 3 order by g");
    assertThat(plan).startsWith("offloaded to trino " + nobody + "\n");
    assertThat(plan).contains("FROM \"lake\".\"s\".\"t\" FOR VERSION AS OF " + snapshot + " AS \"t\"");
    assertThat(plan).contains("WHERE \"g\" > 3");
  }

  /**
   * Trino keeps the join order it is given when SQE's tables carry no NDV statistics, and builds
   * on each join's right input: the statement joins in SQE's order, the larger table on the left,
   * whatever order the FROM list had, with an uncorrelated IN beside the table it filters. A
   * correlated sub-query stays above the joins it refers to.
   */
  @Test
  void theStatementJoinsInThePlannedOrderWithTheSmallerInputOnTheRight() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "g", Types.LongType.get()), Types.NestedField.optional(2, "label", Types.StringType.get()));
    Table small = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "d"), schema);
    TestTables.appendFile(small, rows(schema, "label", "l", 0, 3));

    String joined = TestQueries.plan(engine(false), always(),
        "select t.name, d.label from s.d, s.t where d.g = t.g and t.name in (select label from s.d where g > 0)");
    assertThat(statement(joined))
        .containsPattern("^SELECT .*\nFROM \\(SELECT \\*\nFROM \"lake\"\\.\"s\"\\.\"t\" FOR VERSION AS OF \\d+ AS \"t\"\n"
            + "WHERE \"name\" IN \\(SELECT \"label\"\n")
        .containsPattern("\\) AS \"\\w+\"\nINNER JOIN \"lake\"\\.\"s\"\\.\"d\" FOR VERSION AS OF \\d+ AS \"\\w+\" ON ");

    String correlated = TestQueries.plan(engine(false), always(),
        "select t.name from s.d, s.t where d.g = t.g and exists (select 1 from s.d e where e.g = t.g + 1 and e.label <> d.label)");
    assertThat(statement(correlated))
        .containsPattern("\nFROM \"lake\"\\.\"s\"\\.\"t\" FOR VERSION AS OF \\d+ AS \"t\"\nINNER JOIN \"lake\"\\.\"s\"\\.\"d\" ")
        .containsPattern("\nWHERE EXISTS \\(SELECT \\*\n");
  }

  /** The statement an offloaded query's EXPLAIN shows: the lines after the first, up to the local plan. */
  private static String statement(String plan) {
    assertThat(plan).startsWith("offloaded to trino ");
    return plan.lines().skip(1).takeWhile(line -> !line.startsWith("Sqe")).collect(Collectors.joining("\n"));
  }

  @Test
  void aSessionThatDoesNotAskRunsHere() {
    String plan = TestQueries.plan(engine(false), EmbeddedLake.session("test"), "select name from s.t");
    assertThat(plan).doesNotContain("offloaded to trino");
    assertThat(TestQueries.rows(engine(false), EmbeddedLake.session("test"), "select count(*) from s.t"))
        .containsExactly(List.of(30L));
  }

  /**
   * {@code auto} (a session's default) sends a query whose estimated scan exceeds {@code
   * min-scan-bytes} to the cluster: the sizes of the columns it reads in the files left after
   * pruning, as Iceberg's own planning of the same filter finds them.
   */
  @Test
  void autoOffloadsByTheColumnSizesOfTheFilesLeftAfterPruning() throws IOException {
    long expected = 0;
    int files = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().filter(Expressions.greaterThanOrEqual("g", 15)).includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        files++;
        for (Types.NestedField column : table.schema().columns()) {
          expected += task.file().columnSizes().get(column.fieldId());
        }
      }
    }
    assertThat(files).as("files left after pruning").isEqualTo(2);
    String sql = "select name from s.t where g >= 15";
    Session auto = EmbeddedLake.session("test");

    String atThreshold = TestQueries.plan(engine(expected, false), auto, sql);
    assertThat(lastLine(atThreshold)).isEqualTo(
        "-- offload: local (estimated scan " + expected + " bytes <= offload.min-scan-bytes " + expected + " bytes)");
    assertThat(atThreshold).doesNotContain("offloaded to trino");

    String below = TestQueries.plan(engine(expected - 1, false), auto, sql);
    assertThat(below).startsWith("offloaded to trino " + nobody + "\n");
    assertThat(lastLine(below)).isEqualTo(
        "-- offload: trino (estimated scan " + expected + " bytes > offload.min-scan-bytes " + (expected - 1) + " bytes)");
  }

  @Test
  void autoRunsASmallQueryHere() {
    QueryEngine engine = engine(false);
    Session auto = EmbeddedLake.session("test").withOption(OffloadConfig.SESSION_OPTION, "auto");
    assertThat(lastLine(TestQueries.plan(engine, auto, "select count(*), min(name) from s.t")))
        .matches("-- offload: local \\(estimated scan \\d+ bytes <= offload.min-scan-bytes 10 GiB\\)");
    assertThat(TestQueries.rows(engine, auto, "select count(*), min(name) from s.t")).containsExactly(List.of(30L, "n0"));
  }

  /** A cached plan is placed again on each use: the table it reads may have grown past the threshold. */
  @Test
  void aCachedPlanIsPlacedByTheSnapshotCurrentNow() {
    String sql = "select count(*), max(name) from s.t";
    Session auto = EmbeddedLake.session("test");
    long threshold = bytesAfter("select name from s.t");
    QueryEngine engine = engine(threshold, false);
    assertThat(TestQueries.rows(engine, auto, sql)).containsExactly(List.of(30L, "n9"));
    assertThat(TestQueries.rows(engine, auto, sql)).containsExactly(List.of(30L, "n9"));
    assertThat(engine.caches().get(QueryCaches.PLAN_CACHE).stats().hitCount()).isPositive();

    List<Record> more = new ArrayList<>();
    Record r = GenericRecord.create(table.schema());
    r.setField("g", 30L);
    r.setField("name", "n30");
    more.add(r);
    TestTables.appendFile(table, more);
    // As a write through this server does.
    lake.catalog().invalidate(TableIdentifier.of("s", "t"));
    // Past the threshold now: the cluster, which is down, is asked.
    assertThatThrownBy(() -> TestQueries.rows(engine, auto, sql))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
  }

  @Test
  void theSessionsChoiceOverridesTheEstimate() {
    QueryEngine engine = engine(0, false);
    Session never = EmbeddedLake.session("test").withOption(OffloadConfig.SESSION_OPTION, "never");
    assertThat(lastLine(TestQueries.plan(engine, never, "select name from s.t"))).isEqualTo("-- offload: local (offload = 'never')");
    QueryEngine big = engine(Long.MAX_VALUE, false);
    assertThat(lastLine(TestQueries.plan(big, always(), "select name from s.t"))).isEqualTo("-- offload: trino (offload = 'always')");
  }

  @Test
  void sizesReadAsTheThresholdIsWritten() {
    assertThat(Placement.bytes(512)).isEqualTo("512 bytes");
    assertThat(Placement.bytes(10L << 30)).isEqualTo("10 GiB");
    assertThat(Placement.bytes((long) (12.34 * (1L << 30)))).isEqualTo("12.3 GiB");
    assertThat(Placement.bytes(1536)).isEqualTo("1.5 KiB");
    assertThat(Placement.bytes(300L << 20)).isEqualTo("300 MiB");
  }

  /** The bytes {@code sql}'s scans read by the EXPLAIN of an engine whose threshold no query passes. */
  private long bytesAfter(String sql) {
    String line = lastLine(TestQueries.plan(engine(Long.MAX_VALUE, false), EmbeddedLake.session("test"), sql));
    return Long.parseLong(line.replaceFirst("^-- offload: local \\(estimated scan (\\d+) bytes.*$", "$1"));
  }

  private static String lastLine(String plan) {
    String[] lines = plan.split("\n");
    return lines[lines.length - 1];
  }

  @Test
  void aClusterThatIsDownIsUnavailableNamingIt() {
    assertThatThrownBy(() -> TestQueries.rows(engine(false), always(), "select count(*) from s.t"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE))
        .hasMessageContaining("The Trino cluster " + nobody);
  }

  @Test
  void withFallbackAClusterThatIsDownMeansALocalRun() {
    assertThat(TestQueries.rows(engine(true), always(), "select count(*), min(name) from s.t"))
        .containsExactly(List.of(30L, "n0"));
  }
}
