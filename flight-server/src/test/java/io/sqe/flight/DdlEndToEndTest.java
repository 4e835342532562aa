package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import io.sqe.sample.IcebergAppender;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.View;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * DDL through the real clients (the Flight SQL JDBC driver and FlightSqlClient) against a real
 * server, with the embedded catalog and with a real Iceberg REST catalog. What the statements did
 * is read back through Iceberg's API (and, for the REST catalog, from the catalog behind it) and
 * through queries.
 */
class DdlEndToEndTest {
  @TempDir static Path dir;
  private static RootAllocator allocator;
  private static TestServer embedded;
  private static RestCatalogFixture rest;
  private static TestServer overRest;
  /** A second server over the same REST catalog, as a second SQE instance in a deployment. */
  private static TestServer overRestToo;

  /** Where the catalog lives. */
  enum Mode {
    EMBEDDED,
    REST
  }

  /** How a Flight SQL client sends a statement that is not a query. */
  enum Route {
    /** CommandStatementUpdate through DoPut. */
    UPDATE,
    /** CreatePreparedStatement, then CommandPreparedStatementUpdate through DoPut. */
    PREPARED_UPDATE,
    /** CommandStatementQuery: it runs at GetFlightInfo, and its ticket returns the count (ADBC and dbt do this). */
    QUERY
  }

  @BeforeAll
  static void start() throws Exception {
    allocator = new RootAllocator();
    embedded = TestServer.start(dir.resolve("embedded"), Map.of());
    rest = RestCatalogFixture.start(dir.resolve("rest"));
    overRest = TestServer.start(dir.resolve("sqe-rest"), rest.sqeSettings());
    overRestToo = TestServer.start(dir.resolve("sqe-rest-2"), rest.sqeSettings());
  }

  @AfterAll
  static void stop() throws Exception {
    overRestToo.close();
    overRest.close();
    rest.close();
    embedded.close();
    allocator.close();
  }

  static Stream<Arguments> modesAndRoutes() {
    return Stream.of(Mode.values()).flatMap(mode -> Stream.of(Route.values()).map(route -> Arguments.of(mode, route)));
  }

  private static TestServer server(Mode mode) {
    return mode == Mode.REST ? overRest : embedded;
  }

  private static LakehouseCatalog catalog(Mode mode) {
    return server(mode).server().catalogs().find("iceberg").orElseThrow();
  }

  private static Table table(Mode mode, String schema, String name) {
    return catalog(mode).iceberg().loadTable(TableIdentifier.of(schema, name));
  }

  private static boolean tableExists(Mode mode, String schema, String name) {
    return catalog(mode).iceberg().tableExists(TableIdentifier.of(schema, name));
  }

  private static View view(Mode mode, String schema, String name) {
    TableIdentifier id = TableIdentifier.of(schema, name);
    // Through REST, the view must be in the catalog behind the server, put there by the view API.
    return mode == Mode.REST ? rest.backend().loadView(id) : catalog(mode).views().orElseThrow().loadView(id);
  }

  private static boolean viewExists(Mode mode, String schema, String name) {
    TableIdentifier id = TableIdentifier.of(schema, name);
    return mode == Mode.REST ? rest.backend().viewExists(id) : catalog(mode).views().orElseThrow().viewExists(id);
  }

  static Connection connect(TestServer server) throws SQLException {
    Properties props = new Properties();
    props.put("user", TestServer.ADMIN);
    props.put("password", server.adminPassword());
    return DriverManager.getConnection(server.jdbcUrl(), props);
  }

