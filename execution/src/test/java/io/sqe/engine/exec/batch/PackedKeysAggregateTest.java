package io.sqe.engine.exec.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.exec.aggregate.AggregateCall;
import io.sqe.engine.exec.aggregate.AggregateCall.Kind;
import io.sqe.engine.exec.spill.SpillConfig;
import io.sqe.engine.exec.spill.SpillSpace;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
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
 * GROUP BY of keys that pack into a long (REAL with -0.0 and NaNs, short text, BOOLEAN, all with NULLs), whose
 * ids the aggregate keeps beside its key table, against the same groups recomputed here from the
 * same rows: few keys, more keys than are kept, text longer than the first batch's, and a spilling
 * aggregate whose known keys keep their groups held. The root allocator, closed after each test,
 * fails on any buffer left behind.
 */
class PackedKeysAggregateTest {
  private static final Field K1 = Field.nullable("k1", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
  private static final Field K2 = Field.nullable("k2", ArrowType.Utf8.INSTANCE);
  private static final Field K3 = Field.nullable("k3", ArrowType.Bool.INSTANCE);
  private static final Field V = Field.nullable("v", new ArrowType.Int(64, true));
  private static final Field D = Field.nullable("d", new ArrowType.Decimal(38, 2, 128));
  private static final Field N = Field.notNullable("n", new ArrowType.Decimal(18, 2, 128));
  private static final Field S = Field.nullable("s", ArrowType.Utf8.INSTANCE);
  private static final Schema INPUT = new Schema(List.of(K1, K2, K3, V, D, N, S));
  private static final Field COUNT = Field.notNullable("c", new ArrowType.Int(64, true));
  private static final Field NARROW_SUM = Field.notNullable("ns", new ArrowType.Decimal(38, 2, 128));
  private static final List<AggregateCall> CALLS = List.of(
      new AggregateCall(Kind.COUNT_STAR, -1, -1, null, COUNT),
      new AggregateCall(Kind.COUNT, 3, -1, V, COUNT),
      new AggregateCall(Kind.SUM, 3, -1, V, V),
      new AggregateCall(Kind.SUM, 4, -1, D, D),
      new AggregateCall(Kind.SUM0, 5, -1, N, NARROW_SUM),
      new AggregateCall(Kind.MIN, 6, -1, S, S));
  private static final Schema OUTPUT = new Schema(List.of(K1, K2, K3, COUNT, COUNT, V, D, NARROW_SUM, S));
  private static final String[] SHORT = {"A", "N", "R", "", "AAA", "O", "F"};
  /** REAL keys that pack apart and group together: -0.0 and 0.0, NaNs of two bit patterns. */
  private static final float[] REALS = {-0.0f, 0.0f, Float.NaN, Float.intBitsToFloat(0x7FC00123), 1.5f, -2f};

  @TempDir Path spillDir;

  private BufferAllocator root;
  private long seed;

  /** The keys of row {@code row} of batch {@code batch}: k1 (or null), k2 (or null), k3 (or null). */
  private interface Keys {
    Object[] of(Random random, int batch, int row);
  }

  @BeforeEach
  void setUp() {
    root = new RootAllocator();
    seed = System.nanoTime();
    System.out.println("PackedKeysAggregateTest seed " + seed);
  }

  @AfterEach
  void tearDown() {
    root.close();
  }

  @Test
  void fewShortKeysWithNulls() {
    assertSameGroups(40, 4096, PackedKeysAggregateTest::fewKeys, 1L << 30, 0);
  }

  @Test
  void moreKeysThanAreKeptFallBackToTheTable() {
    Keys many = (random, batch, row) -> batch < 3
        ? fewKeys(random, batch, row)
        : new Object[] {(float) random.nextInt(3000), SHORT[random.nextInt(3)], null};
    assertSameGroups(30, 4096, many, 1L << 30, 0);
  }

  @Test
  void textLongerThanTheFirstBatchsFallsBackToTheTable() {
    Keys growing = (random, batch, row) -> {
      Object[] keys = fewKeys(random, batch, row);
      if (batch > 0 && random.nextInt(50) == 0) {
        keys[1] = random.nextBoolean() ? "longer than seven" : "seven!!";
      }
      return keys;
    };
    assertSameGroups(30, 4096, growing, 1L << 30, 0);
  }

  @Test
  void aSpillingAggregateKeepsTheGroupsOfKnownKeys() {
    // Batches of the few keys alternate with batches of many: the aggregate passes its budget and
    // spills the rows of the groups it does not hold, while the few keys' rows stay held.
    // The few are eight, all in the first batch, whose groups the aggregate holds before it spills.
    Keys mixed = (random, batch, row) -> batch % 2 == 0
        ? new Object[] {random.nextBoolean() ? null : 7f, new String[] {"A", null, "AAA", ""}[random.nextInt(4)], true}
        : new Object[] {(float) random.nextInt(2000), "x" + random.nextInt(40), random.nextBoolean()};
    QueryContext spilling = assertSameGroups(160, 256, mixed, 512L << 10, 272L << 10);
    assertThat(spilling.stats().spilledBytes()).as("seed %s", seed).isPositive();
    spilling.releaseSpill();
  }

  private static Object[] fewKeys(Random random, int batch, int row) {
    return new Object[] {
      random.nextInt(9) == 0 ? null : REALS[random.nextInt(REALS.length)],
      random.nextInt(11) == 0 ? null : SHORT[random.nextInt(SHORT.length)],
      random.nextInt(7) == 0 ? null : random.nextBoolean()
    };
  }

  /**
   * Aggregates {@code batches} batches of {@code batchRows} rows under a query limit of {@code
   * limit} bytes, of which {@code othersHold} are held as other operators would, and checks the
   * groups against those computed here; returns the aggregate's context.
   */
  private QueryContext assertSameGroups(int batches, int batchRows, Keys keys, long limit, long othersHold) {
    Map<List<Object>, List<Object>> expected = expected(batches, batchRows, keys);
    QueryContext context = context();
    Map<List<Object>, List<Object>> actual = new HashMap<>();
    try (BufferAllocator query = root.newChildAllocator("query", 0, limit);
        // Two buffers: the allocator rounds one up to a power of two.
        ArrowBuf others = query.buffer(Math.max(1, Long.highestOneBit(othersHold)));
        ArrowBuf more = query.buffer(Math.max(1, othersHold - Long.highestOneBit(othersHold)));
        HashAggregateBatches aggregate = new HashAggregateBatches(
            source(batches, batchRows, keys, query), new int[] {0, 1, 2}, List.of(K1, K2, K3), CALLS, OUTPUT, context, query)) {
      for (VectorSchemaRoot next = aggregate.next(); next != null; next = aggregate.next()) {
        try (VectorSchemaRoot batch = next) {
          for (int r = 0; r < batch.getRowCount(); r++) {
            List<Object> row = new ArrayList<>();
            for (FieldVector vector : batch.getFieldVectors()) {
              row.add(vector.isNull(r) ? null : key(vector.getObject(r)));
            }
            assertThat(actual.put(row.subList(0, 3), row.subList(3, row.size()))).as("one group of %s", row.subList(0, 3)).isNull();
          }
        }
      }
    }
    assertThat(actual).as("seed %s", seed).hasSameSizeAs(expected).isEqualTo(expected);
    return context;
  }

  /** The groups recomputed from the rows {@link #source} makes: COUNT(*), COUNT(v), SUM(v), SUM(d), $SUM0(n), MIN(s). */
  private Map<List<Object>, List<Object>> expected(int batches, int batchRows, Keys keys) {
    Map<List<Object>, Object[]> states = new HashMap<>();
    try (BufferAllocator allocator = root.newChildAllocator("expected", 0, Long.MAX_VALUE)) {
      BatchOperator source = source(batches, batchRows, keys, allocator);
      for (VectorSchemaRoot next = source.next(); next != null; next = source.next()) {
        try (VectorSchemaRoot batch = next) {
          for (int r = 0; r < batch.getRowCount(); r++) {
            List<Object> key = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
              FieldVector vector = batch.getVector(k);
              key.add(vector.isNull(r) ? null : key(vector.getObject(r)));
            }
            Object[] state = states.computeIfAbsent(key, unused -> new Object[] {0L, 0L, null, null, BigDecimal.ZERO.setScale(2), null});
            state[0] = (long) state[0] + 1;
            BigIntVector v = (BigIntVector) batch.getVector(3);
            if (!v.isNull(r)) {
              state[1] = (long) state[1] + 1;
              state[2] = state[2] == null ? v.get(r) : (long) state[2] + v.get(r);
            }
            DecimalVector d = (DecimalVector) batch.getVector(4);
            if (!d.isNull(r)) {
              state[3] = state[3] == null ? d.getObject(r) : ((BigDecimal) state[3]).add(d.getObject(r));
            }
            state[4] = ((BigDecimal) state[4]).add(((DecimalVector) batch.getVector(5)).getObject(r));
            VarCharVector s = (VarCharVector) batch.getVector(6);
            if (!s.isNull(r)) {
              String value = new String(s.get(r), StandardCharsets.UTF_8);
              state[5] = state[5] == null || value.compareTo((String) state[5]) < 0 ? value : state[5];
            }
          }
        }
      }
    }
    Map<List<Object>, List<Object>> groups = new HashMap<>();
    states.forEach((key, state) -> groups.put(key, Arrays.stream(state).<Object>map(value -> value == null ? null : value.toString()).toList()));
    return groups;
  }

