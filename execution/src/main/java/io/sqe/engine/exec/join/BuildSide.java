package io.sqe.engine.exec.join;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.batch.BatchOperator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The build (right) input of a join, read to its end and kept as the batches it came in, under the
 * query's allocator, so its memory counts against {@code query.max-memory}. Rows are numbered
 * across the batches in order.
 */
public final class BuildSide implements AutoCloseable {
  private final List<VectorSchemaRoot> batches = new ArrayList<>();
  /** The number of the first row of each batch, and the row count after the last. */
  private int[] starts = new int[] {0};
  private int rowCount;

  /** Takes {@code batch}, which this build side closes from then on, and returns the number of its first row. */
  public int add(VectorSchemaRoot batch) {
    requireNonNull(batch, "batch is null");
    if ((long) rowCount + batch.getRowCount() > Integer.MAX_VALUE - 8) {
      batch.close();
      throw new SqeException(ErrorCode.RESOURCE_EXHAUSTED, "A join's build side has more than " + (Integer.MAX_VALUE - 8) + " rows");
    }
    int first = rowCount;
    batches.add(batch);
    rowCount += batch.getRowCount();
    if (starts.length <= batches.size()) {
      starts = Arrays.copyOf(starts, starts.length * 2 + 1);
    }
    starts[batches.size()] = rowCount;
    return first;
  }

  /**
   * Counts {@code rows} rows indexed and released, not kept (a semi or anti join that needs the
   * build side's keys alone), and returns the number of the first.
   */
  public int countReleased(int rows) {
    int first = rowCount;
    rowCount += rows;
    return first;
  }

  public int rowCount() {
    return rowCount;
  }

  public List<VectorSchemaRoot> batches() {
    return batches;
  }

  /** The index of the batch that holds row {@code row}. */
  public int batchOf(int row) {
    int index = Arrays.binarySearch(starts, 0, batches.size() + 1, row);
    if (index >= 0) {
      // Empty batches are never added, so the start of batch {@code index} is a row of it.
      return index;
    }
    return -index - 2;
  }

  /** Whether batch {@code batch} holds row {@code row}. */
  public boolean holds(int batch, int row) {
    return batch < batches.size() && starts[batch] <= row && row < starts[batch + 1];
  }

  /** The position of row {@code row} within batch {@code batch}. */
  public int rowInBatch(int batch, int row) {
    return row - starts[batch];
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (VectorSchemaRoot batch : batches) {
      try {
        batch.close();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    batches.clear();
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Reads {@code input} to its end into a build side, handing each batch and the number of its first
   * row to {@code onBatch} (which indexes it); an allocation past the query's memory limit, while
   * reading or indexing, fails with RESOURCE_EXHAUSTED naming {@code operator}.
   */
  public static BuildSide read(
      BatchOperator input, String operator, QueryContext context, BufferAllocator allocator, BatchIndexer onBatch) {
    BuildSide build = new BuildSide();
    try {
      while (true) {
        VectorSchemaRoot batch = input.next();
        if (batch == null) {
          return build;
        }
        if (batch.getRowCount() == 0) {
          batch.close();
          continue;
        }
        onBatch.index(batch, build.add(batch));
        context.checkCancelled();
      }
    } catch (OutOfMemoryException e) {
      build.close();
      throw exceeded(operator, context, allocator, e);
    } catch (RuntimeException | Error e) {
      build.close();
      throw e;
    }
  }

  /** The error of an operator whose build side needs more memory than the query may hold. */
  public static SqeException exceeded(String operator, QueryContext context, BufferAllocator allocator, OutOfMemoryException e) {
    return new SqeException(
        ErrorCode.RESOURCE_EXHAUSTED,
        operator + " build side exceeded query.max-memory (" + limit(allocator) + ") in query " + context.queryId(),
        e);
  }

  private static String limit(BufferAllocator allocator) {
    // The query's allocator is a child of the server's; its own limit is query.max-memory.
    long bytes = allocator.getLimit();
    return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : bytes >= 1 << 10 ? (bytes >> 10) + " KiB" : bytes + " bytes";
  }

  /** Indexes a batch just added to a build side. */
  @FunctionalInterface
  public interface BatchIndexer {
    void index(VectorSchemaRoot batch, int firstRow);
  }
}