  @ParameterizedTest
  @MethodSource("modesAndRoutes")
  void everyStatementThroughFlightSqlClient(Mode mode, Route route) throws Exception {
    String s = ("client_" + mode + "_" + route).toLowerCase(Locale.ROOT);
    try (TestServer.Client client = server(mode).client(allocator)) {
      run(client, route, "create schema " + s + " with (owner = 'bi')");
      assertThat(catalog(mode).namespaces().loadNamespaceMetadata(Namespace.of(s))).containsEntry("owner", "bi");
      run(client, route, "create schema if not exists " + s);

      run(client, route, "create table " + s + ".t (id bigint not null comment 'key', name varchar, ts timestamp,"
          + " amount decimal(10, 2), tags array(varchar)) comment 'events'"
          + " partitioned by (day(ts), bucket(8, id), truncate(4, name)) sorted by (id desc nulls first)"
          + " with (format_version = 2, 'write.target-file-size-bytes' = 1048576)");
      Table t = table(mode, s, "t");
      assertThat(t.schema().findField("id").isRequired()).isTrue();
      assertThat(t.schema().findField("id").doc()).isEqualTo("key");
      assertThat(t.schema().findType("tags")).isEqualTo(Types.ListType.ofOptional(t.schema().findField("tags.element").fieldId(), Types.StringType.get()));
      assertThat(t.spec().fields()).extracting(f -> f.transform().toString()).containsExactly("day", "bucket[8]", "truncate[4]");
      assertThat(t.sortOrder().fields()).singleElement().satisfies(f -> assertThat(f.direction()).isEqualTo(SortDirection.DESC));
      assertThat(((HasTableOperations) t).operations().current().formatVersion()).isEqualTo(2);
      assertThat(t.properties())
          .containsEntry("write.target-file-size-bytes", "1048576")
          .containsEntry("comment", "events");
      run(client, route, "create table if not exists " + s + ".t (other int)");
      assertThat(table(mode, s, "t").schema().findField("other")).isNull();

      run(client, route, "alter table " + s + ".t add column note varchar comment 'free text'");
      run(client, route, "alter table " + s + ".t add column if not exists note bigint");
      run(client, route, "alter table " + s + ".t rename column name to title");
      run(client, route, "alter table " + s + ".t alter column amount set data type decimal(20, 2)");
      run(client, route, "alter table " + s + ".t alter column note set not null");
      t = table(mode, s, "t");
      assertThat(t.schema().findField("note").type()).isEqualTo(Types.StringType.get());
      assertThat(t.schema().findField("note").isRequired()).isTrue();
      assertThat(t.schema().findField("title")).isNotNull();
      assertThat(t.schema().findField("amount").type()).isEqualTo(Types.DecimalType.of(20, 2));
      // The partition field follows the renamed column.
      org.apache.iceberg.Schema renamed = t.schema();
      assertThat(t.spec().fields()).extracting(f -> renamed.findColumnName(f.sourceId())).containsExactly("ts", "id", "title");
      run(client, route, "alter table " + s + ".t alter column note drop not null");
      assertThat(table(mode, s, "t").schema().findField("note").isOptional()).isTrue();
      run(client, route, "alter table " + s + ".t drop column note");
      assertThat(table(mode, s, "t").schema().findField("note")).isNull();

      run(client, route, "alter table " + s + ".t set properties 'write.metadata.metrics.default' = 'full', 'owner' = 'bi'");
      run(client, route, "alter table " + s + ".t unset properties 'owner'");
      run(client, route, "comment on table " + s + ".t is 'all events'");
      run(client, route, "comment on column " + s + ".t.title is 'the title'");
      t = table(mode, s, "t");
      assertThat(t.properties()).containsEntry("write.metadata.metrics.default", "full").doesNotContainKey("owner")
          .containsEntry("comment", "all events");
      assertThat(t.schema().findField("title").doc()).isEqualTo("the title");

      // Another engine writes rows before any query has the table cached.
      IcebergAppender.builder(table(mode, s, "t")).build().append(events(table(mode, s, "t"), 5));
      run(client, route, "create view " + s + ".v comment 'titles' as select id, title from " + s + ".t");
      assertThat(view(mode, s, "v").sqlFor("sqe").sql()).containsIgnoringCase("title");
      assertThat(view(mode, s, "v").schema().columns()).extracting(Types.NestedField::name).containsExactly("id", "title");
      run(client, route, "create or replace view " + s + ".v as select id from " + s + ".t where id > 0");
      run(client, route, "comment on view " + s + ".v is 'positive ids'");
      View v = view(mode, s, "v");
      assertThat(v.schema().columns()).extracting(Types.NestedField::name).containsExactly("id");
      assertThat(v.properties()).containsEntry("comment", "positive ids");
      assertThat(v.history()).hasSize(2);

      assertThat(queryLongs(client, "select count(*), sum(id) from " + s + ".v")).containsExactly(4L, 10L);
      run(client, route, "truncate table " + s + ".t");
      assertThat(table(mode, s, "t").currentSnapshot().summary()).containsEntry("total-records", "0");
      run(client, route, "alter table " + s + ".t rename to " + s + ".t2");
      assertThat(tableExists(mode, s, "t")).isFalse();
      assertThat(table(mode, s, "t2").schema().findField("title")).isNotNull();

      run(client, route, "drop view " + s + ".v");
      assertThat(viewExists(mode, s, "v")).isFalse();
      run(client, route, "drop view if exists " + s + ".v");
      run(client, route, "drop table " + s + ".t2 purge");
      assertThat(tableExists(mode, s, "t2")).isFalse();
      run(client, route, "drop table if exists " + s + ".t2");
      run(client, route, "drop schema " + s + " restrict");
      assertThat(catalog(mode).schemaExists(s)).isFalse();
      run(client, route, "drop schema if exists " + s);
    }
  }

