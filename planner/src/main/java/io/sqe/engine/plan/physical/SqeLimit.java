package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.LimitBatches;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;

/** OFFSET and FETCH over its input's batches ({@link LimitBatches}). */
public final class SqeLimit extends SingleRel implements SqeRel {
  private final long offset;
  /** The most rows to pass, or negative for all. */
  private final long fetch;

  SqeLimit(RelTraitSet traits, RelNode input, long offset, long fetch) {
    super(input.getCluster(), traits, input);
    this.offset = offset;
    this.fetch = fetch;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeLimit(traitSet, sole(inputs), offset, fetch);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).itemIf("offset", offset, offset > 0).itemIf("fetch", fetch, fetch >= 0);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = SqeRel.implement(input);
    long skip = offset;
    long pass = fetch;
    return (context, allocator) -> new LimitBatches(in.open(context, allocator), skip, pass);
  }
}
