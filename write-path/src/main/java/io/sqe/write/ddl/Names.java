package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.session.Session;
import io.sqe.write.storage.PathSafeNames;
import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Resolves names as queries do: {@code catalog.schema.name}, {@code schema.name} in the session's
 * catalog, and a bare name in the session's schema. Unquoted names arrive lower-cased from the
 * parser and are used as they are.
 */
final class Names {
  private Names() {}

  static ObjectName object(CommandContext context, SqlIdentifier name) {
    Session session = context.session();
    List<String> parts = name.names;
    String catalog;
    String schema;
    switch (parts.size()) {
      case 1:
        catalog = session.catalog();
        schema = session.schema();
        if (schema == null) {
          throw error(
              ErrorCode.INVALID_ARGUMENT,
              "No schema is selected for '" + parts.get(0) + "': write schema." + parts.get(0) + " or run USE schema first",
              name);
        }
        break;
      case 2:
        catalog = session.catalog();
        schema = parts.get(0);
        break;
      case 3:
        catalog = parts.get(0);
        schema = parts.get(1);
        break;
      default:
        throw error(ErrorCode.INVALID_ARGUMENT, "Too many parts in name '" + name + "': use catalog.schema.name", name);
    }
    return new ObjectName(catalog(context, catalog, name), TableIdentifier.of(schema, parts.get(parts.size() - 1)), name);
  }

  static SchemaName schema(CommandContext context, SqlIdentifier name) {
    List<String> parts = name.names;
    switch (parts.size()) {
      case 1:
        return new SchemaName(catalog(context, context.session().catalog(), name), Namespace.of(parts.get(0)), name);
      case 2:
        return new SchemaName(catalog(context, parts.get(0), name), Namespace.of(parts.get(1)), name);
      default:
        throw error(ErrorCode.INVALID_ARGUMENT, "Too many parts in schema name '" + name + "': use catalog.schema", name);
    }
  }

  /**
   * Checks the names of an object a statement creates (or renames to): they become the directory
   * names of its default location, so each must be one plain path segment.
   *
   * @param kind {@code table} or {@code view}
   */
  static ObjectName checkNew(ObjectName name, String kind) {
    PathSafeNames.check("schema", name.schema(), DdlErrors.position(name.node()));
    PathSafeNames.check(kind, name.id().name(), DdlErrors.position(name.node()));
    return name;
  }

  /** Checks the name of a schema a statement creates, which becomes a directory name. */
  static SchemaName checkNew(SchemaName name) {
    for (String level : name.namespace().levels()) {
      PathSafeNames.check("schema", level, DdlErrors.position(name.node()));
    }
    return name;
  }

  private static LakehouseCatalog catalog(CommandContext context, String catalog, SqlIdentifier at) {
    return context.catalogs().find(catalog)
        .orElseThrow(() -> error(ErrorCode.NOT_FOUND, "Catalog '" + catalog + "' does not exist", at));
  }
}
