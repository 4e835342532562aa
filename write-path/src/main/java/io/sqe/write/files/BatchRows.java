package io.sqe.write.files;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A record batch being written, with its vectors bound to the table's columns. It stays open while
 * the writer goes through it and while something holds rows of it (a sorted table's buffer, a
 * chunk of a file not written yet), and is closed when nothing does.
 */
final class BatchRows {
  private final VectorSchemaRoot batch;
  private final VectorColumn[] columns;
  private final long bytes;
  private int holds;
  /** What writes the rows a file holds of this batch, when the writer is past it. */
  private final List<Runnable> pendingWrites = new ArrayList<>(1);
  private boolean passed;
  private boolean isClosed;

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

  /** Keeps the batch open until a matching {@link #release}. */
  void hold() {
    holds++;
  }

  /**
   * As {@link #hold}, for a file that writes its rows later: when the writer is past the batch,
   * {@code writePending} writes them (once per file, however many rows it holds), so that no file
   * keeps batches open for rows it may not see more of for long (a partition's file).
   */
  void hold(Runnable writePending) {
    holds++;
    if (passed) {
      // A sorted buffer's rows: the file writes them when its chunk is full or it closes.
      return;
    }
    // A file holds runs of a batch's rows: the last file added is the one to look at first.
    int last = pendingWrites.size() - 1;
    if ((last < 0 || pendingWrites.get(last) != writePending) && !pendingWrites.contains(writePending)) {
      pendingWrites.add(writePending);
    }
  }

  /** Lets go of a {@link #hold}; closes the batch if nothing else holds it and the writer is past it. */
  void release() {
    holds--;
    closeIfUnused();
  }

  /** The writer has gone through every row: files write the rows they hold; closes the batch if nothing else holds it. */
  void passed() {
    passed = true;
    for (Runnable write : List.copyOf(pendingWrites)) {
      write.run();
    }
    pendingWrites.clear();
    closeIfUnused();
  }

  private void closeIfUnused() {
    if (passed && holds == 0 && !isClosed) {
      isClosed = true;
      batch.close();
    }
  }
}
