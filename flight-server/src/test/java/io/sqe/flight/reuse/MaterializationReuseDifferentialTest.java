package io.sqe.flight.reuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.JdbcRows;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random appends, updates, deletes, schema changes and view replacements to two source
 * tables, each step followed by every model's CREATE OR REPLACE TABLE ... AS: after every step each
 * model's table equals the same model built by a session with reuse off, and a model none of whose
 * inputs the step touched committed nothing. The seed is printed; {@code -Dsqe.seed=N} replays it.
 */
class MaterializationReuseDifferentialTest {
  private static final int STEPS = 20;

  /** A model: its query and the source objects it reads. */
  private record Model(String name, String query, Set<String> reads) {}

  private static final List<Model> MODELS = List.of(
      new Model("m_sums", "SELECT k, sum(v) AS s, count(*) AS n FROM c.a GROUP BY k", Set.of("a")),
      new Model("m_join", "SELECT a.k, a.v, b.w FROM c.a a JOIN c.b b ON a.k = b.k", Set.of("a", "b")),
      new Model("m_view", "SELECT k, w FROM c.vb", Set.of("b", "vb")),
      new Model("m_counts", "SELECT k, count(*) AS n, max(w) AS top FROM c.b GROUP BY k", Set.of("b")));

  @TempDir static Path dir;
  private static TestServer server;

  @BeforeAll
  static void start() {
    server = TestServer.start(dir.resolve("data"), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void reusedTablesEqualAFullRebuildAtEveryStep() throws SQLException {
    long seed = Long.getLong("sqe.seed", System.nanoTime());
    System.out.println("MaterializationReuseDifferentialTest seed: " + seed + " (replay with -Dsqe.seed=" + seed + ")");
    Random random = new Random(seed);
    try (Connection reusing = connect();
        Connection rebuilding = connect();
        Statement sql = reusing.createStatement();
        Statement reference = rebuilding.createStatement()) {
      reference.executeUpdate("SET SESSION materialization_reuse = false");
      sql.executeUpdate("CREATE SCHEMA IF NOT EXISTS c");
      sql.executeUpdate("CREATE TABLE c.a (k INTEGER, v BIGINT)");
      sql.executeUpdate("CREATE TABLE c.b (k INTEGER, w BIGINT)");
      sql.executeUpdate("INSERT INTO c.a VALUES (0, 1), (1, 2), (2, 3), (3, 4)");
      sql.executeUpdate("INSERT INTO c.b VALUES (0, 10), (1, 20), (2, 30), (3, 40)");
      sql.executeUpdate("CREATE VIEW c.vb AS SELECT k, w FROM c.b WHERE w > 0");
      int columns = 0;
      for (int step = 0; step <= STEPS; step++) {
        Set<String> touched = new HashSet<>();
        if (step > 0) {
          int k = random.nextInt(6);
          long value = random.nextInt(100);
          switch (random.nextInt(8)) {
            case 0 -> {
              sql.executeUpdate("INSERT INTO c.a (k, v) VALUES (" + k + ", " + value + "), (" + random.nextInt(6) + ", " + value + ")");
              touched.add("a");
            }
            case 1 -> {
              sql.executeUpdate("INSERT INTO c.b (k, w) VALUES (" + k + ", " + value + ")");
              touched.add("b");
            }
            case 2 -> {
              sql.executeUpdate("DELETE FROM c.a WHERE k = " + k + " AND v < " + value);
              touched.add("a");
            }
            case 3 -> {
              sql.executeUpdate("UPDATE c.b SET w = w + " + value + " WHERE k = " + k);
              touched.add("b");
            }
            case 4 -> {
              sql.executeUpdate("ALTER TABLE c." + (value % 2 == 0 ? "a" : "b") + " ADD COLUMN extra" + columns++ + " VARCHAR");
              touched.add(value % 2 == 0 ? "a" : "b");
            }
            case 5 -> {
              sql.executeUpdate("CREATE OR REPLACE VIEW c.vb AS SELECT k, w FROM c.b WHERE w > " + value);
              touched.add("vb");
            }
            default -> {
              // Nothing changes: every model is reused.
            }
          }
        }
        for (Model model : MODELS) {
          Long before = snapshot(model.name());
          String build = "CREATE OR REPLACE TABLE c." + model.name() + " AS " + model.query();
          long count = sql.executeUpdate(build);
          reference.executeUpdate("CREATE OR REPLACE TABLE c." + model.name() + "_ref AS " + model.query());
          String at = "seed " + seed + ", step " + step + ", " + model.name();
          List<List<Object>> rows = rows(sql, "SELECT * FROM c." + model.name());
          assertThat(rows).as(at).containsExactlyInAnyOrderElementsOf(rows(sql, "SELECT * FROM c." + model.name() + "_ref"));
          assertThat(count).as(at).isEqualTo(rows.size());
          boolean untouched = touched.stream().noneMatch(model.reads()::contains);
          if (before != null && untouched && !rows.isEmpty()) {
            assertThat(snapshot(model.name())).as(at + ": nothing it reads changed, so nothing is committed").isEqualTo(before);
          }
        }
      }
    }
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
  }

  private static List<List<Object>> rows(Statement statement, String query) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (ResultSet result = statement.executeQuery(query)) {
      rows.addAll(JdbcRows.of(result));
    }
    return rows;
  }

  private static Long snapshot(String table) {
    TableIdentifier id = TableIdentifier.of("c", table);
    Catalog catalog = server.server().catalogs().find("iceberg").orElseThrow().iceberg();
    if (!catalog.tableExists(id)) {
      return null;
    }
    Snapshot current = catalog.loadTable(id).currentSnapshot();
    return current == null ? null : current.snapshotId();
  }
}
