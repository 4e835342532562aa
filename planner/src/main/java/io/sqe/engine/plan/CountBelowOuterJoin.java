package io.sqe.engine.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.ImmutableIntList;
import org.immutables.value.Value;

/**
 * Counts the rows of an outer join's null-extended side per join key before the join, when the
 * aggregate above groups by columns of the preserved side only and counts values of the other
 * side: {@code Aggregate(g, COUNT(x)) over a LEFT JOIN b ON a.k = b.j} becomes {@code
 * Aggregate(g, SUM0(c)) over a LEFT JOIN (Aggregate(j, COUNT(x) AS c) over b) ON a.k = b.j}. The
 * join then matches one row per key instead of one per row of the large side (TPC-H Q13: 1.5
 * million orders counted per customer key, then joined to 150 thousand customers), and the new
 * aggregate over the scan can run in parallel parts. A preserved row with no match gets a NULL
 * count, which SUM0 turns into the 0 that COUNT gave it; a preserved key that repeats adds up the
 * same count once per row, as the join did. Calcite's {@code AggregateJoinTransposeRule} does this
 * for inner joins and functions in general; this rule covers the outer join and COUNT alone.
 */
@Value.Enclosing
public final class CountBelowOuterJoin extends RelRule<CountBelowOuterJoin.Config> {
  CountBelowOuterJoin(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Aggregate aggregate = call.rel(0);
    LogicalJoin join = call.rel(1);
    if (aggregate.getGroupType() != Aggregate.Group.SIMPLE || aggregate.getAggCallList().isEmpty()) {
      return;
    }
    int leftCount = join.getLeft().getRowType().getFieldCount();
    boolean preservedLeft = join.getJoinType() == JoinRelType.LEFT;
    if (!preservedLeft && join.getJoinType() != JoinRelType.RIGHT) {
      return;
    }
    // IS NOT DISTINCT FROM is not an equality here: the new join matches the counted keys with =.
    JoinInfo info = JoinInfo.createWithStrictEquality(join.getLeft(), join.getRight(), join.getCondition());
    if (!info.isEqui() || info.leftKeys.isEmpty() || ImmutableBitSet.of(info.leftKeys).cardinality() != info.leftKeys.size()
        || ImmutableBitSet.of(info.rightKeys).cardinality() != info.rightKeys.size()) {
      return;
    }
    // Positions in the join's row type of the other (counted) side.
    int otherStart = preservedLeft ? leftCount : 0;
    int otherEnd = preservedLeft ? join.getRowType().getFieldCount() : leftCount;
    for (int key : aggregate.getGroupSet()) {
      if (key >= otherStart && key < otherEnd) {
        return;
      }
    }
    for (AggregateCall aggCall : aggregate.getAggCallList()) {
      if (aggCall.getAggregation().getKind() != SqlKind.COUNT
          || aggCall.isDistinct()
          || aggCall.hasFilter()
          || aggCall.getArgList().size() != 1
          || !aggCall.collation.getFieldCollations().isEmpty()) {
        return;
      }
      int arg = aggCall.getArgList().get(0);
      if (arg < otherStart || arg >= otherEnd) {
        return;
      }
    }
    RelNode other = preservedLeft ? join.getRight() : join.getLeft();
    RelNode preserved = preservedLeft ? join.getLeft() : join.getRight();
    ImmutableIntList otherKeys = preservedLeft ? info.rightKeys : info.leftKeys;
    ImmutableIntList preservedKeys = preservedLeft ? info.leftKeys : info.rightKeys;

    RelBuilder builder = call.builder();
    builder.push(other);
    List<RelBuilder.AggCall> counts = new ArrayList<>();
    for (AggregateCall aggCall : aggregate.getAggCallList()) {
      counts.add(builder.count(false, null, builder.field(aggCall.getArgList().get(0) - otherStart)));
    }
    builder.aggregate(builder.groupKey(ImmutableBitSet.of(otherKeys)), counts);
    // The pre-aggregate's fields: the keys in ascending order of their position, then the counts.
    List<Integer> sortedKeys = new ArrayList<>(otherKeys);
    sortedKeys.sort(Integer::compare);
    RelNode counted = builder.build();
    int countedFields = counted.getRowType().getFieldCount();

    RelNode left = preservedLeft ? preserved : counted;
    RelNode right = preservedLeft ? counted : preserved;
    int newLeftCount = left.getRowType().getFieldCount();
    builder.push(left).push(right);
    RexBuilder rex = join.getCluster().getRexBuilder();
    List<RexNode> conditions = new ArrayList<>();
    for (int i = 0; i < otherKeys.size(); i++) {
      int countedKey = sortedKeys.indexOf(otherKeys.get(i));
      int preservedKey = preservedKeys.get(i);
      RexNode leftRef = preservedLeft ? builder.field(2, 0, preservedKey) : builder.field(2, 0, countedKey);
      RexNode rightRef = preservedLeft ? builder.field(2, 1, countedKey) : builder.field(2, 1, preservedKey);
      conditions.add(builder.equals(leftRef, rightRef));
    }
    builder.join(join.getJoinType(), conditions);

    // The aggregate's group keys, moved to the new join's positions; the counts summed.
    int preservedShiftOld = preservedLeft ? 0 : leftCount;
    int preservedShiftNew = preservedLeft ? 0 : countedFields;
    List<Integer> groupKeys = new ArrayList<>();
    for (int key : aggregate.getGroupSet()) {
      groupKeys.add(key - preservedShiftOld + preservedShiftNew);
    }
    int countsStart = (preservedLeft ? newLeftCount : 0) + otherKeys.size();
    List<RelBuilder.AggCall> sums = new ArrayList<>();
    for (int i = 0; i < aggregate.getAggCallList().size(); i++) {
      sums.add(builder.aggregateCall(SqlStdOperatorTable.SUM0, builder.field(countsStart + i)).as(aggregate.getAggCallList().get(i).getName()));
    }
    builder.aggregate(builder.groupKey(ImmutableBitSet.of(groupKeys)), sums);
    builder.convert(aggregate.getRowType(), true);
    call.transformTo(builder.build());
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = false)
  public interface Config extends RelRule.Config {
    Config DEFAULT =
        ImmutableCountBelowOuterJoin.Config.builder()
            .build()
            .withOperandSupplier(
                b0 -> b0.operand(LogicalAggregate.class)
                    .oneInput(b1 -> b1.operand(LogicalJoin.class).anyInputs()))
            .as(Config.class);

    @Override
    default CountBelowOuterJoin toRule() {
      return new CountBelowOuterJoin(this);
    }
  }
}
