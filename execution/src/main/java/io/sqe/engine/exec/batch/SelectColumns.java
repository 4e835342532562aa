package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.ColumnWriter;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A projection of column references and constants over its input's batches. A column's vector
 * moves to the output batch by transfer, without copying a value (a column picked twice is copied
 * the second time); a constant is written into a vector of its own; the columns it drops are
 * released with the input batch.
 */
public final class SelectColumns implements BatchOperator {
  /** In {@link #columns}: the output column is the constant of the same position. */
  public static final int CONSTANT = -1;

  private final BatchOperator input;
  private final int[] columns;
  private final Object[] constants;
  private final Schema schema;
  /** Where constants over a batch of no column go: such a batch has no vector to take it from. */
  private final BufferAllocator allocator;

  /**
   * @param columns for each output column, the input column it is, or {@link #CONSTANT}
   * @param constants for each output column that is a constant, its value in the engine's run-time
   *     representation (as {@link ColumnWriter} takes it), else unused
   * @param schema the output's schema, whose fields have the types of the input columns they pick
   */
  public SelectColumns(BatchOperator input, int[] columns, Object[] constants, Schema schema, BufferAllocator allocator) {
    this.input = requireNonNull(input, "input is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.columns = columns.clone();
    this.constants = constants.clone();
    this.schema = requireNonNull(schema, "schema is null");
    if (schema.getFields().size() != columns.length || constants.length != columns.length) {
      throw new IllegalArgumentException("The schema has " + schema.getFields().size() + " fields for " + columns.length + " columns");
    }
  }

  @Override
  public VectorSchemaRoot next() {
    try (VectorSchemaRoot batch = input.next()) {
      if (batch == null) {
        return null;
      }
      int rows = batch.getRowCount();
      List<FieldVector> vectors = new ArrayList<>(columns.length);
      boolean[] moved = new boolean[batch.getFieldVectors().size()];
      // A scan of no column (a count, constants over a table) hands on batches of rows alone.
      BufferAllocator owner = moved.length == 0 ? allocator : batch.getVector(0).getAllocator();
      try {
        for (int i = 0; i < columns.length; i++) {
          FieldVector target = schema.getFields().get(i).createVector(owner);
          vectors.add(target);
          int column = columns[i];
          if (column == CONSTANT) {
            fill(target, constants[i], rows);
          } else if (!moved[column]) {
            batch.getVector(column).makeTransferPair(target).transfer();
            moved[column] = true;
          } else {
            copy(vectors.get(firstUse(column, i)), target, rows);
          }
        }
      } catch (RuntimeException | Error e) {
        vectors.forEach(FieldVector::close);
        throw e;
      }
      return new VectorSchemaRoot(schema.getFields(), vectors, rows);
    }
  }

  private int firstUse(int column, int before) {
    for (int i = 0; i < before; i++) {
      if (columns[i] == column) {
        return i;
      }
    }
    throw new IllegalStateException("Column " + column + " was not picked before");
  }

  private static void fill(FieldVector target, Object value, int rows) {
    target.setInitialCapacity(rows);
    target.allocateNew();
    ColumnWriter writer = ColumnWriter.create(target);
    for (int r = 0; r < rows; r++) {
      writer.write(r, value);
    }
    target.setValueCount(rows);
  }

  private static void copy(FieldVector from, FieldVector target, int rows) {
    target.setInitialCapacity(rows);
    target.allocateNew();
    for (int r = 0; r < rows; r++) {
      target.copyFromSafe(r, r, from);
    }
    target.setValueCount(rows);
  }

  @Override
  public void close() {
    input.close();
  }
}
