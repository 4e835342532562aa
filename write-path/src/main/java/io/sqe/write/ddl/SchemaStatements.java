package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.sql.ddl.SqlCreateSchema;
import io.sqe.engine.sql.ddl.SqlDropSchema;
import io.sqe.write.storage.ChosenLocations;
import io.sqe.write.storage.LocationRules;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;

/** CREATE SCHEMA and DROP SCHEMA: Iceberg namespaces of one level. */
final class SchemaStatements {
  private SchemaStatements() {}

  static PreparedCommand create(CommandContext context, SqlCreateSchema create, LocationRules locations) {
    SchemaName name = Names.checkNew(Names.schema(context, create.name()));
    // A HashMap: Iceberg's REST client fails on immutable maps here.
    Map<String, String> properties = new HashMap<>(PropertyValues.schema(create.properties()));
    // REST catalogs place the schema's tables under its location.
    ChosenLocations chosen = ChosenLocations.of(locations, context.session().principal(), name.catalog(), create.properties());
    return (ctx, parameters) -> {
      try {
        if (name.catalog().namespaces().namespaceExists(name.namespace())) {
          return existing(create, name);
        }
        chosen.checkFree(name.catalog(), null);
        name.catalog().namespaces().createNamespace(name.namespace(), properties);
      } catch (AlreadyExistsException e) {
        return existing(create, name);
      } catch (RuntimeException e) {
        // Iceberg's JDBC catalog reports a create that lost a race as a failed insert (a unique
        // key), not as AlreadyExistsException: the namespace is there, made by the winner.
        if (existsAfterFailure(name)) {
          return existing(create, name);
        }
        throw DdlErrors.translate(e, create.name());
      }
      return CommandResult.rows(0);
    };
  }

  private static boolean existsAfterFailure(SchemaName name) {
    try {
      return name.catalog().namespaces().namespaceExists(name.namespace());
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static CommandResult existing(SqlCreateSchema create, SchemaName name) {
    if (create.ifNotExists) {
      return CommandResult.rows(0);
    }
    throw error(ErrorCode.ALREADY_EXISTS, "Schema '" + name.qualified() + "' already exists", create.name());
  }

  static PreparedCommand drop(CommandContext context, SqlDropSchema drop) {
    SchemaName name = Names.schema(context, drop.name());
    if (!drop.ifExists && !name.catalog().namespaces().namespaceExists(name.namespace())) {
      throw notFound(name);
    }
    return (ctx, parameters) -> {
      try {
        // A table or view created while CASCADE drops the others makes the catalog refuse to drop
        // the schema; that one is dropped on a second pass, as if it had been created first.
        for (int pass = 1; !dropOnce(name, drop); pass++) {
          if (!drop.cascade() || pass == 2) {
            throw error(
                ErrorCode.FAILED_PRECONDITION,
                "Schema '" + name.qualified() + "' is not empty: tables or views were created in it concurrently"
                    + (drop.cascade() ? "; the ones it had before are dropped" : "") + "; retry the statement",
                drop.name());
          }
        }
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, drop.name());
      }
      return CommandResult.rows(0);
    };
  }

  /** Drops the schema (with what it holds, for CASCADE); false if the catalog found it not empty. */
  private static boolean dropOnce(SchemaName name, SqlDropSchema drop) {
    if (!name.catalog().namespaces().namespaceExists(name.namespace())) {
      if (drop.ifExists) {
        return true;
      }
      throw notFound(name);
    }
    List<TableIdentifier> tables = name.catalog().iceberg().listTables(name.namespace());
    List<TableIdentifier> views = name.catalog().views().map(v -> v.listViews(name.namespace())).orElse(List.of());
    if (!drop.cascade() && (!tables.isEmpty() || !views.isEmpty())) {
      throw error(
          ErrorCode.FAILED_PRECONDITION,
          "Schema '" + name.qualified() + "' is not empty: it has " + count(tables.size(), "table") + " and "
              + count(views.size(), "view") + "; drop them first or use DROP SCHEMA ... CASCADE",
          drop.name());
    }
    // Views first: they may read the tables. Table files stay, as with DROP TABLE without PURGE.
    for (TableIdentifier view : views) {
      name.catalog().views().orElseThrow().dropView(view);
    }
    for (TableIdentifier table : tables) {
      name.catalog().iceberg().dropTable(table, false);
      name.catalog().invalidate(table);
    }
    try {
      if (!name.catalog().namespaces().dropNamespace(name.namespace()) && !drop.ifExists) {
        throw notFound(name);
      }
      return true;
    } catch (NamespaceNotEmptyException e) {
      return false;
    }
  }

  private static io.sqe.engine.SqeException notFound(SchemaName name) {
    return error(ErrorCode.NOT_FOUND, "Schema '" + name.qualified() + "' does not exist", name.node());
  }

  private static String count(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
