package io.sqe.engine.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.adapter.enumerable.EnumerableAggregateBase;
import org.apache.calcite.adapter.enumerable.EnumerableCalc;
import org.apache.calcite.adapter.enumerable.EnumerableCorrelate;
import org.apache.calcite.adapter.enumerable.EnumerableHashJoin;
import org.apache.calcite.adapter.enumerable.EnumerableProject;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptLattice;
import org.apache.calcite.plan.RelOptMaterialization;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.Program;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Sideways information passing for hash joins whose large input is built or aggregated in full
 * although few of its rows can meet the other input: the large input is first reduced by a hash
 * semi-join with the small input's join keys (a "magic set"). It runs on the physical plan Volcano
 * chose, so the join order and the build sides are known.
 *
 * <ul>
 *   <li>A semi- or anti-join always builds its right input. When the left input's keys are few,
 *       the right input is reduced to the rows whose keys occur on the left: {@code L ⋉ R = L ⋉ (R
 *       ⋉ L)}, and the same for ▷ (a left row has a match in {@code R} exactly when it has one
 *       among the rows of {@code R} whose equi-join keys occur in {@code L}). TPC-H Q4 builds a
 *       set of the lineitems of 57 thousand orders instead of all 1.5 million.
 *   <li>Under an inner join, or on the non-preserved side of an outer join, the reduction goes as
 *       deep as the keys can be followed: through projections, into the input of an aggregate
 *       grouped by them (a decorrelated scalar sub-query such as {@code l_quantity < (select
 *       avg(l_quantity) from lineitem where l_partkey = p_partkey)}: groups are formed from whole
 *       input rows, so dropping the rows of a group that cannot join drops exactly that group), and
 *       into the input of a join they come from, and across that join's equalities into its other
 *       input. TPC-H Q17 aggregates lineitem for about 200 parts instead of 200,000; Q2 computes
 *       the minimum supply cost only for the parts that pass its filter.
 * </ul>
 *
 * <p>Only plain equalities between columns of the two inputs are used (they reject NULL keys, as
 * the semi-join does). The small input is evaluated a second time, so it must be deterministic and
 * cost less than the input it reduces, and its distinct keys must be at most a quarter of those of
 * the reduced input (from the Iceberg column bounds, see {@link JoinCardinality}): a semi-join with
 * an unfiltered dimension table would only add work.
 */
final class SemiJoinReduction implements Program {
  /**
   * How many times more distinct keys the reduced input must have than the input whose keys reduce
   * it: the semi-join must drop at least three quarters of its rows to pay for itself.
   */
  static final double MIN_KEY_RATIO = 4;

  @Override
  public RelNode run(
      RelOptPlanner planner,
      RelNode rel,
      RelTraitSet requiredOutputTraits,
      List<RelOptMaterialization> materializations,
      List<RelOptLattice> lattices) {
    return rewrite(rel, rel.getCluster().getMetadataQuery());
  }

  private static RelNode rewrite(RelNode rel, RelMetadataQuery mq) {
    List<RelNode> inputs = new ArrayList<>(rel.getInputs().size());
    boolean changed = false;
    for (RelNode input : rel.getInputs()) {
      RelNode rewritten = rewrite(input, mq);
      inputs.add(rewritten);
      changed |= rewritten != input;
    }
    if (changed) {
      rel = rel.copy(rel.getTraitSet(), inputs);
    }
    if (rel instanceof EnumerableHashJoin) {
      return reduce((EnumerableHashJoin) rel, mq);
    }
    return rel;
  }

