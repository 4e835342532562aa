package io.sqe.flight.mview;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.JdbcRows;
import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TrailerCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Queries that do not name a materialized view but that it answers read its storage table, as
 * EXPLAIN shows, with exactly the rows and column types of the query over the sources (the same
 * query with {@code materialized_view_rewrite} off): the same aggregate, a roll-up to a coarser
 * grouping, filters on grouping columns, projections. A stale view is not used until a refresh; a
 * reader whose access to a source is filtered reads the sources under the filter.
 */
class MaterializedViewRewriteTest {
  private static final String PASSWORD = "a-long-enough-password";
  private static final String REWRITTEN = "-- rewritten onto materialized view iceberg.r.totals";
  private static final String TOTALS =
      "SELECT c.region, c.nation, sum(o.amount) AS total, count(*) AS n, min(o.price) AS low, max(o.price) AS high,"
          + " sum(o.price) AS revenue FROM r.orders o JOIN r.customers c ON o.customer = c.id GROUP BY c.region, c.nation";

  @TempDir static Path dir;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    Path policy = dir.resolve("rules.json");
    Files.writeString(policy, """
        {
          "schemas": [
            {"role": "admin", "owner": true},
            {"role": "analyst", "schema": "r", "owner": false}
          ],
          "tables": [
            {"role": "admin", "privileges": ["OWNERSHIP"]},
            {"role": "analyst", "schema": "r", "table": "orders", "privileges": ["SELECT"], "filter": "amount < 50"},
            {"role": "analyst", "schema": "r", "table": "customers", "privileges": ["SELECT"]}
          ]
        }
        """);
    server = TestServer.start(dir.resolve("data"), Map.of("security.policy-file", policy.toString()));
    server.server().authentication().users().addUser("alice", PASSWORD.toCharArray(), Set.of("analyst"));
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @BeforeEach
  void tables() throws SQLException {
    try (Connection jdbc = admin(); Statement s = jdbc.createStatement()) {
      s.executeUpdate("CREATE SCHEMA IF NOT EXISTS r");
      s.executeUpdate("DROP MATERIALIZED VIEW IF EXISTS r.totals");
      s.executeUpdate("CREATE OR REPLACE TABLE r.customers (id BIGINT, region VARCHAR, nation VARCHAR)");
      s.executeUpdate("INSERT INTO r.customers VALUES (1, 'EU', 'FR'), (2, 'EU', 'DE'), (3, 'US', 'US'), (4, NULL, 'XX')");
      s.executeUpdate("CREATE OR REPLACE TABLE r.orders (id BIGINT, customer BIGINT, amount BIGINT, price DECIMAL(12, 2))");
      s.executeUpdate("INSERT INTO r.orders VALUES (1, 1, 10, 1.50), (2, 2, 70, 20.25), (3, 3, 55, 3.10), (4, 1, 5, NULL),"
          + " (5, 4, 8, 2.00), (6, 2, 30, 7.75)");
      s.executeUpdate("CREATE MATERIALIZED VIEW r.totals AS " + TOTALS);
    }
  }

  @Test
  void theSameAggregateARollUpFiltersAndProjectionsReadTheView() throws SQLException {
    try (Connection jdbc = admin(); Statement s = jdbc.createStatement()) {
      for (String query : List.of(
          TOTALS,
          "SELECT c.region, sum(o.amount) AS total, count(*) AS n, min(o.price), max(o.price), sum(o.price)"
              + " FROM r.orders o JOIN r.customers c ON o.customer = c.id GROUP BY c.region",
          "SELECT sum(o.amount), count(*) FROM r.orders o JOIN r.customers c ON o.customer = c.id",
          "SELECT c.nation, count(*) AS n FROM r.orders o JOIN r.customers c ON o.customer = c.id"
              + " WHERE c.region = 'EU' GROUP BY c.nation",
          "SELECT c.region, max(o.price) FROM r.orders o JOIN r.customers c ON o.customer = c.id"
              + " WHERE c.nation <> 'FR' GROUP BY c.region")) {
        assertThat(explain(s, query)).as(query).contains(REWRITTEN);
        assertSameAnswer(s, query);
      }
    }
  }

  @Test
  void aGrandTotalOfGroupsItsFilterNamesKeepsItsOneRow() throws SQLException {
    // The filter fixes every grouping column of the view: at most one of its rows matches, and a
    // query without GROUP BY still answers one row when none does.
    try (Connection jdbc = admin(); Statement s = jdbc.createStatement()) {
      for (String where : List.of("c.region = 'EU' AND c.nation = 'FR'", "c.region = 'APAC' AND c.nation = 'JP'")) {
        assertSameAnswer(s, "SELECT count(*), sum(o.amount), min(o.price) FROM r.orders o JOIN r.customers c"
            + " ON o.customer = c.id WHERE " + where);
      }
    }
  }

