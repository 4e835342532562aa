package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.HashJoinBatches;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.join.JoinType;
import io.sqe.engine.exec.join.KeyPublication;
import io.sqe.engine.exec.join.HashBuild;
import io.sqe.engine.iceberg.DynamicFilters;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;

/**
 * A join on equality keys over batches ({@link HashJoinBatches}): the right input is the build
 * side, the left streams past it; conditions beyond the keys are checked on the matching pairs.
 * Inside a parallel pipeline its build side may be shared: read once per execution by the first
 * part to need it and probed by all ({@code sharedBuild} in EXPLAIN).
 */
public final class SqeHashJoin extends Join implements SqeRel {
  /** The key types a hash join compares by their Arrow values as SQL's {@code =} does. */
  private static final Set<ArrowType.ArrowTypeID> KEY_TYPES = EnumSet.of(
      ArrowType.ArrowTypeID.Int,
      ArrowType.ArrowTypeID.Date,
      ArrowType.ArrowTypeID.Time,
      ArrowType.ArrowTypeID.Timestamp,
      ArrowType.ArrowTypeID.FloatingPoint,
      ArrowType.ArrowTypeID.Bool,
      ArrowType.ArrowTypeID.Decimal,
      ArrowType.ArrowTypeID.FixedSizeBinary,
      ArrowType.ArrowTypeID.Utf8,
      ArrowType.ArrowTypeID.Binary);

  private final int[] leftKeys;
  private final int[] rightKeys;
  /** The conditions beyond the keys, over a left row's columns and a right row's; null for none. */
  private final Predicate residual;
  /** The key whose build values go to a scan on the left as a dynamic filter, and where; null for none. */
  private final Integer filterKey;
  private final DynamicFilters.Slot slot;
  /** Whether the parts of the parallel pipeline this join runs in share its build side, read once. */
  private final boolean sharedBuild;

  private SqeHashJoin(
      RelTraitSet traits,
      RelNode left,
      RelNode right,
      RexNode condition,
      JoinRelType joinType,
      int[] leftKeys,
      int[] rightKeys,
      Predicate residual,
      Integer filterKey,
      DynamicFilters.Slot slot,
      boolean sharedBuild) {
    super(left.getCluster(), traits, List.of(), left, right, condition, Set.of(), joinType);
    this.leftKeys = leftKeys;
    this.rightKeys = rightKeys;
    this.residual = residual;
    this.filterKey = filterKey;
    this.slot = slot;
    this.sharedBuild = sharedBuild;
  }

  /**
   * This join with its build side read once per execution and probed by every part of the
   * parallel pipeline it runs in (the row runtime's {@code SharedInput}); its type decides each
   * probe row alone.
   */
  SqeHashJoin sharingBuild() {
    return new SqeHashJoin(getTraitSet(), left, right, condition, joinType, leftKeys, rightKeys, residual, filterKey, slot, true);
  }

  /**
   * This join with its build keys published to a scan of its left input, when it drops the left
   * rows no build row matches (INNER, SEMI) and a key's left column comes straight from a scan's
   * column that takes a dynamic filter (through filters and column selections); else itself.
   */
  SqeHashJoin withDynamicFilter() {
    if (joinType != JoinRelType.INNER && joinType != JoinRelType.SEMI) {
      return this;
    }
    for (int k = 0; k < leftKeys.length; k++) {
      // Named by the column, not the node's id: a plan's text must not change from one planning to the next.
      DynamicFilters.Slot keys = new DynamicFilters.Slot("join keys " + getRowType().getFieldNames().get(leftKeys[k]));
      RelNode filtered = JoinLowering.readingKeys(left, leftKeys[k], keys);
      if (filtered != null) {
        return new SqeHashJoin(getTraitSet(), filtered, right, condition, joinType, leftKeys, rightKeys, residual, k, keys, sharedBuild);
      }
    }
    return this;
  }

  @Override
  public org.apache.calcite.rel.RelWriter explainTerms(org.apache.calcite.rel.RelWriter pw) {
    return super.explainTerms(pw).itemIf("dynamicFilter", slot, slot != null).itemIf("sharedBuild", true, sharedBuild);
  }

  /**
   * The hash join of {@code left} and {@code right} on {@code condition}, or null when it has no
   * equality keys, a key pair of different or unsupported types, or other conditions the evaluator
   * cannot run.
   */
  static SqeHashJoin of(RelTraitSet traits, SqeRel left, SqeRel right, RexNode condition, JoinRelType joinType) {
    if (JoinLowering.type(joinType) == null) {
      return null;
    }
    JoinInfo info = JoinInfo.createWithStrictEquality(left, right, condition);
    if (info.leftKeys.isEmpty()) {
      return null;
    }
    Schema leftSchema = left.batchSchema();
    Schema rightSchema = right.batchSchema();
    for (int k = 0; k < info.leftKeys.size(); k++) {
      ArrowType leftType = leftSchema.getFields().get(info.leftKeys.get(k)).getType();
      ArrowType rightType = rightSchema.getFields().get(info.rightKeys.get(k)).getType();
      if (!leftType.equals(rightType) || !KEY_TYPES.contains(leftType.getTypeID())) {
        return null;
      }
    }
    Predicate residual = null;
    if (!info.nonEquiConditions.isEmpty()) {
      RexNode remaining = RexUtil.composeConjunction(left.getCluster().getRexBuilder(), info.nonEquiConditions);
      residual = JoinLowering.condition(remaining, left, right);
      if (residual == null) {
        return null;
      }
    }
    return new SqeHashJoin(traits, left, right, condition, joinType, info.leftKeys.toIntArray(), info.rightKeys.toIntArray(), residual, null, null, false);
  }

  @Override
  public SqeHashJoin copy(RelTraitSet traitSet, RexNode condition, RelNode left, RelNode right, JoinRelType joinType, boolean semiJoinDone) {
    return new SqeHashJoin(traitSet, left, right, condition, joinType, leftKeys, rightKeys, residual, filterKey, slot, sharedBuild);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan probe = SqeRel.implement(left);
    BatchPlan build = SqeRel.implement(right);
    JoinType type = JoinLowering.type(joinType);
    int[] probeKeys = leftKeys;
    int[] buildKeys = rightKeys;
    Predicate condition = residual;
    Schema probeSchema = ((SqeRel) left).batchSchema();
    Schema buildSchema = ((SqeRel) right).batchSchema();
    Schema output = batchSchema();
    DynamicFilters.Slot keys = slot;
    KeyPublication publication = slot == null
        ? null
        : new KeyPublication(filterKey, (context, values, count, min, max) -> DynamicFilters.publish(context, keys, values, count, min, max));
    if (sharedBuild) {
      // One per plan: the key under which an execution's parts find the build side they share.
      Object key = new Object();
      return (context, allocator) -> new HashJoinBatches(
          () -> probe.open(context, allocator),
          () -> build.open(context, allocator),
          JoinLowering.<HashBuild>sharedBuild(context, key),
          probeKeys,
          buildKeys,
          type,
          condition,
          publication,
          probeSchema,
          buildSchema,
          output,
          context,
          allocator);
    }
    return (context, allocator) -> new HashJoinBatches(
        () -> probe.open(context, allocator),
        build.open(context, allocator),
        probeKeys,
        buildKeys,
        type,
        condition,
        publication,
        probeSchema,
        buildSchema,
        output,
        context,
        allocator);
  }
}
