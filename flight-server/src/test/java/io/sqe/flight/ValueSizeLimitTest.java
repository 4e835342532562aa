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
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Functions whose result can be far larger than their arguments refuse a value over {@code
 * query.max-value-size} with INVALID_ARGUMENT naming the function, before allocating it (issue 22,
 * item 5): {@code lpad('x', 2000000000, 'y')} and {@code repeat('x', 2147483647)} used to grow a
 * builder until the heap ran out. Through a real server (one with the default of 16 Mi characters,
 * one with 1 Mi) and the Flight SQL JDBC driver and FlightSqlClient.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ValueSizeLimitTest {
  private static final String LONG = "#".repeat(1000);

  @TempDir static Path dir;
  static TestServer server;
  static TestServer small;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir.resolve("default"), Map.of());
    small = TestServer.start(dir.resolve("small"), Map.of("query.max-value-size", "1m"));
    try (Connection c = connect(server); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA v");
      s.execute("CREATE TABLE v.t (n BIGINT, s VARCHAR)");
      s.execute("INSERT INTO v.t VALUES (2000000000, 'x'), (100000, 'ab')");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    for (TestServer s : new TestServer[] {server, small}) {
      if (s != null) {
        s.close();
      }
    }
  }

  private static Connection connect(TestServer on) throws SQLException {
    return DriverManager.getConnection(on.jdbcUrl() + "&user=admin&password=" + on.adminPassword());
  }

  private static List<List<Object>> query(TestServer on, String sql) throws SQLException {
    try (Connection c = connect(on); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<List<Object>> rows = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          Object v = rs.getObject(i);
          row.add(v instanceof Number ? (Object) ((Number) v).longValue() : v);
        }
        rows.add(row);
      }
      return rows;
    }
  }

  private static void assertRefused(TestServer on, String function, String sql) {
    assertThatThrownBy(() -> query(on, sql))
        .as(sql)
        .hasMessageContaining(function + " would return")
        .hasMessageContaining("query.max-value-size");
  }

  @Test
  void hugeResultsAreRefusedBeforeTheyAreBuilt() {
    assertRefused(server, "lpad", "SELECT lpad('x', 2000000000, 'y')");
    assertRefused(server, "rpad", "SELECT rpad(s, n) FROM v.t WHERE n > 1000000");
    assertRefused(server, "repeat", "SELECT repeat('x', 2147483647)");
    assertRefused(server, "repeat", "SELECT char_length(repeat(s, n)) FROM v.t");
    assertRefused(server, "replace", "SELECT replace(repeat(s, n), 'a', '" + LONG + "') FROM v.t WHERE n < 1000000");
    assertRefused(server, "regexp_replace", "SELECT regexp_replace(repeat(s, n), 'b', '" + LONG + "', 'g') FROM v.t WHERE n < 1000000");
    assertRefused(server, "||", "SELECT char_length(rpad(s, 9000000) || rpad(s, 9000000)) FROM v.t WHERE n < 1000000");
    assertRefused(server, "array_to_string", "SELECT array_join(array_agg(s), '" + LONG.repeat(20) + "') FROM (SELECT s FROM v.t, (VALUES "
        + "(1), (2), (3), (4), (5), (6), (7), (8), (9), (10)) a(i), (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)) b(i),"
        + " (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)) c(i), (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)) d(i)) x");
  }

  @Test
  void resultsWithinTheLimitAreComputed() throws Exception {
    assertThat(query(server, "SELECT char_length(repeat(s, n)), char_length(lpad(s, 16777216, '-')), char_length(replace(repeat(s, 1000), 'a', 'xyz'))"
            + " FROM v.t WHERE n < 1000000"))
        .containsExactly(List.of(200000L, 16777216L, 4000L));
    assertThat(query(server, "SELECT lpad('x', 3, 'ab'), rpad('abc', 2), repeat('ab', 0), repeat('ab', -1)"))
        .containsExactly(List.of("abx", "ab", "", ""));
  }

  @Test
  void theLimitIsTheServers() throws Exception {
    assertRefused(small, "repeat", "SELECT repeat('x', 1048577)");
    assertThat(query(small, "SELECT char_length(repeat('x', 1048576))")).containsExactly(List.of(1048576L));
  }

  @Test
  void theClientSeesInvalidArgument() throws Exception {
    try (BufferAllocator allocator = new RootAllocator(); TestServer.Client client = server.client(allocator)) {
      assertThatThrownBy(() -> client.rows(client.sql().execute("SELECT repeat('x', 2147483647)", client.auth())))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("repeat would return");
          });
    }
  }
}
