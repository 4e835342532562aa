package io.sqe.engine.plan.physical;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.expr.ScalarExpression;
import io.sqe.engine.exec.expr.ScalarExpressions;
import io.sqe.engine.exec.expr.TextSlice;
import io.sqe.engine.exec.expr.WideDecimals;
import io.sqe.engine.sql.functions.ArithmeticFunctions;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongBinaryOperator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Compiles a projection's expression into the columnar evaluator's {@link ScalarExpression}, or
 * says it cannot (null), in which case the plan keeps Calcite's row runtime. It takes what it can
 * compute exactly as the row runtime does: columns and constants; +, - and * of integers (through
 * the same checked operators, so overflow fails the same way), of decimals of up to 18 digits
 * as longs where the result type holds every result, and of decimals of up to 38 digits in 128
 * bits ({@link WideDecimals}, failing where a result exceeds its type, as the row runtime fails
 * writing it), and of doubles, and division of doubles; casts that widen an integer or decimal,
 * or make a double of one; CASE whose conditions {@link PredicateCompiler} compiles and whose
 * values cannot fail.
 */
final class ExpressionCompiler {
  /** How the evaluator reads an expression's values. */
  private enum Kind {
    /** Integers, and decimals of up to 18 digits as unscaled longs. */
    LONG,
    /** Decimals of up to 38 digits, as 128-bit unscaled values. */
    WIDE,
    DOUBLE,
    /** Read by no arithmetic: text, dates, booleans and the rest, only passed on. */
    OTHER
  }

  /**
   * A compiled expression: its evaluator, how its values are read, the decimal scale of its
   * longs, the most digits before the point its values have (from the column types, the constants
   * and the operations between), and whether evaluating it can fail.
   */
  private record Compiled(ScalarExpression expression, Kind kind, int scale, int integerDigits, boolean canFail) {}

