package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Patterns that make a backtracking matcher run for minutes, through a real server and the Flight
 * SQL JDBC driver: {@code '%a%a%a%a%a%a%a%a%a%a%a%a%b'} over forty a's (issue 22, item 11) in a
 * table's rows, on an expression and on literals the planner folds. Each test fails when its
 * statements run past a generous limit, which only a backtracking matcher reaches.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class HostilePatternsTest {
  private static final String AS = "a".repeat(40);
  private static final String NESTED = "%a".repeat(12) + "%b";

  @TempDir static Path dir;
  static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of());
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA p");
      s.execute("CREATE TABLE p.texts (id INT, s VARCHAR)");
      s.execute("INSERT INTO p.texts VALUES (1, '" + AS + "'), (2, '" + AS + "b'), (3, 'ab'), (4, NULL)");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static Connection connect() throws SQLException {
    Connection c = DriverManager.getConnection(server.jdbcUrl() + "&user=admin&password=" + server.adminPassword());
    try (Statement s = c.createStatement()) {
      s.execute("SET statement_timeout = '5s'");
    }
    return c;
  }

  private static List<List<Object>> query(String sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<List<Object>> rows = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          Object v = rs.getObject(i);
          row.add(v instanceof Number ? (Object) ((Number) v).longValue() : v);
        }
        rows.add(row);
      }
      return rows;
    }
  }

  @Test
  void likeWithManyPercentsOnRows() throws Exception {
    // On an expression, so that each row is matched by the row-level LIKE, not in the scan.
    assertThat(query("SELECT id, (s || '') LIKE '" + NESTED + "', (s || '') NOT LIKE '" + NESTED + "' FROM p.texts ORDER BY id"))
        .containsExactly(
            List.of(1L, false, true), List.of(2L, true, false), List.of(3L, false, true), Arrays.asList(4L, null, null));
    assertThat(query("SELECT id FROM p.texts WHERE lower(s) LIKE '" + NESTED + "' OR id = 4 ORDER BY id"))
        .containsExactly(List.of(2L), List.of(4L));
    assertThat(query("SELECT count(*) FROM p.texts WHERE s LIKE '" + NESTED + "'")).containsExactly(List.of(1L));
  }

  @Test
  void likeOnLiteralsThatThePlannerFolds() throws Exception {
    assertThat(query("SELECT '" + AS + "' LIKE '" + NESTED + "', '" + AS + "b' LIKE '" + NESTED + "'"))
        .containsExactly(List.of(false, true));
  }

  @Test
  void ilikeAndEscapeOnRows() throws Exception {
    assertThat(query("SELECT id FROM p.texts WHERE upper(s) ILIKE '" + NESTED + "' ORDER BY id")).containsExactly(List.of(2L));
    assertThat(query("SELECT id FROM p.texts WHERE (s || '%') LIKE '" + NESTED + "!%' ESCAPE '!' ORDER BY id"))
        .containsExactly(List.of(2L));
  }
}
