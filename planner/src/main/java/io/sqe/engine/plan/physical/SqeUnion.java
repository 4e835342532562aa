package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.UnionBatches;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.core.Union;

/** UNION ALL: its inputs' batches, one input after the other ({@link UnionBatches}). */
public final class SqeUnion extends Union implements SqeRel {
  SqeUnion(RelTraitSet traits, List<RelNode> inputs) {
    super(inputs.get(0).getCluster(), traits, List.of(), inputs, true);
  }

  @Override
  public SetOp copy(RelTraitSet traitSet, List<RelNode> inputs, boolean all) {
    return new SqeUnion(traitSet, inputs);
  }

  @Override
  public BatchPlan implement() {
    List<BatchPlan> plans = new ArrayList<>();
    for (RelNode input : getInputs()) {
      plans.add(SqeRel.implement(input));
    }
    Schema schema = batchSchema();
    return (context, allocator) -> new UnionBatches(plans, schema, context, allocator);
  }
}
