package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.TopNBatches;
import io.sqe.engine.exec.expr.RowComparator;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;

/** ORDER BY with a bounded OFFSET and FETCH over its input's batches ({@link TopNBatches}). */
public final class SqeTopN extends SingleRel implements SqeRel {
  /** The most rows (offset and fetch together) a top-N keeps: its memory stays bounded. */
  static final long MAX_ROWS = 100_000;

  private final RelCollation collation;
  private final long offset;
  private final long fetch;

  private SqeTopN(RelTraitSet traits, RelNode input, RelCollation collation, long offset, long fetch) {
    super(input.getCluster(), traits, input);
    this.collation = collation;
    this.offset = offset;
    this.fetch = fetch;
  }

  /** The top-N of {@code input}, or null when its keys or bounds are not ones this operator takes. */
  static SqeTopN of(RelTraitSet traits, SqeRel input, RelCollation collation, long offset, long fetch) {
    if (fetch < 0 || offset + fetch > MAX_ROWS || collation.getFieldCollations().isEmpty()) {
      return null;
    }
    if (!SortLowering.orderable(input, collation)) {
      return null;
    }
    return new SqeTopN(traits.replace(collation), input, collation, offset, fetch);
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeTopN(traitSet, sole(inputs), collation, offset, fetch);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("collation", collation).itemIf("offset", offset, offset > 0).item("fetch", fetch);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = SqeRel.implement(input);
    RowComparator comparator = SortLowering.comparator(collation);
    long skip = offset;
    long take = fetch;
    return (context, allocator) -> new TopNBatches(in.open(context, allocator), comparator, skip, take, context, allocator);
  }
}
