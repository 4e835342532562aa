package io.sqe.engine.plan.physical;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import io.sqe.engine.exec.expr.Comparison;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.expr.Predicates;
import io.sqe.engine.exec.expr.TextSlice;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUnknownAs;
import io.sqe.engine.sql.functions.LikePattern;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.Sarg;

/**
 * Compiles a condition over a plan's columns into the columnar evaluator's {@link Predicate}, or
 * says it cannot (null), in which case the plan keeps Calcite's row runtime. It takes what it can
 * evaluate exactly as the row runtime does: comparisons, ranges and sets (SEARCH) of integer,
 * date, decimal (up to 18 digits), floating-point and text columns against constants of the same
 * scale or against columns of the same kind, comparisons by value of integer and decimal columns
 * of any scales up to 38 digits, null tests, boolean columns, AND and OR.
 */
final class PredicateCompiler {
  /** How the evaluator reads a column's values: see {@code ColumnValues}. */
  private enum Kind {
    LONG,
    DOUBLE,
    BYTES
  }

  /**
   * A column as the evaluator reads it: its position, kind, for decimals the scale of its unscaled
   * longs, and for {@code SUBSTRING} of a text column with constant bounds the slice it reads.
   */
  private record Column(int index, Kind kind, int scale, RelDataType type, TextSlice slice) {
    Column(int index, Kind kind, int scale, RelDataType type) {
      this(index, kind, scale, type, null);
    }
  }

  private final RelDataType rowType;
  /** Whether comparisons may take a parameter, whose predicate an execution binds ({@link Predicate#bind}). */
  private final boolean parameters;

  private PredicateCompiler(RelDataType rowType, boolean parameters) {
    this.rowType = rowType;
    this.parameters = parameters;
  }

  /**
   * {@code condition} over rows of {@code rowType} as a predicate, or null when the evaluator cannot
   * run it exactly. Comparisons with a parameter ({@code ?}) make a predicate to bind per execution.
   */
  static Predicate compile(RexNode condition, RelDataType rowType) {
    return new PredicateCompiler(rowType, true).predicate(condition);
  }

  /** As {@link #compile}, for a predicate used as it is, without binding: no parameters. */
  static Predicate compileWithoutParameters(RexNode condition, RelDataType rowType) {
    return new PredicateCompiler(rowType, false).predicate(condition);
  }

  private Predicate predicate(RexNode node) {
    if (node instanceof RexInputRef ref && ref.getType().getSqlTypeName() == SqlTypeName.BOOLEAN) {
      return Predicates.booleanColumn(ref.getIndex(), true);
    }
    if (!(node instanceof RexCall call)) {
      return null;
    }
    switch (call.getKind()) {
      case AND:
      case OR: {
        List<Predicate> operands = new ArrayList<>();
        for (RexNode operand : call.getOperands()) {
          Predicate predicate = predicate(operand);
          if (predicate == null) {
            return null;
          }
          operands.add(predicate);
        }
        return call.getKind() == SqlKind.AND ? Predicates.and(operands) : Predicates.or(operands);
      }
      case NOT: {
        RexNode operand = call.getOperands().get(0);
        if (operand.getKind() == SqlKind.LIKE) {
          return like((RexCall) operand, true);
        }
        return operand instanceof RexInputRef ref && ref.getType().getSqlTypeName() == SqlTypeName.BOOLEAN
            ? Predicates.booleanColumn(ref.getIndex(), false)
            : null;
      }
      case LIKE:
        return like(call, false);
      case IS_NULL:
      case IS_NOT_NULL: {
        RexNode operand = call.getOperands().get(0);
        return operand instanceof RexInputRef ref ? Predicates.isNull(ref.getIndex(), call.getKind() == SqlKind.IS_NULL) : null;
      }
      case EQUALS:
        return comparison(call, Comparison.EQUAL);
      case NOT_EQUALS:
        return comparison(call, Comparison.NOT_EQUAL);
      case LESS_THAN:
        return comparison(call, Comparison.LESS);
      case LESS_THAN_OR_EQUAL:
        return comparison(call, Comparison.LESS_OR_EQUAL);
      case GREATER_THAN:
        return comparison(call, Comparison.GREATER);
      case GREATER_THAN_OR_EQUAL:
        return comparison(call, Comparison.GREATER_OR_EQUAL);
      case SEARCH:
        return search(call);
      default:
        return null;
    }
  }

