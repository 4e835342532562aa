package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.CommitGate;
import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Branches, tags and the maintenance procedures of ALTER TABLE EXECUTE through the real clients,
 * with the embedded catalog and a real Iceberg REST catalog: what each statement did is read back
 * through Iceberg's API, and query results after compaction and expiry are compared with the
 * results before (through SQL and through Iceberg's own reader).
 */
class TableMaintenanceTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  @TempDir static Path dir;
  private static RootAllocator allocator;
  private static TestServer embedded;
  private static RestCatalogFixture rest;
  private static TestServer overRest;
  /** A server with the default minimum retention of 7 days. */
  private static TestServer strict;

  enum Mode {
    EMBEDDED,
    REST
  }

  @BeforeAll
  static void start() throws Exception {
    allocator = new RootAllocator();
    // Tests expire what they just wrote: no minimum retention.
    embedded = TestServer.start(dir.resolve("embedded"), Map.of("maintenance.min-retention", "0s"));
    rest = RestCatalogFixture.start(dir.resolve("rest"));
    Map<String, String> restSettings = new java.util.HashMap<>(rest.sqeSettings());
    restSettings.put("maintenance.min-retention", "0s");
    overRest = TestServer.start(dir.resolve("sqe-rest"), restSettings);
    strict = TestServer.start(dir.resolve("strict"), Map.of());
    for (TestServer server : List.of(embedded, overRest, strict)) {
      try (TestServer.Client client = server.client(allocator)) {
        client.sql().executeUpdate("create schema app", client.auth());
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    strict.close();
    overRest.close();
    rest.close();
    embedded.close();
    allocator.close();
  }

  private static TestServer server(Mode mode) {
    return mode == Mode.REST ? overRest : embedded;
  }

  private static String name(String prefix, Mode mode) {
    return (prefix + "_" + mode).toLowerCase(Locale.ROOT);
  }

  /** The table as the catalog has it now. */
  private static Table table(TestServer server, String name) {
    LakehouseCatalog catalog = server.server().catalogs().find("iceberg").orElseThrow();
    return catalog.iceberg().loadTable(TableIdentifier.of("app", name));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void optimizeCompactsSmallFilesAndKeepsEveryRow(Mode mode) throws Exception {
    String t = name("optimize", mode);
    try (TestServer.Client client = server(mode).client(allocator)) {
      update(client, "create table app." + t + " (id int, k int, v varchar) partitioned by (k)");
      for (int i = 1; i <= 20; i++) {
        update(client, "insert into app." + t + " values (" + i + ", " + (i % 2) + ", 'v" + i + "')");
      }
      Table before = table(server(mode), t);
      assertThat(dataFiles(before)).hasSize(20);
      long beforeSnapshot = before.currentSnapshot().snapshotId();
      List<List<Object>> sqlBefore = rows(client, "select * from app." + t + " order by id");
      List<String> icebergBefore = icebergRows(before, null);
      assertThat(sqlBefore).hasSize(20);

      List<List<Object>> report = rows(client, "alter table app." + t + " execute optimize(file_size_threshold => '10MB')");
      long bytesBefore = dataFiles(before).stream().mapToLong(DataFile::fileSizeInBytes).sum();
      Table after = table(server(mode), t);
      List<DataFile> files = dataFiles(after);
      // One file per partition, written as one rewrite commit.
      assertThat(files).hasSize(2);
      assertThat(report).containsExactly(
          List.of(20L, 2L, bytesBefore, files.stream().mapToLong(DataFile::fileSizeInBytes).sum()));
      assertThat(after.currentSnapshot().operation()).isEqualTo("replace");
      assertThat(after.currentSnapshot().parentId()).isEqualTo(beforeSnapshot);
      assertThat(rows(client, "select * from app." + t + " order by id")).isEqualTo(sqlBefore);
      assertThat(icebergRows(after, null)).isEqualTo(icebergBefore);
      // The snapshot before the rewrite still reads as it did, through Iceberg and through SQL time travel.
      assertThat(icebergRows(after, beforeSnapshot)).isEqualTo(icebergBefore);
      assertThat(rows(client, "select * from app." + t + " for version as of " + beforeSnapshot + " order by id"))
          .isEqualTo(sqlBefore);

      // Nothing left to compact: each partition has one file.
      assertThat(rows(client, "alter table app." + t + " execute optimize")).containsExactly(List.of(0L, 0L, 0L, 0L));
      assertThat(table(server(mode), t).currentSnapshot().snapshotId()).isEqualTo(after.currentSnapshot().snapshotId());
    }
  }

  @Test
  void optimizeKeepsTheSortOrderAndReportsThroughJdbc() throws Exception {
    try (TestServer.Client client = embedded.client(allocator); Connection jdbc = DdlEndToEndTest.connect(embedded)) {
      update(client, "create table app.sorted_opt (id int, v varchar) sorted by (id)");
      for (int i : new int[] {5, 3, 9, 1, 7, 2, 8}) {
        update(client, "insert into app.sorted_opt values (" + i + ", 'v" + i + "')");
      }
      try (Statement s = jdbc.createStatement(); ResultSet report = s.executeQuery("ALTER TABLE app.sorted_opt EXECUTE optimize")) {
        ResultSetMetaData meta = report.getMetaData();
        assertThat(meta.getColumnCount()).isEqualTo(4);
        assertThat(meta.getColumnName(1)).isEqualTo("rewritten_data_files_count");
        assertThat(meta.getColumnName(2)).isEqualTo("added_data_files_count");
        assertThat(report.next()).isTrue();
        assertThat(report.getLong(1)).isEqualTo(7);
        assertThat(report.getLong(2)).isEqualTo(1);
        assertThat(report.next()).isFalse();
      }
      Table table = table(embedded, "sorted_opt");
      List<FileScanTask> tasks = new ArrayList<>();
      try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
        planned.forEach(tasks::add);
      }
      assertThat(tasks).hasSize(1);
      // Rows in file order: IcebergGenerics reads a single file front to back.
      List<Integer> ids = new ArrayList<>();
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        records.forEach(r -> ids.add((Integer) r.getField("id")));
      }
      assertThat(ids).containsExactly(1, 2, 3, 5, 7, 8, 9);
      assertThat(tasks.get(0).file().sortOrderId()).isEqualTo(table.sortOrder().orderId());
    }
  }

  @Test
  void optimizeFailsCleanlyWhenAConcurrentDeleteRewroteItsFiles() throws Exception {
    String t = "opt_conflict";
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (TestServer.Client client = overRest.client(allocator); TestServer.Client other = overRest.client(allocator)) {
      update(client, "create table app." + t + " (id int, v int)");
      for (int i = 1; i <= 6; i++) {
        update(client, "insert into app." + t + " values (" + i + ", " + i * 10 + "), (" + (i + 100) + ", 0)");
      }
      Path location = localPath(table(overRest, t).location());
      CommitGate gate = rest.holdCommits(t, 1);
      Future<List<List<Object>>> optimizing =
          thread.submit(() -> rows(client, "alter table app." + t + " execute optimize(file_size_threshold => '1MB')"));
      gate.awaitHeld(TIMEOUT);
      // Optimize has read the table and written its file; now a DELETE rewrites one of the files it read.
      long filesBeforeDelete = parquetFiles(location);
      update(other, "delete from app." + t + " where id = 3");
      long snapshotAfterDelete = table(overRest, t).currentSnapshot().snapshotId();
      gate.release();
      // FAILED_PRECONDITION on the wire; Flight's Java client shows it as INVALID_ARGUMENT.
      assertThatThrownBy(() -> optimizing.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
          .cause()
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
            assertThat(e.getMessage())
                .contains("optimize of iceberg.app." + t + " conflicts with a change committed to the table")
                .contains("nothing was written");
          });
      // The table is as the DELETE left it (it replaced one file), and the file optimize wrote is gone again.
      Table table = table(overRest, t);
      assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshotAfterDelete);
      assertThat(table.currentSnapshot().operation()).isEqualTo("overwrite");
      assertThat(parquetFiles(location)).isEqualTo(filesBeforeDelete);
      List<List<Object>> expected = new ArrayList<>();
      for (int i : new int[] {1, 2, 4, 5, 6}) {
        expected.add(List.of(i, i * 10));
      }
      for (int i = 101; i <= 106; i++) {
        expected.add(List.of(i, 0));
      }
      assertThat(rows(client, "select id, v from app." + t + " order by id")).isEqualTo(expected);
      // Run again, it reads the new snapshot and commits.
      assertThat(rows(client, "alter table app." + t + " execute optimize(file_size_threshold => '1MB')"))
          .singleElement().satisfies(row -> assertThat(row.subList(0, 2)).containsExactly(6L, 1L));
      assertThat(rows(client, "select id, v from app." + t + " order by id")).isEqualTo(expected);
    } finally {
      thread.shutdownNow();
    }
  }

  @Test
  void optimizeKeepsAConcurrentAppend() throws Exception {
    String t = "opt_append";
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (TestServer.Client client = overRest.client(allocator); TestServer.Client other = overRest.client(allocator)) {
      update(client, "create table app." + t + " (id int)");
      for (int i = 1; i <= 4; i++) {
        update(client, "insert into app." + t + " values (" + i + ")");
      }
      CommitGate gate = rest.holdCommits(t, 1);
      Future<List<List<Object>>> optimizing = thread.submit(() -> rows(client, "alter table app." + t + " execute optimize"));
      gate.awaitHeld(TIMEOUT);
      update(other, "insert into app." + t + " values (5)");
      gate.release();
      assertThat(optimizing.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).singleElement()
          .satisfies(row -> assertThat(row.subList(0, 2)).containsExactly(4L, 1L));
      Table table = table(overRest, t);
      assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
      assertThat(dataFiles(table)).hasSize(2);
      assertThat(rows(client, "select id from app." + t + " order by id"))
          .containsExactly(List.of(1), List.of(2), List.of(3), List.of(4), List.of(5));
    } finally {
      thread.shutdownNow();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void expireSnapshotsKeepsTaggedAndCurrentSnapshotsReadable(Mode mode) throws Exception {
    String t = name("expire", mode);
    try (TestServer.Client client = server(mode).client(allocator)) {
      update(client, "create table app." + t + " (id int, v varchar)");
      for (int i = 1; i <= 5; i++) {
        update(client, "insert into app." + t + " values (" + i + ", 'v" + i + "')");
      }
      Table table = table(server(mode), t);
      List<Snapshot> inserts = new ArrayList<>();
      table.snapshots().forEach(inserts::add);
      assertThat(inserts).hasSize(5);
      long second = inserts.get(1).snapshotId();
      List<String> atSecond = icebergRows(table, second);
      assertThat(atSecond).hasSize(2);
      List<List<Object>> sqlAtSecond = rows(client, "select * from app." + t + " for version as of " + second + " order by id");
      assertThat(sqlAtSecond).hasSize(2);
      update(client, "alter table app." + t + " create tag keep as of version " + second);
      rows(client, "alter table app." + t + " execute optimize");
      List<List<Object>> sqlBefore = rows(client, "select * from app." + t + " order by id");
      List<String> icebergBefore = icebergRows(table(server(mode), t), null);
      Set<String> dataBefore = allDataFiles(table(server(mode), t));

      List<List<Object>> report = rows(client, "alter table app." + t + " execute expire_snapshots(retention_threshold => '0s')");
      Table after = table(server(mode), t);
      Set<Long> kept = new HashSet<>();
      after.snapshots().forEach(s -> kept.add(s.snapshotId()));
      // The tagged snapshot and the current one (the compaction) stay; the other four inserts go.
      assertThat(kept).containsExactlyInAnyOrder(second, after.currentSnapshot().snapshotId());
      Set<String> dataAfter = allDataFiles(after);
      Set<String> deleted = new HashSet<>(dataBefore);
      deleted.removeAll(dataAfter);
      assertThat(deleted).hasSize(3).allSatisfy(path -> assertThat(after.io().newInputFile(path).exists()).isFalse());
      assertThat(dataAfter).allSatisfy(path -> assertThat(after.io().newInputFile(path).exists()).isTrue());
      // expired, data files, manifests (one per insert; the compaction's and the tag's are kept), manifest lists, statistics
      assertThat(report).singleElement().satisfies(row -> {
        assertThat(row.get(0)).isEqualTo(4L);
        assertThat(row.get(1)).isEqualTo(3L);
        assertThat(row.get(3)).isEqualTo(4L);
        assertThat(row.get(4)).isEqualTo(0L);
      });
      assertThat(rows(client, "select * from app." + t + " order by id")).isEqualTo(sqlBefore);
      assertThat(icebergRows(after, null)).isEqualTo(icebergBefore);
      assertThat(icebergRows(after, second)).isEqualTo(atSecond);
      // Time travel in SQL to the kept snapshot, by id and by its tag, reads what it read before expiry.
      assertThat(rows(client, "select * from app." + t + " for version as of " + second + " order by id")).isEqualTo(sqlAtSecond);
      assertThat(rows(client, "select * from app." + t + " for version as of 'keep' order by id")).isEqualTo(sqlAtSecond);
      long expired = inserts.get(0).snapshotId();
      assertError(client, "select * from app." + t + " for version as of " + expired, FlightStatusCode.NOT_FOUND, String.valueOf(expired));

      // retain_last keeps the newest snapshots whatever their age.
      update(client, "insert into app." + t + " values (6, 'v6')");
      update(client, "insert into app." + t + " values (7, 'v7')");
      rows(client, "alter table app." + t + " execute expire_snapshots(retention_threshold => '0s', retain_last => 2)");
      Table last = table(server(mode), t);
      List<Long> remaining = new ArrayList<>();
      last.snapshots().forEach(s -> remaining.add(s.snapshotId()));
      assertThat(remaining).hasSize(3).contains(second, last.currentSnapshot().snapshotId(), last.currentSnapshot().parentId());
    }
  }

  @Test
  void retentionBelowTheServersMinimumIsRefused() throws Exception {
    try (TestServer.Client client = strict.client(allocator)) {
      update(client, "create table app.retention (id int)");
      update(client, "insert into app.retention values (1)");
      update(client, "insert into app.retention values (2)");
      for (String procedure : List.of("expire_snapshots", "remove_orphan_files")) {
        assertThatThrownBy(() -> rows(client, "alter table app.retention execute " + procedure + "(retention_threshold => '1d')"))
            .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
              assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
              assertThat(e.getMessage())
                  .contains("Retention specified (24h) is shorter than the minimum retention configured in the system (168h)")
                  .contains("maintenance.min-retention");
            });
      }
      // At the minimum (the default) nothing is old enough to go.
      assertThat(rows(client, "alter table app.retention execute expire_snapshots")).containsExactly(List.of(0L, 0L, 0L, 0L, 0L));
      assertThat(rows(client, "alter table app.retention execute expire_snapshots(retention_threshold => '7.00d')"))
          .containsExactly(List.of(0L, 0L, 0L, 0L, 0L));
      Table table = table(strict, "retention");
      assertThat(table.snapshots()).hasSize(2);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void removeOrphanFilesDeletesStrayFilesAndKeepsEveryReferencedOne(Mode mode) throws Exception {
    String t = name("orphans", mode);
    try (TestServer.Client client = server(mode).client(allocator)) {
      update(client, "create table app." + t + " (id int, k int) partitioned by (k)");
      for (int i = 1; i <= 4; i++) {
        update(client, "insert into app." + t + " values (" + i + ", " + (i % 2) + ")");
      }
      update(client, "delete from app." + t + " where id = 2");
      rows(client, "alter table app." + t + " execute optimize");
      Table table = table(server(mode), t);
      List<List<Object>> sqlBefore = rows(client, "select * from app." + t + " order by id");
      Path location = localPath(table.location());
      Path strayData = location.resolve("data").resolve("k=1").resolve("stray.parquet");
      Path strayMetadata = location.resolve("metadata").resolve("stray-00000.metadata.json");
      for (Path stray : List.of(strayData, strayMetadata)) {
        Files.createDirectories(stray.getParent());
        Files.writeString(stray, "not referenced by any metadata", StandardCharsets.UTF_8);
      }
      Set<Path> before = files(location);
      Set<String> reachable = reachable(table);
      assertThat(reachable).isNotEmpty();

      List<List<Object>> report = rows(client, "alter table app." + t + " execute remove_orphan_files(retention_threshold => '0s')");
      assertThat(report).singleElement().satisfies(row -> {
        assertThat(row.get(0)).isEqualTo((long) before.size());
        assertThat(row.get(2)).isEqualTo(2L);
      });
      Set<Path> after = files(location);
      Set<Path> gone = new HashSet<>(before);
      gone.removeAll(after);
      assertThat(gone).containsExactlyInAnyOrder(strayData, strayMetadata);
      for (String path : reachable) {
        assertThat(Files.exists(localPath(path))).as(path).isTrue();
      }
      assertThat(rows(client, "select * from app." + t + " order by id")).isEqualTo(sqlBefore);
      Table reloaded = table(server(mode), t);
      for (Snapshot snapshot : reloaded.snapshots()) {
        assertThat(icebergRows(reloaded, snapshot.snapshotId())).as("snapshot %s", snapshot.snapshotId()).isNotNull();
      }
      // A second run finds nothing more to delete.
      assertThat(rows(client, "alter table app." + t + " execute remove_orphan_files(retention_threshold => '0s')"))
          .singleElement().satisfies(row -> assertThat(row.get(2)).isEqualTo(0L));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void branchesAndTags(Mode mode) throws Exception {
    String t = name("refs", mode);
    try (TestServer.Client client = server(mode).client(allocator)) {
      update(client, "create table app." + t + " (id int)");
      update(client, "insert into app." + t + " values (1)");
      update(client, "insert into app." + t + " values (2)");
      Table table = table(server(mode), t);
      long current = table.currentSnapshot().snapshotId();
      long first = table.currentSnapshot().parentId();

      update(client, "alter table app." + t + " create branch audit");
      update(client, "alter table app." + t + " create tag v1 as of version " + first + " retain 2 days");
      update(client, "alter table app." + t + " create tag if not exists v1");
      Map<String, SnapshotRef> refs = table(server(mode), t).refs();
      assertThat(refs).containsOnlyKeys("main", "audit", "v1");
      assertThat(refs.get("audit").isBranch()).isTrue();
      assertThat(refs.get("audit").snapshotId()).isEqualTo(current);
      assertThat(refs.get("v1").isTag()).isTrue();
      assertThat(refs.get("v1").snapshotId()).isEqualTo(first);
      assertThat(refs.get("v1").maxRefAgeMs()).isEqualTo(Duration.ofDays(2).toMillis());

      update(client, "alter table app." + t + " create or replace branch audit as of version " + first);
      assertThat(table(server(mode), t).refs().get("audit").snapshotId()).isEqualTo(first);
      assertThat(table(server(mode), t).currentSnapshot().snapshotId()).isEqualTo(current);

      assertError(client, "alter table app." + t + " create branch audit", FlightStatusCode.ALREADY_EXISTS,
          "Table 'iceberg.app." + t + "' already has a branch named 'audit'");
      assertError(client, "alter table app." + t + " create branch v1", FlightStatusCode.ALREADY_EXISTS,
          "has a tag named 'v1'; a branch and a tag cannot share a name");
      assertError(client, "alter table app." + t + " create tag v2 as of version 12345", FlightStatusCode.NOT_FOUND,
          "Table 'iceberg.app." + t + "' has no snapshot 12345");
      assertError(client, "alter table app." + t + " drop branch main", FlightStatusCode.INVALID_ARGUMENT,
          "Cannot drop branch 'main'");
      assertError(client, "alter table app." + t + " drop tag audit", FlightStatusCode.NOT_FOUND,
          "has no tag named 'audit' ('audit' is a branch)");
      assertError(client, "alter table app.no_such_table create tag x", FlightStatusCode.NOT_FOUND,
          "Table 'iceberg.app.no_such_table' does not exist");
      update(client, "alter table app." + t + " drop tag if exists nope");

      update(client, "alter table app." + t + " drop tag v1");
      update(client, "alter table app." + t + " drop branch audit");
      assertThat(table(server(mode), t).refs()).containsOnlyKeys("main");
      assertThat(rows(client, "select id from app." + t + " order by id")).containsExactly(List.of(1), List.of(2));

      // A table without snapshots: a branch starts from an empty snapshot, a tag has nothing to name.
      update(client, "create table app." + t + "_empty (id int)");
      update(client, "alter table app." + t + "_empty create branch dev");
      Table empty = table(server(mode), t + "_empty");
      assertThat(empty.currentSnapshot()).isNull();
      assertThat(empty.refs()).containsOnlyKeys("dev");
      assertThat(empty.snapshot(empty.refs().get("dev").snapshotId()).addedDataFiles(empty.io())).isEmpty();
      assertError(client, "alter table app." + t + "_empty create tag v0", FlightStatusCode.INVALID_ARGUMENT,
          "has no snapshot yet, so there is nothing for tag 'v0' to name");
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void rollbackAndSetCurrentSnapshot(Mode mode) throws Exception {
    String t = name("rollback", mode);
    try (TestServer.Client client = server(mode).client(allocator)) {
      update(client, "create table app." + t + " (id int)");
      for (int i = 1; i <= 3; i++) {
        update(client, "insert into app." + t + " values (" + i + ")");
      }
      Table table = table(server(mode), t);
      long third = table.currentSnapshot().snapshotId();
      long second = table.currentSnapshot().parentId();
      long first = table.snapshot(second).parentId();

      assertThat(rows(client, "alter table app." + t + " execute rollback_to_snapshot(snapshot_id => " + second + ")"))
          .containsExactly(List.of(third, second));
      assertThat(rows(client, "select id from app." + t + " order by id")).containsExactly(List.of(1), List.of(2));
      assertThat(rows(client, "alter table app." + t + " execute rollback_to_snapshot(" + first + ")"))
          .containsExactly(List.of(second, first));
      assertThat(table(server(mode), t).currentSnapshot().snapshotId()).isEqualTo(first);

      // The third snapshot is no ancestor of the current one any more: only set_current_snapshot goes there.
      assertError(client, "alter table app." + t + " execute rollback_to_snapshot(" + third + ")", FlightStatusCode.INVALID_ARGUMENT,
          "is not an ancestor of the current snapshot");
      assertThat(rows(client, "alter table app." + t + " execute set_current_snapshot(snapshot_id => " + third + ")"))
          .containsExactly(List.of(first, third));
      assertThat(rows(client, "select id from app." + t + " order by id")).containsExactly(List.of(1), List.of(2), List.of(3));

      assertError(client, "alter table app." + t + " execute rollback_to_snapshot(42)", FlightStatusCode.NOT_FOUND,
          "has no snapshot 42");
      assertError(client, "alter table app." + t + " execute rollback_to_snapshot(snapshot => 42)", FlightStatusCode.INVALID_ARGUMENT,
          "rollback_to_snapshot has no argument 'snapshot'; it takes snapshot_id");
      assertError(client, "alter table app." + t + " execute optimize(file_size_threshold => 'big')", FlightStatusCode.INVALID_ARGUMENT,
          "Invalid size 'big'");
      assertError(client, "alter table app." + t + " execute compact()", FlightStatusCode.NOT_FOUND,
          "Unknown table procedure 'compact'");
      assertError(client, "alter table app." + t + " execute optimize where id > 1", FlightStatusCode.UNIMPLEMENTED,
          "ALTER TABLE EXECUTE ... WHERE is not supported");
    }
  }

  @Test
  void maintenanceIsRefusedInsideATransaction() throws Exception {
    try (TestServer.Client client = embedded.client(allocator)) {
      update(client, "create table app.in_txn (id int)");
      update(client, "insert into app.in_txn values (1)");
      long snapshot = table(embedded, "in_txn").currentSnapshot().snapshotId();
      List<String> statements = List.of(
          "alter table app.in_txn execute optimize",
          "alter table app.in_txn execute expire_snapshots(retention_threshold => '0s')",
          "alter table app.in_txn execute rollback_to_snapshot(" + snapshot + ")",
          "alter table app.in_txn create tag t1");
      // A transaction begun in SQL ...
      rows(client, "START TRANSACTION");
      update(client, "insert into app.in_txn values (2)");
      for (String sql : statements) {
        assertThatThrownBy(() -> rows(client, sql)).as(sql).hasMessageContaining("cannot run inside a transaction");
      }
      rows(client, "ROLLBACK");
      // ... and one begun through Flight SQL's BeginTransaction.
      FlightSqlClient.Transaction transaction = client.sql().beginTransaction(client.auth());
      for (String sql : statements) {
        assertThatThrownBy(() -> client.sql().executeUpdate(sql, transaction, client.auth()))
            .as(sql).hasMessageContaining("cannot run inside a transaction");
      }
      client.sql().rollback(transaction, client.auth());
      assertThat(table(embedded, "in_txn").refs()).containsOnlyKeys("main");
      assertThat(table(embedded, "in_txn").currentSnapshot().snapshotId()).isEqualTo(snapshot);
    }
  }

  // ---- helpers

  private static void update(TestServer.Client client, String sql) {
    client.sql().executeUpdate(sql, client.auth());
  }

  /** Runs a statement as a query (as ADBC and dbt send statements) and returns its rows. */
  private static List<List<Object>> rows(TestServer.Client client, String sql) throws Exception {
    List<List<Object>> rows = client.rows(client.sql().execute(sql, client.auth()));
    List<List<Object>> plain = new ArrayList<>();
    for (List<Object> row : rows) {
      List<Object> values = new ArrayList<>();
      for (Object value : row) {
        values.add(value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
      }
      plain.add(values);
    }
    return plain;
  }

  private static void assertError(TestServer.Client client, String sql, FlightStatusCode code, String message) {
    assertThatThrownBy(() -> rows(client, sql))
        .as(sql)
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).as(e.getMessage()).isEqualTo(code);
          assertThat(e.getMessage()).contains(message);
        });
  }

  /** The live data files of the current snapshot. */
  private static List<DataFile> dataFiles(Table table) throws IOException {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    }
    return files;
  }

  /** The data files any snapshot of the table reads. */
  private static Set<String> allDataFiles(Table table) throws IOException {
    Set<String> files = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        tasks.forEach(task -> files.add(task.file().location()));
      }
    }
    return files;
  }

  /** Every file the table's metadata names: metadata files, manifest lists, manifests, data files. */
  private static Set<String> reachable(Table table) throws IOException {
    Set<String> files = new HashSet<>(allDataFiles(table));
    org.apache.iceberg.TableMetadata metadata = ((org.apache.iceberg.HasTableOperations) table).operations().current();
    files.add(metadata.metadataFileLocation());
    metadata.previousFiles().forEach(entry -> files.add(entry.file()));
    for (Snapshot snapshot : table.snapshots()) {
      files.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        files.add(manifest.path());
      }
    }
    return files;
  }

  /** The table's rows in a snapshot (null: the current one) as Iceberg's generic reader reads them, sorted. */
  private static List<String> icebergRows(Table table, Long snapshotId) throws IOException {
    IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(table);
    if (snapshotId != null) {
      scan = scan.useSnapshot(snapshotId);
    }
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = scan.build()) {
      records.forEach(r -> rows.add(r.toString()));
    }
    rows.sort(null);
    return rows;
  }

  private static Path localPath(String location) {
    return Path.of(location.replaceFirst("^file:(//)?", ""));
  }

  private static Set<Path> files(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      // Hadoop's local file system keeps hidden .crc checksums beside files; its listings leave them out.
      return walk.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().endsWith(".crc"))
          .collect(java.util.stream.Collectors.toSet());
    }
  }

  private static long parquetFiles(Path location) throws IOException {
    try (Stream<Path> walk = Files.walk(location)) {
      return walk.filter(p -> p.getFileName().toString().endsWith(".parquet")).count();
    }
  }
}
