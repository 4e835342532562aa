package io.sqe.flight.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.ResultComparison;
import io.sqe.flight.testing.TestServer;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trino's JDBC driver (476) against SQE's Trino endpoint: queries with every SQE type through the
 * typed getters, results of many pages checked against the Flight SQL JDBC driver, DDL and DML
 * counts, errors with Trino's codes, session statements, transactions and cancelling.
 */
class TrinoJdbcTest {
  /** Minutes of work: lineitem joined with itself on an inequality. */
  private static final String SLOW_QUERY =
      "SELECT count(*) FROM iceberg.tpch.lineitem a, iceberg.tpch.lineitem b WHERE a.l_comment < b.l_comment";
  @TempDir static Path dir;
  private static TrinoFixture trino;

  @BeforeAll
  static void start() throws Exception {
    trino = TrinoFixture.start(dir, Map.of("sample-data.tpch-scale", "0.01"));
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE SCHEMA IF NOT EXISTS jdbc");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    trino.close();
  }

  @Test
  void typedGettersReadEverySqeType() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE TABLE jdbc.types (b BOOLEAN, i INTEGER, l BIGINT, r REAL, d DOUBLE, num DECIMAL(12, 2),"
          + " dt DATE, t TIME, ts TIMESTAMP, tstz TIMESTAMP WITH TIME ZONE, s VARCHAR, u UUID, bin VARBINARY,"
          + " arr ARRAY(BIGINT), m MAP(VARCHAR, BIGINT), st ROW(x INTEGER, y VARCHAR))");
      assertThat(statement.executeUpdate("INSERT INTO jdbc.types VALUES (true, 42, 9000000000, CAST(1.5 AS REAL), 2.25, 12345.67,"
          + " DATE '2024-01-31', TIME '12:34:56.123456', TIMESTAMP '2024-01-31 12:34:56.123456',"
          + " TIMESTAMP '2024-01-31 12:34:56.123456', 'héllo, \"world\"', CAST('6f1c3f3e-2c1a-4c8e-9a57-0d1f1e2d3c4b' AS UUID),"
          + " X'00ff10', ARRAY[1, 2, 3], MAP['a', 1, 'b', 2], ROW(7, 'seven')),"
          + " (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")).isEqualTo(2);

