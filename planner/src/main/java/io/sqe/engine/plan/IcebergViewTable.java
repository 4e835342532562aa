package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rel.type.StructKind;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.TranslatableTable;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.View;
import org.apache.iceberg.view.ViewVersion;

/**
 * An Iceberg view as Calcite sees it: the columns the view stores, and, when a statement reads
 * it, its SQL expanded in place like a sub-query, with names resolved against the view's default
 * catalog and schema. SQE's own SQL (dialect {@value ViewDefinitions#DIALECT}) is preferred; a view written by
 * another engine is read through its SQL if SQE's parser accepts it.
 *
 * <p>The reader's access policy applies to the tables inside (invoker rights), so the query may
 * return other columns than the view stores: where it returns more (a {@code SELECT *} view made by
 * a user who sees fewer columns), the view's columns are taken by name; where it lacks one because
 * the reader's policy hides a column the view uses, reading the view is denied, naming the view but
 * not the column (the SQL's own error would name it).
 */
final class IcebergViewTable extends AbstractTable implements TranslatableTable {
  private final List<String> path;
  private final View view;
  private final String reader;
  private final BooleanSupplier hidesColumnsRead;

  /**
   * @param path catalog, schema and name of the view
   * @param reader the user reading it
   * @param hidesColumnsRead whether the reader's policy hides columns of a table the view's SQL names
   */
  IcebergViewTable(List<String> path, View view, String reader, BooleanSupplier hidesColumnsRead) {
    this.path = List.copyOf(path);
    this.view = requireNonNull(view, "view is null");
    this.reader = requireNonNull(reader, "reader is null");
    this.hidesColumnsRead = requireNonNull(hidesColumnsRead, "hidesColumnsRead is null");
  }

  /**
   * The stored columns, each nullable: a view's query may come to return NULLs where it did not
   * when the view was created (a column of its table made nullable), and the optimiser must not
   * rely on the stored NOT NULL.
   */
  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    RelDataType stored = CalciteTypeMapping.toCalcite(typeFactory, view.schema());
    List<RelDataType> types = new ArrayList<>();
    for (RelDataTypeField field : stored.getFieldList()) {
      types.add(typeFactory.enforceTypeWithNullability(field.getType(), true));
    }
    return typeFactory.createStructType(StructKind.FULLY_QUALIFIED, types, stored.getFieldNames());
  }

  @Override
  public Schema.TableType getJdbcTableType() {
    return Schema.TableType.VIEW;
  }

  @Override
  public RelNode toRel(RelOptTable.ToRelContext context, RelOptTable relOptTable) {
    String name = String.join(".", path);
    ViewVersion version = view.currentVersion();
    SQLViewRepresentation sql = ViewDefinitions.sql(version)
        .orElseThrow(() -> new SqeException(ErrorCode.NOT_SUPPORTED, "View '" + name + "' has no SQL representation"));
    String namespace = String.join(".", version.defaultNamespace().levels());
    List<String> defaults = List.of(
        version.defaultCatalog() == null ? path.get(0) : version.defaultCatalog(),
        namespace.isEmpty() ? path.get(1) : namespace);
    RelRoot root;
    try {
      root = context.expandView(relOptTable.getRowType(), sql.sql(), defaults, path);
    } catch (SqeException e) {
      if (e.code() != ErrorCode.PERMISSION_DENIED && hidesColumnsRead.getAsBoolean()) {
        throw usesHiddenColumn(name);
      }
      String where = e.position().map(p -> " (" + p + " of its " + sql.dialect() + " SQL)").orElse("");
      throw new SqeException(e.code(), "Cannot read view '" + name + "': " + e.getMessage() + where, e);
    }
    RelNode rel = root.project();
    RelDataType rowType = relOptTable.getRowType();
    if (rel.getRowType().getFieldCount() != rowType.getFieldCount()) {
      Optional<RelNode> byName = byName(rel, rowType);
      if (byName.isPresent()) {
        return cast(byName.get(), rowType);
      }
      if (hidesColumnsRead.getAsBoolean()) {
        throw usesHiddenColumn(name);
      }
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          "View '" + name + "' is stale: its query now returns " + rel.getRowType().getFieldCount() + " columns but the view has "
              + rowType.getFieldCount() + "; recreate it with CREATE OR REPLACE VIEW");
    }
    return cast(rel, rowType);
  }

  private SqeException usesHiddenColumn(String name) {
    return new SqeException(
        ErrorCode.PERMISSION_DENIED, "Access denied: user '" + reader + "' cannot read view " + name + ": it uses a column hidden from the user");
  }

  /** The view's columns picked from the query's by name, each found exactly once; empty when one is not. */
  private static Optional<RelNode> byName(RelNode rel, RelDataType rowType) {
    List<RexNode> columns = new ArrayList<>();
    List<RelDataTypeField> actual = rel.getRowType().getFieldList();
    for (RelDataTypeField field : rowType.getFieldList()) {
      List<RelDataTypeField> named = actual.stream().filter(f -> f.getName().equals(field.getName())).toList();
      if (named.size() != 1) {
        return Optional.empty();
      }
      columns.add(rel.getCluster().getRexBuilder().makeInputRef(rel, named.get(0).getIndex()));
    }
    return Optional.of(RelOptUtil.createProject(rel, columns, rowType.getFieldNames()));
  }

  /** The expanded query with the view's column names and types. */
  private static RelNode cast(RelNode rel, RelDataType rowType) {
    RexBuilder rexBuilder = rel.getCluster().getRexBuilder();
    List<RexNode> columns = new ArrayList<>();
    List<RelDataTypeField> actual = rel.getRowType().getFieldList();
    for (RelDataTypeField field : rowType.getFieldList()) {
      RexNode column = rexBuilder.makeInputRef(rel, field.getIndex());
      RelDataType type = actual.get(field.getIndex()).getType();
      columns.add(type.equals(field.getType()) ? column : rexBuilder.makeCast(field.getType(), column, false, false));
    }
    return RelOptUtil.createProject(rel, columns, rowType.getFieldNames());
  }
}
