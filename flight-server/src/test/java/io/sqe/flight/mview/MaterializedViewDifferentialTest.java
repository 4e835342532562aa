package io.sqe.flight.mview;

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
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random appends, updates, deletes, schema changes and refreshes to the sources of two
 * materialized views (an aggregate over a join, and a filter): after every step each view reads
 * exactly what its query returns, whether its storage table answers or not. The seed is printed;
 * {@code -Dsqe.seed=N} replays it.
 */
class MaterializedViewDifferentialTest {
  private static final int STEPS = 40;
  private static final String TOTALS =
      "SELECT c.region, sum(o.amount) AS total, count(*) AS n, min(o.amount) AS low, max(o.amount) AS high"
          + " FROM d.orders o JOIN d.customers c ON o.customer = c.id GROUP BY c.region";
  private static final String BIG = "SELECT id, customer, amount FROM d.orders WHERE amount > 50";

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
  void everyReadEqualsTheQuery() throws SQLException {
    long seed = Long.getLong("sqe.seed", System.nanoTime());
    System.out.println("MaterializedViewDifferentialTest seed: " + seed + " (replay with -Dsqe.seed=" + seed + ")");
    Random random = new Random(seed);
    try (Connection jdbc = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
        Statement s = jdbc.createStatement()) {
      // The queries compared with the views read their sources, not the views' storage.
      s.executeUpdate("SET SESSION materialized_view_rewrite = false");
      s.executeUpdate("CREATE SCHEMA d");
      s.executeUpdate("CREATE TABLE d.customers (id BIGINT, region VARCHAR)");
      s.executeUpdate("INSERT INTO d.customers VALUES (1, 'EU'), (2, 'US'), (3, 'APAC')");
      s.executeUpdate("CREATE TABLE d.orders (id BIGINT, customer BIGINT, amount BIGINT)");
      s.executeUpdate("INSERT INTO d.orders VALUES (1, 1, 10), (2, 2, 70), (3, 3, 55)");
      s.executeUpdate("CREATE MATERIALIZED VIEW d.totals AS " + TOTALS);
      s.executeUpdate("CREATE MATERIALIZED VIEW d.big AS " + BIG);
      long nextId = 100;
      for (int step = 0; step < STEPS; step++) {
        String change;
        switch (random.nextInt(7)) {
          case 0, 1 -> change = "INSERT INTO d.orders VALUES (" + nextId++ + ", " + (1 + random.nextInt(4)) + ", " + random.nextInt(100) + ")";
          case 2 -> change = "DELETE FROM d.orders WHERE amount < " + random.nextInt(30);
          case 3 -> change = "UPDATE d.orders SET amount = amount + " + random.nextInt(20) + " WHERE customer = " + (1 + random.nextInt(3));
          case 4 -> change = random.nextInt(4) == 0
              ? "INSERT INTO d.customers (id, region) VALUES (4, 'LATAM')"
              : "ALTER TABLE d.customers ADD COLUMN note" + step + " VARCHAR";
          default -> change = "REFRESH MATERIALIZED VIEW " + (random.nextBoolean() ? "d.totals" : "d.big");
        }
        s.executeUpdate(change);
        String at = "seed " + seed + ", step " + step + ", after " + change;
        assertThat(rows(s, "SELECT * FROM d.totals ORDER BY region")).as(at).isEqualTo(rows(s, TOTALS + " ORDER BY region"));
        assertThat(rows(s, "SELECT * FROM d.big ORDER BY id")).as(at).isEqualTo(rows(s, BIG + " ORDER BY id"));
      }
    }
  }

  private static List<List<Object>> rows(Statement s, String query) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (ResultSet result = s.executeQuery(query)) {
      rows.addAll(JdbcRows.of(result));
    }
    return rows;
  }
}
