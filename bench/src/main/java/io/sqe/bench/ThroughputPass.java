package io.sqe.bench;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One timed read of a result: rows and Arrow buffer bytes moved, the wall-clock nanoseconds taken
 * and, for SQE, the CPU time its result and scan threads spent on it.
 */
record ThroughputPass(long rows, long bytes, long nanos, long queryCpuNanos, long scanCpuNanos) {
  ThroughputPass(long rows, long bytes, long nanos) {
    this(rows, bytes, nanos, 0, 0);
  }

  double rowsPerSecond() {
    return rows / (nanos / 1e9);
  }

  double megabytesPerSecond() {
    return bytes / 1e6 / (nanos / 1e9);
  }

  /** The bytes of the root's Arrow buffers for its current row count: what each path counts. */
  static long bufferBytes(VectorSchemaRoot root) {
    long bytes = 0;
    for (FieldVector vector : root.getFieldVectors()) {
      bytes += vector.getBufferSize();
    }
    return bytes;
  }
}