  @Test
  void aStaleViewIsNotUsedUntilARefresh() throws SQLException {
    String query = "SELECT c.region, sum(o.amount) FROM r.orders o JOIN r.customers c ON o.customer = c.id GROUP BY c.region";
    try (Connection jdbc = admin(); Statement s = jdbc.createStatement()) {
      assertThat(explain(s, query)).contains(REWRITTEN);
      assertSameAnswer(s, query);
      s.executeUpdate("INSERT INTO r.orders VALUES (7, 3, 1000, 1.00)");
      assertThat(explain(s, query)).doesNotContain(REWRITTEN)
          .contains("-- not rewritten onto materialized view iceberg.r.totals (iceberg.r.orders moved since the refresh)");
      assertSameAnswer(s, query);
      s.executeUpdate("REFRESH MATERIALIZED VIEW r.totals");
      assertThat(explain(s, query)).contains(REWRITTEN);
      assertSameAnswer(s, query);
      s.executeUpdate("SET SESSION materialized_view_rewrite = false");
      assertThat(explain(s, query)).doesNotContain("materialized view");
    }
  }

  @Test
  void aPlanCachedBeforeAViewWasCreatedIsPlannedAgain() throws Exception {
    String query = "SELECT c.nation, count(*) AS n FROM r.orders o JOIN r.customers c ON o.customer = c.id GROUP BY c.nation";
    try (Connection jdbc = admin(); Statement s = jdbc.createStatement()) {
      s.executeUpdate("DROP MATERIALIZED VIEW r.totals");
    }
    TrailerCapture trailers = new TrailerCapture();
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient flight = FlightClient.builder(allocator, server.server().location()).intercept(trailers).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      CallOption admin = flight.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
      drain(sql, query, admin);
      drain(sql, query, admin);
      assertThat(trailers.lastDoGet()).containsEntry("x-sqe-plan-cached", "true");
      sql.executeUpdate("CREATE MATERIALIZED VIEW r.totals AS " + TOTALS, admin);
      // Planned again, now onto the view: a rewritten plan is not kept, so never a cached one.
      drain(sql, query, admin);
      assertThat(trailers.lastDoGet()).containsEntry("x-sqe-plan-cached", "false");
      drain(sql, query, admin);
      assertThat(trailers.lastDoGet()).containsEntry("x-sqe-plan-cached", "false");
    }
  }

  private static void drain(FlightSqlClient sql, String query, CallOption auth) throws Exception {
    FlightInfo info = sql.execute(query, auth);
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
      while (stream.next()) {
        assertThat(stream.getRoot().getRowCount()).isNotNegative();
      }
    }
  }

  @Test
  void aReaderUnderARowFilterReadsTheSources() throws SQLException {
    String query = "SELECT c.region, sum(o.amount) AS total FROM r.orders o JOIN r.customers c ON o.customer = c.id"
        + " GROUP BY c.region ORDER BY c.region";
    try (Connection jdbc = DriverManager.getConnection(server.jdbcUrl(), "alice", PASSWORD); Statement s = jdbc.createStatement()) {
      assertThat(explain(s, query)).doesNotContain("materialized view");
      try (Connection admin = admin(); Statement a = admin.createStatement()) {
        a.executeUpdate("INSERT INTO r.orders VALUES (8, 3, 1, 1.00)");
      }
      // Stale, the view would not answer her either: nor does EXPLAIN tell her of it.
      assertThat(explain(s, query)).doesNotContain("materialized view");
      List<List<Object>> rows = rows(s, query);
      try (Connection admin = admin(); Statement a = admin.createStatement()) {
        assertThat(rows).isEqualTo(rows(a, "SELECT c.region, sum(o.amount) AS total FROM r.orders o"
            + " JOIN r.customers c ON o.customer = c.id WHERE o.amount < 50 GROUP BY c.region ORDER BY c.region"));
      }
    }
  }

  private static Connection admin() throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
  }

  /** The query's rows and column types with the rewrite on equal those with it off, in any order. */
  static void assertSameAnswer(Statement s, String query) throws SQLException {
    assertSameAnswer(s, query, query);
  }

  static void assertSameAnswer(Statement s, String query, String description) throws SQLException {
    List<Object> rewritten = answer(s, query);
    s.executeUpdate("SET SESSION materialized_view_rewrite = false");
    try {
      assertThat(rewritten).as(description).isEqualTo(answer(s, query));
    } finally {
      s.executeUpdate("RESET materialized_view_rewrite");
    }
  }

  private static List<Object> answer(Statement s, String query) throws SQLException {
    try (ResultSet result = s.executeQuery(query)) {
      ResultSetMetaData meta = result.getMetaData();
      List<String> types = new ArrayList<>();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        types.add(meta.getColumnTypeName(i) + "(" + meta.getPrecision(i) + "," + meta.getScale(i) + ")");
      }
      List<String> rows = new ArrayList<>();
      for (List<Object> row : JdbcRows.of(result)) {
        rows.add(row.toString());
      }
      rows.sort(null);
      return List.of(types, rows);
    }
  }

  private static List<List<Object>> rows(Statement s, String query) throws SQLException {
    try (ResultSet result = s.executeQuery(query)) {
      return JdbcRows.of(result);
    }
  }

  static String explain(Statement s, String query) throws SQLException {
    StringBuilder text = new StringBuilder();
    try (ResultSet explained = s.executeQuery("EXPLAIN " + query)) {
      while (explained.next()) {
        text.append(explained.getString(1)).append('\n');
      }
    }
    return text.toString();
  }
}
