package io.sqe.engine.plan;

import io.sqe.engine.exec.join.LongKeyHashJoin;
import io.sqe.engine.iceberg.DynamicFilters;
import io.sqe.engine.iceberg.IcebergTableScan;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableHashJoin;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.function.Function0;
import org.apache.calcite.linq4j.function.Function1;
import org.apache.calcite.linq4j.tree.Types;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.DeclarationStatement;
import org.apache.calcite.linq4j.tree.FunctionExpression;
import org.apache.calcite.linq4j.tree.GotoStatement;
import org.apache.calcite.linq4j.tree.MethodCallExpression;
import org.apache.calcite.linq4j.tree.ParameterExpression;
import org.apache.calcite.linq4j.tree.Statement;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelCollationTraitDef;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Calc;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMdCollation;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.BuiltInMethod;

/**
 * Calcite's hash join with a cost that matches what it does. {@code EnumerableHashJoin} builds
 * its hash table from its right input and streams its left input past it, but its cost model
 * charges {@code n log n} for the left input, as if the left were the one to sort or build, so
 * the planner puts the small input on the left and builds the table from the big one (TPC-H Q5
 * built a table of all of lineitem). Here building costs more per row than probing, so the
 * planner, which may swap a join's inputs, puts the smaller input on the right.
 *
 * <p>An inner or semi join whose left input is an Iceberg scan under filters, projections and
 * aggregates grouped by the join key hands its build-side keys to that scan as a dynamic filter (see {@link DynamicFilters}).
 */
final class BuildRightHashJoin extends EnumerableHashJoin {
  /** How much more a row of the build (right) input costs than a row of the probe (left) input. */
  static final double BUILD_ROW_FACTOR = 3.0;
  /** A dynamic filter is published only when the build side is estimated at most this share of the probe side. */
  private static final double MAX_BUILD_SHARE = 0.5;
  /** The most keys a join packs into one long for {@link LongKeyHashJoin} (their ranges must fit 64 bits together). */
  private static final int MAX_PACKED_KEYS = 4;
  private static final Method LONG_KEY_HASH_JOIN = method("hashJoin");
  private static final Method LONG_KEY_SEMI_JOIN = method("semiJoin");

  private BuildRightHashJoin(
      RelOptCluster cluster,
      RelTraitSet traits,
      RelNode left,
      RelNode right,
      RexNode condition,
      Set<CorrelationId> variablesSet,
      JoinRelType joinType) {
    super(cluster, traits, left, right, condition, variablesSet, joinType);
  }

  private static Method method(String name) {
    for (Method method : LongKeyHashJoin.class.getMethods()) {
      if (method.getName().equals(name)) {
        return method;
      }
    }
    throw new IllegalStateException("No method " + name + " in " + LongKeyHashJoin.class);
  }

  static BuildRightHashJoin of(
      RelNode left, RelNode right, RexNode condition, Set<CorrelationId> variablesSet, JoinRelType joinType) {
    RelOptCluster cluster = left.getCluster();
    RelMetadataQuery mq = cluster.getMetadataQuery();
    RelTraitSet traitSet =
        cluster
            .traitSetOf(EnumerableConvention.INSTANCE)
            .replaceIfs(RelCollationTraitDef.INSTANCE, () -> RelMdCollation.enumerableHashJoin(mq, left, right, joinType));
    return new BuildRightHashJoin(cluster, traitSet, left, right, condition, variablesSet, joinType);
  }

  @Override
  public BuildRightHashJoin copy(
      RelTraitSet traitSet, RexNode condition, RelNode left, RelNode right, JoinRelType joinType, boolean semiJoinDone) {
    return new BuildRightHashJoin(getCluster(), traitSet, left, right, condition, variablesSet, joinType);
  }