  /** A key as SQL groups it: -0.0 as 0.0 (every NaN prints as one). */
  private static String key(Object value) {
    return value instanceof Float f && f == 0.0f ? "0.0" : String.valueOf(value);
  }

  /** {@code batches} batches of {@code batchRows} rows from the test's seed, made as they are read. */
  private BatchOperator source(int batches, int batchRows, Keys keys, BufferAllocator allocator) {
    Random random = new Random(seed);
    return new BatchOperator() {
      private int made;

      @Override
      public VectorSchemaRoot next() {
        if (made >= batches) {
          return null;
        }
        VectorSchemaRoot batch = VectorSchemaRoot.create(INPUT, allocator);
        for (FieldVector vector : batch.getFieldVectors()) {
          vector.setInitialCapacity(batchRows);
          vector.allocateNew();
        }
        for (int r = 0; r < batchRows; r++) {
          Object[] key = keys.of(random, made, r);
          if (key[0] == null) {
            ((Float4Vector) batch.getVector(0)).setNull(r);
          } else {
            ((Float4Vector) batch.getVector(0)).setSafe(r, (float) key[0]);
          }
          if (key[1] == null) {
            ((VarCharVector) batch.getVector(1)).setNull(r);
          } else {
            ((VarCharVector) batch.getVector(1)).setSafe(r, ((String) key[1]).getBytes(StandardCharsets.UTF_8));
          }
          if (key[2] == null) {
            ((BitVector) batch.getVector(2)).setNull(r);
          } else {
            ((BitVector) batch.getVector(2)).setSafe(r, (boolean) key[2] ? 1 : 0);
          }
          int v = random.nextInt(1000);
          if (v % 13 == 0) {
            ((BigIntVector) batch.getVector(3)).setNull(r);
            ((DecimalVector) batch.getVector(4)).setNull(r);
            ((VarCharVector) batch.getVector(6)).setNull(r);
          } else {
            ((BigIntVector) batch.getVector(3)).setSafe(r, v * 1_000_000_007L);
            ((DecimalVector) batch.getVector(4)).setSafe(r, new BigDecimal("123456789012345678901234567.89").multiply(BigDecimal.valueOf(v - 500)));
            ((VarCharVector) batch.getVector(6)).setSafe(r, ("value " + random.nextInt(1_000_000)).getBytes(StandardCharsets.UTF_8));
          }
          // Eighteen digits, three in four positive: a group's sum passes 64 bits after a few hundred rows.
          long unscaled = random.nextInt(4) > 0 ? 999_999_999_999_999_999L - v : -999_999_999_999_999_999L + v;
          ((DecimalVector) batch.getVector(5)).setSafe(r, BigDecimal.valueOf(unscaled, 2));
        }
        batch.setRowCount(batchRows);
        made++;
        return batch;
      }

      @Override
      public void close() {}
    };
  }

  private QueryContext context() {
    QueryRun run = QueryRun.untracked("packed-" + seed);
    return new QueryContext(
        run.queryId(), Frameworks.createRootSchema(false), new JavaTypeFactoryImpl(), Map.of(), run, ExecutionOptions.DEFAULT,
        SpillSpace.open(new SpillConfig(spillDir, SpillConfig.DEFAULT_MAX_BYTES_PER_QUERY)));
  }
}
