package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptLattice;
import org.apache.calcite.plan.RelOptMaterialization;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.plan.hep.HepMatchOrder;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.metadata.DefaultRelMetadataProvider;
import org.apache.calcite.rel.rules.AggregateProjectPullUpConstantsRule;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rel.rules.FilterJoinRule;
import org.apache.calcite.rel.rules.JoinAssociateRule;
import org.apache.calcite.rel.rules.JoinCommuteRule;
import org.apache.calcite.rel.rules.JoinPushThroughJoinRule;
import org.apache.calcite.rel.rules.ReduceExpressionsRule;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.tools.Program;
import org.apache.calcite.tools.Programs;

/**
 * Cost-based planning with the join order chosen by the size of the statement's joins: an
 * exhaustive search below {@link #HEURISTIC_THRESHOLD} joins, Calcite's heuristic ordering
 * ({@code LoptOptimizeJoinRule}, with the row counts of {@link JoinCardinality}) while no join
 * brings together more than {@code maxReorderedJoins} tables, and the FROM list's order (each
 * condition pushed down to the first join that has its columns) above that, as Trino does past its
 * {@code optimizer.max-reordered-joins}: the heuristic's time grows with about the cube of the
 * tables (50 took seconds, 150 never finished), the FROM order's with their number.
 */
final class JoinOrder implements Program {
  /**
   * Join counts from which the planner orders joins heuristically instead of exhaustively. From
   * two joins on: Volcano's exhaustive search kept the FROM list's order when it started with a
   * cartesian product (TPC-H Q9), and swapping a join's inputs there costs a projection that hides
   * the cheaper build side.
   */
  static final int HEURISTIC_THRESHOLD = 2;

  /**
   * The rules left out above the limit: those that reorder joins (each order they reach is another
   * plan to cost), and those that infer the predicates of the whole join tree below each node they
   * match, which took most of the time of a 150-table join kept in FROM order.
   */
  private static final List<Class<? extends RelOptRule>> LEFT_OUT_OF_LARGE_JOINS =
      List.of(
          JoinCommuteRule.class,
          JoinAssociateRule.class,
          JoinPushThroughJoinRule.class,
          AggregateProjectPullUpConstantsRule.class,
          ReduceExpressionsRule.JoinReduceExpressionsRule.class);

  private final List<RelOptRule> rules;
  private final int maxReorderedJoins;

  /**
   * @param rules the rules of the cost-based planner
   * @param maxReorderedJoins the most tables one join may bring together and still be reordered
   */
  JoinOrder(List<RelOptRule> rules, int maxReorderedJoins) {
    this.rules = List.copyOf(requireNonNull(rules, "rules is null"));
    this.maxReorderedJoins = maxReorderedJoins;
  }

  @Override
  public RelNode run(
      RelOptPlanner planner,
      RelNode rel,
      RelTraitSet requiredOutputTraits,
      List<RelOptMaterialization> materializations,
      List<RelOptLattice> lattices) {
    Program program;
    if (largestJoin(rel) <= maxReorderedJoins) {
      program = Programs.heuristicJoinOrder(rules, false, HEURISTIC_THRESHOLD);
    } else {
      HepProgram pushConditions =
          new HepProgramBuilder().addMatchOrder(HepMatchOrder.BOTTOM_UP).addRuleInstance(CoreRules.FILTER_INTO_JOIN).build();
      List<RelOptRule> withoutReordering = new ArrayList<>(rules);
      withoutReordering.removeIf(rule -> LEFT_OUT_OF_LARGE_JOINS.stream().anyMatch(left -> left.isInstance(rule)));
      program =
          Programs.sequence(
              Programs.of(pushConditions, false, DefaultRelMetadataProvider.INSTANCE), Programs.ofRules(withoutReordering));
    }
    return program.run(planner, rel, requiredOutputTraits, materializations, lattices);
  }

