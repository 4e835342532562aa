package io.sqe.engine.exec.window;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * Consecutive rows of sorted input batches, numbered from 0: row {@code i} is row {@code rowOf[i]}
 * of the batch whose columns are {@code columns.get(batchOf[i])}.
 */
public record WindowRows(List<List<FieldVector>> columns, int[] batchOf, int[] rowOf) {
  public WindowRows {
    requireNonNull(columns, "columns is null");
    requireNonNull(batchOf, "batchOf is null");
    requireNonNull(rowOf, "rowOf is null");
  }

  public int size() {
    return batchOf.length;
  }

  /** The columns of the batch row {@code i} is in. */
  public List<FieldVector> columnsOf(int i) {
    return columns.get(batchOf[i]);
  }

  public FieldVector vector(int column, int i) {
    return columns.get(batchOf[i]).get(column);
  }

  public int row(int i) {
    return rowOf[i];
  }
}
