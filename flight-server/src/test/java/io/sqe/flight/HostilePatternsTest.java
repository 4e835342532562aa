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
 * table's rows, on an expression and on literals the planner folds, which LIKE answers at once; and
 * regular expressions as slow, which the statement timeout stops. Each test fails when its
 * statements run past a generous limit, which only a matcher that ignores the timeout reaches.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class HostilePatternsTest {
  private static final String AS = "a".repeat(40);
  private static final String NESTED = "%a".repeat(12) + "%b";
  /** Polynomial of degree 12 in the text's length for a backtracking matcher. */
  private static final String REGEX = "(.*a){12}b";

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

  private static Connection connect(String timeout) throws SQLException {
    Connection c = DriverManager.getConnection(server.jdbcUrl() + "&user=admin&password=" + server.adminPassword());
    try (Statement s = c.createStatement()) {
      s.execute("SET statement_timeout = '" + timeout + "'");
    }
    return c;
  }

  private static Connection connect() throws SQLException {
    return connect("5s");
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

  @Test
  void regularExpressionsStopAtTheStatementTimeout() throws Exception {
    for (String sql :
        List.of(
            "SELECT count(*) FROM p.texts WHERE s SIMILAR TO '(%a){12}b'",
            "SELECT count(*) FROM p.texts WHERE regexp_like(s, '" + REGEX + "')",
            "SELECT max(regexp_replace(s, '" + REGEX + "', 'x')) FROM p.texts",
            // Literals: too long to fold while planning, so it runs (and stops) as the statement.
            "SELECT regexp_like('" + AS + "', '" + REGEX + "')")) {
      try (Connection c = connect("2s"); Statement s = c.createStatement()) {
        assertThatThrownBy(() -> s.executeQuery(sql).next()).as(sql).hasMessageContaining("exceeded its statement timeout of 2s");
      }
    }
  }

  @Test
  void regularExpressionsKeepTheirMeaning() throws Exception {
    assertThat(query("SELECT id, s SIMILAR TO 'a+b', s NOT SIMILAR TO '%(b|c)', regexp_like(s, '^a{40}$'),"
            + " regexp_like(upper(s), 'a+b', 'i'), regexp_replace(s, 'a(a*)b', 'x\\1y'), regexp_replace(s, 'a', '-', 'g')"
            + " FROM p.texts WHERE id >= 2 ORDER BY id"))
        .containsExactly(
            List.of(2L, true, false, false, true, "x" + "a".repeat(39) + "y", "-".repeat(40) + "b"),
            List.of(3L, true, false, false, true, "xy", "-b"),
            Arrays.asList(4L, null, null, null, null, null, null));
    assertThatThrownBy(() -> query("SELECT regexp_like(s, 'a(') FROM p.texts")).hasMessageContaining("Invalid regular expression 'a('");
  }
}
