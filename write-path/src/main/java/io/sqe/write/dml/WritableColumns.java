package io.sqe.write.dml;

import static io.sqe.write.dml.SqlPositions.error;
import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.security.ColumnRules;
import io.sqe.engine.security.TableAccess;
import io.sqe.write.dml.TableNames.TableRef;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/**
 * The columns of an INSERT, UPDATE, MERGE or bulk ingest target that the statement's user may
 * write under the access policy. A hidden column is not one: the user cannot see it, so naming it is refused just
 * as naming a column the table does not have (either answer would otherwise tell the other). A
 * masked column is not one either: the user reads only the mask, and a statement that wrote it
 * back ({@code SET code = code}) would store the mask; a rule without the mask gives the right to
 * write it (Trino refuses every write to a table with masks).
 */
final class WritableColumns {
  private final ColumnRules rules;
  private final String user;
  private final String table;

  private WritableColumns(ColumnRules rules, String user, String table) {
    this.rules = requireNonNull(rules, "rules is null");
    this.user = requireNonNull(user, "user is null");
    this.table = requireNonNull(table, "table is null");
  }

  /** The columns of {@code table}, which {@code target} names, that the context's user may write. */
  static WritableColumns of(CommandContext context, TableRef target, Table table) {
    TableAccess access = context.queries().access(context.session(), target.catalog().name(), target.id());
    return of(access, table, context.session().principal().user(), target.displayName());
  }

  /** The columns of {@code table}, called {@code name} in messages, that {@code user}, granted {@code access}, may write. */
  static WritableColumns of(TableAccess access, Table table, String user, String name) {
    return new WritableColumns(ColumnRules.bind(access, table.schema(), table.schemas().values(), name), user, name);
  }

  /** Whether the user may write the column: it is neither hidden from them nor masked. */
  boolean mayWrite(Types.NestedField column) {
    return !rules.hides(column.fieldId()) && rules.mask(column.fieldId()).isEmpty();
  }

  /** Whether the column is hidden from the user. */
  boolean hides(Types.NestedField column) {
    return rules.hides(column.fieldId());
  }

  /** Whether the user's access hides or masks columns: then a column the table lacks is answered as a hidden one is. */
  boolean restrictsColumns() {
    return rules.restrictsColumns();
  }

  /**
   * The top-level column {@code name} names (see {@link TargetColumns#find}); PERMISSION_DENIED when
   * the user may not write it, or, for a user whose access hides or masks columns, when there is no
   * such column.
   */
  Types.NestedField find(Schema schema, SqlIdentifier name, String qualifier) {
    Types.NestedField column;
    try {
      column = TargetColumns.find(schema, name, qualifier, table);
    } catch (SqeException e) {
      if (e.code() == ErrorCode.NOT_FOUND && rules.restrictsColumns()) {
        throw denied(name.names.get(name.names.size() - 1), name);
      }
      throw e;
    }
    if (!mayWrite(column)) {
      throw denied(name.names.get(name.names.size() - 1), name);
    }
    return column;
  }

  /**
   * The columns a statement without a column list gives values for, in order: those the user sees.
   * PERMISSION_DENIED when one of them is masked.
   */
  List<Types.NestedField> implicit(Schema schema, SqlNode at) {
    List<Types.NestedField> columns = new ArrayList<>();
    for (Types.NestedField column : schema.columns()) {
      if (rules.hides(column.fieldId())) {
        continue;
      }
      if (rules.mask(column.fieldId()).isPresent()) {
        throw error(
            ErrorCode.PERMISSION_DENIED,
            "Access denied: user '" + user + "' cannot write column " + column.name() + " of " + table
                + ", which a statement without a column list gives a value; name the columns to write",
            at);
      }
      columns.add(column);
    }
    return columns;
  }

  /**
   * The value a column the statement leaves out gets (see {@link TargetColumns#defaultValue}); for a
   * hidden column that has to be given a value, PERMISSION_DENIED naming no column.
   */
  Object defaultValue(Types.NestedField column, String statement, SqlNode at) {
    try {
      return TargetColumns.defaultValue(column, table, at);
    } catch (SqeException e) {
      if (rules.hides(column.fieldId())) {
        throw needsHiddenValue(statement, at);
      }
      throw e;
    }
  }

  /** PERMISSION_DENIED for writing {@code column}, as the statement names it, at {@code at} (may be null). */
  SqeException denied(String column, SqlNode at) {
    return error(ErrorCode.PERMISSION_DENIED, "Access denied: user '" + user + "' cannot write column " + column + " of " + table, at);
  }

  /** PERMISSION_DENIED for a statement that leaves out a hidden column which needs a value; names no column. */
  SqeException needsHiddenValue(String statement, SqlNode at) {
    return error(
        ErrorCode.PERMISSION_DENIED,
        "Access denied: user '" + user + "' cannot " + statement + " into " + table + ": a column the user cannot write needs a value",
        at);
  }
}
