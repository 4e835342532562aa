package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.TestServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
  private static final Pattern PASSWORD = Pattern.compile("Created user 'admin' with password: (\\S+)");
  private static final Pattern PORT = Pattern.compile("SQE is listening on grpc://127\\.0\\.0\\.1:(\\d+)");
  private static final Duration STARTUP = Duration.ofMinutes(2);

  @TempDir Path dir;

  @Test
  void previousSnapshotSurvivesAKillDuringAWrite() throws Exception {
    Path data = dir.resolve("data");
    String password;
    Set<String> committedFiles;
    Process process = startServerProcess(data);
    try (RootAllocator allocator = new RootAllocator()) {
      ServerOutput output = ServerOutput.read(process);
      password = output.password();
      try (FlightClient flight = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", output.port())).build();
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
    } finally {
      process.destroyForcibly();
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

  /** Starts {@code io.sqe.flight.Main} in a JVM of its own, on an empty data directory and a free port. */
  private static Process startServerProcess(Path data) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder = new ProcessBuilder(
        java,
        "-Xmx1g",
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "-Darrow.enable_unsafe_memory_access=true",
        "-cp",
        System.getProperty("java.class.path"),
        "io.sqe.flight.Main");
    builder.environment().keySet().removeIf(name -> name.startsWith("SQE_"));
    builder.environment().put("SQE_PORT", "0");
    builder.environment().put("SQE_DATA__DIR", data.toString());
    builder.environment().put("SQE_AUTH_PASSWORD__HASH__ITERATIONS", "10000");
    builder.redirectErrorStream(true);
    return builder.start();
  }

  /** What the server process prints when it is up. */
  private record ServerOutput(String password, int port) {
    /** Reads the process's output until it says where it listens; the rest is drained in the background. */
    static ServerOutput read(Process process) throws Exception {
      BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<ServerOutput> started = CompletableFuture.supplyAsync(() -> {
        String password = null;
        List<String> seen = new ArrayList<>();
        try {
          for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            seen.add(line);
            Matcher p = PASSWORD.matcher(line);
            if (p.find()) {
              password = p.group(1);
            }
            Matcher port = PORT.matcher(line);
            if (port.find()) {
              return new ServerOutput(password, Integer.parseInt(port.group(1)));
            }
          }
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
        throw new IllegalStateException("The server process ended before it listened:\n" + String.join("\n", seen));
      });
      ServerOutput output = started.get(STARTUP.toMillis(), TimeUnit.MILLISECONDS);
      Thread drain = new Thread(() -> {
        try {
          while (lines.readLine() != null) {
            // The server's log is not needed once it runs; reading it keeps the pipe from filling.
          }
        } catch (IOException e) {
          // The process was killed.
        }
      }, "sqe-process-output");
      drain.setDaemon(true);
      drain.start();
      assertThat(output.password()).as("the first start prints the admin password").isNotNull();
      return output;
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
