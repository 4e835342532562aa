package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.SortBatches;
import io.sqe.engine.exec.expr.RowComparator;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;

/** ORDER BY of its whole input, spilling sorted runs when they outgrow its memory ({@link SortBatches}). */
public final class SqeSort extends SingleRel implements SqeRel {
  private final RelCollation collation;

  private SqeSort(RelTraitSet traits, RelNode input, RelCollation collation) {
    super(input.getCluster(), traits, input);
    this.collation = collation;
  }

  /** The sort of {@code input}, or null when its keys are not ones this operator orders. */
  static SqeSort of(RelTraitSet traits, SqeRel input, RelCollation collation) {
    if (!SortLowering.orderable(input, collation)) {
      return null;
    }
    return new SqeSort(traits.replace(collation), input, collation);
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeSort(traitSet, sole(inputs), collation);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("collation", collation);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = SqeRel.implement(input);
    RowComparator comparator = SortLowering.comparator(collation);
    return (context, allocator) -> new SortBatches(in.open(context, allocator), comparator, context, allocator);
  }
}
