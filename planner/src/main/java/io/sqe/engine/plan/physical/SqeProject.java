package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.SelectColumns;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.type.RelDataType;

/** Picks and orders columns of its input, each at most once, moving their vectors ({@link SelectColumns}). */
public final class SqeProject extends SingleRel implements SqeRel {
  private final int[] columns;

  SqeProject(RelTraitSet traits, RelNode input, int[] columns, RelDataType rowType) {
    super(input.getCluster(), traits, input);
    this.columns = columns.clone();
    this.rowType = rowType;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeProject(traitSet, sole(inputs), columns, rowType);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    List<String> names = new ArrayList<>();
    List<String> inputNames = input.getRowType().getFieldNames();
    List<String> outputNames = rowType.getFieldNames();
    for (int i = 0; i < columns.length; i++) {
      String name = inputNames.get(columns[i]);
      names.add(name.equals(outputNames.get(i)) ? name : name + " AS " + outputNames.get(i));
    }
    return super.explainTerms(pw).item("columns", names);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = ((SqeRel) input).implement();
    int[] picked = columns.clone();
    Schema schema = batchSchema();
    return (context, allocator) -> new SelectColumns(in.open(context, allocator), picked, schema);
  }
}
