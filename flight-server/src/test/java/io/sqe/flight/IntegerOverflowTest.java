package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Integer arithmetic that leaves its type's range fails, as in Trino and PostgreSQL, instead of
 * wrapping around (issue 22, item 19): {@code abs(-9223372036854775808)}, {@code BIGINT_MIN / -1},
 * negation, +, - and *, for BIGINT, INTEGER, SMALLINT and TINYINT, on rows and on literals the
 * planner folds, and SUM (and so AVG) of BIGINT in every aggregate and window that computes one.
 * Through a real server, the Flight SQL JDBC driver and FlightSqlClient.
 */
class IntegerOverflowTest {
  private static final long MIN = Long.MIN_VALUE;
  private static final long MAX = Long.MAX_VALUE;

  @TempDir static Path dir;
  static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of());
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA o");
      s.execute("CREATE TABLE o.nums (k INT, b BIGINT, i INT)");
      s.execute("INSERT INTO o.nums VALUES (1, " + MIN + ", -2147483648), (2, -1, -1), (3, " + MAX + ", 2147483647), (3, " + MAX + ", 7)");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl() + "&user=admin&password=" + server.adminPassword());
  }

  private static List<List<Object>> query(String sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<List<Object>> rows = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          Object v = rs.getObject(i);
          row.add(v instanceof Number && !(v instanceof Double) ? (Object) ((Number) v).longValue() : v);
        }
        rows.add(row);
      }
      return rows;
    }
  }

  private static void assertOverflow(String type, String sql) {
    assertThatThrownBy(() -> query(sql)).as(sql).hasMessageContaining(type + " overflow");
  }

  @Test
  void bigintOnRows() {
    assertOverflow("bigint", "SELECT abs(b) FROM o.nums WHERE k = 1");
    assertOverflow("bigint", "SELECT b / -1 FROM o.nums WHERE k = 1");
    assertOverflow("bigint", "SELECT b / (k - 2) FROM o.nums WHERE k = 1");
    assertOverflow("bigint", "SELECT -b FROM o.nums WHERE k = 1");
    assertOverflow("bigint", "SELECT b - 1 FROM o.nums WHERE k = 1");
    assertOverflow("bigint", "SELECT b + 1 FROM o.nums WHERE k = 3");
    assertOverflow("bigint", "SELECT b * 2 FROM o.nums WHERE k = 3");
    assertOverflow("bigint", "SELECT b + i FROM o.nums WHERE k = 3");
    assertOverflow("bigint", "SELECT count(*) FROM o.nums WHERE b * k > 0");
  }

  @Test
  void narrowerTypesOnRows() {
    assertOverflow("integer", "SELECT abs(i) FROM o.nums WHERE k = 1");
    assertOverflow("integer", "SELECT i / -1 FROM o.nums WHERE k = 1");
    assertOverflow("integer", "SELECT i + 1 FROM o.nums WHERE k = 3");
    assertOverflow("integer", "SELECT i * i FROM o.nums WHERE k = 3");
    assertOverflow("smallint", "SELECT cast(k * 10000 AS SMALLINT) * cast(10 AS SMALLINT) FROM o.nums WHERE k = 3");
    assertOverflow("smallint", "SELECT -cast(k - 32771 AS SMALLINT) FROM o.nums WHERE k = 3");
    assertOverflow("tinyint", "SELECT abs(cast(k - 131 AS TINYINT)) FROM o.nums WHERE k = 3");
  }

  @Test
  void literalsThePlannerWouldFold() {
    assertOverflow("bigint", "SELECT abs(-9223372036854775808)");
    assertOverflow("bigint", "SELECT -9223372036854775808 / -1");
    assertOverflow("bigint", "SELECT 9223372036854775807 + 1");
    assertOverflow("integer", "SELECT 2147483647 + 1");
  }

  @Test
  void sumsOfBigint() {
    // A plain column: the scan folds the sum; an expression: the aggregate's generated code; a window.
    assertOverflow("bigint", "SELECT sum(b) FROM o.nums WHERE k = 3");
    assertOverflow("bigint", "SELECT k, sum(b) FROM o.nums GROUP BY k");
    assertOverflow("bigint", "SELECT sum(CASE WHEN k = 3 THEN b END) FROM o.nums");
    assertOverflow("bigint", "SELECT k, sum(CASE WHEN i > 0 THEN b END) FROM o.nums GROUP BY k");
    assertOverflow("bigint", "SELECT avg(b) FROM o.nums WHERE k = 3");
    assertOverflow("bigint", "SELECT k, sum(b) OVER (PARTITION BY k) FROM o.nums");
  }

  @Test
  void valuesInRangeAreExact() throws Exception {
    assertThat(query("SELECT abs(b + 1), b % -1, -(b + 1), (i + 1) / -1, abs(i + 1) FROM o.nums WHERE k = 1"))
        .containsExactly(List.of(MAX, 0L, MAX, 2147483647L, 2147483647L));
    assertThat(query("SELECT sum(b), sum(CASE WHEN k > 1 THEN b END) FROM o.nums WHERE k = 2 OR i = 7"))
        .containsExactly(List.of(MAX - 1, MAX - 1));
    assertThat(query("SELECT k, sum(b) OVER (PARTITION BY k) FROM o.nums WHERE k < 3 ORDER BY k"))
        .containsExactly(List.of(1L, MIN), List.of(2L, -1L));
  }

  @Test
  void theClientSeesInvalidArgument() throws Exception {
    try (BufferAllocator allocator = new RootAllocator(); TestServer.Client client = server.client(allocator)) {
      assertThatThrownBy(() -> client.rows(client.sql().execute("SELECT abs(b) FROM o.nums WHERE k = 1", client.auth())))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("bigint overflow");
          });
    }
  }
}
