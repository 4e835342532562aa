package io.sqe.engine.plan.physical;

import io.sqe.engine.iceberg.IcebergTableScan;
import org.apache.calcite.adapter.enumerable.EnumerableAggregate;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;

/**
 * The columnar form of an aggregate: {@link SqeAggregate} over its lowered input, or {@link
 * SqeGroupingSets} for one with grouping sets (ROLLUP, CUBE, and Calcite's form of DISTINCT
 * aggregates beside others). Covers Calcite's
 * aggregate and SQE's row-runtime forms of it, which are the same aggregate computed otherwise
 * (hash grouping, folded rows, partial and final halves around a parallel gather). An aggregate
 * the planner folded into an Iceberg scan keeps the row runtime: the scan computes it while it
 * decodes (filters on its vectors, text grouped by dictionary codes), which measured faster than
 * the columnar operators over the decoder's batches at TPC-H scale 1 (Q6 98 ms against 114 ms, a
 * count by l_linenumber 65 ms against 91 ms, a Q1-like aggregate by l_returnflag and
 * l_linestatus 0.95 s against 1.7 s). With {@code planner.scan-aggregation} off, nothing is folded
 * and such aggregates lower.
 */
final class AggregateLowering {
  private AggregateLowering() {}

  static SqeRel lower(EnumerableAggregate aggregate) {
    RelNode input = aggregate.getInput();
    if (input instanceof IcebergTableScan scan && scan.aggregation() != null) {
      return null;
    }
    SqeRel lowered = ColumnarLowering.lower(input);
    if (lowered == null) {
      return null;
    }
    RelTraitSet traits = aggregate.getTraitSet().replace(SqeRel.CONVENTION);
    return aggregate.getGroupType() == Aggregate.Group.SIMPLE
        ? SqeAggregate.of(traits, lowered, aggregate)
        : SqeGroupingSets.of(traits, lowered, aggregate);
  }
}
