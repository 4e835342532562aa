package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.batch.BatchOperator;
import io.sqe.engine.exec.batch.BatchPlan;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The record batches of a running columnar query, for a statement that consumes them itself (a
 * CTAS or INSERT writing them as files). Each batch comes from the stream's own allocator, whose
 * limit bounds the query's memory; the caller owns every batch it is given and closes it before
 * it closes the stream, which closes the allocator.
 */
public final class BatchStream implements AutoCloseable {
  private final BatchPlan plan;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private BatchOperator operator;
  private boolean closed;

  BatchStream(BatchPlan plan, QueryContext context, BufferAllocator allocator) {
    this.plan = requireNonNull(plan, "plan is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  public QueryContext context() {
    return context;
  }

  /** Where the batches' buffers come from: what the caller keeps of them counts against the query's limit. */
  public BufferAllocator allocator() {
    return allocator;
  }

  /** The next batch, never empty, which the caller must close; null after the last one. */
  public VectorSchemaRoot next() {
    context.checkCancelled();
    try {
      if (operator == null) {
        operator = plan.open(context, allocator);
      }
      VectorSchemaRoot batch = operator.next();
      if (batch != null) {
        context.stats().batchReturned(batch.getRowCount());
      }
      return batch;
    } catch (RuntimeException | ExceptionInInitializerError e) {
      throw ExecutionErrors.translate(e, context.queryId());
    }
  }

  /** Stops the query and releases its memory; every batch handed out must be closed first. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (operator != null) {
        ExecutionErrors.releaseQuietly(context.queryId(), operator::close);
      }
      ExecutionErrors.releaseQuietly(context.queryId(), context::releaseHeld);
      context.releaseSpill();
    } finally {
      context.stats().peakMemoryBytes(allocator.getPeakMemoryAllocation());
      allocator.close();
    }
  }
}
