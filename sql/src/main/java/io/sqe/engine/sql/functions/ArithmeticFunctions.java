package io.sqe.engine.sql.functions;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.math.BigInteger;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Integer arithmetic that fails when a result leaves its type's range (INVALID_ARGUMENT, "bigint
 * overflow in addition"), as in Trino and PostgreSQL, where Calcite's generated code wraps around
 * ({@code abs(-9223372036854775808)} was negative): +, -, *, / and negation of TINYINT, SMALLINT,
 * INTEGER and BIGINT, {@code abs}, and the running total of SUM. Division by zero stays Java's
 * ArithmeticException, which is reported as "Division by zero"; {@code %} cannot overflow.
 *
 * <p>And decimal division, exact: the quotient rounded half up at the result type's scale, as
 * Trino computes it, where Calcite's code divides to 16 significant digits ({@code
 * MathContext.DECIMAL64}) and so lost the last digits of {@code 12301.04 / 3} and the most of a
 * 20-digit dividend.
 */
public final class ArithmeticFunctions {
  private static final Map<SqlTypeName, Class<?>> TYPES =
      Map.of(
          SqlTypeName.TINYINT, byte.class,
          SqlTypeName.SMALLINT, short.class,
          SqlTypeName.INTEGER, int.class,
          SqlTypeName.BIGINT, long.class);

  /** The operators that replace Calcite's, by method and by result type. */
  private static final Map<String, Map<SqlTypeName, SqlOperator>> OPERATORS = new HashMap<>();

  static {
    for (String method : List.of("add", "subtract", "multiply", "divide", "negate", "abs")) {
      Map<SqlTypeName, SqlOperator> byType = new EnumMap<>(SqlTypeName.class);
      TYPES.forEach((type, javaType) ->
          byType.put(type, ExecutionFunction.operator("SQE_CHECKED_" + method.toUpperCase(Locale.ROOT) + "_" + type, ArithmeticFunctions.class, method, javaType)));
      OPERATORS.put(method, byType);
    }
  }

  private static final SqlOperator DECIMAL_DIVIDE =
      ExecutionFunction.operator("SQE_DECIMAL_DIVIDE", ArithmeticFunctions.class, "decimalDivide", java.math.BigDecimal.class);

  private ArithmeticFunctions() {}

  /**
   * {@code call} (a division whose result is a DECIMAL) as SQE's exact division at the result's
   * scale, its operands made decimals; null for any other call.
   */
  public static RexNode exactDivision(RexBuilder rexBuilder, RexCall call) {
    if (call.getKind() != SqlKind.DIVIDE || call.getType().getSqlTypeName() != SqlTypeName.DECIMAL) {
      return null;
    }
    List<RexNode> operands = new java.util.ArrayList<>();
    for (RexNode operand : call.getOperands()) {
      SqlTypeName type = operand.getType().getSqlTypeName();
      if (type == SqlTypeName.DECIMAL) {
        operands.add(operand);
      } else if (TYPES.containsKey(type)) {
        RelDataType decimal = rexBuilder.getTypeFactory().createTypeWithNullability(
            rexBuilder.getTypeFactory().createSqlType(SqlTypeName.DECIMAL, 19, 0), operand.getType().isNullable());
        operands.add(rexBuilder.makeCast(decimal, operand));
      } else {
        return null;
      }
    }
    operands.add(rexBuilder.makeExactLiteral(java.math.BigDecimal.valueOf(call.getType().getScale())));
    return rexBuilder.makeCall(call.getType(), DECIMAL_DIVIDE, operands);
  }

  /** {@code a / b} rounded half up at {@code scale} digits after the point. */
  public static java.math.BigDecimal decimalDivide(java.math.BigDecimal a, java.math.BigDecimal b, int scale) {
    if (b.signum() == 0) {
      throw new ArithmeticException("Division by zero");
    }
    return a.divide(b, scale, java.math.RoundingMode.HALF_UP);
  }

  /**
   * The checked operator for {@code call} (+, -, *, /, unary - or {@code abs} whose operands and
   * result are integers), or null for any other call.
   */
  public static SqlOperator replacement(RexCall call) {
    String method =
        switch (call.getKind()) {
          case PLUS -> "add";
          case MINUS -> "subtract";
          case TIMES -> "multiply";
          case DIVIDE -> "divide";
          case MINUS_PREFIX -> "negate";
          default -> call.getOperator() == SqlStdOperatorTable.ABS ? "abs" : null;
        };
    if (method == null || !TYPES.containsKey(call.getType().getSqlTypeName())) {
      return null;
    }
    for (RexNode operand : call.getOperands()) {
      if (!TYPES.containsKey(operand.getType().getSqlTypeName())) {
        return null;
      }
    }
    return OPERATORS.get(method).get(call.getType().getSqlTypeName());
  }