      try (ResultSet rows = statement.executeQuery("SELECT * FROM jdbc.types ORDER BY i NULLS LAST")) {
        ResultSetMetaData meta = rows.getMetaData();
        List<String> types = new ArrayList<>();
        List<Integer> jdbcTypes = new ArrayList<>();
        for (int c = 1; c <= meta.getColumnCount(); c++) {
          types.add(meta.getColumnTypeName(c));
          jdbcTypes.add(meta.getColumnType(c));
        }
        assertThat(types).containsExactly("boolean", "integer", "bigint", "real", "double", "decimal(12,2)", "date", "time(6)",
            "timestamp(6)", "timestamp(6) with time zone", "varchar", "uuid", "varbinary", "array(bigint)", "map(varchar,bigint)",
            "row(x integer,y varchar)");
        assertThat(jdbcTypes).containsExactly(Types.BOOLEAN, Types.INTEGER, Types.BIGINT, Types.REAL, Types.DOUBLE, Types.DECIMAL,
            Types.DATE, Types.TIME, Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE, Types.VARCHAR, Types.JAVA_OBJECT, Types.VARBINARY,
            Types.ARRAY, Types.JAVA_OBJECT, Types.JAVA_OBJECT);

        assertThat(rows.next()).isTrue();
        assertThat(rows.getBoolean("b")).isTrue();
        assertThat(rows.getInt("i")).isEqualTo(42);
        assertThat(rows.getLong("l")).isEqualTo(9_000_000_000L);
        assertThat(rows.getFloat("r")).isEqualTo(1.5f);
        assertThat(rows.getDouble("d")).isEqualTo(2.25);
        assertThat(rows.getBigDecimal("num")).isEqualTo(new BigDecimal("12345.67"));
        assertThat(rows.getDate("dt").toLocalDate()).isEqualTo(LocalDate.of(2024, 1, 31));
        assertThat(rows.getObject("dt", LocalDate.class)).isEqualTo(LocalDate.of(2024, 1, 31));
        assertThat(rows.getTime("t").toLocalTime()).isEqualTo(LocalTime.of(12, 34, 56));
        // TIME literals keep milliseconds (Calcite's TIME(3)); the column holds microseconds.
        assertThat(rows.getString("t")).isEqualTo("12:34:56.123000");
        assertThat(rows.getObject("ts", LocalDateTime.class)).isEqualTo(LocalDateTime.of(2024, 1, 31, 12, 34, 56, 123_456_000));
        assertThat(rows.getTimestamp("ts").toLocalDateTime()).isEqualTo(LocalDateTime.of(2024, 1, 31, 12, 34, 56, 123_456_000));
        assertThat(rows.getObject("tstz", ZonedDateTime.class).toInstant())
            .isEqualTo(LocalDateTime.of(2024, 1, 31, 12, 34, 56, 123_456_000).toInstant(ZoneOffset.UTC));
        assertThat(rows.getString("s")).isEqualTo("héllo, \"world\"");
        assertThat(rows.getString("u")).isEqualTo("6f1c3f3e-2c1a-4c8e-9a57-0d1f1e2d3c4b");
        assertThat(rows.getBytes("bin")).containsExactly(0x00, 0xff, 0x10);
        Array array = rows.getArray("arr");
        assertThat((Object[]) array.getArray()).containsExactly(1L, 2L, 3L);
        assertThat(rows.getObject("m")).isEqualTo(Map.of("a", 1L, "b", 2L));
        assertThat(rows.getObject("st").toString()).isEqualTo("{x=7, y=seven}");

        assertThat(rows.next()).isTrue();
        for (int c = 1; c <= meta.getColumnCount(); c++) {
          assertThat(rows.getObject(c)).as("column %s", meta.getColumnName(c)).isNull();
          assertThat(rows.wasNull()).isTrue();
        }
        assertThat(rows.next()).isFalse();
      }
    }
  }

  @Test
  void typedGettersReadEdgeValuesAndNestedTypes() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE TABLE jdbc.edges (id INTEGER, l BIGINT, d DOUBLE, r REAL, num DECIMAL(38, 10), dt DATE,"
          + " ts TIMESTAMP, tstz TIMESTAMP WITH TIME ZONE, s VARCHAR, bin VARBINARY, fx BINARY(4), b BOOLEAN,"
          + " nested ARRAY(ARRAY(INTEGER)), rows ARRAY(ROW(k VARCHAR, v DECIMAL(5, 2))), m MAP(VARCHAR, ARRAY(BIGINT)),"
          + " st ROW(\"Name\" VARCHAR, at TIMESTAMP, inner_row ROW(z BOOLEAN)))");
      // Empty arrays are sliced from one-element ones: SQE's ARRAY[] needs an element to type it.
      statement.executeUpdate("INSERT INTO jdbc.edges VALUES"
          + " (1, -9223372036854775808, 4.9E-324, CAST(-3.4028235E38 AS REAL), -9999999999999999999999999999.9999999999,"
          + " DATE '0001-01-01', TIMESTAMP '1900-01-01 00:00:00.000001', TIMESTAMP '1900-01-01 00:00:00.000001', '', X'', X'00000000',"
          + " false, ARRAY[ARRAY[1, NULL], slice(ARRAY[1], 1, 0)], ARRAY[ROW('a', 1.5), NULL], MAP['k', ARRAY[NULL, 2]],"
          + " ROW('x', TIMESTAMP '2024-02-29 23:59:59.999999', ROW(true)))");
      // One row a statement: Calcite cannot plan a VALUES whose rows type nested rows differently.
      statement.executeUpdate("INSERT INTO jdbc.edges VALUES"
          + " (2, 9223372036854775807, -1.7976931348623157E308, CAST(1.17549435E-38 AS REAL), 9999999999999999999999999999.9999999999,"
          + " DATE '9999-12-31', TIMESTAMP '9999-12-31 23:59:59.999999', TIMESTAMP '9999-12-31 23:59:59.999999', '\u2603 ''q'' \\n',"
          + " X'deadbeef', X'ffffffff', true, slice(ARRAY[ARRAY[1]], 1, 0), slice(ARRAY[ROW('a', 1.5)], 1, 0),"
          + " MAP['', slice(ARRAY[1], 1, 0)], ROW('', NULL, NULL))");
      try (ResultSet rows = statement.executeQuery("SELECT * FROM jdbc.edges ORDER BY id")) {
        assertThat(rows.getMetaData().getColumnTypeName(11)).isEqualTo("varbinary");
        assertThat(rows.getMetaData().getColumnTypeName(13)).isEqualTo("array(array(integer))");
        assertThat(rows.getMetaData().getColumnTypeName(16)).isEqualTo("row(Name varchar,at timestamp(6),inner_row row(z boolean))");

        assertThat(rows.next()).isTrue();
        assertThat(rows.getLong("l")).isEqualTo(Long.MIN_VALUE);
        assertThat(rows.getBigDecimal("l")).isEqualTo(BigDecimal.valueOf(Long.MIN_VALUE));
        assertThat(rows.getString("l")).isEqualTo("-9223372036854775808");
        assertThat(rows.getDouble("d")).isEqualTo(Double.MIN_VALUE);
        assertThat(rows.getFloat("r")).isEqualTo(-Float.MAX_VALUE);
        assertThat(rows.getBigDecimal("num")).isEqualTo(new BigDecimal("-9999999999999999999999999999.9999999999"));
        assertThat(rows.getObject("num")).isEqualTo(new BigDecimal("-9999999999999999999999999999.9999999999"));
        assertThat(rows.getObject("dt", LocalDate.class)).isEqualTo(LocalDate.of(1, 1, 1));
        assertThat(rows.getObject("ts", LocalDateTime.class)).isEqualTo(LocalDateTime.of(1900, 1, 1, 0, 0, 0, 1_000));
        assertThat(rows.getObject("tstz", ZonedDateTime.class).toInstant())
            .isEqualTo(LocalDateTime.of(1900, 1, 1, 0, 0, 0, 1_000).toInstant(ZoneOffset.UTC));
        assertThat(rows.getString("s")).isEmpty();
        assertThat(rows.wasNull()).isFalse();
        assertThat(rows.getBytes("bin")).isEmpty();
        assertThat(rows.getBytes("fx")).containsExactly(0, 0, 0, 0);
        assertThat(rows.getBoolean("b")).isFalse();
        assertThat(rows.getInt("b")).isZero();
        Object[] nested = (Object[]) rows.getArray("nested").getArray();
        assertThat(nested).hasSize(2);
        assertThat((List<?>) nested[0]).isEqualTo(java.util.Arrays.asList(1, null));
        assertThat((List<?>) nested[1]).isEmpty();
        assertThat(rows.getObject("nested")).isInstanceOf(Array.class);
        Object[] rowArray = (Object[]) rows.getArray("rows").getArray();
        assertThat(rowArray[0].toString()).isEqualTo("{k=a, v=1.50}");
        assertThat(rowArray[1]).isNull();
        assertThat(rows.getObject("m")).isEqualTo(Map.of("k", java.util.Arrays.asList(null, 2L)));
        assertThat(rows.getObject("st").toString()).isEqualTo("{Name=x, at=2024-02-29 23:59:59.999999, inner_row={z=true}}");

        assertThat(rows.next()).isTrue();
        assertThat(rows.getLong("l")).isEqualTo(Long.MAX_VALUE);
        assertThat(rows.getDouble("d")).isEqualTo(-Double.MAX_VALUE);
        assertThat(rows.getFloat("r")).isEqualTo(Float.MIN_NORMAL);
        assertThat(rows.getBigDecimal("num")).isEqualTo(new BigDecimal("9999999999999999999999999999.9999999999"));
        assertThat(rows.getDate("dt").toLocalDate()).isEqualTo(LocalDate.of(9999, 12, 31));
        assertThat(rows.getTimestamp("ts").toLocalDateTime()).isEqualTo(LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000));
        assertThat(rows.getObject("tstz", ZonedDateTime.class).toInstant())
            .isEqualTo(LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000).toInstant(ZoneOffset.UTC));
        assertThat(rows.getString("s")).isEqualTo("\u2603 'q' \\n");
        assertThat(rows.getBytes("bin")).containsExactly(0xde, 0xad, 0xbe, 0xef);
        assertThat(rows.getBytes("fx")).containsExactly(0xff, 0xff, 0xff, 0xff);
        assertThat(rows.getBoolean("b")).isTrue();
        assertThat((Object[]) rows.getArray("nested").getArray()).isEmpty();
        assertThat((Object[]) rows.getArray("rows").getArray()).isEmpty();
        assertThat(rows.getObject("m")).isEqualTo(Map.of("", List.of()));
        assertThat(rows.getObject("st").toString()).isEqualTo("{Name=, at=null, inner_row=null}");
        assertThat(rows.next()).isFalse();
      }
    }
  }

  @Test
  void preparedStatementsBindEveryParameterTypeAndDescribeThemselves() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE TABLE jdbc.prepared (b BOOLEAN, i INTEGER, l BIGINT, r REAL, d DOUBLE, num DECIMAL(12, 2),"
          + " dt DATE, ts TIMESTAMP, s VARCHAR, bin VARBINARY)");
      try (PreparedStatement insert = connection.prepareStatement("INSERT INTO jdbc.prepared VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        ParameterMetaData parameters = insert.getParameterMetaData();
        assertThat(parameters.getParameterCount()).isEqualTo(10);
        assertThat(parameters.getParameterType(6)).isEqualTo(Types.DECIMAL);
        assertThat(parameters.getParameterType(9)).isEqualTo(Types.VARCHAR);
        insert.setBoolean(1, true);
        insert.setInt(2, 7);
        insert.setLong(3, -9_000_000_000L);
        insert.setFloat(4, 0.25f);
        insert.setDouble(5, 1e-7);
        insert.setBigDecimal(6, new BigDecimal("-123.45"));
        insert.setDate(7, Date.valueOf(LocalDate.of(2023, 12, 31)));
        insert.setTimestamp(8, Timestamp.valueOf(LocalDateTime.of(2023, 12, 31, 23, 59, 58, 123_000_000)));
        insert.setString(9, "it's ünïcode");
        insert.setBytes(10, new byte[] {1, 2, (byte) 0xfe});
        assertThat(insert.executeUpdate()).isEqualTo(1);
        insert.setNull(1, Types.BOOLEAN);
        insert.setInt(2, 8);
        for (int p = 3; p <= 10; p++) {
          insert.setNull(p, new int[] {Types.BIGINT, Types.REAL, Types.DOUBLE, Types.DECIMAL, Types.DATE, Types.TIMESTAMP,
              Types.VARCHAR, Types.VARBINARY}[p - 3]);
        }
        assertThat(insert.executeUpdate()).isEqualTo(1);
      }
      try (PreparedStatement select = connection.prepareStatement("SELECT s, num, i + 1 AS following FROM jdbc.prepared WHERE i = ?")) {
        ResultSetMetaData meta = select.getMetaData();
        assertThat(meta.getColumnCount()).isEqualTo(3);
        assertThat(meta.getColumnTypeName(2)).isEqualTo("decimal(12,2)");
        assertThat(meta.getColumnType(3)).isEqualTo(Types.INTEGER);
        select.setInt(1, 7);
        try (ResultSet rows = select.executeQuery()) {
          assertThat(rows.next()).isTrue();
          assertThat(rows.getString("s")).isEqualTo("it's ünïcode");
          assertThat(rows.getBigDecimal("num")).isEqualTo(new BigDecimal("-123.45"));
          assertThat(rows.getInt("following")).isEqualTo(8);
          assertThat(rows.next()).isFalse();
        }
      }
      try (ResultSet rows = statement.executeQuery("SELECT b, l, r, d, dt, ts, bin FROM jdbc.prepared WHERE i = 7")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getBoolean("b")).isTrue();
        assertThat(rows.getLong("l")).isEqualTo(-9_000_000_000L);
        assertThat(rows.getFloat("r")).isEqualTo(0.25f);
        assertThat(rows.getDouble("d")).isEqualTo(1e-7);
        assertThat(rows.getObject("dt", LocalDate.class)).isEqualTo(LocalDate.of(2023, 12, 31));
        assertThat(rows.getObject("ts", LocalDateTime.class)).isEqualTo(LocalDateTime.of(2023, 12, 31, 23, 59, 58, 123_000_000));
        assertThat(rows.getBytes("bin")).containsExactly(1, 2, 0xfe);
      }
      assertThat(count(statement, "SELECT count(*) FROM jdbc.prepared WHERE i = 8 AND l IS NULL AND s IS NULL AND bin IS NULL"))
          .isEqualTo(1);
    }
  }

  @Test
  void batchesRunEachParameterSet() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE TABLE jdbc.batch (id BIGINT, name VARCHAR)");
      try (PreparedStatement insert = connection.prepareStatement("INSERT INTO jdbc.batch VALUES (?, ?)")) {
        for (int id = 1; id <= 5; id++) {
          insert.setLong(1, id);
          insert.setString(2, "name " + id);
          insert.addBatch();
        }
        assertThat(insert.executeBatch()).containsExactly(1, 1, 1, 1, 1);
      }
      try (ResultSet rows = statement.executeQuery("SELECT sum(id), count(DISTINCT name) FROM jdbc.batch")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getLong(1)).isEqualTo(15);
        assertThat(rows.getLong(2)).isEqualTo(5);
      }
    }
  }

  @Test
  void doublesOutsideJsonNumbersAndTimeZonesRoundTrip() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(
            "SELECT CAST('NaN' AS DOUBLE), CAST('Infinity' AS DOUBLE), CAST('-Infinity' AS DOUBLE), CAST(-0.5 AS DECIMAL(3, 1)),"
                + " DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.999999'")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getDouble(1)).isNaN();
      assertThat(rows.getDouble(2)).isEqualTo(Double.POSITIVE_INFINITY);
      assertThat(rows.getDouble(3)).isEqualTo(Double.NEGATIVE_INFINITY);
      assertThat(rows.getBigDecimal(4)).isEqualTo(new BigDecimal("-0.5"));
      assertThat(rows.getObject(5, LocalDate.class)).isEqualTo(LocalDate.of(1969, 12, 31));
      assertThat(rows.getObject(6, LocalDateTime.class)).isEqualTo(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000));
    }
  }

  @Test
  void resultsOfManyPagesEqualFlightSqlResults() throws Exception {
    String sql = "SELECT l_orderkey, l_linenumber, l_partkey, l_quantity, l_extendedprice, l_discount, l_shipdate, l_comment"
        + " FROM iceberg.tpch.lineitem ORDER BY l_orderkey, l_linenumber";
    List<List<Object>> viaTrino;
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      viaTrino = ResultComparison.rows(rows);
    }
    List<List<Object>> viaFlight;
    Properties properties = new Properties();
    properties.setProperty("user", TestServer.ADMIN);
    properties.setProperty("password", trino.server().adminPassword());
    String flightUrl = "jdbc:arrow-flight-sql://127.0.0.1:" + trino.server().port() + "/?useEncryption=true&tlsRootCerts="
        + trino.caCertificate();
    try (Connection connection = DriverManager.getConnection(flightUrl, properties); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      viaFlight = ResultComparison.rows(rows);
    }
    // lineitem at scale 0.01 is about 60,000 rows, some megabytes of JSON: several pages.
    assertThat(viaTrino).hasSizeGreaterThan(50_000);
    ResultComparison.assertSameRows("lineitem through Trino's protocol", viaTrino, viaFlight);
  }

  @Test
  void ddlAndDmlReportTheirCounts() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      assertThat(statement.executeUpdate("CREATE TABLE jdbc.counts (id BIGINT, name VARCHAR)")).isZero();
      assertThat(statement.executeUpdate("INSERT INTO jdbc.counts VALUES (1, 'a'), (2, 'b'), (3, 'c')")).isEqualTo(3);
      assertThat(statement.executeUpdate("UPDATE jdbc.counts SET name = 'z' WHERE id >= 2")).isEqualTo(2);
      assertThat(statement.executeUpdate("DELETE FROM jdbc.counts WHERE id = 1")).isEqualTo(1);
      assertThat(statement.execute("SELECT name FROM jdbc.counts ORDER BY id")).isTrue();
      try (ResultSet rows = statement.getResultSet()) {
        assertThat(ResultComparison.rows(rows)).containsExactly(List.of("z"), List.of("z"));
      }
      assertThat(statement.executeUpdate("CREATE TABLE jdbc.counts_copy AS SELECT * FROM jdbc.counts")).isEqualTo(2);
      assertThat(statement.executeUpdate("DROP TABLE jdbc.counts_copy")).isZero();
    }
  }

  @Test
  void errorsCarryTrinoErrorCodes() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      assertThatThrownBy(() -> statement.executeQuery("SELEC 1"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("Syntax error")
          .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1));
      assertThatThrownBy(() -> statement.executeQuery("SELECT * FROM jdbc.no_such_table"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("no_such_table")
          .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(46));
      // A failure while running reaches the driver with the rows, after the columns.
      assertThatThrownBy(() -> readAll(statement, "SELECT CAST('x' AS INTEGER)"))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isLessThan(65536));
    }
  }

  @Test
  void wrongPasswordIsRefused() {
    assertThatThrownBy(() -> {
      try (Connection connection = trino.connect(TestServer.ADMIN, "wrong", Map.of()); Statement statement = connection.createStatement()) {
        statement.executeQuery("SELECT 1");
      }
    }).isInstanceOf(SQLException.class).hasMessageContaining("Authentication failed");
  }

  @Test
  void useAndSetChangeTheConnectionsSession() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE TABLE jdbc.session_t (x INTEGER)");
      statement.executeUpdate("INSERT INTO jdbc.session_t VALUES (5)");
      statement.execute("USE jdbc");
      assertThat(connection.getSchema()).isEqualTo("jdbc");
      try (ResultSet rows = statement.executeQuery("SELECT x FROM session_t")) {
        assertThat(ResultComparison.rows(rows)).containsExactly(List.of(BigDecimal.valueOf(5)));
      }
      // The driver keeps the property from the response and sends it with the next statements.
      statement.execute("SET SESSION statement_timeout = '1s'");
      assertThatThrownBy(() -> readAll(statement, SLOW_QUERY))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(131075));
      statement.execute("RESET statement_timeout");
      // The client sends the property back: a bad one is refused as Trino refuses an unknown property.
      assertThatThrownBy(() -> statement.execute("SET SESSION statement_timeout = 'soon'"))
          .isInstanceOf(SQLException.class).hasMessageContaining("statement_timeout");
    }
  }

  @Test
  void transactionsCommitTogetherAndRollBack() throws Exception {
    try (Connection setup = trino.connect(); Statement statement = setup.createStatement()) {
      statement.executeUpdate("CREATE TABLE jdbc.txn (id INTEGER)");
    }
    try (Connection writer = trino.connect(); Connection reader = trino.connect()) {
      writer.setAutoCommit(false);
      try (Statement statement = writer.createStatement()) {
        statement.executeUpdate("INSERT INTO jdbc.txn VALUES (1)");
        statement.executeUpdate("INSERT INTO jdbc.txn VALUES (2)");
        // The transaction reads what it staged; nobody else does yet.
        assertThat(count(statement, "SELECT count(*) FROM jdbc.txn")).isEqualTo(2);
        try (Statement other = reader.createStatement()) {
          assertThat(count(other, "SELECT count(*) FROM jdbc.txn")).isZero();
        }
      }
      writer.commit();
      try (Statement other = reader.createStatement()) {
        assertThat(count(other, "SELECT count(*) FROM jdbc.txn")).isEqualTo(2);
      }
      try (Statement statement = writer.createStatement()) {
        statement.executeUpdate("INSERT INTO jdbc.txn VALUES (3)");
      }
      writer.rollback();
      try (Statement other = reader.createStatement()) {
        assertThat(count(other, "SELECT count(*) FROM jdbc.txn")).isEqualTo(2);
      }
    }
  }

  @Test
  void cancellingAStatementStopsTheQuery() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      CompletableFuture<Throwable> running = CompletableFuture.supplyAsync(() -> {
        try (ResultSet rows = statement.executeQuery(SLOW_QUERY)) {
          rows.next();
          return null;
        } catch (SQLException e) {
          return e;
        }
      });
      waitForRunningQueries(1);
      statement.cancel();
      Throwable failure = running.get(30, TimeUnit.SECONDS);
      assertThat(failure).isInstanceOf(SQLException.class);
      waitForRunningQueries(0);
    }
  }

  @Test
  void aStatementTheEngineFailsOnEndsWithAnInternalError() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE TABLE jdbc.nested_rows (id INTEGER, st ROW(n VARCHAR, inner_row ROW(z BOOLEAN)))");
      // Calcite fails planning this VALUES with an AssertionError, not an exception.
      CompletableFuture<Throwable> running = CompletableFuture.supplyAsync(() -> {
        try {
          statement.executeUpdate("INSERT INTO jdbc.nested_rows VALUES (1, ROW('x', ROW(true))), (2, ROW(NULL, NULL))");
          return null;
        } catch (SQLException e) {
          return e;
        }
      });
      Throwable failure = running.get(60, TimeUnit.SECONDS);
      assertThat(failure).isInstanceOf(SQLException.class);
      assertThat(((SQLException) failure).getErrorCode()).isEqualTo(65536);
      assertThat(failure).hasMessageContaining("Internal error");
    }
  }

  private static void waitForRunningQueries(int expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      int running;
      try (Connection connection = trino.connect(); Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SHOW QUERIES")) {
        running = 0;
        while (rows.next()) {
          if (rows.getString("state").equals("RUNNING") && rows.getString("query").contains("l_comment < b.l_comment")) {
            running++;
          }
        }
      }
      if (running == expected) {
        return;
      }
      assertThat(System.nanoTime()).as("%d queries running, waiting for %d", running, expected).isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  private static void readAll(Statement statement, String sql) throws SQLException {
    try (ResultSet rows = statement.executeQuery(sql)) {
      while (rows.next()) {
        rows.getObject(1);
      }
    }
  }

  private static long count(Statement statement, String sql) throws SQLException {
    try (ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
