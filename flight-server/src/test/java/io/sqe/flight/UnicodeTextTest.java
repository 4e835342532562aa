package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.ResultComparison;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Text beyond Latin-1 in SQL: string literals, identifiers and LIKE patterns in CJK, emoji (beyond
 * the Basic Multilingual Plane), right-to-left Arabic and Hebrew and combining marks, in queries,
 * INSERT, CTAS, views and a policy's filter and mask, through the Flight SQL JDBC driver and
 * Flight SQL's own client. Answers are compared with DuckDB over the same rows, or with the very
 * strings the statement holds.
 */
class UnicodeTextTest {
  private static final String TOKYO = "東京";
  private static final String PARTY = "\ud83d\ude00\ud83c\udf89";
  private static final String CAIRO = "القاهرة";
  private static final String JERUSALEM = "ירושלים";
  private static final String CAFE = "Cafe\u0301";
  private static final String ATHENS = "Αθήνα";
  private static final List<String> CITIES = List.of(TOKYO, PARTY, CAIRO, JERUSALEM, "Zürich", CAFE, ATHENS, "plain");

  private static final String POLICY =
      """
      {
        "tables": [
          {"role": "admin", "privileges": ["OWNERSHIP"]},
          {"role": "viewer", "table": "places", "privileges": ["SELECT"],
           "filter": "region = 'Ελλάδα' OR city LIKE '%京'",
           "columns": [{"name": "note", "mask": "'＊' || substring(note, 2)"}]}
        ]
      }
      """;

  @TempDir static Path dir;
  static TestServer server;
  static Connection duckdb;

