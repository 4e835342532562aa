package io.sqe.engine.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptLattice;
import org.apache.calcite.plan.RelOptMaterialization;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptPredicateList;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexSimplify;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.Program;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Pulls the conjuncts that every branch of an OR shares out in front of it, in filters and join
 * conditions: {@code (a = b AND x) OR (a = b AND y)} becomes {@code a = b AND (x OR y)}. The join
 * key then becomes visible to the planner, which otherwise has to compare every pair of rows
 * (TPC-H Q19 is the classic case).
 *
 * <p>Then, for an OR over the columns of several inputs of a join tree, it derives for each input
 * the OR of the branches' conjuncts that read only that input, when every branch has one, and adds
 * it next to the OR, which stays: {@code (n1 = 'FRANCE' AND n2 = 'GERMANY') OR (n1 = 'GERMANY'
 * AND n2 = 'FRANCE')} implies {@code n1 IN ('FRANCE', 'GERMANY')}, which the planner pushes into
 * the scan of {@code n1} (TPC-H Q7, Q19). A row the OR keeps satisfies every conjunct of one
 * branch, so the derived condition keeps it too, NULLs included. In a filter the derived
 * conditions join the filter's own and the pushdown rules take them down; in a join condition
 * they become a filter on a side whose rows the join may drop (both sides of an inner join, the
 * right side of a left join, ...). {@link PlannerOptions#deriveOrPredicates()} turns this on and off.
 */
final class FactorOrConditions implements Program {
  @Override
  public RelNode run(
      RelOptPlanner planner,
      RelNode rel,
      RelTraitSet requiredOutputTraits,
      List<RelOptMaterialization> materializations,
      List<RelOptLattice> lattices) {
    boolean derive = PlannerOptions.of(planner).deriveOrPredicates();
    return rel.accept(
        new RelShuttleImpl() {
          @Override
          public RelNode visit(LogicalFilter filter) {
            RelNode visited = super.visit(filter);
            Filter f = (Filter) visited;
            RexBuilder rexBuilder = f.getCluster().getRexBuilder();
            RexNode factored = RexUtil.pullFactors(rexBuilder, f.getCondition());
            if (derive) {
              List<ImmutableBitSet> inputs = new ArrayList<>();
              leaves(f.getInput(), 0, inputs);
              List<RexNode> derived = new ArrayList<>();
              for (Derived d : derive(rexBuilder, factored, inputs)) {
                derived.add(d.condition());
              }
              if (!derived.isEmpty()) {
                derived.add(0, factored);
                factored = RexUtil.composeConjunction(rexBuilder, derived);
              }
            }
            return factored.equals(f.getCondition()) ? f : f.copy(f.getTraitSet(), f.getInput(), factored);
          }

          @Override
          public RelNode visit(LogicalJoin join) {
            RelNode visited = super.visit(join);
            Join j = (Join) visited;
            RexBuilder rexBuilder = j.getCluster().getRexBuilder();
            RexNode factored = RexUtil.pullFactors(rexBuilder, j.getCondition());
            RelNode left = j.getLeft();
            RelNode right = j.getRight();
            if (derive) {
              int leftCount = left.getRowType().getFieldCount();
              List<ImmutableBitSet> inputs = new ArrayList<>();
              leaves(left, 0, inputs);
              leaves(right, leftCount, inputs);
              List<RexNode> onLeft = new ArrayList<>();
              List<RexNode> onRight = new ArrayList<>();
              for (Derived d : derive(rexBuilder, factored, inputs)) {
                if (d.input().nextSetBit(0) < leftCount) {
                  if (dropsLeftRows(j.getJoinType())) {
                    onLeft.add(d.condition());
                  }
                } else if (dropsRightRows(j.getJoinType())) {
                  onRight.add(RexUtil.shift(d.condition(), -leftCount));
                }
              }
              left = filtered(left, rexBuilder, onLeft);
              right = filtered(right, rexBuilder, onRight);
            }
            return factored.equals(j.getCondition()) && left == j.getLeft() && right == j.getRight()
                ? j
                : j.copy(j.getTraitSet(), factored, left, right, j.getJoinType(), j.isSemiJoinDone());
          }
        });
  }

  /** A condition derived from an OR that reads only the columns {@code input} of one input. */
  private record Derived(ImmutableBitSet input, RexNode condition) {}

  /**
   * The field ranges of the inputs of the join tree {@code rel} (itself when it is no join), from
   * {@code offset} on; a semi- or anti-join's right input has no fields in its output.
   */
  private static void leaves(RelNode rel, int offset, List<ImmutableBitSet> inputs) {
    if (rel instanceof LogicalJoin join) {
      leaves(join.getLeft(), offset, inputs);
      if (join.getJoinType().projectsRight()) {
        leaves(join.getRight(), offset + join.getLeft().getRowType().getFieldCount(), inputs);
      }
      return;
    }
    int count = rel.getRowType().getFieldCount();
    if (count > 0) {
      inputs.add(ImmutableBitSet.range(offset, offset + count));
    }
  }

  /** The conditions each input's rows must meet for an OR among the conjuncts of {@code condition} to hold. */
  private static List<Derived> derive(RexBuilder rexBuilder, RexNode condition, List<ImmutableBitSet> inputs) {
    List<Derived> derived = new ArrayList<>();
    if (inputs.size() < 2) {
      return derived;
    }
    RexSimplify simplify = new RexSimplify(rexBuilder, RelOptPredicateList.EMPTY, RexUtil.EXECUTOR);
    for (RexNode conjunct : RelOptUtil.conjunctions(condition)) {
      if (conjunct.getKind() != SqlKind.OR) {
        continue;
      }
      ImmutableBitSet used = RelOptUtil.InputFinder.bits(conjunct);
      List<RexNode> branches = RelOptUtil.disjunctions(conjunct);
      for (ImmutableBitSet input : inputs) {
        if (input.contains(used) || !input.intersects(used)) {
          continue; // the OR itself reads only this input, or none of it
        }
        RexNode implied = implied(rexBuilder, branches, input);
        if (implied != null) {
          RexNode simplified = simplify.simplifyUnknownAsFalse(implied);
          if (!simplified.isAlwaysTrue() && !RelOptUtil.conjunctions(condition).contains(simplified)) {
            derived.add(new Derived(input, simplified));
          }
        }
      }
    }
    return derived;
  }

  /**
   * The OR over {@code branches} of each branch's deterministic conjuncts that read only columns of
   * {@code input}; null when a branch has none (then every row of the input may match).
   */
  private static RexNode implied(RexBuilder rexBuilder, List<RexNode> branches, ImmutableBitSet input) {
    List<RexNode> terms = new ArrayList<>();
    for (RexNode branch : branches) {
      List<RexNode> own = new ArrayList<>();
      for (RexNode conjunct : RelOptUtil.conjunctions(branch)) {
        ImmutableBitSet reads = RelOptUtil.InputFinder.bits(conjunct);
        if (!reads.isEmpty() && input.contains(reads) && RexUtil.isDeterministic(conjunct)) {
          own.add(conjunct);
        }
      }
      if (own.isEmpty()) {
        return null;
      }
      terms.add(RexUtil.composeConjunction(rexBuilder, own));
    }
    return RexUtil.composeDisjunction(rexBuilder, terms);
  }

  /** Whether a left row that meets the join condition with no right row leaves no trace in the output. */
  private static boolean dropsLeftRows(JoinRelType type) {
    return type == JoinRelType.INNER || type == JoinRelType.SEMI || type == JoinRelType.RIGHT;
  }

  /** Whether a right row that meets the join condition with no left row leaves no trace in the output. */
  private static boolean dropsRightRows(JoinRelType type) {
    return type == JoinRelType.INNER
        || type == JoinRelType.SEMI
        || type == JoinRelType.ANTI
        || type == JoinRelType.LEFT;
  }

  private static RelNode filtered(RelNode input, RexBuilder rexBuilder, List<RexNode> conditions) {
    return conditions.isEmpty()
        ? input
        : LogicalFilter.create(input, RexUtil.composeConjunction(rexBuilder, conditions));
  }
}
