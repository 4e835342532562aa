package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.metadata.ServerSqlInfo;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedCaseSensitivity;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedTransaction;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlTransactionIsolationLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SupportedAnsi92SqlGrammarLevel;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GetSqlInfo as the clients read it from a real server: Arrow's FlightSqlClient and the JDBC
 * driver's DatabaseMetaData agree, and what they advertise holds in the engine: every function
 * in the four function lists runs in a SELECT, identifiers behave as the case keys say, and the
 * transaction keys match what a transaction does.
 */
class SqlInfoThroughClientsTest {
  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;
  private static Map<Integer, Object> info;

  /**
   * Argument lists tried, in order, for each advertised function until one runs: the function
   * lists carry names only, so the test looks for a call each function accepts.
   */
  private static final List<String> ARGUMENTS =
      List.of(
          "",
          "1",
          "2.5",
          "0.5",
          "'abc'",
          "TRUE",
          "1, 2",
          "'abc', 'b'",
          "'abc', 1",
          "'abc', 1, 1",
          "'abc', 'b', 'c'",
          "1, 2, 3",
          "DATE '2024-01-02'",
          "TIMESTAMP '2024-01-02 03:04:05'",
          "TIME '03:04:05'",
          "TIMESTAMP '2024-01-02 03:04:05', TIMESTAMP '2024-02-03 04:05:06'",
          "DATE '2024-01-02', DATE '2024-02-03'",
          "'day', TIMESTAMP '2024-01-02 03:04:05'",
          "'day', TIMESTAMP '2024-01-02 03:04:05', TIMESTAMP '2024-02-03 04:05:06'",
          "TRUE, 1, 2",
          "ARRAY['a'], ARRAY[1]",
          "MAP['a', 1]",
          "ARRAY[ROW('a', 1)]",
          "'day', 1, TIMESTAMP '2024-01-02 03:04:05'",
          "DAY, TIMESTAMP '2024-01-02 03:04:05'",
          "DAY, 1, TIMESTAMP '2024-01-02 03:04:05'",
          "DAY, TIMESTAMP '2024-01-02 03:04:05', TIMESTAMP '2024-02-03 04:05:06'",
          "TIMESTAMP '2024-01-02 03:04:05', DAY",
          "TIMESTAMP '2024-01-02 03:04:05', 'YYYY-MM-DD'",
          "'2024-01-02', 'YYYY-MM-DD'",
          "'YYYY-MM-DD', '2024-01-02'",
          "'%Y-%m-%d', TIMESTAMP '2024-01-02 03:04:05'",
          "1704164645",
          "DATE '2024-01-02', 1",
          "YEAR FROM DATE '2024-01-02'",
          "'b' IN 'abc'",
          "'abc' PLACING 'x' FROM 1",
          "'abc' FROM 1 FOR 1",
          "X'0102'",
          "ARRAY[1, 2]",
          "ARRAY[1, 2], 1",
          "ARRAY['a', 'b'], ','",
          "ARRAY[1, 2], 1, 1",
          "ARRAY[1]",
          "CAST(1 AS VARIANT)",
          "'{\"a\": 1}', '$.b', 2",
          "'{\"a\": 1}', '$.a'",
          "'{\"a\": 1}'",
          "1, 'abc'",
          "'abc' USING utf8");

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of());
    allocator = new RootAllocator();
    info = new HashMap<>();
    try (TestServer.Client client = server.client(allocator)) {
      FlightInfo flightInfo = client.sql().getSqlInfo(new SqlInfo[0], client.auth());
      try (FlightStream stream = client.sql().getStream(flightInfo.getEndpoints().get(0).getTicket(), client.auth())) {
        while (stream.next()) {
          VectorSchemaRoot root = stream.getRoot();
          UInt4Vector names = (UInt4Vector) root.getVector("info_name");
          DenseUnionVector values = (DenseUnionVector) root.getVector("value");
          for (int row = 0; row < root.getRowCount(); row++) {
            info.put(names.get(row), plain(values.getObject(row)));
          }
        }
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    try (BufferAllocator a = allocator;
        TestServer s = server) {
      // Closed in reverse order.
    }
  }

  private static Object plain(Object value) {
    if (value instanceof List<?> list) {
      return list.stream().map(SqlInfoThroughClientsTest::plain).toList();
    }
    if (value instanceof org.apache.arrow.vector.util.Text text) {
      return text.toString();
    }
    return value;
  }

  private static Object value(SqlInfo id) {
    assertThat(info).as("GetSqlInfo has " + id).containsKey(id.getNumber());
    Object value = info.get(id.getNumber());
    // Integer ids travel as int64 or int32 bitmasks, as the key's type says: compare as long.
    return value instanceof Integer i ? Long.valueOf(i) : value;
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(SqlInfo id) {
    return (List<String>) value(id);
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl() + "&user=admin&password=" + server.adminPassword());
  }

  @Test
  void everyKeyAClientReadsIsAdvertisedWithItsMeaning() {
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_NAME)).isEqualTo(ServerInfo.NAME);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_VERSION)).isEqualTo(ServerInfo.VERSION);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY)).isEqualTo(false);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_SQL)).isEqualTo(true);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_SUBSTRAIT)).isEqualTo(false);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_CANCEL)).isEqualTo(true);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION)).isEqualTo(true);
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION))
        .isEqualTo((long) SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_SAVEPOINT_VALUE);
    // Idle lifetimes of prepared statement handles and of transactions (through their session),
    // in milliseconds, as FlightSql.proto defines the two keys.
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_STATEMENT_TIMEOUT))
        .isEqualTo(ServerSqlInfo.PREPARED_STATEMENT_IDLE_TIMEOUT.toMillis());
    assertThat(value(SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION_TIMEOUT))
        .isEqualTo(ServerSqlInfo.SESSION_IDLE_TIMEOUT.toMillis());
    assertThat(value(SqlInfo.SQL_IDENTIFIER_CASE))
        .isEqualTo((long) SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE_VALUE);
    assertThat(value(SqlInfo.SQL_QUOTED_IDENTIFIER_CASE))
        .isEqualTo((long) SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE_VALUE);
    assertThat(value(SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR)).isEqualTo("\"");
    assertThat(value(SqlInfo.SQL_ANSI92_SUPPORTED_LEVEL))
        .isEqualTo((long) (1 << SupportedAnsi92SqlGrammarLevel.ANSI92_ENTRY_SQL_VALUE));
    assertThat(value(SqlInfo.SQL_CATALOG_TERM)).isEqualTo("catalog");
    assertThat(value(SqlInfo.SQL_SCHEMA_TERM)).isEqualTo("schema");
    assertThat(value(SqlInfo.SQL_TRANSACTIONS_SUPPORTED)).isEqualTo(true);
    assertThat(value(SqlInfo.SQL_DEFAULT_TRANSACTION_ISOLATION))
        .isEqualTo((long) SqlTransactionIsolationLevel.SQL_TRANSACTION_READ_COMMITTED_VALUE);
    assertThat(strings(SqlInfo.SQL_KEYWORDS)).isNotEmpty().contains("LIMIT", "OFFSET");
    for (SqlInfo list :
        List.of(SqlInfo.SQL_NUMERIC_FUNCTIONS, SqlInfo.SQL_STRING_FUNCTIONS, SqlInfo.SQL_SYSTEM_FUNCTIONS, SqlInfo.SQL_DATETIME_FUNCTIONS)) {
      assertThat(strings(list)).as(list.name()).isNotEmpty().isSorted().doesNotHaveDuplicates();
    }
  }

  @Test
  void theJdbcDriverReadsTheSameValues() throws Exception {
    try (Connection connection = connect()) {
      DatabaseMetaData meta = connection.getMetaData();
      assertThat(meta.getSQLKeywords()).isEqualTo(String.join(", ", strings(SqlInfo.SQL_KEYWORDS)));
      assertThat(meta.getNumericFunctions()).isEqualTo(String.join(", ", strings(SqlInfo.SQL_NUMERIC_FUNCTIONS)));
      assertThat(meta.getStringFunctions()).isEqualTo(String.join(", ", strings(SqlInfo.SQL_STRING_FUNCTIONS)));
      assertThat(meta.getSystemFunctions()).isEqualTo(String.join(", ", strings(SqlInfo.SQL_SYSTEM_FUNCTIONS)));
      assertThat(meta.getTimeDateFunctions()).isEqualTo(String.join(", ", strings(SqlInfo.SQL_DATETIME_FUNCTIONS)));
      assertThat(meta.getIdentifierQuoteString()).isEqualTo("\"");
      assertThat(meta.supportsTransactions()).isTrue();
      assertThat(meta.supportsSavepoints()).isTrue();
      assertThat(meta.getDefaultTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
      assertThat(meta.supportsANSI92EntryLevelSQL()).isTrue();
      assertThat(meta.getCatalogTerm()).isEqualTo("catalog");
      assertThat(meta.getSchemaTerm()).isEqualTo("schema");
      assertThat(meta.isReadOnly()).isFalse();
      assertThat(meta.getDatabaseProductName()).isEqualTo(ServerInfo.NAME);
    }
  }

  @Test
  void identifiersMatchWithoutRegardToCaseQuotedOrNot() throws Exception {
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT \"MixedCase\", mixedcase, \"MIXEDCASE\" FROM (SELECT 7 AS MixedCase) t")) {
      assertThat(rs.next()).isTrue();
      assertThat(List.of(rs.getInt(1), rs.getInt(2), rs.getInt(3))).containsOnly(7);
    }
  }

  @Test
  void everyAdvertisedFunctionRunsInASelect() throws Exception {
    List<String> failures = new ArrayList<>();
    int ran = 0;
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      // Client-side in driver 18.3.0: bounds the wait for a result, so a call that never answers fails here.
      statement.setQueryTimeout(60);
      for (SqlInfo list :
          List.of(SqlInfo.SQL_NUMERIC_FUNCTIONS, SqlInfo.SQL_STRING_FUNCTIONS, SqlInfo.SQL_SYSTEM_FUNCTIONS, SqlInfo.SQL_DATETIME_FUNCTIONS)) {
        for (String function : strings(list)) {
          String error = runs(statement, function);
          if (error == null) {
            ran++;
          } else {
            failures.add(list.name() + " " + function + ": " + error);
          }
        }
      }
    }
    assertThat(failures).isEmpty();
    assertThat(ran).isGreaterThan(50);
  }

  /** Null when some call of the function runs, else the errors of the calls without arguments. */
  private static String runs(Statement statement, String function) {
    List<String> errors = new ArrayList<>();
    List<String> calls = new ArrayList<>();
    calls.add("SELECT " + function);
    for (String arguments : ARGUMENTS) {
      calls.add("SELECT " + function + "(" + arguments + ")");
    }
    for (String sql : calls) {
      try (ResultSet rs = statement.executeQuery(sql)) {
        if (rs.next()) {
          try {
            rs.getObject(1);
          } catch (RuntimeException e) {
            // The server ran it; driver 18.3.0 cannot convert some values (intervals) to Java.
          }
          return null;
        }
      } catch (SQLException e) {
        if (!sql.contains("(") || sql.endsWith("()")) {
          errors.add(sql + " -> " + firstLine(e.getMessage()));
        }
      }
    }
    return String.join("; ", errors);
  }

  private static String firstLine(String message) {
    return message == null ? "" : Arrays.stream(message.split("\n")).findFirst().orElse("");
  }
}