  @BeforeAll
  static void start() throws Exception {
    Path policy = dir.resolve("rules.json");
    Files.writeString(policy, POLICY);
    server = TestServer.start(dir.resolve("data"), Map.of("security.policy-file", policy.toString()));
    server.server().authentication().users().addUser("vera", "vera-pw".toCharArray(), Set.of("viewer"));
    StringBuilder values = new StringBuilder();
    for (int i = 0; i < CITIES.size(); i++) {
      values.append(i == 0 ? "" : ", ").append("(").append(i).append(", '").append(CITIES.get(i)).append("')");
    }
    try (Connection admin = DriverManager.getConnection(server.jdbcUrl() + "&user=admin&password=" + server.adminPassword());
        Statement s = admin.createStatement()) {
      s.execute("CREATE SCHEMA u");
    }
    try (Connection admin = admin(); Statement s = admin.createStatement()) {
      s.execute("CREATE TABLE cities (id INT, city VARCHAR)");
      s.execute("INSERT INTO cities VALUES " + values);
      s.execute("CREATE TABLE places (id INT, city VARCHAR, region VARCHAR, note VARCHAR)");
      s.execute("INSERT INTO places VALUES (1, '" + ATHENS + "', 'Ελλάδα', 'شكرا'), (2, '" + TOKYO + "', 'Japan', 'ありがとう'), (3, 'Lyon', 'France', 'merci')");
    }
    duckdb = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duckdb.createStatement()) {
      s.execute("CREATE TABLE cities (id INT, city VARCHAR)");
      s.execute("INSERT INTO cities VALUES " + values);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (duckdb != null) {
      duckdb.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static Connection admin() throws SQLException {
    return connect(TestServer.ADMIN, server.adminPassword());
  }

  /** A connection whose statements name tables of schema {@code u}. */
  private static Connection connect(String user, String password) throws SQLException {
    Connection c = DriverManager.getConnection(server.jdbcUrl() + "&user=" + user + "&password=" + password);
    try (Statement s = c.createStatement()) {
      s.execute("USE u");
    }
    return c;
  }

  private static List<List<Object>> query(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return ResultComparison.rows(rs);
    }
  }

  private static List<List<Object>> sqe(String sql) throws SQLException {
    try (Connection c = admin()) {
      return query(c, sql);
    }
  }

  @Test
  void literalsComeBackAsWritten() throws Exception {
    List<List<Object>> rows = sqe("SELECT '" + TOKYO + "', '" + PARTY + "', '" + CAIRO + "', '" + JERUSALEM + "', '" + CAFE + "'");
    assertThat(rows).containsExactly(List.of(TOKYO, PARTY, CAIRO, JERUSALEM, CAFE));
  }

  @Test
  void flightSqlClientReadsTheLiteralsToo() throws Exception {
    try (BufferAllocator allocator = new RootAllocator(); TestServer.Client client = server.client(allocator)) {
      FlightInfo info = client.sql().execute("SELECT '" + PARTY + "' AS e, '" + CAIRO + "' AS a", client.auth());
      List<List<Object>> rows = client.rows(info);
      assertThat(rows).hasSize(1);
      assertThat(rows.get(0).stream().map(String::valueOf).toList()).containsExactly(PARTY, CAIRO);
    }
  }

  @Test
  void comparisonsAndLikePatternsAgreeWithDuckDb() throws Exception {
    List<String> predicates =
        List.of(
            "city = '" + TOKYO + "'",
            "city = '" + CAIRO + "'",
            "city <> '" + JERUSALEM + "'",
            "city LIKE '東%'",
            "city LIKE '_\ud83c\udf89'",
            "city LIKE '__'",
            "city LIKE '%ל%'",
            "city LIKE 'ال%ة'",
            "city LIKE 'Cafe_'",
            "city LIKE 'Caf_'",
            "city NOT LIKE '%ü%'",
            "city LIKE '%\u0301'",
            "city IN ('" + ATHENS + "', '" + PARTY + "')",
            "city > 'Zürich'");
    for (String predicate : predicates) {
      String sql = "SELECT id, city FROM cities WHERE " + predicate + " ORDER BY id";
      List<List<Object>> expected;
      try (Statement s = duckdb.createStatement(); ResultSet rs = s.executeQuery(sql)) {
        expected = ResultComparison.rows(rs);
      }
      ResultComparison.assertSameRows(predicate, sqe(sql), expected);
      // The same predicate on an expression is evaluated row by row, not in the scan.
      String rowLevel = sql.replace("WHERE city", "WHERE (city || '')");
      ResultComparison.assertSameRows(predicate + " on an expression", sqe(rowLevel), expected);
    }
  }

  @Test
  void identifiersInOtherScripts() throws Exception {
    try (Connection admin = admin(); Statement s = admin.createStatement()) {
      s.execute("CREATE TABLE \"場所\" (\"名前\" VARCHAR, מספר INT)");
      s.execute("INSERT INTO \"場所\" VALUES ('" + TOKYO + "', 1)");
      assertThat(query(admin, "SELECT \"名前\", מספר AS \"número\" FROM \"場所\" WHERE \"名前\" = '" + TOKYO + "'"))
          .containsExactly(List.of(TOKYO, java.math.BigDecimal.ONE));
      try (ResultSet rs = s.executeQuery("SELECT \"名前\" AS \"😀\" FROM \"場所\"")) {
        assertThat(rs.getMetaData().getColumnLabel(1)).isEqualTo("\ud83d\ude00");
      }
    }
  }

  @Test
  void insertCtasAndViewsKeepTheText() throws Exception {
    try (Connection admin = admin(); Statement s = admin.createStatement()) {
      s.execute("CREATE TABLE tagged AS SELECT id, city || ' ★' AS city FROM cities WHERE city LIKE '%京' OR city = '" + PARTY + "'");
      assertThat(query(admin, "SELECT id, city FROM tagged ORDER BY id"))
          .containsExactly(
              List.of(java.math.BigDecimal.ZERO, TOKYO + " ★"), List.of(java.math.BigDecimal.ONE, PARTY + " ★"));
      s.execute("CREATE VIEW rtl AS SELECT id FROM cities WHERE city IN ('" + CAIRO + "', '" + JERUSALEM + "') OR city LIKE 'Α%'");
      assertThat(query(admin, "SELECT id FROM rtl ORDER BY id"))
          .containsExactly(List.of(java.math.BigDecimal.valueOf(2)), List.of(java.math.BigDecimal.valueOf(3)), List.of(java.math.BigDecimal.valueOf(6)));
      try (PreparedStatement p = admin.prepareStatement("SELECT count(*) FROM cities WHERE city = ? OR city = '" + CAFE + "'")) {
        p.setString(1, CAIRO);
        try (ResultSet rs = p.executeQuery()) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getLong(1)).isEqualTo(2);
        }
      }
    }
  }

  @Test
  void policyFiltersAndMasksWithUnicodeLiterals() throws Exception {
    try (Connection vera = connect("vera", "vera-pw")) {
      assertThat(query(vera, "SELECT id, city, note FROM places ORDER BY id"))
          .containsExactly(
              List.of(java.math.BigDecimal.ONE, ATHENS, "＊كرا"),
              List.of(java.math.BigDecimal.valueOf(2), TOKYO, "＊りがとう"));
    }
  }
}
