package io.sqe.engine.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.adapter.enumerable.EnumerableAggregate;
import org.apache.calcite.plan.RelOptLattice;
import org.apache.calcite.plan.RelOptMaterialization;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.tools.Program;

/**
 * Makes every Calcite aggregate of the finished physical plan a {@link HashGroupingAggregate},
 * whose GROUP BY and DISTINCT run on {@link io.sqe.engine.exec.grouping.HashGrouping}'s primitive-key
 * tables (the final aggregates that combine parallel parts included) and whose sums fail on
 * overflow. Aggregates of other classes (SQE's own) are left as they are. {@link
 * PlannerOptions#hashGrouping()} off turns the hash grouping (and the folding) off, not the checked
 * sums. An aggregate whose calls and keys fold exactly into typed accumulators becomes a {@link
 * FoldedAggregate} instead.
 */
final class HashGroupingAggregates implements Program {
  static final HashGroupingAggregates INSTANCE = new HashGroupingAggregates();

  private HashGroupingAggregates() {}

  @Override
  public RelNode run(
      RelOptPlanner planner,
      RelNode rel,
      RelTraitSet requiredOutputTraits,
      List<RelOptMaterialization> materializations,
      List<RelOptLattice> lattices) {
    PlannerOptions options = PlannerOptions.of(planner);
    // Aggregates a FoldedAggregate computes exactly fold their rows unless PlannerOptions#foldRows is off.
    return rewrite(rel, options.hashGrouping(), options.hashGrouping() && options.foldRows());
  }

  private static RelNode rewrite(RelNode rel, boolean enabled, boolean foldRows) {
    List<RelNode> inputs = new ArrayList<>();
    for (RelNode input : rel.getInputs()) {
      inputs.add(rewrite(input, enabled, foldRows));
    }
    if (rel.getClass() == EnumerableAggregate.class) {
      EnumerableAggregate aggregate = (EnumerableAggregate) rel;
      if (foldRows) {
        Optional<FoldedAggregate> folded = FoldedAggregate.of(aggregate, inputs.get(0));
        if (folded.isPresent()) {
          return folded.get();
        }
      }
      return HashGroupingAggregate.of(aggregate, inputs.get(0), enabled);
    }
    return inputs.equals(rel.getInputs()) ? rel : rel.copy(rel.getTraitSet(), inputs);
  }
}
