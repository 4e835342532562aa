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
 * overflow. Aggregates of other classes (SQE's own) are left as they are. {@code
 * -Dsqe.exec.primitiveGroupBy=false} turns the hash grouping (and the folding) off, not the checked
 * sums. An aggregate whose calls and keys fold exactly into typed accumulators becomes a {@link
 * FoldedAggregate} instead.
 */
final class HashGroupingAggregates implements Program {
  static final HashGroupingAggregates INSTANCE = new HashGroupingAggregates();

  private static volatile boolean enabled =
      Boolean.parseBoolean(System.getProperty("sqe.exec.primitiveGroupBy", "true"));

  /** Whether aggregates a {@link FoldedAggregate} computes exactly are folded ({@code -Dsqe.exec.foldRows=false} turns it off). */
  private static volatile boolean foldRows = Boolean.parseBoolean(System.getProperty("sqe.exec.foldRows", "true"));

  private HashGroupingAggregates() {}

  static boolean enabled() {
    return enabled;
  }

  /** Sets whether plans made from now on group with {@link HashGroupingAggregate} (cached plans keep theirs). */
  static void configure(boolean newEnabled) {
    enabled = newEnabled;
  }

  /** Sets whether plans made from now on use a {@link FoldedAggregate} where one folds exactly. */
  static void configureFolding(boolean newFoldRows) {
    foldRows = newFoldRows;
  }

  @Override
  public RelNode run(
      RelOptPlanner planner,
      RelNode rel,
      RelTraitSet requiredOutputTraits,
      List<RelOptMaterialization> materializations,
      List<RelOptLattice> lattices) {
    return rewrite(rel);
  }

  private static RelNode rewrite(RelNode rel) {
    List<RelNode> inputs = new ArrayList<>();
    for (RelNode input : rel.getInputs()) {
      inputs.add(rewrite(input));
    }
    if (rel.getClass() == EnumerableAggregate.class) {
      EnumerableAggregate aggregate = (EnumerableAggregate) rel;
      if (enabled && foldRows) {
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
