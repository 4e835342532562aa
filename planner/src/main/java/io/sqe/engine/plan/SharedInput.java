package io.sqe.engine.plan;

import io.sqe.engine.exec.parallel.ParallelParts;
import java.util.List;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.linq4j.function.Function0;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.metadata.RelMetadataQuery;

/**
 * The build side of a hash join inside a parallel pipeline: read once per execution and shared by
 * all parts ({@link ParallelParts#shared}), so that only the probe side is split. The columnar
 * lowering makes it a hash join's shared build side ({@code SqeHashJoin}'s {@code sharedBuild}).
 */
public final class SharedInput extends SingleRel implements EnumerableRel {
  SharedInput(RelOptCluster cluster, RelTraitSet traits, RelNode input) {
    super(cluster, traits, input);
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SharedInput(getCluster(), traitSet, sole(inputs));
  }

  @Override
  public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    return planner.getCostFactory().makeTinyCost();
  }

  @Override
  public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    Result input = implementor.visitChild(this, 0, (EnumerableRel) getInput(), pref);
    BlockBuilder builder = new BlockBuilder();
    // A function, run by the one part that reads the rows: an aggregate's code reads its input at once.
    Expression rows = Expressions.lambda(Function0.class, input.block);
    builder.add(
        Expressions.return_(
            null,
            Expressions.call(
                ParallelParts.class,
                "shared",
                implementor.getRootExpression(),
                Expressions.constant("sqe.sharedInput." + getId()),
                rows)));
    return implementor.result(input.physType, builder.toBlock());
  }
}
