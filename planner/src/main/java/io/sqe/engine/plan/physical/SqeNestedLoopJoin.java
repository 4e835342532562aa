package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.NestedLoopJoinBatches;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.join.BuildSide;
import io.sqe.engine.exec.join.JoinType;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexNode;

/**
 * A join without equality keys over batches ({@link NestedLoopJoinBatches}): the right input is
 * the build side, held whole under the query's memory limit. Inside a parallel pipeline its build
 * side may be shared: read once per execution by the first part to need it and paired with every
 * part's probe rows ({@code sharedBuild} in EXPLAIN).
 */
public final class SqeNestedLoopJoin extends Join implements SqeRel {
  /** The condition as the evaluator runs it over a left row's columns and a right row's; null when always true. */
  private final Predicate predicate;
  private final boolean sharedBuild;

  private SqeNestedLoopJoin(
      RelTraitSet traits, RelNode left, RelNode right, RexNode condition, JoinRelType joinType, Predicate predicate, boolean sharedBuild) {
    super(left.getCluster(), traits, java.util.List.of(), left, right, condition, Set.of(), joinType);
    this.predicate = predicate;
    this.sharedBuild = sharedBuild;
  }

  /** The join of {@code left} and {@code right} on {@code condition}, or null when the evaluator cannot run the condition. */
  static SqeNestedLoopJoin of(RelTraitSet traits, SqeRel left, SqeRel right, RexNode condition, JoinRelType joinType) {
    if (JoinLowering.type(joinType) == null) {
      return null;
    }
    Predicate predicate = null;
    if (!condition.isAlwaysTrue()) {
      predicate = JoinLowering.condition(condition, left, right);
      if (predicate == null) {
        return null;
      }
    }
    return new SqeNestedLoopJoin(traits, left, right, condition, joinType, predicate, false);
  }

  /** This join with its build side shared by the parts of the parallel pipeline it runs in. */
  SqeNestedLoopJoin sharingBuild() {
    return new SqeNestedLoopJoin(getTraitSet(), left, right, condition, joinType, predicate, true);
  }

  @Override
  public SqeNestedLoopJoin copy(RelTraitSet traitSet, RexNode condition, RelNode left, RelNode right, JoinRelType joinType, boolean semiJoinDone) {
    return new SqeNestedLoopJoin(traitSet, left, right, condition, joinType, predicate, sharedBuild);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).itemIf("sharedBuild", true, sharedBuild);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan probe = SqeRel.implement(left);
    BatchPlan build = SqeRel.implement(right);
    JoinType type = JoinLowering.type(joinType);
    Predicate condition = predicate;
    Schema probeSchema = ((SqeRel) left).batchSchema();
    Schema buildSchema = ((SqeRel) right).batchSchema();
    Schema output = batchSchema();
    if (sharedBuild) {
      // One per plan: the key under which an execution's parts find the build side they share.
      Object key = new Object();
      return (context, allocator) -> new NestedLoopJoinBatches(
          () -> probe.open(context, allocator),
          () -> build.open(context, allocator),
          JoinLowering.<BuildSide>sharedBuild(context, key),
          type,
          condition,
          probeSchema,
          buildSchema,
          output,
          context,
          allocator);
    }
    return (context, allocator) -> new NestedLoopJoinBatches(
        () -> probe.open(context, allocator), build.open(context, allocator), type, condition, probeSchema, buildSchema, output, context, allocator);
  }
}
