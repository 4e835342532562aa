package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.SharedRows;
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
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.metadata.RelMetadataQuery;

/**
 * One occurrence of a subplan that the plan holds more than once ({@link SharedSubplans}): the
 * first occurrence to run computes the rows, every occurrence replays them ({@link SharedRows}).
 * Each occurrence compiles its own copy of the subplan's code, of which one runs per execution.
 *
 * <p>A hash join above does not see through this node to the scans below it, so no join outside
 * the subplan hands those scans a dynamic filter: the rows are the same for every consumer.
 */
public final class SharedSubplan extends SingleRel implements EnumerableRel {
  private final int ordinal;
  private final String key;
  private final long maxRows;

  /**
   * @param ordinal the subplan's number in its plan, for EXPLAIN
   * @param key the same for every occurrence of the subplan, and unique among the subplans of all plans
   * @param maxRows the most rows to keep when they run (the plan's estimate may be wrong)
   */
  SharedSubplan(RelOptCluster cluster, RelTraitSet traits, RelNode input, int ordinal, String key, long maxRows) {
    super(cluster, traits, input);
    this.ordinal = ordinal;
    this.key = requireNonNull(key, "key is null");
    this.maxRows = maxRows;
  }

  /** The subplan's number in its plan, for EXPLAIN. */
  public int ordinal() {
    return ordinal;
  }

  /** The same for every occurrence of the subplan, and unique among the subplans of all plans. */
  public String key() {
    return key;
  }

  /** The most rows to keep when they run. */
  public long maxRows() {
    return maxRows;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SharedSubplan(getCluster(), traitSet, sole(inputs), ordinal, key, maxRows);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("id", ordinal);
  }

  @Override
  public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    return planner.getCostFactory().makeTinyCost();
  }

  @Override
  public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    // Always arrays, whatever the consumer prefers, so that every occurrence's rows have one shape.
    Result input = implementor.visitChild(this, 0, (EnumerableRel) getInput(), Prefer.ARRAY);
    Expression rows = Expressions.lambda(Function0.class, input.block);
    // The row format in the key as well: occurrences that still differ in it do not share rows.
    String formatKey = key + "/" + input.physType.getFormat() + "/" + input.physType.getJavaRowType().getTypeName();
    BlockBuilder builder = new BlockBuilder();
    builder.add(
        Expressions.return_(
            null,
            Expressions.call(
                SharedRows.class,
                "rows",
                implementor.getRootExpression(),
                Expressions.constant(formatKey),
                Expressions.constant(maxRows),
                rows)));
    return implementor.result(input.physType, builder.toBlock());
  }
}
