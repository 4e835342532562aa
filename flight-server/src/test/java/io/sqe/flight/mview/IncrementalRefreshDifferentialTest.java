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
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.view.View;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random appends, updates, deletes, replaces and schema changes to three source tables, and
 * refreshes of materialized views of every shape an incremental refresh takes (rows of a filter,
 * rows of a join, groups of a join with SUM, COUNT, MIN and MAX, a global aggregate, groups without
 * aggregates) and of one it does not (AVG): after each refresh the view's storage table, read
 * directly, holds exactly the rows of a full recomputation of the view's query, and EXPLAIN REFRESH
 * said beforehand whether the refresh would be incremental, which the storage table's new snapshot
 * confirms (an incremental one descends from the previous, a full rewrite replaces it).
 *
 * <p>The seed is printed; {@code -Dsqe.seed=N} replays it. {@code -Dsqe.mview.steps=N} runs N steps
 * (default 200; thousands on demand).
 */
class IncrementalRefreshDifferentialTest {
  private static final int STEPS = Integer.getInteger("sqe.mview.steps", 200);
  private static final Map<String, String> VIEWS = new LinkedHashMap<>();

  static {
    VIEWS.put("by_region",
        "SELECT c.region, k.kind, sum(o.amount) AS total, count(*) AS n, count(o.tag) AS tagged, min(o.amount) AS low,"
            + " max(o.tag) AS top, sum(o.price) AS revenue, max(k.label) AS label"
            + " FROM d.orders o JOIN d.customers c ON o.customer = c.id JOIN d.kinds k ON k.kind = c.kind"
            + " WHERE o.amount IS NULL OR o.amount > 5 GROUP BY c.region, k.kind");
    VIEWS.put("big", "SELECT id, amount * 2 AS twice, tag FROM d.orders WHERE amount > 50");
    VIEWS.put("joined", "SELECT o.id, c.region, o.price FROM d.orders o, d.customers c WHERE o.customer = c.id AND c.region <> 'US'");
    VIEWS.put("overall", "SELECT count(*) AS n, sum(amount) AS s, min(tag) AS lo, max(price) AS hi, count(amount) AS counted FROM d.orders");
    VIEWS.put("pairs", "SELECT customer, tag FROM d.orders GROUP BY customer, tag");
    VIEWS.put("averages", "SELECT customer, avg(amount) AS mean FROM d.orders GROUP BY customer");
  }

  private static final List<String> TAGS = java.util.Arrays.asList("a", "b", "c", "zz", null);
  private static final List<String> REGIONS = List.of("EU", "US", "APAC", "LATAM");

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
  void everyRefreshEqualsAFullRecomputation() throws SQLException {
    long seed = Long.getLong("sqe.seed", System.nanoTime());
    System.out.println("IncrementalRefreshDifferentialTest seed: " + seed + " (replay with -Dsqe.seed=" + seed + ")");
    Random random = new Random(seed);
    Map<String, Integer> incremental = new HashMap<>();
    try (Connection jdbc = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
        Statement s = jdbc.createStatement()) {
      // The queries compared with the views read their sources, not the views' storage.
      s.executeUpdate("SET SESSION materialized_view_rewrite = false");
      s.executeUpdate("CREATE SCHEMA d");
      s.executeUpdate("CREATE TABLE d.kinds (kind BIGINT, label VARCHAR)");
      s.executeUpdate("INSERT INTO d.kinds VALUES (1, 'retail'), (2, 'wholesale')");
      s.executeUpdate("CREATE TABLE d.customers (id BIGINT, region VARCHAR, kind BIGINT)");
      s.executeUpdate("INSERT INTO d.customers VALUES (1, 'EU', 1), (2, 'US', 2), (3, 'APAC', 1)");
      s.executeUpdate("CREATE TABLE d.orders (id BIGINT, customer BIGINT, amount BIGINT, price DECIMAL(10, 2), tag VARCHAR)");
      s.executeUpdate("INSERT INTO d.orders VALUES (1, 1, 10, 1.50, 'a'), (2, 2, 70, 2.25, NULL), (3, 3, 55, NULL, 'b')");
      for (Map.Entry<String, String> view : VIEWS.entrySet()) {
        s.executeUpdate("CREATE MATERIALIZED VIEW d." + view.getKey() + " AS " + view.getValue());
      }
      long nextOrder = 100;
      long nextCustomer = 4;
      for (int step = 0; step < STEPS; step++) {
        String change = change(random, nextOrder, nextCustomer, step);
        if (change.startsWith("INSERT INTO d.orders")) {
          nextOrder += 3;
        } else if (change.startsWith("INSERT INTO d.customers")) {
          nextCustomer++;
        }
        if (change.startsWith("REFRESH") || change.startsWith("CREATE OR REPLACE MATERIALIZED VIEW")) {
          String name = change.startsWith("REFRESH") ? change.substring("REFRESH MATERIALIZED VIEW d.".length()) : change.split(" ")[5].substring(2);
          boolean planned = explain(s, name).get(0).startsWith("-- refresh: incremental");
          Snapshot before = storage(name).currentSnapshot();
          s.executeUpdate(change);
          Snapshot after = storage(name).currentSnapshot();
          String at = "seed " + seed + ", step " + step + ", after " + change;
          if (after.snapshotId() != before.snapshotId()) {
            assertThat(Long.valueOf(before.snapshotId()).equals(after.parentId())).as(at + ": incremental as EXPLAIN said").isEqualTo(planned);
          }
          if (planned) {
            incremental.merge(name, 1, Integer::sum);
          }
          assertThat(sorted(rows(s, "SELECT * FROM d." + storageId(name).name())))
              .as(at)
              .isEqualTo(sorted(rows(s, VIEWS.get(name))));
        } else {
          s.executeUpdate(change);
        }
      }
    }
    System.out.println("IncrementalRefreshDifferentialTest incremental refreshes by view: " + incremental);
    assertThat(incremental).doesNotContainKey("averages");
    if (STEPS >= 100) {
      assertThat(incremental.keySet()).contains("by_region", "big");
    }
  }

