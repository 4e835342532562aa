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
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Gathered rows equal their source rows, value for value and null for null, for every column kind
 * the word and byte copies take and for one they leave to Arrow (a list), from one source and from
 * several, with rows repeated, skipped and asked for as nulls (-1). The expected values are read
 * back from the sources with {@code getObject}; the root allocator fails on any buffer left behind.
 */
class GatherTest {
  private static final Schema SCHEMA = new Schema(List.of(
      Field.nullable("big", new ArrowType.Int(64, true)),
      Field.nullable("int", new ArrowType.Int(32, true)),
      Field.nullable("small", new ArrowType.Int(16, true)),
      Field.nullable("tiny", new ArrowType.Int(8, true)),
      Field.nullable("dbl", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      Field.nullable("dec38", new ArrowType.Decimal(38, 4, 128)),
      Field.nullable("dec12", new ArrowType.Decimal(12, 2, 128)),
      Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
      Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
      Field.nullable("flag", ArrowType.Bool.INSTANCE),
      Field.nullable("text", ArrowType.Utf8.INSTANCE),
      Field.nullable("bytes", ArrowType.Binary.INSTANCE),
      Field.nullable("fixed", new ArrowType.FixedSizeBinary(3)),
      new Field("list", FieldType.nullable(ArrowType.List.INSTANCE),
          List.of(Field.nullable("item", new ArrowType.Int(32, true))))));

  private BufferAllocator root;

  @BeforeEach
  void open() {
    root = new RootAllocator();
  }

  @AfterEach
  void close() {
    root.close();
  }

  @Test
  void rowsOfOneSourceEqualTheirSourceRows() {
    Random random = new Random(7);
    try (VectorSchemaRoot source = batch(random, 1000, 0.2)) {
      int[] rows = randomRows(random, 1500, 1000, false);
      try (VectorSchemaRoot out = Gather.rows(SCHEMA, root, source, rows, rows.length)) {
        assertGathered(out, List.of(source), null, rows);
      }
    }
  }

  @Test
  void rowsOfSeveralSourcesWithNullRowsEqualTheirSourceRows() {
    Random random = new Random(11);
    List<VectorSchemaRoot> sources = new ArrayList<>();
    try {
      int[] sizes = {300, 1, 700};
      for (int size : sizes) {
        sources.add(batch(random, size, size == 700 ? 0.0 : 0.3));
      }
      int count = 4000;
      int[] sourceOf = new int[count];
      int[] rows = new int[count];
      for (int i = 0; i < count; i++) {
        sourceOf[i] = random.nextInt(sizes.length);
        rows[i] = random.nextInt(10) == 0 ? -1 : random.nextInt(sizes[sourceOf[i]]);
      }
      try (VectorSchemaRoot out = Gather.rows(SCHEMA, root, sources, sourceOf, rows, count)) {
        assertGathered(out, sources, sourceOf, rows);
      }
      // The same through the functional form, which finds the sources itself.
      try (VectorSchemaRoot out = Gather.rows(SCHEMA, root, count, i -> sources.get(sourceOf[i]), i -> rows[i])) {
        assertGathered(out, sources, sourceOf, rows);
      }
    } finally {
      sources.forEach(VectorSchemaRoot::close);
    }
  }

  @Test
  void noRowsGiveAnEmptyBatch() {
    Random random = new Random(3);
    try (VectorSchemaRoot source = batch(random, 10, 0.5);
        VectorSchemaRoot out = Gather.rows(SCHEMA, root, source, new int[0], 0)) {
      assertThat(out.getRowCount()).isZero();
      assertThat(out.getFieldVectors()).allSatisfy(vector -> assertThat(vector.getValueCount()).isZero());
    }
  }

  private static void assertGathered(VectorSchemaRoot out, List<VectorSchemaRoot> sources, int[] sourceOf, int[] rows) {
    assertThat(out.getRowCount()).isEqualTo(rows.length);
    for (int c = 0; c < SCHEMA.getFields().size(); c++) {
      FieldVector vector = out.getVector(c);
      assertThat(vector.getValueCount()).isEqualTo(rows.length);
      for (int i = 0; i < rows.length; i++) {
        Object expected = rows[i] < 0 ? null : sources.get(sourceOf == null ? 0 : sourceOf[i]).getVector(c).getObject(rows[i]);
        Object actual = vector.getObject(i);
        if (expected instanceof byte[] bytes) {
          assertThat((byte[]) actual).as("%s row %d", vector.getName(), i).isEqualTo(bytes);
        } else {
          assertThat(actual).as("%s row %d", vector.getName(), i).isEqualTo(expected);
        }
      }
    }
  }

  private static int[] randomRows(Random random, int count, int bound, boolean nulls) {
    int[] rows = new int[count];
    for (int i = 0; i < count; i++) {
      rows[i] = nulls && random.nextInt(10) == 0 ? -1 : random.nextInt(bound);
    }
    return rows;
  }

  private VectorSchemaRoot batch(Random random, int rows, double nullRate) {
    VectorSchemaRoot batch = VectorSchemaRoot.create(SCHEMA, root);
    batch.allocateNew();
    UnionListWriter lists = ((ListVector) batch.getVector("list")).getWriter();
    for (int r = 0; r < rows; r++) {
      boolean isNull = random.nextDouble() < nullRate;
      if (isNull) {
        for (FieldVector vector : batch.getFieldVectors()) {
          if (!(vector instanceof ListVector)) {
            vector.setNull(r);
          }
        }
        continue;
      }
      ((BigIntVector) batch.getVector("big")).setSafe(r, random.nextLong());
      ((IntVector) batch.getVector("int")).setSafe(r, random.nextInt());
      ((SmallIntVector) batch.getVector("small")).setSafe(r, (short) random.nextInt());
      ((TinyIntVector) batch.getVector("tiny")).setSafe(r, (byte) random.nextInt());
      ((Float8Vector) batch.getVector("dbl")).setSafe(r, random.nextGaussian());
      ((DecimalVector) batch.getVector("dec38")).setSafe(r, new BigDecimal(random.nextLong() + "" + Math.abs(random.nextLong())).movePointLeft(4));
      ((DecimalVector) batch.getVector("dec12")).setSafe(r, BigDecimal.valueOf(random.nextInt(), 2));
      ((DateDayVector) batch.getVector("day")).setSafe(r, random.nextInt(30000));
      ((TimeStampMicroVector) batch.getVector("ts")).setSafe(r, random.nextLong() >> 8);
      ((BitVector) batch.getVector("flag")).setSafe(r, random.nextBoolean() ? 1 : 0);
      byte[] text = ("v" + random.nextInt(1000) + "é".repeat(random.nextInt(5))).getBytes(StandardCharsets.UTF_8);
      ((VarCharVector) batch.getVector("text")).setSafe(r, text);
      byte[] bytes = new byte[random.nextInt(40)];
      random.nextBytes(bytes);
      ((VarBinaryVector) batch.getVector("bytes")).setSafe(r, bytes);
      byte[] fixed = new byte[3];
      random.nextBytes(fixed);
      ((FixedSizeBinaryVector) batch.getVector("fixed")).setSafe(r, fixed);
      lists.setPosition(r);
      lists.startList();
      for (int k = random.nextInt(4); k > 0; k--) {
        lists.integer().writeInt(random.nextInt(100));
      }
      lists.endList();
    }
    lists.setValueCount(rows);
    batch.setRowCount(rows);
    return batch;
  }
}
