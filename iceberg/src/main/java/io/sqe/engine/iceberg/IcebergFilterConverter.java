package io.sqe.engine.iceberg;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import io.sqe.engine.sql.functions.TimestampMicros;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BinaryOperator;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUnknownAs;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.Sarg;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Translates the conjuncts of a Calcite filter that Iceberg can evaluate on partition values and
 * column bounds into an Iceberg expression. The result only prunes files: the engine still applies
 * the whole filter to every row, so a conjunct that cannot be translated exactly is left out.
 *
 * <p>The result nests log2(n) deep for n terms of an AND or OR (Iceberg's are binary, and its
 * visitors recurse: a left-deep OR of 10,000 terms overflowed a scan thread's stack). A search of
 * a set ({@code x IN (...)}, Calcite's Sarg) becomes Iceberg's {@code in} or {@code notIn}, or the
 * ranges' OR, up to {@value #MAX_PUSHED_VALUES} values or ranges; a larger one is pushed as the
 * range from its least to its greatest value, and the Filter above tests the set. An OR of more
 * branches than that is not pushed.
 */
final class IcebergFilterConverter {
  /**
   * The most values (or ranges) of a set, or branches of an OR, pushed to Iceberg: its metrics
   * evaluator gives up on longer IN lists (InclusiveMetricsEvaluator's limit is 200), and each
   * file's evaluation goes through them all.
   */
  static final int MAX_PUSHED_VALUES = 200;

  private final IcebergTableScan scan;
  private final RexBuilder rexBuilder;

  IcebergFilterConverter(IcebergTableScan scan, RexBuilder rexBuilder) {
    this.scan = scan;
    this.rexBuilder = rexBuilder;
  }

  /** The conjuncts of {@code condition} that translate, AND-ed; empty if none does. */
  Optional<Expression> convert(RexNode condition) {
    List<Expression> parts = new ArrayList<>();
    for (RexNode conjunct : RelOptUtil.conjunctions(condition)) {
      translate(conjunct).ifPresent(parts::add);
    }
    return parts.isEmpty() ? Optional.empty() : Optional.of(balanced(parts, Expressions::and));
  }

  private Optional<Expression> translate(RexNode node) {
    switch (node.getKind()) {
      case AND: {
        List<Expression> parts = new ArrayList<>();
        for (RexNode operand : ((RexCall) node).getOperands()) {
          translate(operand).ifPresent(parts::add);
        }
        // Dropping some conjuncts of an AND only widens it: still safe for pruning.
        return parts.isEmpty() ? Optional.empty() : Optional.of(balanced(parts, Expressions::and));
      }
      case OR: {
        if (((RexCall) node).getOperands().size() > MAX_PUSHED_VALUES) {
          // Each file and each row the scan selects would be tested against every branch.
          return Optional.empty();
        }
        List<Expression> parts = new ArrayList<>();
        for (RexNode operand : ((RexCall) node).getOperands()) {
          Optional<Expression> part = translate(operand);
          if (part.isEmpty()) {
            return Optional.empty();
          }
          parts.add(part.get());
        }
        return parts.isEmpty() ? Optional.empty() : Optional.of(balanced(parts, Expressions::or));
      }
      case SEARCH:
        return search((RexCall) node);
      case NOT: {
        RexNode operand = ((RexCall) node).getOperands().get(0);
        // NOT must be exact: a widened operand would narrow the negation.
        return exact(operand) ? translate(operand).map(Expressions::not) : Optional.empty();
      }
      case IS_NULL:
      case IS_NOT_NULL: {
        Optional<Types.NestedField> column = column(((RexCall) node).getOperands().get(0));
        if (column.isEmpty()) {
          return Optional.empty();
        }
        String name = column.get().name();
        return Optional.of(node.getKind() == SqlKind.IS_NULL ? Expressions.isNull(name) : Expressions.notNull(name));
      }
      case EQUALS:
      case NOT_EQUALS:
      case LESS_THAN:
      case LESS_THAN_OR_EQUAL:
      case GREATER_THAN:
      case GREATER_THAN_OR_EQUAL:
        return comparison((RexCall) node);
      case LIKE:
        return like((RexCall) node);
      default:
        return Optional.empty();
    }
  }

  /** True if the node translates completely, so that it can be negated. */
  private boolean exact(RexNode node) {
    switch (node.getKind()) {
      case AND:
      case OR:
        return ((RexCall) node).getOperands().stream().allMatch(this::exact) && translate(node).isPresent();
      case NOT:
        return exact(((RexCall) node).getOperands().get(0));
      case IS_NULL:
      case IS_NOT_NULL:
      case EQUALS:
      case NOT_EQUALS:
      case LESS_THAN:
      case LESS_THAN_OR_EQUAL:
      case GREATER_THAN:
      case GREATER_THAN_OR_EQUAL:
        return translate(node).isPresent();
      case SEARCH: {
        // A set pushed as its hull range is wider than the set.
        Sarg<?> sarg = ((RexLiteral) ((RexCall) node).getOperands().get(1)).getValueAs(Sarg.class);
        return sarg != null && pushedAsList(sarg) && translate(node).isPresent();
      }
      default:
        // LIKE translates to a prefix match only, which is wider than the pattern.
        return false;
    }
  }

  /** {@code a op b op c ...} nested log2(n) deep, the terms in order. */
  private static Expression balanced(List<Expression> terms, BinaryOperator<Expression> op) {
    if (terms.size() == 1) {
      return terms.get(0);
    }
    int middle = terms.size() / 2;
    return op.apply(balanced(terms.subList(0, middle), op), balanced(terms.subList(middle, terms.size()), op));
  }

  private static boolean pushedAsList(Sarg<?> sarg) {
    return sarg.isComplementedPoints()
        ? sarg.rangeSet.complement().asRanges().size() <= MAX_PUSHED_VALUES
        : sarg.rangeSet.asRanges().size() <= MAX_PUSHED_VALUES;
  }

  /**
   * {@code SEARCH(column, Sarg)}: the values as an OR of equalities, the excluded values as an AND
   * of inequalities, else the ranges' OR; too many of them, the range from the least value to the
   * greatest (for excluded values, nothing). Rows where the column is NULL are kept when the Sarg keeps them.
   */
  private Optional<Expression> search(RexCall call) {
    Optional<Types.NestedField> column = column(call.getOperands().get(0));
    RexLiteral literal = (RexLiteral) call.getOperands().get(1);
    Sarg<?> sarg = literal.getValueAs(Sarg.class);
    if (column.isEmpty() || sarg == null) {
      return Optional.empty();
    }
    String name = column.get().name();
    Type type = column.get().type();
    Optional<Expression> values;
    if (sarg.isAll() || sarg.isComplementedPoints() && !pushedAsList(sarg)) {
      values = Optional.of(Expressions.alwaysTrue());
    } else if (sarg.isNone()) {
      values = Optional.of(Expressions.alwaysFalse());
    } else if ((sarg.isPoints() || sarg.isComplementedPoints()) && pushedAsList(sarg)) {
      boolean excluded = sarg.isComplementedPoints();
      List<Object> points = new ArrayList<>();
      for (Range<?> range : (excluded ? sarg.rangeSet.complement() : sarg.rangeSet).asRanges()) {
        Optional<Object> point = sargValue(range.lowerEndpoint(), literal.getType(), type);
        if (point.isEmpty()) {
          return Optional.empty();
        }
        points.add(point.get());
      }
      // Equalities, not in/notIn: Iceberg's evaluators test a partition value against an in-set of
      // strings with a set that refuses null (NullPointerException for a NULL partition value).
      List<Expression> terms = new ArrayList<>();
      for (Object point : points) {
        terms.add(excluded ? Expressions.notEqual(name, point) : Expressions.equal(name, point));
      }
      values = Optional.of(balanced(terms, excluded ? Expressions::and : Expressions::or));
    } else if (pushedAsList(sarg)) {
      List<Expression> ranges = new ArrayList<>();
      for (Range<?> range : sarg.rangeSet.asRanges()) {
        Optional<Expression> part = range(name, range, literal.getType(), type);
        if (part.isEmpty()) {
          return Optional.empty();
        }
        ranges.add(part.get());
      }
      values = Optional.of(balanced(ranges, Expressions::or));
    } else {
      values = range(name, sarg.rangeSet.span(), literal.getType(), type);
    }
    if (values.isPresent() && sarg.nullAs == RexUnknownAs.TRUE) {
      return Optional.of(Expressions.or(Expressions.isNull(name), values.get()));
    }
    return values;
  }

  /** The rows whose column lies in {@code range}, or empty if a bound does not convert. */
  private Optional<Expression> range(String name, Range<?> range, RelDataType sargType, Type type) {
    List<Expression> bounds = new ArrayList<>();
    if (range.hasLowerBound()) {
      Optional<Object> low = sargValue(range.lowerEndpoint(), sargType, type);
      if (low.isEmpty()) {
        return Optional.empty();
      }
      bounds.add(range.lowerBoundType() == BoundType.CLOSED
          ? Expressions.greaterThanOrEqual(name, low.get())
          : Expressions.greaterThan(name, low.get()));
    }
    if (range.hasUpperBound()) {
      Optional<Object> high = sargValue(range.upperEndpoint(), sargType, type);
      if (high.isEmpty()) {
        return Optional.empty();
      }
      bounds.add(range.upperBoundType() == BoundType.CLOSED
          ? Expressions.lessThanOrEqual(name, high.get())
          : Expressions.lessThan(name, high.get()));
    }
    return Optional.of(bounds.isEmpty() ? Expressions.notNull(name) : balanced(bounds, Expressions::and));
  }

  /** A value of a Sarg (Calcite's literal value) as an Iceberg value of the column's type. */
  private Optional<Object> sargValue(Object value, RelDataType sargType, Type type) {
    RexNode literal = rexBuilder.makeLiteral(value, sargType, false, false);
    return literal instanceof RexLiteral ? value((RexLiteral) literal, type) : Optional.empty();
  }

  private Optional<Expression> comparison(RexCall call) {
    RexNode left = call.getOperands().get(0);
    RexNode right = call.getOperands().get(1);
    SqlKind kind = call.getKind();
    if (!(stripCast(right) instanceof RexLiteral) && TimestampMicros.constantMicros(right).isEmpty()) {
      RexNode swap = left;
      left = right;
      right = swap;
      kind = kind.reverse();
    }
    Optional<Types.NestedField> column = column(left);
    Optional<Long> micros = TimestampMicros.constantMicros(right);
    if (column.isPresent() && micros.isPresent() && column.get().type().typeId() == Type.TypeID.TIMESTAMP) {
      return compare(kind, column.get().name(), micros.get());
    }
    RexNode literalNode = stripCast(right);
    if (column.isEmpty() || !(literalNode instanceof RexLiteral)) {
      return Optional.empty();
    }
    RexLiteral literal = (RexLiteral) literalNode;
    if (literal.isNull()) {
      return Optional.empty();
    }
    Optional<Object> value = value(literal, column.get().type());
    if (value.isEmpty()) {
      return Optional.empty();
    }
    return compare(kind, column.get().name(), value.get());
  }

  private static Optional<Expression> compare(SqlKind kind, String name, Object v) {
    switch (kind) {
      case EQUALS:
        return Optional.of(Expressions.equal(name, v));
      case NOT_EQUALS:
        return Optional.of(Expressions.notEqual(name, v));
      case LESS_THAN:
        return Optional.of(Expressions.lessThan(name, v));
      case LESS_THAN_OR_EQUAL:
        return Optional.of(Expressions.lessThanOrEqual(name, v));
      case GREATER_THAN:
        return Optional.of(Expressions.greaterThan(name, v));
      case GREATER_THAN_OR_EQUAL:
        return Optional.of(Expressions.greaterThanOrEqual(name, v));
      default:
        return Optional.empty();
    }
  }

  private Optional<Expression> like(RexCall call) {
    // ILIKE, NOT LIKE and NOT ILIKE share LIKE's kind; a prefix is implied by LIKE's pattern only.
    if (call.getOperator() != SqlStdOperatorTable.LIKE || call.getOperands().size() != 2) {
      return Optional.empty();
    }
    Optional<Types.NestedField> column = column(call.getOperands().get(0));
    RexNode pattern = stripCast(call.getOperands().get(1));
    if (column.isEmpty() || column.get().type().typeId() != Type.TypeID.STRING || !(pattern instanceof RexLiteral)) {
      return Optional.empty();
    }
    String text = ((RexLiteral) pattern).getValueAs(String.class);
    if (text == null) {
      return Optional.empty();
    }
    StringBuilder prefix = new StringBuilder();
    for (char c : text.toCharArray()) {
      if (c == '%' || c == '_' || c == '\\') {
        break;
      }
      prefix.append(c);
    }
    if (prefix.length() == 0) {
      return Optional.empty();
    }
    return Optional.of(Expressions.startsWith(column.get().name(), prefix.toString()));
  }

  /** The table column a node reads, looking through casts that keep every value distinct. */
  private Optional<Types.NestedField> column(RexNode node) {
    RexNode stripped = node;
    while (stripped.getKind() == SqlKind.CAST) {
      RexCall cast = (RexCall) stripped;
      RexNode operand = cast.getOperands().get(0);
      if (!isLosslessCast(operand.getType().getSqlTypeName(), cast.getType().getSqlTypeName(), operand, cast)) {
        return Optional.empty();
      }
      stripped = operand;
    }
    if (!(stripped instanceof RexInputRef)) {
      return Optional.empty();
    }
    int index = ((RexInputRef) stripped).getIndex();
    if (index >= scan.getRowType().getFieldCount() || scan.isMetadataColumn(index)) {
      return Optional.empty();
    }
    return Optional.of(scan.column(index));
  }

  private static boolean isLosslessCast(SqlTypeName from, SqlTypeName to, RexNode operand, RexCall cast) {
    if (from == to) {
      if (from == SqlTypeName.DECIMAL) {
        int fromScale = operand.getType().getScale();
        int toScale = cast.getType().getScale();
        int fromIntDigits = operand.getType().getPrecision() - fromScale;
        int toIntDigits = cast.getType().getPrecision() - toScale;
        return toScale >= fromScale && toIntDigits >= fromIntDigits;
      }
      return from != SqlTypeName.CHAR;
    }
    switch (from) {
      case TINYINT:
      case SMALLINT:
        return to == SqlTypeName.INTEGER || to == SqlTypeName.BIGINT;
      case INTEGER:
        return to == SqlTypeName.BIGINT;
      case REAL:
        return to == SqlTypeName.DOUBLE;
      default:
        return false;
    }
  }

  private static RexNode stripCast(RexNode node) {
    RexNode result = node;
    while (result.getKind() == SqlKind.CAST && ((RexCall) result).getOperands().get(0) instanceof RexLiteral) {
      result = ((RexCall) result).getOperands().get(0);
    }
    return result;
  }

  /** The literal as an Iceberg value of the column's type, if it converts exactly. */
  private static Optional<Object> value(RexLiteral literal, Type type) {
    try {
      switch (type.typeId()) {
        case INTEGER:
        case LONG: {
          // Text compared with a number column ('a', '1') is cast when the statement runs, which
          // also refuses text that is no number; Calcite's literal cannot convert it here.
          if (!SqlTypeName.NUMERIC_TYPES.contains(literal.getTypeName())) {
            return Optional.empty();
          }
          BigDecimal n = literal.getValueAs(BigDecimal.class);
          if (n == null || n.stripTrailingZeros().scale() > 0) {
            return Optional.empty();
          }
          long l = n.longValueExact();
          if (type.typeId() == Type.TypeID.INTEGER && (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE)) {
            return Optional.empty();
          }
          return Optional.of(type.typeId() == Type.TypeID.INTEGER ? (Object) (int) l : (Object) l);
        }
        case DECIMAL: {
          if (!SqlTypeName.NUMERIC_TYPES.contains(literal.getTypeName())) {
            return Optional.empty();
          }
          BigDecimal n = literal.getValueAs(BigDecimal.class);
          int scale = ((Types.DecimalType) type).scale();
          if (n == null) {
            return Optional.empty();
          }
          BigDecimal scaled = n.setScale(scale, java.math.RoundingMode.UNNECESSARY);
          return Optional.of(scaled);
        }
        case FLOAT:
        case DOUBLE: {
          if (!SqlTypeName.NUMERIC_TYPES.contains(literal.getTypeName())) {
            return Optional.empty();
          }
          Double d = literal.getValueAs(Double.class);
          if (type.typeId() == Type.TypeID.FLOAT && d != null) {
            // The column is compared as a double: a literal that a float cannot hold exactly would
            // become a bound on the wrong side of some values.
            return d.floatValue() == d ? Optional.of(d.floatValue()) : Optional.empty();
          }
          return Optional.ofNullable(d);
        }
        case STRING: {
          if (literal.getTypeName() != SqlTypeName.CHAR && literal.getTypeName() != SqlTypeName.VARCHAR) {
            return Optional.empty();
          }
          NlsString s = literal.getValueAs(NlsString.class);
          return Optional.ofNullable(s == null ? null : s.getValue());
        }
        case BOOLEAN:
          return literal.getTypeName() == SqlTypeName.BOOLEAN
              ? Optional.ofNullable(literal.getValueAs(Boolean.class))
              : Optional.empty();
        case DATE: {
          if (literal.getTypeName() != SqlTypeName.DATE) {
            return Optional.empty();
          }
          DateString date = literal.getValueAs(DateString.class);
          return Optional.ofNullable(date == null ? null : date.toString());
        }
        case TIMESTAMP:
          // Timestamp constants are microsecond calls by now (see TimestampMicros), not literals.
          return Optional.empty();
        case BINARY:
        case FIXED: {
          if (literal.getTypeName() != SqlTypeName.BINARY && literal.getTypeName() != SqlTypeName.VARBINARY) {
            return Optional.empty();
          }
          ByteString bytes = literal.getValueAs(ByteString.class);
          return Optional.ofNullable(bytes == null ? null : java.nio.ByteBuffer.wrap(bytes.getBytes()));
        }
        default:
          return Optional.empty();
      }
    } catch (ArithmeticException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