  /**
   * Two sessions refresh one view at once after each append: whichever commits second finds the
   * storage table moved and decides again, so no appended row is counted twice.
   */
  @Test
  void concurrentRefreshesCountEveryRowOnce() throws Exception {
    String query = "SELECT k, sum(v) AS total, count(*) AS n FROM r.events GROUP BY k";
    try (Connection first = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
        Connection second = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
        Statement s = first.createStatement();
        Statement other = second.createStatement()) {
      s.executeUpdate("SET SESSION materialized_view_rewrite = false");
      s.executeUpdate("CREATE SCHEMA r");
      s.executeUpdate("CREATE TABLE r.events (k BIGINT, v BIGINT)");
      s.executeUpdate("INSERT INTO r.events VALUES (1, 1), (2, 2)");
      s.executeUpdate("CREATE MATERIALIZED VIEW r.totals AS " + query);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        for (int round = 0; round < 10; round++) {
          s.executeUpdate("INSERT INTO r.events VALUES (" + (round % 3) + ", " + round + ")");
          Future<Integer> one = pool.submit(() -> s.executeUpdate("REFRESH MATERIALIZED VIEW r.totals"));
          Future<Integer> two = pool.submit(() -> other.executeUpdate("REFRESH MATERIALIZED VIEW r.totals"));
          assertThat(one.get()).isEqualTo(two.get());
          View view = server.server().catalogs().find("iceberg").orElseThrow().views().orElseThrow().loadView(TableIdentifier.of("r", "totals"));
          assertThat(sorted(rows(s, "SELECT * FROM r." + view.properties().get("storage_table"))))
              .as("round " + round)
              .isEqualTo(sorted(rows(s, query)));
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static String change(Random random, long nextOrder, long nextCustomer, int step) {
    int pick = random.nextInt(20);
    if (pick < 8) {
      StringBuilder insert = new StringBuilder("INSERT INTO d.orders VALUES ");
      for (int i = 0; i < 3; i++) {
        String amount = random.nextInt(8) == 0 ? "NULL" : Integer.toString(random.nextInt(100));
        String price = random.nextInt(6) == 0 ? "NULL" : random.nextInt(1000) + "." + random.nextInt(100);
        String tag = TAGS.get(random.nextInt(TAGS.size()));
        insert.append(i == 0 ? "" : ", ")
            .append("(").append(nextOrder + i).append(", ").append(1 + random.nextInt((int) nextCustomer)).append(", ")
            .append(amount).append(", ").append(price).append(", ").append(tag == null ? "NULL" : "'" + tag + "'").append(")");
      }
      return insert.toString();
    }
    return switch (pick) {
      case 8 -> "INSERT INTO d.customers (id, region, kind) VALUES (" + (random.nextBoolean() ? nextCustomer : 1 + random.nextInt((int) nextCustomer))
          + ", '" + REGIONS.get(random.nextInt(REGIONS.size())) + "', " + (1 + random.nextInt(3)) + ")";
      // A replace starts a new history: the recorded snapshot is no ancestor of the new one.
      case 9 -> random.nextInt(6) == 0
          ? "CREATE OR REPLACE TABLE d.kinds AS SELECT * FROM d.kinds WHERE kind <> " + (1 + random.nextInt(3))
          : "INSERT INTO d.kinds VALUES (" + (1 + random.nextInt(3)) + ", 'k" + step + "')";
      case 10 -> random.nextInt(3) == 0 ? "DELETE FROM d.orders WHERE amount < " + random.nextInt(20) : "UPDATE d.orders SET amount = amount + 1 WHERE id = " + random.nextInt(120);
      case 11 -> random.nextInt(4) == 0 ? "ALTER TABLE d.customers ADD COLUMN note" + step + " VARCHAR" : "DELETE FROM d.customers WHERE id = " + (5 + random.nextInt(40));
      default -> {
        List<String> names = new ArrayList<>(VIEWS.keySet());
        String name = names.get(random.nextInt(names.size()));
        yield random.nextInt(5) == 0
            ? "CREATE OR REPLACE MATERIALIZED VIEW d." + name + " AS " + VIEWS.get(name)
            : "REFRESH MATERIALIZED VIEW d." + name;
      }
    };
  }

  private static List<String> explain(Statement s, String name) throws SQLException {
    List<String> lines = new ArrayList<>();
    for (List<Object> row : rows(s, "EXPLAIN REFRESH MATERIALIZED VIEW d." + name)) {
      lines.add((String) row.get(0));
    }
    return lines;
  }

  private static TableIdentifier storageId(String view) {
    View loaded = server.server().catalogs().find("iceberg").orElseThrow().views().orElseThrow().loadView(TableIdentifier.of("d", view));
    return TableIdentifier.of(loaded.properties().get("storage_schema"), loaded.properties().get("storage_table"));
  }

  private static Table storage(String view) {
    return server.server().catalogs().find("iceberg").orElseThrow().iceberg().loadTable(storageId(view));
  }

  private static List<String> sorted(List<List<Object>> rows) {
    return rows.stream().map(Object::toString).sorted(Comparator.naturalOrder()).toList();
  }

  private static List<List<Object>> rows(Statement s, String query) throws SQLException {
    try (ResultSet result = s.executeQuery(query)) {
      return JdbcRows.of(result);
    }
  }
}
