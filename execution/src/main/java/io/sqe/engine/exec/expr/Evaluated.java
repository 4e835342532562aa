package io.sqe.engine.exec.expr;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.util.TransferPair;

/**
 * An expression's values for a batch: a vector it made (owned, released on {@link #close}) or one
 * of the batch's own columns (borrowed, left alone).
 */
public record Evaluated(FieldVector vector, boolean owned) implements AutoCloseable {
  /**
   * The values as a vector the caller owns: this one when owned, else the batch column's buffers
   * shared (Arrow's split-and-transfer of every row, which slices rather than copies).
   */
  public FieldVector take(BufferAllocator allocator, int rows) {
    if (owned) {
      return vector;
    }
    TransferPair pair = vector.getTransferPair(allocator);
    pair.splitAndTransfer(0, rows);
    return (FieldVector) pair.getTo();
  }

  @Override
  public void close() {
    if (owned) {
      vector.close();
    }
  }
}
