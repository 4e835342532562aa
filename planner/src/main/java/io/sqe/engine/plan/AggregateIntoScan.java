package io.sqe.engine.plan;

import io.sqe.engine.iceberg.IcebergTableScan;
import io.sqe.engine.iceberg.ScanAggregation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.adapter.enumerable.EnumerableAggregate;
import org.apache.calcite.adapter.enumerable.EnumerableCalc;
import org.apache.calcite.plan.RelOptLattice;
import org.apache.calcite.plan.RelOptMaterialization;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.InvalidRelException;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.tools.Program;

/**
 * Folds an aggregate into the Iceberg scan below it: {@code Aggregate(Calc?(IcebergTableScan))}
 * becomes {@code CombiningAggregate(IcebergTableScan with a ScanAggregation)}. The scan aggregates
 * the rows of each file scan task on the Arrow vectors, evaluating the Calc's condition exactly
 * itself, and returns one row per group of each task; the aggregate above combines them: SUM and
 * SUM0 by SUM and SUM0, COUNT by SUM0, MIN and MIN, MAX and MAX, each with the original call's
 * type. Anything the scan cannot evaluate exactly ({@link ScanAggregation#of}) keeps the plan as it
 * is, and so does an aggregate estimated to have many groups ({@link ScanAggregation#maxGroupRatio()}).
 * Runs after {@link ParallelAggregates}, so it folds the partial aggregate of each part.
 * {@code -Dsqe.scan.aggregate=false} turns it off.
 */
final class AggregateIntoScan implements Program {
  static final AggregateIntoScan INSTANCE = new AggregateIntoScan();

  private AggregateIntoScan() {}

  @Override
  public RelNode run(
      RelOptPlanner planner,
      RelNode rel,
      RelTraitSet requiredOutputTraits,
      List<RelOptMaterialization> materializations,
      List<RelOptLattice> lattices) {
    PlannerOptions options = PlannerOptions.of(planner);
    if (!options.scanAggregation()) {
      return rel;
    }
    return rewrite(rel, options.scanAggregationMaxGroupRatio());
  }

  private static RelNode rewrite(RelNode rel, double maxGroupRatio) {
    if (rel instanceof EnumerableAggregate) {
      RelNode folded = fold((EnumerableAggregate) rel, maxGroupRatio);
      if (folded != null) {
        return folded;
      }
    }
    List<RelNode> inputs = new ArrayList<>();
    for (RelNode input : rel.getInputs()) {
      inputs.add(rewrite(input, maxGroupRatio));
    }
    return inputs.equals(rel.getInputs()) ? rel : rel.copy(rel.getTraitSet(), inputs);
  }

  /** The aggregate as a combining aggregate over a scan that computes it, or null to keep it. */
  private static RelNode fold(EnumerableAggregate aggregate, double maxGroupRatio) {
    RelNode input = aggregate.getInput();
    RexProgram program = null;
    if (input instanceof EnumerableCalc) {
      if (!PlanInspection.repeatableExpressions(input)) {
        return null;
      }
      program = ((EnumerableCalc) input).getProgram();
      input = ((EnumerableCalc) input).getInput();
    }
    if (!(input instanceof IcebergTableScan)) {
      return null;
    }
    IcebergTableScan scan = (IcebergTableScan) input;
    if (scan.aggregation() != null || scan.limit() != null || scan.projection().isEmpty()) {
      return null;
    }
    for (int i = 0; i < scan.projection().size(); i++) {
      if (scan.isMetadataColumn(i)) {
        return null;
      }
    }
    List<AggregateCall> combining = ParallelAggregates.combiningCalls(aggregate);
    if (combining == null) {
      return null;
    }
    Optional<ScanAggregation> aggregation =
        ScanAggregation.of(scan.getRowType(), program, aggregate, aggregate.getCluster().getRexBuilder());
    if (aggregation.isEmpty() || !fewGroups(scan, aggregation.get(), maxGroupRatio)) {
      return null;
    }
    IcebergTableScan folded = scan.withAggregation(aggregation.get(), aggregate.getRowType());
    try {
      return ParallelAggregates.combining(aggregate, folded, combining);
    } catch (InvalidRelException e) {
      return null;
    }
  }

  /**
   * Whether the groups, estimated from the key columns' distinct values in the table (unknown ones
   * not counted), are at most {@code maxGroupRatio} of the table's rows ({@link
   * PlannerOptions#scanAggregationMaxGroupRatio()}).
   */
  private static boolean fewGroups(IcebergTableScan scan, ScanAggregation aggregation, double maxGroupRatio) {
    double groups = 1;
    for (int k = 0; k < aggregation.keyCount(); k++) {
      Double distinct = JoinCardinality.columnDistinctValues(scan, aggregation.keyColumn(k));
      if (distinct != null) {
        groups *= distinct;
      }
    }
    return groups <= scan.icebergTable().rowCount() * maxGroupRatio;
  }
}
