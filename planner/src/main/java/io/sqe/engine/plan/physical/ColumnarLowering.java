package io.sqe.engine.plan.physical;

import io.sqe.engine.iceberg.IcebergTableScan;
import io.sqe.engine.plan.ParallelGather;
import io.sqe.engine.plan.PolicyBoundary;
import io.sqe.engine.plan.SharedSubplan;
import io.sqe.engine.exec.batch.SelectColumns;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.adapter.enumerable.EnumerableAggregate;
import org.apache.calcite.adapter.enumerable.EnumerableCalc;
import org.apache.calcite.adapter.enumerable.EnumerableLimit;
import org.apache.calcite.adapter.enumerable.EnumerableLimitSort;
import org.apache.calcite.adapter.enumerable.EnumerableSort;
import org.apache.calcite.adapter.enumerable.EnumerableWindow;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexLocalRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Replaces a finished Enumerable plan by SQE's columnar operators when they implement every node of
 * it: today a scan of an Iceberg table's columns, a filter whose condition the columnar evaluator
 * runs ({@link PredicateCompiler}), a projection of columns, constants and expressions it computes
 * ({@link ExpressionCompiler}), INTERSECT, EXCEPT and UNION ({@link SqeSetOperation}), OFFSET and FETCH, and ORDER BY: a top-N under a bounded FETCH ({@link SqeTopN}),
 * else a sort that spills ({@link SqeSort}); window functions over a sort per window group
 * ({@link WindowLowering}); which is what {@code
 * SELECT *}-style exports are. Such a result goes from the Parquet decoder to
 * the client as Arrow batches, with no Java object per value. Any other plan runs on Calcite's
 * Enumerable runtime as before, and EXPLAIN shows which: {@code Sqe...} nodes or {@code
 * Enumerable...} ones.
 *
 * <p>Policies hold in a columnar plan as in a row one: where a policy's row filter and masks end is
 * a node of its own in both ({@link SqePolicyBoundary}), above which the optimizer kept every
 * operator of the statement.
 */
public final class ColumnarLowering {
  private ColumnarLowering() {}

  /** The columnar form of {@code rel}, or null when a node of it has none yet. */
  public static SqeRel lower(RelNode rel) {
    if (rel instanceof IcebergTableScan scan) {
      // A write target's data file and row position columns included: the vectorized reader
      // produces them, and a file it does not read (one with delete files) is read as rows.
      return scan.getRowType().getFieldCount() == 0 ? rowsOnly(scan) : SqeTableScan.of(scan);
    }
    if (rel instanceof EnumerableCalc calc) {
      return project(calc);
    }
    if (rel instanceof EnumerableAggregate aggregate) {
      return AggregateLowering.lower(aggregate);
    }
    if (rel instanceof SharedSubplan shared) {
      SqeRel input = lower(shared.getInput());
      return input == null
          ? null
          : new SqeSharedSubplan(shared.getTraitSet().replace(SqeRel.CONVENTION), input, shared.ordinal(), shared.key(), shared.maxRows());
    }
    if (rel instanceof PolicyBoundary.Enumerable boundary) {
      SqeRel input = lower(boundary.getInput());
      return input == null ? null : new SqePolicyBoundary(boundary.getTraitSet().replace(SqeRel.CONVENTION), input);
    }
    if (rel instanceof ParallelGather gather) {
      SqeRel input = lower(gather.getInput());
      return input == null ? null : new SqeGather(gather.getTraitSet().replace(SqeRel.CONVENTION), input, gather.parts());
    }
    if (rel instanceof org.apache.calcite.rel.core.Join) {
      return JoinLowering.lower(rel);
    }
    if (rel instanceof EnumerableLimitSort sort) {
      return topN(sort, sort.getInput(), sort.getCollation(), sort.offset, sort.fetch);
    }
    if (rel instanceof EnumerableLimit limit && limit.getInput() instanceof EnumerableSort sort && sort.fetch == null && sort.offset == null) {
      return topN(limit, sort.getInput(), sort.getCollation(), limit.offset, limit.fetch);
    }
    if (rel instanceof EnumerableSort sort) {
      return topN(sort, sort.getInput(), sort.getCollation(), sort.offset, sort.fetch);
    }
    if (rel instanceof EnumerableWindow window) {
      SqeRel input = lower(window.getInput());
      return input == null ? null : WindowLowering.lower(window, input);
    }
    if (rel instanceof EnumerableLimit limit) {
      Long offset = limit.offset == null ? Long.valueOf(0) : literal(limit.offset);
      Long fetch = limit.fetch == null ? Long.valueOf(-1) : literal(limit.fetch);
      SqeRel input = offset == null || fetch == null ? null : lower(limit.getInput());
      return input == null ? null : new SqeLimit(limit.getTraitSet().replace(SqeRel.CONVENTION), input, offset, fetch);
    }
    if (rel instanceof org.apache.calcite.rel.core.SetOp setOp && !(setOp instanceof org.apache.calcite.rel.core.Union && setOp.all)) {
      return SqeSetOperation.of(setOp);
    }
    return SourceLowering.lower(rel);
  }