  private static RelNode reduce(EnumerableHashJoin join, RelMetadataQuery mq) {
    List<int[]> pairs = equalities(join);
    if (pairs.isEmpty()) {
      return join;
    }
    int leftCount = join.getLeft().getRowType().getFieldCount();
    List<Integer> leftKeys = new ArrayList<>();
    List<Integer> rightKeys = new ArrayList<>();
    for (int[] pair : pairs) {
      leftKeys.add(pair[0]);
      rightKeys.add(pair[1] - leftCount);
    }
    RelNode left = join.getLeft();
    RelNode right = join.getRight();
    JoinRelType type = join.getJoinType();
    RelNode newLeft = left;
    RelNode newRight = right;
    switch (type) {
      case SEMI:
      case ANTI:
        // The join itself builds its right input in full.
        newRight = reduce(right, rightKeys, left, leftKeys, true, mq);
        break;
      case INNER:
        newRight = reduce(right, rightKeys, left, leftKeys, false, mq);
        newLeft = reduce(left, leftKeys, right, rightKeys, false, mq);
        break;
      case LEFT:
        newRight = reduce(right, rightKeys, left, leftKeys, false, mq);
        break;
      case RIGHT:
        newLeft = reduce(left, leftKeys, right, rightKeys, false, mq);
        break;
      default:
        break;
    }
    if (newLeft == left && newRight == right) {
      return join;
    }
    return join.copy(join.getTraitSet(), join.getCondition(), newLeft, newRight, type, join.isSemiJoinDone());
  }

  /**
   * {@code big} with the rows whose {@code bigKeys} do not occur among {@code small}'s {@code
   * smallKeys} removed where that saves work: the semi-join goes as deep as the keys can be
   * followed (through projections, to the input of an aggregate grouped by them, into the input of
   * a join they come from, and across the join's equalities into its other input), and is placed
   * only below some work ({@code belowWork}: an aggregate, a join or a build) that it reduces.
   */
  private static RelNode reduce(
      RelNode big, List<Integer> bigKeys, RelNode small, List<Integer> smallKeys, boolean belowWork, RelMetadataQuery mq) {
    if (big instanceof EnumerableCalc || big instanceof EnumerableProject) {
      List<Integer> keys = new ArrayList<>();
      for (int key : bigKeys) {
        RexNode expression = projected(big, key);
        if (!(expression instanceof RexInputRef)) {
          return place(big, bigKeys, small, smallKeys, belowWork, mq);
        }
        keys.add(((RexInputRef) expression).getIndex());
      }
      RelNode input = big.getInput(0);
      RelNode reduced = reduce(input, keys, small, smallKeys, belowWork, mq);
      return reduced == input ? big : big.copy(big.getTraitSet(), List.of(reduced));
    }
    if (big instanceof EnumerableAggregateBase) {
      Aggregate aggregate = (Aggregate) big;
      if (aggregate.getGroupType() != Aggregate.Group.SIMPLE || aggregate.getGroupCount() == 0) {
        return big;
      }
      List<Integer> keys = new ArrayList<>();
      for (int key : bigKeys) {
        if (key >= aggregate.getGroupCount()) {
          return place(big, bigKeys, small, smallKeys, belowWork, mq);
        }
        keys.add(aggregate.getGroupSet().nth(key));
      }
      RelNode input = aggregate.getInput();
      RelNode reduced = reduce(input, keys, small, smallKeys, true, mq);
      return reduced == input ? big : aggregate.copy(aggregate.getTraitSet(), List.of(reduced));
    }
    if (big instanceof EnumerableHashJoin) {
      Join join = (Join) big;
      RelNode reduced = reduceJoinInputs(join, bigKeys, small, smallKeys, mq);
      // Nothing placed in the join's inputs: above the join, where its output still feeds some work.
      return reduced != null && reduced != big ? reduced : place(big, bigKeys, small, smallKeys, belowWork, mq);
    }
    return place(big, bigKeys, small, smallKeys, belowWork, mq);
  }

