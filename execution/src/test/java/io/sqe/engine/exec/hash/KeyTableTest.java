package io.sqe.engine.exec.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** KeyTable against a HashMap of the same keys, for every key type, one key and several. */
class KeyTableTest {
  private static final int BATCH = 4096;

  private BufferAllocator root;
  /** Whether {@link #batch} repeats a row's key (or NULL) in the next rows three times in four. */
  private boolean runs;

  @BeforeEach
  void open() {
    root = new RootAllocator();
  }

  @AfterEach
  void close() {
    // Fails on any buffer left behind.
    root.close();
  }

  static Stream<String> types() {
    return Stream.of(
        "int", "bigint", "smallint", "tinyint", "float", "double", "decimal10", "decimal38", "date", "time",
        "timestamp", "varchar", "varbinary", "largevarchar", "boolean", "fixed16");
  }

  @ParameterizedTest
  @MethodSource("types")
  void oneKeyAgreesWithHashMap(String type) {
    long seed = System.nanoTime();
    System.out.println("seed " + seed + " " + type);
    agrees(List.of(field("k", type)), new Random(seed), type.equals("boolean") || type.equals("tinyint") ? 300 : 20_000);
  }

  /** Keys in runs, as in a table sorted by them, which a single key's table reads without a probe per row. */
  @ParameterizedTest
  @MethodSource("types")
  void oneKeyInRunsAgreesWithHashMap(String type) {
    long seed = System.nanoTime();
    System.out.println("seed " + seed + " " + type);
    runs = true;
    agrees(List.of(field("k", type)), new Random(seed), 20_000);
  }

  @ParameterizedTest
  @MethodSource("types")
  void twoKeysAgreeWithHashMap(String type) {
    long seed = System.nanoTime();
    System.out.println("seed " + seed + " " + type);
    agrees(List.of(field("a", "int"), field("b", type)), new Random(seed), 5_000);
  }

  @Test
  void manyKeysOfMixedTypesAgreeWithHashMap() {
    long seed = System.nanoTime();
    System.out.println("seed " + seed);
    List<Field> fields = new ArrayList<>();
    for (String type : types().toList()) {
      fields.add(field("k" + fields.size(), type));
    }
    agrees(fields, new Random(seed), 3);
  }

