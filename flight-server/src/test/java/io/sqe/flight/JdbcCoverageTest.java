package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TestTables;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Time;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Calendar;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parts of JDBC a BI tool uses that the other JDBC tests leave out, through the Arrow Flight
 * SQL JDBC driver 18.3.0 against a real server: ResultSet getters for every type (timestamps with
 * and without zone, decimals with their scale, lists, structs and maps), getTypeInfo against the
 * engine, keys of a table with Iceberg identifier fields, the metadata calls that answer empty,
 * and PreparedStatement batches. Values are compared with the Iceberg records the test wrote.
 */
class JdbcCoverageTest {
  private static final Types.StructType POINT =
      Types.StructType.of(
          NestedField.required(101, "x", Types.IntegerType.get()),
          NestedField.optional(102, "label", Types.StringType.get()));
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              NestedField.required(1, "id", Types.IntegerType.get()),
              NestedField.optional(2, "b", Types.BooleanType.get()),
              NestedField.optional(3, "l", Types.LongType.get()),
              NestedField.optional(4, "f", Types.FloatType.get()),
              NestedField.optional(5, "d", Types.DoubleType.get()),
              NestedField.optional(6, "amount", Types.DecimalType.of(12, 3)),
              NestedField.optional(7, "dt", Types.DateType.get()),
              NestedField.optional(8, "t", Types.TimeType.get()),
              NestedField.optional(9, "ts", Types.TimestampType.withoutZone()),
              NestedField.optional(10, "tstz", Types.TimestampType.withZone()),
              NestedField.optional(11, "s", Types.StringType.get()),
              NestedField.optional(12, "bin", Types.BinaryType.get()),
              NestedField.optional(13, "point", POINT),
              NestedField.optional(14, "longs", Types.ListType.ofOptional(15, Types.LongType.get())),
              NestedField.optional(16, "scores", Types.MapType.ofOptional(17, 18, Types.StringType.get(), Types.DoubleType.get()))),
          Set.of(1));

  private static final LocalDateTime TS = LocalDateTime.of(2024, 2, 29, 23, 59, 58, 123_000_000);
  private static final OffsetDateTime TSTZ = OffsetDateTime.of(2024, 3, 1, 1, 2, 3, 456_000_000, ZoneOffset.UTC);

  @TempDir static Path dir;
  private static TestServer server;
  private static Record full;

  @BeforeAll
  static void start() {
    server = TestServer.start(dir, Map.of());
    full = GenericRecord.create(SCHEMA);
    full.setField("id", 1);
    full.setField("b", true);
    full.setField("l", 9_007_199_254_740_993L);
    full.setField("f", 1.5f);
    full.setField("d", -2.25);
    full.setField("amount", new BigDecimal("12345.670"));
    full.setField("dt", LocalDate.of(1999, 12, 31));
    full.setField("t", LocalTime.of(13, 14, 15));
    full.setField("ts", TS);
    full.setField("tstz", TSTZ);
    full.setField("s", "grüße");
    full.setField("bin", ByteBuffer.wrap(new byte[] {1, 2, (byte) 255}));
    Record point = GenericRecord.create(POINT);
    point.setField("x", 7);
    point.setField("label", "p");
    full.setField("point", point);
    full.setField("longs", Arrays.asList(1L, null, 3L));
    Map<String, Double> scores = new LinkedHashMap<>();
    scores.put("a", 1.0);
    scores.put("b", 2.5);
    full.setField("scores", scores);
    Record nulls = GenericRecord.create(SCHEMA);
    nulls.setField("id", 2);
    TestTables.create(server.server().catalogs().find("iceberg").orElseThrow(), "bi", "every_type", SCHEMA, List.of(full, nulls), 10);
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl() + "&user=admin&password=" + server.adminPassword());
  }

  @Test
  void gettersReturnEveryTypeAsWritten() throws Exception {
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT * FROM bi.every_type ORDER BY id")) {
      ResultSetMetaData meta = rs.getMetaData();
      assertThat(meta.getColumnType(6)).isEqualTo(java.sql.Types.DECIMAL);
      assertThat(meta.getScale(6)).isEqualTo(3);
      assertThat(meta.getPrecision(6)).isEqualTo(12);
      assertThat(meta.getColumnType(9)).isEqualTo(java.sql.Types.TIMESTAMP);
      assertThat(meta.getColumnType(10)).isIn(java.sql.Types.TIMESTAMP, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
      assertThat(meta.getColumnType(14)).isEqualTo(java.sql.Types.ARRAY);
      // Driver 18.3.0 reports a struct column as JAVA_OBJECT, its value a Map.
      assertThat(meta.getColumnType(13)).isEqualTo(java.sql.Types.JAVA_OBJECT);

      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt("id")).isEqualTo(1);
      assertThat(rs.getBoolean("b")).isTrue();
      assertThat(rs.getLong("l")).isEqualTo(9_007_199_254_740_993L);
      assertThat(rs.getFloat("f")).isEqualTo(1.5f);
      assertThat(rs.getDouble("d")).isEqualTo(-2.25);
      BigDecimal amount = rs.getBigDecimal("amount");
      assertThat(amount).isEqualTo(new BigDecimal("12345.670"));
      assertThat(amount.scale()).isEqualTo(3);
      assertThat(rs.getString("amount")).isEqualTo("12345.670");
      assertThat(rs.getDate("dt")).isEqualTo(Date.valueOf(LocalDate.of(1999, 12, 31)));
      assertThat(rs.getTime("t")).isEqualTo(Time.valueOf(LocalTime.of(13, 14, 15)));
      // A timestamp without zone is a wall-clock time: read it with a UTC calendar to get it unshifted.
      Calendar utc = Calendar.getInstance(TimeZone.getTimeZone("UTC"));
      assertThat(rs.getTimestamp("ts", utc).toInstant()).isEqualTo(TS.toInstant(ZoneOffset.UTC));
      // With zone, the instant.
      assertThat(rs.getTimestamp("tstz").toInstant()).isEqualTo(TSTZ.toInstant());
      assertThat(rs.getString("s")).isEqualTo("grüße");
      assertThat(rs.getBytes("bin")).containsExactly(1, 2, (byte) 255);
      Array longs = rs.getArray("longs");
      assertThat((Object[]) longs.getArray()).containsExactly(1L, null, 3L);
      @SuppressWarnings("unchecked")
      Map<String, Object> point = (Map<String, Object>) rs.getObject("point");
      assertThat(point.get("x")).isEqualTo(7);
      assertThat(String.valueOf(point.get("label"))).isEqualTo("p");
      Object scores = rs.getObject("scores");
      assertThat(entries(scores)).containsExactly(Map.entry("a", 1.0), Map.entry("b", 2.5));

      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt("id")).isEqualTo(2);
      for (int column = 2; column <= meta.getColumnCount(); column++) {
        if (column != 10) {
          assertThat(rs.getObject(column)).as(meta.getColumnName(column)).isNull();
        }
      }
      assertThat(rs.getTimestamp("tstz")).isNull();
      assertThat(rs.getLong("l")).isZero();
      assertThat(rs.wasNull()).isTrue();
      assertThat(rs.next()).isFalse();
    }
  }

  /** A map value as the driver returns it (a Map), as plain entries. */
  private static List<Map.Entry<String, Double>> entries(Object map) {
    List<Map.Entry<String, Double>> entries = new ArrayList<>();
    for (Map.Entry<?, ?> entry : ((Map<?, ?>) map).entrySet()) {
      entries.add(Map.entry(String.valueOf(entry.getKey()), (Double) entry.getValue()));
    }
    return entries;
  }

  /**
   * Calcite evaluates constant expressions when the query's code is loaded, so an error there
   * reached the streaming thread as an ExceptionInInitializerError, which ended the thread without
   * an answer: the client waited forever.
   */
  @Test
  void anErrorInAConstantExpressionFailsTheStatement() throws Exception {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      // Client-side in driver 18.3.0: bounds the wait, so a regression fails instead of hanging.
      statement.setQueryTimeout(120);
      assertThatThrownBy(() -> statement.executeQuery("SELECT ATANH(1)").next())
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(String.valueOf(e.getCause())).contains("INVALID_ARGUMENT"));
      try (ResultSet rs = statement.executeQuery("SELECT ATANH(0.5) > 0")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getBoolean(1)).isTrue();
      }
    }
  }

  /**
   * GetXdbcTypeInfo lists every type the engine has, and each works in a CAST. Driver 18.3.0 does
   * not send it: its {@code getTypeInfo()} answers empty by itself.
   */
  @Test
  void everyTypeInGetXdbcTypeInfoWorksInACastAndJdbcGetTypeInfoIsEmpty() throws Exception {
    List<String> names = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        TestServer.Client client = server.client(allocator)) {
      FlightInfo info = client.sql().getXdbcTypeInfo(client.auth());
      for (List<Object> row : client.rows(info)) {
        names.add(String.valueOf(row.get(0)));
      }
    }
    assertThat(names).contains("BOOLEAN", "INTEGER", "BIGINT", "DOUBLE", "DECIMAL", "DATE", "TIMESTAMP", "VARCHAR");
    List<String> failures = new ArrayList<>();
    List<String> unreadable = new ArrayList<>();
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      for (String name : names) {
        if (List.of("ARRAY", "MAP", "ROW").contains(name)) {
          // Nested types need their element types; TypeRoundTripTest reads them from tables.
          continue;
        }
        String type = name.equals("DECIMAL") ? "DECIMAL(10, 2)" : name;
        try (ResultSet rs = statement.executeQuery("SELECT CAST(NULL AS " + type + ")")) {
          assertThat(rs.next()).isTrue();
          try {
            assertThat(rs.getObject(1)).isNull();
          } catch (RuntimeException e) {
            // The server ran it; driver 18.3.0 has no accessor for some Arrow types (UUID's extension type).
            unreadable.add(name);
          }
        } catch (SQLException e) {
          failures.add(name + ": " + e.getMessage());
        }
      }
      try (ResultSet types = connection.getMetaData().getTypeInfo()) {
        assertThat(types.next()).isFalse();
      }
    }
    assertThat(failures).isEmpty();
    assertThat(unreadable).as("types whose NULL the driver cannot read").hasSizeLessThan(names.size() / 2);
  }

  @Test
  void keysComeFromIcebergIdentifierFields() throws Exception {
    try (Connection connection = connect()) {
      DatabaseMetaData meta = connection.getMetaData();
      try (ResultSet keys = meta.getPrimaryKeys("iceberg", "bi", "every_type")) {
        assertThat(keys.next()).isTrue();
        assertThat(keys.getString("TABLE_NAME")).isEqualTo("every_type");
        assertThat(keys.getString("COLUMN_NAME")).isEqualTo("id");
        assertThat(keys.getInt("KEY_SEQ")).isEqualTo(1);
        assertThat(keys.getString("PK_NAME")).isEqualTo("every_type_pkey");
        assertThat(keys.next()).isFalse();
      }
      // Iceberg has no foreign keys: these answer empty, with the JDBC columns.
      for (ResultSet keys :
          List.of(
              meta.getImportedKeys("iceberg", "bi", "every_type"),
              meta.getExportedKeys("iceberg", "bi", "every_type"),
              meta.getCrossReference("iceberg", "bi", "every_type", "iceberg", "bi", "every_type"))) {
        // The server sends an empty batch with Flight SQL's schema; driver 18.3.0 turns an empty
        // key result into a result set without rows and without columns.
        try (keys) {
          assertThat(keys.next()).isFalse();
        }
      }
    }
  }

  /**
   * Calls BI tools make that have no Flight SQL command: the driver answers them itself, empty,
   * without asking the server. Function names come from getNumericFunctions and its siblings
   * (GetSqlInfo) instead.
   */
  @Test
  void metadataWithoutAFlightSqlCommandAnswersEmpty() throws Exception {
    try (Connection connection = connect()) {
      DatabaseMetaData meta = connection.getMetaData();
      for (ResultSet rs :
          List.of(
              meta.getFunctions("iceberg", null, "%"),
              meta.getProcedures("iceberg", null, "%"),
              meta.getIndexInfo("iceberg", "bi", "every_type", false, true),
              meta.getTablePrivileges("iceberg", "bi", "%"),
              meta.getUDTs("iceberg", null, "%", null))) {
        try (rs) {
          assertThat(rs.next()).isFalse();
        }
      }
      assertThat(meta.getNumericFunctions()).contains("ABS");
    }
  }

  @Test
  void preparedStatementBatchesInsertEveryRow() throws Exception {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.executeUpdate("CREATE TABLE bi.batched (id BIGINT, name VARCHAR)");
      try (PreparedStatement insert = connection.prepareStatement("INSERT INTO bi.batched VALUES (?, ?)")) {
        for (long id = 1; id <= 3; id++) {
          insert.setLong(1, id);
          insert.setString(2, "n" + id);
          insert.addBatch();
        }
        // Driver 18.3.0 sends the batch's rows in one DoPut and reports one count, their total.
        assertThat(insert.executeBatch()).containsExactly(3);
      }
      try (ResultSet rs = statement.executeQuery("SELECT count(*), sum(id) FROM bi.batched")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(3);
        assertThat(rs.getLong(2)).isEqualTo(6);
      }
      try (PreparedStatement update = connection.prepareStatement("UPDATE bi.batched SET name = ? WHERE id = ?")) {
        update.setString(1, "first");
        update.setLong(2, 1);
        assertThat(update.executeUpdate()).isEqualTo(1);
      }
      try (ResultSet rs = statement.executeQuery("SELECT name FROM bi.batched WHERE id = 1")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("first");
      }
    }
  }
}
