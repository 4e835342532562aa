package io.sqe.flight.metadata;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.catalog.types.UnsupportedTypeException;
import io.sqe.engine.session.Principal;
import io.sqe.infoschema.CatalogMetadata;
import io.sqe.infoschema.ColumnInfo;
import io.sqe.infoschema.NameFilter;
import io.sqe.infoschema.PrimaryKeys;
import io.sqe.infoschema.Relation;
import io.sqe.infoschema.RelationType;
import io.sqe.infoschema.SchemaRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The answers to the Flight SQL metadata commands, read from the server's Iceberg catalogs through
 * the same {@link CatalogMetadata} as information_schema, so both show the same objects to the same
 * principal.
 *
 * <p>Every method returns a new root, allocated from the caller's allocator, whose schema is the
 * matching {@link Schemas} constant exactly (clients compare them strictly); the caller sends and
 * closes it. Optional protobuf fields keep their Flight SQL meaning: an absent catalog means every
 * catalog, an empty one means "no catalog" (and so no rows, as every SQE object has a catalog), and
 * an absent filter pattern matches everything.
 */
public final class FlightSqlMetadata {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlMetadata.class);

  private final Catalogs catalogs;
  private final CatalogMetadata metadata;
  private final String serverName;
  private final String serverVersion;
  private final SqlInfoValues sqlInfo;
  private final Duration sessionIdleTimeout;

  public FlightSqlMetadata(Catalogs catalogs, CatalogMetadata metadata, String serverName, String serverVersion) {
    this(catalogs, metadata, serverName, serverVersion, ServerSqlInfo.SESSION_IDLE_TIMEOUT);
  }

  /** @param sessionIdleTimeout how long a session lives without a call, which GetSqlInfo reports as the transaction timeout */
  public FlightSqlMetadata(
      Catalogs catalogs, CatalogMetadata metadata, String serverName, String serverVersion, Duration sessionIdleTimeout) {
    this.sessionIdleTimeout = requireNonNull(sessionIdleTimeout, "sessionIdleTimeout is null");
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
    this.metadata = requireNonNull(metadata, "metadata is null");
    this.serverName = requireNonNull(serverName, "serverName is null");
    this.serverVersion = requireNonNull(serverVersion, "serverVersion is null");
    this.sqlInfo = ServerSqlInfo.values(serverName, serverVersion, sessionIdleTimeout);
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

  public VectorSchemaRoot getDbSchemas(BufferAllocator allocator, Principal principal, CommandGetDbSchemas command) {
    return getDbSchemas(
        allocator,
        principal,
        command.hasCatalog() ? command.getCatalog() : null,
        command.hasDbSchemaFilterPattern() ? command.getDbSchemaFilterPattern() : null);
  }

  /**
   * GetDbSchemas: the schemas (Iceberg namespaces) of the catalog, or of every catalog when it is
   * null, whose names match the LIKE pattern (null: all); sorted by catalog and schema.
   */
  public VectorSchemaRoot getDbSchemas(
      BufferAllocator allocator, Principal principal, String catalog, String dbSchemaFilterPattern) {
    NameFilter filter = NameFilter.like(dbSchemaFilterPattern);
    List<SchemaRef> schemas = new ArrayList<>();
    for (LakehouseCatalog c : catalogs(catalog)) {
      schemas.addAll(metadata.schemas(c, principal, filter));
    }
    return Vectors.fill(
        Schemas.GET_SCHEMAS_SCHEMA,
        allocator,
        schemas.size(),
        (root, i) -> {
          Vectors.setString(root, "catalog_name", i, schemas.get(i).catalogName());
          Vectors.setString(root, "db_schema_name", i, schemas.get(i).name());
        });
  }

  public VectorSchemaRoot getTables(BufferAllocator allocator, Principal principal, CommandGetTables command) {
    return getTables(
        allocator,
        principal,
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
   * with Flight SQL column metadata, serialized as an IPC message, and a table whose columns
   * information_schema does not show either (it cannot be loaded, it was dropped meanwhile) is left
   * out. A pattern without wildcards names one schema or table, which is looked up, not listed.
   */
  public VectorSchemaRoot getTables(
      BufferAllocator allocator,
      Principal principal,
      String catalog,
      String dbSchemaFilterPattern,
      String tableNameFilterPattern,
      List<String> tableTypes,
      boolean includeSchema) {
    NameFilter schemas = NameFilter.like(dbSchemaFilterPattern);
    NameFilter names = NameFilter.like(tableNameFilterPattern);
    Set<RelationType> types = tableTypes(tableTypes);
    List<Relation> rows = new ArrayList<>();
    for (LakehouseCatalog c : catalogs(catalog)) {
      rows.addAll(metadata.relations(c, principal, schemas, names, types));
    }
    List<byte[]> arrowSchemas = new ArrayList<>(rows.size());
    if (includeSchema) {
      List<Relation> described = new ArrayList<>(rows.size());
      for (Relation row : rows) {
        arrowSchema(principal, row).ifPresent(schema -> {
          described.add(row);
          arrowSchemas.add(schema.serializeAsMessage());
        });
      }
      rows = described;
    }
    List<Relation> answer = rows;
    return Vectors.fill(
        includeSchema ? Schemas.GET_TABLES_SCHEMA : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA,
        allocator,
        answer.size(),
        (root, i) -> {
          Relation row = answer.get(i);
          Vectors.setString(root, "catalog_name", i, row.schema().catalogName());
          Vectors.setString(root, "db_schema_name", i, row.schema().name());
          Vectors.setString(root, "table_name", i, row.name());
          Vectors.setString(root, "table_type", i, row.type().flightName());
          if (includeSchema) {
            Vectors.setBytes(root, "table_schema", i, arrowSchemas.get(i));
          }
        });
  }

  /** GetTableTypes: TABLE and VIEW. */
  public VectorSchemaRoot getTableTypes(BufferAllocator allocator) {
    RelationType[] types = RelationType.values();
    return Vectors.fill(
        Schemas.GET_TABLE_TYPES_SCHEMA,
        allocator,
        types.length,
        (root, i) -> Vectors.setString(root, "table_type", i, types[i].flightName()));
  }

  /**
   * A new Arrow builder holding the SqlInfo values it has setters for (all but the result set
   * concurrency ids 568-571). Beware that its {@code send} throws on an id it has no value for and
   * sends every value for an empty list; {@link #getSqlInfo} does neither.
   */
  public SqlInfoBuilder sqlInfoBuilder() {
    return ServerSqlInfo.builder(serverName, serverVersion, sessionIdleTimeout);
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

  public VectorSchemaRoot getPrimaryKeys(BufferAllocator allocator, Principal principal, CommandGetPrimaryKeys command) {
    return getPrimaryKeys(
        allocator,
        principal,
        command.hasCatalog() ? command.getCatalog() : null,
        command.hasDbSchema() ? command.getDbSchema() : null,
        command.getTable());
  }

  /**
   * GetPrimaryKeys: the identifier fields of the named Iceberg table (names, not patterns; a null
   * catalog or schema searches all), with key_sequence following the column order, as
   * information_schema.key_column_usage shows them. Nested identifier fields are named by their
   * dotted path.
   */
  public VectorSchemaRoot getPrimaryKeys(
      BufferAllocator allocator, Principal principal, String catalog, String dbSchema, String table) {
    requireNonNull(table, "table is null");
    NameFilter schemas = dbSchema == null ? NameFilter.ANY : NameFilter.exact(dbSchema);
    List<Relation> tables = new ArrayList<>();
    for (LakehouseCatalog c : catalogs(catalog)) {
      tables.addAll(metadata.relations(c, principal, schemas, NameFilter.exact(table), PrimaryKeys.TABLES));
    }
    List<PrimaryKeys.KeyColumn> keys = PrimaryKeys.columns(metadata, principal, tables);
    return Vectors.fill(
        Schemas.GET_PRIMARY_KEYS_SCHEMA,
        allocator,
        keys.size(),
        (root, i) -> {
          PrimaryKeys.KeyColumn key = keys.get(i);
          Vectors.setString(root, "catalog_name", i, key.table().schema().catalogName());
          Vectors.setString(root, "db_schema_name", i, key.table().schema().name());
          Vectors.setString(root, "table_name", i, key.table().name());
          Vectors.setString(root, "column_name", i, key.column());
          Vectors.setInt(root, "key_sequence", i, key.position());
          Vectors.setString(root, "key_name", i, key.constraintName());
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

  /** The relation types a command lists: all for none, else the known ones named. */
  private static Set<RelationType> tableTypes(List<String> requested) {
    if (requested == null || requested.isEmpty()) {
      return EnumSet.allOf(RelationType.class);
    }
    Set<RelationType> types = EnumSet.noneOf(RelationType.class);
    for (String name : requested) {
      RelationType.ofFlightName(name).ifPresent(types::add);
    }
    return types;
  }

  /** The relation's visible columns as an annotated Arrow schema, when they can be described. */
  private Optional<Schema> arrowSchema(Principal principal, Relation relation) {
    Optional<List<ColumnInfo>> columns = metadata.columns(principal, relation);
    if (columns.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(TableSchemas.toArrow(relation, relation.details().orElseThrow().schema(), columns.get()));
    } catch (UnsupportedTypeException e) {
      LOG.warn("Leaving {} out of GetTables: {}", relation, e.getMessage());
      return Optional.empty();
    }
  }
}
