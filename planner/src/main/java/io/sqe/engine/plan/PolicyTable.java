package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.security.ColumnRules;
import io.sqe.engine.security.Privilege;
import io.sqe.engine.security.TableAccess;
import io.sqe.engine.sql.SqeParser;
import io.sqe.engine.sql.SqlDialect;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.IntStream;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.prepare.RelOptTableImpl;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rel.type.StructKind;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.TranslatableTable;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlValidatorImpl;
import org.apache.calcite.sql.validate.SqlValidatorUtil;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.sql2rel.StandardConvertletTable;
import org.apache.iceberg.types.Types;

/**
 * A table or view as one principal may read it under an access policy: without its hidden
 * columns, its masked columns replaced by their masks, and only the rows its row filter keeps.
 * An Iceberg table's columns are found by field id ({@link ColumnRules}), so the policy holds in
 * whatever schema the statement reads (time travel, tags and branches).
 * Reading it needs SELECT (except as the target of an UPDATE, DELETE or MERGE, which the
 * statement's own privileges cover). It plans as the stored table, a Filter (row filter) and a
 * Project (masks), then a {@link PolicyBoundary} that keeps the statement's operators above them.
 */
final class PolicyTable extends AbstractTable implements TranslatableTable {
  private final Table table;
  private final List<String> path;
  private final TableAccess access;
  private final String user;
  /** The column rules bound to an Iceberg table's field ids; null for a view, whose columns have none. */
  private ColumnRules rules;

  PolicyTable(Table table, List<String> path, TableAccess access, String user) {
    this.table = requireNonNull(table, "table is null");
    this.path = List.copyOf(path);
    this.access = requireNonNull(access, "access is null");
    this.user = requireNonNull(user, "user is null");
  }

  /** The column rules of an Iceberg table, bound once per statement; null for other tables. */
  private ColumnRules rules() {
    if (rules == null && table instanceof IcebergTable) {
      org.apache.iceberg.Table iceberg = ((IcebergTable) table).table();
      rules = ColumnRules.bind(access, iceberg.schema(), iceberg.schemas().values(), String.join(".", path));
    }
    return rules;
  }

  /**
   * The field id of the stored column at {@code index}, or -1 when it has none: a view's column, or
   * a write target's data file and position.
   */
  private int fieldId(int index) {
    if (!(table instanceof IcebergTable)) {
      return -1;
    }
    List<Types.NestedField> columns = ((IcebergTable) table).schema().columns();
    return index < columns.size() ? columns.get(index).fieldId() : -1;
  }

  /** Whether the policy hides the stored column at {@code index}, named {@code name}. */
  private boolean hides(int index, String name) {
    int fieldId = fieldId(index);
    if (rules() == null) {
      return access.hiddenColumns().contains(name);
    }
    return fieldId >= 0 && rules().hides(fieldId);
  }

  /** The mask of the stored column at {@code index}, named {@code name}; null when it has none. */
  private String mask(int index, String name) {
    int fieldId = fieldId(index);
    if (rules() == null) {
      return access.masks().get(name);
    }
    return fieldId < 0 ? null : rules().mask(fieldId).orElse(null);
  }

  /** Whether the policy leaves every column as stored. */
  private boolean keepsColumns(RelDataType stored) {
    for (RelDataTypeField field : stored.getFieldList()) {
      if (hides(field.getIndex(), field.getName()) || mask(field.getIndex(), field.getName()) != null) {
        return false;
      }
    }
    return true;
  }