  @Test
  void negativeZeroAndNaNAreOneKeyEach() {
    try (KeyTable table = new KeyTable(List.of(field("d", "double")), root);
        Float8Vector v = new Float8Vector("d", root)) {
      double[] values = {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7FF8000000000123L), -Double.NaN, 1.5};
      for (int i = 0; i < values.length; i++) {
        v.setSafe(i, values[i]);
      }
      v.setValueCount(values.length);
      int[] ids = new int[values.length];
      table.insert(List.of(v), values.length, ids);
      assertThat(ids).containsExactly(0, 0, 1, 1, 1, 2);
    }
  }

  @Test
  void findNeverMatchesNullKeys() {
    try (KeyTable table = new KeyTable(List.of(field("a", "int"), field("b", "varchar")), root);
        IntVector a = new IntVector("a", root);
        VarCharVector b = new VarCharVector("b", root)) {
      a.setSafe(0, 1);
      b.setNull(0);
      a.setSafe(1, 1);
      b.setSafe(1, new Text("x"));
      a.setValueCount(2);
      b.setValueCount(2);
      int[] ids = new int[2];
      table.insert(List.of(a, b), 2, ids);
      assertThat(ids).containsExactly(0, 1);
      table.find(List.of(a, b), 2, ids);
      assertThat(ids).containsExactly(-1, 1);
    }
  }

  @Test
  void lookupFindsNullKeysAsGroupsAndAddsNothing() {
    for (List<Field> keys : List.of(List.of(field("a", "int")), List.of(field("a", "int"), field("b", "varchar")))) {
      try (KeyTable table = new KeyTable(keys, root);
          IntVector a = new IntVector("a", root);
          VarCharVector b = new VarCharVector("b", root)) {
        a.setNull(0);
        b.setNull(0);
        a.setSafe(1, 1);
        b.setSafe(1, new Text("x"));
        a.setSafe(2, 2);
        b.setSafe(2, new Text("y"));
        a.setValueCount(3);
        b.setValueCount(3);
        List<FieldVector> columns = keys.size() == 1 ? List.of(a) : List.of(a, b);
        int[] ids = new int[3];
        table.insert(columns, 2, ids);
        assertThat(ids).startsWith(0, 1);
        table.lookup(columns, 3, ids);
        assertThat(ids).as("%s keys", keys.size()).containsExactly(0, 1, -1);
        assertThat(table.size()).isEqualTo(2);
      }
    }
  }

  @Test
  void refusesNestedKeys() {
    Field list = new Field("l", FieldType.nullable(ArrowType.List.INSTANCE), List.of(field("e", "int")));
    assertThatThrownBy(() -> new KeyTable(List.of(list), root)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aFullAllocatorFailsWithArrowsErrorAndLeaksNothing() {
    try (BufferAllocator small = root.newChildAllocator("small", 0, 64 * 1024);
        KeyTable table = new KeyTable(List.of(field("k", "varchar")), small);
        VarCharVector v = new VarCharVector("k", root)) {
      for (int i = 0; i < BATCH; i++) {
        v.setSafe(i, ("key number " + i).getBytes(StandardCharsets.UTF_8));
      }
      v.setValueCount(BATCH);
      int[] ids = new int[BATCH];
      assertThatThrownBy(() -> table.insert(List.of(v), BATCH, ids)).isInstanceOf(OutOfMemoryException.class);
    }
  }

  private void agrees(List<Field> fields, Random random, int domain) {
    Map<List<Object>, Integer> reference = new HashMap<>();
    List<List<Object>> referenceKeys = new ArrayList<>();
    try (KeyTable table = new KeyTable(fields, root)) {
      int[] ids = new int[BATCH];
      for (int batch = 0; batch < 12; batch++) {
        List<FieldVector> columns = batch(fields, random, domain, BATCH);
        try {
          table.insert(columns, BATCH, ids);
          for (int r = 0; r < BATCH; r++) {
            List<Object> key = key(columns, r);
            Integer id = reference.get(key);
            if (id == null) {
              id = referenceKeys.size();
              reference.put(key, id);
              referenceKeys.add(key);
            }
            assertThat(ids[r]).as("row %s key %s", r, key).isEqualTo(id);
          }
        } finally {
          columns.forEach(FieldVector::close);
        }
      }
      assertThat(table.size()).isEqualTo(referenceKeys.size());

      List<FieldVector> probe = batch(fields, random, domain * 2, BATCH);
      try {
        table.find(probe, BATCH, ids);
        for (int r = 0; r < BATCH; r++) {
          List<Object> key = key(probe, r);
          Integer id = key.contains(null) ? null : reference.get(key);
          assertThat(ids[r]).as("find %s", key).isEqualTo(id == null ? -1 : id);
        }
      } finally {
        probe.forEach(FieldVector::close);
      }

      List<FieldVector> out = new ArrayList<>();
      for (Field field : fields) {
        FieldVector vector = field.createVector(root);
        vector.allocateNew();
        out.add(vector);
      }
      try {
        int size = table.size();
        for (int from = 0; from < size; from += 1000) {
          table.copyKeys(from, Math.min(1000, size - from), out);
        }
        for (int id = 0; id < size; id++) {
          assertThat(key(out, id)).as("key of id %s", id).isEqualTo(referenceKeys.get(id));
        }
      } finally {
        out.forEach(FieldVector::close);
      }
    }
  }

  private List<FieldVector> batch(List<Field> fields, Random random, int domain, int rows) {
    List<FieldVector> columns = new ArrayList<>();
    for (Field field : fields) {
      FieldVector vector = field.createVector(root);
      vector.allocateNew();
      columns.add(vector);
      boolean isNull = false;
      int value = 0;
      for (int r = 0; r < rows; r++) {
        if (!runs || r == 0 || random.nextInt(4) == 0) {
          isNull = random.nextInt(20) == 0;
          value = random.nextInt(domain);
        }
        if (isNull) {
          setNull(vector, r);
        } else {
          set(vector, r, value);
        }
      }
      vector.setValueCount(rows);
    }
    return columns;
  }

  private static void setNull(FieldVector vector, int r) {
    if (vector instanceof VarCharVector v) {
      v.setNull(r);
    } else if (vector instanceof VarBinaryVector v) {
      v.setNull(r);
    } else if (vector instanceof LargeVarCharVector v) {
      v.setNull(r);
    } else {
      while (vector.getValueCapacity() <= r) {
        vector.reAlloc();
      }
      ((org.apache.arrow.vector.BaseFixedWidthVector) vector).setNull(r);
    }
  }

  private static void set(FieldVector vector, int r, int n) {
    if (vector instanceof IntVector v) {
      v.setSafe(r, n * 7919 - 1_000_000);
    } else if (vector instanceof BigIntVector v) {
      v.setSafe(r, n * 1_000_000_007L - (1L << 40));
    } else if (vector instanceof SmallIntVector v) {
      v.setSafe(r, (short) (n - 10_000));
    } else if (vector instanceof TinyIntVector v) {
      v.setSafe(r, (byte) n);
    } else if (vector instanceof Float4Vector v) {
      v.setSafe(r, n == 0 ? -0.0f : n == 1 ? Float.NaN : n * 0.25f);
    } else if (vector instanceof Float8Vector v) {
      v.setSafe(r, n == 0 ? -0.0 : n == 1 ? Double.longBitsToDouble(0x7FF8000000000001L) : n == 2 ? 0.0 : n * 0.1);
    } else if (vector instanceof DecimalVector v) {
      BigDecimal value = BigDecimal.valueOf(n * 12345L - 7, 2);
      v.setSafe(r, v.getPrecision() > 18 ? value.multiply(BigDecimal.TEN.pow(25)).setScale(2) : value);
    } else if (vector instanceof DateDayVector v) {
      v.setSafe(r, n - 3000);
    } else if (vector instanceof TimeMicroVector v) {
      v.setSafe(r, n * 1_000_003L);
    } else if (vector instanceof TimeStampMicroTZVector v) {
      v.setSafe(r, n * 86_400_000_017L);
    } else if (vector instanceof VarCharVector v) {
      v.setSafe(r, text(n).getBytes(StandardCharsets.UTF_8));
    } else if (vector instanceof LargeVarCharVector v) {
      v.setSafe(r, text(n).getBytes(StandardCharsets.UTF_8));
    } else if (vector instanceof VarBinaryVector v) {
      v.setSafe(r, bytes(n));
    } else if (vector instanceof BitVector v) {
      v.setSafe(r, n & 1);
    } else if (vector instanceof FixedSizeBinaryVector v) {
      v.setSafe(r, ByteBuffer.allocate(16).putLong(8, n * 31L).array());
    } else {
      throw new IllegalArgumentException(vector.getField().toString());
    }
  }

  private static String text(int n) {
    // Lengths from 0 to beyond 16 bytes, and non-ASCII text.
    return n % 5 == 0 ? "" : "é".repeat(n % 11) + n;
  }

  private static byte[] bytes(int n) {
    byte[] value = new byte[n % 13];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) (n >> i);
    }
    return value;
  }

  /** Row {@code r}'s key as Java values that are equal when SQL groups them together. */
  private static List<Object> key(List<FieldVector> columns, int r) {
    List<Object> key = new ArrayList<>();
    for (FieldVector vector : columns) {
      Object value = vector.getObject(r);
      if (value instanceof Double d) {
        value = d + 0.0;
      } else if (value instanceof Float f) {
        value = f + 0.0f;
      } else if (value instanceof byte[] b) {
        value = ByteBuffer.wrap(b);
      } else if (value instanceof Text t) {
        value = t.toString();
      }
      key.add(value);
    }
    return key;
  }

  private static Field field(String name, String type) {
    ArrowType arrow = switch (type) {
      case "int" -> new ArrowType.Int(32, true);
      case "bigint" -> new ArrowType.Int(64, true);
      case "smallint" -> new ArrowType.Int(16, true);
      case "tinyint" -> new ArrowType.Int(8, true);
      case "float" -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case "double" -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case "decimal10" -> new ArrowType.Decimal(10, 2, 128);
      case "decimal38" -> new ArrowType.Decimal(38, 2, 128);
      case "date" -> new ArrowType.Date(DateUnit.DAY);
      case "time" -> new ArrowType.Time(TimeUnit.MICROSECOND, 64);
      case "timestamp" -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
      case "varchar" -> ArrowType.Utf8.INSTANCE;
      case "varbinary" -> ArrowType.Binary.INSTANCE;
      case "largevarchar" -> ArrowType.LargeUtf8.INSTANCE;
      case "boolean" -> ArrowType.Bool.INSTANCE;
      case "fixed16" -> new ArrowType.FixedSizeBinary(16);
      default -> throw new IllegalArgumentException(type);
    };
    return Field.nullable(name, arrow);
  }
}
