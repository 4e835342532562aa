package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.Predicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Keeps the rows of its input's batches that a condition keeps: a batch whose rows all pass goes
 * on as it is, one that loses some is gathered into a new batch of the rows left, and one that
 * loses all is released.
 */
public final class FilterBatches implements BatchOperator {
  private final BatchOperator input;
  private final Predicate predicate;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private int[] selection = new int[0];

  public FilterBatches(BatchOperator input, Predicate predicate, QueryContext context, BufferAllocator allocator) {
    this.input = requireNonNull(input, "input is null");
    this.context = requireNonNull(context, "context is null");
    this.predicate = requireNonNull(predicate, "predicate is null").bind(context::get);
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  @Override
  public VectorSchemaRoot next() {
    while (true) {
      VectorSchemaRoot batch = input.next();
      if (batch == null) {
        return null;
      }
      int rows = batch.getRowCount();
      if (selection.length < rows) {
        selection = new int[rows];
      }
      for (int i = 0; i < rows; i++) {
        selection[i] = i;
      }
      int kept;
      try {
        kept = predicate.filter(batch, selection, rows);
      } catch (RuntimeException | Error e) {
        batch.close();
        throw e;
      }
      if (kept == rows) {
        return batch;
      }
      try (batch) {
        if (kept > 0) {
          return gather(batch, kept);
        }
      }
      context.checkCancelled();
    }
  }

  private VectorSchemaRoot gather(VectorSchemaRoot batch, int kept) {
    return Gather.rows(batch.getSchema(), allocator, kept, batch, selection);
  }

  @Override
  public void close() {
    input.close();
  }
}
