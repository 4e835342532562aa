package io.sqe.flight.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.sqe.catalog.Catalogs;
import io.sqe.engine.session.ObjectVisibility;
import io.sqe.engine.session.Principal;
import io.sqe.infoschema.CatalogMetadata;
import io.sqe.catalog.types.ArrowTypeMapping;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The metadata answers over two real embedded Iceberg catalogs on local disk. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FlightSqlMetadataTest {
  private static final Principal PRINCIPAL = Principal.of("admin");

  private Catalogs catalogs;
  private FlightSqlMetadata metadata;
  private BufferAllocator allocator;

  @BeforeAll
  void createCatalogs(@TempDir Path warehouse) throws IOException {
    catalogs = TestLakehouse.create(warehouse);
    metadata = new FlightSqlMetadata(catalogs, new CatalogMetadata(ObjectVisibility.ALL), "SQE", "0.1.0-test");
  }

  @AfterAll
  void closeCatalogs() throws IOException {
    catalogs.close();
  }

  @BeforeEach
  void createAllocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void closeAllocator() {
    // Fails the test if any buffer leaked.
    allocator.close();
  }

  @Test
  void catalogsAreSorted() {
    try (VectorSchemaRoot root = metadata.getCatalogs(allocator)) {
      assertThat(root.getSchema()).isEqualTo(Schemas.GET_CATALOGS_SCHEMA);
      assertThat(RootContents.rows(root)).containsExactly(List.of("archive"), List.of("lake"));
    }
  }

  @Test
  void schemasOfAllCatalogsSortedByCatalogThenSchema() {
    try (VectorSchemaRoot root = metadata.getDbSchemas(allocator, PRINCIPAL, CommandGetDbSchemas.getDefaultInstance())) {
      assertThat(root.getSchema()).isEqualTo(Schemas.GET_SCHEMAS_SCHEMA);
      assertThat(RootContents.rows(root))
          .containsExactly(
              List.of("archive", "old"),
              List.of("lake", "damaged"),
              List.of("lake", "sales"),
              List.of("lake", "sales_2024"),
              List.of("lake", "salesx2024"));
    }
  }

  @Test
  void schemaFilterIsALikePattern() {
    assertThat(schemaNames(null, "sales%")).containsExactly("sales", "sales_2024", "salesx2024");
    assertThat(schemaNames(null, "sales_2024")).containsExactly("sales_2024", "salesx2024");
    assertThat(schemaNames(null, "sales\\_2024")).containsExactly("sales_2024");
    assertThat(schemaNames(null, "%d")).containsExactly("old", "damaged");
    assertThat(schemaNames(null, "SALES")).isEmpty();
  }

  @Test
  void catalogSelectsOneCatalogCaseInsensitivelyAndEmptyMeansNone() {
    assertThat(schemaNames("archive", null)).containsExactly("old");
    assertThat(schemaNames("LAKE", "s%")).containsExactly("sales", "sales_2024", "salesx2024");
    assertThat(schemaNames("", null)).isEmpty();
    assertThat(schemaNames("nowhere", null)).isEmpty();
  }

  @Test
  void tablesAndViewsWithoutSchema() {
    CommandGetTables command = CommandGetTables.newBuilder().setIncludeSchema(false).build();
    try (VectorSchemaRoot root = metadata.getTables(allocator, PRINCIPAL, command)) {
      assertThat(root.getSchema()).isEqualTo(Schemas.GET_TABLES_SCHEMA_NO_SCHEMA);
      List<List<Object>> rows = RootContents.rows(root);
      assertThat(rows)
          .containsExactly(
              List.of("archive", "old", "events", "TABLE"),
              List.of("lake", "damaged", "broken", "TABLE"),
              List.of("lake", "damaged", "fine", "TABLE"),
              List.of("lake", "sales", "all_types", "TABLE"),
              List.of("lake", "sales", "big_orders", "VIEW"),
              List.of("lake", "sales", "customers", "TABLE"),
              List.of("lake", "sales", "orders", "TABLE"),
              List.of("lake", "sales_2024", "orders", "TABLE"),
              List.of("lake", "salesx2024", "orders", "TABLE"));
    }
  }

  @Test
  void tableFiltersCombine() {
    assertThat(tableNames("lake", "sales%", "orders", List.of()))
        .containsExactly("sales.orders", "sales_2024.orders", "salesx2024.orders");
    assertThat(tableNames("lake", "sales", "%o%", List.of()))
        .containsExactly("sales.big_orders", "sales.customers", "sales.orders");
    assertThat(tableNames("lake", "sales", "_ll\\_types", List.of())).containsExactly("sales.all_types");
    assertThat(tableNames(null, null, "events", List.of())).containsExactly("old.events");
    assertThat(tableNames("", null, null, List.of())).isEmpty();
  }

  @Test
  void tableTypesFilter() {
    assertThat(tableNames(null, null, null, List.of("VIEW"))).containsExactly("sales.big_orders");
    assertThat(tableNames("lake", "sales", null, List.of("TABLE")))
        .containsExactly("sales.all_types", "sales.customers", "sales.orders");
    assertThat(tableNames("lake", "sales", null, List.of("table", "view")))
        .containsExactly("sales.all_types", "sales.big_orders", "sales.customers", "sales.orders");
    assertThat(tableNames(null, null, null, List.of("SYSTEM TABLE"))).isEmpty();
  }

  @Test
  void tableSchemaRoundTripsEveryTypeWithColumnMetadata() {
    CommandGetTables command =
        CommandGetTables.newBuilder()
            .setCatalog("lake")
            .setDbSchemaFilterPattern("sales")
            .setTableNameFilterPattern("all\\_types")
            .setIncludeSchema(true)
            .build();
    try (VectorSchemaRoot root = metadata.getTables(allocator, PRINCIPAL, command)) {
      assertThat(root.getSchema()).isEqualTo(Schemas.GET_TABLES_SCHEMA);
      assertThat(root.getRowCount()).isEqualTo(1);
      List<Field> fields = deserialize((byte[]) root.getVector("table_schema").getObject(0)).getFields();

      // Without the Flight SQL keys, the schema is exactly the lossless Iceberg → Arrow mapping ...
      List<Field> expected = ArrowTypeMapping.toArrow(TestLakehouse.ALL_TYPES).getFields();
      assertThat(fields.stream().map(FlightSqlMetadataTest::withoutFlightSqlMetadata).toList()).isEqualTo(expected);
      // ... which maps back to the table's Iceberg types and nullability.
      Schema back = TypeUtil.reassignIds(ArrowTypeMapping.toIceberg(fields), TestLakehouse.ALL_TYPES);
      for (Types.NestedField column : TestLakehouse.ALL_TYPES.columns()) {
        Types.NestedField roundTripped = back.findField(column.name());
        assertThat(roundTripped.type()).as(column.name()).isEqualTo(column.type());
        assertThat(roundTripped.isOptional()).as(column.name()).isEqualTo(column.isOptional());
      }

      Map<String, String> typeNames =
          Map.ofEntries(
              Map.entry("id", "bigint"),
              Map.entry("flag", "boolean"),
              Map.entry("i", "integer"),
              Map.entry("f", "real"),
              Map.entry("d", "double"),
              Map.entry("amount", "decimal(12,2)"),
              Map.entry("day", "date"),
              Map.entry("t", "time(6)"),
              Map.entry("ts", "timestamp(6)"),
              Map.entry("tstz", "timestamp(6) with time zone"),
              Map.entry("s", "varchar"),
              Map.entry("u", "uuid"),
              Map.entry("fx", "binary(4)"),
              Map.entry("b", "varbinary"));
      for (Field field : fields) {
        FlightSqlColumnMetadata column = new FlightSqlColumnMetadata(field.getMetadata());
        String name = field.getName();
        assertThat(column.getCatalogName()).as(name).isEqualTo("lake");
        assertThat(column.getSchemaName()).as(name).isEqualTo("sales");
        assertThat(column.getTableName()).as(name).isEqualTo("all_types");
        assertThat(column.getTypeName()).as(name).isNotBlank();
        if (typeNames.containsKey(name)) {
          assertThat(column.getTypeName()).as(name).isEqualTo(typeNames.get(name));
        }
        assertThat(column.isAutoIncrement()).as(name).isFalse();
        assertThat(column.isCaseSensitive()).as(name).isEqualTo(name.equals("s"));
        assertThat(column.isReadOnly()).as(name).isFalse();
        assertThat(column.isSearchable()).as(name).isTrue();
        assertThat(column.getRemarks()).as(name).isEqualTo(name.equals("amount") ? "Order total in EUR" : null);
        assertThat(field.isNullable()).as(name).isEqualTo(!name.equals("id"));
      }
      Map<String, FlightSqlColumnMetadata> byName = new HashMap<>();
      fields.forEach(f -> byName.put(f.getName(), new FlightSqlColumnMetadata(f.getMetadata())));
      assertThat(byName.get("amount").getPrecision()).isEqualTo(12);
      assertThat(byName.get("amount").getScale()).isEqualTo(2);
      assertThat(byName.get("fx").getPrecision()).isEqualTo(4);
      assertThat(byName.get("u").getPrecision()).isEqualTo(16);
      assertThat(byName.get("d").getPrecision()).isNull();
      assertThat(byName.get("d").getScale()).isNull();
      assertThat(fields.get(11).getMetadata())
          .containsEntry(ArrowTypeMapping.EXTENSION_NAME, ArrowTypeMapping.UUID_EXTENSION);
    }
  }

  @Test
  void viewSchemaIsTheViewsOwnAndReadOnly() {
    CommandGetTables command =
        CommandGetTables.newBuilder().addTableTypes("VIEW").setIncludeSchema(true).build();
    try (VectorSchemaRoot root = metadata.getTables(allocator, PRINCIPAL, command)) {
      assertThat(RootContents.rows(root)).hasSize(1);
      assertThat(root.getVector("table_name").getObject(0)).hasToString("big_orders");
      List<Field> fields = deserialize((byte[]) root.getVector("table_schema").getObject(0)).getFields();
      assertThat(fields).extracting(Field::getName, Field::isNullable).containsExactly(tuple("id", false), tuple("amount", true));
      FlightSqlColumnMetadata amount = new FlightSqlColumnMetadata(fields.get(1).getMetadata());
      assertThat(amount.getTypeName()).isEqualTo("decimal(12,2)");
      assertThat(amount.getTableName()).isEqualTo("big_orders");
      assertThat(amount.isReadOnly()).isTrue();
      assertThat(amount.getRemarks()).isEqualTo("Order total in EUR");
    }
  }

  @Test
  void tableThatCannotBeLoadedIsLeftOutOnlyWhenSchemasAreRequested() {
    CommandGetTables withSchema =
        CommandGetTables.newBuilder().setDbSchemaFilterPattern("damaged").setIncludeSchema(true).build();
    try (VectorSchemaRoot root = metadata.getTables(allocator, PRINCIPAL, withSchema)) {
      assertThat(RootContents.rows(root)).extracting(r -> r.get(2)).containsExactly("fine");
      List<Field> fields = deserialize((byte[]) root.getVector("table_schema").getObject(0)).getFields();
      assertThat(fields).extracting(Field::getName).containsExactly("v");
    }
    assertThat(tableNames(null, "damaged", null, List.of())).containsExactly("damaged.broken", "damaged.fine");
  }

  @Test
  void everyTableSchemaDeserializesAndRootsAreValid() {
    CommandGetTables command = CommandGetTables.newBuilder().setIncludeSchema(true).build();
    try (VectorSchemaRoot root = metadata.getTables(allocator, PRINCIPAL, command)) {
      RootContents.validate(root);
      for (int i = 0; i < root.getRowCount(); i++) {
        assertThat(deserialize((byte[]) root.getVector("table_schema").getObject(i)).getFields()).isNotEmpty();
      }
      assertThat(RootContents.rows(root)).extracting(r -> r.get(2)).doesNotContain("broken").contains("events", "big_orders");
    }
  }

  @Test
  void tableTypes() {
    try (VectorSchemaRoot root = metadata.getTableTypes(allocator)) {
      assertThat(root.getSchema()).isEqualTo(Schemas.GET_TABLE_TYPES_SCHEMA);
      assertThat(RootContents.rows(root)).containsExactly(List.of("TABLE"), List.of("VIEW"));
    }
  }

  @Test
  void primaryKeysAreIdentifierFieldsInColumnOrder() {
    CommandGetPrimaryKeys command = CommandGetPrimaryKeys.newBuilder().setTable("customers").build();
    try (VectorSchemaRoot root = metadata.getPrimaryKeys(allocator, PRINCIPAL, command)) {
      assertThat(root.getSchema()).isEqualTo(Schemas.GET_PRIMARY_KEYS_SCHEMA);
      RootContents.validate(root);
      assertThat(RootContents.rows(root))
          .containsExactly(
              Arrays.asList("lake", "sales", "customers", "customer_id", 1, "customers_pkey"),
              Arrays.asList("lake", "sales", "customers", "tenant", 2, "customers_pkey"),
              Arrays.asList("lake", "sales", "customers", "ext.code", 3, "customers_pkey"));
    }
    assertThat(primaryKeyCount("lake", "sales", "customers")).isEqualTo(3);
    assertThat(primaryKeyCount("lake", "sales_2024", "customers")).isZero();
    assertThat(primaryKeyCount("archive", null, "customers")).isZero();
    assertThat(primaryKeyCount("", null, "customers")).isZero();
    assertThat(primaryKeyCount("lake", "sales", "orders")).isZero();
    assertThat(primaryKeyCount("lake", "sales", "big_orders")).isZero();
    assertThat(primaryKeyCount("lake", "damaged", "broken")).isZero();
    assertThat(primaryKeyCount(null, null, "missing")).isZero();
  }

  @Test
  void foreignKeyCommandsAreEmptyWithTheirSchemas() {
    try (VectorSchemaRoot exported =
            metadata.getExportedKeys(allocator, CommandGetExportedKeys.newBuilder().setTable("customers").build());
        VectorSchemaRoot imported =
            metadata.getImportedKeys(allocator, CommandGetImportedKeys.newBuilder().setTable("customers").build());
        VectorSchemaRoot cross =
            metadata.getCrossReference(
                allocator, CommandGetCrossReference.newBuilder().setPkTable("customers").setFkTable("orders").build())) {
      assertThat(exported.getSchema()).isEqualTo(Schemas.GET_EXPORTED_KEYS_SCHEMA);
      assertThat(imported.getSchema()).isEqualTo(Schemas.GET_IMPORTED_KEYS_SCHEMA);
      assertThat(cross.getSchema()).isEqualTo(Schemas.GET_CROSS_REFERENCE_SCHEMA);
      assertThat(exported.getRowCount()).isZero();
      assertThat(imported.getRowCount()).isZero();
      assertThat(cross.getRowCount()).isZero();
    }
  }

  @Test
  void sqlInfoAnswersTheRequestedIds() {
    CommandGetSqlInfo command =
        CommandGetSqlInfo.newBuilder()
            .addInfo(SqlInfo.FLIGHT_SQL_SERVER_NAME_VALUE)
            .addInfo(SqlInfo.FLIGHT_SQL_SERVER_VERSION_VALUE)
            .addInfo(12_345)
            .addInfo(SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION_VALUE)
            .build();
    try (VectorSchemaRoot root = metadata.getSqlInfo(allocator, command)) {
      assertThat(root.getSchema()).isEqualTo(Schemas.GET_SQL_INFO_SCHEMA);
      assertThat(RootContents.rows(root)).containsExactly(List.of(0, "SQE"), List.of(1, "0.1.0-test"), List.of(8, 2));
    }
    assertThat(metadata.knownSqlInfo(List.of(12_345, 0))).containsExactly(0);
    assertThat(metadata.knownSqlInfo(List.of())).contains(0, 1, 2, 3, 500, 576);
  }

  @Test
  void typeInfoListsEveryColumnTypeTheDriverReports() {
    try (VectorSchemaRoot root = metadata.getXdbcTypeInfo(allocator, CommandGetXdbcTypeInfo.getDefaultInstance())) {
      assertThat(root.getSchema()).isEqualTo(Schemas.GET_TYPE_INFO_SCHEMA);
      RootContents.validate(root);
      List<List<Object>> rows = RootContents.rows(root);
      assertThat(rows)
          .extracting(r -> r.get(0))
          .containsExactlyInAnyOrder(
              "BOOLEAN", "INTEGER", "BIGINT", "REAL", "DOUBLE", "DECIMAL", "DATE", "TIME", "TIMESTAMP",
              "TIMESTAMP WITH TIME ZONE", "VARCHAR", "UUID", "BINARY", "VARBINARY", "ARRAY", "MAP", "ROW");
      List<Integer> dataTypes = rows.stream().map(r -> (Integer) r.get(1)).toList();
      assertThat(dataTypes).isSortedAccordingTo(Comparator.naturalOrder());
      int decimal = indexOf(rows, "DECIMAL");
      assertThat(rows.get(decimal).get(5)).isEqualTo(List.of("precision", "scale"));
      int date = indexOf(rows, "DATE");
      assertThat(rows.get(date).get(15)).isEqualTo(9);
      assertThat(rows.get(date).get(16)).isEqualTo(1);
      assertThat(rows.get(indexOf(rows, "VARCHAR")).get(7)).isEqualTo(true);
    }
    try (VectorSchemaRoot root =
        metadata.getXdbcTypeInfo(allocator, CommandGetXdbcTypeInfo.newBuilder().setDataType(java.sql.Types.BINARY).build())) {
      assertThat(RootContents.rows(root)).extracting(r -> r.get(0)).containsExactly("BINARY", "UUID");
    }
    try (VectorSchemaRoot root = metadata.getXdbcTypeInfo(allocator, java.sql.Types.NCLOB)) {
      assertThat(root.getRowCount()).isZero();
    }
  }

  private static int indexOf(List<List<Object>> rows, String typeName) {
    for (int i = 0; i < rows.size(); i++) {
      if (typeName.equals(rows.get(i).get(0))) {
        return i;
      }
    }
    throw new AssertionError("No type " + typeName);
  }

  private int primaryKeyCount(String catalog, String schema, String table) {
    try (VectorSchemaRoot root = metadata.getPrimaryKeys(allocator, PRINCIPAL, catalog, schema, table)) {
      return root.getRowCount();
    }
  }

  private List<String> schemaNames(String catalog, String pattern) {
    try (VectorSchemaRoot root = metadata.getDbSchemas(allocator, PRINCIPAL, catalog, pattern)) {
      return RootContents.rows(root).stream().map(r -> (String) r.get(1)).toList();
    }
  }

  private List<String> tableNames(String catalog, String schemaPattern, String tablePattern, List<String> types) {
    try (VectorSchemaRoot root = metadata.getTables(allocator, PRINCIPAL, catalog, schemaPattern, tablePattern, types, false)) {
      return RootContents.rows(root).stream().map(r -> r.get(1) + "." + r.get(2)).toList();
    }
  }

  private static org.apache.arrow.vector.types.pojo.Schema deserialize(byte[] bytes) {
    try {
      return MessageSerializer.deserializeSchema(
          new ReadChannel(Channels.newChannel(new ByteArrayInputStream(bytes))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Field withoutFlightSqlMetadata(Field field) {
    Map<String, String> kept = new HashMap<>(field.getMetadata());
    kept.keySet().removeIf(k -> k.startsWith("ARROW:FLIGHT:SQL:"));
    return new Field(
        field.getName(),
        new FieldType(field.isNullable(), field.getType(), field.getDictionary(), kept.isEmpty() ? null : kept),
        field.getChildren());
  }
}
