package io.sqe.flight.metadata;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.catalog.types.UnsupportedTypeException;
import io.sqe.infoschema.LikePattern;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The answers to the Flight SQL metadata commands, read from the server's Iceberg catalogs.
 *
 * <p>Every method returns a new root, allocated from the caller's allocator, whose schema is the
 * matching {@link Schemas} constant exactly (clients compare them strictly); the caller sends and
 * closes it. Optional protobuf fields keep their Flight SQL meaning: an absent catalog means every
 * catalog, an empty one means "no catalog" (and so no rows, as every SQE object has a catalog), and
 * an absent filter pattern matches everything.
 */
public final class FlightSqlMetadata {
  public static final String TABLE = "TABLE";
  public static final String VIEW = "VIEW";
  public static final List<String> TABLE_TYPES = List.of(TABLE, VIEW);

  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlMetadata.class);

  private final Catalogs catalogs;
  private final String serverName;
  private final String serverVersion;
  private final SqlInfoValues sqlInfo;

  public FlightSqlMetadata(Catalogs catalogs, String serverName, String serverVersion) {
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
    this.serverName = requireNonNull(serverName, "serverName is null");
    this.serverVersion = requireNonNull(serverVersion, "serverVersion is null");
    this.sqlInfo = ServerSqlInfo.values(serverName, serverVersion);
  }

  /** GetCatalogs: every catalog name, sorted. */
  public VectorSchemaRoot getCatalogs(BufferAllocator allocator) {
    List<String> names = sortedCatalogs().stream().map(LakehouseCatalog::name).toList();
    return Vectors.fill(
        Schemas.GET_CATALOGS_SCHEMA,
        allocator,
        names.size(),
        (root, i) -> Vectors.setString(root, "catalog_name", i, names.get(i)));
  }

  public VectorSchemaRoot getDbSchemas(BufferAllocator allocator, CommandGetDbSchemas command) {
    return getDbSchemas(
        allocator,
        command.hasCatalog() ? command.getCatalog() : null,
        command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null);
  }

  /**
   * GetDbSchemas: the schemas (Iceberg namespaces) of the catalog, or of every catalog when it is
   * null, whose names match the LIKE pattern (null: all); sorted by catalog and schema.
   */
  public VectorSchemaRoot getDbSchemas(
      BufferAllocator allocator, String catalog, String dbSchemaFilterPattern) {
    LikePattern pattern = LikePattern.of(dbSchemaFilterPattern);
    List<SchemaRef> schemas = new ArrayList<>();
    for (LakehouseCatalog c : catalogs(catalog)) {
      schemas.addAll(schemas(c, pattern));
    }
    return Vectors.fill(
        Schemas.GET_SCHEMAS_SCHEMA,
        allocator,
        schemas.size(),
        (root, i) -> {
          Vectors.setString(root, "catalog_name", i, schemas.get(i).catalog().name());
          Vectors.setString(root, "db_schema_name", i, schemas.get(i).name());
        });
  }

  public VectorSchemaRoot getTables(BufferAllocator allocator, CommandGetTables command) {
    return getTables(
        allocator,
        command.hasCatalog() ? command.getCatalog() : null,
        command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null,
        command.hasTableNameFilterPattern() ? command.getTableNameFilterPattern() : null,
        command.getTableTypesList(),
        command.getIncludeSchema());
  }

  /**
   * GetTables: Iceberg tables (type TABLE) and views (type VIEW) whose schema and name match the
   * LIKE patterns (null: all) and whose type is listed (null or empty: all types), sorted by
   * catalog, schema and name. With {@code includeSchema}, each row carries the table's Arrow schema
   * with Flight SQL column metadata, serialized as an IPC message; only then are tables loaded, and
   * one that cannot be loaded (dropped meanwhile, unreadable metadata) is left out.
   */
  public VectorSchemaRoot getTables(
      BufferAllocator allocator,
      String catalog,
      String dbSchemaFilterPattern,
      String tableNameFilterPattern,
      List<String> tableTypes,
      boolean includeSchema) {
    List<TableRow> rows =
        listTables(
            catalog,
            LikePattern.of(dbSchemaFilterPattern),
            LikePattern.of(tableNameFilterPattern),
            tableTypes(tableTypes));
    List<byte[]> arrowSchemas = new ArrayList<>(rows.size());
    if (includeSchema) {
      List<TableRow> loaded = new ArrayList<>(rows.size());
      for (TableRow row : rows) {
        arrowSchema(row).ifPresent(schema -> {
          loaded.add(row);
          arrowSchemas.add(schema.serializeAsMessage());
        });
      }
      rows = loaded;
    }
    List<TableRow> answer = rows;
    return Vectors.fill(
        includeSchema ? Schemas.GET_TABLES_SCHEMA : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA,
        allocator,
        answer.size(),
        (root, i) -> {
          TableRow row = answer.get(i);
          Vectors.setString(root, "catalog_name", i, row.schema().catalog().name());
          Vectors.setString(root, "db_schema_name", i, row.schema().name());
          Vectors.setString(root, "table_name", i, row.id().name());
          Vectors.setString(root, "table_type", i, row.type());
          if (includeSchema) {
            Vectors.setBytes(root, "table_schema", i, arrowSchemas.get(i));
          }
        });
  }

  /** The matching tables and views, sorted, found by listing alone (nothing is loaded). */
  private List<TableRow> listTables(
      String catalog, LikePattern schemaPattern, LikePattern tablePattern, Set<String> types) {
    List<TableRow> rows = new ArrayList<>();
    for (LakehouseCatalog c : catalogs(catalog)) {
      Optional<ViewCatalog> views = c.views();
      for (SchemaRef schema : schemas(c, schemaPattern)) {
        if (types.contains(TABLE)) {
          for (TableIdentifier id : listOrEmpty(() -> c.iceberg().listTables(schema.namespace()))) {
            if (tablePattern.matches(id.name())) {
              rows.add(new TableRow(schema, id, TABLE));
            }
          }
        }
        if (types.contains(VIEW) && views.isPresent()) {
          for (TableIdentifier id : listOrEmpty(() -> views.get().listViews(schema.namespace()))) {
            if (tablePattern.matches(id.name())) {
              rows.add(new TableRow(schema, id, VIEW));
            }
          }
        }
      }
    }
    rows.sort(TableRow.ORDER);
    return rows;
  }

  /** GetTableTypes: TABLE and VIEW. */
  public VectorSchemaRoot getTableTypes(BufferAllocator allocator) {
    return Vectors.fill(
        Schemas.GET_TABLE_TYPES_SCHEMA,
        allocator,
        TABLE_TYPES.size(),
        (root, i) -> Vectors.setString(root, "table_type", i, TABLE_TYPES.get(i)));
  }

  /**
   * A new Arrow builder holding the SqlInfo values it has setters for (all but the result set
   * concurrency ids 568-571). Beware that its {@code send} throws on an id it has no value for and
   * sends every value for an empty list; {@link #getSqlInfo} does neither.
   */
  public SqlInfoBuilder sqlInfoBuilder() {
    return ServerSqlInfo.builder(serverName, serverVersion);
  }

  /**
   * The requested SqlInfo ids this server answers, in request order without repeats; all of them
   * when none are requested.
   */
  public List<Integer> knownSqlInfo(List<Integer> requested) {
    return sqlInfo.known(requested);
  }

  public VectorSchemaRoot getSqlInfo(BufferAllocator allocator, CommandGetSqlInfo command) {
    return getSqlInfo(allocator, command.getInfoList());
  }

  /**
   * GetSqlInfo: one row per requested id this server knows (every id when none is requested);
   * unknown ids are left out, as the spec allows, rather than failing the call.
   */
  public VectorSchemaRoot getSqlInfo(BufferAllocator allocator, List<Integer> infoIds) {
    return sqlInfo.write(allocator, infoIds);
  }

  public VectorSchemaRoot getXdbcTypeInfo(BufferAllocator allocator, CommandGetXdbcTypeInfo command) {
    return getXdbcTypeInfo(allocator, command.hasDataType() ? command.getDataType() : null);
  }

  /** GetXdbcTypeInfo: the supported SQL types, or those with one data type code when given. */
  public VectorSchemaRoot getXdbcTypeInfo(BufferAllocator allocator, Integer dataType) {
    return XdbcTypes.write(allocator, dataType);
  }

  public VectorSchemaRoot getPrimaryKeys(BufferAllocator allocator, CommandGetPrimaryKeys command) {
    return getPrimaryKeys(
        allocator,
        command.hasCatalog() ? command.getCatalog() : null,
        command.hasDbSchema() ? command.getDbSchema() : null,
        command.getTable());
  }

  /**
   * GetPrimaryKeys: the identifier fields of the named Iceberg table (names, not patterns; a null
   * catalog or schema searches all), with key_sequence following the column order. Nested
   * identifier fields are named by their dotted path.
   */
  public VectorSchemaRoot getPrimaryKeys(
      BufferAllocator allocator, String catalog, String dbSchema, String table) {
    requireNonNull(table, "table is null");
    List<KeyColumn> keys = new ArrayList<>();
    for (LakehouseCatalog c : catalogs(catalog)) {
      for (SchemaRef schema : schemas(c, LikePattern.of(null))) {
        if (dbSchema == null || dbSchema.equals(schema.name())) {
          TableRow row = new TableRow(schema, TableIdentifier.of(schema.namespace(), table), TABLE);
          loadTable(row).ifPresent(t -> addKeys(keys, row, t.schema()));
        }
      }
    }
    return Vectors.fill(
        Schemas.GET_PRIMARY_KEYS_SCHEMA,
        allocator,
        keys.size(),
        (root, i) -> {
          KeyColumn key = keys.get(i);
          Vectors.setString(root, "catalog_name", i, key.table().schema().catalog().name());
          Vectors.setString(root, "db_schema_name", i, key.table().schema().name());
          Vectors.setString(root, "table_name", i, key.table().id().name());
          Vectors.setString(root, "column_name", i, key.column());
          Vectors.setInt(root, "key_sequence", i, key.sequence());
          Vectors.setString(root, "key_name", i, null);
        });
  }

  /** GetExportedKeys: always empty, as Iceberg has no foreign keys. */
  public VectorSchemaRoot getExportedKeys(BufferAllocator allocator, CommandGetExportedKeys command) {
    return empty(Schemas.GET_EXPORTED_KEYS_SCHEMA, allocator);
  }

  /** GetImportedKeys: always empty, as Iceberg has no foreign keys. */
  public VectorSchemaRoot getImportedKeys(BufferAllocator allocator, CommandGetImportedKeys command) {
    return empty(Schemas.GET_IMPORTED_KEYS_SCHEMA, allocator);
  }

  /** GetCrossReference: always empty, as Iceberg has no foreign keys. */
  public VectorSchemaRoot getCrossReference(BufferAllocator allocator, CommandGetCrossReference command) {
    return empty(Schemas.GET_CROSS_REFERENCE_SCHEMA, allocator);
  }

  private static VectorSchemaRoot empty(Schema schema, BufferAllocator allocator) {
    return Vectors.fill(schema, allocator, 0, (root, i) -> {});
  }

  private List<LakehouseCatalog> sortedCatalogs() {
    return catalogs.all().stream().sorted(Comparator.comparing(LakehouseCatalog::name)).toList();
  }

  /** The catalogs a command names: all for null, none for "", else the one named (if any). */
  private List<LakehouseCatalog> catalogs(String name) {
    if (name == null) {
      return sortedCatalogs();
    }
    if (name.isEmpty()) {
      return List.of();
    }
    return catalogs.find(name).stream().toList();
  }

  /** The catalog's schemas whose names match, sorted by name. */
  private static List<SchemaRef> schemas(LakehouseCatalog catalog, LikePattern pattern) {
    List<SchemaRef> schemas = new ArrayList<>();
    for (Namespace namespace : catalog.listSchemas()) {
      SchemaRef schema = new SchemaRef(catalog, namespace, String.join(".", namespace.levels()));
      if (pattern.matches(schema.name())) {
        schemas.add(schema);
      }
    }
    schemas.sort(Comparator.comparing(SchemaRef::name));
    return schemas;
  }

  /** A namespace listing, empty when the namespace was dropped since its parent was listed. */
  private static List<TableIdentifier> listOrEmpty(Supplier<List<TableIdentifier>> listing) {
    try {
      return listing.get();
    } catch (NoSuchNamespaceException e) {
      return List.of();
    }
  }

  private static Set<String> tableTypes(List<String> requested) {
    if (requested == null || requested.isEmpty()) {
      return Set.copyOf(TABLE_TYPES);
    }
    // Table type names are compared ignoring case: ODBC tools send them as users type them.
    return requested.stream()
        .map(t -> t.trim().toUpperCase(Locale.ROOT))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private Optional<Schema> arrowSchema(TableRow row) {
    boolean view = VIEW.equals(row.type());
    Optional<org.apache.iceberg.Schema> schema =
        view ? loadViewSchema(row) : loadTable(row).map(Table::schema);
    try {
      return schema.map(
          s -> TableSchemas.toArrow(
              row.schema().catalog().name(), row.schema().name(), row.id().name(), s, view));
    } catch (UnsupportedTypeException e) {
      LOG.warn("Leaving {} {} out of GetTables: {}", row.type(), row.qualifiedName(), e.getMessage());
      return Optional.empty();
    }
  }

  private static Optional<Table> loadTable(TableRow row) {
    try {
      return row.schema().catalog().loadTable(row.id());
    } catch (NoSuchTableException e) {
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.warn("Cannot load table {}; leaving it out of the metadata: {}", row.qualifiedName(), e.toString());
      LOG.debug("Loading table {} failed", row.qualifiedName(), e);
      return Optional.empty();
    }
  }

  private static Optional<org.apache.iceberg.Schema> loadViewSchema(TableRow row) {
    Optional<ViewCatalog> views = row.schema().catalog().views();
    if (views.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(views.get().loadView(row.id()).schema());
    } catch (NoSuchViewException e) {
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.warn("Cannot load view {}; leaving it out of the metadata: {}", row.qualifiedName(), e.toString());
      LOG.debug("Loading view {} failed", row.qualifiedName(), e);
      return Optional.empty();
    }
  }

  /** Adds a table's identifier fields, numbered in the order the columns appear. */
  private static void addKeys(List<KeyColumn> keys, TableRow table, org.apache.iceberg.Schema schema) {
    Set<Integer> identifiers = schema.identifierFieldIds();
    if (identifiers.isEmpty()) {
      return;
    }
    List<Integer> inColumnOrder = new ArrayList<>();
    collectInOrder(schema.asStruct(), identifiers, inColumnOrder);
    int sequence = 1;
    for (int id : inColumnOrder) {
      keys.add(new KeyColumn(table, schema.findColumnName(id), sequence++));
    }
  }

  private static void collectInOrder(Types.StructType struct, Set<Integer> wanted, List<Integer> out) {
    for (Types.NestedField field : struct.fields()) {
      if (wanted.contains(field.fieldId())) {
        out.add(field.fieldId());
      }
      // Identifier fields may sit in required structs, never in lists or maps.
      if (field.type().isStructType()) {
        collectInOrder(field.type().asStructType(), wanted, out);
      }
    }
  }

  /** A schema of one catalog: the Iceberg namespace and the name SQL uses for it. */
  private record SchemaRef(LakehouseCatalog catalog, Namespace namespace, String name) {}

  private record TableRow(SchemaRef schema, TableIdentifier id, String type) {
    static final Comparator<TableRow> ORDER =
        Comparator.<TableRow, String>comparing(r -> r.schema().catalog().name())
            .thenComparing(r -> r.schema().name())
            .thenComparing(r -> r.id().name())
            .thenComparing(TableRow::type);

    String qualifiedName() {
      return schema.catalog().name() + "." + schema.name() + "." + id.name();
    }
  }

  private record KeyColumn(TableRow table, String column, int sequence) {}
}