  @Override
  public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    if (!(joinType == JoinRelType.INNER || joinType == JoinRelType.SEMI)
        || left instanceof DynamicFilterInput) {
      return implementJoin(implementor, pref);
    }
    RelMetadataQuery mq = getCluster().getMetadataQuery();
    Double leftRows = mq.getRowCount(left);
    Double rightRows = mq.getRowCount(right);
    if (leftRows == null || rightRows == null || rightRows > leftRows * MAX_BUILD_SHARE) {
      // Filtering the probe side by a build side about as large as it would drop little.
      return implementJoin(implementor, pref);
    }
    int leftCount = left.getRowType().getFieldCount();
    List<Integer> buildKeys = new ArrayList<>();
    List<DynamicFilters.Slot> slots = new ArrayList<>();
    List<IcebergTableScan> scans = new ArrayList<>();
    List<Integer> scanColumns = new ArrayList<>();
    for (RexNode conjunct : RelOptUtil.conjunctions(condition)) {
      if (conjunct.getKind() != SqlKind.EQUALS) {
        continue;
      }
      List<RexNode> operands = ((RexCall) conjunct).getOperands();
      if (!(operands.get(0) instanceof RexInputRef) || !(operands.get(1) instanceof RexInputRef)) {
        continue;
      }
      int a = ((RexInputRef) operands.get(0)).getIndex();
      int b = ((RexInputRef) operands.get(1)).getIndex();
      int probeKey = Math.min(a, b);
      int buildKey = Math.max(a, b) - leftCount;
      if (probeKey >= leftCount || buildKey < 0) {
        continue;
      }
      SqlTypeName probeType = left.getRowType().getFieldList().get(probeKey).getType().getSqlTypeName();
      SqlTypeName buildType = right.getRowType().getFieldList().get(buildKey).getType().getSqlTypeName();
      if (probeType != buildType || !(probeType == SqlTypeName.INTEGER || probeType == SqlTypeName.BIGINT || probeType == SqlTypeName.DATE)) {
        continue;
      }
      Optional<ScanColumn> target = scanColumn(left, probeKey);
      if (target.isEmpty() || !DynamicFilters.canFilter(target.get().scan, target.get().column)) {
        continue;
      }
      buildKeys.add(buildKey);
      slots.add(new DynamicFilters.Slot("join keys for " + target.get().scan.getTable().getQualifiedName() + " column " + target.get().column));
      scans.add(target.get().scan);
      scanColumns.add(target.get().column);
    }
    if (slots.isEmpty()) {
      return implementJoin(implementor, pref);
    }
    DynamicFilters.Publisher publisher = new DynamicFilters.Publisher(slots);
    BuildRightHashJoin publishing =
        copy(
            traitSet,
            condition,
            new DynamicFilterInput(left, publisher, null),
            new DynamicFilterInput(right, publisher, buildKeys),
            joinType,
            false);
    for (int i = 0; i < slots.size(); i++) {
      DynamicFilters.offer(scans.get(i), scanColumns.get(i), slots.get(i));
    }
    try {
      return publishing.implement(implementor, pref);
    } finally {
      for (DynamicFilters.Slot slot : slots) {
        DynamicFilters.withdraw(slot);
      }
    }
  }

  /**
   * Calcite's code for this join, with its call of Calcite's hash, semi or anti join runtime
   * replaced by a call of {@link LongKeyHashJoin} with the same arguments when every key is an
   * INTEGER, BIGINT or DATE on both sides.
   */
  private Result implementJoin(EnumerableRelImplementor implementor, Prefer pref) {
    Result result = super.implement(implementor, pref);
    if (!integerKeys()) {
      return result;
    }
    RelNode build = right instanceof DynamicFilterInput ? ((DynamicFilterInput) right).getInput() : right;
    // The parts of a parallel pipeline read the same rows from a shared build side: one table serves them all.
    Expression sharedKey = Expressions.constant(build instanceof SharedInput ? "sqe.joinTable." + getId() : null, String.class);
    List<Statement> statements = new ArrayList<>(result.block.statements);
    int last = statements.size() - 1;
    if (last < 0 || !(statements.get(last) instanceof GotoStatement)) {
      return result;
    }
    Expression returned = ((GotoStatement) statements.get(last)).expression;
    if (returned instanceof MethodCallExpression) {
      Expression call = longKeyCall((MethodCallExpression) returned, implementor.getRootExpression(), sharedKey);
      if (call == null) {
        return result;
      }
      statements.set(last, Expressions.return_(null, call));
    } else {
      int declaration = last - 1;
      while (declaration >= 0
          && !(statements.get(declaration) instanceof DeclarationStatement
              && ((DeclarationStatement) statements.get(declaration)).parameter == returned)) {
        declaration--;
      }
      if (declaration < 0 || !(((DeclarationStatement) statements.get(declaration)).initializer instanceof MethodCallExpression)) {
        return result;
      }
      DeclarationStatement declared = (DeclarationStatement) statements.get(declaration);
      Expression call = longKeyCall((MethodCallExpression) declared.initializer, implementor.getRootExpression(), sharedKey);
      if (call == null) {
        return result;
      }
      statements.set(declaration, Expressions.declare(declared.modifiers, declared.parameter, call));
    }
    return new Result(Expressions.block(statements), result.physType, result.format);
  }

  /** Whether the join has keys and every one is an INTEGER, BIGINT or DATE on both sides, of one type. */
  private boolean integerKeys() {
    if (joinInfo.leftKeys.isEmpty() || joinInfo.leftKeys.size() > MAX_PACKED_KEYS) {
      return false;
    }
    for (int i = 0; i < joinInfo.leftKeys.size(); i++) {
      SqlTypeName leftType = left.getRowType().getFieldList().get(joinInfo.leftKeys.get(i)).getType().getSqlTypeName();
      SqlTypeName rightType = right.getRowType().getFieldList().get(joinInfo.rightKeys.get(i)).getType().getSqlTypeName();
      if (leftType != rightType
          || !(leftType == SqlTypeName.INTEGER || leftType == SqlTypeName.BIGINT || leftType == SqlTypeName.DATE)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The call of {@link LongKeyHashJoin} in place of {@code call}, Calcite's hash, semi or anti join
   * call; null when {@code call} is none of them or its key selectors are not of the expected shape.
   */
  private Expression longKeyCall(MethodCallExpression call, Expression root, Expression sharedKey) {
    List<Expression> arguments = new ArrayList<>();
    Method target;
    if (call.method.equals(BuiltInMethod.HASH_JOIN.method) && call.targetExpression != null && call.expressions.size() == 8) {
      // left.hashJoin(right, leftKey, rightKey, resultSelector, comparer, nullsOnLeft, nullsOnRight, predicate)
      arguments.add(call.targetExpression);
      arguments.addAll(call.expressions);
      target = LONG_KEY_HASH_JOIN;
    } else if ((call.method.equals(BuiltInMethod.SEMI_JOIN.method) || call.method.equals(BuiltInMethod.ANTI_JOIN.method))
        && call.expressions.size() == 6) {
      // semiJoin(left, right, leftKey, rightKey, comparer, predicate)
      arguments.addAll(call.expressions);
      arguments.add(Expressions.constant(call.method.equals(BuiltInMethod.ANTI_JOIN.method)));
      target = LONG_KEY_SEMI_JOIN;
    } else {
      return null;
    }
    int keySelectors = call.targetExpression != null ? 1 : 2;
    Expression leftKeys = keyAccessors(call.expressions.get(keySelectors), joinInfo.leftKeys);
    Expression rightKeys = keyAccessors(call.expressions.get(keySelectors + 1), joinInfo.rightKeys);
    if (leftKeys == null || rightKeys == null) {
      return null;
    }
    arguments.add(root);
    arguments.add(sharedKey);
    arguments.add(leftKeys);
    arguments.add(rightKeys);
    return Expressions.call(target, arguments);
  }

  /**
   * An array of one accessor per key of a side, given that side's key selector: for {@code Object[]}
   * rows, the key's field as it is in the row (Calcite's selector would unbox a NOT NULL key and box
   * it again for every row, and build a list per row for several keys); for one key of another row
   * type, the selector itself. Null for several keys of other row types.
   */
  private static Expression keyAccessors(Expression selector, List<Integer> keys) {
    if (!(selector instanceof FunctionExpression)
        || ((FunctionExpression<?>) selector).parameterList.size() != 1
        || ((FunctionExpression<?>) selector).parameterList.get(0).getType() != Object[].class) {
      return keys.size() == 1 ? Expressions.newArrayInit(Function1.class, selector) : null;
    }
    List<Expression> accessors = new ArrayList<>();
    for (int key : keys) {
      ParameterExpression row = Expressions.parameter(Object[].class, "row");
      accessors.add(Expressions.lambda(Function1.class, Expressions.arrayIndex(row, Expressions.constant(key)), row));
    }
    return Expressions.newArrayInit(Function1.class, accessors);
  }

  /**
   * The scan column that field {@code field} of {@code node} passes through unchanged, past
   * filters, projections, grouping on it and parallel pipelines.
   */
  private static Optional<ScanColumn> scanColumn(RelNode node, int field) {
    RelNode current = node;
    int index = field;
    while (true) {
      if (current instanceof IcebergTableScan) {
        IcebergTableScan scan = (IcebergTableScan) current;
        return Optional.of(new ScanColumn(scan, index));
      }
      if (current instanceof Filter) {
        current = ((Filter) current).getInput();
      } else if (current instanceof ParallelGather) {
        // The parts' rows, as they are: the keys reach the split scan in every part.
        current = ((ParallelGather) current).getInput();
      } else if (current instanceof Project) {
        RexNode expression = ((Project) current).getProjects().get(index);
        if (!(expression instanceof RexInputRef)) {
          return Optional.empty();
        }
        index = ((RexInputRef) expression).getIndex();
        current = ((Project) current).getInput();
      } else if (current instanceof Aggregate
          && ((Aggregate) current).getGroupType() == Aggregate.Group.SIMPLE
          && index < ((Aggregate) current).getGroupCount()) {
        // A group key: dropping the input rows of a key the join cannot match drops only that key's group.
        index = ((Aggregate) current).getGroupSet().nth(index);
        current = ((Aggregate) current).getInput();
      } else if (current instanceof Calc) {
        Calc calc = (Calc) current;
        RexNode expression = calc.getProgram().expandLocalRef(calc.getProgram().getProjectList().get(index));
        if (!(expression instanceof RexInputRef)) {
          return Optional.empty();
        }
        index = ((RexInputRef) expression).getIndex();
        current = calc.getInput();
      } else {
        return Optional.empty();
      }
    }
  }

  private record ScanColumn(IcebergTableScan scan, int column) {}

  /**
   * One input of a join that publishes dynamic filters, as it runs: the build side collects and
   * publishes its keys ({@code buildKeys} set), the probe side opens only after that.
   */
  static final class DynamicFilterInput extends SingleRel implements EnumerableRel {
    private static final Method PROBE = Types.lookupMethod(DynamicFilters.Publisher.class, "probe", Function0.class, DataContext.class);
    private static final Method BUILD =
        Types.lookupMethod(DynamicFilters.Publisher.class, "build", Enumerable.class, DataContext.class, Function1[].class);

    private final DynamicFilters.Publisher publisher;
    private final List<Integer> buildKeys;

    DynamicFilterInput(RelNode input, DynamicFilters.Publisher publisher, List<Integer> buildKeys) {
      super(input.getCluster(), input.getTraitSet(), input);
      this.publisher = publisher;
      this.buildKeys = buildKeys;
    }

    @Override
    public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
      Result child = implementor.visitChild(this, 0, (EnumerableRel) getInput(), pref);
      BlockBuilder builder = new BlockBuilder();
      Expression stashed = implementor.stash(publisher, DynamicFilters.Publisher.class);
      Expression wrapped;
      if (buildKeys == null) {
        // The probe's code runs only when the join opens it: parts of it (an aggregate) read their
        // input as soon as their code runs, which must come after the build side is read.
        wrapped = Expressions.call(stashed, PROBE, Expressions.lambda(Function0.class, child.block), implementor.getRootExpression());
      } else {
        Expression input = builder.append("dynamicFilterInput", child.block);
        List<Expression> accessors = new ArrayList<>();
        for (int key : buildKeys) {
          accessors.add(child.physType.generateAccessor(List.of(key)));
        }
        wrapped =
            Expressions.call(
                stashed, BUILD, input, implementor.getRootExpression(), Expressions.newArrayInit(Function1.class, accessors));
      }
      builder.add(Expressions.return_(null, wrapped));
      return implementor.result(child.physType, builder.toBlock());
    }
  }

  @Override
  public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    if (isSemiJoin()) {
      // Builds a set of the right input's keys; Calcite's cost (which favours semi-joins) stands.
      return super.computeSelfCost(planner, mq);
    }
    double rightRows = mq.getRowCount(right);
    double leftRows = mq.getRowCount(left);
    double rows = mq.getRowCount(this);
    if (Double.isInfinite(leftRows) || Double.isInfinite(rightRows)) {
      return planner.getCostFactory().makeInfiniteCost();
    }
    double cost = rows + leftRows + BUILD_ROW_FACTOR * rightRows;
    return planner.getCostFactory().makeCost(cost, 0, 0);
  }
}
