package io.sqe.flight.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.sample.tpch.TpchLoader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;

/**
 * A server with TPC-H (at scale 0.01 unless the settings say otherwise), a JDBC connection to it through the Flight SQL JDBC driver,
 * and DuckDB over the very same Parquet files, for comparing answers.
 */
public abstract class TpchHarness {
  protected TestServer server;
  protected Connection sqe;
  protected Connection duckdb;

  protected void open(Path dir, Map<String, String> settings) throws Exception {
    open(dir, settings, location -> location.replaceFirst("^file:", ""));
  }

  /**
   * @param localFile where DuckDB finds the data file at a location (it reads local files only)
   */
  protected void open(Path dir, Map<String, String> settings, java.util.function.UnaryOperator<String> localFile)
      throws Exception {
    Map<String, String> all = new HashMap<>(settings);
    all.putIfAbsent("sample-data.tpch-scale", "0.01");
    server = TestServer.start(dir, all);
    Properties props = new Properties();
    props.put("user", TestServer.ADMIN);
    props.put("password", server.adminPassword());
    sqe = DriverManager.getConnection(server.jdbcUrl() + "&schema=tpch", props);
    duckdb = DriverManager.getConnection("jdbc:duckdb:");
    LakehouseCatalog catalog = server.server().catalogs().find("iceberg").orElseThrow();
    for (String name : TpchLoader.tableNames()) {
      viewInDuckDb(name, catalog.loadTable(TableIdentifier.of("tpch", name)).orElseThrow(), localFile);
    }
  }

  /** Makes {@code name} a DuckDB view over the current data files of {@code table}, found by {@code localFile}. */
  protected void viewInDuckDb(String name, Table table, java.util.function.UnaryOperator<String> localFile) throws Exception {
    List<String> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.add("'" + localFile.apply(task.file().location()) + "'");
      }
    }
    try (Statement s = duckdb.createStatement()) {
      s.execute("create view " + name + " as select * from read_parquet([" + String.join(", ", files) + "])");
    }
  }

  /** Runs {@code sql} in both engines and asserts the same rows in the same order. */
  protected void compare(String label, String sql) throws Exception {
    List<List<Object>> expected = rows(duckdb, sql);
    List<List<Object>> actual = rows(sqe, sql);
    assertThat(expected).as("DuckDB returns rows for %s", label).isNotEmpty();
    ResultComparison.assertSameRows(label, actual, expected);
  }

  /** The rows {@code sql} gives on {@code connection} ({@link #sqe} or {@link #duckdb}). */
  protected static List<List<Object>> rows(Connection connection, String sql) throws SQLException {
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return ResultComparison.rows(rs);
    }
  }

  /** The plan EXPLAIN gives for {@code sql} on the SQE connection, one node per line. */
  protected String explain(String sql) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (Statement s = sqe.createStatement(); ResultSet rs = s.executeQuery("explain plan for " + sql)) {
      while (rs.next()) {
        plan.append(rs.getString(1)).append('\n');
      }
    }
    return plan.toString();
  }

  protected void close() throws Exception {
    if (sqe != null) {
      sqe.close();
    }
    if (duckdb != null) {
      duckdb.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** The server's {@code sqe_spill_bytes_total}: bytes its queries wrote to the spill directory. */
  protected double spilledBytes() throws java.io.IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    server.server().metrics().writeTo(out);
    return out.toString(java.nio.charset.StandardCharsets.UTF_8).lines()
        .filter(line -> line.startsWith("sqe_spill_bytes_total "))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.indexOf(' ') + 1)))
        .sum();
  }

  /**
   * {@link #spilledBytes} once it passes {@code before}, or as it is after 10 s: the server counts
   * a query's spill when its result stream closes, which the client may see end first.
   */
  protected double spilledBytesAbove(double before) throws Exception {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    double now = spilledBytes();
    while (now <= before && System.nanoTime() < deadline) {
      Thread.sleep(20);
      now = spilledBytes();
    }
    return now;
  }
}