  /** Runs a statement that is not a query the way {@code route} sends it, and checks that it reports 0 rows. */
  private static void run(TestServer.Client client, Route route, String sql) throws Exception {
    FlightSqlClient flightSql = client.sql();
    switch (route) {
      case UPDATE:
        assertThat(flightSql.executeUpdate(sql, client.auth())).as(sql).isZero();
        break;
      case PREPARED_UPDATE:
        FlightSqlClient.PreparedStatement prepared = flightSql.prepare(sql, client.auth());
        try {
          assertThat(prepared.executeUpdate(client.auth())).as(sql).isZero();
        } finally {
          prepared.close(client.auth());
        }
        break;
      case QUERY:
        FlightInfo info = flightSql.execute(sql, client.auth());
        // total_records carries the count, which ADBC reports as the rows affected.
        assertThat(info.getRecords()).as(sql).isZero();
        assertThat(info.getEndpoints()).hasSize(1);
        // Fetching the result must not run the statement again: a second CREATE or ADD COLUMN would fail here.
        List<Long> counts = new ArrayList<>();
        try (FlightStream stream = flightSql.getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
          while (stream.next()) {
            BigIntVector rows = (BigIntVector) stream.getRoot().getVector("rows");
            for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
              counts.add(rows.get(i));
            }
          }
        }
        assertThat(counts).as(sql).containsExactly(0L);
        break;
      default:
        throw new IllegalArgumentException(route.toString());
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void everyStatementThroughJdbc(Mode mode) throws Exception {
    String schema = ("jdbc_" + mode).toLowerCase(Locale.ROOT);
    try (Connection c = connect(server(mode)); Statement s = c.createStatement()) {
      assertThat(s.executeUpdate("CREATE SCHEMA " + schema + " WITH (owner = 'bi')")).isZero();
      // execute() of a statement that is not a query: no result set, an update count of 0.
      assertThat(s.execute("CREATE SCHEMA IF NOT EXISTS " + schema)).isFalse();
      assertThat(s.getUpdateCount()).isZero();
      s.execute("USE " + schema);
      assertThat(s.executeUpdate(
          "CREATE TABLE orders (id BIGINT NOT NULL COMMENT 'key', region VARCHAR, amount DECIMAL(12, 2),"
              + " address ROW(city VARCHAR, zip INT)) COMMENT 'orders'"
              + " PARTITIONED BY (bucket(4, id)) SORTED BY (id) WITH ('write.target-file-size-bytes' = 1048576)")).isZero();

      Table table = table(mode, schema, "orders");
      assertThat(table.schema().findField("id").isRequired()).isTrue();
      assertThat(table.schema().findField("id").doc()).isEqualTo("key");
      assertThat(table.schema().findField("address.zip").type()).isEqualTo(Types.IntegerType.get());
      assertThat(table.spec().fields()).extracting(PartitionField::name).containsExactly("id_bucket");
      assertThat(table.properties()).containsEntry("write.target-file-size-bytes", "1048576").containsEntry("comment", "orders");
      // Another engine writes the rows.
      IcebergAppender.builder(table).build().append(orders(table, 10));
      assertThat(longs(s, "select count(*), sum(id) from orders")).containsExactly(10L, 45L);

      s.executeUpdate("ALTER TABLE orders ADD COLUMN note VARCHAR COMMENT 'free text'");
      assertThat(s.execute("ALTER TABLE orders RENAME COLUMN region TO area")).isFalse();
      // Filters on the new name read the snapshot written before the rename, whose schema says region.
      assertThat(longs(s, "select count(*) from orders where area = 'r3' or area > 'r8'")).containsExactly(2L);
      assertThat(s.executeUpdate("UPDATE orders SET amount = amount WHERE area = 'r4'")).isEqualTo(1);
      try (PreparedStatement widen = c.prepareStatement("ALTER TABLE orders ALTER COLUMN address.zip SET DATA TYPE BIGINT")) {
        assertThat(widen.executeUpdate()).isZero();
      }
      s.executeUpdate("ALTER TABLE orders ALTER COLUMN amount SET DATA TYPE DECIMAL(20, 2)");
      s.executeUpdate("ALTER TABLE orders SET PROPERTIES 'write.metadata.metrics.default' = 'full'");
      s.executeUpdate("COMMENT ON COLUMN orders.area IS 'sales area'");
      s.executeUpdate("ALTER TABLE orders ALTER COLUMN area SET NOT NULL");
      try (ResultSet rs = s.executeQuery("select area, note, o.address.zip, amount from orders o where id = 3")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("r3");
        assertThat(rs.getString(2)).isNull();
        assertThat(rs.getLong(3)).isEqualTo(10_003L);
        assertThat(rs.getBigDecimal(4)).isEqualByComparingTo("3.50");
      }
      table = table(mode, schema, "orders");
      assertThat(table.schema().findField("amount").type()).isEqualTo(Types.DecimalType.of(20, 2));
      assertThat(table.schema().findField("area").doc()).isEqualTo("sales area");
      assertThat(table.schema().findField("area").isRequired()).isTrue();

      s.executeUpdate("CREATE VIEW big COMMENT 'amount over 5' AS SELECT id, area, amount FROM orders WHERE amount > 5");
      assertThat(view(mode, schema, "big").properties()).containsEntry("comment", "amount over 5");
      assertThat(longs(s, "select count(*), sum(o.id) from big b join orders o on b.id = o.id")).containsExactly(5L, 35L);
      assertThat(longs(s, "select count(*) from orders where id in (select id from big)")).containsExactly(5L);
      s.executeUpdate("CREATE OR REPLACE VIEW big AS SELECT id, area, amount FROM orders WHERE amount > 8");
      assertThat(longs(s, "select count(*) from big")).containsExactly(2L);
      DatabaseMetaData meta = c.getMetaData();
      List<String> objects = new ArrayList<>();
      try (ResultSet rs = meta.getTables(null, schema, "%", null)) {
        while (rs.next()) {
          objects.add(rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
        }
      }
      assertThat(objects).containsExactlyInAnyOrder("orders:TABLE", "big:VIEW");

      s.executeUpdate("ALTER TABLE orders DROP COLUMN note");
      s.executeUpdate("TRUNCATE TABLE orders");
      assertThat(longs(s, "select count(*) from big")).containsExactly(0L);
      s.executeUpdate("ALTER TABLE orders RENAME TO orders_old");
      assertThat(longs(s, "select count(*) from orders_old")).containsExactly(0L);
      s.executeUpdate("DROP VIEW big");
      s.executeUpdate("DROP TABLE orders_old PURGE");
      s.executeUpdate("DROP TABLE IF EXISTS orders_old");
      s.executeUpdate("DROP SCHEMA " + schema);
      assertThat(catalog(mode).schemaExists(schema)).isFalse();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void viewsAreIcebergViewsThatOtherEnginesAndServersRead(Mode mode) throws Exception {
    String schema = ("views_" + mode).toLowerCase(Locale.ROOT);
    try (TestServer.Client client = server(mode).client(allocator)) {
      run(client, Route.UPDATE, "create schema " + schema);
      run(client, Route.UPDATE, "create table " + schema + ".t (a int, b varchar)");
      client.sql().executeUpdate("use " + schema, client.auth());
      Table t = table(mode, schema, "t");
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        Record r = GenericRecord.create(t.schema());
        r.setField("a", i);
        r.setField("b", "n" + i);
        rows.add(r);
      }
      IcebergAppender.builder(t).build().append(rows);
      run(client, Route.UPDATE, "create view v (x, y) as select a, upper(b) from t where a > 1");
      View view = view(mode, schema, "v");
      assertThat(view.sqlFor("sqe").dialect()).isEqualTo("sqe");
      assertThat(view.currentVersion().defaultNamespace()).isEqualTo(Namespace.of(schema));
      assertThat(view.currentVersion().defaultCatalog()).isEqualTo("iceberg");
      assertThat(view.schema().columns()).extracting(Types.NestedField::name).containsExactly("x", "y");
      assertThat(queryLongs(client, "select count(*), sum(x) from " + schema + ".v")).containsExactly(2L, 5L);
    }
    if (mode == Mode.REST) {
      // The second server over the same catalog finds and expands the view.
      try (TestServer.Client client = overRestToo.client(allocator)) {
        assertThat(queryLongs(client, "select count(*), sum(x) from " + schema + ".v where y like 'N%'")).containsExactly(2L, 5L);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void errorsCarryTheirCodeAndPosition(Mode mode) throws Exception {
    String s = ("errors_" + mode).toLowerCase(Locale.ROOT);
    try (TestServer.Client client = server(mode).client(allocator); Connection jdbc = connect(server(mode))) {
      run(client, Route.QUERY, "create schema " + s);
      run(client, Route.UPDATE, "create table " + s + ".t (a int)");
      run(client, Route.UPDATE, "create view " + s + ".v as select a from " + s + ".t");
      Table t = table(mode, s, "t");
      IcebergAppender.builder(t).build().append(List.of(GenericRecord.create(t.schema()).copy(Map.of("a", 1))));
      Errors errors = new Errors(client, jdbc);

      errors.check("create schema " + s, FlightStatusCode.ALREADY_EXISTS, "Schema 'iceberg." + s + "' already exists (line 1, column 15)");
      errors.check("create table " + s + ".t (a int)", FlightStatusCode.ALREADY_EXISTS, "already exists (line 1, column 14)");
      errors.check("create view " + s + ".v as select 1 as x", FlightStatusCode.ALREADY_EXISTS, "View 'iceberg." + s + ".v' already exists (line 1, column 13)");
      errors.check("create view " + s + ".t as select 1 as x", FlightStatusCode.ALREADY_EXISTS, "A table named 'iceberg." + s + ".t' already exists");
      errors.check("create table " + s + ".v (a int)", FlightStatusCode.ALREADY_EXISTS, "A view named 'iceberg." + s + ".v' already exists");
      errors.check("alter table " + s + ".t add column a bigint", FlightStatusCode.ALREADY_EXISTS, "Column 'a' already exists");

      errors.check("create table nope.t (a int)", FlightStatusCode.NOT_FOUND, "Schema 'iceberg.nope' does not exist (line 1, column 14)");
      errors.check("drop schema nope", FlightStatusCode.NOT_FOUND, "Schema 'iceberg.nope' does not exist (line 1, column 13)");
      errors.check("drop table " + s + ".missing", FlightStatusCode.NOT_FOUND, "Table 'iceberg." + s + ".missing' does not exist (line 1, column 12)");
      errors.check("drop view " + s + ".missing", FlightStatusCode.NOT_FOUND, "View 'iceberg." + s + ".missing' does not exist (line 1, column 11)");
      errors.check("drop view " + s + ".t", FlightStatusCode.NOT_FOUND, "it is a table");
      errors.check("drop table " + s + ".v", FlightStatusCode.NOT_FOUND, "it is a view");
      errors.check("alter table " + s + ".missing add column b int", FlightStatusCode.NOT_FOUND, "Table 'iceberg." + s + ".missing' does not exist");
      errors.check("alter table " + s + ".t drop column nope", FlightStatusCode.NOT_FOUND, "Column 'nope' does not exist");
      errors.check("truncate table " + s + ".missing", FlightStatusCode.NOT_FOUND, "does not exist (line 1, column 16)");

      errors.check("create table " + s + ".u (a decimal(50, 2))", FlightStatusCode.INVALID_ARGUMENT, "DECIMAL precision 50 is too large");
      errors.check("create table " + s + ".u (a decimal(50, 2))", FlightStatusCode.INVALID_ARGUMENT, "(line 1, column " + (s.length() + 20) + ")");
      errors.check("create table " + s + ".u (a strange)", FlightStatusCode.INVALID_ARGUMENT, "Unknown type 'strange'");
      errors.check("create table " + s + ".u (a int) partitioned by (day(a))", FlightStatusCode.INVALID_ARGUMENT,
          "Invalid partitioning day(a)");
      errors.check("create table " + s + ".u (a int) partitioned by (day(a))", FlightStatusCode.INVALID_ARGUMENT,
          "(line 1, column " + (s.length() + 41) + ")");
      errors.check("create table " + s + ".u (a int) partitioned by (decade(a))", FlightStatusCode.INVALID_ARGUMENT, "decade");
      errors.check("create table " + s + ".u (a int) partitioned by (bucket(0, a))", FlightStatusCode.INVALID_ARGUMENT,
          "The bucket width must be a positive integer");
      errors.check("alter table " + s + ".t alter column a set data type varchar", FlightStatusCode.INVALID_ARGUMENT,
          "Cannot change column 'a' from integer to varchar");
      assertThat(tableExists(mode, s, "u")).isFalse();

      // The Flight Java client reads gRPC's FAILED_PRECONDITION as INVALID_ARGUMENT; the wire status is checked too.
      errors.check("drop schema " + s, FlightStatusCode.INVALID_ARGUMENT, "is not empty: it has 1 table and 1 view");
      errors.check("drop schema " + s + " restrict", FlightStatusCode.INVALID_ARGUMENT, "DROP SCHEMA ... CASCADE");
      errors.check("alter table " + s + ".t add column b int not null", FlightStatusCode.INVALID_ARGUMENT, "Cannot add NOT NULL column 'b'");
      assertThat(wireStatus(server(mode), "drop schema " + s)).isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(wireStatus(server(mode), "alter table " + s + ".t add column b int not null")).isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(wireStatus(server(mode), "drop table " + s + ".missing")).isEqualTo(Status.Code.NOT_FOUND);
      assertThat(table(mode, s, "t").schema().columns()).extracting(Types.NestedField::name).containsExactly("a");

      run(client, Route.UPDATE, "drop table " + s + ".t");
      assertThatThrownBy(() -> queryLongs(client, "select * from " + s + ".v"))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND);
            assertThat(e.getMessage()).contains("Cannot read view 'iceberg." + s + ".v': Object 't' not found");
          });
      run(client, Route.QUERY, "drop schema " + s + " cascade");
      assertThat(catalog(mode).schemaExists(s)).isFalse();
      assertThat(viewExists(mode, s, "v")).isFalse();
    }
  }

  /** Asserts that a statement fails the same way through every client route. */
  private record Errors(TestServer.Client client, Connection jdbc) {
    void check(String sql, FlightStatusCode code, String message) {
      for (Route route : Route.values()) {
        // As a query, the statement runs (and fails) at GetFlightInfo, before any ticket is read.
        ThrowingCallable call = route == Route.QUERY ? () -> client.sql().execute(sql, client.auth()) : () -> run(client, route, sql);
        assertThatThrownBy(call)
            .as("%s via %s", sql, route)
            .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
              assertThat(e.status().code()).as(e.getMessage()).isEqualTo(code);
              assertThat(e.getMessage()).contains(message);
            });
      }
      assertThatThrownBy(() -> {
            try (Statement s = jdbc.createStatement()) {
              s.executeUpdate(sql);
            }
          })
          .as("%s through JDBC", sql)
          .isInstanceOf(SQLException.class)
          .hasMessageContaining(message);
    }
  }

  /**
   * The gRPC status of a statement sent as a query, read from the wire: Flight's Java client folds
   * some codes (FAILED_PRECONDITION) into others.
   */
  private static Status.Code wireStatus(TestServer server, String sql) throws InterruptedException {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      Metadata headers = new Metadata();
      String basic = Base64.getEncoder().encodeToString((TestServer.ADMIN + ":" + server.adminPassword()).getBytes(StandardCharsets.UTF_8));
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Basic " + basic);
      FlightServiceGrpc.FlightServiceBlockingStub stub =
          FlightServiceGrpc.newBlockingStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
      Flight.FlightDescriptor descriptor = Flight.FlightDescriptor.newBuilder()
          .setType(Flight.FlightDescriptor.DescriptorType.CMD)
          .setCmd(ByteString.copyFrom(Any.pack(CommandStatementQuery.newBuilder().setQuery(sql).build()).toByteArray()))
          .build();
      try {
        stub.getFlightInfo(descriptor);
        return Status.Code.OK;
      } catch (StatusRuntimeException e) {
        return e.getStatus().getCode();
      }
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void createOrReplaceTableKeepsOlderSnapshotsReadable(Mode mode) throws Exception {
    String s = ("replace_" + mode).toLowerCase(Locale.ROOT);
    try (TestServer.Client client = server(mode).client(allocator)) {
      run(client, Route.UPDATE, "create schema " + s);
      run(client, Route.UPDATE, "create table " + s + ".t (id bigint, region varchar, amount decimal(12, 2),"
          + " address row(city varchar, zip int)) with ('keep.me' = 'yes')");
      Table before = table(mode, s, "t");
      IcebergAppender.builder(before).build().append(orders(before, 6));
      long old = table(mode, s, "t").currentSnapshot().snapshotId();

      run(client, Route.QUERY, "create or replace table " + s + ".t (code varchar not null, sold date) partitioned by (month(sold))");
      Table replaced = table(mode, s, "t");
      assertThat(replaced.uuid()).isEqualTo(before.uuid());
      assertThat(replaced.schema().columns()).extracting(Types.NestedField::name).containsExactly("code", "sold");
      assertThat(replaced.currentSnapshot()).isNull();
      assertThat(replaced.spec().fields()).extracting(f -> f.transform().toString()).containsExactly("month");
      assertThat(replaced.properties()).containsEntry("keep.me", "yes");
      assertThat(queryLongs(client, "select count(*) from " + s + ".t")).containsExactly(0L);
      // The old snapshot is still in the metadata and its history, and reads with its own schema.
      assertThat(replaced.snapshot(old)).isNotNull();
      assertThat(replaced.history()).extracting(HistoryEntry::snapshotId).contains(old);
      assertThat(replaced.schemas()).hasSize(2);
      List<Long> ids = new ArrayList<>();
      try (CloseableIterable<Record> rows = IcebergGenerics.read(replaced).useSnapshot(old).build()) {
        rows.forEach(r -> ids.add((Long) r.getField("id")));
      }
      assertThat(ids).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L);

      run(client, Route.PREPARED_UPDATE, "create or replace table " + s + ".fresh (a int)");
      assertThat(table(mode, s, "fresh").schema().columns()).hasSize(1);
      run(client, Route.UPDATE, "drop schema " + s + " cascade");
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void anotherSessionSeesDdlAtOnce(Mode mode) throws Exception {
    String schema = ("sessions_" + mode).toLowerCase(Locale.ROOT);
    try (Connection first = connect(server(mode)); Connection second = connect(server(mode));
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

  /**
   * Four sessions, two on each of two servers over one REST catalog (two sessions of one server
   * with the embedded catalog), run DDL on the same schema and tables at the same moment. Each
   * statement succeeds or fails with a clear status; what the winners did is all there.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void concurrentDdlLandsOrFailsCleanly(Mode mode) throws Exception {
    String s = ("race_" + mode).toLowerCase(Locale.ROOT);
    List<TestServer> servers = mode == Mode.REST ? List.of(overRest, overRestToo) : List.of(embedded, embedded);
    int sessions = 4;
    List<TestServer.Client> clients = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    try {
      for (int i = 0; i < sessions; i++) {
        clients.add(servers.get(i % 2).client(allocator));
      }
      Race race = new Race(clients, pool);

      assertThat(race.all(i -> "create schema " + s)).containsExactlyInAnyOrder("ok", "ALREADY_EXISTS", "ALREADY_EXISTS", "ALREADY_EXISTS");
      assertThat(race.all(i -> "create table " + s + ".t (a int)"))
          .containsExactlyInAnyOrder("ok", "ALREADY_EXISTS", "ALREADY_EXISTS", "ALREADY_EXISTS");
      assertThat(race.all(i -> "create table if not exists " + s + ".same (x int)")).containsOnly("ok");
      assertThat(table(mode, s, "same").schema().columns()).extracting(Types.NestedField::name).containsExactly("x");

      // Different columns: each ADD COLUMN lands unless it conflicted twice.
      List<String> added = new ArrayList<>();
      for (int k = 0; k < 3; k++) {
        int round = k;
        List<String> outcomes = race.all(i -> "alter table " + s + ".t add column c" + i + "_" + round + " int");
        assertThat(outcomes).allMatch(o -> o.equals("ok") || o.equals("CONFLICT"));
        for (int i = 0; i < sessions; i++) {
          if (outcomes.get(i).equals("ok")) {
            added.add("c" + i + "_" + round);
          }
        }
      }
      assertThat(added).isNotEmpty();
      // The same column: one session adds it, the others find it there (or conflicted).
      List<String> same = race.all(i -> "alter table " + s + ".t add column dup " + (i % 2 == 0 ? "int" : "bigint"));
      assertThat(same).containsOnlyOnce("ok").allMatch(o -> o.equals("ok") || o.equals("ALREADY_EXISTS") || o.equals("CONFLICT"));
      List<String> columns = table(mode, s, "t").schema().columns().stream().map(Types.NestedField::name).toList();
      assertThat(columns.get(0)).isEqualTo("a");
      assertThat(columns.subList(1, columns.size())).containsExactlyInAnyOrderElementsOf(
          Stream.concat(added.stream(), Stream.of("dup")).toList());

      // Renames and drops of one table: exactly one statement wins.
      run(clients.get(0), Route.UPDATE, "create table " + s + ".r (a int)");
      List<String> renameOrDrop = race.all(i -> i % 2 == 0 ? "alter table " + s + ".r rename to " + s + ".r" + i : "drop table " + s + ".r");
      assertThat(renameOrDrop).containsOnlyOnce("ok").allMatch(o -> o.equals("ok") || o.equals("NOT_FOUND"));
      int winner = renameOrDrop.indexOf("ok");
      assertThat(tableExists(mode, s, "r")).isFalse();
      assertThat(tableExists(mode, s, "r0")).isEqualTo(winner == 0);
      assertThat(tableExists(mode, s, "r2")).isEqualTo(winner == 2);

      // DROP SCHEMA CASCADE while tables are created in it.
      String other = s + "_other";
      run(clients.get(0), Route.UPDATE, "create schema " + other);
      List<String> dropWhileCreating =
          race.all(i -> i == 0 ? "drop schema " + other + " cascade" : "create table " + other + ".x" + i + " (a int)");
      assertThat(dropWhileCreating.get(0)).as("%s", dropWhileCreating).isIn("ok", "CONFLICT");
      assertThat(dropWhileCreating.subList(1, sessions)).allMatch(o -> o.equals("ok") || o.equals("NOT_FOUND"));
      if (dropWhileCreating.get(0).equals("ok")) {
        assertThat(catalog(mode).schemaExists(other)).as("%s", dropWhileCreating).isFalse();
      } else {
        List<String> created = new ArrayList<>();
        for (int i = 1; i < sessions; i++) {
          if (dropWhileCreating.get(i).equals("ok")) {
            created.add("x" + i);
          }
        }
        // CASCADE is not atomic: the tables it found are gone even though it failed.
        assertThat(catalog(mode).iceberg().listTables(Namespace.of(other))).extracting(TableIdentifier::name)
            .isNotEmpty().isSubsetOf(created);
        run(clients.get(0), Route.UPDATE, "drop schema " + other + " cascade");
      }

      // Every server still reads every table.
      for (TestServer.Client client : clients) {
        assertThat(queryLongs(client, "select count(*) from " + s + ".t")).containsExactly(0L);
        assertThat(queryLongs(client, "select count(*) from " + s + ".same")).containsExactly(0L);
      }
      run(clients.get(1), Route.UPDATE, "drop schema " + s + " cascade");
    } finally {
      pool.shutdownNow();
      for (TestServer.Client client : clients) {
        client.close();
      }
    }
  }

  /** Runs one statement per session, all released at once, and names how each one ended. */
  private record Race(List<TestServer.Client> clients, ExecutorService pool) {
    List<String> all(java.util.function.IntFunction<String> statement) throws Exception {
      CyclicBarrier start = new CyclicBarrier(clients.size());
      List<Future<String>> outcomes = new ArrayList<>();
      for (int i = 0; i < clients.size(); i++) {
        TestServer.Client client = clients.get(i);
        String sql = statement.apply(i);
        outcomes.add(pool.submit(() -> {
          start.await(30, TimeUnit.SECONDS);
          try {
            client.sql().executeUpdate(sql, client.auth());
            return "ok";
          } catch (FlightRuntimeException e) {
            return outcome(e);
          }
        }));
      }
      List<String> result = new ArrayList<>();
      for (Future<String> outcome : outcomes) {
        result.add(outcome.get(60, TimeUnit.SECONDS));
      }
      return result;
    }

    private static String outcome(FlightRuntimeException e) {
      FlightStatusCode code = e.status().code();
      if (code == FlightStatusCode.ALREADY_EXISTS || code == FlightStatusCode.NOT_FOUND) {
        return code.toString();
      }
      // FAILED_PRECONDITION, as Flight's Java client shows it.
      if (code == FlightStatusCode.INVALID_ARGUMENT && e.getMessage().contains("concurrent")) {
        return "CONFLICT";
      }
      return code + ": " + e.getMessage();
    }
  }

  private static List<Long> queryLongs(TestServer.Client client, String sql) throws Exception {
    FlightInfo info = client.sql().execute(sql, client.auth());
    List<Long> row = new ArrayList<>();
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      while (stream.next()) {
        for (int r = 0; r < stream.getRoot().getRowCount(); r++) {
          for (org.apache.arrow.vector.FieldVector vector : stream.getRoot().getFieldVectors()) {
            Object value = vector.getObject(r);
            row.add(value == null ? null : ((Number) value).longValue());
          }
        }
      }
    }
    return row;
  }

  private static List<Record> events(Table table, int count) {
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < count; id++) {
      Record r = GenericRecord.create(table.schema());
      r.setField("id", id);
      r.setField("title", "t" + id);
      r.setField("ts", java.time.LocalDateTime.of(2024, 1, 1 + (int) id, 12, 0));
      r.setField("amount", BigDecimal.valueOf(id * 100, 2));
      r.setField("tags", List.of("x"));
      rows.add(r);
    }
    return rows;
  }

  static List<Record> orders(Table table, int count) {
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

  static List<Long> longs(Statement s, String sql) throws SQLException {
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
