package io.sqe.engine.plan;

import io.sqe.engine.exec.grouping.HashGrouping;
import io.sqe.engine.iceberg.ScanAggregation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.EnumerableAggregate;
import org.apache.calcite.adapter.enumerable.EnumerableCalc;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.JavaRowFormat;
import org.apache.calcite.adapter.enumerable.PhysType;
import org.apache.calcite.adapter.enumerable.PhysTypeImpl;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.linq4j.tree.Types;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.InvalidRelException;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.util.ImmutableBitSet;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * An aggregate whose rows are folded into typed accumulators by a {@link ScanAggregation}, the
 * folding an Iceberg scan does for an aggregate right above it, here over any input: unscaled
 * longs for exact numbers instead of a {@code BigDecimal} per addition, integer and string keys
 * without a key object per row. A Calc right below (projections and a condition) is folded too,
 * and is then not run: the aggregate reads the Calc's input. Aggregates the aggregation cannot
 * compute exactly, and those over a Calc it cannot fold, stay {@link HashGroupingAggregate}s.
 */
final class FoldedAggregate extends EnumerableAggregate {
  private static final Method FOLD =
      Types.lookupMethod(HashGrouping.class, "fold", Enumerable.class, ScanAggregation.class, DataContext.class);

  private final ScanAggregation aggregation;
  /** Whether the input is a Calc that the aggregation folds, so that the Calc's input is read. */
  private final boolean foldsCalc;

  private FoldedAggregate(
      RelOptCluster cluster,
      RelTraitSet traits,
      RelNode input,
      ImmutableBitSet groupSet,
      @Nullable List<ImmutableBitSet> groupSets,
      List<AggregateCall> aggCalls,
      ScanAggregation aggregation,
      boolean foldsCalc)
      throws InvalidRelException {
    super(cluster, traits, input, groupSet, groupSets, aggCalls);
    this.aggregation = aggregation;
    this.foldsCalc = foldsCalc;
  }

  /** {@code aggregate} over {@code input} as a folded aggregate, or empty when it cannot be folded. */
  static Optional<FoldedAggregate> of(EnumerableAggregate aggregate, RelNode input) {
    if (aggregate.getGroupType() != Group.SIMPLE) {
      return Optional.empty();
    }
    Optional<ScanAggregation> aggregation;
    boolean foldsCalc = input instanceof EnumerableCalc;
    if (foldsCalc) {
      // Over a Calc the folding pays only when it replaces the Calc too: folding the values Calcite
      // computed (TPC-H Q9's EXTRACT and products) measured slower than Calcite's accumulators.
      EnumerableCalc calc = (EnumerableCalc) input;
      if (!PlanInspection.repeatableExpressions(calc)) {
        return Optional.empty();
      }
      aggregation = ScanAggregation.ofRows(calc.getInput().getRowType(), calc.getProgram(), aggregate, aggregate.getCluster().getRexBuilder());
    } else {
      aggregation = ScanAggregation.ofRows(input.getRowType(), null, aggregate, aggregate.getCluster().getRexBuilder());
    }
    if (aggregation.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new FoldedAggregate(
              aggregate.getCluster(), aggregate.getTraitSet(), input, aggregate.getGroupSet(), aggregate.getGroupSets(),
              aggregate.getAggCallList(), aggregation.get(), foldsCalc));
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
    if (input == getInput() && groupSet.equals(this.groupSet) && aggCalls.equals(getAggCallList())) {
      try {
        return new FoldedAggregate(getCluster(), traitSet, input, groupSet, groupSets, aggCalls, aggregation, foldsCalc);
      } catch (InvalidRelException e) {
        throw new IllegalStateException(e);
      }
    }
    // Another input or other calls: fold again, or group as Calcite's code does.
    EnumerableAggregate plain;
    try {
      plain = new HashGroupingAggregate(getCluster(), traitSet, input, groupSet, groupSets, aggCalls, true);
    } catch (InvalidRelException e) {
      throw new IllegalStateException(e);
    }
    return of(plain, input).map(EnumerableAggregate.class::cast).orElse(plain);
  }

  @Override
  public String getRelTypeName() {
    return "EnumerableAggregate";
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("fold", foldsCalc ? "with Calc" : "rows");
  }

  @Override
  public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    EnumerableRel source = (EnumerableRel) (foldsCalc ? ((EnumerableCalc) getInput()).getInput() : getInput());
    Result child = source.implement(implementor, Prefer.ARRAY);
    BlockBuilder builder = new BlockBuilder();
    Expression rows = builder.append("rows", child.block);
    // The aggregation reads an Object[] per row, or the bare value of a single field.
    JavaRowFormat format = source.getRowType().getFieldCount() == 1 ? JavaRowFormat.SCALAR : JavaRowFormat.ARRAY;
    if (child.physType.getFormat() != format) {
      rows = builder.append("arrayRows", child.physType.convertTo(rows, format));
    }
    Expression stashed = implementor.stash(aggregation, ScanAggregation.class);
    builder.add(Expressions.return_(null, Expressions.call(FOLD, rows, stashed, implementor.getRootExpression())));
    PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(), JavaRowFormat.ARRAY);
    return implementor.result(physType, builder.toBlock());
  }
}
