package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.parallel.GatherBatches;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;

/**
 * Runs its input, a pipeline over a split scan, as {@code parts} parallel parts and returns the
 * batches of all of them ({@link GatherBatches}): the columnar form of the row runtime's {@code
 * ParallelGather}.
 */
public final class SqeGather extends SingleRel implements SqeRel {
  private final int parts;

  SqeGather(RelTraitSet traits, RelNode input, int parts) {
    super(input.getCluster(), traits, input);
    this.parts = parts;
  }

  int parts() {
    return parts;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeGather(traitSet, sole(inputs), parts);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("parts", parts);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan part = SqeRel.implement(input);
    int count = parts;
    return (context, allocator) -> new GatherBatches(part, count, context, allocator);
  }
}
