package io.sqe.engine.plan.physical;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.exec.aggregate.Accumulators;
import io.sqe.engine.exec.aggregate.AggregateCall;
import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.ExpandBatches;
import io.sqe.engine.exec.batch.GroupingSetsResult;
import io.sqe.engine.exec.batch.HashAggregateBatches;
import io.sqe.engine.exec.hash.KeyTable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * GROUP BY GROUPING SETS, ROLLUP or CUBE, and the GROUPING(...) and GROUP_ID() calls beside them:
 * each input batch once per set with the keys outside the set NULL and the set's grouping id
 * ({@link ExpandBatches}), one plain hash aggregate over the keys and that id ({@link
 * HashAggregateBatches}), then the statement's columns, GROUPING values from the id's bits
 * ({@link GroupingSetsResult}). One pass over the input computes every set, as Spark's Expand does.
 */
public final class SqeGroupingSets extends SingleRel implements SqeRel {
  private static final ArrowType.Int BIGINT = new ArrowType.Int(64, true);

  private final Aggregate aggregate;
  private final int[] keys;
  private final long[] groupingIds;
  private final int[] passed;
  private final List<AggregateCall> calls;
  private final List<GroupingSetsResult.Output> outputs;
  private final long emptySetId;

  private SqeGroupingSets(
      RelTraitSet traits,
      RelNode input,
      Aggregate aggregate,
      int[] keys,
      long[] groupingIds,
      int[] passed,
      List<AggregateCall> calls,
      List<GroupingSetsResult.Output> outputs,
      long emptySetId) {
    super(input.getCluster(), traits, input);
    this.aggregate = aggregate;
    this.keys = keys;
    this.groupingIds = groupingIds;
    this.passed = passed;
    this.calls = calls;
    this.outputs = outputs;
    this.emptySetId = emptySetId;
  }

  /** {@code aggregate}, which has grouping sets, over {@code input}; null when a key or call does not lower. */
  static SqeGroupingSets of(RelTraitSet traits, SqeRel input, Aggregate aggregate) {
    int[] keys = aggregate.getGroupSet().toArray();
    List<ImmutableBitSet> sets = aggregate.getGroupSets();
    // The grouping id is a key bit per key; distinct sets have distinct ids, so GROUP_ID() is 0.
    if (keys.length > 62 || new HashSet<>(sets).size() != sets.size()) {
      return null;
    }
    Schema in = input.batchSchema();
    for (int key : keys) {
      if (!KeyTable.supports(in.getFields().get(key))) {
        return null;
      }
    }
    long[] groupingIds = new long[sets.size()];
    long emptySetId = -1;
    for (int s = 0; s < sets.size(); s++) {
      for (int j = 0; j < keys.length; j++) {
        if (!sets.get(s).get(keys[j])) {
          groupingIds[s] |= 1L << (keys.length - 1 - j);
        }
      }
      if (sets.get(s).isEmpty()) {
        emptySetId = groupingIds[s];
      }
    }
    Schema out = CalciteTypeMapping.toArrowSchema(aggregate.getRowType());
    List<Integer> passed = new ArrayList<>();
    List<AggregateCall> calls = new ArrayList<>();
    List<GroupingSetsResult.Output> outputs = new ArrayList<>();
    for (int i = 0; i < aggregate.getAggCallList().size(); i++) {
      org.apache.calcite.rel.core.AggregateCall aggCall = aggregate.getAggCallList().get(i);
      Field output = out.getFields().get(keys.length + i);
      switch (aggCall.getAggregation().getKind()) {
        case GROUPING, GROUPING_ID, GROUP_ID -> {
          if (!output.getType().equals(BIGINT) || aggCall.filterArg >= 0) {
            return null;
          }
          int[] positions = new int[aggCall.getArgList().size()];
          for (int a = 0; a < positions.length; a++) {
            positions[a] = aggregate.getGroupSet().indexOf(aggCall.getArgList().get(a));
          }
          outputs.add(GroupingSetsResult.Output.grouping(positions));
        }
        default -> {
          AggregateCall call = SqeAggregate.call(aggCall, in, output);
          if (call == null || !Accumulators.supports(call)) {
            return null;
          }
          int argument = passedIndex(passed, call.argument(), keys.length);
          int filter = passedIndex(passed, call.filter(), keys.length);
          outputs.add(GroupingSetsResult.Output.column(keys.length + 1 + calls.size(), zeroWhenEmpty(call.kind())));
          calls.add(new AggregateCall(call.kind(), argument, filter, call.input(), call.output()));
        }
      }
    }
    return new SqeGroupingSets(
        traits, input, aggregate, keys, groupingIds, passed.stream().mapToInt(Integer::intValue).toArray(),
        List.copyOf(calls), List.copyOf(outputs), emptySetId);
  }