  /** The table or view under the policy. */
  Table table() {
    return table;
  }

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    RelDataType stored = table.getRowType(typeFactory);
    if (!access.restricts() || keepsColumns(stored)) {
      return stored;
    }
    List<RelDataType> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (RelDataTypeField field : stored.getFieldList()) {
      if (!hides(field.getIndex(), field.getName())) {
        names.add(field.getName());
        // A mask may yield NULL where the column never does.
        types.add(mask(field.getIndex(), field.getName()) != null
            ? typeFactory.createTypeWithNullability(field.getType(), true)
            : field.getType());
      }
    }
    return typeFactory.createStructType(StructKind.FULLY_QUALIFIED, types, names);
  }

  @Override
  public Schema.TableType getJdbcTableType() {
    return table.getJdbcTableType();
  }

  @Override
  public Statistic getStatistic() {
    return access.restricts() ? Statistics.UNKNOWN : table.getStatistic();
  }

  @Override
  public RelNode toRel(RelOptTable.ToRelContext context, RelOptTable relOptTable) {
    boolean writeTarget = table instanceof IcebergTable && ((IcebergTable) table).isWriteTarget();
    if (!writeTarget && !access.has(Privilege.SELECT)) {
      throw new SqeException(
          ErrorCode.PERMISSION_DENIED, "Access denied: user '" + user + "' cannot SELECT from " + String.join(".", path));
    }
    if (!(table instanceof TranslatableTable)) {
      throw new IllegalStateException("Not a translatable table: " + String.join(".", path));
    }
    if (!access.restricts()) {
      return ((TranslatableTable) table).toRel(context, relOptTable);
    }
    RelDataType storedType = table.getRowType(context.getCluster().getTypeFactory());
    RelOptTable stored =
        RelOptTableImpl.create(relOptTable.getRelOptSchema(), storedType, table, ImmutableList.copyOf(relOptTable.getQualifiedName()));
    RelNode rel = ((TranslatableTable) table).toRel(context, stored);
    Expressions expressions = new Expressions(rel, (Prepare.CatalogReader) relOptTable.getRelOptSchema());
    if (access.filter() != null) {
      RexNode filter = expressions.convert(access.filter(), "row filter");
      if (filter.getType().getSqlTypeName() != SqlTypeName.BOOLEAN) {
        throw policyError("its row filter is of type " + filter.getType() + ", not BOOLEAN");
      }
      rel = LogicalFilter.create(rel, filter);
    }
    RexBuilder rexBuilder = rel.getCluster().getRexBuilder();
    List<RexNode> columns = new ArrayList<>();
    List<String> names = new ArrayList<>();
    RelDataType visible = relOptTable.getRowType();
    for (RelDataTypeField field : visible.getFieldList()) {
      RelDataTypeField source = storedType.getField(field.getName(), true, false);
      String mask = mask(source.getIndex(), source.getName());
      RexNode column = rexBuilder.makeInputRef(rel, source.getIndex());
      if (mask != null) {
        RexNode masked = expressions.convert(mask, "mask of column " + field.getName());
        if (!SqlTypeUtil.canCastFrom(field.getType(), masked.getType(), false)) {
          throw policyError("the mask of column " + field.getName() + " is of type " + masked.getType() + ", not " + field.getType());
        }
        column = rexBuilder.makeCast(field.getType(), masked, true, false);
      }
      columns.add(column);
      names.add(field.getName());
    }
    rel = RelOptUtil.createProject(rel, columns, names);
    return PolicyBoundary.over(rel);
  }

  private SqeException policyError(String problem) {
    // The policy is wrong for this table: fail closed, naming the table but no values.
    return new SqeException(ErrorCode.PERMISSION_DENIED, "Access denied: the access policy of " + String.join(".", path) + " cannot be applied: " + problem);
  }

  /**
   * Turns policy SQL into expressions over the stored columns, each of which it may use. The SQL
   * names an Iceberg table's columns as its current schema does: each name stands for the stored
   * column of the same field id, or NULL where the schema read has none (a column added since).
   */
  private final class Expressions {
    private final SqlValidatorImpl validator;
    private final SqlToRelConverter converter;
    private final Map<String, RelDataType> types = new HashMap<>();
    private final Map<String, RexNode> refs = new HashMap<>();

    Expressions(RelNode input, Prepare.CatalogReader reader) {
      RelDataTypeFactory typeFactory = input.getCluster().getTypeFactory();
      this.validator = (SqlValidatorImpl) SqlValidatorUtil.newValidator(
          SqlOperatorTables.chain(SqlDialect.operatorTable(), reader), reader, typeFactory, SqlDialect.validatorConfig());
      this.converter = new SqlToRelConverter(
          null, validator, reader, input.getCluster(), StandardConvertletTable.INSTANCE, SqlToRelConverter.config());
      RexBuilder rexBuilder = input.getCluster().getRexBuilder();
      if (!(table instanceof IcebergTable)) {
        for (RelDataTypeField field : input.getRowType().getFieldList()) {
          name(field.getName(), rexBuilder.makeInputRef(input, field.getIndex()));
        }
        return;
      }
      IcebergTable iceberg = (IcebergTable) table;
      List<Types.NestedField> read = iceberg.schema().columns();
      for (Types.NestedField column : iceberg.table().schema().columns()) {
        OptionalInt index = IntStream.range(0, read.size()).filter(i -> read.get(i).fieldId() == column.fieldId()).findFirst();
        name(column.name(), index.isPresent()
            ? rexBuilder.makeInputRef(input, index.getAsInt())
            : rexBuilder.makeNullLiteral(CalciteTypeMapping.toCalcite(typeFactory, column.type(), true)));
      }
    }

    private void name(String name, RexNode value) {
      types.put(name, value.getType());
      refs.put(name, value);
    }

    RexNode convert(String sql, String what) {
      try {
        SqlNode validated = validator.validateParameterizedExpression(SqeParser.parseExpression(sql), types);
        return converter.convertExpression(validated, refs);
      } catch (RuntimeException e) {
        throw policyError("its " + what + " is not valid here: " + e.getMessage());
      }
    }
  }
}
