package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.SingleRel;

/**
 * Where an access policy's row filter and masks end and the statement's own operators begin, in a
 * columnar plan: it passes its input's batches through. The optimizer kept every operator of the
 * statement above it (see {@code io.sqe.engine.plan.PolicyBoundary}); as a node of its own it also
 * stops the lowering's look-downs (a filter merged into a scan, expressions shared with a
 * projection below) at it, so no predicate of the statement runs on a row the policy hides or on
 * a value before its mask. The one thing that passes it is a join's dynamic filter ({@link
 * JoinLowering#readingKeys}): a key set test on a column the policy passes unmasked, which drops
 * only rows that could not join and cannot fail.
 */
public final class SqePolicyBoundary extends SingleRel implements SqeRel {
  SqePolicyBoundary(RelTraitSet traits, RelNode input) {
    super(input.getCluster(), traits, input);
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqePolicyBoundary(traitSet, sole(inputs));
  }

  @Override
  public BatchPlan implement() {
    return SqeRel.implement(input);
  }
}
