package io.sqe.engine.exec.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.exec.aggregate.AggregateCall;
import io.sqe.engine.exec.aggregate.AggregateCall.Kind;
import io.sqe.engine.exec.spill.SpillConfig;
import io.sqe.engine.exec.spill.SpillSpace;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.tools.Frameworks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HashAggregateBatches} under a small memory limit against the same aggregate with room:
 * the same rows for every kind of call (text and numeric keys with NULLs, FILTER, 128-bit decimal
 * sums, floating-point sums, text MIN and MAX), bytes spilled, no file left, no buffer leaked (the
 * root allocator, closed after each test, fails on one); and RESOURCE_EXHAUSTED naming the operator
 * when it cannot spill further.
 */
class SpilledAggregateTest {
  private static final Field K1 = Field.nullable("k1", new ArrowType.Int(32, true));
  private static final Field K2 = Field.nullable("k2", ArrowType.Utf8.INSTANCE);
  private static final Field V = Field.nullable("v", new ArrowType.Int(64, true));
  private static final Field D = Field.nullable("d", new ArrowType.Decimal(38, 2, 128));
  private static final Field F = Field.nullable("f", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
  private static final Field S = Field.nullable("s", ArrowType.Utf8.INSTANCE);
  private static final Field FLAG = Field.nullable("flag", ArrowType.Bool.INSTANCE);
  private static final Schema INPUT = new Schema(List.of(K1, K2, V, D, F, S, FLAG));
  private static final Field BIGINT = Field.nullable("c", new ArrowType.Int(64, true));
  private static final List<AggregateCall> CALLS = List.of(
      new AggregateCall(Kind.COUNT_STAR, -1, -1, null, Field.notNullable("n", new ArrowType.Int(64, true))),
      new AggregateCall(Kind.COUNT, 2, 6, V, BIGINT),
      new AggregateCall(Kind.SUM, 2, -1, V, V),
      new AggregateCall(Kind.SUM0, 2, 6, V, V),
      new AggregateCall(Kind.SUM, 3, -1, D, D),
      new AggregateCall(Kind.SUM, 4, -1, F, F),
      new AggregateCall(Kind.MIN, 5, -1, S, S),
      new AggregateCall(Kind.MAX, 5, -1, S, S),
      new AggregateCall(Kind.MAX, 3, -1, D, D),
      new AggregateCall(Kind.ANY_VALUE, 4, -1, F, F));
  private static final Schema OUTPUT = new Schema(List.of(
      K1, K2, CALLS.get(0).output(), BIGINT, V, V, D, F, S, S, D, F));

  @TempDir Path spillDir;

  private BufferAllocator root;
  private long seed;

  @BeforeEach
  void setUp() {
    root = new RootAllocator();
    seed = System.nanoTime();
    System.out.println("SpilledAggregateTest seed " + seed);
  }

  @AfterEach
  void tearDown() {
    root.close();
  }

  @Test
  void aSpilledAggregateGivesTheRowsOfOneWithRoomAndRemovesItsFiles() throws Exception {
    int rows = 150_000;
    QueryContext roomy = context();
    Map<List<Object>, List<Object>> expected;
    try (BufferAllocator query = root.newChildAllocator("roomy", 0, 1L << 30)) {
      expected = groups(source(rows, 4096, query), roomy, query, HashAggregateBatches.MAX_LEVEL);
    }
    assertThat(roomy.stats().spilledBytes()).as("no spill with room").isZero();
    assertThat(roomy.spill().directory()).as("no disk touched").isNull();
    assertThat(expected.size()).isGreaterThan(40_000);

    // 4 MiB: one split of the input; 512 KiB (in batches that fit it): partitions split again.
    for (long limit : new long[] {4L << 20, 512L << 10}) {
      QueryContext small = context();
      Map<List<Object>, List<Object>> spilled;
      try (BufferAllocator query = root.newChildAllocator("small", 0, limit)) {
        spilled = groups(source(rows, limit < 1 << 20 ? 512 : 4096, query), small, query, HashAggregateBatches.MAX_LEVEL);
      }
      assertThat(small.stats().spilledBytes()).isPositive();
      assertThat(spilled).as("seed %s, limit %s", seed, limit).hasSameSizeAs(expected).isEqualTo(expected);
      assertThat(entries(small.spill().directory())).as("partitions deleted once read").isEmpty();
      small.releaseSpill();
    }
    roomy.releaseSpill();
    assertThat(entries(spillDir)).isEmpty();
  }

  @Test
  void closingBeforeTheEndRemovesThePartitions() throws Exception {
    QueryContext context = context();
    try (BufferAllocator query = root.newChildAllocator("small", 0, 4L << 20);
        HashAggregateBatches aggregate = aggregate(source(100_000, 4096, query), context, query, HashAggregateBatches.MAX_LEVEL)) {
      aggregate.next().close();
      assertThat(entries(context.spill().directory())).isNotEmpty();
    }
    assertThat(entries(context.spill().directory())).isEmpty();
    context.releaseSpill();
    assertThat(entries(spillDir)).isEmpty();
  }

  @Test
  void anAggregateThatCannotSpillFurtherFailsResourceExhaustedNamingItself() throws Exception {
    // No spilling at all in 4 MiB; one split in 512 KiB, where batches of 512 rows fit and a
    // sixteenth of the 50,000 groups does not.
    for (int maxLevel : new int[] {-1, 0}) {
      QueryContext context = context();
      try (BufferAllocator query = root.newChildAllocator("small", 0, maxLevel < 0 ? 4L << 20 : 512L << 10)) {
        SqeException error = catchThrowableOfType(
            SqeException.class, () -> groups(source(150_000, 512, query), context, query, maxLevel));
        assertThat(error).as("max level %s", maxLevel).isNotNull();
        assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
        assertThat(error.getMessage()).contains("HashAggregate", "query.max-memory", "even spilling to disk");
      }
      context.releaseSpill();
      assertThat(entries(spillDir)).isEmpty();
    }
  }

  private Map<List<Object>, List<Object>> groups(BatchOperator source, QueryContext context, BufferAllocator query, int maxLevel) {
    Map<List<Object>, List<Object>> groups = new HashMap<>();
    try (HashAggregateBatches aggregate = aggregate(source, context, query, maxLevel)) {
      for (VectorSchemaRoot next = aggregate.next(); next != null; next = aggregate.next()) {
        try (VectorSchemaRoot batch = next) {
          for (int r = 0; r < batch.getRowCount(); r++) {
            List<Object> key = new ArrayList<>();
            List<Object> values = new ArrayList<>();
            for (int c = 0; c < batch.getFieldVectors().size(); c++) {
              FieldVector vector = batch.getVector(c);
              Object value = vector.isNull(r) ? null : vector.getObject(r);
              (c < 2 ? key : values).add(value == null ? null : value.toString());
            }
            assertThat(groups.put(key, values)).as("group %s once", key).isNull();
          }
        }
      }
    }
    return groups;
  }

  private static HashAggregateBatches aggregate(BatchOperator source, QueryContext context, BufferAllocator query, int maxLevel) {
    return new HashAggregateBatches(source, new int[] {0, 1}, List.of(K1, K2), CALLS, OUTPUT, context, query, maxLevel, 0);
  }

  /**
   * {@code rows} rows in batches of {@code batchRows} made as they are read, from the test's seed:
   * about a third as many groups as rows, NULLs in both keys and in the values.
   */
  private BatchOperator source(int rows, int batchRows, BufferAllocator allocator) {
    Random random = new Random(seed);
    int domain = rows / 3;
    return new BatchOperator() {
      private int made;

      @Override
      public VectorSchemaRoot next() {
        if (made >= rows) {
          return null;
        }
        int count = Math.min(batchRows, rows - made);
        VectorSchemaRoot batch = VectorSchemaRoot.create(INPUT, allocator);
        for (FieldVector vector : batch.getFieldVectors()) {
          vector.setInitialCapacity(count);
          vector.allocateNew();
        }
        for (int r = 0; r < count; r++) {
          int k = random.nextInt(domain);
          if (k % 101 == 0) {
            ((IntVector) batch.getVector(0)).setNull(r);
          } else {
            ((IntVector) batch.getVector(0)).setSafe(r, k % 5000);
          }
          if (k % 103 == 0) {
            ((VarCharVector) batch.getVector(1)).setNull(r);
          } else {
            ((VarCharVector) batch.getVector(1)).setSafe(r, ("key-" + k / 5000).getBytes());
          }
          int v = random.nextInt(1000);
          if (v % 13 == 0) {
            ((BigIntVector) batch.getVector(2)).setNull(r);
            ((DecimalVector) batch.getVector(3)).setNull(r);
            ((Float8Vector) batch.getVector(4)).setNull(r);
            ((VarCharVector) batch.getVector(5)).setNull(r);
          } else {
            ((BigIntVector) batch.getVector(2)).setSafe(r, v * 1_000_000_007L);
            ((DecimalVector) batch.getVector(3)).setSafe(r, new BigDecimal("123456789012345678901234567.89").multiply(BigDecimal.valueOf(v - 500)));
            ((Float8Vector) batch.getVector(4)).setSafe(r, v / 7.0);
            ((VarCharVector) batch.getVector(5)).setSafe(r, ("value " + random.nextInt(1_000_000)).getBytes());
          }
          if (v % 7 == 0) {
            ((BitVector) batch.getVector(6)).setNull(r);
          } else {
            ((BitVector) batch.getVector(6)).setSafe(r, v % 2);
          }
        }
        batch.setRowCount(count);
        made += count;
        return batch;
      }

      @Override
      public void close() {}
    };
  }

  private QueryContext context() {
    QueryRun run = QueryRun.untracked("agg-" + seed);
    return new QueryContext(
        run.queryId(), Frameworks.createRootSchema(false), new JavaTypeFactoryImpl(), Map.of(), run, ExecutionOptions.DEFAULT,
        SpillSpace.open(new SpillConfig(spillDir, SpillConfig.DEFAULT_MAX_BYTES_PER_QUERY)));
  }

  private static List<Path> entries(Path directory) throws Exception {
    try (Stream<Path> list = Files.list(directory)) {
      return list.toList();
    }
  }
}
