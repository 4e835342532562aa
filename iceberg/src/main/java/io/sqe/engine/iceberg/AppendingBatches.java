package io.sqe.engine.iceberg;

import io.sqe.engine.exec.batch.Gather;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.io.CloseableIterator;

/**
 * A task's record batches with each run of small ones (a selective filter, or a join's keys
 * filtering the scan, keeps a few rows of each decoded batch) appended into one of up to {@link
 * VectorizedTaskReader#BATCH_ROWS} rows, so the operators above see a few full batches rather than
 * many nearly empty ones. Runs on the thread that reads the task ahead; batches of {@link
 * Gather#SMALL_BATCH_ROWS} rows or more pass as they are.
 */
final class AppendingBatches implements CloseableIterator<VectorSchemaRoot> {
  private final CloseableIterator<VectorSchemaRoot> batches;
  private final BufferAllocator allocator;
  /** A batch read past the end of a run of small ones, returned next. */
  private VectorSchemaRoot held;

  AppendingBatches(CloseableIterator<VectorSchemaRoot> batches, BufferAllocator allocator) {
    this.batches = batches;
    this.allocator = allocator;
  }

  @Override
  public boolean hasNext() {
    return held != null || batches.hasNext();
  }

  @Override
  public VectorSchemaRoot next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    VectorSchemaRoot first = held != null ? held : batches.next();
    held = null;
    if (first.getRowCount() >= Gather.SMALL_BATCH_ROWS) {
      return first;
    }
    List<VectorSchemaRoot> run = new ArrayList<>();
    run.add(first);
    try {
      int rows = first.getRowCount();
      while (batches.hasNext()) {
        VectorSchemaRoot more = batches.next();
        if (more.getRowCount() >= Gather.SMALL_BATCH_ROWS || rows + more.getRowCount() > VectorizedTaskReader.BATCH_ROWS) {
          held = more;
          break;
        }
        run.add(more);
        rows += more.getRowCount();
      }
      if (run.size() == 1) {
        run.clear();
        return first;
      }
      return Gather.append(run, allocator);
    } finally {
      run.forEach(VectorSchemaRoot::close);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      if (held != null) {
        held.close();
        held = null;
      }
    } finally {
      batches.close();
    }
  }
}
