package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import io.sqe.sample.IcebergAppender;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * DDL through the real clients (the Flight SQL JDBC driver and FlightSqlClient) against a real
 * server, with the embedded catalog and with a real Iceberg REST catalog. What the statements did
 * is read back through Iceberg's API and through queries.
 */
class DdlEndToEndTest {
  @TempDir static Path dir;
  private static RootAllocator allocator;
  private static TestServer embedded;
  private static RestCatalogFixture rest;
  private static TestServer overRest;

  @BeforeAll
  static void start() throws Exception {
    allocator = new RootAllocator();
    embedded = TestServer.start(dir.resolve("embedded"), Map.of());
    rest = RestCatalogFixture.start(dir.resolve("rest"));
    overRest = TestServer.start(dir.resolve("sqe-rest"), rest.sqeSettings());
  }

  @AfterAll
  static void stop() throws Exception {
    overRest.close();
    rest.close();
    embedded.close();
    allocator.close();
  }

  static Stream<String> modes() {
    return Stream.of("embedded", "rest");
  }

  private static TestServer server(String mode) {
    return mode.equals("rest") ? overRest : embedded;
  }

  private static LakehouseCatalog catalog(String mode) {
    return server(mode).server().catalogs().find("iceberg").orElseThrow();
  }

  private static Connection connect(String mode) throws SQLException {
    Properties props = new Properties();
    props.put("user", TestServer.ADMIN);
    props.put("password", server(mode).adminPassword());
    return DriverManager.getConnection(server(mode).jdbcUrl(), props);
  }

