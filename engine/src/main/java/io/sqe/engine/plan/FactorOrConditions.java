package io.sqe.engine.plan;

import java.util.List;
import org.apache.calcite.plan.RelOptLattice;
import org.apache.calcite.plan.RelOptMaterialization;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.tools.Program;

/**
 * Pulls the conjuncts that every branch of an OR shares out in front of it, in filters and join
 * conditions: {@code (a = b AND x) OR (a = b AND y)} becomes {@code a = b AND (x OR y)}. The join
 * key then becomes visible to the planner, which otherwise has to compare every pair of rows
 * (TPC-H Q19 is the classic case).
 */
final class FactorOrConditions implements Program {
  @Override
  public RelNode run(
      RelOptPlanner planner,
      RelNode rel,
      RelTraitSet requiredOutputTraits,
      List<RelOptMaterialization> materializations,
      List<RelOptLattice> lattices) {
    return rel.accept(
        new RelShuttleImpl() {
          @Override
          public RelNode visit(LogicalFilter filter) {
            RelNode visited = super.visit(filter);
            Filter f = (Filter) visited;
            RexNode factored = RexUtil.pullFactors(f.getCluster().getRexBuilder(), f.getCondition());
            return factored.equals(f.getCondition()) ? f : f.copy(f.getTraitSet(), f.getInput(), factored);
          }

          @Override
          public RelNode visit(LogicalJoin join) {
            RelNode visited = super.visit(join);
            Join j = (Join) visited;
            RexNode factored = RexUtil.pullFactors(j.getCluster().getRexBuilder(), j.getCondition());
            return factored.equals(j.getCondition())
                ? j
                : j.copy(j.getTraitSet(), factored, j.getLeft(), j.getRight(), j.getJoinType(), j.isSemiJoinDone());
          }
        });
  }
}
