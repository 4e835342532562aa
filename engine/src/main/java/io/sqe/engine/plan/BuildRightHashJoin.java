package io.sqe.engine.plan;

import java.util.Set;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableHashJoin;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelCollationTraitDef;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMdCollation;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexNode;

/**
 * Calcite's hash join with a cost that matches what it does. {@code EnumerableHashJoin} builds
 * its hash table from its right input and streams its left input past it, but its cost model
 * charges {@code n log n} for the left input, as if the left were the one to sort or build, so
 * the planner puts the small input on the left and builds the table from the big one (TPC-H Q5
 * built a table of all of lineitem). Here building costs more per row than probing, so the
 * planner, which may swap a join's inputs, puts the smaller input on the right.
 */
final class BuildRightHashJoin extends EnumerableHashJoin {
  /** How much more a row of the build (right) input costs than a row of the probe (left) input. */
  static final double BUILD_ROW_FACTOR = 3.0;

  private BuildRightHashJoin(
      RelOptCluster cluster,
      RelTraitSet traits,
      RelNode left,
      RelNode right,
      RexNode condition,
      Set<CorrelationId> variablesSet,
      JoinRelType joinType) {
    super(cluster, traits, left, right, condition, variablesSet, joinType);
  }

  static BuildRightHashJoin of(
      RelNode left, RelNode right, RexNode condition, Set<CorrelationId> variablesSet, JoinRelType joinType) {
    RelOptCluster cluster = left.getCluster();
    RelMetadataQuery mq = cluster.getMetadataQuery();
    RelTraitSet traitSet =
        cluster
            .traitSetOf(EnumerableConvention.INSTANCE)
            .replaceIfs(RelCollationTraitDef.INSTANCE, () -> RelMdCollation.enumerableHashJoin(mq, left, right, joinType));
    return new BuildRightHashJoin(cluster, traitSet, left, right, condition, variablesSet, joinType);
  }

  @Override
  public BuildRightHashJoin copy(
      RelTraitSet traitSet, RexNode condition, RelNode left, RelNode right, JoinRelType joinType, boolean semiJoinDone) {
    return new BuildRightHashJoin(getCluster(), traitSet, left, right, condition, variablesSet, joinType);
  }

  @Override
  public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    if (isSemiJoin()) {
      // Builds a set of the right input's keys; Calcite's cost (which favours semi-joins) stands.
      return super.computeSelfCost(planner, mq);
    }
    double rightRows = mq.getRowCount(right);
    double leftRows = mq.getRowCount(left);
    double rows = mq.getRowCount(this);
    if (Double.isInfinite(leftRows) || Double.isInfinite(rightRows)) {
      return planner.getCostFactory().makeInfiniteCost();
    }
    double cost = rows + leftRows + BUILD_ROW_FACTOR * rightRows;
    return planner.getCostFactory().makeCost(cost, 0, 0);
  }
}
