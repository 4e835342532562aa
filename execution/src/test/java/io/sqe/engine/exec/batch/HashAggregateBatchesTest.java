package io.sqe.engine.exec.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.exec.aggregate.AggregateCall;
import io.sqe.engine.exec.aggregate.AggregateCall.Kind;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The hash aggregate's calls that SQL reaches only through plans the columnar operators do not
 * lower yet (FILTER, scalar sub-queries, ANY_VALUE), REAL and DECIMAL(38) sums, and more groups
 * than one output batch, checked against sums computed here; the root allocator, closed after
 * each test, fails on any buffer left behind.
 */
class HashAggregateBatchesTest {
  private static final Field KEY = Field.nullable("k", new ArrowType.Int(32, true));
  private static final Field FLAG = Field.nullable("flag", ArrowType.Bool.INSTANCE);
  private static final Field REAL = Field.nullable("r", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
  private static final Field WIDE = Field.nullable("w", new ArrowType.Decimal(38, 2, 128));
  private static final Field BIGINT = Field.nullable("n", new ArrowType.Int(64, true));
  private static final Schema INPUT = new Schema(List.of(KEY, FLAG, REAL, WIDE));

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
  void filteredCallsRealAndWideDecimalSumsOverManyGroups() {
    long seed = System.nanoTime();
    System.out.println("seed " + seed);
    Random random = new Random(seed);
    int groups = 10_000;
    Map<Integer, long[]> counts = new HashMap<>();
    Map<Integer, Float> reals = new HashMap<>();
    Map<Integer, BigDecimal> wides = new HashMap<>();
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int b = 0; b < 6; b++) {
      VectorSchemaRoot batch = VectorSchemaRoot.create(INPUT, root);
      batch.allocateNew();
      for (int r = 0; r < 4000; r++) {
        int k = random.nextInt(groups);
        boolean flag = random.nextBoolean();
        float real = random.nextInt(1000) / 8.0f;
        BigDecimal wide = new BigDecimal("123456789012345678901234567890.12").multiply(BigDecimal.valueOf(random.nextInt(100) - 50));
        ((IntVector) batch.getVector(0)).setSafe(r, k);
        if (r % 11 == 0) {
          ((BitVector) batch.getVector(1)).setNull(r);
        } else {
          ((BitVector) batch.getVector(1)).setSafe(r, flag ? 1 : 0);
        }
        ((Float4Vector) batch.getVector(2)).setSafe(r, real);
        ((DecimalVector) batch.getVector(3)).setSafe(r, wide);
        long[] count = counts.computeIfAbsent(k, x -> new long[1]);
        if (r % 11 != 0 && flag) {
          count[0]++;
          wides.merge(k, wide, BigDecimal::add);
        }
        reals.merge(k, real, Float::sum);
      }
      batch.setRowCount(4000);
      batches.add(batch);
    }
    List<AggregateCall> calls = List.of(
        new AggregateCall(Kind.COUNT_STAR, -1, 1, null, Field.notNullable("c", new ArrowType.Int(64, true))),
        new AggregateCall(Kind.SUM, 2, -1, REAL, REAL),
        new AggregateCall(Kind.SUM, 3, 1, WIDE, WIDE));
    Schema output = new Schema(List.of(KEY, calls.get(0).output(), REAL, WIDE));
    int rows = 0;
    int outputBatches = 0;
    try (HashAggregateBatches aggregate = new HashAggregateBatches(source(batches), new int[] {0}, List.of(KEY), calls, output, context(), root)) {
      while (true) {
        try (VectorSchemaRoot batch = aggregate.next()) {
          if (batch == null) {
            break;
          }
          outputBatches++;
          assertThat(batch.getRowCount()).isLessThanOrEqualTo(HashAggregateBatches.OUTPUT_ROWS);
          for (int r = 0; r < batch.getRowCount(); r++) {
            int k = ((IntVector) batch.getVector(0)).get(r);
            assertThat(batch.getVector(1).getObject(r)).as("count %s", k).isEqualTo(counts.get(k)[0]);
            assertThat(batch.getVector(2).getObject(r)).as("real %s", k).isEqualTo(reals.get(k));
            assertThat(batch.getVector(3).getObject(r)).as("wide %s", k).isEqualTo(wides.get(k));
            rows++;
          }
        }
      }
    }
    assertThat(rows).isEqualTo(counts.size());
    assertThat(outputBatches).isGreaterThan(1);
  }

