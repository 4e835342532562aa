package io.sqe.engine.exec.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The byte-copying take against Arrow's own value-by-value {@code copyFromSafe}: random rows of
 * several batches of each layout (fixed widths 2 to 16 bytes, bits, text, and a type it copies
 * value by value), with NULL sources and NULL targets (a negative row), give the same vector. The
 * allocator is closed after each, which fails on a leaked buffer.
 */
class TakeColumnTest {
  @ParameterizedTest
  @ValueSource(strings = {"smallint", "int", "bigint", "date", "double", "decimal", "fixed3", "bit", "varchar", "largevarchar"})
  void copiesChosenRowsAsArrowDoes(String type) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (BufferAllocator allocator = new RootAllocator()) {
      List<FieldVector> batches = new ArrayList<>();
      try {
        int batchCount = 1 + random.nextInt(4);
        for (int b = 0; b < batchCount; b++) {
          // One batch in two has no NULL, which the take reads without its validity.
          batches.add(filled(type, allocator, 1 + random.nextInt(300), b % 2 == 0 ? 0.2 : 0.0, random));
        }
        int count = random.nextInt(700);
        int[] batchOf = new int[count];
        int[] rows = new int[count];
        for (int i = 0; i < count; i++) {
          batchOf[i] = random.nextInt(batchCount);
          rows[i] = random.nextInt(10) == 0 ? -1 : random.nextInt(batches.get(batchOf[i]).getValueCount());
        }
        try (FieldVector taken = vector(type, allocator); FieldVector expected = vector(type, allocator)) {
          TakeColumn.of(batches).into(taken, batchOf, rows, count);
          expected.setInitialCapacity(count);
          expected.allocateNew();
          for (int i = 0; i < count; i++) {
            if (rows[i] >= 0) {
              expected.copyFromSafe(rows[i], i, batches.get(batchOf[i]));
            } else {
              expected.setNull(i);
            }
          }
          expected.setValueCount(count);
          assertThat(taken.getValueCount()).as("seed %s", seed).isEqualTo(count);
          for (int i = 0; i < count; i++) {
            assertThat(taken.getObject(i)).as("seed %s, row %s", seed, i).isEqualTo(expected.getObject(i));
          }
        }
        if (batchCount == 1) {
          try (FieldVector taken = vector(type, allocator)) {
            TakeColumn.of(batches.get(0)).into(taken, null, rows, count);
            for (int i = 0; i < count; i++) {
              Object want = rows[i] < 0 ? null : batches.get(0).getObject(rows[i]);
              assertThat(taken.getObject(i)).as("seed %s, row %s", seed, i).isEqualTo(want);
            }
          }
        }
      } finally {
        batches.forEach(FieldVector::close);
      }
    }
  }

  private static FieldVector filled(String type, BufferAllocator allocator, int rows, double nulls, Random random) {
    FieldVector vector = vector(type, allocator);
    vector.setInitialCapacity(rows);
    vector.allocateNew();
    for (int r = 0; r < rows; r++) {
      if (random.nextDouble() < nulls) {
        vector.setNull(r);
        continue;
      }
      if (vector instanceof SmallIntVector v) {
        v.setSafe(r, (short) random.nextInt());
      } else if (vector instanceof IntVector v) {
        v.setSafe(r, random.nextInt());
      } else if (vector instanceof BigIntVector v) {
        v.setSafe(r, random.nextLong());
      } else if (vector instanceof DateDayVector v) {
        v.setSafe(r, random.nextInt(40000));
      } else if (vector instanceof Float8Vector v) {
        v.setSafe(r, random.nextDouble());
      } else if (vector instanceof DecimalVector v) {
        v.setSafe(r, BigDecimal.valueOf(random.nextLong(), 2));
      } else if (vector instanceof FixedSizeBinaryVector v) {
        v.setSafe(r, new byte[] {(byte) r, (byte) random.nextInt(), 7});
      } else if (vector instanceof BitVector v) {
        v.setSafe(r, random.nextInt(2));
      } else if (vector instanceof VarCharVector v) {
        v.setSafe(r, text(random));
      } else if (vector instanceof LargeVarCharVector v) {
        v.setSafe(r, text(random));
      } else {
        throw new IllegalArgumentException(type);
      }
    }
    vector.setValueCount(rows);
    return vector;
  }

  private static byte[] text(Random random) {
    return "x".repeat(random.nextInt(12)).concat(Integer.toString(random.nextInt())).getBytes(StandardCharsets.UTF_8);
  }

  private static FieldVector vector(String type, BufferAllocator allocator) {
    ArrowType arrow = switch (type) {
      case "smallint" -> new ArrowType.Int(16, true);
      case "int" -> new ArrowType.Int(32, true);
      case "bigint" -> new ArrowType.Int(64, true);
      case "date" -> new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY);
      case "double" -> new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE);
      case "decimal" -> new ArrowType.Decimal(20, 2, 128);
      case "fixed3" -> new ArrowType.FixedSizeBinary(3);
      case "bit" -> ArrowType.Bool.INSTANCE;
      case "varchar" -> ArrowType.Utf8.INSTANCE;
      case "largevarchar" -> ArrowType.LargeUtf8.INSTANCE;
      default -> throw new IllegalArgumentException(type);
    };
    return new Field("c", FieldType.nullable(arrow), null).createVector(allocator);
  }
}
