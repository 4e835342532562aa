package io.sqe.engine.plan.physical;

import io.sqe.engine.iceberg.IcebergTableScan;
import org.apache.calcite.adapter.enumerable.EnumerableAggregate;
import org.apache.calcite.rel.RelNode;

/**
 * The columnar form of an aggregate: {@link SqeAggregate} over its lowered input. Covers Calcite's
 * aggregate and SQE's row-runtime forms of it, which are the same aggregate computed otherwise
 * (hash grouping, folded rows, partial and final halves around a parallel gather). An aggregate
 * folded into an Iceberg scan (the combining aggregate over a scan with an aggregation) is lowered
 * as the aggregate the scan replaced, over the scan's columns and pushed filter: the columnar
 * operators compute on the decoder's batches what the folded scan computes on its vectors.
 */
final class AggregateLowering {
  private AggregateLowering() {}

  static SqeRel lower(EnumerableAggregate aggregate) {
    RelNode input = aggregate.getInput();
    if (input instanceof IcebergTableScan scan && scan.aggregation() != null) {
      RelNode unfolded = scan.unfolded();
      return unfolded instanceof EnumerableAggregate original && aggregate.getGroupCount() == original.getGroupCount()
          ? lower(original)
          : null;
    }
    SqeRel lowered = ColumnarLowering.lower(input);
    return lowered == null ? null : SqeAggregate.of(aggregate.getTraitSet().replace(SqeRel.CONVENTION), lowered, aggregate);
  }
}
