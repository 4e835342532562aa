package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.RowBatchBuilder;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;

/**
 * A source whose rows come as the row runtime's (Calcite's shape: a bare value for one column, else
 * an {@code Object[]}), written into batches: literal rows (VALUES), the Iceberg metadata tables,
 * information_schema. Such sources are small; their rows are read when the first batch is asked for.
 */
public final class RowSourceBatches implements BatchOperator {
  private static final int BATCH_ROWS = 4096;

  private final Enumerable<?> rows;
  private final Schema schema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private Enumerator<?> enumerator;
  private boolean done;

  public RowSourceBatches(Enumerable<?> rows, Schema schema, QueryContext context, BufferAllocator allocator) {
    this.rows = requireNonNull(rows, "rows is null");
    this.schema = requireNonNull(schema, "schema is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  @Override
  public VectorSchemaRoot next() {
    if (done) {
      return null;
    }
    if (enumerator == null) {
      enumerator = rows.enumerator();
    }
    try (RowBatchBuilder builder = new RowBatchBuilder(schema, allocator)) {
      while (builder.size() < BATCH_ROWS && enumerator.moveNext()) {
        builder.add(enumerator.current());
        if (builder.size() % 1024 == 0) {
          context.checkCancelled();
        }
      }
      if (builder.size() < BATCH_ROWS) {
        done = true;
      }
      return builder.build();
    }
  }

  @Override
  public void close() {
    done = true;
    if (enumerator != null) {
      enumerator.close();
      enumerator = null;
    }
  }
}
