package io.sqe.engine.plan.physical;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.exec.expr.RowComparator;
import io.sqe.engine.exec.window.WindowFrame;
import io.sqe.engine.exec.window.WindowFunction;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.adapter.enumerable.EnumerableWindow;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexWindowBound;
import org.apache.calcite.rex.RexWindowExclusion;

/**
 * The columnar form of a window: per window group, a sort of its input by the group's PARTITION BY
 * then ORDER BY keys ({@link SqeSort}, which spills) under a {@link SqeWindow} that appends the
 * group's values; the groups one above the other, in order, which is the order of their columns
 * in Calcite's window. Null when a group has a function, frame or type these operators do not
 * compute (RANGE frames with offsets, EXCLUDE, DISTINCT or IGNORE NULLS, PERCENT_RANK and
 * CUME_DIST, which the row runtime has no window implementation of either): the plan then keeps
 * the row runtime.
 */
final class WindowLowering {
  private WindowLowering() {}

  static SqeRel lower(EnumerableWindow window, SqeRel input) {
    int inputCount = window.getInput().getRowType().getFieldCount();
    List<RelDataType> outputTypes = new ArrayList<>();
    window.getRowType().getFieldList().forEach(field -> outputTypes.add(field.getType()));
    RelTraitSet traits = window.getTraitSet().replace(SqeRel.CONVENTION).replace(RelCollations.EMPTY);
    List<Field> outputs = CalciteTypeMapping.toArrowSchema(window.getRowType()).getFields();
    SqeRel current = input;
    int width = inputCount;
    for (Window.Group group : window.groups) {
      if (group.exclude != RexWindowExclusion.EXCLUDE_NO_OTHER) {
        return null;
      }
      WindowFrame frame = frame(window, group, inputCount);
      if (frame == null) {
        return null;
      }
      List<WindowFunction> functions = new ArrayList<>();
      for (Window.RexWinAggCall call : group.aggCalls) {
        WindowFunction function = function(window, call, inputCount, input.batchSchema().getFields(), outputs.get(width + functions.size()));
        if (function == null) {
          return null;
        }
        functions.add(function);
      }
      List<RelFieldCollation> sortKeys = new ArrayList<>();
      List<RowComparator.Key> partitionKeys = new ArrayList<>();
      for (int key : group.keys) {
        sortKeys.add(new RelFieldCollation(key));
        partitionKeys.add(new RowComparator.Key(key, false, false));
      }
      List<RelFieldCollation> orderKeys = new ArrayList<>();
      for (RelFieldCollation key : group.orderKeys.getFieldCollations()) {
        if (!group.keys.get(key.getFieldIndex())) {
          sortKeys.add(key);
          orderKeys.add(key);
        }
      }
      RelCollation sortCollation = RelCollations.of(sortKeys);
      if (!SortLowering.orderable(input, sortCollation)) {
        return null;
      }
      SqeRel sorted = sortKeys.isEmpty() ? current : SqeSort.of(traits, current, sortCollation);
      if (sorted == null) {
        return null;
      }
      width += functions.size();
      RelDataType rowType = window.getCluster().getTypeFactory().createStructType(
          outputTypes.subList(0, width), window.getRowType().getFieldNames().subList(0, width));
      current = new SqeWindow(
          traits,
          sorted,
          group,
          new RowComparator(partitionKeys),
          SortLowering.comparator(RelCollations.of(orderKeys)),
          frame,
          functions,
          rowType);
    }
    return current;
  }

  private static WindowFrame frame(Window window, Window.Group group, int inputCount) {
    RexWindowBound lower = group.lowerBound;
    RexWindowBound upper = group.upperBound;
    if (lower.isUnbounded() && lower.isFollowing() || upper.isUnbounded() && upper.isPreceding()) {
      return null;
    }
    WindowFrame.Bound from = bound(window, lower, group.isRows, inputCount);
    WindowFrame.Bound to = bound(window, upper, group.isRows, inputCount);
    return from == null || to == null ? null : new WindowFrame(group.isRows, from, to);
  }

  private static WindowFrame.Bound bound(Window window, RexWindowBound bound, boolean rows, int inputCount) {
    if (bound.isUnbounded()) {
      return WindowFrame.Bound.UNBOUNDED;
    }
    if (bound.isCurrentRow()) {
      return WindowFrame.Bound.CURRENT_ROW;
    }
    Long offset = rows ? integer(window, bound.getOffset(), inputCount) : null;
    if (offset == null || offset < 0) {
      return null;
    }
    return WindowFrame.Bound.offset(bound.isPreceding() ? -offset : offset);
  }