  private Predicate comparison(RexCall call, Comparison op) {
    RexNode left = call.getOperands().get(0);
    RexNode right = call.getOperands().get(1);
    Column a = column(left);
    Column b = column(right);
    if (a == null || b == null || a.kind() != b.kind() || a.scale() != b.scale()) {
      ExactColumn x = exactColumn(left);
      ExactColumn y = exactColumn(right);
      if (x != null && y != null) {
        return Predicates.compareExactColumns(x.index(), x.scale(), op, y.index(), y.scale());
      }
      if (a == null && x != null && right instanceof RexLiteral literal) {
        return compareExactConstant(x, op, literal);
      }
      if (b == null && y != null && left instanceof RexLiteral literal) {
        return compareExactConstant(y, op.flipped(), literal);
      }
    }
    if (a != null && b != null) {
      if (a.kind() != b.kind() || a.scale() != b.scale() || a.slice() != null || b.slice() != null) {
        return null;
      }
      return switch (a.kind()) {
        case LONG -> Predicates.compareLongColumns(a.index(), op, b.index());
        case DOUBLE -> Predicates.compareDoubleColumns(a.index(), op, b.index());
        case BYTES -> Predicates.compareBytesColumns(a.index(), op, b.index());
      };
    }
    if (a == null && b != null && left instanceof RexLiteral) {
      return compareConstant(b, op.flipped(), (RexLiteral) left);
    }
    if (a != null && right instanceof RexLiteral literal) {
      return compareConstant(a, op, literal);
    }
    if (a == null && b != null && left instanceof RexDynamicParam param) {
      return compareParameter(b, op.flipped(), param);
    }
    if (a != null && right instanceof RexDynamicParam param) {
      return compareParameter(a, op, param);
    }
    return null;
  }

  /**
   * A column compared with a parameter of a type whose values compare with the column's as the
   * row runtime compares them (integers and decimals with integer and decimal columns, any number
   * with floating-point ones, text with text): the comparison is made when an execution binds it.
   */
  private Predicate compareParameter(Column column, Comparison op, RexDynamicParam param) {
    SqlTypeName type = param.getType().getSqlTypeName();
    boolean compatible = switch (column.kind()) {
      case LONG -> column.type().getSqlTypeName() == SqlTypeName.DATE
          ? type == SqlTypeName.DATE
          : SqlTypeName.EXACT_TYPES.contains(type);
      case DOUBLE -> SqlTypeName.NUMERIC_TYPES.contains(type);
      case BYTES -> SqlTypeName.CHAR_TYPES.contains(type);
    };
    if (!parameters || !compatible) {
      return null;
    }
    return Predicates.parameter("?" + param.getIndex(), value -> {
      Predicate predicate = compareValue(column, op, value);
      if (predicate == null) {
        throw new IllegalStateException("Parameter ?" + param.getIndex() + " of " + param.getType() + " holds " + value.getClass().getSimpleName());
      }
      return predicate;
    });
  }

  private static Predicate compareConstant(Column column, Comparison op, RexLiteral literal) {
    if (literal.isNull()) {
      return null;
    }
    return compareValue(column, op, literal.getValueAs(Comparable.class));
  }

  /** A column compared with a constant value (a literal's, or a parameter's in the engine's run-time representation). */
  private static Predicate compareValue(Column column, Comparison op, Object value) {
    switch (column.kind()) {
      case LONG:
        return compareLong(column, op, value);
      case DOUBLE: {
        Double v = doubleValue(value);
        return v == null ? null : Predicates.compareDouble(column.index(), op, v);
      }
      default: {
        byte[] v = bytesValue(value);
        if (v == null) {
          return null;
        }
        return Predicates.compareBytes(column.index(), column.slice(), op, v);
      }
    }
  }

  /**
   * A column of unscaled longs compared with a constant that may have more decimal places than the
   * column (a decimal column cast to a finer scale) or lie beyond its range: the comparison becomes
   * one with the constant rounded inwards, or keeps no row or every non-null row.
   */
  private static Predicate compareLong(Column column, Comparison op, Object value) {
    BigDecimal decimal = decimal(value);
    if (decimal == null) {
      return null;
    }
    switch (op) {
      case EQUAL:
      case NOT_EQUAL: {
        Long exact = longValue(decimal, column);
        if (exact != null) {
          return Predicates.compareLong(column.index(), op, exact);
        }
        return op == Comparison.EQUAL ? Predicates.none() : Predicates.isNull(column.index(), false);
      }
      case LESS:
      case LESS_OR_EQUAL: {
        BigInteger high = inward(decimal, column.scale(), false, op == Comparison.LESS);
        if (high.compareTo(LONG_MAX) > 0) {
          return Predicates.isNull(column.index(), false);
        }
        return high.compareTo(LONG_MIN) < 0 ? Predicates.none() : Predicates.compareLong(column.index(), Comparison.LESS_OR_EQUAL, high.longValue());
      }
      default: {
        BigInteger low = inward(decimal, column.scale(), true, op == Comparison.GREATER);
        if (low.compareTo(LONG_MIN) < 0) {
          return Predicates.isNull(column.index(), false);
        }
        return low.compareTo(LONG_MAX) > 0 ? Predicates.none() : Predicates.compareLong(column.index(), Comparison.GREATER_OR_EQUAL, low.longValue());
      }
    }
  }

