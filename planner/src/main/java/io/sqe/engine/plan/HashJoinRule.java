package io.sqe.engine.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableNestedLoopJoin;
import org.apache.calcite.plan.Convention;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;

/**
 * Calcite's {@code EnumerableJoinRule} with {@link BuildRightHashJoin} in place of its hash join: a
 * join with at least one equality between its inputs becomes a hash join (any other condition is
 * checked on the matching pairs), any other join a nested-loop join.
 */
final class HashJoinRule extends ConverterRule {
  static final HashJoinRule INSTANCE =
      new HashJoinRule(
          Config.INSTANCE
              .withConversion(LogicalJoin.class, Convention.NONE, EnumerableConvention.INSTANCE, "SqeHashJoinRule")
              .withRuleFactory(HashJoinRule::new));

  private HashJoinRule(Config config) {
    super(config);
  }

  @Override
  public RelNode convert(RelNode rel) {
    Join join = (Join) rel;
    List<RelNode> inputs = new ArrayList<>();
    for (RelNode input : join.getInputs()) {
      if (!(input.getConvention() instanceof EnumerableConvention)) {
        input = convert(input, input.getTraitSet().replace(EnumerableConvention.INSTANCE));
      }
      inputs.add(input);
    }
    RelNode left = inputs.get(0);
    RelNode right = inputs.get(1);
    JoinInfo info = join.analyzeCondition();
    if (info.leftKeys.isEmpty()) {
      return EnumerableNestedLoopJoin.create(left, right, join.getCondition(), join.getVariablesSet(), join.getJoinType());
    }
    RexBuilder rexBuilder = join.getCluster().getRexBuilder();
    RexNode condition = info.getEquiCondition(left, right, rexBuilder);
    if (!info.isEqui()) {
      condition =
          RexUtil.composeConjunction(
              rexBuilder, List.of(condition, RexUtil.composeConjunction(rexBuilder, info.nonEquiConditions)));
    }
    return BuildRightHashJoin.of(left, right, condition, join.getVariablesSet(), join.getJoinType());
  }
}
