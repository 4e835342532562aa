package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import io.sqe.engine.sql.ddl.SqlAlterTable;
import io.sqe.engine.sql.ddl.SqlAlterTableAddColumn;
import io.sqe.engine.sql.ddl.SqlAlterTableAlterColumnNullability;
import io.sqe.engine.sql.ddl.SqlAlterTableAlterColumnType;
import io.sqe.engine.sql.ddl.SqlAlterTableDropColumn;
import io.sqe.engine.sql.ddl.SqlAlterTableRename;
import io.sqe.engine.sql.ddl.SqlAlterTableRenameColumn;
import io.sqe.engine.sql.ddl.SqlAlterTableSetProperties;
import io.sqe.engine.sql.ddl.SqlAlterTableUnsetProperties;
import io.sqe.write.storage.ChosenLocations;
import io.sqe.write.storage.LocationRules;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortField;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * ALTER TABLE: rename, add / drop / rename a column, widen its type, SET / DROP NOT NULL, and set
 * or unset properties. Each alteration is checked against the table when the statement is
 * prepared, and checked and committed against a fresh load when it runs.
 */
final class AlterTableStatements {
  private AlterTableStatements() {}

  /** One change to a table: it throws if the change does not fit the table, and commits it otherwise. */
  private interface Alteration {
    /** Checks the change against the table; false when there is nothing to do (IF [NOT] EXISTS). */
    boolean check(Table table);

    void commit(Table table);
  }