  private static SqeException overflow(String type, String operation) {
    return new SqeException(ErrorCode.INVALID_ARGUMENT, type + " overflow in " + operation);
  }

  private static long checked(long result, long min, long max, String type, String operation) {
    if (result < min || result > max) {
      throw overflow(type, operation);
    }
    return result;
  }

  // ---- called from generated code

  public static long add(long a, long b) {
    long r = a + b;
    if (((a ^ r) & (b ^ r)) < 0) {
      throw overflow("bigint", "addition");
    }
    return r;
  }

  public static long subtract(long a, long b) {
    long r = a - b;
    if (((a ^ b) & (a ^ r)) < 0) {
      throw overflow("bigint", "subtraction");
    }
    return r;
  }

  public static long multiply(long a, long b) {
    long product = a * b;
    if (Math.multiplyHigh(a, b) != product >> 63) {
      throw overflow("bigint", "multiplication");
    }
    return product;
  }

  public static long divide(long a, long b) {
    if (a == Long.MIN_VALUE && b == -1) {
      throw overflow("bigint", "division");
    }
    return a / b;
  }

  public static long negate(long a) {
    if (a == Long.MIN_VALUE) {
      throw overflow("bigint", "negation");
    }
    return -a;
  }

  public static long abs(long a) {
    if (a == Long.MIN_VALUE) {
      throw overflow("bigint", "abs");
    }
    return Math.abs(a);
  }

  /** The running total of a BIGINT SUM. */
  public static long sum(long total, long value) {
    long r = total + value;
    if (((total ^ r) & (value ^ r)) < 0) {
      throw overflow("bigint", "sum");
    }
    return r;
  }

  /** An exact total of a BIGINT SUM, which fails when it is beyond the type's range. */
  public static long sum(BigInteger total) {
    if (total.bitLength() > 63) {
      throw overflow("bigint", "sum");
    }
    return total.longValue();
  }

  public static int add(int a, int b) {
    return (int) checked((long) a + b, Integer.MIN_VALUE, Integer.MAX_VALUE, "integer", "addition");
  }

  public static int subtract(int a, int b) {
    return (int) checked((long) a - b, Integer.MIN_VALUE, Integer.MAX_VALUE, "integer", "subtraction");
  }

  public static int multiply(int a, int b) {
    return (int) checked((long) a * b, Integer.MIN_VALUE, Integer.MAX_VALUE, "integer", "multiplication");
  }

  public static int divide(int a, int b) {
    return (int) checked((long) a / b, Integer.MIN_VALUE, Integer.MAX_VALUE, "integer", "division");
  }

  public static int negate(int a) {
    return (int) checked(-(long) a, Integer.MIN_VALUE, Integer.MAX_VALUE, "integer", "negation");
  }

  public static int abs(int a) {
    return (int) checked(Math.abs((long) a), Integer.MIN_VALUE, Integer.MAX_VALUE, "integer", "abs");
  }

  public static short add(short a, short b) {
    return (short) checked(a + b, Short.MIN_VALUE, Short.MAX_VALUE, "smallint", "addition");
  }

  public static short subtract(short a, short b) {
    return (short) checked(a - b, Short.MIN_VALUE, Short.MAX_VALUE, "smallint", "subtraction");
  }

  public static short multiply(short a, short b) {
    return (short) checked(a * b, Short.MIN_VALUE, Short.MAX_VALUE, "smallint", "multiplication");
  }

  public static short divide(short a, short b) {
    return (short) checked(a / b, Short.MIN_VALUE, Short.MAX_VALUE, "smallint", "division");
  }

  public static short negate(short a) {
    return (short) checked(-a, Short.MIN_VALUE, Short.MAX_VALUE, "smallint", "negation");
  }

  public static short abs(short a) {
    return (short) checked(Math.abs(a), Short.MIN_VALUE, Short.MAX_VALUE, "smallint", "abs");
  }

  public static byte add(byte a, byte b) {
    return (byte) checked(a + b, Byte.MIN_VALUE, Byte.MAX_VALUE, "tinyint", "addition");
  }

  public static byte subtract(byte a, byte b) {
    return (byte) checked(a - b, Byte.MIN_VALUE, Byte.MAX_VALUE, "tinyint", "subtraction");
  }

  public static byte multiply(byte a, byte b) {
    return (byte) checked(a * b, Byte.MIN_VALUE, Byte.MAX_VALUE, "tinyint", "multiplication");
  }

  public static byte divide(byte a, byte b) {
    return (byte) checked(a / b, Byte.MIN_VALUE, Byte.MAX_VALUE, "tinyint", "division");
  }

  public static byte negate(byte a) {
    return (byte) checked(-a, Byte.MIN_VALUE, Byte.MAX_VALUE, "tinyint", "negation");
  }

  public static byte abs(byte a) {
    return (byte) checked(Math.abs(a), Byte.MIN_VALUE, Byte.MAX_VALUE, "tinyint", "abs");
  }
}
