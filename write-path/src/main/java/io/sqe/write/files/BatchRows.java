package io.sqe.write.files;

import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A record batch being written, with its vectors bound to the table's columns. It stays open while
 * the writer goes through it and while a sorted table's buffer keeps rows of it, and is closed when
 * neither does.
 */
final class BatchRows {
  private final VectorSchemaRoot batch;
  private final VectorColumn[] columns;
  private final long bytes;
  private int kept;
  private boolean passed;
  private boolean closed;

  BatchRows(VectorSchemaRoot batch, VectorColumn[] columns) {
    this.batch = batch;
    this.columns = columns;
    long size = 0;
    for (var vector : batch.getFieldVectors()) {
      size += vector.getBufferSize();
    }
    this.bytes = size;
  }

  VectorColumn[] columns() {
    return columns;
  }

  int rowCount() {
    return batch.getRowCount();
  }

  /** The bytes of the batch's buffers, which it holds until it is closed. */
  long bytes() {
    return bytes;
  }

  /** A copy of {@code row} the writer keeps; the batch stays open until it is released. */
  BatchRow keep(BatchRow row) {
    kept++;
    return new BatchRow(this, row.index());
  }

  /**
   * A kept row is no longer needed.
   *
   * @return whether this closed the batch
   */
  boolean release() {
    kept--;
    return closeIfUnused();
  }

  /**
   * The writer has gone through every row.
   *
   * @return whether this closed the batch
   */
  boolean passed() {
    passed = true;
    return closeIfUnused();
  }

  private boolean closeIfUnused() {
    if (passed && kept == 0 && !closed) {
      closed = true;
      batch.close();
      return true;
    }
    return false;
  }

  /** Closes the batch whatever still refers to it: the write failed. */
  void abandon() {
    if (!closed) {
      closed = true;
      batch.close();
    }
  }
}
