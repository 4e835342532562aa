package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.sql.ddl.SqlColumnDeclaration;
import io.sqe.engine.sql.ddl.SqlCommentOn;
import io.sqe.engine.sql.ddl.SqlCreateTable;
import io.sqe.engine.sql.ddl.SqlDropTable;
import io.sqe.engine.sql.ddl.SqlTruncateTable;
import io.sqe.write.maintenance.TablePurge;
import io.sqe.write.storage.ChosenLocations;
import io.sqe.write.storage.LocationRules;
import io.sqe.write.storage.OtherTables;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/** CREATE [OR REPLACE] TABLE without a query, DROP TABLE, TRUNCATE TABLE, COMMENT ON TABLE and COMMENT ON COLUMN. */
final class TableStatements {
  /** The format version of new tables unless WITH names one: row-level deletes, still read by every engine. */
  static final String DEFAULT_FORMAT_VERSION = "2";
  private static final String LOCATION = "location";

  private TableStatements() {}

  static PreparedCommand create(CommandContext context, SqlCreateTable create, LocationRules locations) {
    ObjectName name = Names.checkNew(Names.object(context, create.name()), "table");
    if (!name.catalog().schemaExists(name.schema())) {
      throw schemaNotFound(name);
    }
    Schema schema = schema(create);
    PartitionSpec spec = TableLayouts.partitionSpec(schema, create.partitionBy());
    SortOrder order = TableLayouts.sortOrder(schema, create.sortedBy());
    Map<String, String> properties = new HashMap<>(PropertyValues.table(create.properties()));
    String location = properties.remove(LOCATION);
    ChosenLocations chosen = ChosenLocations.of(locations, context.session().principal(), name.catalog(), create.properties());
    if (create.comment() != null) {
      properties.put(TableProperties.COMMENT, create.comment());
    }
    return (ctx, parameters) -> {
      try {
        Catalog catalog = name.catalog().iceberg();
        if (!name.catalog().schemaExists(name.schema())) {
          throw schemaNotFound(name);
        }
        if (TableCommits.isView(name)) {
          throw error(ErrorCode.ALREADY_EXISTS, "A view named '" + name.qualified() + "' already exists", create.name());
        }
        boolean exists = catalog.tableExists(name.id());
        if (exists && !create.getReplace()) {
          return existing(create, name);
        }
        chosen.checkFree(name.catalog(), name.id());
        Map<String, String> tableProperties = new HashMap<>(properties);
        if (!exists) {
          tableProperties.putIfAbsent(TableProperties.FORMAT_VERSION, DEFAULT_FORMAT_VERSION);
        }
        Catalog.TableBuilder builder =
            catalog.buildTable(name.id(), schema).withPartitionSpec(spec).withSortOrder(order).withProperties(tableProperties);
        if (location != null) {
          builder = builder.withLocation(location);
        }
        if (create.getReplace()) {
          // One metadata swap: the old snapshots stay in the history, readable by time travel.
          builder.createOrReplaceTransaction().commitTransaction();
        } else {
          builder.create();
        }
      } catch (AlreadyExistsException e) {
        return existing(create, name);
      } catch (NoSuchNamespaceException e) {
        // Dropped after the check above, by a concurrent DROP SCHEMA.
        throw schemaNotFound(name);
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, create.name());
      } finally {
        name.catalog().invalidate(name.id());
      }
      return CommandResult.rows(0);
    };
  }

  private static CommandResult existing(SqlCreateTable create, ObjectName name) {
    if (create.ifNotExists) {
      return CommandResult.rows(0);
    }
    throw error(ErrorCode.ALREADY_EXISTS, "Table '" + name.qualified() + "' already exists", create.name());
  }

  private static Schema schema(SqlCreateTable create) {
    ColumnTypes types = new ColumnTypes();
    List<Types.NestedField> fields = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (SqlNode node : create.columns()) {
      SqlColumnDeclaration column = (SqlColumnDeclaration) node;
      SqlIdentifier columnName = column.name();
      if (!columnName.isSimple()) {
        throw error(ErrorCode.INVALID_ARGUMENT, "A column name has one part, not '" + columnName + "'", columnName);
      }
      // SQE matches names ignoring case, so names differing only in case could not be told apart.
      if (!names.add(columnName.getSimple().toLowerCase(Locale.ROOT))) {
        throw error(ErrorCode.INVALID_ARGUMENT, "Duplicate column name '" + columnName.getSimple() + "'", columnName);
      }
      fields.add(types.field(columnName.getSimple(), column.type(), column.notNull(), column.comment()));
    }
    return new Schema(fields);
  }

  static PreparedCommand drop(CommandContext context, SqlDropTable drop) {
    ObjectName name = Names.object(context, drop.name());
    if (!drop.ifExists && !name.catalog().iceberg().tableExists(name.id())) {
      throw TableCommits.notFound(name);
    }
    return (ctx, parameters) -> {
      try {
        if (drop.purge()) {
          purge(name, drop);
        } else if (!name.catalog().iceberg().dropTable(name.id(), false) && !drop.ifExists) {
          throw TableCommits.notFound(name);
        }
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, drop.name());
      } finally {
        name.catalog().invalidate(name.id());
      }
      return CommandResult.rows(0);
    };
  }

  /**
   * Drops the table and deletes its files itself: the catalog's purge would delete every file the
   * table references, those of another table sharing them included.
   */
  private static void purge(ObjectName name, SqlDropTable drop) {
    Optional<Table> table = TableCommits.load(name);
    if (table.isEmpty()) {
      if (!drop.ifExists) {
        throw TableCommits.notFound(name);
      }
      return;
    }
    TablePurge purge = TablePurge.plan(table.get(), OtherTables.of(name.catalog(), name.id()));
    if (!name.catalog().iceberg().dropTable(name.id(), false)) {
      if (!drop.ifExists) {
        throw TableCommits.notFound(name);
      }
      return;
    }
    purge.deleteFiles();
  }

  static PreparedCommand truncate(CommandContext context, SqlTruncateTable truncate) {
    ObjectName name = Names.object(context, truncate.name());
    TableCommits.loadExisting(name);
    return (ctx, parameters) -> {
      try {
        TableCommits.commit(name, false, "TRUNCATE TABLE", table -> {
          if (table.currentSnapshot() != null) {
            // A snapshot of its own: earlier snapshots stay readable by time travel.
            table.newDelete().deleteFromRowFilter(Expressions.alwaysTrue()).commit();
          }
        });
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, truncate.name());
      }
      return CommandResult.rows(0);
    };
  }

  static PreparedCommand commentOnTable(CommandContext context, SqlCommentOn comment) {
    ObjectName name = Names.object(context, comment.objectName());
    TableCommits.loadExisting(name);
    return (ctx, parameters) -> {
      try {
        TableCommits.commit(name, false, "COMMENT ON TABLE", table -> {
          if (comment.comment() == null) {
            table.updateProperties().remove(TableProperties.COMMENT).commit();
          } else {
            table.updateProperties().set(TableProperties.COMMENT, comment.comment()).commit();
          }
        });
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, comment.name());
      }
      return CommandResult.rows(0);
    };
  }

  static PreparedCommand commentOnColumn(CommandContext context, SqlCommentOn comment) {
    ObjectName name = Names.object(context, comment.objectName());
    String column = comment.column();
    Columns.find(TableCommits.loadExisting(name).schema(), column).orElseThrow(() -> columnNotFound(name, column, comment.name()));
    return (ctx, parameters) -> {
      try {
        TableCommits.commit(name, false, "COMMENT ON COLUMN", table -> {
          String field = Columns.find(table.schema(), column).orElseThrow(() -> columnNotFound(name, column, comment.name()));
          table.updateSchema().updateColumnDoc(field, comment.comment()).commit();
        });
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, comment.name());
      }
      return CommandResult.rows(0);
    };
  }

  static io.sqe.engine.SqeException columnNotFound(ObjectName table, String column, SqlNode at) {
    return error(ErrorCode.NOT_FOUND, "Column '" + column + "' does not exist in table '" + table.qualified() + "'", at);
  }

  static io.sqe.engine.SqeException schemaNotFound(ObjectName name) {
    return error(
        ErrorCode.NOT_FOUND, "Schema '" + name.catalog().name() + "." + name.schema() + "' does not exist", name.node());
  }
}
