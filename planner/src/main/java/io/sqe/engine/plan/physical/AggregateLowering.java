package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.SelectColumns;
import io.sqe.engine.plan.ParallelGather;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.adapter.enumerable.EnumerableAggregate;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;

/**
 * The columnar form of an aggregate: {@link SqeAggregate} over its lowered input, or {@link
 * SqeGroupingSets} for one with grouping sets (ROLLUP, CUBE, and Calcite's form of DISTINCT
 * aggregates beside others). Covers Calcite's aggregate and SQE's row-runtime form of it, which
 * is the same aggregate computed otherwise (hash grouping, partial and final halves around a
 * parallel gather).
 *
 * <p>Calcite's {@code LITERAL_AGG} (its marker for "this group exists", from IN and NOT IN
 * sub-queries) is its literal in every row the aggregate returns, whatever the rows of the group:
 * the aggregate is lowered without it and a projection adds the literal.
 */
final class AggregateLowering {
  private AggregateLowering() {}

  static SqeRel lower(EnumerableAggregate aggregate) {
    RelNode input = aggregate.getInput();
    SqeRel lowered = ColumnarLowering.lower(input);
    if (lowered == null) {
      return null;
    }
    RelTraitSet traits = aggregate.getTraitSet().replace(SqeRel.CONVENTION);
    // The final phase of an aggregate split into parts: its input gathers the partial phases.
    boolean overPartials = input instanceof ParallelGather;
    List<AggregateCall> calls = aggregate.getAggCallList();
    if (calls.stream().noneMatch(AggregateLowering::isLiteral)) {
      return computed(traits, lowered, aggregate, overPartials);
    }
    List<AggregateCall> computedCalls = calls.stream().filter(call -> !isLiteral(call)).toList();
    SqeRel computed = computed(
        traits,
        lowered,
        aggregate.copy(aggregate.getTraitSet(), input, aggregate.getGroupSet(), aggregate.getGroupSets(), computedCalls),
        overPartials);
    return computed == null ? null : withLiterals(traits, computed, aggregate);
  }

  /** @param overPartials whether {@code input} gathers the partial phases of {@code aggregate} */
  private static SqeRel computed(RelTraitSet traits, SqeRel input, Aggregate aggregate, boolean overPartials) {
    if (aggregate.getGroupType() != Aggregate.Group.SIMPLE) {
      return SqeGroupingSets.of(traits, input, aggregate);
    }
    if (aggregate.getGroupCount() > 0 && input instanceof SqeGather gather) {
      SqeRel split = splitByKeys(traits, gather, aggregate, overPartials);
      if (split != null) {
        return split;
      }
    }
    return SqeAggregate.of(traits, input, aggregate);
  }

  /**
   * The final phase of a split aggregate (above the gather of the partial ones) split too: its
   * groups by a hash of their keys, each share finished by one part of a gather of its own, where
   * it ran on one thread (TPC-H Q18 combines 1.5 million partial groups). Over the partial phases
   * ({@code overPartials}) they may return their groups more than once, which this phase combines;
   * over anything else gathered (the final phase of another aggregate, split the same way: a
   * DISTINCT aggregate's inner one) each group must come once, as it is. Null when the aggregate
   * cannot be computed on batches.
   */
  private static SqeRel splitByKeys(RelTraitSet traits, SqeGather gather, Aggregate aggregate, boolean overPartials) {
    SqeRel partial = overPartials && gather.getInput() instanceof SqeAggregate aggregated
        ? aggregated.partial()
        : (SqeRel) gather.getInput();
    SqeExchange exchange = new SqeExchange(partial.getTraitSet(), partial, aggregate.getGroupSet(), gather.parts());
    SqeAggregate last = SqeAggregate.of(traits, exchange, aggregate);
    return last == null ? null : new SqeGather(traits, last, gather.parts());
  }

  private static boolean isLiteral(AggregateCall call) {
    return call.getAggregation().getKind() == SqlKind.LITERAL_AGG;
  }

  /**
   * {@code aggregate}'s rows from {@code computed}'s, the same aggregate without its {@code
   * LITERAL_AGG} calls: its group columns and computed calls moved, the literals added; null when
   * a literal has no plain run-time value.
   */
  private static SqeRel withLiterals(RelTraitSet traits, SqeRel computed, Aggregate aggregate) {
    int groups = aggregate.getGroupCount();
    List<AggregateCall> calls = aggregate.getAggCallList();
    List<RexNode> projects = new ArrayList<>();
    int[] columns = new int[groups + calls.size()];
    Object[] constants = new Object[columns.length];
    for (int i = 0; i < groups; i++) {
      projects.add(RexInputRef.of(i, computed.getRowType()));
      columns[i] = i;
    }
    int next = groups;
    for (int c = 0; c < calls.size(); c++) {
      int column = groups + c;
      AggregateCall call = calls.get(c);
      if (!isLiteral(call)) {
        projects.add(RexInputRef.of(next, computed.getRowType()));
        columns[column] = next++;
        continue;
      }
      RexNode literal = call.rexList.get(0);
      Optional<Object> value = ColumnarLowering.constant(literal);
      if (value.isEmpty()) {
        return null;
      }
      projects.add(literal);
      columns[column] = SelectColumns.CONSTANT;
      constants[column] = value.get() == ColumnarLowering.NULL ? null : value.get();
    }
    return SqeProject.ofColumns(traits, computed, projects, columns, constants, aggregate.getRowType());
  }
}
