package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TestTables;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types.NestedField;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Arrow Flight SQL JDBC driver against a real SQE server: connecting with and without a
 * catalog, queries and prepared statements (which the driver always uses), name resolution,
 * metadata browsing and errors. Expected values are computed from the rows the test wrote.
 */
class JdbcDriverTest {
  private static final Schema ORDERS =
      new Schema(
          NestedField.required(1, "id", org.apache.iceberg.types.Types.LongType.get()),
          NestedField.optional(2, "region", org.apache.iceberg.types.Types.StringType.get()),
          NestedField.required(3, "amount", org.apache.iceberg.types.Types.DecimalType.of(12, 2)),
          NestedField.optional(4, "day", org.apache.iceberg.types.Types.DateType.get()));
  private static final String[] REGIONS = {"north", "east", "south", "west", "центр"};
  private static final int ROWS = 20_000;

  @TempDir static Path dir;
  private static TestServer server;
  private static List<Record> orders;

  @BeforeAll
  static void start() {
    server = TestServer.start(dir, Map.of());
    orders = new ArrayList<>();
    for (long id = 0; id < ROWS; id++) {
      Record r = GenericRecord.create(ORDERS);
      r.setField("id", id);
      r.setField("region", id % 11 == 0 ? null : REGIONS[(int) (id % REGIONS.length)]);
      r.setField("amount", BigDecimal.valueOf(id * 37 % 100_000, 2));
      r.setField("day", id % 13 == 0 ? null : LocalDate.of(2024, 1, 1).plusDays(id % 366));
      orders.add(r);
    }
    TestTables.create(server.server().catalogs().find("iceberg").orElseThrow(), "shop", "orders", ORDERS, orders, 5_000);
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  private static Connection connect(String extra) throws SQLException {
    return DriverManager.getConnection(
        server.jdbcUrl() + "&user=admin&password=" + server.adminPassword() + extra);
  }

  /**
   * Closes a connection made with a {@code catalog}. Driver 18.3.0 sends CloseSession and then,
   * closing its client a second time, sends it again on the closed channel (fixed upstream in
   * GH-863, 19.0.0), so close() always ends with UNAVAILABLE "Channel shutdown invoked" from the
   * client itself. Had the server failed the first CloseSession, that error would escape first,
   * unwrapped; so this error, and only this one, means the session was closed.
   */
  private static CatalogConnection connectWithCatalog(String extra) throws SQLException {
    return new CatalogConnection(connect("&catalog=iceberg" + extra));
  }

  /** A connection made with {@code catalog=iceberg}, closed through {@link #closeWithSession}. */
  private record CatalogConnection(Connection connection) implements AutoCloseable {
    @Override
    public void close() {
      closeWithSession(connection);
    }
  }

  static void closeWithSession(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      assertThat(e.getMessage()).isEqualTo("Channel shutdown invoked");
      assertThat(String.valueOf(e.getCause())).contains("UNAVAILABLE");
    }
  }

