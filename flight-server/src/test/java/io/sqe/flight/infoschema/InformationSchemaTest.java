package io.sqe.flight.infoschema;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import java.io.ByteArrayInputStream;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * information_schema and the Flight SQL metadata commands of a running server, through the Flight
 * SQL JDBC driver and Arrow's FlightSqlClient, with the embedded catalog and with a REST catalog.
 */
class InformationSchemaTest {
  private static final int BIG_TABLES = 1_050;
  private static final int WIDE_COLUMNS = 400;

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(CatalogMode.class)
  void informationSchemaAndMetadataCommandsAgreeOnALargeCatalog(CatalogMode mode) throws Exception {
    try (Lake lake = Lake.start(mode, dir, Map.of());
        RootAllocator allocator = new RootAllocator();
        TestServer.Client client = lake.server.client(allocator);
        Connection jdbc = lake.jdbc();
        Statement s = jdbc.createStatement()) {
      createLargeCatalog(lake);

      DatabaseMetaData meta = jdbc.getMetaData();
      List<String> listed = strings(meta.getTables(null, "big", "%", null), "TABLE_NAME");
      assertThat(listed).hasSize(BIG_TABLES).isSorted();
      assertThat(strings(s.executeQuery(
              "SELECT table_name FROM information_schema.tables WHERE table_schema = 'big' ORDER BY table_name"), "table_name"))
          .isEqualTo(listed);

      List<List<Object>> jdbcColumns = rows(
          meta.getColumns(null, "app", "wide", "%"), "COLUMN_NAME", "ORDINAL_POSITION", "TYPE_NAME", "IS_NULLABLE", "REMARKS");
      assertThat(jdbcColumns).hasSize(WIDE_COLUMNS);
      assertThat(rows(
              s.executeQuery("SELECT column_name, ordinal_position, data_type, is_nullable, comment FROM information_schema.columns"
                  + " WHERE table_schema = 'app' AND table_name = 'wide' ORDER BY ordinal_position"),
              "column_name", "ordinal_position", "data_type", "is_nullable", "comment"))
          .isEqualTo(jdbcColumns);

      // GetTables with schemas and information_schema.columns over the whole catalog, both through FlightSqlClient.
      List<String> fromGetTables = new ArrayList<>();
      FlightInfo tables = client.sql().getTables(null, null, null, null, true, client.auth());
      for (List<Object> row : client.rows(tables)) {
        org.apache.arrow.vector.types.pojo.Schema schema = MessageSerializer.deserializeSchema(
            new ReadChannel(Channels.newChannel(new ByteArrayInputStream((byte[]) row.get(4)))));
        for (Field field : schema.getFields()) {
          FlightSqlColumnMetadata column = new FlightSqlColumnMetadata(field.getMetadata());
          fromGetTables.add(String.join("|", row.get(1).toString(), row.get(2).toString(), row.get(3).toString(), field.getName(),
              column.getTypeName(), field.isNullable() ? "YES" : "NO", String.valueOf(column.getRemarks())));
        }
      }
      List<String> fromInformationSchema = new ArrayList<>();
      FlightInfo columns = client.sql().execute(
          "SELECT c.table_schema, c.table_name, t.table_type, c.column_name, c.data_type, c.is_nullable, c.comment"
              + " FROM information_schema.columns c JOIN information_schema.tables t"
              + " ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
              + " ORDER BY c.table_schema, c.table_name, c.ordinal_position",
          client.auth());
      for (List<Object> row : client.rows(columns)) {
        String type = "BASE TABLE".equals(row.get(2).toString()) ? "TABLE" : row.get(2).toString();
        fromInformationSchema.add(String.join("|", row.get(0).toString(), row.get(1).toString(), type, row.get(3).toString(),
            row.get(4).toString(), row.get(5).toString(), String.valueOf(row.get(6))));
      }
      assertThat(fromGetTables).hasSize(BIG_TABLES * 4 + WIDE_COLUMNS + 3 + 1).isEqualTo(fromInformationSchema);

      assertThat(rows(meta.getPrimaryKeys(null, "app", "customers"), "COLUMN_NAME", "KEY_SEQ", "PK_NAME"))
          .isEqualTo(rows(s.executeQuery("SELECT column_name, ordinal_position, constraint_name FROM information_schema.key_column_usage"
                  + " WHERE table_schema = 'app' AND table_name = 'customers' ORDER BY ordinal_position"),
              "column_name", "ordinal_position", "constraint_name"))
          .hasSize(2);

      // dbt's list_relations_without_caching and get_tables_in_schema.
      assertThat(rows(s.executeQuery(
              "select table_catalog as \"database\", table_name as name, table_schema as \"schema\","
                  + " case when table_type = 'BASE TABLE' then 'table' when table_type = 'VIEW' then 'view' end as type"
                  + " from information_schema.tables where table_schema ilike 'APP' order by name"),
              "database", "name", "schema", "type"))
          .containsExactly(
              List.of("iceberg", "customers", "app", "table"),
              List.of("iceberg", "recent", "app", "view"),
              List.of("iceberg", "wide", "app", "table"));
    }
  }

