package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * UNION ALL: the batches of each input in turn, under the union's schema (its column names and
 * nullability; the inputs' columns have the same Arrow types). Each input is opened when reached
 * and closed when done, so one input's scan runs at a time.
 */
public final class UnionBatches implements BatchOperator {
  private final List<BatchPlan> inputs;
  private final Schema schema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private int next;
  private BatchOperator current;

  public UnionBatches(List<BatchPlan> inputs, Schema schema, QueryContext context, BufferAllocator allocator) {
    this.inputs = List.copyOf(inputs);
    this.schema = requireNonNull(schema, "schema is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  @Override
  public VectorSchemaRoot next() {
    while (true) {
      if (current == null) {
        if (next == inputs.size()) {
          return null;
        }
        current = inputs.get(next++).open(context, allocator);
      }
      VectorSchemaRoot batch = current.next();
      if (batch != null) {
        return new VectorSchemaRoot(schema.getFields(), batch.getFieldVectors(), batch.getRowCount());
      }
      BatchOperator done = current;
      current = null;
      done.close();
    }
  }

  @Override
  public void close() {
    next = inputs.size();
    if (current != null) {
      BatchOperator open = current;
      current = null;
      open.close();
    }
  }
}