  private static final Field DOUBLE =
      new Field("value", org.apache.arrow.vector.types.pojo.FieldType.nullable(
          new org.apache.arrow.vector.types.pojo.ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)), null);

  private final RelDataType rowType;

  private ExpressionCompiler(RelDataType rowType) {
    this.rowType = rowType;
  }

  /** {@code expression} over rows of {@code rowType}, or null when the evaluator cannot compute it exactly. */
  static ScalarExpression compile(RexNode expression, RelDataType rowType) {
    Compiled compiled = new ExpressionCompiler(rowType).compile(expression);
    return compiled == null ? null : compiled.expression();
  }

  private Compiled compile(RexNode node) {
    if (node instanceof RexInputRef ref) {
      RelDataType type = rowType.getFieldList().get(ref.getIndex()).getType();
      return typed(ScalarExpressions.column(ref.getIndex()), type, false);
    }
    if (node instanceof RexLiteral literal) {
      return literal(literal);
    }
    if (!(node instanceof RexCall call)) {
      return null;
    }
    switch (call.getKind()) {
      case CAST:
        return cast(call);
      case PLUS:
      case MINUS:
      case TIMES:
      case DIVIDE:
        return arithmetic(call);
      case CASE:
        return caseWhen(call);
      case MINUS_PREFIX:
        return negate(call);
      default:
        return substring(call);
    }
  }

  /** {@code SUBSTRING(text FROM start FOR length)} with constant bounds, cut as the row runtime cuts it. */
  private Compiled substring(RexCall call) {
    TextSlice slice = textSlice(call);
    Compiled text = slice == null ? null : compile(call.getOperands().get(0));
    if (text == null || call.getType().getSqlTypeName() != SqlTypeName.VARCHAR) {
      return null;
    }
    return new Compiled(ScalarExpressions.substring(field(call.getType()), text.expression(), slice), Kind.OTHER, 0, 0, text.canFail());
  }

  /**
   * The slice {@code node} cuts when it is {@code SUBSTRING} of a VARCHAR with an INTEGER start
   * and a non-negative INTEGER length, both constants, else null (a negative length fails in the
   * row runtime, which reports it).
   */
  static TextSlice textSlice(RexNode node) {
    if (!(node instanceof RexCall call) || call.getOperator() != SqlStdOperatorTable.SUBSTRING || call.getOperands().size() != 3
        || call.getOperands().get(0).getType().getSqlTypeName() != SqlTypeName.VARCHAR) {
      return null;
    }
    Integer start = integerLiteral(call.getOperands().get(1));
    Integer length = integerLiteral(call.getOperands().get(2));
    return start == null || length == null || length < 0 ? null : new TextSlice(start, length);
  }

  private static Integer integerLiteral(RexNode node) {
    return node instanceof RexLiteral literal && !literal.isNull() && literal.getType().getSqlTypeName() == SqlTypeName.INTEGER
        ? literal.getValueAs(Integer.class)
        : null;
  }

  /** {@code -x}: zero minus it, through the same operators as a subtraction (so {@code -MIN} fails as there). */
  private Compiled negate(RexCall call) {
    RelDataType type = call.getType();
    Compiled operand = compile(call.getOperands().get(0));
    if (operand == null || operand.kind() == Kind.OTHER || !sameType(type, call.getOperands().get(0).getType())) {
      return null;
    }
    Field field = field(type);
    if (operand.kind() == Kind.DOUBLE) {
      // -x, not 0 - x: the negation of 0.0 is -0.0.
      return type.getSqlTypeName() != SqlTypeName.DOUBLE
          ? null
          : typed(ScalarExpressions.doubles(field, operand.expression(), operand.expression(), (a, b) -> -a), type, operand.canFail());
    }
    ScalarExpression zero = ScalarExpressions.constant(field, 0L);
    if (operand.kind() == Kind.WIDE) {
      return typed(WideDecimals.of(field, zero, 0, operand.expression(), 0, WideDecimals.Operation.SUBTRACT, false), type, operand.integerDigits(), operand.canFail());
    }
    LongBinaryOperator op = type.getSqlTypeName() == SqlTypeName.DECIMAL ? Math::subtractExact : checkedIntegers(SqlKind.MINUS, type.getSqlTypeName());
    return op == null
        ? null
        : typed(ScalarExpressions.longs(field, zero, 1, operand.expression(), 1, op), type, operand.integerDigits(), operand.canFail() || type.getSqlTypeName() != SqlTypeName.DECIMAL);
  }

  private static Compiled typed(ScalarExpression expression, RelDataType type, boolean canFail) {
    return typed(expression, type, integerDigits(type), canFail);
  }

  /**
   * An expression of {@code type} whose values have at most {@code digits} digits before the
   * point: a decimal is read as unscaled longs when those digits and its scale fit 18, whatever
   * the precision its type declares.
   */
  private static Compiled typed(ScalarExpression expression, RelDataType type, int digits, boolean canFail) {
    boolean decimal = type.getSqlTypeName() == SqlTypeName.DECIMAL;
    int scale = decimal ? type.getScale() : 0;
    Kind kind = kindOf(type);
    if (decimal) {
      kind = digits + scale <= 18 && digits <= type.getPrecision() - scale ? Kind.LONG
          : type.getPrecision() <= 38 ? Kind.WIDE
          : null;
      digits = Math.min(digits, type.getPrecision() - scale);
    }
    return kind == null ? null : new Compiled(expression, kind, scale, digits, canFail);
  }

  private static Kind kindOf(RelDataType type) {
    return switch (type.getSqlTypeName()) {
      case TINYINT, SMALLINT, INTEGER, BIGINT -> Kind.LONG;
      case DECIMAL -> type.getPrecision() <= 18 ? Kind.LONG : null;
      case REAL, FLOAT, DOUBLE -> Kind.DOUBLE;
      case CHAR, VARCHAR, BOOLEAN, DATE, VARBINARY, BINARY, TIMESTAMP, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> Kind.OTHER;
      default -> null;
    };
  }

  private static int integerDigits(RelDataType type) {
    return switch (type.getSqlTypeName()) {
      case TINYINT -> 3;
      case SMALLINT -> 5;
      case INTEGER -> 10;
      case BIGINT -> 19;
      case DECIMAL -> type.getPrecision() - type.getScale();
      default -> 0;
    };
  }

  private static Field field(RelDataType type) {
    return CalciteTypeMapping.toArrow("value", type);
  }

  private static Compiled literal(RexLiteral literal) {
    RelDataType type = literal.getType();
    Kind kind = kindOf(type);
    if (kind == null) {
      return null;
    }
    if (literal.isNull()) {
      return typed(ScalarExpressions.constant(field(type), null), type, false);
    }
    Object value;
    switch (kind) {
      case LONG: {
        BigDecimal decimal = literal.getValueAs(BigDecimal.class);
        int scale = type.getSqlTypeName() == SqlTypeName.DECIMAL ? type.getScale() : 0;
        try {
          value = decimal.setScale(scale).unscaledValue().longValueExact();
        } catch (ArithmeticException e) {
          return null;
        }
        int digits = Math.max(1, decimal.precision() - decimal.scale());
        return typed(ScalarExpressions.constant(field(type), value), type, digits, false);
      }
      case DOUBLE:
        value = literal.getValueAs(Double.class);
        break;
      default:
        value = switch (type.getSqlTypeName()) {
          case CHAR, VARCHAR -> literal.getValueAs(String.class);
          case BOOLEAN -> literal.getValueAs(Boolean.class);
          case DATE -> literal.getValueAs(Integer.class);
          default -> null;
        };
    }
    return value == null ? null : typed(ScalarExpressions.constant(field(type), value), type, false);
  }

  private Compiled cast(RexCall call) {
    RelDataType to = call.getType();
    RexNode operand = call.getOperands().get(0);
    if (operand instanceof RexLiteral literal
        && SqlTypeName.CHAR_TYPES.contains(literal.getType().getSqlTypeName())
        && to.getSqlTypeName() == SqlTypeName.VARCHAR) {
      return literal.isNull() ? null : typed(ScalarExpressions.constant(field(to), literal.getValueAs(String.class)), to, false);
    }
    Compiled input = compile(operand);
    if (input == null) {
      return null;
    }
    if (keepsValues(operand.getType(), to)) {
      // Only nullability (or an unbounded length) changes: COALESCE's CASE casts its values so.
      return new Compiled(input.expression(), input.kind(), input.scale(), input.integerDigits(), input.canFail());
    }
    boolean exactTarget = to.getSqlTypeName() == SqlTypeName.DECIMAL || kindOf(to) == Kind.LONG;
    if (exact(input) && exactTarget) {
      boolean decimal = to.getSqlTypeName() == SqlTypeName.DECIMAL;
      int scale = decimal ? to.getScale() : 0;
      // An integer type's digits do not bound its range (TINYINT has 3, and 300 does not fit):
      // one digit fewer does.
      int fits = decimal ? integerDigits(to) : integerDigits(to) - 1;
      if (scale < input.scale() || fits < input.integerDigits()) {
        return null;
      }
      if (input.kind() == Kind.LONG && input.integerDigits() + scale <= 18) {
        return typed(ScalarExpressions.scaleLong(field(to), input.expression(), pow10(scale - input.scale())), to, input.integerDigits(), input.canFail());
      }
      return decimal && to.getPrecision() <= 38
          ? typed(
              WideDecimals.of(
                  field(to), input.expression(), scale - input.scale(), ScalarExpressions.constant(field(to), 0L), 0, WideDecimals.Operation.ADD, false),
              to,
              input.integerDigits(),
              input.canFail())
          : null;
    }
    Kind kind = kindOf(to);
    if (kind == null) {
      return null;
    }
    if (kind == Kind.DOUBLE && to.getSqlTypeName() == SqlTypeName.DOUBLE && (input.kind() == Kind.LONG || input.kind() == Kind.DOUBLE)) {
      return typed(ScalarExpressions.toDouble(field(to), input.expression(), input.kind() == Kind.LONG, input.scale()), to, input.canFail());
    }
    return null;
  }

  private Compiled arithmetic(RexCall call) {
    RelDataType type = call.getType();
    Kind kind = type.getSqlTypeName() == SqlTypeName.DECIMAL ? Kind.LONG : kindOf(type);
    Compiled left = compile(call.getOperands().get(0));
    Compiled right = compile(call.getOperands().get(1));
    if (kind == null || left == null || right == null) {
      return null;
    }
    boolean canFail = left.canFail() || right.canFail();
    if (kind == Kind.DOUBLE) {
      // An integer, decimal or float operand is made a double first, as the row runtime's Java does.
      left = asDouble(left);
      right = asDouble(right);
      if (type.getSqlTypeName() != SqlTypeName.DOUBLE || left == null || right == null) {
        return null;
      }
      ScalarExpressions.DoubleOperator op = switch (call.getKind()) {
        case PLUS -> (a, b) -> a + b;
        case MINUS -> (a, b) -> a - b;
        case TIMES -> (a, b) -> a * b;
        default -> (a, b) -> a / b;
      };
      return typed(ScalarExpressions.doubles(field(type), left.expression(), right.expression(), op), type, canFail);
    }
    if (kind != Kind.LONG || !exact(left) || !exact(right) || call.getKind() == SqlKind.DIVIDE) {
      return null;
    }
    if (type.getSqlTypeName() != SqlTypeName.DECIMAL) {
      LongBinaryOperator op = checkedIntegers(call.getKind(), type.getSqlTypeName());
      return op == null || left.kind() != Kind.LONG || right.kind() != Kind.LONG || left.scale() != 0 || right.scale() != 0
          ? null
          : typed(ScalarExpressions.longs(field(type), left.expression(), 1, right.expression(), 1, op), type, true);
    }
    int scale = type.getScale();
    boolean longs = left.kind() == Kind.LONG && right.kind() == Kind.LONG;
    if (call.getKind() == SqlKind.TIMES) {
      // The exact product has the operands' scales and digits added.
      int digits = left.integerDigits() + right.integerDigits();
      if (scale != left.scale() + right.scale()) {
        return null;
      }
      Compiled product = longs
          ? typed(ScalarExpressions.longs(field(type), left.expression(), 1, right.expression(), 1, Math::multiplyExact), type, digits, canFail)
          : null;
      return product != null && product.kind() == Kind.LONG && digits <= type.getPrecision() - scale
          ? product
          : wide(type, left, 0, right, 0, WideDecimals.Operation.MULTIPLY, digits, canFail);
    }
    if (scale < left.scale() || scale < right.scale()) {
      return null;
    }
    int digits = Math.max(left.integerDigits(), right.integerDigits()) + 1;
    if (longs) {
      LongBinaryOperator op = call.getKind() == SqlKind.PLUS ? Math::addExact : Math::subtractExact;
      Compiled sum = typed(
          ScalarExpressions.longs(field(type), left.expression(), pow10(scale - left.scale()), right.expression(), pow10(scale - right.scale()), op),
          type,
          digits,
          canFail);
      if (sum != null && sum.kind() == Kind.LONG && digits <= type.getPrecision() - scale) {
        return sum;
      }
    }
    WideDecimals.Operation operation = call.getKind() == SqlKind.PLUS ? WideDecimals.Operation.ADD : WideDecimals.Operation.SUBTRACT;
    return wide(type, left, scale - left.scale(), right, scale - right.scale(), operation, digits, canFail);
  }

  /** Whether the evaluator computes exactly with the values: integers and decimals. */
  private static boolean exact(Compiled compiled) {
    return compiled.kind() == Kind.LONG || compiled.kind() == Kind.WIDE;
  }

  /**
   * {@code left op right} in 128 bits into a decimal of {@code type}, checked against its precision
   * unless the operands' {@code digits} prove every result fits (then it cannot fail).
   */
  private static Compiled wide(
      RelDataType type, Compiled left, int leftShift, Compiled right, int rightShift, WideDecimals.Operation operation, int digits, boolean canFail) {
    if (type.getPrecision() > 38) {
      return null;
    }
    boolean proven = digits <= type.getPrecision() - type.getScale();
    ScalarExpression expression =
        WideDecimals.of(field(type), left.expression(), leftShift, right.expression(), rightShift, operation, !proven);
    return typed(expression, type, digits, canFail || !proven);
  }

  /** {@code compiled} read as doubles: as it is, or an integer or decimal converted exactly rounded; null for other values. */
  private static Compiled asDouble(Compiled compiled) {
    if (compiled.kind() == Kind.DOUBLE) {
      return compiled;
    }
    if (compiled.kind() != Kind.LONG) {
      return null;
    }
    ScalarExpression converted = ScalarExpressions.toDouble(DOUBLE, compiled.expression(), true, compiled.scale());
    return new Compiled(converted, Kind.DOUBLE, 0, 0, compiled.canFail());
  }

  /** SQE's checked integer operator for a result type: what the row runtime calls instead of Java's wrapping one. */
  private static LongBinaryOperator checkedIntegers(SqlKind kind, SqlTypeName type) {
    return switch (type) {
      case BIGINT -> switch (kind) {
        case PLUS -> ArithmeticFunctions::add;
        case MINUS -> ArithmeticFunctions::subtract;
        case TIMES -> ArithmeticFunctions::multiply;
        default -> null;
      };
      case INTEGER -> switch (kind) {
        case PLUS -> (a, b) -> ArithmeticFunctions.add((int) a, (int) b);
        case MINUS -> (a, b) -> ArithmeticFunctions.subtract((int) a, (int) b);
        case TIMES -> (a, b) -> ArithmeticFunctions.multiply((int) a, (int) b);
        default -> null;
      };
      default -> null;
    };
  }

  private Compiled caseWhen(RexCall call) {
    List<RexNode> operands = call.getOperands();
    RelDataType type = call.getType();
    List<ScalarExpressions.When> whens = new ArrayList<>();
    for (int i = 0; i + 1 < operands.size(); i += 2) {
      Predicate condition = PredicateCompiler.compileWithoutParameters(operands.get(i), rowType);
      Compiled value = branch(operands.get(i + 1), type);
      if (condition == null || value == null) {
        return null;
      }
      whens.add(new ScalarExpressions.When(condition, value.expression()));
    }
    Compiled otherwise = branch(operands.get(operands.size() - 1), type);
    return otherwise == null ? null : typed(ScalarExpressions.caseWhen(field(type), whens, otherwise.expression()), type, false);
  }

  /** A CASE value: of the CASE's own type exactly (it is copied as it is), and unable to fail on rows its condition does not keep. */
  private Compiled branch(RexNode value, RelDataType type) {
    Compiled compiled = compile(value);
    if (compiled == null || compiled.canFail() || !sameType(value.getType(), type)) {
      return null;
    }
    return compiled;
  }

  /** Whether a cast from {@code from} to {@code to} changes no value: the same type, at most nullability or a VARCHAR's bound widened. */
  private static boolean keepsValues(RelDataType from, RelDataType to) {
    if (from.getSqlTypeName() != to.getSqlTypeName() || from.getScale() != to.getScale()) {
      return false;
    }
    if (to.getSqlTypeName() == SqlTypeName.VARCHAR || to.getSqlTypeName() == SqlTypeName.VARBINARY) {
      return to.getPrecision() == RelDataType.PRECISION_NOT_SPECIFIED || to.getPrecision() >= from.getPrecision();
    }
    return from.getPrecision() == to.getPrecision();
  }

  private static boolean sameType(RelDataType a, RelDataType b) {
    return a.getSqlTypeName() == b.getSqlTypeName() && a.getPrecision() == b.getPrecision() && a.getScale() == b.getScale();
  }

  private static long pow10(int exponent) {
    long value = 1;
    for (int i = 0; i < exponent; i++) {
      value = Math.multiplyExact(value, 10);
    }
    return value;
  }
}
