package io.sqe.engine.exec.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.exec.expr.RowComparator;
import io.sqe.engine.exec.spill.SpillConfig;
import io.sqe.engine.exec.spill.SpillSpace;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.tools.Frameworks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SortBatches} in memory and spilled against a stable sort of the same rows in Java, and the
 * spill space it writes to: files gone after the query, the spill cap,
 * no buffer leaked (the root allocator's close fails on one).
 */
class SortBatchesTest {
  private static final Schema SCHEMA = new Schema(List.of(
      new Field("k1", FieldType.nullable(new ArrowType.Int(32, true)), null),
      new Field("k2", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
      new Field("position", FieldType.notNullable(new ArrowType.Int(64, true)), null)));
  /** k1 ascending, nulls last; k2 descending, nulls first; position is the row's place in the input. */
  private static final RowComparator KEYS =
      new RowComparator(List.of(new RowComparator.Key(0, false, false), new RowComparator.Key(1, true, true)));

  @TempDir Path spillDir;
  private RootAllocator root;
  private long seed;
  private Random random;

  @BeforeEach
  void setUp() {
    root = new RootAllocator();
    seed = System.nanoTime();
    System.out.println("SortBatchesTest seed " + seed);
    random = new Random(seed);
  }

  @AfterEach
  void tearDown() {
    root.close();
  }

  @Test
  void inMemorySortIsStableAndTouchesNoDisk() throws Exception {
    List<Object[]> rows = rows(20_000);
    QueryContext context = context(SpillConfig.DEFAULT_MAX_BYTES_PER_QUERY);
    try (BufferAllocator query = root.newChildAllocator("query", 0, 256L << 20)) {
      List<Long> sorted = sort(rows, context, query, 64);
      assertThat(sorted).as("seed %s", seed).isEqualTo(expected(rows));
    }
    assertThat(context.stats().spillFiles()).isZero();
    assertThat(context.spill().directory()).isNull();
    context.releaseSpill();
    assertThat(entries(spillDir)).isEmpty();
  }

  @Test
  void wholeNumberKeysCopiedOutSortAsOnTheVectors() {
    // k1 descending with nulls first, then position descending: both keys read from arrays.
    RowComparator keys = new RowComparator(List.of(new RowComparator.Key(0, true, true), new RowComparator.Key(2, true, false)));
    List<Object[]> rows = rows(20_000);
    QueryContext context = context(SpillConfig.DEFAULT_MAX_BYTES_PER_QUERY);
    List<Long> expected = rows.stream()
        .sorted(Comparator.comparing((Object[] r) -> (Integer) r[0], Comparator.nullsFirst(Comparator.<Integer>reverseOrder()))
            .thenComparing((Object[] r) -> (Long) r[2], Comparator.reverseOrder()))
        .map(r -> (Long) r[2])
        .toList();
    try (BufferAllocator query = root.newChildAllocator("query", 0, 256L << 20)) {
      List<Long> positions = new ArrayList<>();
      try (SortBatches sort = new SortBatches(source(rows, query), keys, context, query, 64)) {
        for (VectorSchemaRoot next = sort.next(); next != null; next = sort.next()) {
          try (VectorSchemaRoot batch = next) {
            BigIntVector position = (BigIntVector) batch.getVector(2);
            for (int i = 0; i < batch.getRowCount(); i++) {
              positions.add(position.get(i));
            }
          }
        }
      }
      assertThat(positions).as("seed %s", seed).isEqualTo(expected);
    }
  }

  @Test
  void spilledSortGivesTheSameRowsAndRemovesItsFiles() throws Exception {
    List<Object[]> rows = rows(100_000);
    QueryContext context = context(SpillConfig.DEFAULT_MAX_BYTES_PER_QUERY);
    try (BufferAllocator query = root.newChildAllocator("query", 0, 1L << 20)) {
      // A fan-in of 4 makes the merge go through intermediate runs too.
      List<Long> sorted = sort(rows, context, query, 4);
      assertThat(sorted).as("seed %s", seed).isEqualTo(expected(rows));
    }
    assertThat(context.stats().spillFiles()).isGreaterThan(4);
    assertThat(context.stats().spilledBytes()).isPositive();
    Path queryDir = context.spill().directory();
    assertThat(queryDir).isNotNull().startsWith(spillDir);
    // Merged runs are deleted as they are read; the directory goes with the query.
    assertThat(entries(queryDir)).isEmpty();
    assertThat(Files.getPosixFilePermissions(queryDir)).hasSize(3);
    context.releaseSpill();
    assertThat(entries(spillDir)).isEmpty();
  }

  @Test
  void closingBeforeTheEndRemovesTheRuns() throws Exception {
    List<Object[]> rows = rows(40_000);
    QueryContext context = context(SpillConfig.DEFAULT_MAX_BYTES_PER_QUERY);
    try (BufferAllocator query = root.newChildAllocator("query", 0, 1L << 20);
        SortBatches sort = new SortBatches(source(rows, query), KEYS, context, query, 64)) {
      sort.next().close();
      assertThat(entries(context.spill().directory())).isNotEmpty();
    }
    context.releaseSpill();
    assertThat(entries(spillDir)).isEmpty();
  }

  @Test
  void spillingPastTheCapFailsResourceExhausted() {
    List<Object[]> rows = rows(40_000);
    QueryContext context = context(100_000);
    try (BufferAllocator query = root.newChildAllocator("query", 0, 1L << 20)) {
      assertThatThrownBy(() -> sort(rows, context, query, 64))
          .isInstanceOf(SqeException.class)
          .hasMessageContaining("query.max-spill")
          .extracting(e -> ((SqeException) e).code())
          .isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    }
    context.releaseSpill();
    assertThat(entries(spillDir)).isEmpty();
  }

  @Test
  void aSortThatCannotProceedNamesTheOperator() {
    List<Object[]> rows = rows(1_000);
    QueryContext context = context(SpillConfig.DEFAULT_MAX_BYTES_PER_QUERY);
    // The input comes from elsewhere; the sort's own allocator cannot hold one output batch.
    try (BufferAllocator query = root.newChildAllocator("query", 0, 1024);
        SortBatches sort = new SortBatches(source(rows, root), KEYS, context, query, 64)) {
      assertThatThrownBy(sort::next)
          .isInstanceOf(SqeException.class)
          .hasMessageContaining("operator Sort")
          .extracting(e -> ((SqeException) e).code())
          .isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    }
    context.releaseSpill();
  }

  private List<Long> sort(List<Object[]> rows, QueryContext context, BufferAllocator allocator, int fanIn) {
    List<Long> positions = new ArrayList<>();
    try (SortBatches sort = new SortBatches(source(rows, allocator), KEYS, context, allocator, fanIn)) {
      while (true) {
        VectorSchemaRoot next = sort.next();
        if (next == null) {
          break;
        }
        try (VectorSchemaRoot batch = next) {
          assertThat(batch.getRowCount()).isBetween(1, SortBatches.OUTPUT_ROWS);
          BigIntVector position = (BigIntVector) batch.getVector(2);
          for (int i = 0; i < batch.getRowCount(); i++) {
            positions.add(position.get(i));
          }
        }
      }
    }
    return positions;
  }

  /** Rows with few distinct keys, so ties are many, and nulls in both keys. */
  private List<Object[]> rows(int count) {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Integer k1 = random.nextInt(10) == 0 ? null : random.nextInt(50) - 25;
      String k2 = random.nextInt(10) == 0 ? null : "v" + random.nextInt(30) + "é".repeat(random.nextInt(3));
      rows.add(new Object[] {k1, k2, (long) i});
    }
    return rows;
  }

  private static List<Long> expected(List<Object[]> rows) {
    Comparator<Object[]> k1 = Comparator.comparing(r -> (Integer) r[0], Comparator.nullsLast(Comparator.naturalOrder()));
    Comparator<Object[]> k2 = Comparator.comparing(
        r -> r[1] == null ? null : ((String) r[1]).getBytes(StandardCharsets.UTF_8),
        Comparator.nullsFirst((byte[] a, byte[] b) -> java.util.Arrays.compareUnsigned(b, a)));
    return rows.stream().sorted(k1.thenComparing(k2)).map(r -> (Long) r[2]).toList();
  }

  /** The rows as batches of a few hundred rows each, made when the sort pulls them. */
  private BatchOperator source(List<Object[]> rows, BufferAllocator allocator) {
    return new BatchOperator() {
      private int next;

      @Override
      public VectorSchemaRoot next() {
        if (next == rows.size()) {
          return null;
        }
        int count = Math.min(rows.size() - next, 200 + random.nextInt(400));
        VectorSchemaRoot batch = VectorSchemaRoot.create(SCHEMA, allocator);
        IntVector k1 = (IntVector) batch.getVector(0);
        VarCharVector k2 = (VarCharVector) batch.getVector(1);
        BigIntVector position = (BigIntVector) batch.getVector(2);
        batch.getFieldVectors().forEach(v -> v.setInitialCapacity(count));
        batch.allocateNew();
        for (int i = 0; i < count; i++) {
          Object[] row = rows.get(next + i);
          if (row[0] != null) {
            k1.setSafe(i, (Integer) row[0]);
          }
          if (row[1] != null) {
            k2.setSafe(i, ((String) row[1]).getBytes(StandardCharsets.UTF_8));
          }
          position.setSafe(i, (Long) row[2]);
        }
        batch.setRowCount(count);
        next += count;
        return batch;
      }

      @Override
      public void close() {}
    };
  }

  private QueryContext context(long maxSpill) {
    return new QueryContext(
        "q-" + seed,
        Frameworks.createRootSchema(false),
        new JavaTypeFactoryImpl(),
        Map.of(),
        QueryRun.untracked("q-" + seed),
        io.sqe.engine.exec.ExecutionOptions.DEFAULT,
        SpillSpace.open(new SpillConfig(spillDir, maxSpill)));
  }

  private static List<Path> entries(Path directory) {
    try (Stream<Path> list = Files.list(directory)) {
      return list.toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
