package io.sqe.flight.trino;

import static org.assertj.core.api.Assertions.assertThat;

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
 * What Trino's JDBC driver (476) reads of SQE's catalogs: every DatabaseMetaData call DBeaver makes
 * on connecting and browsing, and the SHOW and DESCRIBE statements of Trino's SQL.
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
      assertThat(meta.getClientInfoProperties().next()).isTrue();
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
      // The driver itself answers these with SQLFeatureNotSupportedException, as against Trino.
      for (ThrowingCall call : List.<ThrowingCall>of(
          () -> meta.getImportedKeys("iceberg", "sales", "orders"),
          () -> meta.getExportedKeys("iceberg", "sales", "orders"),
          () -> meta.getIndexInfo("iceberg", "sales", "orders", false, true),
          () -> meta.getTablePrivileges("iceberg", "sales", "orders"))) {
        try {
          call.run();
        } catch (SQLFeatureNotSupportedException e) {
          // expected of the driver
        }
      }
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
