package io.sqe.engine.exec.expr;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;

/**
 * Two exact-number columns of any scale and up to 38 digits compared by value, as SQL (and the row
 * runtime's {@code BigDecimal.compareTo}) compares them: {@code 1.5 = 1.50}. Values whose unscaled
 * forms fit 64 bits once brought to the finer scale compare as longs; the others (past 18 digits)
 * as {@code BigDecimal}s of their 128 bits.
 */
final class DecimalComparison {
  private static final long[] POWERS_OF_TEN = new long[19];

  static {
    POWERS_OF_TEN[0] = 1;
    for (int i = 1; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
    }
  }

  private DecimalComparison() {}

  /** A column's values as 128-bit two's-complement unscaled numbers: integers, or decimals of any precision. */
  private interface Wide {
    long low(int row);

    long high(int row);
  }

  /** {@code left op right}, the columns' values having scales {@code leftScale} and {@code rightScale}. */
  static Predicate compare(int left, int leftScale, Comparison op, int right, int rightScale) {
    int scale = Math.max(leftScale, rightScale);
    int leftShift = scale - leftScale;
    int rightShift = scale - rightScale;
    return (batch, sel, count) -> {
      FieldVector a = batch.getVector(left);
      FieldVector b = batch.getVector(right);
      Wide x = wide(a);
      Wide y = wide(b);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        if (a.isNull(row) || b.isNull(row)) {
          continue;
        }
        long xl = x.low(row);
        long xh = x.high(row);
        long yl = y.low(row);
        long yh = y.high(row);
        int order;
        if (xh == (xl >> 63) && yh == (yl >> 63) && fits(xl, leftShift) && fits(yl, rightShift)) {
          order = Long.compare(xl * POWERS_OF_TEN[leftShift], yl * POWERS_OF_TEN[rightShift]);
        } else {
          order = decimal(xh, xl, leftScale).compareTo(decimal(yh, yl, rightScale));
        }
        if (op.holds(order)) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /**
   * An exact-number column (a decimal of any precision, or an integer) compared with a constant of
   * its own scale, {@code high:low} as a 128-bit two's-complement unscaled value.
   */
  static Predicate compareConstant(int column, Comparison op, long high, long low) {
    return (batch, sel, count) -> {
      FieldVector vector = batch.getVector(column);
      Wide x = wide(vector);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        if (vector.isNull(row)) {
          continue;
        }
        int order = Long.compare(x.high(row), high);
        if (order == 0) {
          order = Long.compareUnsigned(x.low(row), low);
        }
        if (op.holds(order)) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** Whether {@code value} times ten to {@code shift} fits a long. */
  private static boolean fits(long value, int shift) {
    if (shift == 0) {
      return true;
    }
    if (shift >= POWERS_OF_TEN.length) {
      return false;
    }
    long power = POWERS_OF_TEN[shift];
    return Math.multiplyHigh(value, power) == ((value * power) >> 63);
  }

  private static BigDecimal decimal(long high, long low, int scale) {
    byte[] bytes = new byte[16];
    for (int i = 0; i < 8; i++) {
      bytes[i] = (byte) (high >>> (56 - 8 * i));
      bytes[8 + i] = (byte) (low >>> (56 - 8 * i));
    }
    return new BigDecimal(new BigInteger(bytes), scale);
  }

  private static Wide wide(FieldVector vector) {
    ArrowBuf data = vector.getDataBuffer();
    if (vector instanceof DecimalVector) {
      // Little-endian: the low 64 bits, then the high ones.
      return new Wide() {
        @Override
        public long low(int row) {
          return data.getLong((long) row * 16);
        }

        @Override
        public long high(int row) {
          return data.getLong((long) row * 16 + 8);
        }
      };
    }
    if (vector instanceof BigIntVector || vector instanceof IntVector || vector instanceof SmallIntVector || vector instanceof TinyIntVector) {
      ColumnValues.Longs longs = ColumnValues.longs(vector);
      return new Wide() {
        @Override
        public long low(int row) {
          return longs.get(row);
        }

        @Override
        public long high(int row) {
          return longs.get(row) >> 63;
        }
      };
    }
    throw new IllegalArgumentException("Not a column of exact numbers: " + vector.getField());
  }
}