  /** The alteration {@code alter} asks for; empty for ALTER TABLE forms other executors run. */
  static Optional<PreparedCommand> prepare(CommandContext context, SqlAlterTable alter, LocationRules locations) {
    ObjectName name = Names.object(context, alter.name());
    if (alter instanceof SqlAlterTableRename) {
      return Optional.of(rename(context, name, (SqlAlterTableRename) alter));
    }
    Alteration alteration;
    String statement;
    if (alter instanceof SqlAlterTableAddColumn) {
      alteration = addColumn(name, (SqlAlterTableAddColumn) alter);
      statement = "ADD COLUMN";
    } else if (alter instanceof SqlAlterTableDropColumn) {
      alteration = dropColumn(name, (SqlAlterTableDropColumn) alter);
      statement = "DROP COLUMN";
    } else if (alter instanceof SqlAlterTableRenameColumn) {
      alteration = renameColumn(name, (SqlAlterTableRenameColumn) alter);
      statement = "RENAME COLUMN";
    } else if (alter instanceof SqlAlterTableAlterColumnType) {
      alteration = alterColumnType(name, (SqlAlterTableAlterColumnType) alter);
      statement = "SET DATA TYPE";
    } else if (alter instanceof SqlAlterTableAlterColumnNullability) {
      SqlAlterTableAlterColumnNullability nullability = (SqlAlterTableAlterColumnNullability) alter;
      alteration = nullability.notNull() ? setNotNull(name, nullability) : dropNotNull(name, nullability);
      statement = nullability.notNull() ? "SET NOT NULL" : "DROP NOT NULL";
    } else if (alter instanceof SqlAlterTableSetProperties) {
      SqlAlterTableSetProperties set = (SqlAlterTableSetProperties) alter;
      alteration = setProperties(name, set, ChosenLocations.of(locations, context.session().principal(), name.catalog(), set.properties()));
      statement = "SET PROPERTIES";
    } else if (alter instanceof SqlAlterTableUnsetProperties) {
      alteration = unsetProperties(name, (SqlAlterTableUnsetProperties) alter);
      statement = "UNSET PROPERTIES";
    } else {
      return Optional.empty();
    }
    Optional<Table> table = TableCommits.load(name);
    if (table.isEmpty()) {
      if (!alter.ifExists()) {
        throw TableCommits.notFound(name);
      }
    } else {
      alteration.check(table.get());
    }
    return Optional.of((ctx, parameters) -> {
      try {
        TableCommits.commit(name, alter.ifExists(), "ALTER TABLE " + statement, t -> {
          if (alteration.check(t)) {
            alteration.commit(t);
          }
        });
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, alter.name());
      }
      return CommandResult.rows(0);
    });
  }

  // ---- rename

  private static PreparedCommand rename(CommandContext context, ObjectName name, SqlAlterTableRename rename) {
    ObjectName target = renameTarget(context, name, rename.newName());
    if (!rename.ifExists() && !name.catalog().iceberg().tableExists(name.id())) {
      throw TableCommits.notFound(name);
    }
    checkRenameTarget(target);
    return (ctx, parameters) -> {
      try {
        if (!name.catalog().iceberg().tableExists(name.id())) {
          if (rename.ifExists()) {
            return CommandResult.rows(0);
          }
          throw TableCommits.notFound(name);
        }
        checkRenameTarget(target);
        name.catalog().iceberg().renameTable(name.id(), target.id());
      } catch (NoSuchTableException e) {
        // Dropped or renamed by a concurrent statement since the check above.
        if (rename.ifExists()) {
          return CommandResult.rows(0);
        }
        throw TableCommits.notFound(name);
      } catch (NoSuchNamespaceException e) {
        throw TableStatements.schemaNotFound(target);
      } catch (AlreadyExistsException e) {
        throw error(ErrorCode.ALREADY_EXISTS, "Table '" + target.qualified() + "' already exists", target.node());
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, rename.newName());
      } finally {
        name.catalog().invalidate(name.id());
        name.catalog().invalidate(target.id());
      }
      return CommandResult.rows(0);
    };
  }

  /** A bare new name keeps the table in its schema (as Spark and PostgreSQL do); a qualified one may move it. */
  private static ObjectName renameTarget(CommandContext context, ObjectName source, SqlIdentifier newName) {
    if (newName.isSimple()) {
      return Names.checkNew(new ObjectName(source.catalog(), TableIdentifier.of(source.namespace(), newName.getSimple()), newName), "table");
    }
    ObjectName target = Names.checkNew(Names.object(context, newName), "table");
    if (target.catalog() != source.catalog()) {
      throw error(
          ErrorCode.NOT_SUPPORTED,
          "Cannot rename table '" + source.qualified() + "' into another catalog, '" + target.catalog().name() + "'",
          newName);
    }
    return target;
  }

  private static void checkRenameTarget(ObjectName target) {
    if (!target.catalog().schemaExists(target.schema())) {
      throw TableStatements.schemaNotFound(target);
    }
    if (target.catalog().iceberg().tableExists(target.id())) {
      throw error(ErrorCode.ALREADY_EXISTS, "Table '" + target.qualified() + "' already exists", target.node());
    }
    if (TableCommits.isView(target)) {
      throw error(ErrorCode.ALREADY_EXISTS, "A view named '" + target.qualified() + "' already exists", target.node());
    }
  }

  // ---- columns

  private static Alteration addColumn(ObjectName name, SqlAlterTableAddColumn add) {
    SqlIdentifier columnName = add.column().name();
    List<String> path = columnName.names;
    String leaf = path.get(path.size() - 1);
    Type type = new ColumnTypes().type(add.column().type());
    boolean notNull = add.column().notNull();
    String doc = add.column().comment();
    return new Alteration() {
      @Override
      public boolean check(Table table) {
        String parent = parent(table.schema(), name, columnName);
        String full = parent == null ? leaf : parent + "." + leaf;
        if (Columns.find(table.schema(), full).isPresent()) {
          if (add.ifNotExists()) {
            return false;
          }
          throw error(ErrorCode.ALREADY_EXISTS, "Column '" + full + "' already exists in table '" + name.qualified() + "'", columnName);
        }
        if (notNull && !TableContents.isEmpty(table)) {
          throw error(
              ErrorCode.FAILED_PRECONDITION,
              "Cannot add NOT NULL column '" + full + "' to table '" + name.qualified() + "': its rows would have no value for it."
                  + " Add the column without NOT NULL, fill it, then ALTER COLUMN " + full + " SET NOT NULL",
              columnName);
        }
        return true;
      }

      @Override
      public void commit(Table table) {
        long snapshot = snapshotId(table);
        String parent = parent(table.schema(), name, columnName);
        UpdateSchema update = table.updateSchema();
        if (notNull) {
          // Iceberg calls any new required column incompatible; check() made sure no row lacks it.
          update.allowIncompatibleChanges().addRequiredColumn(parent, leaf, type, doc);
        } else {
          update.addColumn(parent, leaf, type, doc);
        }
        update.commit();
        if (notNull) {
          String full = parent == null ? leaf : parent + "." + leaf;
          verifyNoConcurrentRows(name, snapshot, full, columnName, table2 -> !TableContents.isEmpty(table2));
        }
      }
    };
  }

  /** The full name of the struct a dotted column name adds to, or null for a top-level column. */
  private static String parent(Schema schema, ObjectName table, SqlIdentifier column) {
    if (column.isSimple()) {
      return null;
    }
    List<String> parentPath = column.names.subList(0, column.names.size() - 1);
    String parent = Columns.find(schema, String.join(".", parentPath))
        .orElseThrow(() -> TableStatements.columnNotFound(table, String.join(".", parentPath), column));
    Type type = schema.findType(parent);
    Type struct = type.isListType() ? type.asListType().elementType() : type.isMapType() ? type.asMapType().valueType() : type;
    if (!struct.isStructType()) {
      throw error(
          ErrorCode.INVALID_ARGUMENT,
          "Cannot add field '" + column.names.get(column.names.size() - 1) + "' to column '" + parent + "' of type " + sqlType(type)
              + ": it is not a ROW",
          column);
    }
    return parent;
  }

  private static Alteration dropColumn(ObjectName name, SqlAlterTableDropColumn drop) {
    SqlIdentifier column = drop.column();
    return new Alteration() {
      @Override
      public boolean check(Table table) {
        Optional<String> found = Columns.find(table.schema(), column);
        if (found.isEmpty()) {
          if (drop.columnIfExists()) {
            return false;
          }
          throw TableStatements.columnNotFound(name, Columns.display(column), column);
        }
        String field = found.get();
        Schema schema = table.schema();
        Types.NestedField dropped = schema.findField(field);
        for (PartitionField partition : table.spec().fields()) {
          if (within(partition.sourceId(), dropped)) {
            throw error(
                ErrorCode.FAILED_PRECONDITION,
                "Cannot drop column '" + field + "': the table is partitioned by it (partition field '" + partition.name() + "')",
                column);
          }
        }
        for (SortField sort : table.sortOrder().fields()) {
          if (within(sort.sourceId(), dropped)) {
            throw error(ErrorCode.FAILED_PRECONDITION, "Cannot drop column '" + field + "': it is in the table's sort order", column);
          }
        }
        for (int id : schema.identifierFieldIds()) {
          if (within(id, dropped)) {
            throw error(
                ErrorCode.FAILED_PRECONDITION,
                "Cannot drop column '" + field + "': it is an identifier field of the table (" + schema.findColumnName(id) + ")",
                column);
          }
        }
        if (schema.columns().size() == 1 && schema.columns().get(0).fieldId() == dropped.fieldId()) {
          throw error(ErrorCode.FAILED_PRECONDITION, "Cannot drop column '" + field + "': it is the table's only column", column);
        }
        return true;
      }

      @Override
      public void commit(Table table) {
        table.updateSchema().deleteColumn(Columns.find(table.schema(), column).orElseThrow()).commit();
      }
    };
  }

  /** Whether field {@code id} is {@code field} or nested in it. */
  private static boolean within(int id, Types.NestedField field) {
    return id == field.fieldId() || (field.type().isNestedType() && TypeUtil.indexById(Types.StructType.of(field)).containsKey(id));
  }

  private static Alteration renameColumn(ObjectName name, SqlAlterTableRenameColumn rename) {
    SqlIdentifier column = rename.column();
    if (!rename.newName().isSimple()) {
      throw error(
          ErrorCode.INVALID_ARGUMENT, "The new name of a column has one part, not '" + rename.newName() + "'", rename.newName());
    }
    String newName = rename.newName().getSimple();
    return new Alteration() {
      @Override
      public boolean check(Table table) {
        String field = existing(table, name, column);
        int dot = field.lastIndexOf('.');
        String sibling = dot < 0 ? newName : field.substring(0, dot) + "." + newName;
        Optional<String> clash = Columns.find(table.schema(), sibling);
        if (clash.isPresent() && !clash.get().equals(field)) {
          throw error(
              ErrorCode.ALREADY_EXISTS, "Column '" + clash.get() + "' already exists in table '" + name.qualified() + "'", rename.newName());
        }
        return !field.substring(dot + 1).equals(newName);
      }

      @Override
      public void commit(Table table) {
        table.updateSchema().renameColumn(existing(table, name, column), newName).commit();
      }
    };
  }

  private static Alteration alterColumnType(ObjectName name, SqlAlterTableAlterColumnType alter) {
    SqlIdentifier column = alter.column();
    Type newType = new ColumnTypes().type(alter.type());
    return new Alteration() {
      @Override
      public boolean check(Table table) {
        String field = existing(table, name, column);
        Type current = table.schema().findType(field);
        if (current.equals(newType)) {
          return false;
        }
        if (!current.isPrimitiveType() || !newType.isPrimitiveType() || !TypeUtil.isPromotionAllowed(current, newType.asPrimitiveType())) {
          throw error(
              ErrorCode.INVALID_ARGUMENT,
              "Cannot change column '" + field + "' from " + sqlType(current) + " to " + sqlType(newType)
                  + ": Iceberg widens only INTEGER to BIGINT, REAL to DOUBLE and DECIMAL(p, s) to DECIMAL(p2, s) with p2 > p",
              alter.type());
        }
        return true;
      }

      @Override
      public void commit(Table table) {
        table.updateSchema().updateColumn(existing(table, name, column), newType.asPrimitiveType()).commit();
      }
    };
  }

  private static Alteration dropNotNull(ObjectName name, SqlAlterTableAlterColumnNullability alter) {
    SqlIdentifier column = alter.column();
    return new Alteration() {
      @Override
      public boolean check(Table table) {
        return table.schema().findField(existing(table, name, column)).isRequired();
      }

      @Override
      public void commit(Table table) {
        table.updateSchema().makeColumnOptional(existing(table, name, column)).commit();
      }
    };
  }

  /**
   * SET NOT NULL is allowed when no row has a NULL there: Iceberg's readers trust a required
   * field, so declaring one over NULLs would corrupt reads. The rows are checked (by column
   * metrics where they decide it, otherwise by reading the column) before the commit, and rows
   * that a concurrent writer committed meanwhile are checked after it.
   */
  private static Alteration setNotNull(ObjectName name, SqlAlterTableAlterColumnNullability alter) {
    SqlIdentifier column = alter.column();
    return new Alteration() {
      @Override
      public boolean check(Table table) {
        String field = existing(table, name, column);
        if (table.schema().findField(field).isRequired()) {
          return false;
        }
        checkStructPath(table.schema(), field, column);
        if (TableContents.hasNulls(table, field)) {
          throw error(
              ErrorCode.FAILED_PRECONDITION,
              "Cannot set column '" + field + "' NOT NULL: table '" + name.qualified() + "' has rows where it is NULL",
              column);
        }
        return true;
      }

      @Override
      public void commit(Table table) {
        long snapshot = snapshotId(table);
        String field = existing(table, name, column);
        table.updateSchema().allowIncompatibleChanges().requireColumn(field).commit();
        verifyNoConcurrentRows(name, snapshot, field, column, latest -> TableContents.hasNulls(latest, field));
      }
    };
  }

  private static void checkStructPath(Schema schema, String field, SqlIdentifier at) {
    int dot = field.indexOf('.');
    while (dot >= 0) {
      Type parent = schema.findType(field.substring(0, dot));
      if (parent == null || !parent.isStructType()) {
        throw error(
            ErrorCode.NOT_SUPPORTED,
            "SET NOT NULL on a field inside an ARRAY or MAP ('" + field + "') is not supported",
            at);
      }
      dot = field.indexOf('.', dot + 1);
    }
  }

  /**
   * After making {@code field} required: a writer that committed between the check and the schema
   * change (a REST catalog does not refuse that commit) may have written rows that break the
   * rule. If so, the field becomes optional again and the statement fails.
   */
  private static void verifyNoConcurrentRows(
      ObjectName name, long checkedSnapshot, String field, SqlIdentifier at, java.util.function.Predicate<Table> violated) {
    Table latest = TableCommits.loadExisting(name);
    if (snapshotId(latest) == checkedSnapshot || !violated.test(latest)) {
      return;
    }
    latest.updateSchema().makeColumnOptional(field).commit();
    throw error(
        ErrorCode.FAILED_PRECONDITION,
        "A concurrent write to table '" + name.qualified() + "' added rows without a value for '" + field
            + "'; the column stays nullable",
        at);
  }

  private static long snapshotId(Table table) {
    return table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId();
  }

  private static String existing(Table table, ObjectName name, SqlIdentifier column) {
    return Columns.find(table.schema(), column)
        .orElseThrow(() -> TableStatements.columnNotFound(name, Columns.display(column), column));
  }

  // ---- properties

  private static Alteration setProperties(ObjectName name, SqlAlterTableSetProperties set, ChosenLocations chosen) {
    Map<String, String> properties = PropertyValues.table(set.properties());
    return new Alteration() {
      @Override
      public boolean check(Table table) {
        return true;
      }

      @Override
      public void commit(Table table) {
        chosen.checkFree(name.catalog(), name.id());
        Map<String, String> values = new java.util.LinkedHashMap<>(properties);
        String location = values.remove("location");
        if (!values.isEmpty()) {
          UpdateProperties update = table.updateProperties();
          values.forEach(update::set);
          update.commit();
        }
        if (location != null) {
          table.updateLocation().setLocation(location).commit();
        }
      }
    };
  }

  private static Alteration unsetProperties(ObjectName name, SqlAlterTableUnsetProperties unset) {
    SqlNodeList keyNodes = (SqlNodeList) unset.getOperandList().get(1);
    List<String> keys = unset.keys();
    return new Alteration() {
      @Override
      public boolean check(Table table) {
        boolean any = false;
        for (int i = 0; i < keys.size(); i++) {
          if (table.properties().containsKey(keys.get(i))) {
            any = true;
          } else if (!unset.propertiesIfExist()) {
            throw error(
                ErrorCode.NOT_FOUND, "Table '" + name.qualified() + "' has no property '" + keys.get(i) + "'", keyNodes.get(i));
          }
        }
        return any;
      }

      @Override
      public void commit(Table table) {
        UpdateProperties update = table.updateProperties();
        keys.stream().filter(table.properties()::containsKey).forEach(update::remove);
        update.commit();
      }
    };
  }

  private static String sqlType(Type type) {
    return CalciteTypeMapping.sqlTypeName(CalciteTypeMapping.toCalcite(new SqeJavaTypeFactory(), type, true));
  }
}
