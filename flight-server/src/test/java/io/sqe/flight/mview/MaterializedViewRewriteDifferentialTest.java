package io.sqe.flight.mview;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
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
 * Seeded random materialized views (a join or one table, grouped by a random subset of columns,
 * with SUM, COUNT, MIN and MAX) and random queries that they may answer (the same or a coarser
 * grouping, extra filters on grouping columns, fewer aggregates), between random appends, deletes,
 * updates and refreshes: every query's answer with {@code materialized_view_rewrite} on equals its
 * answer with it off, rows and column types. EXPLAIN tells whether a query was rewritten; a good
 * share must be, so that the test cannot pass by never rewriting. The seed is printed; {@code
 * -Dsqe.mview.seed=N} replays it, {@code -Dsqe.mview.steps=N} runs more steps.
 */
class MaterializedViewRewriteDifferentialTest {
  private static final List<String> KEYS = List.of("c.region", "c.segment", "o.status", "o.priority");
  private static final List<String> VALUES = List.of("o.amount", "o.price", "o.quantity");
  private static final List<String> REGIONS = List.of("EU", "US", "APAC");
  private static final List<String> SEGMENTS = List.of("retail", "bank", "auto");
  private static final List<String> STATUSES = List.of("O", "F", "P");

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
  void everyRewrittenAnswerEqualsTheQueryOverTheSources() throws SQLException {
    long seed = Long.getLong("sqe.mview.seed", System.nanoTime());
    int steps = Integer.getInteger("sqe.mview.steps", 200);
    System.out.println("MaterializedViewRewriteDifferentialTest seed: " + seed + " (replay with -Dsqe.mview.seed=" + seed + ")");
    Random random = new Random(seed);
    int rewritten = 0;
    int stale = 0;
    try (Connection jdbc = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
        Statement s = jdbc.createStatement()) {
      s.executeUpdate("CREATE SCHEMA d");
      s.executeUpdate("CREATE TABLE d.customers (id BIGINT, region VARCHAR, segment VARCHAR)");
      s.executeUpdate("CREATE TABLE d.orders (id BIGINT, customer BIGINT, status VARCHAR, priority INTEGER,"
          + " amount BIGINT, price DECIMAL(12, 2), quantity DOUBLE)");
      for (long id = 1; id <= 6; id++) {
        s.executeUpdate("INSERT INTO d.customers VALUES " + customer(random, id));
      }
      long nextOrder = 1;
      for (int i = 0; i < 4; i++) {
        s.executeUpdate("INSERT INTO d.orders VALUES " + orders(random, nextOrder, 5));
        nextOrder += 5;
      }
      List<View> views = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        View view = View.random(random, "v" + i);
        views.add(view);
        s.executeUpdate("CREATE MATERIALIZED VIEW d." + view.name() + " AS " + view.sql());
      }
      for (int step = 0; step < steps; step++) {
        String change = null;
        switch (random.nextInt(10)) {
          case 0, 1 -> {
            change = "INSERT INTO d.orders VALUES " + orders(random, nextOrder, 3);
            nextOrder += 3;
          }
          case 2 -> change = "DELETE FROM d.orders WHERE amount < " + random.nextInt(20);
          case 3 -> change = "UPDATE d.orders SET status = '" + pick(random, STATUSES) + "' WHERE id % 5 = " + random.nextInt(5);
          case 4, 5, 6, 7 -> change = "REFRESH MATERIALIZED VIEW d." + views.get(random.nextInt(views.size())).name();
          case 8 -> {
            int replaced = random.nextInt(views.size());
            View view = View.random(random, views.get(replaced).name());
            views.set(replaced, view);
            change = "CREATE OR REPLACE MATERIALIZED VIEW d." + view.name() + " AS " + view.sql();
          }
          default -> { }
        }
        if (change != null) {
          s.executeUpdate(change);
        }
        String query = views.get(random.nextInt(views.size())).query(random);
        String at = "seed " + seed + ", step " + step + ", after " + change + ": " + query;
        String explained = MaterializedViewRewriteTest.explain(s, query);
        if (explained.contains("-- rewritten onto materialized view")) {
          rewritten++;
        } else if (explained.contains("-- not rewritten onto materialized view")) {
          stale++;
        }
        MaterializedViewRewriteTest.assertSameAnswer(s, query, at);
      }
    }
    System.out.println("MaterializedViewRewriteDifferentialTest: " + rewritten + " of " + steps + " queries rewritten, "
        + stale + " matched a stale view");
    assertThat(rewritten).as("queries rewritten, seed " + seed).isGreaterThanOrEqualTo(steps / 5);
    assertThat(stale).as("queries a stale view matched, seed " + seed).isPositive();
  }

  /** A materialized view: grouping columns and aggregates over the join of orders and customers, or over orders alone. */
  private record View(String name, boolean join, List<String> keys, List<String> aggregates, String filter) {
    static View random(Random random, String name) {
      boolean join = random.nextInt(4) != 0;
      List<String> keys = new ArrayList<>();
      for (String key : KEYS) {
        if ((join || key.startsWith("o.")) && random.nextInt(3) != 0) {
          keys.add(key);
        }
      }
      List<String> aggregates = new ArrayList<>(List.of("count(*)"));
      for (String value : VALUES) {
        for (String function : List.of("sum", "min", "max", "count")) {
          if (random.nextInt(3) == 0) {
            aggregates.add(function + "(" + value + ")");
          }
        }
      }
      String filter = random.nextInt(3) == 0 ? "o.priority < " + (2 + random.nextInt(3)) : null;
      return new View(name, join, keys, aggregates, filter);
    }

    String sql() {
      List<String> columns = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        columns.add(keys.get(i) + " AS k" + i);
      }
      for (int i = 0; i < aggregates.size(); i++) {
        columns.add(aggregates.get(i) + " AS a" + i);
      }
      return "SELECT " + String.join(", ", columns) + from() + (keys.isEmpty() ? "" : " GROUP BY " + String.join(", ", keys));
    }

    private String from() {
      String where = filter == null ? "" : " WHERE " + filter;
      return join ? " FROM d.orders o JOIN d.customers c ON o.customer = c.id" + where : " FROM d.orders o" + where;
    }

    /** A query this view may answer: a subset of its keys, some of its aggregates, perhaps a filter on a key. */
    String query(Random random) {
      List<String> grouping = new ArrayList<>();
      for (String key : keys) {
        if (random.nextBoolean()) {
          grouping.add(key);
        }
      }
      List<String> columns = new ArrayList<>(grouping);
      for (String aggregate : aggregates) {
        if (random.nextInt(3) != 0) {
          columns.add(aggregate);
        }
      }
      if (columns.size() == grouping.size()) {
        columns.add("count(*)");
      }
      List<String> conditions = new ArrayList<>();
      if (filter != null) {
        conditions.add(filter);
      }
      if (!keys.isEmpty() && random.nextBoolean()) {
        String key = keys.get(random.nextInt(keys.size()));
        conditions.add(switch (key) {
          case "c.region" -> key + " = '" + pick(random, REGIONS) + "'";
          case "c.segment" -> key + " <> '" + pick(random, SEGMENTS) + "'";
          case "o.status" -> key + " IN ('" + pick(random, STATUSES) + "', '" + pick(random, STATUSES) + "')";
          default -> key + " >= " + random.nextInt(4);
        });
      }
      String from = join ? " FROM d.orders o JOIN d.customers c ON o.customer = c.id" : " FROM d.orders o";
      return "SELECT " + String.join(", ", columns) + from
          + (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions))
          + (grouping.isEmpty() ? "" : " GROUP BY " + String.join(", ", grouping));
    }
  }

  private static String customer(Random random, long id) {
    String region = random.nextInt(8) == 0 ? "NULL" : "'" + pick(random, REGIONS) + "'";
    return "(" + id + ", " + region + ", '" + pick(random, SEGMENTS) + "')";
  }

  private static String orders(Random random, long first, int count) {
    List<String> rows = new ArrayList<>();
    for (long id = first; id < first + count; id++) {
      String amount = random.nextInt(8) == 0 ? "NULL" : Integer.toString(random.nextInt(100));
      String price = random.nextInt(8) == 0 ? "NULL" : random.nextInt(1000) + "." + random.nextInt(100);
      String quantity = random.nextInt(8) == 0 ? "NULL" : Integer.toString(random.nextInt(50));
      String status = random.nextInt(10) == 0 ? "NULL" : "'" + pick(random, STATUSES) + "'";
      rows.add("(" + id + ", " + (1 + random.nextInt(7)) + ", " + status + ", " + random.nextInt(5) + ", "
          + amount + ", " + price + ", " + quantity + ")");
    }
    return String.join(", ", rows);
  }

  private static String pick(Random random, List<String> values) {
    return values.get(random.nextInt(values.size()));
  }
}
