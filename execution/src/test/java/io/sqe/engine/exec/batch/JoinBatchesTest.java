package io.sqe.engine.exec.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.exec.expr.Comparison;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.expr.Predicates;
import io.sqe.engine.exec.join.JoinType;
import io.sqe.engine.exec.join.SharedBuild;
import io.sqe.engine.exec.spill.SpillConfig;
import io.sqe.engine.exec.spill.SpillSpace;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hash and nested-loop join operators against a join written out row by row: random inputs in
 * batches of random sizes, two keys (a long and a text) with NULLs and duplicates on both sides,
 * every join type, with and without a residual condition. Every test closes its allocator, which
 * fails on a leaked buffer.
 */
class JoinBatchesTest {
  /** Each side: key a (long), key b (text), value v (long); a row's v is its position in its side. */
  private static final Schema SIDE = new Schema(List.of(column("a"), text("b"), column("v")));
  private static final Schema PAIR = new Schema(concat(SIDE.getFields(), SIDE.getFields()));

  private RootAllocator allocator;
  @TempDir Path spillDir;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  @Test
  void everyJoinTypeMatchesARowByRowJoin() {
    // Replay a failure with -Djoin.seed=<the seed it printed>.
    long seed = Long.getLong("join.seed", System.nanoTime());
    System.out.println("JoinBatchesTest seed " + seed);
    Random random = new Random(seed);
    for (int round = 0; round < 30; round++) {
      List<Long[]> probe = rows(random, random.nextInt(4) == 0 ? 0 : random.nextInt(300));
      List<Long[]> build = rows(random, random.nextInt(4) == 0 ? 0 : random.nextInt(200));
      for (JoinType type : JoinType.values()) {
        for (boolean residual : new boolean[] {false, true}) {
          for (boolean hash : new boolean[] {true, false}) {
            String what = "seed " + seed + " round " + round + " " + type + (residual ? " with residual" : "") + (hash ? " hash" : " nested loop");
            List<List<Object>> expected = reference(probe, build, type, residual, hash);
            List<List<Object>> actual = run(probe, build, type, residual, hash, random);
            assertThat(sorted(actual)).as(what).isEqualTo(sorted(expected));
            assertProbeOrder(actual, type, what);
          }
        }
      }
    }
  }

  @Test
  void outputBatchesHoldAtMost4096Rows() {
    List<Long[]> probe = new ArrayList<>();
    List<Long[]> build = new ArrayList<>();
    for (long i = 0; i < 3000; i++) {
      probe.add(new Long[] {7L, 1L, i});
    }
    for (long i = 0; i < 10; i++) {
      build.add(new Long[] {7L, 1L, i});
    }
    for (JoinType type : List.of(JoinType.INNER, JoinType.LEFT, JoinType.FULL)) {
      try (BatchOperator join = operator(probe, build, type, null, true, new Random(1))) {
        long rows = 0;
        for (VectorSchemaRoot next = join.next(); next != null; next = join.next()) {
          try (VectorSchemaRoot batch = next) {
            assertThat(batch.getRowCount()).isBetween(1, 4096);
            rows += batch.getRowCount();
          }
        }
        assertThat(rows).isEqualTo(30_000);
      }
    }
  }

