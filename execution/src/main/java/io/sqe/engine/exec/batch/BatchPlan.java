package io.sqe.engine.exec.batch;

import io.sqe.engine.exec.QueryContext;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A compiled columnar plan: made once when the statement is planned, it opens a fresh tree of
 * operators for each execution, whose buffers all come from that execution's allocator.
 */
@FunctionalInterface
public interface BatchPlan {
  BatchOperator open(QueryContext context, BufferAllocator allocator);
}
