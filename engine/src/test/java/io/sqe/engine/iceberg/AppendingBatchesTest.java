package io.sqe.engine.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.exec.batch.Gather;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.io.CloseableIterator;
import org.junit.jupiter.api.Test;

/**
 * A task's batches as the scan hands them on: every row once and in order, runs of small batches
 * appended up to a full batch, batches that are not small untouched; the allocator, closed at the
 * end, fails on any buffer left behind, also when the reader stops early.
 */
class AppendingBatchesTest {
  private static final Schema SCHEMA = new Schema(List.of(
      Field.nullable("n", new ArrowType.Int(64, true)), Field.nullable("s", ArrowType.Utf8.INSTANCE)));

  @Test
  void runsOfSmallBatchesAreAppendedAndEveryRowKeepsItsPlace() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < 50; round++) {
      List<Integer> sizes = new ArrayList<>();
      for (int b = random.nextInt(40); b > 0; b--) {
        sizes.add(random.nextInt(4) == 0 ? Gather.SMALL_BATCH_ROWS + random.nextInt(4096 - Gather.SMALL_BATCH_ROWS + 1) : 1 + random.nextInt(300));
      }
      try (BufferAllocator allocator = new RootAllocator()) {
        List<VectorSchemaRoot> outputs = new ArrayList<>();
        try (AppendingBatches batches = new AppendingBatches(source(sizes, allocator), allocator)) {
          while (batches.hasNext()) {
            outputs.add(batches.next());
          }
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
        long expected = 0;
        for (VectorSchemaRoot out : outputs) {
          assertThat(out.getRowCount()).as("seed %s", seed).isPositive().isLessThanOrEqualTo(VectorizedTaskReader.BATCH_ROWS);
          for (int r = 0; r < out.getRowCount(); r++, expected++) {
            assertThat(((BigIntVector) out.getVector(0)).get(r)).as("seed %s", seed).isEqualTo(expected);
            assertThat(new String(((VarCharVector) out.getVector(1)).get(r), StandardCharsets.UTF_8)).isEqualTo("v" + expected);
          }
          out.close();
        }
        assertThat(expected).as("seed %s", seed).isEqualTo(sizes.stream().mapToLong(Integer::longValue).sum());
        // Two small batches side by side never both reach the operators, unless together they pass a full batch.
        int small = 0;
        for (int i = 0; i < sizes.size(); i++) {
          small += sizes.get(i) < Gather.SMALL_BATCH_ROWS ? 1 : 0;
        }
        assertThat(outputs.size()).as("seed %s", seed).isLessThanOrEqualTo(sizes.size());
        if (small >= 2 && sizes.stream().allMatch(s -> s < Gather.SMALL_BATCH_ROWS) && sizes.stream().mapToInt(Integer::intValue).sum() <= 4096) {
          assertThat(outputs).as("seed %s", seed).hasSize(1);
        }
      }
    }
  }

  @Test
  void closingEarlyReleasesWhatWasReadAhead() throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      AppendingBatches batches = new AppendingBatches(source(List.of(10, 20, 2000, 5, 7), allocator), allocator);
      try (VectorSchemaRoot first = batches.next()) {
        // The two small batches appended; the large one after them is held for the next call.
        assertThat(first.getRowCount()).isEqualTo(30);
      }
      batches.close();
    }
  }

  /** Batches of the given sizes, numbered rows, made as they are read. */
  private static CloseableIterator<VectorSchemaRoot> source(List<Integer> sizes, BufferAllocator allocator) {
    Iterator<Integer> it = sizes.iterator();
    long[] next = {0};
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public VectorSchemaRoot next() {
        int rows = it.next();
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        root.allocateNew();
        for (int r = 0; r < rows; r++, next[0]++) {
          ((BigIntVector) root.getVector(0)).setSafe(r, next[0]);
          ((VarCharVector) root.getVector(1)).setSafe(r, ("v" + next[0]).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(rows);
        return root;
      }

      @Override
      public void close() {}
    };
  }
}
