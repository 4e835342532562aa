package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.SelectColumns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.type.RelDataType;

/**
 * Column references and constants over its input ({@link SelectColumns}): the columns' vectors
 * move without copying a value, the constants fill vectors of their own.
 */
public final class SqeProject extends SingleRel implements SqeRel {
  private final int[] columns;
  private final Object[] constants;

  /**
   * @param columns per output column, its input column or {@link SelectColumns#CONSTANT}
   * @param constants per output column that is a constant, its run-time value
   */
  SqeProject(RelTraitSet traits, RelNode input, int[] columns, Object[] constants, RelDataType rowType) {
    super(input.getCluster(), traits, input);
    this.columns = columns.clone();
    this.constants = constants.clone();
    this.rowType = rowType;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeProject(traitSet, sole(inputs), columns, constants, rowType);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    List<String> names = new ArrayList<>();
    List<String> inputNames = input.getRowType().getFieldNames();
    List<String> outputNames = rowType.getFieldNames();
    for (int i = 0; i < columns.length; i++) {
      String source = columns[i] == SelectColumns.CONSTANT ? String.valueOf(constants[i]) : inputNames.get(columns[i]);
      names.add(source.equals(outputNames.get(i)) ? source : source + " AS " + outputNames.get(i));
    }
    return super.explainTerms(pw).item("columns", names);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = ((SqeRel) input).implement();
    int[] picked = columns.clone();
    Object[] values = Arrays.copyOf(constants, constants.length);
    Schema schema = batchSchema();
    return (context, allocator) -> new SelectColumns(in.open(context, allocator), picked, values, schema);
  }
}
