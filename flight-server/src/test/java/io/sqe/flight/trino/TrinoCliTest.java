package io.sqe.flight.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Trino CLI 476 (the executable jar from Maven Central, copied to target/trino-cli by the
 * build) run as a process against SQE's Trino endpoint over HTTPS: queries, DDL and DML, SHOW and
 * DESCRIBE, errors, and Ctrl-C (SIGINT) cancelling a running query.
 */
class TrinoCliTest {
  private static final Path CLI = Path.of("target", "trino-cli", "trino-cli.jar");
  private static final String SLOW_QUERY =
      "SELECT count(*) FROM iceberg.tpch.lineitem a, iceberg.tpch.lineitem b WHERE a.l_comment < b.l_comment";

  @TempDir static Path dir;
  private static TrinoFixture trino;

  @BeforeAll
  static void start() throws Exception {
    assertThat(CLI).as("the Trino CLI, copied by mvn process-test-resources").exists();
    trino = TrinoFixture.start(dir, Map.of("sample-data.tpch-scale", "0.01"));
  }

  @AfterAll
  static void stop() throws Exception {
    trino.close();
  }

  /** What a finished CLI run printed and how it ended. */
  private record Run(int exitCode, String stdout, String stderr) {}

  @Test
  void runsQueriesDdlAndDml() throws Exception {
    Run run = cli("CREATE SCHEMA cli; CREATE TABLE cli.t (id BIGINT, name VARCHAR); INSERT INTO cli.t VALUES (1, 'one'), (2, 'two');"
        + " UPDATE cli.t SET name = 'TWO' WHERE id = 2; SELECT id, name FROM cli.t ORDER BY id;"
        + " SELECT count(*), sum(l_quantity) FROM iceberg.tpch.lineitem");
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.stdout().lines().toList()).containsSubsequence("\"1\",\"one\"", "\"2\",\"TWO\"");
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*), sum(l_quantity) FROM iceberg.tpch.lineitem")) {
      rows.next();
      assertThat(run.stdout()).contains("\"" + rows.getLong(1) + "\",\"" + rows.getBigDecimal(2).toPlainString() + "\"");
    }
    assertThat(run.stderr().lines().toList()).contains("CREATE SCHEMA", "CREATE TABLE", "INSERT: 2 rows", "UPDATE: 1 row");
  }

  @Test
  void showsAndDescribes() throws Exception {
    Run run = cli("SHOW CATALOGS; SHOW SCHEMAS; SHOW TABLES FROM iceberg.tpch; DESCRIBE iceberg.tpch.nation");
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.stdout().lines().toList()).contains("\"iceberg\"", "\"tpch\"", "\"lineitem\"",
        "\"n_nationkey\",\"bigint\",\"\",\"\"", "\"n_name\",\"varchar\",\"\",\"\"");
  }

  @Test
  void reportsErrorsWithTheirPosition() throws Exception {
    Run run = cli("SELECT *\nFROM iceberg.tpch.no_such_table");
    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr()).contains("Query").contains("failed").contains("no_such_table");
  }

  @Test
  void ctrlCCancelsTheRunningQuery() throws Exception {
    Process process = start(SLOW_QUERY);
    try {
      waitForSlowQueries(1);
      // Ctrl-C at a terminal: the CLI cancels the query (DELETE of its nextUri) and stops. The CLI
      // listens for it only once it renders the query's output; one that came before (on a loaded
      // machine the gap is seconds) is lost, and a user would press Ctrl-C again: so does this.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      do {
        new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor();
      } while (!process.waitFor(5, TimeUnit.SECONDS) && System.nanoTime() < deadline);
      assertThat(process.isAlive()).as("the CLI still runs 60 s after the first Ctrl-C").isFalse();
      waitForSlowQueries(0);
    } finally {
      process.destroyForcibly();
    }
  }

  private static void waitForSlowQueries(int expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      int running = 0;
      try (Connection connection = trino.connect(); Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SHOW QUERIES")) {
        while (rows.next()) {
          // Listed from its arrival, as PLANNING: Ctrl-C is for the query once it runs, after the
          // CLI has its first answer and its cancel handler.
          if (rows.getString("query").equals(SLOW_QUERY) && (expected == 0 || rows.getString("state").equals("RUNNING"))) {
            running++;
          }
        }
      }
      if (running == expected) {
        return;
      }
      assertThat(System.nanoTime()).as("%d slow queries listed, waiting for %d", running, expected).isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  private static Run cli(String sql) throws Exception {
    Process process = start(sql);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the CLI finished").isTrue();
    return new Run(process.exitValue(), read(dir.resolve("cli.out")), read(dir.resolve("cli.err")));
  }

  private static Process start(String sql) throws IOException {
    // A job started in the background by a shell without job control (CI's runner, nohup ... &)
    // ignores SIGINT, and so do its children: the CLI would never see Ctrl-C. At a terminal SIGINT
    // has its default action, which env restores for the CLI.
    List<String> command = new ArrayList<>(List.of(
        "env", "--default-signal=INT",
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", CLI.toString(),
        "--server", trino.baseUri(),
        "--truststore-path", trino.caCertificate().toString(),
        "--user", TestServer.ADMIN,
        "--password",
        "--catalog", "iceberg",
        "--output-format", "CSV",
        "--execute", sql));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectOutput(dir.resolve("cli.out").toFile())
        .redirectError(dir.resolve("cli.err").toFile());
    // --password reads the password from TRINO_PASSWORD when it is set.
    builder.environment().put("TRINO_PASSWORD", trino.server().adminPassword());
    return builder.start();
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }
}
