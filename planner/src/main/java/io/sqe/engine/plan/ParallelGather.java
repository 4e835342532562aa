package io.sqe.engine.plan;

import io.sqe.engine.exec.parallel.ParallelParts;
import java.util.List;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.linq4j.function.Function1;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.linq4j.tree.ParameterExpression;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.metadata.RelMetadataQuery;

/**
 * Runs its input (a pipeline over a partitioned Iceberg scan) as {@code parts} parallel parts
 * (the plan's {@link PlannerOptions#parallelism()}) and returns the rows of all of them, in no
 * particular order. The input is compiled once, as a function of its part's data context, and
 * {@link ParallelParts} calls it once per part.
 */
public final class ParallelGather extends SingleRel implements EnumerableRel {
  private final int parts;

  ParallelGather(RelOptCluster cluster, RelTraitSet traits, RelNode input, int parts) {
    super(cluster, traits, input);
    this.parts = parts;
  }

  /** How many parts the pipeline runs as. */
  public int parts() {
    return parts;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new ParallelGather(getCluster(), traitSet, sole(inputs), parts);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("parts", parts);
  }

  @Override
  public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    return planner.getCostFactory().makeTinyCost();
  }

  @Override
  public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    Result part = implementor.visitChild(this, 0, (EnumerableRel) getInput(), pref);
    // The part's code reads its data context as "root": inside the function, that is the part's.
    ParameterExpression root = (ParameterExpression) implementor.getRootExpression();
    Expression function = Expressions.lambda(Function1.class, part.block, root);
    BlockBuilder builder = new BlockBuilder();
    builder.add(
        Expressions.return_(
            null,
            Expressions.call(
                ParallelParts.class,
                "gather",
                Expressions.convert_(root, DataContext.class),
                function,
                Expressions.constant(parts))));
    return implementor.result(part.physType, builder.toBlock());
  }
}
