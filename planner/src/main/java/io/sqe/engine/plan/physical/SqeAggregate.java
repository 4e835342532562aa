package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.aggregate.Accumulators;
import io.sqe.engine.exec.aggregate.AggregateCall;
import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.HashAggregateBatches;
import io.sqe.engine.exec.hash.KeyTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.util.ImmutableBitSet;

/** GROUP BY (or a global aggregate) over its input's batches, in a hash table of the keys ({@link HashAggregateBatches}). */
public final class SqeAggregate extends SingleRel implements SqeRel {
  private final ImmutableBitSet groupSet;
  private final List<org.apache.calcite.rel.core.AggregateCall> aggCalls;
  private final List<AggregateCall> calls;
  private final RelDataType outputType;
  /** Whether this is the partial phase of a split aggregate, which may return a group more than once. */
  private final boolean partial;

  private SqeAggregate(
      RelTraitSet traits,
      RelNode input,
      ImmutableBitSet groupSet,
      List<org.apache.calcite.rel.core.AggregateCall> aggCalls,
      List<AggregateCall> calls,
      RelDataType outputType,
      boolean partial) {
    super(input.getCluster(), traits, input);
    this.groupSet = groupSet;
    this.aggCalls = aggCalls;
    this.calls = calls;
    this.outputType = outputType;
    this.partial = partial;
  }

  /**
   * {@code aggregate} over {@code input}, or null when it has grouping sets, or a key or call the
   * columnar operators do not compute (DISTINCT, ordered or other functions, nested keys).
   */
  static SqeAggregate of(RelTraitSet traits, SqeRel input, Aggregate aggregate) {
    if (aggregate.getGroupType() != Aggregate.Group.SIMPLE) {
      return null;
    }
    Schema in = input.batchSchema();
    for (int key : aggregate.getGroupSet()) {
      if (!KeyTable.supports(in.getFields().get(key))) {
        return null;
      }
    }
    Schema out = io.sqe.catalog.types.CalciteTypeMapping.toArrowSchema(aggregate.getRowType());
    int groups = aggregate.getGroupCount();
    List<AggregateCall> calls = new ArrayList<>();
    List<org.apache.calcite.rel.core.AggregateCall> aggCalls = aggregate.getAggCallList();
    for (int i = 0; i < aggCalls.size(); i++) {
      AggregateCall call = call(aggCalls.get(i), in, out.getFields().get(groups + i));
      if (call == null || !Accumulators.supports(call)) {
        return null;
      }
      calls.add(call);
    }
    return new SqeAggregate(traits, input, aggregate.getGroupSet(), aggCalls, List.copyOf(calls), aggregate.getRowType(), false);
  }

  static AggregateCall call(org.apache.calcite.rel.core.AggregateCall call, Schema in, Field output) {
    if (call.isDistinct() || call.isApproximate() || !call.getCollation().getFieldCollations().isEmpty() || !call.rexList.isEmpty()
        || call.getArgList().size() > 1) {
      return null;
    }
    AggregateCall.Kind kind = switch (call.getAggregation().getKind()) {
      case COUNT -> call.getArgList().isEmpty() ? AggregateCall.Kind.COUNT_STAR : AggregateCall.Kind.COUNT;
      case SUM -> AggregateCall.Kind.SUM;
      case SUM0 -> AggregateCall.Kind.SUM0;
      // BOOL_AND, BOOL_OR, EVERY and SOME are MIN and MAX of booleans in Calcite.
      case MIN -> AggregateCall.Kind.MIN;
      case MAX -> AggregateCall.Kind.MAX;
      case ANY_VALUE -> AggregateCall.Kind.ANY_VALUE;
      case SINGLE_VALUE -> AggregateCall.Kind.SINGLE_VALUE;
      default -> null;
    };
    if (kind == null || (kind != AggregateCall.Kind.COUNT_STAR) == call.getArgList().isEmpty()) {
      return null;
    }
    int argument = call.getArgList().isEmpty() ? -1 : call.getArgList().get(0);
    return new AggregateCall(kind, argument, call.filterArg, argument < 0 ? null : in.getFields().get(argument), output);
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeAggregate(traitSet, sole(inputs), groupSet, aggCalls, calls, outputType, partial);
  }

  /**
   * This aggregate as the partial phase of a split one, which returns its groups whenever its table
   * outgrows the caches ({@link HashAggregateBatches#partial}), for the final phase to combine; the
   * same when it has no keys.
   */
  SqeAggregate partial() {
    return groupSet.isEmpty() ? this : new SqeAggregate(traitSet, input, groupSet, aggCalls, calls, outputType, true);
  }

  @Override
  protected RelDataType deriveRowType() {
    return outputType;
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("group", groupSet).item("calls", aggCalls).itemIf("partial", true, partial);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = SqeRel.implement(input);
    int[] keys = groupSet.toArray();
    List<Field> inputFields = ((SqeRel) input).batchSchema().getFields();
    List<Field> keyFields = new ArrayList<>();
    for (int key : keys) {
      keyFields.add(inputFields.get(key));
    }
    Schema schema = batchSchema();
    List<AggregateCall> aggregateCalls = calls;
    if (partial) {
      return (context, allocator) ->
          HashAggregateBatches.partial(in.open(context, allocator), keys, keyFields, aggregateCalls, schema, context, allocator);
    }
    return (context, allocator) ->
        new HashAggregateBatches(in.open(context, allocator), keys, keyFields, aggregateCalls, schema, context, allocator);
  }
}
