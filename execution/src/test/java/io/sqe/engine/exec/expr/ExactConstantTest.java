package io.sqe.engine.exec.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * A DECIMAL(38, s) column compared with constants of its scale on its 128 bits, against {@link
 * BigInteger#compareTo}: random values of 1 to 38 digits and both signs, values equal to the
 * constant and one off it, NULLs, and constants past 128 bits.
 */
class ExactConstantTest {
  @Test
  void comparesAs128BitNumbers() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (BufferAllocator allocator = new RootAllocator(); DecimalVector vector = new DecimalVector("d", allocator, 38, 2)) {
      int rows = 3000;
      vector.allocateNew(rows);
      List<BigInteger> values = new ArrayList<>();
      BigInteger constant = number(random, 1 + random.nextInt(38));
      for (int r = 0; r < rows; r++) {
        BigInteger value = switch (random.nextInt(8)) {
          case 0 -> null;
          case 1 -> constant;
          case 2 -> constant.add(BigInteger.valueOf(random.nextBoolean() ? 1 : -1));
          default -> number(random, 1 + random.nextInt(38));
        };
        values.add(value);
        if (value == null) {
          vector.setNull(r);
        } else {
          vector.set(r, new BigDecimal(value, 2));
        }
      }
      vector.setValueCount(rows);
      try (VectorSchemaRoot batch = new VectorSchemaRoot(List.of(vector.getField()), List.<FieldVector>of(vector), rows)) {
        List<BigInteger> constants = List.of(constant, constant.negate(), BigInteger.ZERO, BigInteger.ONE.shiftLeft(130), BigInteger.ONE.shiftLeft(130).negate());
        for (BigInteger c : constants) {
          for (Comparison op : Comparison.values()) {
            int[] sel = new int[rows];
            for (int i = 0; i < rows; i++) {
              sel[i] = i;
            }
            int kept = Predicates.compareExactConstant(0, op, c).filter(batch, sel, rows);
            List<Integer> actual = new ArrayList<>();
            for (int i = 0; i < kept; i++) {
              actual.add(sel[i]);
            }
            List<Integer> expected = new ArrayList<>();
            for (int r = 0; r < rows; r++) {
              if (values.get(r) != null && op.holds(values.get(r).compareTo(c))) {
                expected.add(r);
              }
            }
            assertThat(actual).as("seed %d: d %s %s", seed, op, c).isEqualTo(expected);
          }
        }
      }
    }
  }

  private static BigInteger number(Random random, int digits) {
    StringBuilder text = new StringBuilder(random.nextBoolean() ? "-" : "");
    for (int i = 0; i < digits; i++) {
      text.append((char) ('0' + random.nextInt(10)));
    }
    return new BigInteger(text.toString());
  }
}
