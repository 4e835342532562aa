package io.sqe.engine.exec.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 128-bit decimal arithmetic against {@link BigDecimal}: random operands from one digit to 38, of
 * both signs, decimal and BIGINT columns, NULLs, and shifts to a finer scale. Each row is either the
 * exact result, or, when that has more digits than the result type's precision, the whole batch
 * fails with INVALID_ARGUMENT. The allocator is closed after each, which fails on a leaked buffer.
 */
class WideDecimalsTest {
  private static final int ROWS = 2000;

  @ParameterizedTest
  @EnumSource(WideDecimals.Operation.class)
  void computesExactlyOrFailsPastThePrecision(WideDecimals.Operation operation) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < 40; round++) {
      int leftScale = random.nextInt(8);
      int rightScale = random.nextInt(8);
      // Products of up to 19 digits each fit 38 digits, and often pass a smaller precision.
      int maxDigits = operation == WideDecimals.Operation.MULTIPLY ? 19 : 38;
      int leftDigits = 1 + random.nextInt(maxDigits);
      int rightDigits = 1 + random.nextInt(maxDigits);
      boolean rightIsBigint = random.nextInt(5) == 0;
      if (rightIsBigint) {
        rightScale = 0;
        rightDigits = 18;
      }
      int scale = operation == WideDecimals.Operation.MULTIPLY ? leftScale + rightScale : Math.max(leftScale, rightScale);
      int leftShift = operation == WideDecimals.Operation.MULTIPLY ? 0 : scale - leftScale;
      int rightShift = operation == WideDecimals.Operation.MULTIPLY ? 0 : scale - rightScale;
      int precision = random.nextBoolean() ? 38 : Math.max(scale + 1, 10 + random.nextInt(29));
      String context = "seed " + seed + " round " + round + " " + operation;
      try (BufferAllocator allocator = new RootAllocator()) {
        BigInteger[] lefts = values(random, leftDigits);
        BigInteger[] rights = values(random, rightDigits);
        FieldVector left = decimals(allocator, "l", Math.max(leftDigits, leftScale + 1), leftScale, lefts);
        FieldVector right = rightIsBigint ? bigints(allocator, rights) : decimals(allocator, "r", Math.max(rightDigits, rightScale + 1), rightScale, rights);
        try (VectorSchemaRoot batch = new VectorSchemaRoot(List.of(left, right))) {
          batch.setRowCount(ROWS);
          Field field = new Field("value", FieldType.nullable(new ArrowType.Decimal(precision, scale, 128)), null);
          ScalarExpression expression =
              WideDecimals.of(field, ScalarExpressions.column(0), leftShift, ScalarExpressions.column(1), rightShift, operation, true);
          BigInteger[] expected = new BigInteger[ROWS];
          boolean overflows = false;
          for (int r = 0; r < ROWS; r++) {
            if (lefts[r] == null || rights[r] == null) {
              continue;
            }
            BigInteger x = lefts[r].multiply(BigInteger.TEN.pow(leftShift));
            BigInteger y = rights[r].multiply(BigInteger.TEN.pow(rightShift));
            expected[r] = switch (operation) {
              case ADD -> x.add(y);
              case SUBTRACT -> x.subtract(y);
              case MULTIPLY -> x.multiply(y);
            };
            overflows |= expected[r].abs().compareTo(BigInteger.TEN.pow(precision)) >= 0;
          }
          if (overflows) {
            assertThatThrownBy(() -> expression.evaluate(batch, allocator).close())
                .as(context)
                .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                .hasMessageContaining("does not fit DECIMAL(" + precision + ", " + scale + ")");
            continue;
          }
          try (Evaluated result = expression.evaluate(batch, allocator)) {
            DecimalVector out = (DecimalVector) result.vector();
            for (int r = 0; r < ROWS; r++) {
              if (expected[r] == null) {
                assertThat(out.isNull(r)).as(context + " row " + r).isTrue();
              } else {
                assertThat(out.getObject(r)).as(context + " row " + r).isEqualTo(new BigDecimal(expected[r], scale));
              }
            }
          }
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(WideDecimals.Operation.class)
  void computesTheExtremesOfBigintExactly(WideDecimals.Operation operation) {
    long[] extremes = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
    BigInteger[] lefts = new BigInteger[ROWS];
    BigInteger[] rights = new BigInteger[ROWS];
    for (int i = 0; i < extremes.length * extremes.length; i++) {
      lefts[i] = BigInteger.valueOf(extremes[i / extremes.length]);
      rights[i] = BigInteger.valueOf(extremes[i % extremes.length]);
    }
    for (int r = extremes.length * extremes.length; r < ROWS; r++) {
      lefts[r] = BigInteger.ZERO;
      rights[r] = BigInteger.ZERO;
    }
    try (BufferAllocator allocator = new RootAllocator()) {
      FieldVector left = bigints(allocator, lefts);
      FieldVector right = bigints(allocator, rights);
      try (VectorSchemaRoot batch = new VectorSchemaRoot(List.of(left, right))) {
        batch.setRowCount(ROWS);
        Field field = new Field("value", FieldType.nullable(new ArrowType.Decimal(38, 0, 128)), null);
        ScalarExpression expression =
            WideDecimals.of(field, ScalarExpressions.column(0), 0, ScalarExpressions.column(1), 0, operation, true);
        try (Evaluated result = expression.evaluate(batch, allocator)) {
          DecimalVector out = (DecimalVector) result.vector();
          for (int r = 0; r < extremes.length * extremes.length; r++) {
            BigInteger expected = switch (operation) {
              case ADD -> lefts[r].add(rights[r]);
              case SUBTRACT -> lefts[r].subtract(rights[r]);
              case MULTIPLY -> lefts[r].multiply(rights[r]);
            };
            assertThat(out.getObject(r)).as(lefts[r] + " " + operation + " " + rights[r]).isEqualTo(new BigDecimal(expected));
          }
        }
      }
    }
  }

  /** Random unscaled values of up to {@code digits} digits, small ones often, one in ten NULL. */
  private static BigInteger[] values(Random random, int digits) {
    BigInteger[] values = new BigInteger[ROWS];
    for (int r = 0; r < ROWS; r++) {
      if (random.nextInt(10) == 0) {
        continue;
      }
      int length = random.nextBoolean() ? 1 + random.nextInt(digits) : digits;
      StringBuilder text = new StringBuilder(random.nextBoolean() ? "-" : "");
      for (int i = 0; i < length; i++) {
        text.append((char) ('0' + random.nextInt(10)));
      }
      values[r] = new BigInteger(text.toString());
    }
    return values;
  }

  private static FieldVector decimals(BufferAllocator allocator, String name, int precision, int scale, BigInteger[] values) {
    DecimalVector vector = new DecimalVector(name, allocator, precision, scale);
    vector.allocateNew(ROWS);
    for (int r = 0; r < ROWS; r++) {
      if (values[r] != null) {
        vector.set(r, new BigDecimal(values[r], scale));
      }
    }
    vector.setValueCount(ROWS);
    return vector;
  }

  private static FieldVector bigints(BufferAllocator allocator, BigInteger[] values) {
    BigIntVector vector = new BigIntVector("r", allocator);
    vector.allocateNew(ROWS);
    for (int r = 0; r < ROWS; r++) {
      if (values[r] != null) {
        vector.set(r, values[r].longValue());
      }
    }
    vector.setValueCount(ROWS);
    return vector;
  }
}
