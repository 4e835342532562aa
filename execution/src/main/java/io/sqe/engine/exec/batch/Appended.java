package io.sqe.engine.exec.batch;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Record batches of one schema appended into one. A batch costs every operator above it a call,
 * its vectors and their buffers whatever its size; where a selective filter keeps a few rows of
 * each batch, appending them saves that on every operator it passes.
 */
public final class Appended {
  /** Batches below this many rows are worth appending to the ones after them. */
  public static final int SMALL_ROWS = 1024;

  private Appended() {}

  /** A new batch holding the rows of {@code parts} in order; the parts stay the caller's. */
  public static VectorSchemaRoot of(List<VectorSchemaRoot> parts, BufferAllocator allocator) {
    int rows = 0;
    for (VectorSchemaRoot part : parts) {
      rows += part.getRowCount();
    }
    int[] partOf = new int[rows];
    int[] rowOf = new int[rows];
    int at = 0;
    for (int p = 0; p < parts.size(); p++) {
      for (int r = 0; r < parts.get(p).getRowCount(); r++, at++) {
        partOf[at] = p;
        rowOf[at] = r;
      }
    }
    return Gather.rows(parts.get(0).getSchema(), allocator, rows, i -> parts.get(partOf[i]), i -> rowOf[i]);
  }
}
