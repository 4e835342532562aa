package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.parallel.HashExchange;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Runs its input, a pipeline over a split scan, as {@code parts} parallel parts and gives each part
 * of the parallel pipeline above it the rows of its share of the key values ({@link
 * HashExchange}): the final phase of an aggregate split by its keys, {@code
 * SqeGather(SqeAggregate(final, SqeExchange(SqeAggregate(partial, ...))))}.
 */
public final class SqeExchange extends SingleRel implements SqeRel {
  private final ImmutableBitSet keys;
  private final int parts;

  SqeExchange(RelTraitSet traits, RelNode input, ImmutableBitSet keys, int parts) {
    super(input.getCluster(), traits, input);
    this.keys = keys;
    this.parts = parts;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeExchange(traitSet, sole(inputs), keys, parts);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("keys", keys).item("parts", parts);
  }

  @Override
  public BatchPlan implement() {
    return HashExchange.partition(SqeRel.implement(input), parts, keys.toArray(), ((SqeRel) input).batchSchema());
  }
}
