package io.sqe.engine.exec;

import org.apache.arrow.vector.VectorSchemaRoot;

/** Sees every batch of a result as it is produced, and whether the result ended whole. */
public interface ResultSink {
  /** The next batch of the result is in {@code root}; the root is reused after this returns. */
  void batch(VectorSchemaRoot root);

  /** The result ended, all of it produced: no error, no cancel. */
  void completed();
}
