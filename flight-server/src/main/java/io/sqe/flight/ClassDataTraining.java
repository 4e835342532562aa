package io.sqe.flight;

import io.sqe.flight.config.ConfigLoader;
import io.sqe.flight.config.ServerConfig;
import io.sqe.flight.ops.LogSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * A training run for class data sharing ({@code bin/sqe cds}): starts a server on the embedded
 * default in a temporary directory, on a loopback port of its own, and has a Flight SQL client do
 * what a first client does (log in, {@code SELECT 1}, metadata, a table written and read, a
 * prepared statement), then stops it and exits. Run with {@code -XX:ArchiveClassesAtExit}, the
 * JVM then writes every class this loaded into an archive that later starts of the server map
 * instead of loading those classes from the jars (docs/benchmarks.md, "Startup").
 *
 * <p>It touches nothing of the installation's data: the catalog, users and signing key it makes
 * are deleted when it ends.
 */
public final class ClassDataTraining {
  private ClassDataTraining() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("sqe-cds-training-");
    try {
      train(dir);
    } finally {
      deleteRecursively(dir);
    }
    // Some of the server's threads (gRPC's, Caffeine's) are not daemons; the archive is written at exit.
    System.exit(0);
  }

  static void train(Path dir) throws Exception {
    // Through a YAML file, as a server reads conf/sqe.yaml, so that the parser's classes are archived too;
    // none of the installation's settings (SQE_* variables included) reach this server.
    Path file = dir.resolve("training.yaml");
    Files.writeString(file, String.join("\n",
        "host: 127.0.0.1",
        "port: 0",
        "data-dir: '" + dir.resolve("data").toString().replace("'", "''") + "'",
        "http:",
        "  port: 0",
        "log:",
        "  level: warn",
        ""));
    ServerConfig config = ConfigLoader.load(file, Map.of());
    LogSettings.apply(config.operations().logFormat(), config.operations().logLevel());
    try (SqeServer server = SqeServer.start(config);
        BufferAllocator allocator = new RootAllocator();
        FlightClient flight =
            FlightClient.builder(allocator, server.location()).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      String password = server.initialAdminPassword().orElseThrow();
      CallOption auth = flight.authenticateBasicToken("admin", password).orElseThrow();
      read(sql, sql.execute("SELECT 1", auth), auth);
      read(sql, sql.getCatalogs(auth), auth);
      read(sql, sql.getSchemas(null, null, auth), auth);
      sql.executeUpdate("CREATE SCHEMA training", auth);
      sql.executeUpdate("CREATE TABLE training.t (id BIGINT, name VARCHAR, amount DECIMAL(12, 2), day DATE)", auth);
      sql.executeUpdate(
          "INSERT INTO training.t VALUES (1, 'a', 1.50, DATE '2024-01-01'), (2, 'b', 2.25, DATE '2024-01-02')", auth);
      read(sql, sql.getTables(null, null, null, null, true, auth), auth);
      read(sql, sql.execute(
          "SELECT name, count(*), sum(amount) FROM training.t WHERE day >= DATE '2024-01-01' GROUP BY name ORDER BY name",
          auth), auth);
      FlightSqlClient.PreparedStatement statement = sql.prepare("SELECT id, name FROM training.t WHERE id = 1", auth);
      read(sql, statement.execute(auth), auth);
      statement.close(auth);
      sql.executeUpdate("DROP TABLE training.t", auth);
    }
  }

  private static void read(FlightSqlClient sql, FlightInfo info, CallOption auth) throws Exception {
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
      while (stream.next()) {
        // Reading the batches loads what a client's first read needs.
      }
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