  /**
   * The join with its inputs reduced when all of {@code keys} come from one input that may be
   * reduced (any input of an inner join, the preserved one of an outer join, the left of a
   * semi- or anti-join); the other input is reduced too where the join equates every key with one
   * of its columns. Null when the keys cannot be followed into the join.
   */
  private static RelNode reduceJoinInputs(
      Join join, List<Integer> keys, RelNode small, List<Integer> smallKeys, RelMetadataQuery mq) {
    int leftCount = join.getLeft().getRowType().getFieldCount();
    boolean allLeft = keys.stream().allMatch(k -> k < leftCount);
    boolean allRight = keys.stream().allMatch(k -> k >= leftCount);
    JoinRelType type = join.getJoinType();
    boolean leftReducible = type == JoinRelType.INNER || type == JoinRelType.LEFT || !type.projectsRight();
    boolean rightReducible = type == JoinRelType.INNER || type == JoinRelType.RIGHT;
    if (!(allLeft && leftReducible) && !(allRight && rightReducible)) {
      return null;
    }
    if (isSemiJoin(join)) {
      // A semi-join (the query's, or a reduction placed earlier) is left as it is.
      return null;
    }
    List<int[]> pairs = equalities(join);
    List<Integer> ownKeys = new ArrayList<>();
    List<Integer> otherKeys = new ArrayList<>();
    for (int key : keys) {
      ownKeys.add(allLeft ? key : key - leftCount);
      Integer other = null;
      for (int[] pair : pairs) {
        if (allLeft && pair[0] == key) {
          other = pair[1] - leftCount;
        } else if (allRight && pair[1] == key) {
          other = pair[0];
        }
      }
      otherKeys.add(other);
    }
    RelNode own = allLeft ? join.getLeft() : join.getRight();
    RelNode other = allLeft ? join.getRight() : join.getLeft();
    RelNode newOwn = reduce(own, ownKeys, small, smallKeys, reducesWork(join, allLeft, ownKeys, small, smallKeys, mq), mq);
    RelNode newOther = other;
    if (!otherKeys.contains(null)) {
      newOther = reduce(other, otherKeys, small, smallKeys, reducesWork(join, !allLeft, otherKeys, small, smallKeys, mq), mq);
    }
    if (newOwn == own && newOther == other) {
      return join;
    }
    RelNode newLeft = allLeft ? newOwn : newOther;
    RelNode newRight = allLeft ? newOther : newOwn;
    return join.copy(join.getTraitSet(), List.of(newLeft, newRight));
  }

  /**
   * Whether reducing the left (or right) input of {@code join} saves work in the join itself: its
   * build (right) input always does; its probe (left) input when the join probes a larger table
   * than the semi-join would, or when the semi-join keeps a smaller share of the probe rows than
   * the join does (TPC-H Q2's supply costs: the parts that pass the filter are 0.4% of the keys,
   * the suppliers of a region 20%), so that the join, which copies out the rows it matches, gets
   * the fewer rows. Otherwise the join is the cheaper filter of the two.
   */
  private static boolean reducesWork(
      Join join, boolean left, List<Integer> keys, RelNode small, List<Integer> smallKeys, RelMetadataQuery mq) {
    if (!left) {
      return true;
    }
    Double buildRows = mq.getRowCount(join.getRight());
    Double smallRows = mq.getRowCount(small);
    if (buildRows != null && smallRows != null && buildRows > smallRows) {
      return true;
    }
    Double joinRows = mq.getRowCount(join);
    Double probeRows = mq.getRowCount(join.getLeft());
    double semiKept = distinctKeys(small, smallKeys, mq) / distinctKeys(join.getLeft(), keys, mq);
    return joinRows != null && probeRows != null && probeRows > 0 && semiKept < joinRows / probeRows;
  }

  private static RelNode place(
      RelNode big, List<Integer> bigKeys, RelNode small, List<Integer> smallKeys, boolean belowWork, RelMetadataQuery mq) {
    return belowWork ? semiJoin(big, bigKeys, small, smallKeys, mq) : big;
  }

  /**
   * {@code big ⋉ small} on the given key columns, built on {@code small}; {@code big} when the
   * reduction would not pay or {@code small} cannot be evaluated twice.
   */
  private static RelNode semiJoin(
      RelNode big, List<Integer> bigKeys, RelNode small, List<Integer> smallKeys, RelMetadataQuery mq) {
    if (isSemiJoin(big) || !pays(big, bigKeys, small, smallKeys, mq) || !repeatable(small)) {
      return big;
    }
    RexBuilder rexBuilder = big.getCluster().getRexBuilder();
    int bigCount = big.getRowType().getFieldCount();
    List<RexNode> equalities = new ArrayList<>();
    for (int i = 0; i < bigKeys.size(); i++) {
      int bigKey = bigKeys.get(i);
      int smallKey = smallKeys.get(i);
      equalities.add(
          rexBuilder.makeCall(
              SqlStdOperatorTable.EQUALS,
              rexBuilder.makeInputRef(big.getRowType().getFieldList().get(bigKey).getType(), bigKey),
              rexBuilder.makeInputRef(small.getRowType().getFieldList().get(smallKey).getType(), bigCount + smallKey)));
    }
    return BuildRightHashJoin.of(big, small, RexUtil.composeConjunction(rexBuilder, equalities), Set.of(), JoinRelType.SEMI);
  }

