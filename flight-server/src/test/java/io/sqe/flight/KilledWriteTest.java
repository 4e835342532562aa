package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.ServerProcess;
import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server process killed with SIGKILL in the middle of a long INSERT: its data files are on disk
 * but were never committed, so a restarted server on the same data directory finds the table at
 * its previous snapshot, with the previous rows, and can write to it again.
 */
class KilledWriteTest {
  private static final Duration STARTUP = Duration.ofMinutes(2);

  @TempDir Path dir;

  @Test
  void previousSnapshotSurvivesAKillDuringAWrite() throws Exception {
    Path data = dir.resolve("data");
    String password;
    Set<String> committedFiles;
    ServerProcess server = ServerProcess.start(data, List.of("-Xmx1g"), Map.of());
    Process process = server.process();
    try (server; RootAllocator allocator = new RootAllocator()) {
      password = server.password();
      try (FlightClient flight = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port())).build();
          FlightSqlClient sql = new FlightSqlClient(flight)) {
        CallOption auth = flight.authenticateBasicToken(TestServer.ADMIN, password).orElseThrow();
        sql.executeUpdate("create schema app", auth);
        sql.executeUpdate("create table app.nums (x bigint)", auth);
        sql.executeUpdate("insert into app.nums values (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)", auth);
        for (int i = 0; i < 8; i++) {
          sql.executeUpdate("insert into app.nums select x + (select max(x) from app.nums) from app.nums", auth);
        }
        // Small files, so that the long write below puts files on disk as it goes.
        sql.executeUpdate("create table app.big (id bigint, pad varchar) with ('write.target-file-size-bytes' = '1000000')", auth);
        sql.executeUpdate("insert into app.big select x, 'committed' from app.nums where x <= 100", auth);
        committedFiles = parquetFiles(data, "big");
        assertThat(committedFiles).isNotEmpty();

        // 2560 x 2560 rows: far longer to write than it takes to see its first file appear.
        CompletableFuture<Long> write = CompletableFuture.supplyAsync(() -> sql.executeUpdate(
            "insert into app.big select a.x * 10000 + b.x, 'never committed ' || cast(b.x as varchar) from app.nums a, app.nums b", auth));
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (parquetFiles(data, "big").equals(committedFiles)) {
          assertThat(write).as("the long INSERT is still running").isNotDone();
          assertThat(System.nanoTime()).as("the long INSERT writes a data file").isLessThan(deadline);
          Thread.sleep(20);
        }
        Thread.sleep(500);
        assertThat(write).as("the long INSERT is still running when the server is killed").isNotDone();
        // Process.destroyForcibly sends SIGKILL on Linux: no shutdown hook, no cleanup.
        process.destroyForcibly();
        assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue()).isEqualTo(137);
      }
    }
    Set<String> afterKill = parquetFiles(data, "big");
    assertThat(afterKill).as("the killed write left its uncommitted files").hasSizeGreaterThan(committedFiles.size());

    try (TestServer restarted = TestServer.start(data, Map.of(), password)) {
      LakehouseCatalog catalog = restarted.server().catalogs().find("iceberg").orElseThrow();
      Table big = catalog.iceberg().loadTable(TableIdentifier.of("app", "big"));
      List<Snapshot> snapshots = new ArrayList<>();
      big.snapshots().forEach(snapshots::add);
      assertThat(snapshots).as("only the committed INSERT made a snapshot").hasSize(1);
      assertThat(big.currentSnapshot().summary()).containsEntry("added-records", "100");
      try (Connection c = DriverManager.getConnection(restarted.jdbcUrl() + "&user=admin&password=" + password);
          Statement s = c.createStatement()) {
        assertThat(longs(s, "select count(*), sum(id), count(distinct pad) from app.big")).containsExactly(100L, 5050L, 1L);
        // The table takes writes again.
        assertThat(s.executeUpdate("insert into app.big values (-1, 'after restart')")).isEqualTo(1);
        assertThat(longs(s, "select count(*), sum(id) from app.big")).containsExactly(101L, 5049L);
      }
    }
  }

  /** The Parquet files under the data directory of table {@code table}. */
  private static Set<String> parquetFiles(Path data, String table) throws IOException {
    try (Stream<Path> paths = Files.walk(data)) {
      return paths
          .filter(p -> p.toString().endsWith(".parquet") && p.toString().contains("/" + table + "/"))
          .map(Path::toString)
          .collect(Collectors.toSet());
    }
  }

  private static List<Long> longs(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      assertThat(rs.next()).isTrue();
      List<Long> row = new ArrayList<>();
      for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
        row.add(((Number) rs.getObject(i)).longValue());
      }
      return row;
    }
  }
}