  @Test
  void aPartialAggregateReturnsItsGroupsWhenItHoldsEnoughAndStartsAgain() {
    long seed = System.nanoTime();
    System.out.println("seed " + seed);
    Random random = new Random(seed);
    Schema input = new Schema(List.of(KEY, BIGINT));
    Map<Integer, Long> sums = new HashMap<>();
    Map<Integer, Long> counts = new HashMap<>();
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int b = 0; b < 8; b++) {
      VectorSchemaRoot batch = VectorSchemaRoot.create(input, root);
      batch.allocateNew();
      for (int r = 0; r < 1000; r++) {
        // Keys clustered by batch, as a table sorted by them, with some from anywhere.
        int k = random.nextInt(5) == 0 ? random.nextInt(8000) : b * 1000 + random.nextInt(1000);
        long value = random.nextInt(2000) - 1000;
        ((IntVector) batch.getVector(0)).setSafe(r, k);
        ((BigIntVector) batch.getVector(1)).setSafe(r, value);
        sums.merge(k, value, Long::sum);
        counts.merge(k, 1L, Long::sum);
      }
      batch.setRowCount(1000);
      batches.add(batch);
    }
    Field count = Field.notNullable("c", new ArrowType.Int(64, true));
    List<AggregateCall> calls = List.of(new AggregateCall(Kind.SUM, 1, -1, BIGINT, BIGINT), new AggregateCall(Kind.COUNT_STAR, -1, -1, null, count));
    Schema output = new Schema(List.of(KEY, BIGINT, count));
    Map<Integer, Long> combinedSums = new HashMap<>();
    Map<Integer, Long> combinedCounts = new HashMap<>();
    int rows = 0;
    try (HashAggregateBatches aggregate =
        HashAggregateBatches.partial(source(batches), new int[] {0}, List.of(KEY), calls, output, context(), root, 700)) {
      while (true) {
        try (VectorSchemaRoot batch = aggregate.next()) {
          if (batch == null) {
            break;
          }
          for (int r = 0; r < batch.getRowCount(); r++) {
            int k = ((IntVector) batch.getVector(0)).get(r);
            combinedSums.merge(k, ((BigIntVector) batch.getVector(1)).get(r), Long::sum);
            combinedCounts.merge(k, ((BigIntVector) batch.getVector(2)).get(r), Long::sum);
            rows++;
          }
        }
      }
    }
    assertThat(combinedSums).isEqualTo(sums);
    assertThat(combinedCounts).isEqualTo(counts);
    // It started again: keys seen before and after a return come out twice.
    assertThat(rows).isGreaterThan(sums.size());
  }

  /**
   * A partial DISTINCT that finds about as many groups as rows stops grouping after {@link
   * HashAggregateBatches#PASS_THROUGH_ROWS} rows and hands the rest of its keys on as they are
   * (duplicates included, for the final phase); one that reduces its input keeps grouping.
   */
  @Test
  void aPartialDistinctThatDoesNotReducePassesItsKeysThrough() {
    int unique = HashAggregateBatches.PASS_THROUGH_ROWS + 8000;
    List<Integer> keys = new ArrayList<>();
    for (int k = 0; k < unique; k++) {
      keys.add(k);
    }
    // Then each of the first 1,000 keys again: after the switch, these come out once more.
    for (int k = 0; k < 1000; k++) {
      keys.add(k);
    }
    List<Integer> out = distinctPartial(keys);
    assertThat(new java.util.TreeSet<>(out)).isEqualTo(new java.util.TreeSet<>(keys));
    assertThat(out).hasSizeGreaterThan(unique);

    List<Integer> repeated = new ArrayList<>();
    for (int r = 0; r < 2 * HashAggregateBatches.PASS_THROUGH_ROWS; r++) {
      repeated.add(r % 100);
    }
    assertThat(distinctPartial(repeated)).hasSize(100).doesNotHaveDuplicates();
  }

  /** The rows of a partial aggregate grouping {@code keys} (in batches of 1,000) by themselves, with no call. */
  private List<Integer> distinctPartial(List<Integer> keys) {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int from = 0; from < keys.size(); from += 1000) {
      VectorSchemaRoot batch = VectorSchemaRoot.create(new Schema(List.of(KEY)), root);
      batch.allocateNew();
      int rows = Math.min(1000, keys.size() - from);
      for (int r = 0; r < rows; r++) {
        ((IntVector) batch.getVector(0)).setSafe(r, keys.get(from + r));
      }
      batch.setRowCount(rows);
      batches.add(batch);
    }
    List<Integer> out = new ArrayList<>();
    try (HashAggregateBatches aggregate =
        HashAggregateBatches.partial(source(batches), new int[] {0}, List.of(KEY), List.of(), new Schema(List.of(KEY)), context(), root)) {
      for (VectorSchemaRoot batch = aggregate.next(); batch != null; batch = aggregate.next()) {
        for (int r = 0; r < batch.getRowCount(); r++) {
          out.add(((IntVector) batch.getVector(0)).get(r));
        }
        batch.close();
      }
    }
    return out;
  }

  @Test
  void singleValueFailsOnASecondRowAndAnyValueKeepsOne() {
    VectorSchemaRoot batch = VectorSchemaRoot.create(new Schema(List.of(KEY, BIGINT)), root);
    batch.allocateNew();
    for (int r = 0; r < 3; r++) {
      ((IntVector) batch.getVector(0)).setSafe(r, r == 2 ? 1 : 0);
      ((BigIntVector) batch.getVector(1)).setSafe(r, 10L + r);
    }
    batch.setRowCount(3);
    List<AggregateCall> any = List.of(new AggregateCall(Kind.ANY_VALUE, 1, -1, BIGINT, BIGINT));
    List<Object> values = new ArrayList<>();
    try (HashAggregateBatches aggregate =
        new HashAggregateBatches(source(List.of(batch)), new int[] {0}, List.of(KEY), any, new Schema(List.of(KEY, BIGINT)), context(), root);
        VectorSchemaRoot out = aggregate.next()) {
      for (int r = 0; r < out.getRowCount(); r++) {
        values.add(Arrays.asList(out.getVector(0).getObject(r), out.getVector(1).getObject(r)));
      }
      assertThat(aggregate.next()).isNull();
    }
    assertThat(values).containsExactlyInAnyOrder(Arrays.asList(0, 10L), Arrays.asList(1, 12L));

    VectorSchemaRoot twice = VectorSchemaRoot.create(new Schema(List.of(KEY, BIGINT)), root);
    twice.allocateNew();
    ((BigIntVector) twice.getVector(1)).setNull(0);
    ((BigIntVector) twice.getVector(1)).setSafe(1, 5);
    twice.setRowCount(2);
    List<AggregateCall> single = List.of(new AggregateCall(Kind.SINGLE_VALUE, 1, -1, BIGINT, BIGINT));
    try (HashAggregateBatches aggregate =
        new HashAggregateBatches(source(List.of(twice)), new int[0], List.of(), single, new Schema(List.of(BIGINT)), context(), root)) {
      SqeException error = catchThrowableOfType(SqeException.class, aggregate::next);
      assertThat(error.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(error.getMessage()).isEqualTo("A scalar sub-query returned more than one row");
    }
  }

  /** The batches, handed out once each; those not taken are closed with the operator. */
  private static BatchOperator source(List<VectorSchemaRoot> batches) {
    Deque<VectorSchemaRoot> left = new ArrayDeque<>(batches);
    return new BatchOperator() {
      @Override
      public VectorSchemaRoot next() {
        return left.poll();
      }

      @Override
      public void close() {
        left.forEach(VectorSchemaRoot::close);
        left.clear();
      }
    };
  }

  private static QueryContext context() {
    QueryRun run = QueryRun.untracked("aggregate-test");
    return new QueryContext(run.queryId(), CalciteSchema.createRootSchema(false).plus(), new JavaTypeFactoryImpl(), Map.of(), run);
  }
}
