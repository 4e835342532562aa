package io.sqe.engine.exec.batch;

import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A physical operator of a columnar plan: its consumer pulls record batches from it one at a time.
 * Each batch is a fresh {@link VectorSchemaRoot} allocated from the query's allocator, owned by
 * the consumer from then on (it closes it or transfers its vectors), so a batch on its way to a
 * client is never refilled by the operator that made it.
 */
public interface BatchOperator extends AutoCloseable {
  /** The next batch, never empty, or null after the last one. */
  VectorSchemaRoot next();

  /** Stops the operator and releases what it holds; batches already returned stay valid. */
  @Override
  void close();
}