  @Test
  void aBuildSideOverTheLimitFailsWithResourceExhaustedAndLeavesNothing() {
    List<Long[]> big = new ArrayList<>();
    for (long i = 0; i < 50_000; i++) {
      // One key for every row: splitting by key never makes the hash join's build side smaller.
      big.add(new Long[] {7L, 1L, i});
    }
    for (boolean hash : new boolean[] {true, false}) {
      QueryContext context = spillingContext();
      try (BufferAllocator query = allocator.newChildAllocator("query", 0, 256 * 1024)) {
        BatchOperator join = operator(big.subList(0, 10), big, JoinType.INNER, null, hash, new Random(2), query, context);
        assertThatThrownBy(join::next)
            .isInstanceOfSatisfying(SqeException.class, e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
              assertThat(e.getMessage()).contains((hash ? "HashJoin" : "NestedLoopJoin") + " build side exceeded query.max-memory (256 KiB)");
              if (hash) {
                assertThat(e.getMessage()).contains("split 4 times by key");
              }
            });
        join.close();
      }
      assertThat(entries(context.spill().directory())).isEmpty();
      context.releaseSpill();
      assertThat(entries(spillDir)).isEmpty();
    }
  }

  @Test
  void spilledJoinsReturnTheRowsOfUnspilledOnes() {
    // Replay a failure with -Djoin.seed=<the seed it printed>.
    long seed = Long.getLong("join.seed", System.nanoTime());
    System.out.println("JoinBatchesTest spilled seed " + seed);
    Random random = new Random(seed);
    List<Long[]> probe = rows(random, 12_000, 8_000);
    List<Long[]> build = rows(random, 24_000, 8_000);
    for (JoinType type : JoinType.values()) {
      for (boolean residual : new boolean[] {false, true}) {
        String what = "seed " + seed + " " + type + (residual ? " with residual" : "");
        QueryContext context = spillingContext();
        List<List<Object>> spilled;
        try (BufferAllocator query = allocator.newChildAllocator("query", 0, 1 << 20)) {
          spilled = run(probe, build, type, residual, true, new Random(seed), query, context);
        }
        assertThat(context.stats().spilledBytes()).as(what).isPositive();
        assertThat(entries(context.spill().directory())).as(what).isEmpty();
        context.releaseSpill();
        QueryContext unlimited = spillingContext();
        List<List<Object>> inMemory = run(probe, build, type, residual, true, new Random(seed), allocator, unlimited);
        assertThat(unlimited.stats().spilledBytes()).as(what).isZero();
        assertThat(unlimited.spill().directory()).as(what).isNull();
        assertThat(sorted(spilled)).as(what).isEqualTo(sorted(inMemory));
        assertThat(inMemory).as(what).hasSize(referenceSize(probe, build, type, residual));
      }
    }
    assertThat(entries(spillDir)).isEmpty();
  }

  @Test
  void aSharedBuildSideSpillsOnceAndEachPartJoinsItsOwnProbeRows() throws Exception {
    // Replay a failure with -Djoin.seed=<the seed it printed>.
    long seed = Long.getLong("join.seed", System.nanoTime());
    System.out.println("JoinBatchesTest shared spilled seed " + seed);
    Random random = new Random(seed);
    List<Long[]> probe = rows(random, 12_000, 8_000);
    List<Long[]> build = rows(random, 24_000, 8_000);
    int parts = 2;
    for (JoinType type : List.of(JoinType.INNER, JoinType.LEFT, JoinType.SEMI, JoinType.ANTI)) {
      for (boolean residual : new boolean[] {false, true}) {
        String what = "seed " + seed + " " + type + (residual ? " with residual" : "");
        Predicate condition = residual ? Predicates.compareLongColumns(2, Comparison.LESS, 5) : null;
        Schema output = type.returnsBuildColumns() ? PAIR : SIDE;
        QueryContext context = spillingContext();
        List<List<Object>> joined = Collections.synchronizedList(new ArrayList<>());
        int[] buildsRead = new int[1];
        try (BufferAllocator query = allocator.newChildAllocator("query", 0, 1 << 20);
            SharedBuild shared = new SharedBuild(parts)) {
          List<Callable<Void>> tasks = new ArrayList<>();
          for (int part = 0; part < parts; part++) {
            // Each part probes every other row of its own, as a parallel scan's parts do.
            List<Long[]> own = new ArrayList<>();
            for (int r = part; r < probe.size(); r += parts) {
              own.add(probe.get(r));
            }
            tasks.add(() -> {
              BatchOperator probeInput = new Rows(own, 37, query);
              try (BatchOperator join = new HashJoinBatches(
                  () -> probeInput,
                  () -> {
                    synchronized (buildsRead) {
                      buildsRead[0]++;
                    }
                    return new Rows(build, 50, query);
                  },
                  shared, new int[] {0, 1}, new int[] {0, 1}, type, condition, null, SIDE, SIDE, output, context, query)) {
                joined.addAll(drain(join));
              }
              return null;
            });
          }
          ExecutorService pool = Executors.newFixedThreadPool(parts);
          try {
            for (Future<Void> done : pool.invokeAll(tasks)) {
              done.get();
            }
          } finally {
            pool.shutdown();
          }
        }
        assertThat(buildsRead[0]).as(what).isEqualTo(1);
        assertThat(context.stats().spilledBytes()).as(what).isPositive();
        assertThat(entries(context.spill().directory())).as(what).isEmpty();
        context.releaseSpill();
        List<List<Object>> inMemory = run(probe, build, type, residual, true, new Random(seed), allocator, spillingContext());
        assertThat(sorted(joined)).as(what).isEqualTo(sorted(inMemory));
        assertThat(inMemory).as(what).hasSize(referenceSize(probe, build, type, residual));
      }
    }
    assertThat(entries(spillDir)).isEmpty();
  }

  @Test
  void closingEarlyOrCancellingReleasesEverything() {
    List<Long[]> rows = new ArrayList<>();
    for (long i = 0; i < 20_000; i++) {
      rows.add(new Long[] {i % 50, 1L, i});
    }
    for (boolean hash : new boolean[] {true, false}) {
      try (BatchOperator join = operator(rows, rows.subList(0, 500), JoinType.FULL, null, hash, new Random(3))) {
        VectorSchemaRoot first = join.next();
        assertThat(first).isNotNull();
        first.close();
      }
      QueryContext context = context();
      try (BatchOperator join = operator(rows, rows.subList(0, 500), JoinType.RIGHT, null, hash, new Random(3), allocator, context)) {
        join.next().close();
        context.cancel(ErrorCode.CANCELLED, "cancelled by the test");
        assertThatThrownBy(() -> {
              for (VectorSchemaRoot batch = join.next(); batch != null; batch = join.next()) {
                batch.close();
              }
            })
            .isInstanceOf(SqeException.class);
      }
      // Closed before the build side was read.
      operator(rows, rows, JoinType.INNER, null, hash, new Random(3)).close();
    }
  }

  private List<List<Object>> run(List<Long[]> probe, List<Long[]> build, JoinType type, boolean residual, boolean hash, Random random) {
    return run(probe, build, type, residual, hash, random, allocator, context());
  }

  private static List<List<Object>> run(
      List<Long[]> probe, List<Long[]> build, JoinType type, boolean residual, boolean hash, Random random, BufferAllocator allocator, QueryContext context) {
    Predicate condition = residual ? Predicates.compareLongColumns(2, Comparison.LESS, 5) : null;
    try (BatchOperator join = operator(probe, build, type, condition, hash, random, allocator, context)) {
      return drain(join);
    }
  }

  /** Every row the join returns, its values as longs. */
  private static List<List<Object>> drain(BatchOperator join) {
    List<List<Object>> out = new ArrayList<>();
    for (VectorSchemaRoot next = join.next(); next != null; next = join.next()) {
      try (VectorSchemaRoot batch = next) {
        assertThat(batch.getRowCount()).isPositive();
        for (int r = 0; r < batch.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector vector : batch.getFieldVectors()) {
            Object value = vector.getObject(r);
            row.add(value == null ? null : value instanceof Long ? value : Long.valueOf(value.toString()));
          }
          out.add(row);
        }
      }
    }
    return out;
  }

  private BatchOperator operator(List<Long[]> probe, List<Long[]> build, JoinType type, Predicate residual, boolean hash, Random random) {
    return operator(probe, build, type, residual, hash, random, allocator, context());
  }

  private static BatchOperator operator(
      List<Long[]> probe, List<Long[]> build, JoinType type, Predicate residual, boolean hash, Random random, BufferAllocator allocator, QueryContext context) {
    Schema output = type.returnsBuildColumns() ? PAIR : SIDE;
    BatchOperator probeInput = new Rows(probe, random.nextInt(60) + 1, allocator);
    BatchOperator buildInput = new Rows(build, random.nextInt(60) + 1, allocator);
    if (hash) {
      return new HashJoinBatches(() -> probeInput, buildInput, new int[] {0, 1}, new int[] {0, 1}, type, residual, null, SIDE, SIDE, output, context, allocator);
    }
    // The keys' equality as a condition: the nested loop joins on it as the hash join does.
    Predicate keys = Predicates.and(List.of(Predicates.compareLongColumns(0, Comparison.EQUAL, 3), Predicates.compareBytesColumns(1, Comparison.EQUAL, 4)));
    Predicate condition = residual == null ? keys : Predicates.and(List.of(keys, residual));
    return new NestedLoopJoinBatches(() -> probeInput, buildInput, type, condition, SIDE, SIDE, output, context, allocator);
  }

  /** The join by SQL's rules, row by row: keys equal and not NULL, and v of the probe row less than v of the build row with a residual. */
  private static List<List<Object>> reference(List<Long[]> probe, List<Long[]> build, JoinType type, boolean residual, boolean hash) {
    List<List<Object>> out = new ArrayList<>();
    boolean[] buildMatched = new boolean[build.size()];
    for (Long[] p : probe) {
      boolean matched = false;
      for (int j = 0; j < build.size(); j++) {
        Long[] b = build.get(j);
        boolean match = p[0] != null && p[1] != null && Objects.equals(p[0], b[0]) && Objects.equals(p[1], b[1]) && (!residual || p[2] < b[2]);
        if (match) {
          matched = true;
          buildMatched[j] = true;
          if (type.returnsBuildColumns()) {
            out.add(concat(Arrays.asList((Object[]) p), Arrays.asList((Object[]) b)));
          }
        }
      }
      if ((type == JoinType.SEMI && matched) || (!matched && (type == JoinType.ANTI || type == JoinType.LEFT || type == JoinType.FULL))) {
        List<Object> row = new ArrayList<>(Arrays.asList((Object[]) p));
        if (type.returnsBuildColumns()) {
          row.addAll(Arrays.asList(null, null, null));
        }
        out.add(row);
      }
    }
    if (type == JoinType.RIGHT || type == JoinType.FULL) {
      for (int j = 0; j < build.size(); j++) {
        if (!buildMatched[j]) {
          List<Object> row = new ArrayList<>(Arrays.asList(null, null, null));
          row.addAll(Arrays.asList((Object[]) build.get(j)));
          out.add(row);
        }
      }
    }
    return out;
  }

  /** How many rows the join returns by SQL's rules, counted through a map of the build rows by key. */
  private static int referenceSize(List<Long[]> probe, List<Long[]> build, JoinType type, boolean residual) {
    Map<List<Long>, List<Integer>> byKey = new java.util.HashMap<>();
    for (int j = 0; j < build.size(); j++) {
      Long[] b = build.get(j);
      if (b[0] != null && b[1] != null) {
        byKey.computeIfAbsent(List.of(b[0], b[1]), k -> new ArrayList<>()).add(j);
      }
    }
    boolean[] buildMatched = new boolean[build.size()];
    int rows = 0;
    for (Long[] p : probe) {
      int matches = 0;
      if (p[0] != null && p[1] != null) {
        for (int j : byKey.getOrDefault(List.of(p[0], p[1]), List.of())) {
          if (!residual || p[2] < build.get(j)[2]) {
            matches++;
            buildMatched[j] = true;
          }
        }
      }
      rows += switch (type) {
        case INNER, RIGHT -> matches;
        case LEFT, FULL -> Math.max(1, matches);
        case SEMI -> matches > 0 ? 1 : 0;
        case ANTI -> matches > 0 ? 0 : 1;
      };
    }
    if (type == JoinType.RIGHT || type == JoinType.FULL) {
      for (boolean matched : buildMatched) {
        rows += matched ? 0 : 1;
      }
    }
    return rows;
  }

  /** Rows with a probe row come in probe order, before the build rows no probe row matched. */
  private static void assertProbeOrder(List<List<Object>> rows, JoinType type, String what) {
    long last = -1;
    boolean unmatchedBuild = false;
    for (List<Object> row : rows) {
      Long v = (Long) row.get(2);
      if (v == null) {
        unmatchedBuild = true;
        continue;
      }
      assertThat(unmatchedBuild).as(what).isFalse();
      assertThat(v).as(what).isGreaterThanOrEqualTo(last);
      last = v;
    }
  }

  private static List<Long[]> rows(Random random, int count) {
    return rows(random, count, 20);
  }

  /** Rows whose key a is below {@code keys} (or NULL), b below 3 (or NULL), v ascending. */
  private static List<Long[]> rows(Random random, int count, int keys) {
    List<Long[]> rows = new ArrayList<>();
    for (long i = 0; i < count; i++) {
      Long a = random.nextInt(10) == 0 ? null : (long) random.nextInt(keys);
      Long b = random.nextInt(10) == 0 ? null : (long) random.nextInt(3);
      rows.add(new Long[] {a, b, (long) random.nextInt(1000) * 1000 + i});
    }
    rows.sort((x, y) -> Long.compare(x[2] % 1000, y[2] % 1000));
    // v ascends with the row's position, so the probe order can be checked.
    for (int i = 0; i < rows.size(); i++) {
      rows.get(i)[2] = (long) i * 7 + random.nextInt(7);
    }
    return rows;
  }

  private static List<String> sorted(List<List<Object>> rows) {
    List<String> copy = new ArrayList<>(rows.size());
    for (List<Object> row : rows) {
      copy.add(row.toString());
    }
    copy.sort(null);
    return copy;
  }

  /** A context whose spill space is the test's directory. */
  private QueryContext spillingContext() {
    QueryRun run = QueryRun.untracked("join-spill-test");
    return new QueryContext(
        run.queryId(),
        CalciteSchema.createRootSchema(false).plus(),
        new JavaTypeFactoryImpl(),
        Map.of(),
        run,
        ExecutionOptions.DEFAULT,
        SpillSpace.open(new SpillConfig(spillDir, SpillConfig.DEFAULT_MAX_BYTES_PER_QUERY)));
  }

  private static List<Path> entries(Path directory) {
    if (directory == null || !Files.exists(directory)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(directory)) {
      return list.toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static QueryContext context() {
    QueryRun run = QueryRun.untracked("join-test");
    return new QueryContext(run.queryId(), CalciteSchema.createRootSchema(false).plus(), new JavaTypeFactoryImpl(), Map.of(), run);
  }

  private static Field column(String name) {
    return new Field(name, FieldType.nullable(new ArrowType.Int(64, true)), null);
  }

  private static Field text(String name) {
    return new Field(name, FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** An input of rows in batches of {@code size}, each made when asked for, from the allocator given. */
  private static final class Rows implements BatchOperator {
    private final List<Long[]> rows;
    private final int size;
    private final BufferAllocator allocator;
    private int next;

    Rows(List<Long[]> rows, int size, BufferAllocator allocator) {
      this.rows = rows;
      this.size = size;
      this.allocator = allocator;
    }

    @Override
    public VectorSchemaRoot next() {
      if (next >= rows.size()) {
        return null;
      }
      int count = Math.min(size, rows.size() - next);
      VectorSchemaRoot batch = VectorSchemaRoot.create(SIDE, allocator);
      try {
        BigIntVector a = (BigIntVector) batch.getVector(0);
        VarCharVector b = (VarCharVector) batch.getVector(1);
        BigIntVector v = (BigIntVector) batch.getVector(2);
        for (int i = 0; i < count; i++) {
          Long[] row = rows.get(next + i);
          if (row[0] == null) {
            a.setNull(i);
          } else {
            a.setSafe(i, row[0]);
          }
          if (row[1] == null) {
            b.setNull(i);
          } else {
            b.setSafe(i, String.valueOf(row[1]).getBytes(StandardCharsets.UTF_8));
          }
          v.setSafe(i, row[2]);
        }
        batch.setRowCount(count);
      } catch (RuntimeException e) {
        batch.close();
        throw e;
      }
      next += count;
      return batch;
    }

    @Override
    public void close() {}
  }
}