  private static void createLargeCatalog(Lake lake) {
    lake.namespaces().createNamespace(Namespace.of("big"));
    for (int i = 0; i < BIG_TABLES; i++) {
      lake.tables().createTable(
          TableIdentifier.of("big", String.format("t%04d", i)),
          new Schema(
              required(1, "id", Types.LongType.get()),
              optional(2, "v", Types.StringType.get()),
              optional(3, "amount", Types.DecimalType.of(10, i % 5), "amount in EUR"),
              optional(4, "at", i % 2 == 0 ? Types.TimestampType.withZone() : Types.DateType.get())));
    }
    lake.namespaces().createNamespace(Namespace.of("app"));
    List<Types.NestedField> wide = new ArrayList<>();
    Type[] types = {Types.IntegerType.get(), Types.StringType.get(), Types.DoubleType.get(), Types.DecimalType.of(20, 4)};
    for (int i = 1; i <= WIDE_COLUMNS; i++) {
      wide.add(i % 3 == 0 ? required(i, "col_" + i, types[i % types.length]) : optional(i, "col_" + i, types[i % types.length], "column " + i));
    }
    lake.tables().createTable(TableIdentifier.of("app", "wide"), new Schema(wide));
    lake.tables().createTable(
        TableIdentifier.of("app", "customers"),
        new Schema(
            List.of(
                required(1, "tenant", Types.StringType.get()),
                required(2, "customer_id", Types.LongType.get()),
                optional(3, "name", Types.StringType.get())),
            Set.of(2, 1)));
    lake.views()
        .buildView(TableIdentifier.of("app", "recent"))
        .withSchema(new Schema(required(1, "customer_id", Types.LongType.get())))
        .withQuery("sqe", "SELECT customer_id FROM iceberg.app.customers")
        .withDefaultNamespace(Namespace.of("app"))
        .create();
  }