  @Test
  void queriesMatchTheRowsWrittenAndCloseEndsTheSession() throws Exception {
    Connection connection = connect("&catalog=iceberg");
    try (Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "select region, count(*) as n, sum(amount) as total from shop.orders group by region order by region")) {
      Map<String, Object[]> actual = new TreeMap<>();
      while (rs.next()) {
        actual.put(String.valueOf(rs.getString("region")), new Object[] {rs.getLong("n"), rs.getBigDecimal("total")});
      }
      Map<String, Object[]> expected = new TreeMap<>();
      for (Record r : orders) {
        Object[] agg = expected.computeIfAbsent(String.valueOf(r.getField("region")), k -> new Object[] {0L, BigDecimal.ZERO.setScale(2)});
        agg[0] = (Long) agg[0] + 1;
        agg[1] = ((BigDecimal) agg[1]).add((BigDecimal) r.getField("amount"));
      }
      assertThat(actual).hasSameSizeAs(expected);
      expected.forEach((region, agg) -> assertThat(actual.get(region)).as(region).containsExactly(agg));
    }
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("select * from iceberg.shop.orders where id < 30 order by id desc")) {
      List<Record> expected = filter(r -> (Long) r.getField("id") < 30);
      java.util.Collections.reverse(expected);
      for (Record r : expected) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong("id")).isEqualTo(r.getField("id"));
        assertThat(rs.getString("region")).isEqualTo(r.getField("region"));
        assertThat(rs.getBigDecimal("amount")).isEqualTo(r.getField("amount"));
        assertThat(rs.getDate("day") == null ? null : rs.getDate("day").toLocalDate()).isEqualTo(r.getField("day"));
      }
      assertThat(rs.next()).isFalse();
    }
    closeWithSession(connection);
  }

  @Test
  void namesResolveAgainstTheSessionDefaultsAndIgnoreCaseWhenUnquoted() throws Exception {
    try (CatalogConnection session = connectWithCatalog("&schema=shop");
        Statement statement = session.connection().createStatement()) {
      for (String sql :
          List.of(
              "select count(*) from orders",
              "SELECT COUNT(*) FROM ORDERS",
              "select count(*) from Shop.Orders",
              "select count(*) from ICEBERG.SHOP.ORDERS",
              "select count(*) from \"iceberg\".\"shop\".\"orders\"",
              "select count(ID) from orders where Region is not null or REGION is null")) {
        try (ResultSet rs = statement.executeQuery(sql)) {
          assertThat(rs.next()).as(sql).isTrue();
          assertThat(rs.getLong(1)).as(sql).isEqualTo(ROWS);
        }
      }
    }
    try (Connection connection = connect("");
        Statement statement = connection.createStatement()) {
      try (ResultSet rs = statement.executeQuery("select count(*) from shop.orders")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(ROWS);
      }
      // No schema in this session: a bare table name does not resolve.
      assertError(statement, "select count(*) from orders", "NOT_FOUND", "'orders' not found");
    }
  }

  @Test
  void anUnknownCatalogFailsTheConnection() {
    assertThatThrownBy(() -> connect("&catalog=nope").close())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("INVALID_ARGUMENT");
  }

  @Test
  void preparedStatementsBindParametersThroughDoPut() throws Exception {
    try (CatalogConnection session = connectWithCatalog("");
        PreparedStatement statement =
            session.connection().prepareStatement(
                "select count(*), sum(amount) from shop.orders where id < ? and region = ?")) {
      assertThat(statement.getParameterMetaData().getParameterCount()).isEqualTo(2);
      for (Object[] binding : List.of(new Object[] {700L, "east"}, new Object[] {15_000L, "центр"}, new Object[] {0L, "east"})) {
        long bound = (Long) binding[0];
        String region = (String) binding[1];
        statement.setLong(1, bound);
        statement.setString(2, region);
        List<Record> expected = filter(r -> (Long) r.getField("id") < bound && region.equals(r.getField("region")));
        try (ResultSet rs = statement.executeQuery()) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getLong(1)).isEqualTo(expected.size());
          BigDecimal sum = expected.stream().map(r -> (BigDecimal) r.getField("amount")).reduce(BigDecimal::add).orElse(null);
          assertThat(rs.getBigDecimal(2)).isEqualTo(sum);
          assertThat(rs.next()).isFalse();
        }
      }
    }
  }

  @Test
  void metadataForBrowsing() throws Exception {
    try (CatalogConnection session = connectWithCatalog("")) {
      DatabaseMetaData meta = session.connection().getMetaData();
      assertThat(meta.getDatabaseProductName()).isEqualTo(ServerInfo.NAME);
      assertThat(meta.getDatabaseProductVersion()).isEqualTo(ServerInfo.VERSION);
      assertThat(meta.getIdentifierQuoteString()).isEqualTo("\"");
      assertThat(strings(meta.getCatalogs(), "TABLE_CAT")).containsExactly("iceberg");
      assertThat(strings(meta.getSchemas("iceberg", "%"), "TABLE_SCHEM")).contains("shop");
      assertThat(strings(meta.getTableTypes(), "TABLE_TYPE")).contains("TABLE");
      try (ResultSet rs = meta.getTables("iceberg", "shop", "%", new String[] {"TABLE"})) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("TABLE_CAT")).isEqualTo("iceberg");
        assertThat(rs.getString("TABLE_SCHEM")).isEqualTo("shop");
        assertThat(rs.getString("TABLE_NAME")).isEqualTo("orders");
        assertThat(rs.getString("TABLE_TYPE")).isEqualTo("TABLE");
        assertThat(rs.next()).isFalse();
      }
      Map<String, int[]> columns = new TreeMap<>();
      try (ResultSet rs = meta.getColumns("iceberg", "shop", "orders", "%")) {
        while (rs.next()) {
          columns.put(
              rs.getString("COLUMN_NAME"),
              new int[] {rs.getInt("DATA_TYPE"), rs.getInt("COLUMN_SIZE"), rs.getInt("DECIMAL_DIGITS"), rs.getInt("NULLABLE"), rs.getInt("ORDINAL_POSITION")});
        }
      }
      assertThat(columns).containsOnlyKeys("id", "region", "amount", "day");
      assertThat(columns.get("id")).containsExactly(Types.BIGINT, 19, 0, DatabaseMetaData.columnNoNulls, 1);
      assertThat(columns.get("region")[0]).isEqualTo(Types.VARCHAR);
      assertThat(columns.get("region")[3]).isEqualTo(DatabaseMetaData.columnNullable);
      assertThat(columns.get("amount")).containsExactly(Types.DECIMAL, 12, 2, DatabaseMetaData.columnNoNulls, 3);
      assertThat(columns.get("day")[0]).isEqualTo(Types.DATE);
    }
  }

  @Test
  void errorsCarryTheirStatusAndPositionWithoutAStackTrace() throws Exception {
    try (CatalogConnection session = connectWithCatalog("");
        Statement statement = session.connection().createStatement()) {
      assertError(statement, "select id,, region from shop.orders", "INVALID_ARGUMENT", "line 1, column 11");
      assertError(statement, "select id\nfrom shop.orders\nwhere missing_column = 1", "INVALID_ARGUMENT", "line 3, column 7");
      assertError(statement, "select id from shop.orders where region + 1", "INVALID_ARGUMENT", "line 1, column");
      assertError(statement, "select * from shop.no_such_table", "NOT_FOUND", "no_such_table");
      assertError(statement, "select * from no_such_schema.orders", "NOT_FOUND", "no_such_schema");
      assertError(statement, "select * from elsewhere.shop.orders", "NOT_FOUND", "elsewhere");
      // The connection is still good.
      try (ResultSet rs = statement.executeQuery("select count(*) from shop.orders")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(ROWS);
      }
    }
  }

  private static void assertError(Statement statement, String sql, String status, String detail) {
    assertThatThrownBy(() -> statement.executeQuery(sql).close())
        .as(sql)
        .isInstanceOfSatisfying(SQLException.class, e -> {
          // Driver 18.3.0 builds the message from the status description alone; the status is
          // on the cause, the driver's (shaded) FlightRuntimeException.
          assertThat(e.getMessage()).as(sql).contains(detail);
          assertThat(String.valueOf(e.getCause())).as(sql).contains(status + ": ").contains(detail);
          Throwable cause = e;
          while (cause != null) {
            assertThat(String.valueOf(cause.getMessage())).as(sql).doesNotContain("\tat ", "Exception:", "io.sqe.");
            cause = cause.getCause();
          }
        });
  }

  private static List<Record> filter(Predicate<Record> predicate) {
    List<Record> out = new ArrayList<>();
    for (Record r : orders) {
      if (predicate.test(r)) {
        out.add(r);
      }
    }
    return out;
  }

  private static List<String> strings(ResultSet rs, String column) throws SQLException {
    List<String> values = new ArrayList<>();
    try (rs) {
      while (rs.next()) {
        values.add(Objects.toString(rs.getString(column)));
      }
    }
    return values;
  }
}