  /**
   * {@code rel}, a logical plan, with its joins in the order the planner starts its cost-based
   * search from (the heuristic's, with the row counts of {@link JoinCardinality}), as logical joins
   * whose right input is the smaller: for a statement another engine runs, which keeps the order
   * it is given when it lacks the statistics to choose its own (Trino without NDV statistics builds
   * on the right input, and applies a semi-join where its IN stands). Each condition goes down to
   * the first join or scan that has its columns, uncorrelated IN and EXISTS too; a correlated
   * sub-query stays where it is, above the joins it refers to. Above {@code maxReorderedJoins}
   * tables the joins keep their order, as {@link #run} keeps them.
   */
  static RelNode logical(RelOptPlanner planner, RelNode rel, int maxReorderedJoins) {
    HepProgramBuilder program = new HepProgramBuilder().addRuleInstance(UNCORRELATED_FILTER_INTO_JOIN);
    if (largestJoin(rel) <= maxReorderedJoins) {
      program.addMatchOrder(HepMatchOrder.BOTTOM_UP)
          .addRuleInstance(CoreRules.JOIN_TO_MULTI_JOIN)
          .addRuleInstance(CoreRules.MULTI_JOIN_OPTIMIZE);
    }
    return Programs.of(program.build(), false, DefaultRelMetadataProvider.INSTANCE)
        .run(planner, rel.accept(new CorrelatedApart()), rel.getTraitSet(), List.of(), List.of());
  }

  /**
   * Calcite's rule that pushes a filter's conditions into the join below it, but not a filter that
   * binds a correlation variable: its sub-queries refer to the columns of its input by position,
   * and pushed into the join they would lose the variable ("$cor0 is not found").
   */
  private static final RelOptRule UNCORRELATED_FILTER_INTO_JOIN =
      FilterJoinRule.FilterIntoJoinRule.FilterIntoJoinRuleConfig.DEFAULT
          .withOperandSupplier(filter -> filter.operand(Filter.class)
              .predicate(f -> f.getVariablesSet().isEmpty())
              .oneInput(join -> join.operand(Join.class).anyInputs()))
          .as(FilterJoinRule.FilterIntoJoinRule.FilterIntoJoinRuleConfig.class)
          .toRule();

  /**
   * Splits each filter that binds a correlation variable in two: its conditions with a sub-query
   * stay in it, with the variable; the others go to a filter of their own below it, which {@link
   * #UNCORRELATED_FILTER_INTO_JOIN} can push into the joins (TPC-H Q21's join conditions sit
   * beside its correlated EXISTS).
   */
  private static final class CorrelatedApart extends RelHomogeneousShuttle {
    @Override
    public RelNode visit(RelNode other) {
      RelNode visited = super.visit(other);
      if (!(visited instanceof LogicalFilter filter) || filter.getVariablesSet().isEmpty()) {
        return visited;
      }
      List<RexNode> kept = new ArrayList<>();
      List<RexNode> pushed = new ArrayList<>();
      for (RexNode condition : RelOptUtil.conjunctions(filter.getCondition())) {
        (RexUtil.SubQueryFinder.find(condition) != null ? kept : pushed).add(condition);
      }
      if (kept.isEmpty() || pushed.isEmpty()) {
        return visited;
      }
      RexBuilder rexBuilder = filter.getCluster().getRexBuilder();
      RelNode below = LogicalFilter.create(filter.getInput(), RexUtil.composeConjunction(rexBuilder, pushed));
      return LogicalFilter.create(below, RexUtil.composeConjunction(rexBuilder, kept), ImmutableSet.copyOf(filter.getVariablesSet()));
    }
  }

  /**
   * The most tables one join of {@code rel} brings together: the inputs of a tree of joins (and
   * filters between them) that Calcite's {@code JoinToMultiJoinRule} would gather for reordering.
   */
  static int largestJoin(RelNode rel) {
    int largest = 0;
    List<RelNode> pending = new ArrayList<>(List.of(rel));
    while (!pending.isEmpty()) {
      RelNode node = pending.remove(pending.size() - 1);
      if (node instanceof Join) {
        List<RelNode> outside = new ArrayList<>();
        largest = Math.max(largest, tables(node, outside));
        pending.addAll(outside);
      } else {
        pending.addAll(node.getInputs());
      }
    }
    return largest;
  }

  /** The inputs of the join tree at {@code join}; the nodes below them go to {@code outside}. */
  private static int tables(RelNode join, List<RelNode> outside) {
    int tables = 0;
    List<RelNode> pending = new ArrayList<>(List.of(join));
    while (!pending.isEmpty()) {
      RelNode node = RelOptUtil.stripAll(pending.remove(pending.size() - 1));
      if (node instanceof Join || node instanceof Filter && RelOptUtil.stripAll(((Filter) node).getInput()) instanceof Join) {
        pending.addAll(node.getInputs());
      } else {
        tables++;
        outside.add(node);
      }
    }
    return tables;
  }
}
