package io.sqe.write.dml;

import static io.sqe.write.dml.SqlPositions.error;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.iceberg.IcebergMetadataTable;
import io.sqe.engine.session.Session;
import io.sqe.write.txn.IcebergTransaction;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * Resolves the table a statement writes as queries resolve names: {@code table} in the session's
 * schema, {@code schema.table} in the session's catalog, {@code catalog.schema.table}; a name
 * matches exactly, else in lower case, else ignoring case.
 */
final class TableNames {
  private TableNames() {}

  /** A table a statement names, in its catalog. */
  record TableRef(LakehouseCatalog catalog, TableIdentifier id) {
    String displayName() {
      return catalog.name() + "." + id;
    }

    /** The table as the catalog has it now, bypassing the cache: a write must start from the latest snapshot. */
    Table loadFresh() {
      try {
        return catalog.iceberg().loadTable(id);
      } catch (NoSuchTableException e) {
        throw new io.sqe.engine.SqeException(ErrorCode.NOT_FOUND, "Table " + displayName() + " does not exist", e);
      }
    }
  }

  /** An existing table; NOT_FOUND, at the name's position, when there is none. */
  static TableRef existing(CommandContext context, SqlIdentifier name) {
    TableRef ref = resolve(context, name);
    if (createdInTransaction(context.session(), ref.catalog(), ref.id()).isPresent()) {
      return ref;
    }
    String table = findTable(ref.catalog(), ref.id().namespace(), ref.id().name())
        .orElseThrow(() -> {
          if (ref.catalog().views().map(v -> v.viewExists(ref.id())).orElse(false)) {
            return error(ErrorCode.INVALID_ARGUMENT, ref.displayName() + " is a view; only tables can be written", name);
          }
          if (isMetadataTable(ref)) {
            return error(ErrorCode.INVALID_ARGUMENT, ref.displayName() + " is a metadata table; metadata tables are read-only", name);
          }
          return error(ErrorCode.NOT_FOUND, "Table " + ref.displayName() + " does not exist", name);
        });
    return new TableRef(ref.catalog(), TableIdentifier.of(ref.id().namespace(), table));
  }

  /** Whether the name is one of an existing table's metadata tables ({@code t$snapshots}). */
  static boolean isMetadataTable(TableRef ref) {
    return IcebergMetadataTable.Name.parse(ref.id().name())
        .filter(parsed -> parsed.kind().isPresent())
        .map(parsed -> ref.catalog().iceberg().tableExists(TableIdentifier.of(ref.id().namespace(), parsed.table())))
        .orElse(false);
  }

  /**
   * Where a table of this name is or would be: the catalog and schema must exist; the table name
   * is the existing table's when one matches, else as written.
   */
  static TableRef resolve(CommandContext context, SqlIdentifier name) {
    return resolve(context.session(), context.catalogs(), name);
  }

  static TableRef resolve(Session session, Catalogs catalogs, SqlIdentifier name) {
    List<String> names = name.names;
    String catalogName;
    String schemaName;
    String tableName;
    switch (names.size()) {
      case 1:
        catalogName = session.catalog();
        schemaName = session.schemaName().orElseThrow(() -> error(
            ErrorCode.INVALID_ARGUMENT, "No schema is selected; name the table as schema.table or run USE schema first", name));
        tableName = names.get(0);
        break;
      case 2:
        catalogName = session.catalog();
        schemaName = names.get(0);
        tableName = names.get(1);
        break;
      case 3:
        catalogName = names.get(0);
        schemaName = names.get(1);
        tableName = names.get(2);
        break;
      default:
        throw error(ErrorCode.INVALID_ARGUMENT, "A table name has at most three parts (catalog.schema.table): " + name, name);
    }
    LakehouseCatalog catalog = catalogs.find(catalogName)
        .orElseThrow(() -> error(ErrorCode.NOT_FOUND, "Catalog '" + catalogName + "' does not exist", name));
    String schema = findSchema(catalog, schemaName)
        .orElseThrow(() -> error(ErrorCode.NOT_FOUND, "Schema '" + catalog.name() + "." + schemaName + "' does not exist", name));
    Namespace namespace = Namespace.of(schema);
    Optional<TableIdentifier> created = createdInTransaction(session, catalog, TableIdentifier.of(namespace, tableName));
    if (created.isPresent()) {
      return new TableRef(catalog, created.get());
    }
    String table = findTable(catalog, namespace, tableName).orElse(tableName);
    return new TableRef(catalog, TableIdentifier.of(namespace, table));
  }

  /** The table the session's transaction creates under this name, which the catalog does not have yet. */
  private static Optional<TableIdentifier> createdInTransaction(Session session, LakehouseCatalog catalog, TableIdentifier name) {
    return IcebergTransaction.of(session).flatMap(t -> t.createdTable(catalog, name));
  }

  private static Optional<String> findSchema(LakehouseCatalog catalog, String name) {
    for (String candidate : List.of(name, name.toLowerCase(Locale.ROOT))) {
      if (catalog.schemaExists(candidate)) {
        return Optional.of(candidate);
      }
    }
    return catalog.listSchemas().stream()
        .map(ns -> String.join(".", ns.levels()))
        .filter(n -> n.equalsIgnoreCase(name))
        .findFirst();
  }

  private static Optional<String> findTable(LakehouseCatalog catalog, Namespace namespace, String name) {
    for (String candidate : List.of(name, name.toLowerCase(Locale.ROOT))) {
      if (catalog.iceberg().tableExists(TableIdentifier.of(namespace, candidate))) {
        return Optional.of(candidate);
      }
    }
    return catalog.iceberg().listTables(namespace).stream()
        .map(TableIdentifier::name)
        .filter(n -> n.equalsIgnoreCase(name))
        .findFirst();
  }
}
