package io.sqe.write.dml;

import static io.sqe.write.dml.SqlPositions.error;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.write.dml.RowLevelCommand.Plan;
import io.sqe.write.dml.RowLevelCommand.RowHandler;
import io.sqe.write.dml.TableNames.TableRef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The queries of DELETE and UPDATE: {@code SELECT file, position [, new values] FROM target
 * [alias] WHERE condition}, one row per row to delete or update.
 */
final class DeleteUpdatePlanner {
  private DeleteUpdatePlanner() {}

  static RowLevelCommand delete(CommandContext context, SqlDelete delete) {
    SqlIdentifier name = targetName(delete.getTargetTable());
    TableRef target = TableNames.existing(context, name);
    return RowLevelCommand.prepare(context, RowLevelCommand.Kind.DELETE, target, (ctx, table) -> {
      TargetRef ref = new TargetRef(name, delete.getAlias(), table);
      SqlNode query = SqlTrees.select(ref.rowColumns(), ref.from(), SqlTrees.copy(delete.getCondition()));
      PlannedQuery planned = ctx.queries().plan(ctx.session(), query, query.toString(), List.of(table));
      return new Plan() {
        @Override
        public PlannedQuery query() {
          return planned;
        }

        @Override
        public RowHandler handler() {
          return (row, changes, inserts) -> changes.delete((String) row[0], ((Number) row[1]).longValue());
        }
      };
    });
  }

  static RowLevelCommand update(CommandContext context, SqlUpdate update) {
    SqlIdentifier name = targetName(update.getTargetTable());
    TableRef target = TableNames.existing(context, name);
    return RowLevelCommand.prepare(context, RowLevelCommand.Kind.UPDATE, target, (ctx, table) -> {
      TargetRef ref = new TargetRef(name, update.getAlias(), table);
      Assignments assignments = Assignments.of(
          WritableColumns.of(ctx, target, table.table()), table.schema(), update.getTargetColumnList(), update.getSourceExpressionList(),
          ref.qualifier(), target.displayName());
      List<SqlNode> select = ref.rowColumns();
      select.addAll(assignments.expressions());
      SqlNode query = SqlTrees.select(select, ref.from(), SqlTrees.copy(update.getCondition()));
      PlannedQuery planned = ctx.queries().plan(ctx.session(), query, query.toString(), List.of(table));
      Assignments.Bound bound = assignments.bind(planned.resultType().getFieldList().subList(2, select.size()));
      return new Plan() {
        @Override
        public PlannedQuery query() {
          return planned;
        }

        @Override
        public RowHandler handler() {
          return (row, changes, inserts) ->
              changes.update((String) row[0], ((Number) row[1]).longValue(), bound.update(row, 2));
        }
      };
    });
  }

  private static SqlIdentifier targetName(SqlNode target) {
    if (!(target instanceof SqlIdentifier)) {
      throw error(ErrorCode.NOT_SUPPORTED, "Only a table named plainly can be written", target);
    }
    return (SqlIdentifier) target;
  }

  /** The target of a row-level statement as its query reads it. */
  static final class TargetRef {
    private final SqlIdentifier name;
    private final SqlIdentifier alias;
    private final IcebergTable table;

    TargetRef(SqlIdentifier name, SqlIdentifier alias, IcebergTable table) {
      this.name = name;
      this.alias = alias;
      this.table = table;
    }

    /** How the statement's expressions refer to the target: its alias, else the table's name. */
    String qualifier() {
      return alias != null ? alias.getSimple() : name.names.get(name.names.size() - 1);
    }

    Schema schema() {
      return table.schema();
    }

    /** The target in FROM, with the statement's alias. */
    SqlNode from() {
      SqlNode table = SqlTrees.copy(name);
      return alias == null ? table : SqlTrees.as(table, alias.getSimple());
    }

    /** The data file and position columns of the target's rows. */
    List<SqlNode> rowColumns() {
      List<SqlNode> columns = new ArrayList<>();
      columns.add(fileColumn());
      columns.add(positionColumn());
      return columns;
    }

    SqlNode fileColumn() {
      return SqlTrees.identifier(qualifier(), table.fileColumnName());
    }