  @ParameterizedTest
  @MethodSource("modes")
  void fullLifecycleThroughJdbc(String mode) throws Exception {
    String schema = "life_" + mode;
    try (Connection c = connect(mode); Statement s = c.createStatement()) {
      assertThat(s.executeUpdate("CREATE SCHEMA " + schema + " WITH (owner = 'bi')")).isZero();
      s.execute("USE " + schema);
      assertThat(s.executeUpdate(
          "CREATE TABLE orders (id BIGINT NOT NULL COMMENT 'key', region VARCHAR, amount DECIMAL(12, 2),"
              + " address ROW(city VARCHAR, zip INT)) COMMENT 'orders'"
              + " PARTITIONED BY (bucket(4, id)) SORTED BY (id) WITH ('write.target-file-size-bytes' = 1048576)")).isZero();

      Table table = catalog(mode).iceberg().loadTable(TableIdentifier.of(schema, "orders"));
      assertThat(table.schema().findField("id").isRequired()).isTrue();
      assertThat(table.schema().findField("id").doc()).isEqualTo("key");
      assertThat(table.schema().findField("address.zip").type()).isEqualTo(Types.IntegerType.get());
      assertThat(table.spec().fields()).extracting(PartitionField::name).containsExactly("id_bucket");
      assertThat(table.properties()).containsEntry("write.target-file-size-bytes", "1048576").containsEntry("comment", "orders");
      // Another engine writes the rows.
      IcebergAppender.builder(table).build().append(orders(table, 10));
      assertThat(longs(s, "select count(*), sum(id) from orders")).containsExactly(10L, 45L);

      s.executeUpdate("ALTER TABLE orders ADD COLUMN note VARCHAR COMMENT 'free text'");
      s.executeUpdate("ALTER TABLE orders RENAME COLUMN region TO area");
      s.executeUpdate("ALTER TABLE orders ALTER COLUMN address.zip SET DATA TYPE BIGINT");
      s.executeUpdate("ALTER TABLE orders ALTER COLUMN amount SET DATA TYPE DECIMAL(20, 2)");
      s.executeUpdate("ALTER TABLE orders SET PROPERTIES 'write.metadata.metrics.default' = 'full'");
      s.executeUpdate("COMMENT ON COLUMN orders.area IS 'sales area'");
      try (ResultSet rs = s.executeQuery("select area, note, o.address.zip, amount from orders o where id = 3")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("r3");
        assertThat(rs.getString(2)).isNull();
        assertThat(rs.getLong(3)).isEqualTo(10_003L);
        assertThat(rs.getBigDecimal(4)).isEqualByComparingTo("3.50");
      }
      table = catalog(mode).iceberg().loadTable(TableIdentifier.of(schema, "orders"));
      assertThat(table.schema().findField("amount").type()).isEqualTo(Types.DecimalType.of(20, 2));
      assertThat(table.schema().findField("area").doc()).isEqualTo("sales area");

      s.executeUpdate("CREATE VIEW big COMMENT 'amount over 5' AS SELECT id, area, amount FROM orders WHERE amount > 5");
      assertThat(longs(s, "select count(*), sum(o.id) from big b join orders o on b.id = o.id")).containsExactly(5L, 35L);
      assertThat(longs(s, "select count(*) from orders where id in (select id from big)")).containsExactly(5L);
      DatabaseMetaData meta = c.getMetaData();
      List<String> objects = new ArrayList<>();
      try (ResultSet rs = meta.getTables(null, schema, "%", null)) {
        while (rs.next()) {
          objects.add(rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
        }
      }
      assertThat(objects).containsExactlyInAnyOrder("orders:TABLE", "big:VIEW");

      s.executeUpdate("TRUNCATE TABLE orders");
      assertThat(longs(s, "select count(*) from big")).containsExactly(0L);
      s.executeUpdate("ALTER TABLE orders RENAME TO orders_old");
      assertThat(longs(s, "select count(*) from orders_old")).containsExactly(0L);
      s.executeUpdate("DROP VIEW big");
      s.executeUpdate("DROP TABLE orders_old PURGE");
      s.executeUpdate("DROP SCHEMA " + schema);
      assertThat(catalog(mode).schemaExists(schema)).isFalse();
    }
  }

  @ParameterizedTest
  @MethodSource("modes")
  void errorsCarryTheirCodeAndPosition(String mode) throws Exception {
    String schema = "errors_" + mode;
    try (TestServer.Client client = server(mode).client(allocator)) {
      // ADBC and dbt send DDL as a query: it runs at GetFlightInfo and reports 0 rows.
      FlightInfo info = client.sql().execute("create schema " + schema, client.auth());
      assertThat(info.getRecords()).isZero();
      assertThat(catalog(mode).schemaExists(schema)).isTrue();
      assertThat(client.sql().executeUpdate("create table " + schema + ".t (a int)", client.auth())).isZero();

      assertFails(client, "create table nope.t (a int)", FlightStatusCode.NOT_FOUND, "Schema 'iceberg.nope' does not exist (line 1, column 14)");
      assertFails(client, "create table " + schema + ".t (a int)", FlightStatusCode.ALREADY_EXISTS, "already exists (line 1, column 14)");
      assertFails(client, "create table " + schema + ".u (a decimal(50, 2))", FlightStatusCode.INVALID_ARGUMENT, "DECIMAL precision 50");
      assertFails(client, "alter table " + schema + ".t alter column a set data type varchar", FlightStatusCode.INVALID_ARGUMENT,
          "Cannot change column 'a' from INTEGER to VARCHAR");
      assertFails(client, "alter table " + schema + ".t drop column nope", FlightStatusCode.NOT_FOUND, "Column 'nope' does not exist");
      assertFails(client, "drop view " + schema + ".t", FlightStatusCode.NOT_FOUND, "it is a table");
      // FAILED_PRECONDITION travels as gRPC's own status, which Flight's Java client shows as INVALID_ARGUMENT.
      assertFails(client, "drop schema " + schema, FlightStatusCode.INVALID_ARGUMENT, "is not empty: it has 1 table and 0 views");

      client.sql().executeUpdate("create view " + schema + ".v as select a from " + schema + ".t", client.auth());
      client.sql().executeUpdate("drop table " + schema + ".t", client.auth());
      assertFails(client, "select * from " + schema + ".v", FlightStatusCode.NOT_FOUND,
          "Cannot read view 'iceberg." + schema + ".v': Object 't' not found");
      client.sql().executeUpdate("drop schema " + schema + " cascade", client.auth());
      assertThat(catalog(mode).schemaExists(schema)).isFalse();
    }
  }

  @ParameterizedTest
  @MethodSource("modes")
  void anotherSessionSeesDdlAtOnce(String mode) throws Exception {
    String schema = "sessions_" + mode;
    try (Connection first = connect(mode); Connection second = connect(mode);
        Statement one = first.createStatement(); Statement two = second.createStatement()) {
      one.executeUpdate("create schema " + schema);
      one.executeUpdate("create table " + schema + ".t (a int)");
      assertThat(longs(two, "select count(*) from " + schema + ".t")).containsExactly(0L);
      // The second session has the table cached now; the first one's change must not wait for the cache.
      one.executeUpdate("alter table " + schema + ".t add column b bigint");
      assertThat(longs(two, "select count(b) from " + schema + ".t")).containsExactly(0L);
      one.executeUpdate("create view " + schema + ".v as select a, b from " + schema + ".t");
      assertThat(longs(two, "select count(*) from " + schema + ".v")).containsExactly(0L);
      one.executeUpdate("drop schema " + schema + " cascade");
      assertThatThrownBy(() -> two.executeQuery("select count(*) from " + schema + ".t"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("not found");
    }
  }

  @ParameterizedTest
  @MethodSource("modes")
  void concurrentSchemaChangesAllLandOrFailCleanly(String mode) throws Exception {
    String schema = "concurrent_" + mode;
    try (Connection c = connect(mode); Statement s = c.createStatement()) {
      s.executeUpdate("create schema " + schema);
      s.executeUpdate("create table " + schema + ".t (a int)");
    }
    int sessions = 3;
    int columnsEach = 4;
    List<String> added = Collections.synchronizedList(new ArrayList<>());
    List<String> conflicts = Collections.synchronizedList(new ArrayList<>());
    List<String> sameTable = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch ready = new CountDownLatch(sessions);
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < sessions; i++) {
        int session = i;
        futures.add(pool.submit(() -> {
          try (Connection c = connect(mode); Statement s = c.createStatement()) {
            ready.countDown();
            ready.await();
            try {
              s.executeUpdate("create table " + schema + ".same (x int)");
              sameTable.add("created");
            } catch (SQLException e) {
              assertThat(e.getMessage()).contains("Table 'iceberg." + schema + ".same' already exists");
              sameTable.add("exists");
            }
            for (int k = 0; k < columnsEach; k++) {
              String column = "c" + session + "_" + k;
              try {
                s.executeUpdate("alter table " + schema + ".t add column " + column + " int");
                added.add(column);
              } catch (SQLException e) {
                assertThat(e.getMessage()).contains("conflicted twice with concurrent changes");
                conflicts.add(column);
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(sameTable).containsExactlyInAnyOrder(Stream.concat(Stream.of("created"), Collections.nCopies(sessions - 1, "exists").stream()).toArray(String[]::new));
    assertThat(added.size() + conflicts.size()).isEqualTo(sessions * columnsEach);
    Table table = catalog(mode).iceberg().loadTable(TableIdentifier.of(schema, "t"));
    List<String> columns = table.schema().columns().stream().map(Types.NestedField::name).toList();
    assertThat(columns.subList(1, columns.size())).containsExactlyInAnyOrderElementsOf(added);
    try (Connection c = connect(mode); Statement s = c.createStatement()) {
      s.executeUpdate("drop schema " + schema + " cascade");
    }
  }

  private static void assertFails(TestServer.Client client, String sql, FlightStatusCode code, String message) {
    assertThatThrownBy(() -> {
          FlightInfo info = client.sql().execute(sql, client.auth());
          try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
            while (stream.next()) {
              // drain
            }
          }
        })
        .as(sql)
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).as(e.getMessage()).isEqualTo(code);
          assertThat(e.getMessage()).contains(message);
        });
  }

  private static List<Record> orders(Table table, int count) {
    List<Record> rows = new ArrayList<>();
    Types.StructType address = table.schema().findType("address").asStructType();
    for (long id = 0; id < count; id++) {
      Record r = GenericRecord.create(table.schema());
      r.setField("id", id);
      r.setField("region", "r" + id);
      r.setField("amount", BigDecimal.valueOf(id * 100 + 50, 2));
      Record a = GenericRecord.create(address);
      a.setField("city", "c" + id);
      a.setField("zip", (int) (10_000 + id));
      r.setField("address", a);
      rows.add(r);
    }
    return rows;
  }

  private static List<Long> longs(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      assertThat(rs.next()).as(sql).isTrue();
      List<Long> row = new ArrayList<>();
      for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
        Object value = rs.getObject(i);
        row.add(value == null ? null : ((Number) value).longValue());
      }
      return row;
    }
  }
}