  /** The column of the expanded input that passes input column {@code column} (-1 for none). */
  private static int passedIndex(List<Integer> passed, int column, int keyCount) {
    if (column < 0) {
      return -1;
    }
    int at = passed.indexOf(column);
    if (at < 0) {
      at = passed.size();
      passed.add(column);
    }
    return keyCount + 1 + at;
  }

  private static boolean zeroWhenEmpty(AggregateCall.Kind kind) {
    return kind == AggregateCall.Kind.COUNT_STAR || kind == AggregateCall.Kind.COUNT || kind == AggregateCall.Kind.SUM0;
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeGroupingSets(traitSet, sole(inputs), aggregate, keys, groupingIds, passed, calls, outputs, emptySetId);
  }

  @Override
  protected RelDataType deriveRowType() {
    return aggregate.getRowType();
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw)
        .item("group", aggregate.getGroupSet())
        .item("groups", aggregate.getGroupSets())
        .item("calls", aggregate.getAggCallList());
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = SqeRel.implement(input);
    List<Field> inputFields = ((SqeRel) input).batchSchema().getFields();
    Schema result = batchSchema();
    List<Field> expanded = new ArrayList<>();
    for (int j = 0; j < keys.length; j++) {
      Field key = inputFields.get(keys[j]);
      expanded.add(new Field(result.getFields().get(j).getName(), FieldType.nullable(key.getType()), key.getChildren()));
    }
    expanded.add(new Field("$grouping", FieldType.notNullable(BIGINT), null));
    for (int column : passed) {
      expanded.add(inputFields.get(column));
    }
    Schema expandSchema = new Schema(expanded);
    List<Field> aggregated = new ArrayList<>(expanded.subList(0, keys.length + 1));
    for (AggregateCall call : calls) {
      aggregated.add(call.output());
    }
    Schema aggregateSchema = new Schema(aggregated);
    int[] aggregateKeys = new int[keys.length + 1];
    for (int j = 0; j < aggregateKeys.length; j++) {
      aggregateKeys[j] = j;
    }
    List<Field> aggregateKeyFields = expanded.subList(0, keys.length + 1);
    int[] keyColumns = keys;
    long[] ids = groupingIds;
    int[] passedColumns = passed;
    List<AggregateCall> aggregateCalls = calls;
    List<GroupingSetsResult.Output> resultColumns = outputs;
    long empty = emptySetId;
    return (context, allocator) -> {
      ExpandBatches expand = new ExpandBatches(in.open(context, allocator), keyColumns, ids, passedColumns, expandSchema, allocator);
      HashAggregateBatches hash;
      try {
        hash = new HashAggregateBatches(expand, aggregateKeys, aggregateKeyFields, aggregateCalls, aggregateSchema, context, allocator);
      } catch (RuntimeException | Error e) {
        expand.close();
        throw e;
      }
      return new GroupingSetsResult(hash, keyColumns.length, resultColumns, empty, result, allocator);
    };
  }
}