  private static boolean isSemiJoin(RelNode rel) {
    return rel instanceof Join && ((Join) rel).getJoinType() == JoinRelType.SEMI;
  }

  /**
   * Whether {@code small}'s keys are few among the distinct keys of {@code big} (so the semi-join
   * drops most of its rows), and {@code small} costs less to compute again than {@code big}.
   */
  private static boolean pays(
      RelNode big, List<Integer> bigKeys, RelNode small, List<Integer> smallKeys, RelMetadataQuery mq) {
    double smallDistinct = distinctKeys(small, smallKeys, mq);
    double bigDistinct = distinctKeys(big, bigKeys, mq);
    if (Double.isNaN(smallDistinct) || Double.isNaN(bigDistinct) || smallDistinct * MIN_KEY_RATIO > bigDistinct) {
      return false;
    }
    RelOptCost bigCost = mq.getCumulativeCost(big);
    RelOptCost smallCost = mq.getCumulativeCost(small);
    return bigCost != null && smallCost != null && !bigCost.isInfinite() && smallCost.isLe(bigCost);
  }

  /**
   * The distinct combinations of {@code keys} in {@code rel}'s rows: from the Iceberg column
   * bounds of the tables they come from ({@link JoinCardinality#columnDistinctValues}), else
   * Calcite's estimate, and never more than the rows; NaN when unknown.
   */
  private static double distinctKeys(RelNode rel, List<Integer> keys, RelMetadataQuery mq) {
    Double rows = mq.getRowCount(rel);
    if (rows == null || rows.isInfinite()) {
      return Double.NaN;
    }
    double product = 1;
    for (int key : keys) {
      Double distinct = JoinCardinality.columnDistinctValues(rel, key);
      if (distinct == null) {
        Double estimate = mq.getDistinctRowCount(rel, ImmutableBitSet.of(keys), null);
        return estimate == null ? rows : Math.min(estimate, rows);
      }
      product *= distinct;
    }
    return Math.min(product, rows);
  }

  /** The expression that column {@code column} of a projection computes. */
  private static RexNode projected(RelNode rel, int column) {
    if (rel instanceof EnumerableCalc) {
      RexProgram program = ((EnumerableCalc) rel).getProgram();
      return program.expandLocalRef(program.getProjectList().get(column));
    }
    return ((EnumerableProject) rel).getProjects().get(column);
  }

  /** Equalities {@code left column = right column} among the conjuncts of a join's condition. */
  private static List<int[]> equalities(Join join) {
    int leftCount = join.getLeft().getRowType().getFieldCount();
    List<int[]> pairs = new ArrayList<>();
    for (RexNode conjunct : RelOptUtil.conjunctions(join.getCondition())) {
      if (conjunct.getKind() != SqlKind.EQUALS) {
        continue;
      }
      List<RexNode> operands = ((RexCall) conjunct).getOperands();
      if (!(operands.get(0) instanceof RexInputRef) || !(operands.get(1) instanceof RexInputRef)) {
        continue;
      }
      int a = ((RexInputRef) operands.get(0)).getIndex();
      int b = ((RexInputRef) operands.get(1)).getIndex();
      if (a < leftCount && b >= leftCount) {
        pairs.add(new int[] {a, b});
      } else if (b < leftCount && a >= leftCount) {
        pairs.add(new int[] {b, a});
      }
    }
    return pairs;
  }

  /** Whether evaluating {@code rel} twice in one query gives the same rows both times. */
  private static boolean repeatable(RelNode rel) {
    if (rel instanceof EnumerableCorrelate || !rel.getVariablesSet().isEmpty()) {
      return false;
    }
    if (!PlanInspection.repeatableExpressions(rel)) {
      return false;
    }
    for (RelNode input : rel.getInputs()) {
      if (!repeatable(input)) {
        return false;
      }
    }
    return true;
  }
}
