package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes rows in Calcite's shape (a bare value for one column, else an {@code Object[]}) into
 * record batches: the row adapter of a columnar operator whose input comes as rows, such as a scan
 * of a file the vectorized reader does not handle.
 */
public final class RowBatchBuilder implements AutoCloseable {
  private final Schema schema;
  private final BufferAllocator allocator;
  private VectorSchemaRoot root;
  private ColumnWriter[] writers;
  private int count;

  public RowBatchBuilder(Schema schema, BufferAllocator allocator) {
    this.schema = requireNonNull(schema, "schema is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  public void add(Object row) {
    if (root == null) {
      root = VectorSchemaRoot.create(schema, allocator);
      root.allocateNew();
      writers = new ColumnWriter[root.getFieldVectors().size()];
      for (int i = 0; i < writers.length; i++) {
        writers[i] = ColumnWriter.create(root.getVector(i));
      }
    }
    if (writers.length == 1) {
      writers[0].write(count, row);
    } else {
      Object[] values = (Object[]) row;
      for (int i = 0; i < writers.length; i++) {
        writers[i].write(count, values[i]);
      }
    }
    count++;
  }

  /** The rows added since the last batch was built. */
  public int size() {
    return count;
  }

  /** The rows added since the last batch, as a batch the caller owns; null when there are none. */
  public VectorSchemaRoot build() {
    if (count == 0) {
      return null;
    }
    VectorSchemaRoot batch = root;
    for (FieldVector vector : batch.getFieldVectors()) {
      vector.setValueCount(count);
    }
    batch.setRowCount(count);
    root = null;
    count = 0;
    return batch;
  }

  @Override
  public void close() {
    if (root != null) {
      root.close();
      root = null;
      count = 0;
    }
  }
}
