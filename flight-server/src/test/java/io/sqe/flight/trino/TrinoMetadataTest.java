package io.sqe.flight.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.ServerInfo;
import io.sqe.flight.testing.ResultComparison;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Trino's JDBC driver (476) reads of SQE's catalogs: every DatabaseMetaData call DBeaver's
 * generic JDBC plugin makes on connecting and browsing (with the answers the driver gives itself,
 * as against Trino), every SQE type in getColumns and getTypeInfo, and Trino's SHOW and DESCRIBE.
 */
class TrinoMetadataTest {
  @TempDir static Path dir;
  private static TrinoFixture trino;

  @BeforeAll
  static void start() throws Exception {
    trino = TrinoFixture.start(dir);
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE SCHEMA sales");
      statement.executeUpdate("CREATE TABLE sales.orders (id BIGINT NOT NULL, amount DECIMAL(12, 2), placed TIMESTAMP WITH TIME ZONE,"
          + " note VARCHAR) COMMENT 'all orders'");
      statement.executeUpdate("COMMENT ON COLUMN sales.orders.amount IS 'in EUR'");
      statement.executeUpdate("CREATE VIEW sales.big_orders AS SELECT id, amount FROM sales.orders WHERE amount > 100");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    trino.close();
  }

  @Test
  void whatDbeaverReadsOnConnecting() throws Exception {
    try (Connection connection = trino.connect()) {
      DatabaseMetaData meta = connection.getMetaData();
      assertThat(meta.getDatabaseProductName()).isEqualTo("Trino");
      assertThat(meta.getDatabaseProductVersion()).isEqualTo(ServerInfo.VERSION);
      assertThat(meta.getUserName()).isEqualTo("admin");
      assertThat(column(meta.getCatalogs(), "TABLE_CAT")).containsExactly("iceberg");
      assertThat(rows(meta.getSchemas())).contains(List.of("sales", "iceberg"), List.of("information_schema", "iceberg"));
      assertThat(rows(meta.getSchemas("iceberg", "sal%"))).containsExactly(List.of("sales", "iceberg"));
      assertThat(column(meta.getTableTypes(), "TABLE_TYPE")).containsExactly("TABLE", "VIEW");
      List<String> types = column(meta.getTypeInfo(), "TYPE_NAME");
      assertThat(types).contains("bigint", "varchar", "decimal", "timestamp with time zone");
      assertThat(column(meta.getClientInfoProperties(), "NAME")).contains("ApplicationName", "ClientInfo", "ClientTags");
      // What the driver answers itself, which DBeaver reads to shape its SQL and its navigator.
      assertThat(meta.getIdentifierQuoteString()).isEqualTo("\"");
      assertThat(meta.getSQLKeywords()).contains("LIMIT");
      assertThat(meta.getCatalogTerm()).isEqualTo("catalog");
      assertThat(meta.getSchemaTerm()).isEqualTo("schema");
      assertThat(meta.supportsCatalogsInTableDefinitions()).isTrue();
      assertThat(meta.supportsSchemasInTableDefinitions()).isTrue();
      assertThat(meta.supportsTransactions()).isTrue();
      assertThat(meta.supportsBatchUpdates()).isTrue();
      assertThat(meta.supportsStoredProcedures()).isFalse();
      assertThat(meta.storesLowerCaseIdentifiers()).isTrue();
      assertThat(meta.supportsResultSetType(ResultSet.TYPE_FORWARD_ONLY)).isTrue();
      assertThat(meta.isReadOnly()).isFalse();
      // The connection's session, as the server keeps it.
      assertThat(connection.getCatalog()).isEqualTo("iceberg");
      assertThat(connection.getAutoCommit()).isTrue();
      assertThat(connection.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_UNCOMMITTED);
      connection.setSchema("sales");
      try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery("SELECT count(*) FROM orders")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isZero();
      }
      assertThat(connection.isValid(5)).isTrue();
    }
  }

  @Test
  void whatDbeaverReadsWhileBrowsing() throws Exception {
    try (Connection connection = trino.connect()) {
      DatabaseMetaData meta = connection.getMetaData();
      try (ResultSet tables = meta.getTables("iceberg", "sales", "%", new String[] {"TABLE", "VIEW"})) {
        List<List<Object>> rows = new ArrayList<>();
        while (tables.next()) {
          rows.add(List.of(tables.getString("TABLE_NAME"), tables.getString("TABLE_TYPE"), String.valueOf(tables.getString("REMARKS"))));
        }
        assertThat(rows).containsExactly(List.of("orders", "TABLE", "all orders"), List.of("big_orders", "VIEW", "null"));
      }
      Map<String, List<Object>> columns = new LinkedHashMap<>();
      try (ResultSet rs = meta.getColumns("iceberg", "sales", "orders", "%")) {
        while (rs.next()) {
          columns.put(rs.getString("COLUMN_NAME"), List.of(rs.getInt("DATA_TYPE"), rs.getString("TYPE_NAME"), rs.getInt("COLUMN_SIZE"),
              rs.getInt("DECIMAL_DIGITS"), rs.getInt("NULLABLE"), String.valueOf(rs.getString("REMARKS")), rs.getInt("ORDINAL_POSITION")));
        }
      }
      assertThat(columns).containsExactly(
          Map.entry("id", List.of(Types.BIGINT, "bigint", 19, 0, DatabaseMetaData.columnNoNulls, "null", 1)),
          Map.entry("amount", List.of(Types.DECIMAL, "decimal(12,2)", 12, 2, DatabaseMetaData.columnNullable, "in EUR", 2)),
          Map.entry("placed", List.of(Types.TIMESTAMP_WITH_TIMEZONE, "timestamp(6) with time zone", 33, 6, DatabaseMetaData.columnNullable,
              "null", 3)),
          Map.entry("note", List.of(Types.VARCHAR, "varchar", 0, 0, DatabaseMetaData.columnNullable, "null", 4)));
      assertThat(meta.getPrimaryKeys("iceberg", "sales", "orders").next()).isFalse();
      assertThat(meta.getProcedures("iceberg", "sales", "%").next()).isFalse();
      assertThat(meta.getProcedureColumns("iceberg", "sales", "%", "%").next()).isFalse();
      assertThat(meta.getUDTs("iceberg", "sales", "%", null).next()).isFalse();
      assertThat(meta.getSuperTypes("iceberg", "sales", "%").next()).isFalse();
      assertThat(meta.getSuperTables("iceberg", "sales", "%").next()).isFalse();
      assertThat(meta.getAttributes("iceberg", "sales", "%", "%").next()).isFalse();
      assertThat(meta.getPseudoColumns("iceberg", "sales", "%", "%").next()).isFalse();
      // The driver asks the server for no rows for these (keys are not part of Trino's metadata)...
      assertThat(meta.getImportedKeys("iceberg", "sales", "orders").next()).isFalse();
      // ...and refuses these itself, as against Trino; DBeaver reads that as "none".
      for (ThrowingCall call : List.<ThrowingCall>of(
          () -> meta.getExportedKeys("iceberg", "sales", "orders"),
          () -> meta.getCrossReference("iceberg", "sales", "orders", "iceberg", "sales", "big_orders"),
          () -> meta.getIndexInfo("iceberg", "sales", "orders", false, true),
          () -> meta.getTablePrivileges("iceberg", "sales", "orders"),
          () -> meta.getColumnPrivileges("iceberg", "sales", "orders", "%"),
          () -> meta.getBestRowIdentifier("iceberg", "sales", "orders", DatabaseMetaData.bestRowSession, true),
          () -> meta.getVersionColumns("iceberg", "sales", "orders"))) {
        assertThatThrownBy(call::run).isInstanceOf(SQLFeatureNotSupportedException.class);
      }
      assertThatThrownBy(() -> meta.getFunctions("iceberg", "sales", "%")).hasMessageContaining("not yet implemented");
      assertThatThrownBy(() -> meta.getFunctionColumns("iceberg", "sales", "%", "%")).hasMessageContaining("not yet implemented");
      // Patterns with the escape the driver announces, all schemas, and every table type.
      assertThat(meta.getSearchStringEscape()).isEqualTo("\\");
      assertThat(column(meta.getTables("iceberg", "sales", "big\\_orders", null), "TABLE_NAME")).containsExactly("big_orders");
      assertThat(column(meta.getTables("iceberg", "sales", "%", new String[] {"VIEW"}), "TABLE_NAME")).containsExactly("big_orders");
      assertThat(column(meta.getTables("iceberg", null, "orders", null), "TABLE_SCHEM")).containsExactly("sales");
      assertThat(column(meta.getColumns("iceberg", "sal%", "big\\_orders", "am%"), "COLUMN_NAME")).containsExactly("amount");
    }
  }

  @Test
  void everySqeTypeHasItsJdbcTypeInColumnsAndTypeInfo() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE TABLE sales.all_types (b BOOLEAN, i INTEGER, l BIGINT NOT NULL, r REAL, d DOUBLE,"
          + " num DECIMAL(38, 10), dt DATE, t TIME, ts TIMESTAMP, tstz TIMESTAMP WITH TIME ZONE, s VARCHAR, u UUID,"
          + " bin VARBINARY, fx BINARY(16), arr ARRAY(BIGINT), m MAP(VARCHAR, DOUBLE), st ROW(x INTEGER, y VARCHAR))");
      DatabaseMetaData meta = connection.getMetaData();
      Map<String, List<Object>> columns = new LinkedHashMap<>();
      try (ResultSet rs = meta.getColumns("iceberg", "sales", "all_types", "%")) {
        while (rs.next()) {
          columns.put(rs.getString("COLUMN_NAME"), List.of(rs.getInt("DATA_TYPE"), rs.getString("TYPE_NAME"),
              rs.getString("IS_NULLABLE"), rs.getString("IS_AUTOINCREMENT")));
        }
      }
      assertThat(columns).containsExactly(
          Map.entry("b", List.of(Types.BOOLEAN, "boolean", "YES", "NO")),
          Map.entry("i", List.of(Types.INTEGER, "integer", "YES", "NO")),
          Map.entry("l", List.of(Types.BIGINT, "bigint", "NO", "NO")),
          Map.entry("r", List.of(Types.REAL, "real", "YES", "NO")),
          Map.entry("d", List.of(Types.DOUBLE, "double", "YES", "NO")),
          Map.entry("num", List.of(Types.DECIMAL, "decimal(38,10)", "YES", "NO")),
          Map.entry("dt", List.of(Types.DATE, "date", "YES", "NO")),
          Map.entry("t", List.of(Types.TIME, "time(6)", "YES", "NO")),
          Map.entry("ts", List.of(Types.TIMESTAMP, "timestamp(6)", "YES", "NO")),
          Map.entry("tstz", List.of(Types.TIMESTAMP_WITH_TIMEZONE, "timestamp(6) with time zone", "YES", "NO")),
          Map.entry("s", List.of(Types.VARCHAR, "varchar", "YES", "NO")),
          Map.entry("u", List.of(Types.JAVA_OBJECT, "uuid", "YES", "NO")),
          Map.entry("bin", List.of(Types.VARBINARY, "varbinary", "YES", "NO")),
          Map.entry("fx", List.of(Types.VARBINARY, "varbinary", "YES", "NO")),
          Map.entry("arr", List.of(Types.ARRAY, "array(bigint)", "YES", "NO")),
          Map.entry("m", List.of(Types.JAVA_OBJECT, "map(varchar, double)", "YES", "NO")),
          Map.entry("st", List.of(Types.JAVA_OBJECT, "row(x integer, y varchar)", "YES", "NO")));
      // getTypeInfo names every base type getColumns shows, with the same JDBC type.
      Map<String, Integer> typeInfo = new LinkedHashMap<>();
      try (ResultSet rs = meta.getTypeInfo()) {
        while (rs.next()) {
          typeInfo.put(rs.getString("TYPE_NAME"), rs.getInt("DATA_TYPE"));
        }
      }
      for (List<Object> column : columns.values()) {
        String base = column.get(1).toString().replaceAll("\\(.*", "").replace(" with time zone", "");
        String name = column.get(1).toString().endsWith("with time zone") ? base + " with time zone" : base;
        assertThat(typeInfo).as(name).containsEntry(name, (Integer) column.get(0));
      }
      statement.executeUpdate("DROP TABLE sales.all_types");
    }
  }

  @Test
  void showAndDescribeAnswerWithTrinosColumns() throws Exception {
    try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
      assertThat(rows(statement.executeQuery("SHOW CATALOGS"))).containsExactly(List.of("iceberg"));
      assertThat(rows(statement.executeQuery("SHOW SCHEMAS LIKE 'sal%'"))).containsExactly(List.of("sales"));
      assertThat(rows(statement.executeQuery("SHOW TABLES FROM sales"))).containsExactly(List.of("big_orders"), List.of("orders"));
      try (ResultSet rs = statement.executeQuery("DESCRIBE sales.orders")) {
        ResultSetMetaData meta = rs.getMetaData();
        assertThat(List.of(meta.getColumnName(1), meta.getColumnName(2), meta.getColumnName(3), meta.getColumnName(4)))
            .containsExactly("Column", "Type", "Extra", "Comment");
        assertThat(rows(rs)).contains(List.of("amount", "decimal(12,2)", "", "in EUR"));
      }
      assertThat(rows(statement.executeQuery("SHOW COLUMNS FROM sales.big_orders"))).containsExactly(
          List.of("id", "bigint", "", ""), List.of("amount", "decimal(12,2)", "", ""));
      assertThat(rows(statement.executeQuery("SHOW CREATE TABLE sales.orders")).get(0).get(0).toString())
          .startsWith("CREATE TABLE iceberg.sales.orders (\n   id bigint NOT NULL,");
      assertThat(rows(statement.executeQuery("SHOW SESSION LIKE 'statement%'"))).hasSize(1);
      assertThat(column(statement.executeQuery("SHOW FUNCTIONS"), "Function")).contains("count", "lower");
      assertThat(rows(statement.executeQuery("SELECT table_name FROM system.jdbc.tables WHERE table_schem = 'sales' ORDER BY 1")))
          .containsExactly(List.of("big_orders"), List.of("orders"));
    }
  }

  @FunctionalInterface
  private interface ThrowingCall {
    void run() throws SQLException;
  }

  private static List<String> column(ResultSet rs, String name) throws SQLException {
    List<String> values = new ArrayList<>();
    try (rs) {
      while (rs.next()) {
        values.add(rs.getString(name));
      }
    }
    return values;
  }

  private static List<List<Object>> rows(ResultSet rs) throws SQLException {
    try (rs) {
      return ResultComparison.rows(rs);
    }
  }
}
