package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.expr.Predicates;
import io.sqe.engine.exec.join.JoinType;
import io.sqe.engine.exec.join.SharedBuild;
import io.sqe.engine.exec.parallel.ScanPart;
import io.sqe.engine.iceberg.DynamicFilters;
import io.sqe.engine.plan.SharedInput;
import java.util.List;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.EnumerableHashJoin;
import org.apache.calcite.adapter.enumerable.EnumerableNestedLoopJoin;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.validate.SqlValidatorUtil;

/**
 * The columnar form of a finished plan's joins, over inputs that lower: a hash join (SQE's build-right
 * join or Calcite's) on keys of the same type whose other conditions the evaluator runs ({@link
 * SqeHashJoin}; over a parallel pipeline's {@link SharedInput}, one build side all parts probe),
 * a nested-loop join whose condition it runs ({@link SqeNestedLoopJoin}, sharing its build side
 * the same way).
 */
final class JoinLowering {
  /** A dynamic filter is wired only when the build side is estimated at most this share of the probe side. */
  private static final double MAX_BUILD_SHARE = 0.5;

  private JoinLowering() {}

  /** The columnar form of {@code rel} when it is a join that has one, else null. */
  static SqeRel lower(RelNode rel) {
    if (!(rel instanceof EnumerableHashJoin || rel instanceof EnumerableNestedLoopJoin)) {
      return null;
    }
    Join join = (Join) rel;
    Inputs inputs = inputs(join);
    if (inputs == null) {
      return null;
    }
    RelTraitSet traits = join.getTraitSet().replace(SqeRel.CONVENTION);
    if (join instanceof EnumerableHashJoin) {
      SqeHashJoin hash = SqeHashJoin.of(traits, inputs.left(), inputs.right(), join.getCondition(), join.getJoinType());
      if (hash == null) {
        return null;
      }
      if (inputs.sharedBuild()) {
        hash = hash.sharingBuild();
      }
      RelMetadataQuery mq = join.getCluster().getMetadataQuery();
      Double probeRows = mq.getRowCount(join.getLeft());
      Double buildRows = mq.getRowCount(join.getRight());
      // As the row runtime's joins: filtering the probe side by a build side about as large would drop little.
      boolean filters = probeRows != null && buildRows != null && buildRows <= probeRows * MAX_BUILD_SHARE;
      return filters ? hash.withDynamicFilter() : hash;
    }
    SqeNestedLoopJoin loop = SqeNestedLoopJoin.of(traits, inputs.left(), inputs.right(), join.getCondition(), join.getJoinType());
    return loop != null && inputs.sharedBuild() ? loop.sharingBuild() : loop;
  }

  /** A join's inputs in their columnar form, and whether the parts of a parallel pipeline share its build side. */
  private record Inputs(SqeRel left, SqeRel right, boolean sharedBuild) {}

  /** {@code join}'s inputs lowered, or null when the join or an input has no columnar form. */
  private static Inputs inputs(Join join) {
    JoinType type = type(join.getJoinType());
    if (!join.getVariablesSet().isEmpty() || type == null) {
      return null;
    }
    // A parallel pipeline's build side, read once and probed by every part: each part decides its own
    // probe rows, so a join that returns unmatched build rows cannot share one.
    boolean shared = join.getRight() instanceof SharedInput;
    if (shared && type.returnsUnmatchedBuildRows()) {
      return null;
    }
    SqeRel left = ColumnarLowering.lower(join.getLeft());
    SqeRel right = left == null ? null : ColumnarLowering.lower(shared ? ((SharedInput) join.getRight()).getInput() : join.getRight());
    return right == null ? null : new Inputs(left, right, shared);
  }

  /**
   * The build side that the parts of the parallel pipeline {@code context} runs in share under
   * {@code key}, made by the first part to ask; outside a parallel pipeline, one of its own.
   */
  static <B extends AutoCloseable> SharedBuild<B> sharedBuild(DataContext context, Object key) {
    ScanPart part = ScanPart.of(context);
    return part == null ? new SharedBuild<>(1) : part.shared(key, () -> new SharedBuild<B>(part.parts()));
  }

  /**
   * {@code probe} with the scan that column {@code column} comes from reading the keys a join
   * publishes in {@code slot}, through filters and column selections; null when there is none.
   */
  static RelNode readingKeys(RelNode probe, int column, DynamicFilters.Slot slot) {
    if (probe instanceof SqeTableScan scan) {
      return scan.withDynamicFilter(column, slot);
    }
    if (probe instanceof SqeFilter filter) {
      RelNode input = readingKeys(filter.getInput(), column, slot);
      return input == null ? null : filter.copy(filter.getTraitSet(), List.of(input));
    }
    if (probe instanceof SqeProject project && project.inputColumn(column) >= 0) {
      RelNode input = readingKeys(project.getInput(), project.inputColumn(column), slot);
      return input == null ? null : project.copy(project.getTraitSet(), List.of(input));
    }
    if (probe instanceof SqePolicyBoundary boundary) {
      // Reached only through a column the policy passes as it is (a masked one is an expression):
      // the scan then drops rows whose key no build row has, which cannot fail or reveal a value.
      RelNode input = readingKeys(boundary.getInput(), column, slot);
      return input == null ? null : boundary.copy(boundary.getTraitSet(), List.of(input));
    }
    return null;
  }

  /** The executor's join type for {@code type}, or null for one it does not run. */
  static JoinType type(JoinRelType type) {
    return switch (type) {
      case INNER -> JoinType.INNER;
      case LEFT -> JoinType.LEFT;
      case RIGHT -> JoinType.RIGHT;
      case FULL -> JoinType.FULL;
      case SEMI -> JoinType.SEMI;
      case ANTI -> JoinType.ANTI;
      default -> null;
    };
  }

  /**
   * The row type of a left row's columns followed by a right row's, which a join's condition reads:
   * a record with unique field names (not the type factory's cross type, whose fields Calcite's
   * code generator, and so row-wise code, cannot read).
   */
  static RelDataType pairType(RelNode left, RelNode right) {
    return SqlValidatorUtil.createJoinType(left.getCluster().getTypeFactory(), left.getRowType(), right.getRowType(), null, List.of());
  }

  /**
   * A join's condition over a probe row's columns followed by a build row's, saying which columns
   * it reads, so that the join copies only those of each candidate pair; null when the evaluator
   * cannot run it.
   */
  static Predicate condition(RexNode condition, RelNode left, RelNode right) {
    Predicate predicate = SqeFilter.predicate(condition, pairType(left, right), left.getCluster().getRexBuilder());
    return predicate == null ? null : Predicates.reading(predicate, RelOptUtil.InputFinder.bits(condition).toArray());
  }
}