    SqlNode positionColumn() {
      return SqlTrees.identifier(qualifier(), table.positionColumnName());
    }
  }

  /** The SET list of an UPDATE (or of a MERGE's UPDATE clause): target columns and their new values. */
  static final class Assignments {
    private final int[] columns;
    private final List<Types.NestedField> fields;
    /** The assigned expression of each column, null where it is DEFAULT. */
    private final List<SqlNode> values;
    private final Object[] defaults;

    private Assignments(int[] columns, List<Types.NestedField> fields, List<SqlNode> values, Object[] defaults) {
      this.columns = columns;
      this.fields = fields;
      this.values = values;
      this.defaults = defaults;
    }

    static Assignments of(
        WritableColumns writable, Schema schema, SqlNodeList targets, SqlNodeList expressions, String qualifier, String table) {
      int[] columns = new int[targets.size()];
      List<Types.NestedField> fields = new ArrayList<>();
      List<SqlNode> values = new ArrayList<>();
      Object[] defaults = new Object[targets.size()];
      Set<Integer> seen = new HashSet<>();
      for (int i = 0; i < targets.size(); i++) {
        SqlIdentifier id = (SqlIdentifier) targets.get(i);
        Types.NestedField field = writable.find(schema, id, qualifier);
        if (!seen.add(field.fieldId())) {
          throw error(ErrorCode.INVALID_ARGUMENT, "Column " + field.name() + " is assigned twice", id);
        }
        columns[i] = schema.columns().indexOf(field);
        fields.add(field);
        SqlNode expression = expressions.get(i);
        if (TargetColumns.isDefault(expression)) {
          defaults[i] = TargetColumns.defaultValue(field, table, expression);
          values.add(null);
        } else {
          values.add(expression);
        }
      }
      return new Assignments(columns, fields, values, defaults);
    }

    /** The expressions to compute, CAST to their columns' types, in order; DEFAULTs are left out. */
    List<SqlNode> expressions() {
      return guardedExpressions(null);
    }

    /** As {@link #expressions()}, each computed only where {@code guard} holds (else NULL). */
    List<SqlNode> guardedExpressions(java.util.function.Supplier<SqlNode> guard) {
      List<SqlNode> result = new ArrayList<>();
      for (int i = 0; i < values.size(); i++) {
        SqlNode value = values.get(i);
        if (value != null) {
          SqlNode assigned = TargetColumns.assigned(SqlTrees.copy(value), fields.get(i));
          result.add(guard == null ? assigned : SqlTrees.caseWhen(List.of(guard.get()), List.of(assigned), SqlTrees.nullLiteral()));
        }
      }
      return result;
    }

    int expressionCount() {
      return (int) values.stream().filter(v -> v != null).count();
    }

    /** Checks the planned expressions' types against their columns. */
    Bound bind(List<org.apache.calcite.rel.type.RelDataTypeField> planned) {
      List<ValueConversion> conversions = new ArrayList<>();
      int k = 0;
      for (int i = 0; i < values.size(); i++) {
        if (values.get(i) == null) {
          conversions.add(null);
          continue;
        }
        Types.NestedField field = fields.get(i);
        RelDataType type = planned.get(k++).getType();
        SqlNode at = values.get(i);
        conversions.add(ValueConversion.of(type, field).orElseThrow(() -> error(
            ErrorCode.INVALID_ARGUMENT,
            "Cannot assign a value of type " + type.getFullTypeString() + " to column " + field.name() + " of type " + field.type(),
            at)));
      }
      return new Bound(conversions);
    }

    /** Assignments whose values convert to their columns. */
    final class Bound {
      private final List<ValueConversion> conversions;

      private Bound(List<ValueConversion> conversions) {
        this.conversions = conversions;
      }

      /** The update a query row gives, its computed values starting at {@code offset}. */
      RowChanges.Update update(Object[] row, int offset) {
        Object[] result = new Object[columns.length];
        int k = offset;
        for (int i = 0; i < columns.length; i++) {
          ValueConversion conversion = conversions.get(i);
          result[i] = conversion == null ? defaults[i] : conversion.apply(row[k++]);
        }
        return new RowChanges.Update(columns, result);
      }
    }
  }
}
