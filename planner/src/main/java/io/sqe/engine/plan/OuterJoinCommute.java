package io.sqe.engine.plan;

import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.rules.JoinCommuteRule;

/**
 * Lets the planner swap the inputs of a left or right outer join (a left join of {@code a} and
 * {@code b} becomes a right join of {@code b} and {@code a}), so that its hash table can be built
 * on the smaller input: a hash join always builds its right input, and a left join whose right
 * input is the large one (TPC-H Q13: 150 thousand customers left-joined to 1.5 million orders)
 * otherwise builds a table of the large one. Calcite's own {@code JoinCommuteRule} swaps only
 * inner joins by default, and the heuristic join order removes it from the planner; this rule
 * stays, and since it matches only outer joins, which join ordering leaves as they are, it does
 * not make the search exhaustive.
 */
final class OuterJoinCommute {
  static final RelOptRule RULE =
      JoinCommuteRule.Config.DEFAULT
          .withSwapOuter(true)
          .withDescription("SqeOuterJoinCommuteRule")
          .withOperandSupplier(
              b -> b.operand(LogicalJoin.class)
                  .predicate(join -> join.getJoinType() == JoinRelType.LEFT || join.getJoinType() == JoinRelType.RIGHT)
                  .anyInputs())
          .as(JoinCommuteRule.Config.class)
          .toRule();

  private OuterJoinCommute() {}
}
