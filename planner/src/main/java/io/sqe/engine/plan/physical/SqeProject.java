package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.ProjectBatches;
import io.sqe.engine.exec.batch.SelectColumns;
import io.sqe.engine.exec.expr.ScalarExpression;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;

/**
 * A projection over its input's batches. Column references and constants only: the columns'
 * vectors move without copying a value ({@link SelectColumns}). With computed columns: each
 * output is an expression of the columnar evaluator ({@link ProjectBatches}).
 */
public final class SqeProject extends SingleRel implements SqeRel {
  private final List<RexNode> projects;
  /** Per output column, its input column or {@link SelectColumns#CONSTANT}; null when some output is computed. */
  private final int[] columns;
  private final Object[] constants;
  /** Per output column, its expression; null when every output is a column or a constant. */
  private final List<ScalarExpression> expressions;
  /** The output columns computed row by row ({@link RowwiseCompiler}), as EXPLAIN names them. */
  private final List<String> rowwise;

  private SqeProject(
      RelTraitSet traits,
      RelNode input,
      List<RexNode> projects,
      int[] columns,
      Object[] constants,
      List<ScalarExpression> expressions,
      List<String> rowwise,
      RelDataType rowType) {
    super(input.getCluster(), traits, input);
    this.projects = List.copyOf(projects);
    this.columns = columns == null ? null : columns.clone();
    this.constants = constants == null ? null : constants.clone();
    this.expressions = expressions == null ? null : List.copyOf(expressions);
    this.rowwise = List.copyOf(rowwise);
    this.rowType = rowType;
  }

  /** Columns and constants: {@code columns} per output column its input column or {@link SelectColumns#CONSTANT}, {@code constants} their run-time values. */
  static SqeProject ofColumns(RelTraitSet traits, RelNode input, List<RexNode> projects, int[] columns, Object[] constants, RelDataType rowType) {
    return new SqeProject(traits, input, projects, columns, constants, null, List.of(), rowType);
  }

  /** Computed columns: null when the evaluator cannot compute one of {@code projects}. */
  static SqeProject ofExpressions(RelTraitSet traits, RelNode input, List<RexNode> projects, RelDataType rowType) {
    List<ScalarExpression> expressions = new ArrayList<>();
    List<String> rowwise = new ArrayList<>();
    for (RexNode project : projects) {
      ScalarExpression expression = ExpressionCompiler.compile(project, input.getRowType());
      if (expression == null) {
        expression = RowwiseCompiler.expression(project, input.getRowType(), input.getCluster().getRexBuilder());
        rowwise.add(rowType.getFieldNames().get(expressions.size()));
      }
      if (expression == null) {
        return null;
      }
      expressions.add(expression);
    }
    return new SqeProject(traits, input, projects, null, null, expressions, rowwise, rowType);
  }

  /** The input column output column {@code column} is, or -1 when it is computed or a constant. */
  int inputColumn(int column) {
    return projects.get(column) instanceof org.apache.calcite.rex.RexInputRef ref ? ref.getIndex() : -1;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeProject(traitSet, sole(inputs), projects, columns, constants, expressions, rowwise, rowType);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    List<String> names = new ArrayList<>();
    List<String> inputNames = input.getRowType().getFieldNames();
    List<String> outputNames = rowType.getFieldNames();
    for (int i = 0; i < projects.size(); i++) {
      String source = columns == null
          ? projects.get(i).toString()
          : columns[i] == SelectColumns.CONSTANT ? String.valueOf(constants[i]) : inputNames.get(columns[i]);
      names.add(source.equals(outputNames.get(i)) ? source : source + " AS " + outputNames.get(i));
    }
    return super.explainTerms(pw).item("columns", names).itemIf("rowwise", rowwise, !rowwise.isEmpty());
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = SqeRel.implement(input);
    Schema schema = batchSchema();
    if (expressions != null) {
      List<ScalarExpression> computed = expressions;
      return (context, allocator) -> new ProjectBatches(in.open(context, allocator), computed, schema, context, allocator);
    }
    int[] picked = columns.clone();
    Object[] values = Arrays.copyOf(constants, constants.length);
    return (context, allocator) -> new SelectColumns(in.open(context, allocator), picked, values, schema, allocator);
  }
}
