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
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.View;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random appends, updates, deletes, replaces and schema changes to three source tables, and
 * refreshes of materialized views of every shape an incremental refresh takes (rows of a filter,
 * every column of a filter, rows of a join, groups of a join with SUM, COUNT, MIN, MAX and AVG of
 * integers and decimals, a global aggregate, groups without aggregates) and of one it does not
 * (AVG of floating point): after each refresh the view's storage table, read directly, and the
 * view hold exactly the rows of a full recomputation of the view's query, and EXPLAIN REFRESH said
 * beforehand whether the refresh would be incremental, which the storage table's new snapshot
 * confirms (an incremental one descends from the previous, a full rewrite replaces it).
 *
 * <p>Targeted cases of AVG follow: decimal rounding, groups of only NULLs, a global average, the
 * storage table's columns, and floating point, which rewrites in full.
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
            + " max(o.tag) AS top, sum(o.price) AS revenue, max(k.label) AS label, avg(o.price) AS mean_price, avg(o.amount) AS mean"
            + " FROM d.orders o JOIN d.customers c ON o.customer = c.id JOIN d.kinds k ON k.kind = c.kind"
            + " WHERE o.amount IS NULL OR o.amount > 5 GROUP BY c.region, k.kind");
    VIEWS.put("big", "SELECT id, amount * 2 AS twice, tag FROM d.orders WHERE amount > 50");
    VIEWS.put("joined", "SELECT o.id, c.region, o.price FROM d.orders o, d.customers c WHERE o.customer = c.id AND c.region <> 'US'");
    VIEWS.put("overall", "SELECT count(*) AS n, sum(amount) AS s, min(tag) AS lo, max(price) AS hi, count(amount) AS counted, avg(price * 3) AS mean FROM d.orders");
    VIEWS.put("star", "SELECT * FROM d.orders WHERE tag IS NOT NULL");
    VIEWS.put("pairs", "SELECT customer, tag FROM d.orders GROUP BY customer, tag");
    VIEWS.put("averages", "SELECT customer, tag, avg(amount) AS mean, avg(CAST(amount AS INTEGER) + 1) AS plus FROM d.orders GROUP BY customer, tag");
    VIEWS.put("float_averages", "SELECT customer, avg(CAST(amount AS DOUBLE)) AS mean FROM d.orders GROUP BY customer");
  }

  /** The averages of the targeted tests, {@code %s} standing for their schema. */
  private static final String AVERAGES = "SELECT g, avg(d) AS d, avg(x) AS x, avg(i) AS i, avg(b) AS b, count(*) AS n FROM %s.t GROUP BY g";
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
          List<String> expected = sorted(rows(s, VIEWS.get(name)));
          assertThat(sorted(rows(s, "SELECT * FROM d." + storageId(name).name()))).as(at).isEqualTo(expected);
          assertThat(sorted(rows(s, "SELECT * FROM d." + name))).as(at + ", read through the view").isEqualTo(expected);
        } else {
          s.executeUpdate(change);
        }
      }
    }
    System.out.println("IncrementalRefreshDifferentialTest incremental refreshes by view: " + incremental);
    assertThat(incremental).doesNotContainKey("float_averages");
    if (STEPS >= 100) {
      assertThat(incremental.keySet()).contains("by_region", "big", "averages", "overall", "star");
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

  /** AVG of decimals at the boundaries of rounding: divided at six digits half up, then widened to the average's scale. */
  @Test
  void decimalAveragesRoundAsTheQueryDoes() throws SQLException {
    try (Connection jdbc = connect();
        Statement s = jdbc.createStatement()) {
      TableIdentifier view = averagesOf(s, "rounding", AVERAGES);
      s.executeUpdate("INSERT INTO rounding.t VALUES ('third', 1.00, 0.0000005, 1, 1), ('third', 2.00, -0.0000005, 2, 2)");
      refreshIncrementally(s, view, AVERAGES, "INSERT INTO rounding.t VALUES ('third', 2.00, 0.0000010, 7, 9223372036854775), ('half', 0.01, 0.0000005, -1, -3)");
      refreshIncrementally(s, view, AVERAGES,
          "INSERT INTO rounding.t VALUES ('half', 0.00, -0.0000015, -2, 5), ('third', 99999999.99, 12345678901234567890.1234567891, 2147483647, 1)");
      refreshIncrementally(s, view, AVERAGES, "INSERT INTO rounding.t VALUES ('half', -0.03, -0.0000001, 0, 0)");
    }
  }

  @Test
  void aGroupOfOnlyNullsAveragesToNullUntilItGainsAValue() throws SQLException {
    try (Connection jdbc = connect();
        Statement s = jdbc.createStatement()) {
      TableIdentifier view = averagesOf(s, "nulls", AVERAGES);
      s.executeUpdate("INSERT INTO nulls.t VALUES ('some', 1.50, 1, 1, 1), ('none', NULL, NULL, NULL, NULL)");
      refreshIncrementally(s, view, AVERAGES, "INSERT INTO nulls.t VALUES ('none', NULL, NULL, NULL, NULL), ('new', NULL, NULL, NULL, NULL)");
      assertThat(sorted(rows(s, "SELECT d, x, i, b, n FROM nulls.means WHERE g = 'none'")))
          .containsExactly(java.util.Arrays.asList(null, null, null, null, 2L).toString());
      refreshIncrementally(s, view, AVERAGES, "INSERT INTO nulls.t VALUES ('none', 2.25, NULL, 4, NULL), ('some', NULL, 2, NULL, 2)");
      refreshIncrementally(s, view, AVERAGES, "INSERT INTO nulls.t VALUES ('new', 0.10, 0.1, 1, 1)");
    }
  }

  @Test
  void aGlobalAverageMergesToo() throws SQLException {
    try (Connection jdbc = connect();
        Statement s = jdbc.createStatement()) {
      TableIdentifier view = averagesOf(s, "global", "SELECT avg(d) AS d, avg(i + 1) AS i, count(d) AS n FROM %s.t");
      refreshIncrementally(s, view, "SELECT avg(d) AS d, avg(i + 1) AS i, count(d) AS n FROM %s.t", "INSERT INTO global.t VALUES ('a', NULL, 0, 5, NULL)");
      refreshIncrementally(s, view, "SELECT avg(d) AS d, avg(i + 1) AS i, count(d) AS n FROM %s.t", "INSERT INTO global.t VALUES ('a', 1.01, 1, 1, 1), ('b', 2.02, 3, 1, 1)");
    }
  }

  /** Trino reads a fresh view's storage table only when its columns are the view's: the sums and counts are kept beside it. */
  @Test
  void theStorageTableHasTheViewsColumnsAndTheSumsGoWithIt() throws SQLException {
    try (Connection jdbc = connect();
        Statement s = jdbc.createStatement()) {
      TableIdentifier view = averagesOf(s, "layout", AVERAGES);
      refreshIncrementally(s, view, AVERAGES, "INSERT INTO layout.t VALUES ('a', 2.00, 2, 2, 2)");
      View loaded = server.server().catalogs().find("iceberg").orElseThrow().views().orElseThrow().loadView(view);
      Table storage = storage(view);
      assertThat(storage.schema().columns().stream().map(Types.NestedField::name).toList())
          .isEqualTo(loaded.schema().columns().stream().map(Types.NestedField::name).toList());
      String state = storage.currentSnapshot().summary().get("sqe.mview.average-state");
      assertThat(storage.io().newInputFile(state).exists()).isTrue();
      s.executeUpdate("DROP MATERIALIZED VIEW " + view);
      assertThat(storage.io().newInputFile(state).exists()).as("the sums are dropped with the view").isFalse();
    }
  }

  @Test
  void averagesOfFloatingPointRewriteInFull() throws SQLException {
    String query = "SELECT g, avg(CAST(d AS DOUBLE)) AS d FROM %s.t GROUP BY g";
    try (Connection jdbc = connect();
        Statement s = jdbc.createStatement()) {
      TableIdentifier view = averagesOf(s, "floating", query);
      s.executeUpdate("INSERT INTO floating.t VALUES ('a', 2.00, 2, 2, 2)");
      assertThat(explain(s, view).get(0)).startsWith("-- refresh: full").contains("no sum and count for its averages");
      s.executeUpdate("REFRESH MATERIALIZED VIEW " + view);
      assertThat(sorted(rows(s, "SELECT * FROM " + view))).isEqualTo(sorted(rows(s, query.formatted("floating"))));
    }
  }

  /**
   * A view {@code schema.means} of {@code query} (with {@code %s} for the schema) over a new table
   * {@code schema.t} of a group, decimals and integers, after its first append: a source without a
   * snapshot has no appends to follow, so the refresh after that one is full, and keeps the sums.
   */
  private static TableIdentifier averagesOf(Statement s, String schema, String query) throws SQLException {
    s.executeUpdate("CREATE SCHEMA " + schema);
    s.executeUpdate("CREATE TABLE " + schema + ".t (g VARCHAR, d DECIMAL(10, 2), x DECIMAL(30, 10), i INTEGER, b BIGINT)");
    s.executeUpdate("CREATE MATERIALIZED VIEW " + schema + ".means AS " + query.formatted(schema));
    s.executeUpdate("INSERT INTO " + schema + ".t VALUES ('a', 1.00, 1, 1, 1)");
    s.executeUpdate("REFRESH MATERIALIZED VIEW " + schema + ".means");
    return TableIdentifier.of(schema, "means");
  }

  /** Runs {@code append}, then refreshes {@code view} of {@code query}, incrementally as EXPLAIN says, to the query's rows. */
  private static void refreshIncrementally(Statement s, TableIdentifier view, String query, String append) throws SQLException {
    s.executeUpdate(append);
    assertThat(explain(s, view).get(0)).as(append).startsWith("-- refresh: incremental");
    s.executeUpdate("REFRESH MATERIALIZED VIEW " + view);
    List<String> expected = sorted(rows(s, query.formatted(view.namespace())));
    assertThat(sorted(rows(s, "SELECT * FROM " + storageId(view)))).as(append).isEqualTo(expected);
    assertThat(sorted(rows(s, "SELECT * FROM " + view))).as(append + ", read through the view").isEqualTo(expected);
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
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
    return explain(s, TableIdentifier.of("d", name));
  }

  private static List<String> explain(Statement s, TableIdentifier view) throws SQLException {
    List<String> lines = new ArrayList<>();
    for (List<Object> row : rows(s, "EXPLAIN REFRESH MATERIALIZED VIEW " + view)) {
      lines.add((String) row.get(0));
    }
    return lines;
  }

  private static TableIdentifier storageId(String view) {
    return storageId(TableIdentifier.of("d", view));
  }

  private static TableIdentifier storageId(TableIdentifier view) {
    View loaded = server.server().catalogs().find("iceberg").orElseThrow().views().orElseThrow().loadView(view);
    return TableIdentifier.of(loaded.properties().get("storage_schema"), loaded.properties().get("storage_table"));
  }

  private static Table storage(String view) {
    return storage(TableIdentifier.of("d", view));
  }

  private static Table storage(TableIdentifier view) {
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
