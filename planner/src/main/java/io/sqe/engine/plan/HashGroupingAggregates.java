package io.sqe.engine.plan;

import java.util.ArrayList;
import java.util.List;
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
 * PlannerOptions#hashGrouping()} off turns the hash grouping off, not the checked sums.
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
    return rewrite(rel, PlannerOptions.of(planner).hashGrouping());
  }

  private static RelNode rewrite(RelNode rel, boolean enabled) {
    List<RelNode> inputs = new ArrayList<>();
    for (RelNode input : rel.getInputs()) {
      inputs.add(rewrite(input, enabled));
    }
    if (rel.getClass() == EnumerableAggregate.class) {
      return HashGroupingAggregate.of((EnumerableAggregate) rel, inputs.get(0), enabled);
    }
    return inputs.equals(rel.getInputs()) ? rel : rel.copy(rel.getTraitSet(), inputs);
  }
}