  private static WindowFunction function(Window window, Window.RexWinAggCall call, int inputCount, List<Field> inputs, Field output) {
    if (call.distinct || call.ignoreNulls) {
      return null;
    }
    List<RexNode> operands = call.getOperands();
    int argument = operands.isEmpty() ? -1 : column(operands.get(0), inputCount);
    Field input = argument < 0 ? null : inputs.get(argument);
    switch (call.getKind()) {
      case ROW_NUMBER, RANK, DENSE_RANK -> {
        return operands.isEmpty() && integer(output) ? WindowFunction.of(kind(call), -1, output) : null;
      }
      case NTILE -> {
        Long tiles = integer(window, operands.get(0), inputCount);
        return tiles != null && tiles > 0 && integer(output) ? new WindowFunction(WindowFunction.Kind.NTILE, -1, tiles, -1, null, output) : null;
      }
      case COUNT -> {
        if (operands.isEmpty()) {
          return integer(output) ? WindowFunction.of(WindowFunction.Kind.COUNT_STAR, -1, output) : null;
        }
        return operands.size() == 1 && argument >= 0 && integer(output) ? WindowFunction.of(WindowFunction.Kind.COUNT, argument, output) : null;
      }
      case SUM0 -> {
        if (operands.size() != 1 || argument < 0) {
          return null;
        }
        ArrowType.ArrowTypeID in = input.getType().getTypeID();
        boolean sums = in == ArrowType.ArrowTypeID.Int && integer(output)
            || in == ArrowType.ArrowTypeID.FloatingPoint && output.getType().getTypeID() == in
            || in == ArrowType.ArrowTypeID.Decimal && output.getType().getTypeID() == in;
        return sums ? WindowFunction.of(WindowFunction.Kind.SUM0, argument, output) : null;
      }
      case MIN, MAX -> {
        return operands.size() == 1 && argument >= 0 && copies(input, output) && orderable(window, argument)
            ? WindowFunction.of(kind(call), argument, output)
            : null;
      }
      case FIRST_VALUE, LAST_VALUE -> {
        return operands.size() == 1 && argument >= 0 && copies(input, output) ? WindowFunction.of(kind(call), argument, output) : null;
      }
      case NTH_VALUE -> {
        Long n = operands.size() == 2 ? integer(window, operands.get(1), inputCount) : null;
        return argument >= 0 && n != null && n > 0 && copies(input, output)
            ? new WindowFunction(WindowFunction.Kind.NTH_VALUE, argument, n, -1, null, output)
            : null;
      }
      case LAG, LEAD -> {
        if (argument < 0 || !copies(input, output)) {
          return null;
        }
        Long offset = operands.size() > 1 ? integer(window, operands.get(1), inputCount) : Long.valueOf(1);
        if (offset == null) {
          return null;
        }
        if (operands.size() < 3) {
          return new WindowFunction(kind(call), argument, offset, -1, null, output);
        }
        int defaultColumn = column(operands.get(2), inputCount);
        if (defaultColumn >= 0) {
          return copies(inputs.get(defaultColumn), output) ? new WindowFunction(kind(call), argument, offset, defaultColumn, null, output) : null;
        }
        Optional<Object> constant = ColumnarLowering.constant(constant(window, operands.get(2), inputCount));
        if (constant.isEmpty()) {
          return null;
        }
        Object value = constant.get() == ColumnarLowering.NULL ? null : constant.get();
        return WindowFunction.writes(output, value) ? new WindowFunction(kind(call), argument, offset, -1, value, output) : null;
      }
      default -> {
        return null;
      }
    }
  }

  private static WindowFunction.Kind kind(Window.RexWinAggCall call) {
    return WindowFunction.Kind.valueOf(call.getKind().name());
  }

  /** The input column {@code operand} is, or -1 for a constant. */
  private static int column(RexNode operand, int inputCount) {
    return operand instanceof RexInputRef ref && ref.getIndex() < inputCount ? ref.getIndex() : -1;
  }

  /** A literal, or the window's constant an input reference past its input's columns stands for. */
  private static RexNode constant(Window window, RexNode operand, int inputCount) {
    if (operand instanceof RexInputRef ref && ref.getIndex() >= inputCount) {
      return window.constants.get(ref.getIndex() - inputCount);
    }
    return operand;
  }

  private static Long integer(Window window, RexNode operand, int inputCount) {
    if (constant(window, operand, inputCount) instanceof RexLiteral literal && !literal.isNull()
        && literal.getType().getSqlTypeName().getFamily() == org.apache.calcite.sql.type.SqlTypeFamily.NUMERIC) {
      java.math.BigDecimal value = literal.getValueAs(java.math.BigDecimal.class);
      return value != null && value.scale() <= 0 ? Long.valueOf(value.longValueExact()) : null;
    }
    return null;
  }

  private static boolean integer(Field output) {
    return output.getType().getTypeID() == ArrowType.ArrowTypeID.Int;
  }

  /** Whether values of {@code input} copy as they are into a column of {@code output}. */
  private static boolean copies(Field input, Field output) {
    return input.getType().equals(output.getType()) && input.getChildren().isEmpty();
  }

  private static boolean orderable(Window window, int column) {
    return SortLowering.orderable(window.getInput(), RelCollations.of(column));
  }
}
