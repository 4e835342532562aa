package io.sqe.engine.plan;

import io.sqe.engine.iceberg.IcebergTableScan;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.adapter.enumerable.EnumerableAggregate;
import org.apache.calcite.adapter.enumerable.EnumerableCalc;
import org.apache.calcite.adapter.enumerable.EnumerableFilter;
import org.apache.calcite.adapter.enumerable.EnumerableHashJoin;
import org.apache.calcite.adapter.enumerable.EnumerableNestedLoopJoin;
import org.apache.calcite.adapter.enumerable.EnumerableProject;
import org.apache.calcite.plan.RelOptLattice;
import org.apache.calcite.plan.RelOptMaterialization;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.InvalidRelException;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.Program;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Splits an aggregate over a large scan into parts that run in parallel: {@code
 * Aggregate(Calc/Filter/Project*(IcebergTableScan))} becomes {@code
 * FinalAggregate(ParallelGather(PartialAggregate(Calc/Filter/Project*(partitioned scan))))}. The
 * chain may pass through the probe (left) side of hash and nested-loop joins (inner, left, semi,
 * anti; TPC-H Q16's NOT IN is a nested-loop join over a count), whose build
 * side is then read once per execution and shared by the parts ({@link SharedInput}), by parallel
 * parts of its own when it is such a chain over a large scan too. Each part
 * aggregates the rows of the files it claims; the final aggregate combines the parts' groups:
 * SUM and SUM0 by SUM and SUM0, COUNT by SUM0, MIN and MIN, MAX and MAX, each with the original
 * call's type, so results (decimal sums included) are exactly what one thread computes. Grouping
 * sets split too, the parts' rows tagged with their set ({@link #splitGroupingSets}). Aggregates
 * with DISTINCT, ordered or other calls, a scan with a LIMIT, correlated
 * expressions, or a scan estimated below {@link PlannerOptions#parallelMinRows()} rows are left alone.
 * AVG arrives here already reduced to SUM / COUNT by Calcite's {@code AggregateReduceFunctionsRule}.
 *
 * <p>Outside such a split, a hash join's build side that is such a chain over a large scan is
 * gathered from parallel parts: when the probe side is too small to split (TPC-H Q5's customers
 * probing the join of lineitem and orders), the build side is where the work is.
 *
 * <p>Runs after cost-based planning, on the physical plan, so the plan's shape and costs are what
 * they would be without it.
 */
final class ParallelAggregates implements Program {
  static final ParallelAggregates INSTANCE = new ParallelAggregates();

  private ParallelAggregates() {}

  @Override
  public RelNode run(
      RelOptPlanner planner,
      RelNode rel,
      RelTraitSet requiredOutputTraits,
      List<RelOptMaterialization> materializations,
      List<RelOptLattice> lattices) {
    PlannerOptions options = PlannerOptions.of(planner);
    if (!options.parallel()) {
      return rel;
    }
    return rewrite(rel, options);
  }

  /** {@code rel} with its aggregates split. Top-down, so that the largest pipeline is split, not one of its inputs. */
  private static RelNode rewrite(RelNode rel, PlannerOptions options) {
    if (rel instanceof EnumerableAggregate) {
      RelNode split = split((EnumerableAggregate) rel, options);
      if (split != null) {
        return split;
      }
    }
    List<RelNode> inputs = new ArrayList<>();
    for (int i = 0; i < rel.getInputs().size(); i++) {
      RelNode input = rel.getInputs().get(i);
      // A hash join's build side (its right input) is gathered from parts as a shared one is.
      inputs.add(rel instanceof EnumerableHashJoin && i == 1 ? parallelBuild(input, options) : rewrite(input, options));
    }
    return withInputs(rel, inputs);
  }

  private static RelNode withInputs(RelNode rel, List<RelNode> inputs) {
    return inputs.equals(rel.getInputs()) ? rel : rel.copy(rel.getTraitSet(), inputs);
  }

  /** The aggregate as partial and final aggregates over parallel parts, or null to keep it. */
  private static RelNode split(EnumerableAggregate aggregate, PlannerOptions options) {
    if (aggregate.getGroupType() != EnumerableAggregate.Group.SIMPLE) {
      return splitGroupingSets(aggregate, options);
    }
    List<AggregateCall> finalCalls = combiningCalls(aggregate);
    if (finalCalls == null) {
      return null;
    }
    RelNode pipeline = partitioned(aggregate.getInput(), options);
    if (pipeline == null) {
      return null;
    }
    try {
      EnumerableAggregate partial =
          new EnumerableAggregate(
              aggregate.getCluster(), aggregate.getTraitSet(), pipeline, aggregate.getGroupSet(), null, aggregate.getAggCallList());
      ParallelGather gather = new ParallelGather(aggregate.getCluster(), partial.getTraitSet(), partial, options.parallelism());
      return combining(aggregate, gather, finalCalls);
    } catch (InvalidRelException e) {
      return null;
    }
  }

  /**
   * An aggregate with grouping sets as parts that each compute every set, their rows tagged with
   * GROUPING of every key (which tells a set's NULL key from a NULL in the data); an aggregate that
   * combines the parts' rows by keys and tag (GROUPING values, the same in a group, by MIN); and a
   * Calc that drops the tag. Null to keep the aggregate.
   */
  private static RelNode splitGroupingSets(EnumerableAggregate aggregate, PlannerOptions options) {
    int keys = aggregate.getGroupCount();
    List<AggregateCall> calls = aggregate.getAggCallList();
    List<AggregateCall> finalCalls = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      AggregateCall call = calls.get(i);
      SqlAggFunction combine = switch (call.getAggregation().getKind()) {
        case GROUPING, GROUPING_ID, GROUP_ID -> SqlStdOperatorTable.MIN;
        default -> combiner(call);
      };
      if (combine == null) {
        return null;
      }
      finalCalls.add(
          AggregateCall.create(
              combine, false, false, false, List.of(), List.of(keys + i), -1, null, RelCollations.EMPTY, call.getType(), call.getName()));
    }
    RelNode pipeline = partitioned(aggregate.getInput(), options);
    if (pipeline == null) {
      return null;
    }
    RexBuilder rexBuilder = aggregate.getCluster().getRexBuilder();
    List<AggregateCall> partialCalls = new ArrayList<>(calls);
    partialCalls.add(
        AggregateCall.create(
            SqlStdOperatorTable.GROUPING, false, false, false, List.of(), aggregate.getGroupSet().asList(), -1, null,
            RelCollations.EMPTY, rexBuilder.getTypeFactory().createSqlType(SqlTypeName.BIGINT), "$grouping"));
    try {
      EnumerableAggregate partial =
          new EnumerableAggregate(
              aggregate.getCluster(), aggregate.getTraitSet(), pipeline, aggregate.getGroupSet(), aggregate.getGroupSets(), partialCalls);
      ParallelGather gather = new ParallelGather(aggregate.getCluster(), partial.getTraitSet(), partial, options.parallelism());
      int tag = keys + calls.size();
      EnumerableAggregate combined =
          new EnumerableAggregate(
              aggregate.getCluster(), aggregate.getTraitSet(), gather, ImmutableBitSet.range(keys).set(tag), null, finalCalls);
      // combined: the keys, the tag, then the calls.
      List<RexNode> projects = new ArrayList<>();
      for (int j = 0; j < keys; j++) {
        projects.add(rexBuilder.makeInputRef(combined, j));
      }
      for (int i = 0; i < calls.size(); i++) {
        projects.add(rexBuilder.makeInputRef(combined, keys + 1 + i));
      }
      EnumerableCalc dropTag = EnumerableCalc.create(
          combined, RexProgram.create(combined.getRowType(), projects, null, aggregate.getRowType(), rexBuilder));
      return RelOptUtil.areRowTypesEqual(dropTag.getRowType(), aggregate.getRowType(), false) ? dropTag : null;
    } catch (InvalidRelException e) {
      return null;
    }
  }

  /**
   * The calls that combine partial results of {@code aggregate}'s calls, the partial value of call
   * {@code i} being field {@code groups + i} of a partial row (its group keys first), each with
   * the original call's type; null when a call cannot be computed in parts.
   */
  static List<AggregateCall> combiningCalls(Aggregate aggregate) {
    int groups = aggregate.getGroupCount();
    List<AggregateCall> combining = new ArrayList<>();
    List<AggregateCall> calls = aggregate.getAggCallList();
    for (int i = 0; i < calls.size(); i++) {
      AggregateCall call = calls.get(i);
      SqlAggFunction combine = combiner(call);
      if (combine == null) {
        return null;
      }
      combining.add(
          AggregateCall.create(
              combine, false, false, false, List.of(), List.of(groups + i), -1, null,
              RelCollations.EMPTY, call.getType(), call.getName()));
    }
    return combining;
  }

  /**
   * The aggregate that combines {@code partials} (partial rows of {@code aggregate}: its group keys,
   * then one value per call) with {@code combiningCalls} into {@code aggregate}'s rows, or null when
   * its row type would differ from {@code aggregate}'s.
   */
  static EnumerableAggregate combining(EnumerableAggregate aggregate, RelNode partials, List<AggregateCall> combiningCalls)
      throws InvalidRelException {
    EnumerableAggregate combined =
        new EnumerableAggregate(
            aggregate.getCluster(), aggregate.getTraitSet(), partials, ImmutableBitSet.range(aggregate.getGroupCount()), null, combiningCalls);
    return RelOptUtil.areRowTypesEqual(combined.getRowType(), aggregate.getRowType(), false) ? combined : null;
  }

  /** The function that combines the parts' values of {@code call}, or null when it cannot be split. */
  private static SqlAggFunction combiner(AggregateCall call) {
    if (call.isDistinct() || call.isApproximate() || !call.getCollation().getFieldCollations().isEmpty()
        || !call.rexList.isEmpty()) {
      return null;
    }
    switch (call.getAggregation().getKind()) {
      case SUM:
        return SqlStdOperatorTable.SUM;
      case SUM0:
      case COUNT:
        return SqlStdOperatorTable.SUM0;
      case MIN:
        return SqlStdOperatorTable.MIN;
      case MAX:
        return SqlStdOperatorTable.MAX;
      default:
        return null;
    }
  }

  /**
   * {@code rel} with its scan partitioned, if it is a chain of calcs, filters, projects and policy
   * boundaries over a large enough Iceberg scan without a limit; otherwise null.
   */
  private static RelNode partitioned(RelNode rel, PlannerOptions options) {
    if (rel instanceof IcebergTableScan) {
      IcebergTableScan scan = (IcebergTableScan) rel;
      if (scan.limit() != null || scan.isPartitioned()
          || scan.estimateRowCount(scan.getCluster().getMetadataQuery()) < options.parallelMinRows()) {
        return null;
      }
      return scan.partitioned();
    }
    if (rel instanceof EnumerableHashJoin || rel instanceof EnumerableNestedLoopJoin) {
      return probeSide((Join) rel, options);
    }
    if (!(rel instanceof EnumerableCalc || rel instanceof EnumerableFilter || rel instanceof EnumerableProject
        || rel instanceof PolicyBoundary.Enumerable)) {
      return null;
    }
    if (correlated(rel)) {
      return null;
    }
    RelNode input = partitioned(rel.getInput(0), options);
    return input == null ? null : rel.copy(rel.getTraitSet(), List.of(input));
  }

  /**
   * A hash or nested-loop join whose probe (left) side is split into parts and whose build (right)
   * side is read once and shared; only for joins where each probe row's result depends on that row
   * alone (not RIGHT or FULL, which also return the build rows no probe row matched).
   */
  private static RelNode probeSide(Join join, PlannerOptions options) {
    JoinRelType type = join.getJoinType();
    if (!(type == JoinRelType.INNER || type == JoinRelType.LEFT || type == JoinRelType.SEMI || type == JoinRelType.ANTI)
        || !join.getVariablesSet().isEmpty()
        || RexUtil.containsCorrelation(join.getCondition())) {
      return null;
    }
    RelNode probe = partitioned(join.getLeft(), options);
    if (probe == null) {
      return null;
    }
    RelNode build = new SharedInput(join.getCluster(), join.getRight().getTraitSet(), parallelBuild(join.getRight(), options));
    return join.copy(join.getTraitSet(), List.of(probe, build));
  }

  /**
   * A hash join's build side that is itself a pipeline over a large scan, gathered from parallel
   * parts of its own: under a split probe side, the part that reads the shared build side would
   * otherwise scan it alone while the other parts wait for it; under an unsplit one, it would be
   * read on one thread. Otherwise the build side with its own aggregates split.
   */
  private static RelNode parallelBuild(RelNode build, PlannerOptions options) {
    RelNode split = partitioned(build, options);
    if (split == null) {
      return rewrite(build, options);
    }
    return new ParallelGather(build.getCluster(), build.getTraitSet(), split, options.parallelism());
  }

  private static boolean correlated(RelNode rel) {
    List<RexNode> expressions = new ArrayList<>();
    if (rel instanceof EnumerableCalc) {
      RexProgram program = ((EnumerableCalc) rel).getProgram();
      expressions.addAll(program.getExprList());
    } else if (rel instanceof EnumerableFilter) {
      expressions.add(((EnumerableFilter) rel).getCondition());
    } else if (rel instanceof EnumerableProject) {
      expressions.addAll(((EnumerableProject) rel).getProjects());
    }
    for (RexNode expression : expressions) {
      if (RexUtil.containsCorrelation(expression)) {
        return true;
      }
    }
    return false;
  }
}
