package io.sqe.engine.exec.expr;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Arithmetic on decimals of up to 38 digits (and integers) as 128-bit unscaled values, the layout
 * of Arrow's decimal vectors (two's complement, the low 64 bits first), with no {@link BigDecimal}
 * per row: the product of two values that each fit 64 bits is {@link Math#multiplyHigh} and one
 * multiplication, and a sum carries from the low half to the high one. Only operands past 64 bits
 * take {@link BigInteger}. A result of more digits than its type's precision fails, as the row
 * runtime fails when it writes one (and as Trino fails on a decimal overflow).
 */
public final class WideDecimals {
  /** Ten to the power of the index, for 0 to 38: its high and its low 64 bits. */
  private static final long[] POWER_HIGH = new long[39];
  private static final long[] POWER_LOW = new long[39];

  static {
    BigInteger power = BigInteger.ONE;
    for (int i = 0; i <= 38; i++) {
      POWER_LOW[i] = power.longValue();
      POWER_HIGH[i] = power.shiftRight(64).longValue();
      power = power.multiply(BigInteger.TEN);
    }
  }

  /** The operation of {@link #of}. */
  public enum Operation {
    ADD,
    SUBTRACT,
    MULTIPLY
  }

  private WideDecimals() {}

  /**
   * {@code left op right} over integers and decimals of any precision read as 128-bit unscaled
   * values, each first multiplied by ten to the power of its shift (to bring a sum's operands to
   * the result's scale), into {@code field}'s decimal vector. With {@code checked}, a result beyond
   * the field's precision fails; without, the caller has proved every result fits.
   */
  public static ScalarExpression of(
      Field field, ScalarExpression left, int leftShift, ScalarExpression right, int rightShift, Operation operation, boolean checked) {
    ArrowType.Decimal type = (ArrowType.Decimal) field.getType();
    int precision = type.getPrecision();
    int scale = type.getScale();
    if (leftShift < 0 || rightShift < 0 || leftShift > 38 || rightShift > 38) {
      throw new IllegalArgumentException("Shifts must be 0 to 38: " + leftShift + ", " + rightShift);
    }
    return (batch, allocator) -> {
      int rows = batch.getRowCount();
      try (Evaluated a = left.evaluate(batch, allocator); Evaluated b = right.evaluate(batch, allocator)) {
        FieldVector x = a.vector();
        FieldVector y = b.vector();
        // Each operand's values read once into arrays, so that the loop below reads no vector.
        long[] xHigh = new long[rows];
        long[] xLow = new long[rows];
        long[] yHigh = new long[rows];
        long[] yLow = new long[rows];
        read(x, rows, xHigh, xLow);
        read(y, rows, yHigh, yLow);
        boolean nulls = ColumnValues.anyNull(x, rows) || ColumnValues.anyNull(y, rows);
        FieldVector out = field.createVector(allocator);
        try {
          out.setInitialCapacity(Math.max(rows, 1));
          out.allocateNew();
          Operands operands = new Operands(x, y, nulls, xHigh, xLow, yHigh, yLow, leftShift, rightShift);
          ArrowBuf data = out.getDataBuffer();
          ArrowBuf validity = out.getValidityBuffer();
          // A loop per operation, each with the case of two operands that fit 64 bits and no shift
          // inline: one loop choosing the operation per row measured slower on TPC-H Q1.
          int failed = switch (operation) {
            case MULTIPLY -> multiply(operands, rows, checked, precision, data, validity);
            case ADD -> add(operands, rows, false, checked, precision, data, validity);
            case SUBTRACT -> add(operands, rows, true, checked, precision, data, validity);
          };
          if (failed >= 0) {
            throw overflow(xHigh[failed], xLow[failed], yHigh[failed], yLow[failed], leftShift, rightShift, operation, precision, scale);
          }
          out.setValueCount(rows);
          return new Evaluated(out, true);
        } catch (RuntimeException | Error e) {
          out.close();
          throw e;
        }
      }
    };
  }

  /** The operands of one batch, each read as 128 bits, and their shifts. */
  private record Operands(
      FieldVector x, FieldVector y, boolean nulls, long[] xHigh, long[] xLow, long[] yHigh, long[] yLow, int leftShift, int rightShift) {
    boolean isNull(int r) {
      return nulls && (x.isNull(r) || y.isNull(r));
    }

    /** Whether row {@code r}'s operands fit 64 bits each and neither is shifted. */
    boolean narrow(int r) {
      return leftShift == 0 && rightShift == 0 && xHigh[r] == xLow[r] >> 63 && yHigh[r] == yLow[r] >> 63;
    }

    /** Row {@code r}'s result through the general 128-bit path into {@code u}; false past 127 bits. */
    boolean general(int r, Operation operation, long[] u) {
      u[0] = xHigh[r];
      u[1] = xLow[r];
      long vHigh = yHigh[r];
      long vLow = yLow[r];
      boolean ok = leftShift == 0 || WideDecimals.multiply(u, POWER_HIGH[leftShift], POWER_LOW[leftShift]);
      if (ok && rightShift != 0) {
        long[] v = {vHigh, vLow};
        ok = WideDecimals.multiply(v, POWER_HIGH[rightShift], POWER_LOW[rightShift]);
        vHigh = v[0];
        vLow = v[1];
      }
      return ok && switch (operation) {
        case ADD -> WideDecimals.add(u, vHigh, vLow);
        case SUBTRACT -> WideDecimals.add(u, ~vHigh + (vLow == 0 ? 1 : 0), -vLow);
        case MULTIPLY -> WideDecimals.multiply(u, vHigh, vLow);
      };
    }
  }

  /** Writes row {@code r}'s result; false when {@code checked} and it has more digits than {@code precision}. */
  private static boolean store(ArrowBuf data, ArrowBuf validity, int r, long high, long low, boolean checked, int precision) {
    if (checked && !fits(high, low, precision)) {
      return false;
    }
    data.setLong((long) r * 16, low);
    data.setLong((long) r * 16 + 8, high);
    BitVectorHelper.setBit(validity, r);
    return true;
  }

  /** The products into {@code data}; the first row whose product does not fit, or -1. */
  private static int multiply(Operands o, int rows, boolean checked, int precision, ArrowBuf data, ArrowBuf validity) {
    long[] u = new long[2];
    for (int r = 0; r < rows; r++) {
      if (o.isNull(r)) {
        continue;
      }
      long high;
      long low;
      if (o.narrow(r)) {
        long a = o.xLow[r];
        long b = o.yLow[r];
        low = a * b;
        high = Math.multiplyHigh(a, b);
      } else if (o.general(r, Operation.MULTIPLY, u)) {
        high = u[0];
        low = u[1];
      } else {
        return r;
      }
      if (!store(data, validity, r, high, low, checked, precision)) {
        return r;
      }
    }
    return -1;
  }

  /** The sums (differences when {@code subtract}) into {@code data}; the first row whose result does not fit, or -1. */
  private static int add(Operands o, int rows, boolean subtract, boolean checked, int precision, ArrowBuf data, ArrowBuf validity) {
    long[] u = new long[2];
    Operation operation = subtract ? Operation.SUBTRACT : Operation.ADD;
    for (int r = 0; r < rows; r++) {
      if (o.isNull(r)) {
        continue;
      }
      long high;
      long low;
      if (o.narrow(r)) {
        // Two 64-bit values sum to at most 65 bits: the carry out of the low half, sign-extended.
        long a = o.xLow[r];
        long b = subtract ? -o.yLow[r] : o.yLow[r];
        if (subtract && o.yLow[r] == Long.MIN_VALUE) {
          // -Long.MIN_VALUE is not a long: the general path negates in 128 bits.
          if (!o.general(r, operation, u)) {
            return r;
          }
          high = u[0];
          low = u[1];
        } else {
          low = a + b;
          high = (a >> 63) + (b >> 63) + (Long.compareUnsigned(low, a) < 0 ? 1 : 0);
        }
      } else if (o.general(r, operation, u)) {
        high = u[0];
        low = u[1];
      } else {
        return r;
      }
      if (!store(data, validity, r, high, low, checked, precision)) {
        return r;
      }
    }
    return -1;
  }

  /** Reads a column's values as 128 bits: integers and decimals of up to 18 digits sign-extended. */
  private static void read(FieldVector vector, int rows, long[] high, long[] low) {
    if (vector instanceof DecimalVector) {
      ArrowBuf data = vector.getDataBuffer();
      boolean wide = ((DecimalVector) vector).getPrecision() > 18;
      for (int r = 0; r < rows; r++) {
        low[r] = data.getLong((long) r * 16);
        high[r] = wide ? data.getLong((long) r * 16 + 8) : low[r] >> 63;
      }
      return;
    }
    ColumnValues.Longs longs = ColumnValues.longs(vector);
    for (int r = 0; r < rows; r++) {
      low[r] = longs.get(r);
      high[r] = low[r] >> 63;
    }
  }

  /** {@code value} (high, low) times (high, low) into {@code value}; false past 127 bits. */
  static boolean multiply(long[] value, long high, long low) {
    if (value[0] == value[1] >> 63 && high == low >> 63) {
      // Both fit 64 bits: their product fits 128.
      long a = value[1];
      value[1] = a * low;
      value[0] = Math.multiplyHigh(a, low);
      return true;
    }
    BigInteger product = big(value[0], value[1]).multiply(big(high, low));
    if (product.bitLength() > 127) {
      return false;
    }
    value[1] = product.longValue();
    value[0] = product.shiftRight(64).longValue();
    return true;
  }

  /** {@code value} plus (high, low) into {@code value}; false when the sum overflows 128 bits. */
  static boolean add(long[] value, long high, long low) {
    long sumLow = value[1] + low;
    long carry = Long.compareUnsigned(sumLow, low) < 0 ? 1 : 0;
    long sumHigh = value[0] + high + carry;
    // Operands of one sign whose sum has the other overflowed.
    boolean overflow = ((value[0] ^ sumHigh) & (high ^ sumHigh)) < 0;
    value[0] = sumHigh;
    value[1] = sumLow;
    return !overflow;
  }

  /** Whether (high, low) has at most {@code precision} digits. */
  static boolean fits(long high, long low, int precision) {
    if (high < 0) {
      // The magnitude of a negative value: its two's complement.
      low = -low;
      high = ~high + (low == 0 ? 1 : 0);
      if (high < 0) {
        return false;
      }
    }
    int byHigh = Long.compareUnsigned(high, POWER_HIGH[precision]);
    return byHigh < 0 || byHigh == 0 && Long.compareUnsigned(low, POWER_LOW[precision]) < 0;
  }

  static BigInteger big(long high, long low) {
    return BigInteger.valueOf(high).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(low)));
  }

  /** The error for a row's operands, naming the exact result, as the row runtime names a value that does not fit. */
  private static SqeException overflow(
      long xHigh, long xLow, long yHigh, long yLow, int leftShift, int rightShift, Operation operation, int precision, int scale) {
    BigInteger x = big(xHigh, xLow).multiply(BigInteger.TEN.pow(leftShift));
    BigInteger y = big(yHigh, yLow).multiply(BigInteger.TEN.pow(rightShift));
    BigInteger exact = switch (operation) {
      case ADD -> x.add(y);
      case SUBTRACT -> x.subtract(y);
      case MULTIPLY -> x.multiply(y);
    };
    return new SqeException(
        ErrorCode.INVALID_ARGUMENT,
        "Value " + new BigDecimal(exact, scale).toPlainString() + " does not fit DECIMAL(" + precision + ", " + scale + ")");
  }
}