  /**
   * A scan of no column (what COUNT(*) reads): batches carry their row count in their vectors, so
   * the scan reads the table's first column and a projection of no column drops it, keeping the
   * count.
   */
  private static SqeRel rowsOnly(IcebergTableScan scan) {
    SqeTableScan oneColumn = SqeTableScan.of(scan.withProjection(org.apache.calcite.util.ImmutableIntList.of(0)));
    return oneColumn == null
        ? null
        : SqeProject.ofColumns(oneColumn.getTraitSet(), oneColumn, List.of(), new int[0], new Object[0], scan.getRowType());
  }

  /** ORDER BY with literal OFFSET and FETCH (if any) over a plan that lowers ({@link SortLowering}). */
  private static SqeRel topN(RelNode rel, RelNode inputRel, org.apache.calcite.rel.RelCollation collation, RexNode offsetNode, RexNode fetchNode) {
    Long offset = offsetNode == null ? Long.valueOf(0) : literal(offsetNode);
    Long fetch = fetchNode == null ? Long.valueOf(-1) : literal(fetchNode);
    if (offset == null || fetch == null) {
      return null;
    }
    SqeRel input = lower(inputRel);
    return input == null ? null : SortLowering.orderBy(rel.getTraitSet().replace(SqeRel.CONVENTION), input, collation, offset, fetch);
  }

  /**
   * A Calc whose condition (if it has one) the evaluator runs and whose projections are columns,
   * constants, or expressions the evaluator computes, over a plan that lowers.
   */
  private static SqeRel project(EnumerableCalc calc) {
    RexProgram program = calc.getProgram();
    List<RexNode> projects = new java.util.ArrayList<>();
    for (RexLocalRef project : program.getProjectList()) {
      projects.add(program.expandLocalRef(project));
    }
    int[] columns = new int[projects.size()];
    Object[] constants = new Object[projects.size()];
    boolean computed = false;
    boolean identity = projects.size() == calc.getInput().getRowType().getFieldCount();
    for (int i = 0; i < columns.length; i++) {
      RexNode expression = projects.get(i);
      if (expression instanceof RexInputRef ref) {
        columns[i] = ref.getIndex();
      } else {
        Optional<Object> constant = constant(expression);
        computed |= constant.isEmpty();
        columns[i] = SelectColumns.CONSTANT;
        constants[i] = constant.isEmpty() || constant.get() == NULL ? null : constant.get();
      }
      identity &= columns[i] == i;
    }
    SqeRel input = lower(calc.getInput());
    if (input == null) {
      return null;
    }
    RelTraitSet traits = calc.getTraitSet().replace(SqeRel.CONVENTION);
    if (program.getCondition() != null) {
      input = SqeFilter.of(traits, input, program.expandLocalRef(program.getCondition()));
      if (input == null) {
        return null;
      }
    }
    if (identity) {
      return input;
    }
    return computed
        ? CommonExpressions.project(traits, input, projects, calc.getRowType())
        : SqeProject.ofColumns(traits, input, projects, columns, constants, calc.getRowType());
  }

  /** Stands for a null constant in {@link #constant}. */
  static final Object NULL = new Object();

  /**
   * A constant's value in the engine's run-time representation ({@link NULL} for null), for the
   * types whose representation is plain: text, booleans, integers, decimals, floating point and
   * dates; empty for any other expression.
   */
  static Optional<Object> constant(RexNode expression) {
    RexNode node = expression;
    if (node instanceof RexCall call
        && call.getKind() == SqlKind.CAST
        && call.getType().getSqlTypeName() == SqlTypeName.VARCHAR
        && call.getOperands().get(0) instanceof RexLiteral inner
        && SqlTypeName.CHAR_TYPES.contains(inner.getType().getSqlTypeName())) {
      node = inner;
    }
    if (!(node instanceof RexLiteral literal)) {
      return Optional.empty();
    }
    if (literal.isNull()) {
      return Optional.of(NULL);
    }
    Object value = switch (literal.getType().getSqlTypeName()) {
      case CHAR, VARCHAR -> literal.getValueAs(String.class);
      case BOOLEAN -> literal.getValueAs(Boolean.class);
      case TINYINT, SMALLINT, INTEGER, BIGINT -> literal.getValueAs(Long.class);
      case DECIMAL -> literal.getValueAs(java.math.BigDecimal.class);
      case REAL, FLOAT, DOUBLE -> literal.getValueAs(Double.class);
      case DATE -> literal.getValueAs(Integer.class);
      default -> null;
    };
    return Optional.ofNullable(value);
  }

  private static Long literal(RexNode node) {
    if (node instanceof RexLiteral literal) {
      Number value = literal.getValueAs(Long.class);
      return value == null ? null : value.longValue();
    }
    return null;
  }
}
