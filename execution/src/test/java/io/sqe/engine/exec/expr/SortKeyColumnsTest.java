package io.sqe.engine.exec.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/**
 * The sort keys' copied arrays against {@link RowComparator} on the vectors, the order they must
 * keep: random pairs of rows of several batches, keys of text with long shared beginnings, values
 * of exactly 8 bytes, zero bytes and multi-byte characters, binary, doubles and floats with -0.0,
 * NaN and infinities, longs, NULLs, both directions and both places of nulls.
 */
class SortKeyColumnsTest {
  private static final String[] TEXTS = {"", "a", "ab", "ab\0", "ab\0\0\0\0\0\0", "ab\0\0\0\0\0\0x", "abcdefgh", "abcdefghi",
      "abcdefgha", "STANDARD BRUSHED TIN", "STANDARD BRUSHED COPPER", "STANDARD POLISHED", "Brand#12", "Brand#13", "é", "日本", "ÿ"};
  private static final double[] DOUBLES = {0.0, -0.0, 1.5, -1.5, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
      Double.MIN_VALUE, -Double.MAX_VALUE, 1e300};

  @Test
  void ordersAsTheComparatorOnTheVectors() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int round = 0; round < 20; round++) {
        List<List<FieldVector>> batches = new ArrayList<>();
        for (int b = 0; b < 1 + random.nextInt(4); b++) {
          batches.add(batch(allocator, random, 1 + random.nextInt(200)));
        }
        try {
          List<RowComparator.Key> keys = new ArrayList<>();
          for (int k = 0; k < 1 + random.nextInt(3); k++) {
            keys.add(new RowComparator.Key(random.nextInt(5), random.nextBoolean(), random.nextBoolean()));
          }
          RowComparator comparator = new RowComparator(keys);
          SortKeyColumns sortKeys = new SortKeyColumns(comparator, batches);
          for (int pair = 0; pair < 5000; pair++) {
            int aBatch = random.nextInt(batches.size());
            int bBatch = random.nextInt(batches.size());
            int aRow = random.nextInt(batches.get(aBatch).get(0).getValueCount());
            int bRow = random.nextInt(batches.get(bBatch).get(0).getValueCount());
            int expected = Integer.signum(comparator.compare(batches.get(aBatch), aRow, batches.get(bBatch), bRow));
            int actual = Integer.signum(sortKeys.compare((long) aBatch << 32 | aRow, (long) bBatch << 32 | bRow));
            assertThat(actual).as("seed %d, keys %s, rows %d:%d and %d:%d", seed, keys, aBatch, aRow, bBatch, bRow).isEqualTo(expected);
          }
        } finally {
          batches.forEach(columns -> columns.forEach(FieldVector::close));
        }
      }
    }
  }

  /** Columns: text, binary, double, float, bigint; about one value in ten NULL. */
  private static List<FieldVector> batch(BufferAllocator allocator, Random random, int rows) {
    VarCharVector text = new VarCharVector("t", allocator);
    VarBinaryVector binary = new VarBinaryVector("b", allocator);
    Float8Vector doubles = new Float8Vector("d", allocator);
    Float4Vector floats = new Float4Vector("f", allocator);
    BigIntVector longs = new BigIntVector("l", allocator);
    text.allocateNew();
    binary.allocateNew();
    doubles.allocateNew(rows);
    floats.allocateNew(rows);
    longs.allocateNew(rows);
    for (int r = 0; r < rows; r++) {
      if (random.nextInt(10) == 0) {
        text.setNull(r);
      } else {
        text.setSafe(r, TEXTS[random.nextInt(TEXTS.length)].getBytes(StandardCharsets.UTF_8));
      }
      if (random.nextInt(10) == 0) {
        binary.setNull(r);
      } else {
        byte[] bytes = new byte[random.nextInt(12)];
        for (int i = 0; i < bytes.length; i++) {
          bytes[i] = (byte) (random.nextInt(3) - 1);
        }
        binary.setSafe(r, bytes);
      }
      if (random.nextInt(10) == 0) {
        doubles.setNull(r);
        floats.setNull(r);
      } else {
        double value = DOUBLES[random.nextInt(DOUBLES.length)];
        doubles.set(r, value);
        floats.set(r, (float) value);
      }
      if (random.nextInt(10) == 0) {
        longs.setNull(r);
      } else {
        longs.set(r, random.nextInt(5) - 2L);
      }
    }
    List<FieldVector> columns = List.of(text, binary, doubles, floats, longs);
    columns.forEach(vector -> vector.setValueCount(rows));
    return columns;
  }
}
