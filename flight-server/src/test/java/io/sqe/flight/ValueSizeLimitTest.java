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
    assertRefused(server, "regexp_replace", "SELECT regexp_replace(repeat(s, n), 'b', '" + LONG + "') FROM v.t WHERE n < 1000000");
    assertRefused(server, "||", "SELECT char_length(rpad(s, 9000000) || rpad(s, 9000000)) FROM v.t WHERE n < 1000000");
    assertRefused(server, "array_to_string", "SELECT array_join(array_agg(s), '" + LONG.repeat(20) + "') FROM (SELECT s FROM v.t, (VALUES "
        + "(1), (2), (3), (4), (5), (6), (7), (8), (9), (10)) a(i), (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)) b(i),"
        + " (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)) c(i), (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)) d(i)) x");
  }

  /** About 0.6 Mi characters, elements or bytes: two of them are over the small server's 1 Mi. */
  private static final String HALF = "rpad('x', 600000, 'ab')";
  private static final String HALF_ARRAY = "flatten(transform(sequence(1, 60), i -> sequence(1, 10000)))";

  @Test
  void everyFunctionThatGrowsItsInputIsBounded() {
    assertRefused(small, "concat", "SELECT char_length(concat('a', " + HALF + ", NULL, " + HALF + "))");
    assertRefused(small, "concat_ws", "SELECT char_length(concat_ws(',', " + HALF + ", 1, " + HALF + "))");
    assertRefused(small, "format", "SELECT char_length(format('%1200000s', 'x'))");
    assertRefused(small, "format", "SELECT char_length(format('%.1200000f', 1.5))");
    assertRefused(small, "format", "SELECT char_length(format('%s%s', " + HALF + ", " + HALF + "))");
    assertRefused(small, "overlay", "SELECT char_length(overlay(" + HALF + " PLACING " + HALF + " FROM 2 FOR 0))");
    assertRefused(small, "to_hex", "SELECT char_length(to_hex(to_utf8(" + HALF + ")))");
    assertRefused(small, "to_base64", "SELECT char_length(to_base64(to_utf8(rpad('x', 900000))))");
    assertRefused(small, "to_base64url", "SELECT char_length(to_base64url(to_utf8(rpad('x', 900000))))");
    assertRefused(small, "to_base32", "SELECT char_length(to_base32(to_utf8(rpad('x', 700000))))");
    assertRefused(small, "url_encode", "SELECT char_length(url_encode(rpad('/', 400000, '/')))");
    assertRefused(small, "lpad", "SELECT octet_length(lpad(x'00', 1200000, x'01'))");
    assertRefused(small, "rpad", "SELECT octet_length(rpad(x'00', 1200000))");
    assertRefused(small, "||", "SELECT octet_length(to_utf8(" + HALF + ") || to_utf8(" + HALF + "))");
    assertRefused(small, "overlay", "SELECT octet_length(overlay(to_utf8(" + HALF + ") PLACING to_utf8(" + HALF + ") FROM 1 FOR 0))");
    assertRefused(small, "array_concat", "SELECT cardinality(array_concat(" + HALF_ARRAY + ", ARRAY[1], " + HALF_ARRAY + "))");
    assertRefused(small, "||", "SELECT cardinality(" + HALF_ARRAY + " || " + HALF_ARRAY + ")");
    assertRefused(small, "flatten", "SELECT cardinality(flatten(transform(sequence(1, 120), i -> sequence(1, 10000))))");
    assertRefused(small, "combinations", "SELECT cardinality(combinations(sequence(1, 2000000000, 200000), 5))");
    assertRefused(small, "ngrams", "SELECT cardinality(ngrams(sequence(1, 3000), 1500))");
    assertRefused(small, "map_concat", "SELECT cardinality(map_concat(m, transform_keys(m, (k, v) -> -k)))"
        + " FROM (SELECT map(a, a) AS m FROM (SELECT " + HALF_ARRAY.replace("i -> sequence(1, 10000)", "i -> sequence(i * 10000, i * 10000 + 9999)") + " AS a))");
    // JSON text is checked once built: escaping doubles a backslash or a quote.
    assertRefused(small, "json_array", "SELECT char_length(json_array(rpad('\\', 700000, '\\')))");
    assertRefused(small, "json_object", "SELECT char_length(json_object('k' VALUE rpad('\"', 700000, '\"')))");
    // Each level is checked: the inner arrays are within the limit, the outer one is not.
    assertRefused(small, "json_array", "SELECT char_length(json_array(json_array(x), json_array(x)))"
        + " FROM (SELECT rpad('\\', 300000, '\\') AS x)");
    // Trino's own bound: sequence has at most 10,000 elements.
    assertThatThrownBy(() -> query(small, "SELECT sequence(1, 2000000000)")).hasMessageContaining("must not have more than 10000 entries");
  }

  @Test
  void functionsThatGrowTheirInputKeepTheirResultsWithinTheLimit() throws Exception {
    assertThat(query(small, "SELECT concat('a', NULL, 'b', 1), concat_ws(',', 'a', NULL, 'b', 1), concat_ws(NULL, 'a'),"
            + " format('%s-%5s|%.2f', 'a', NULL, 1.5), overlay('abc' PLACING 'XYZ' FROM 2 FOR 1), overlay('abc' PLACING 'XY' FROM 2),"
            + " to_hex(x'0aff'), to_base64(x'01'), to_base64url(x'ff'), to_base32(x'01'), url_encode('a b/é')"))
        .containsExactly(java.util.Arrays.asList("ab1", "a,b,1", null, "a- null|1.50", "aXYZc", "aXY", "0AFF", "AQ==", "_w==", "AE======", "a+b%2F%C3%A9"));
    assertThat(query(small, "SELECT json_array('a', 1), json_object('k' VALUE 'v')")).containsExactly(List.of("[\"a\",1]", "{\"k\":\"v\"}"));
    assertThat(query(small, "SELECT to_hex(lpad(x'01', 3, x'02')), to_hex(rpad(x'01', 2)), to_hex(x'01' || x'02'), to_hex(overlay(x'010203' PLACING x'ff' FROM 2))"))
        .containsExactly(List.of("020201", "0120", "0102", "01FF03"));
    assertThat(query(small, "SELECT array_concat(ARRAY[1], ARRAY[2, 3], ARRAY[4]) = ARRAY[1, 2, 3, 4], ARRAY[1] || ARRAY[2] = ARRAY[1, 2],"
            + " flatten(ARRAY[ARRAY[1], NULL, ARRAY[2]]) = ARRAY[1, 2], cardinality(combinations(sequence(1, 5), 2)),"
            + " ngrams(ARRAY[1, 2, 3], 2) = ARRAY[ARRAY[1, 2], ARRAY[2, 3]], cardinality(map_concat(MAP[1, 2], MAP[1, 3, 2, 4]))"))
        .containsExactly(List.of(true, true, true, 10L, true, 2L));
    assertThat(query(small, "SELECT cardinality(" + HALF_ARRAY + " || " + HALF_ARRAY.replace("60", "40") + "),"
            + " char_length(concat(" + HALF + ", rpad('y', 448576)))"))
        .containsExactly(List.of(1000000L, 1048576L));
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
