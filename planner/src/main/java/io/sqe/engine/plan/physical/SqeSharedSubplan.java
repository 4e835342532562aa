package io.sqe.engine.plan.physical;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.SharedBatches;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;

/**
 * One occurrence of a subplan that the plan holds more than once: the columnar form of the row
 * runtime's {@code SharedSubplan}. The first occurrence to run computes its batches, every
 * occurrence replays them ({@link SharedBatches}).
 */
public final class SqeSharedSubplan extends SingleRel implements SqeRel {
  private final int ordinal;
  private final String key;
  private final long maxRows;

  SqeSharedSubplan(RelTraitSet traits, RelNode input, int ordinal, String key, long maxRows) {
    super(input.getCluster(), traits, input);
    this.ordinal = ordinal;
    this.key = requireNonNull(key, "key is null");
    this.maxRows = maxRows;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeSharedSubplan(traitSet, sole(inputs), ordinal, key, maxRows);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("id", ordinal);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan subplan = SqeRel.implement(input);
    String shared = key;
    long most = maxRows;
    return (context, allocator) -> new SharedBatches(shared, most, subplan, context, allocator);
  }
}
