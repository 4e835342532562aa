package io.sqe.engine.plan;

import io.sqe.engine.sql.functions.ArithmeticFunctions;
import java.util.List;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.linq4j.tree.BinaryExpression;
import org.apache.calcite.linq4j.tree.BlockStatement;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.ExpressionType;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.linq4j.tree.Shuttle;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.SingleRel;

/**
 * Calcite's code for its input (a window), with the running totals of its SUM and COUNT checked:
 * Calcite accumulates them as {@code acc = acc + value} on Java longs, which wrap around past the
 * BIGINT range. Every such assignment (of a long, and only one that adds to its own target) becomes
 * {@code acc = ArithmeticFunctions.sum(acc, value)}, which fails with "bigint overflow in sum". A
 * compiled plan's node only ({@link OperatorImplementations}); aggregates apply {@link #check}
 * themselves ({@link HashGroupingAggregate}).
 */
final class CheckedSums extends SingleRel implements EnumerableRel {
  CheckedSums(RelOptCluster cluster, RelTraitSet traits, RelNode input) {
    super(cluster, traits, input);
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new CheckedSums(getCluster(), traitSet, sole(inputs));
  }

  @Override
  public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    Result result = implementor.visitChild(this, 0, (EnumerableRel) getInput(), pref);
    return new Result(check(result.block), result.physType, result.format);
  }

  /** {@code block} with every {@code acc = acc + value} on longs checked. */
  static BlockStatement check(BlockStatement block) {
    return (BlockStatement) block.accept(new Additions());
  }

  private static final class Additions extends Shuttle {
    @Override
    public Expression visit(BinaryExpression binary, Expression target, Expression value) {
      Expression visited = super.visit(binary, target, value);
      if (binary.getNodeType() == ExpressionType.Assign
          && value instanceof BinaryExpression
          && value.getNodeType() == ExpressionType.Add
          && value.getType() == long.class
          && ((BinaryExpression) value).expression0.equals(target)) {
        BinaryExpression add = (BinaryExpression) value;
        return Expressions.assign(
            target, Expressions.call(ArithmeticFunctions.class, "sum", add.expression0, add.expression1));
      }
      return visited;
    }
  }
}