  /**
   * An exact-number column the evaluator reads as 128 bits (a decimal past 18 digits: a sum's
   * DECIMAL(38, s)) compared with a constant: an equality with the constant at the column's scale
   * (none when it has more digits after the point), an order with the constant rounded inwards to
   * an inclusive bound; null for a null or inexact constant, which the row runtime compares.
   */
  private static Predicate compareExactConstant(ExactColumn column, Comparison op, RexLiteral literal) {
    if (literal.isNull()) {
      return null;
    }
    BigDecimal decimal = decimal(literal.getValueAs(Comparable.class));
    if (decimal == null) {
      return null;
    }
    int scale = column.scale();
    switch (op) {
      case EQUAL:
      case NOT_EQUAL: {
        BigInteger exact;
        try {
          exact = decimal.setScale(scale, RoundingMode.UNNECESSARY).unscaledValue();
        } catch (ArithmeticException e) {
          return op == Comparison.EQUAL ? Predicates.none() : Predicates.isNull(column.index(), false);
        }
        return Predicates.compareExactConstant(column.index(), op, exact);
      }
      case LESS:
      case LESS_OR_EQUAL:
        return Predicates.compareExactConstant(
            column.index(), Comparison.LESS_OR_EQUAL, inward(decimal, scale, false, op == Comparison.LESS));
      default:
        return Predicates.compareExactConstant(
            column.index(), Comparison.GREATER_OR_EQUAL, inward(decimal, scale, true, op == Comparison.GREATER));
    }
  }

  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);

  /**
   * A bound as an inclusive unscaled value of {@code scale}: an exclusive lower bound {@code > x}
   * is {@code >= x + 1 ulp}, an exclusive upper bound {@code < x} is {@code <= x - 1 ulp}, and a
   * bound between two values of the scale is rounded inwards.
   */
  private static BigInteger inward(BigDecimal value, int scale, boolean lower, boolean open) {
    BigDecimal scaled = value.setScale(scale, lower ? RoundingMode.CEILING : RoundingMode.FLOOR);
    BigInteger unscaled = scaled.unscaledValue();
    if (open && scaled.compareTo(value) == 0) {
      unscaled = lower ? unscaled.add(BigInteger.ONE) : unscaled.subtract(BigInteger.ONE);
    }
    return unscaled;
  }

  /**
   * {@code column [NOT] LIKE 'pattern' [ESCAPE 'e']} on a text column, matched as SQE's LIKE
   * function matches (ILIKE and the other operators of LIKE's kind are left to the row runtime).
   * It binds to the execution's checkpoint, so only where predicates are bound.
   */
  private Predicate like(RexCall call, boolean negated) {
    boolean not = negated;
    if (call.getOperator() == SqlStdOperatorTable.NOT_LIKE) {
      not = !not;
    } else if (call.getOperator() != SqlStdOperatorTable.LIKE) {
      return null;
    }
    List<RexNode> operands = call.getOperands();
    Column column = column(operands.get(0));
    String pattern = text(operands.get(1));
    String escape = operands.size() == 3 ? text(operands.get(2)) : null;
    if (!parameters || column == null || column.kind() != Kind.BYTES || column.slice() != null || pattern == null || (operands.size() == 3 && escape == null)) {
      return null;
    }
    LikePattern compiled;
    try {
      compiled = LikePattern.compile(pattern, escape, false);
    } catch (RuntimeException e) {
      // An invalid pattern: the row runtime reports it.
      return null;
    }
    return Predicates.like(column.index(), compiled::matches, not);
  }

  /** A text constant, possibly cast to VARCHAR, or null. */
  private static String text(RexNode node) {
    RexNode stripped = node;
    while (stripped instanceof RexCall cast && cast.getKind() == SqlKind.CAST && cast.getOperands().get(0) instanceof RexLiteral) {
      stripped = cast.getOperands().get(0);
    }
    return stripped instanceof RexLiteral literal && !literal.isNull() && SqlTypeName.CHAR_TYPES.contains(literal.getType().getSqlTypeName())
        ? literal.getValueAs(String.class)
        : null;
  }

  /** {@code SEARCH(column, sarg)}: IN lists, BETWEEN and ranges, as Calcite folds them. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private Predicate search(RexCall call) {
    Column column = column(call.getOperands().get(0));
    if (column == null || !(call.getOperands().get(1) instanceof RexLiteral literal)) {
      return null;
    }
    Sarg sarg = literal.getValueAs(Sarg.class);
    if (sarg == null) {
      return null;
    }
    boolean nullsKept = sarg.nullAs == RexUnknownAs.TRUE;
    List<Range> ranges = new ArrayList<>(sarg.rangeSet.asRanges());
    switch (column.kind()) {
      case LONG: {
        List<long[]> kept = new ArrayList<>();
        for (Range range : ranges) {
          BigInteger low = LONG_MIN;
          BigInteger high = LONG_MAX;
          if (range.hasLowerBound()) {
            BigDecimal value = decimal(range.lowerEndpoint());
            if (value == null) {
              return null;
            }
            low = inward(value, column.scale(), true, range.lowerBoundType() == BoundType.OPEN).max(LONG_MIN);
          }
          if (range.hasUpperBound()) {
            BigDecimal value = decimal(range.upperEndpoint());
            if (value == null) {
              return null;
            }
            high = inward(value, column.scale(), false, range.upperBoundType() == BoundType.OPEN).min(LONG_MAX);
          }
          // A range wholly beyond a long's keeps nothing; one that is empty once rounded neither.
          if (low.compareTo(LONG_MAX) <= 0 && high.compareTo(LONG_MIN) >= 0 && low.compareTo(high) <= 0) {
            kept.add(new long[] {low.longValue(), high.longValue()});
          }
        }
        long[] mins = new long[kept.size()];
        long[] maxs = new long[kept.size()];
        for (int i = 0; i < kept.size(); i++) {
          mins[i] = kept.get(i)[0];
          maxs[i] = kept.get(i)[1];
        }
        return Predicates.longRanges(column.index(), mins, maxs, nullsKept);
      }
      case DOUBLE: {
        List<Predicates.Range<Double>> converted = new ArrayList<>();
        for (Range range : ranges) {
          Predicates.Bound<Double> low = Predicates.Bound.unbounded();
          Predicates.Bound<Double> high = Predicates.Bound.unbounded();
          if (range.hasLowerBound()) {
            Double v = doubleValue(range.lowerEndpoint());
            if (v == null) {
              return null;
            }
            low = new Predicates.Bound<>(v, range.lowerBoundType() == BoundType.CLOSED);
          }
          if (range.hasUpperBound()) {
            Double v = doubleValue(range.upperEndpoint());
            if (v == null) {
              return null;
            }
            high = new Predicates.Bound<>(v, range.upperBoundType() == BoundType.CLOSED);
          }
          converted.add(new Predicates.Range<>(low, high));
        }
        return Predicates.doubleRanges(column.index(), converted, nullsKept);
      }
      default: {
        List<Predicates.Range<byte[]>> converted = new ArrayList<>();
        for (Range range : ranges) {
          Predicates.Bound<byte[]> low = Predicates.Bound.unbounded();
          Predicates.Bound<byte[]> high = Predicates.Bound.unbounded();
          if (range.hasLowerBound()) {
            byte[] v = bytesValue(range.lowerEndpoint());
            if (v == null) {
              return null;
            }
            low = new Predicates.Bound<>(v, range.lowerBoundType() == BoundType.CLOSED);
          }
          if (range.hasUpperBound()) {
            byte[] v = bytesValue(range.upperEndpoint());
            if (v == null) {
              return null;
            }
            high = new Predicates.Bound<>(v, range.upperBoundType() == BoundType.CLOSED);
          }
          converted.add(new Predicates.Range<>(low, high));
        }
        return Predicates.bytesRanges(column.index(), column.slice(), converted, nullsKept);
      }
    }
  }

  /** An integer or decimal column as the evaluator compares it by value: its position, and the scale of its unscaled values. */
  private record ExactColumn(int index, int scale) {}

  /**
   * An integer or decimal column of up to 38 digits, or a cast of one to a decimal that holds each
   * of its values unchanged (as decorrelated sub-queries compare a column with an aggregate's
   * DECIMAL(38, n)), else null. A cast that rounds is not one: the row runtime's rounding decides.
   */
  private ExactColumn exactColumn(RexNode node) {
    if (node instanceof RexInputRef ref) {
      RelDataType type = rowType.getFieldList().get(ref.getIndex()).getType();
      if (!isExactNumber(type) || type.getPrecision() > 38) {
        return null;
      }
      return new ExactColumn(ref.getIndex(), type.getSqlTypeName() == SqlTypeName.DECIMAL ? type.getScale() : 0);
    }
    if (node instanceof RexCall call && call.getKind() == SqlKind.CAST && call.getType().getSqlTypeName() == SqlTypeName.DECIMAL) {
      RexNode operand = call.getOperands().get(0);
      ExactColumn inner = exactColumn(operand);
      return inner != null && call.getType().getScale() >= inner.scale() && widens(operand.getType(), call.getType()) ? inner : null;
    }
    return null;
  }

  /** A bare column reference (or a cast that keeps its values exactly) the evaluator reads, else null. */
  private Column column(RexNode node) {
    if (node instanceof RexCall call && call.getKind() == SqlKind.CAST) {
      Column inner = column(call.getOperands().get(0));
      Column outer = inner == null ? null : columnOf(inner.index(), call.getType());
      // A cast between integer types, or to a decimal of as many integer digits and a scale at
      // least as fine, changes no value: constants compare with the column at its own scale.
      return outer != null && inner.kind() == Kind.LONG && outer.kind() == Kind.LONG && inner.scale() <= outer.scale()
              && isExactNumber(inner.type()) && isExactNumber(outer.type()) && widens(inner.type(), outer.type())
          ? inner
          : null;
    }
    if (node instanceof RexInputRef ref) {
      return columnOf(ref.getIndex(), rowType.getFieldList().get(ref.getIndex()).getType());
    }
    TextSlice slice = ExpressionCompiler.textSlice(node);
    if (slice != null) {
      Column text = column(((RexCall) node).getOperands().get(0));
      return text != null && text.kind() == Kind.BYTES && text.slice() == null
          ? new Column(text.index(), Kind.BYTES, 0, node.getType(), slice)
          : null;
    }
    return null;
  }

  private static Column columnOf(int index, RelDataType type) {
    switch (type.getSqlTypeName()) {
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case BIGINT:
      case DATE:
        return new Column(index, Kind.LONG, 0, type);
      case DECIMAL:
        return type.getPrecision() <= 18 ? new Column(index, Kind.LONG, type.getScale(), type) : null;
      case REAL:
      case FLOAT:
      case DOUBLE:
        return new Column(index, Kind.DOUBLE, 0, type);
      case VARCHAR:
        return new Column(index, Kind.BYTES, 0, type);
      default:
        return null;
    }
  }

  private static boolean isExactNumber(RelDataType type) {
    return switch (type.getSqlTypeName()) {
      case TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL -> true;
      default -> false;
    };
  }

  /** Whether every value of {@code from} is a value of {@code to}: the cast cannot fail or change it. */
  private static boolean widens(RelDataType from, RelDataType to) {
    int fromDigits = from.getSqlTypeName() == SqlTypeName.DECIMAL ? from.getPrecision() - from.getScale() : integerDigits(from);
    int toDigits = to.getSqlTypeName() == SqlTypeName.DECIMAL ? to.getPrecision() - to.getScale() : integerDigits(to);
    return toDigits >= fromDigits;
  }

  private static int integerDigits(RelDataType type) {
    return switch (type.getSqlTypeName()) {
      case TINYINT -> 3;
      case SMALLINT -> 5;
      case INTEGER -> 10;
      default -> 19;
    };
  }

  /** A constant as the unscaled long of {@code column}'s scale, or null when it is not exactly one. */
  private static Long longValue(BigDecimal decimal, Column column) {
    try {
      return decimal.setScale(column.scale(), RoundingMode.UNNECESSARY).unscaledValue().longValueExact();
    } catch (ArithmeticException e) {
      return null;
    }
  }

  private static BigDecimal decimal(Object value) {
    if (value instanceof BigDecimal decimal) {
      return decimal;
    }
    if (value instanceof DateString date) {
      return BigDecimal.valueOf(date.getDaysSinceEpoch());
    }
    if (value instanceof Number number && !(value instanceof Double) && !(value instanceof Float)) {
      return BigDecimal.valueOf(number.longValue());
    }
    return null;
  }

  private static Double doubleValue(Object value) {
    if (value instanceof Number number) {
      return number.doubleValue();
    }
    return null;
  }

  private static byte[] bytesValue(Object value) {
    if (value instanceof NlsString text) {
      return text.getValue().getBytes(StandardCharsets.UTF_8);
    }
    if (value instanceof String text) {
      return text.getBytes(StandardCharsets.UTF_8);
    }
    return null;
  }
}