  @Test
  void namedTablesCostOneCatalogRequestHoweverLargeTheCatalog() throws Exception {
    try (Lake lake = Lake.start(CatalogMode.REST, dir, Map.of("catalog.cache-ttl", "0s"));
        Connection jdbc = lake.jdbc();
        Statement s = jdbc.createStatement()) {
      for (int n = 0; n < 30; n++) {
        lake.namespaces().createNamespace(Namespace.of("n" + n));
        for (int t = 0; t < 40; t++) {
          lake.tables().createTable(
              TableIdentifier.of("n" + n, "t" + t), new Schema(required(1, "id", Types.LongType.get()), optional(2, "v", Types.StringType.get())));
        }
      }
      long before = lake.catalogRequests();
      assertThat(strings(s.executeQuery(
              "SELECT column_name FROM information_schema.columns WHERE table_schema = 'n17' AND table_name = 't23'"), "column_name"))
          .containsExactly("id", "v");
      long exact = lake.catalogRequests() - before;

      before = lake.catalogRequests();
      assertThat(strings(jdbc.getMetaData().getColumns(null, "n17", "t23", "%"), "COLUMN_NAME")).containsExactly("id", "v");
      long jdbcColumns = lake.catalogRequests() - before;

      before = lake.catalogRequests();
      assertThat(strings(s.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = 'n17'"), "table_name"))
          .hasSize(40);
      long oneSchema = lake.catalogRequests() - before;

      before = lake.catalogRequests();
      assertThat(strings(s.executeQuery("SELECT count(*) AS c FROM information_schema.columns"), "c")).containsExactly("2400");
      long everything = lake.catalogRequests() - before;

      System.out.printf("REST catalog requests: exact names %d, JDBC getColumns %d, one schema %d, all columns %d%n",
          exact, jdbcColumns, oneSchema, everything);
      assertThat(exact).isEqualTo(1);
      assertThat(jdbcColumns).isEqualTo(1);
      assertThat(oneSchema).isEqualTo(2);
      assertThat(everything).isGreaterThan(1_200);
    }
  }

  @ParameterizedTest
  @EnumSource(CatalogMode.class)
  void changesMadeInOneSessionAreVisibleInEveryOtherAtOnce(CatalogMode mode) throws Exception {
    // A cache lifetime far longer than the test: what is seen must come from invalidation.
    try (Lake lake = Lake.start(mode, dir, Map.of("catalog.cache-ttl", "10m"));
        Connection a = lake.jdbc();
        Connection b = lake.jdbc();
        Statement writer = a.createStatement();
        Statement reader = b.createStatement()) {
      String columns = "SELECT column_name FROM information_schema.columns WHERE table_schema = 'shop' AND table_name = 'orders'"
          + " ORDER BY ordinal_position";
      String rowCount = "SELECT row_count FROM information_schema.tables WHERE table_schema = 'shop' AND table_name = 'orders'";
      writer.execute("CREATE SCHEMA shop");
      assertThat(strings(reader.executeQuery("SELECT schema_name FROM information_schema.schemata"), "schema_name")).contains("shop");
      writer.execute("CREATE TABLE shop.orders (id BIGINT NOT NULL, total DECIMAL(10, 2))");
      assertThat(strings(reader.executeQuery(columns), "column_name")).containsExactly("id", "total");
      assertThat(strings(b.getMetaData().getTables(null, "shop", "%", null), "TABLE_NAME")).containsExactly("orders");
      assertThat(strings(reader.executeQuery(rowCount), "row_count")).containsExactly("0");

      writer.execute("INSERT INTO shop.orders VALUES (1, 9.99), (2, 19.99)");
      assertThat(strings(reader.executeQuery(rowCount), "row_count")).containsExactly("2");
      writer.execute("ALTER TABLE shop.orders ADD COLUMN note VARCHAR");
      assertThat(strings(reader.executeQuery(columns), "column_name")).containsExactly("id", "total", "note");
      assertThat(strings(b.getMetaData().getColumns(null, "shop", "orders", "%"), "COLUMN_NAME")).containsExactly("id", "total", "note");
      writer.execute("COMMENT ON TABLE shop.orders IS 'all orders'");
      assertThat(strings(reader.executeQuery(
              "SELECT comment FROM information_schema.tables WHERE table_schema = 'shop' AND table_name = 'orders'"), "comment"))
          .containsExactly("all orders");
      writer.execute("CREATE VIEW shop.big_orders AS SELECT id FROM shop.orders WHERE total > 10");
      assertThat(strings(reader.executeQuery("SELECT table_name FROM information_schema.views WHERE table_schema = 'shop'"), "table_name"))
          .containsExactly("big_orders");
      writer.execute("DROP VIEW shop.big_orders");
      writer.execute("DROP TABLE shop.orders");
      assertThat(strings(reader.executeQuery(columns), "column_name")).isEmpty();
      assertThat(strings(reader.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = 'shop'"), "table_name"))
          .isEmpty();
      assertThat(strings(b.getMetaData().getTables(null, "shop", "%", null), "TABLE_NAME")).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(CatalogMode.class)
  void otherEnginesChangesAppearWithinTheCacheLifetime(CatalogMode mode) throws Exception {
    try (Lake lake = Lake.start(mode, dir, Map.of("catalog.cache-ttl", "1s"));
        Connection jdbc = lake.jdbc();
        Statement s = jdbc.createStatement()) {
      lake.namespaces().createNamespace(Namespace.of("ext"));
      lake.tables().createTable(TableIdentifier.of("ext", "events"), new Schema(required(1, "id", Types.LongType.get())));
      String columns = "SELECT column_name FROM information_schema.columns WHERE table_schema = 'ext' AND table_name = 'events'";
      assertThat(strings(s.executeQuery(columns), "column_name")).containsExactly("id");

      lake.tables().loadTable(TableIdentifier.of("ext", "events")).updateSchema().addColumn("kind", Types.StringType.get()).commit();
      lake.tables().createTable(TableIdentifier.of("ext", "sessions"), new Schema(required(1, "id", Types.LongType.get())));
      // Listings are not cached: the new table is there at once.
      assertThat(strings(s.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = 'ext'"), "table_name"))
          .containsExactly("events", "sessions");
      Thread.sleep(1_200);
      assertThat(strings(s.executeQuery(columns), "column_name")).containsExactly("id", "kind");
    }
  }

  private static List<String> strings(ResultSet rs, String column) throws SQLException {
    List<String> values = new ArrayList<>();
    try (rs) {
      while (rs.next()) {
        values.add(rs.getString(column));
      }
    }
    return values;
  }

  /** The named columns of every row, as strings (integers as their decimal text). */
  private static List<List<Object>> rows(ResultSet rs, String... columns) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (rs) {
      ResultSetMetaData meta = rs.getMetaData();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (String column : columns) {
          row.add(rs.getString(column));
        }
        rows.add(row);
      }
      assertThat(meta.getColumnCount()).isGreaterThanOrEqualTo(columns.length);
    }
    return rows;
  }
}
