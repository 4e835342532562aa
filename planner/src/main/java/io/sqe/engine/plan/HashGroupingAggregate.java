package io.sqe.engine.plan;

import io.sqe.engine.exec.grouping.HashGrouping;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.EnumerableAggregate;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.function.Function0;
import org.apache.calcite.linq4j.function.Function1;
import org.apache.calcite.linq4j.function.Function2;
import org.apache.calcite.linq4j.tree.BlockStatement;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.linq4j.tree.MethodCallExpression;
import org.apache.calcite.linq4j.tree.Shuttle;
import org.apache.calcite.linq4j.tree.Types;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.InvalidRelException;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.util.BuiltInMethod;
import org.apache.calcite.util.ImmutableBitSet;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Calcite's aggregate, whose generated {@code groupBy} and {@code distinct} calls go to {@link
 * HashGrouping} instead of linq4j's {@code HashMap}-based ones (unless made without hash grouping)
 * and whose BIGINT sums fail on overflow ({@link CheckedSums}); everything else (keys,
 * accumulators, results, grouping sets, the global aggregate) is Calcite's code. EXPLAIN shows it
 * as the {@code EnumerableAggregate} it is.
 */
final class HashGroupingAggregate extends EnumerableAggregate {
  private static final Method GROUP_BY =
      Types.lookupMethod(
          HashGrouping.class, "groupBy", Enumerable.class, Function1.class, Function0.class, Function2.class,
          Function2.class, DataContext.class);
  private static final Method DISTINCT = Types.lookupMethod(HashGrouping.class, "distinct", Enumerable.class, DataContext.class);

  private final boolean hashGrouping;

  HashGroupingAggregate(
      RelOptCluster cluster,
      RelTraitSet traits,
      RelNode input,
      ImmutableBitSet groupSet,
      @Nullable List<ImmutableBitSet> groupSets,
      List<AggregateCall> aggCalls,
      boolean hashGrouping)
      throws InvalidRelException {
    super(cluster, traits, input, groupSet, groupSets, aggCalls);
    this.hashGrouping = hashGrouping;
  }

  /** {@code aggregate} with {@code input}, grouping with {@link HashGrouping} if {@code hashGrouping}. */
  static HashGroupingAggregate of(EnumerableAggregate aggregate, RelNode input, boolean hashGrouping) {
    try {
      return new HashGroupingAggregate(
          aggregate.getCluster(), aggregate.getTraitSet(), input, aggregate.getGroupSet(), aggregate.getGroupSets(),
          aggregate.getAggCallList(), hashGrouping);
    } catch (InvalidRelException e) {
      // The aggregate was valid with these very attributes.
      throw new IllegalStateException(e);
    }
  }

  @Override
  public EnumerableAggregate copy(
      RelTraitSet traitSet,
      RelNode input,
      ImmutableBitSet groupSet,
      @Nullable List<ImmutableBitSet> groupSets,
      List<AggregateCall> aggCalls) {
    try {
      return new HashGroupingAggregate(getCluster(), traitSet, input, groupSet, groupSets, aggCalls, hashGrouping);
    } catch (InvalidRelException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String getRelTypeName() {
    return "EnumerableAggregate";
  }

  @Override
  public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    Result result = super.implement(implementor, pref);
    // SUM's running totals fail on overflow instead of wrapping around, whatever the grouping.
    BlockStatement block = CheckedSums.check(result.block);
    if (hashGrouping && getGroupType() == Group.SIMPLE && !groupSet.isEmpty()) {
      // Grouping sets and the global aggregate keep Calcite's grouping.
      block = (BlockStatement) block.accept(new GroupingCalls(implementor.getRootExpression()));
    }
    return new Result(block, result.physType, result.format);
  }

  /**
   * Replaces {@code input.groupBy(key, init, add, result)} and {@code input.distinct()} (or with
   * Calcite's array comparer) by the same calls to {@link HashGrouping}. A child's calls of the
   * same shape are replaced too: they mean the same.
   */
  private static final class GroupingCalls extends Shuttle {
    private final Expression root;

    GroupingCalls(Expression root) {
      this.root = root;
    }

    @Override
    public Expression visit(MethodCallExpression call, @Nullable Expression target, List<Expression> arguments) {
      if (target != null && call.method.equals(BuiltInMethod.GROUP_BY2.method) && arguments.size() == 4) {
        List<Expression> args = new ArrayList<>();
        args.add(target);
        args.addAll(arguments);
        args.add(root);
        return Expressions.call(GROUP_BY, args);
      }
      if (target != null
          && call.method.equals(BuiltInMethod.DISTINCT.method)
          && (arguments.isEmpty() || arguments.size() == 1 && arrayComparer(arguments.get(0)))) {
        return Expressions.call(DISTINCT, target, root);
      }
      return super.visit(call, target, arguments);
    }

    private static boolean arrayComparer(Expression expression) {
      return expression instanceof MethodCallExpression
          && ((MethodCallExpression) expression).method.equals(BuiltInMethod.ARRAY_COMPARER.method);
    }
  }
}
