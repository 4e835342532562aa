package io.sqe.engine.exec.expr;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.BatchStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.linq4j.Enumerator;

/**
 * The rows of a columnar query's record batches in the shape and value representation of Calcite's
 * row runtime ({@link RowValues}: a bare value for one column, else an {@code Object[]}), for a
 * statement that consumes a query's rows one by one (a copy-on-write DELETE, UPDATE or MERGE). Each
 * batch is closed once its rows are read; closing this closes the stream.
 */
public final class BatchRows implements Enumerator<Object> {
  private final BatchStream batches;
  private final int columns;
  private VectorSchemaRoot batch;
  private RowValues.Reader[] readers;
  private int row;
  private Object current;

  public BatchRows(BatchStream batches, int columns) {
    this.batches = requireNonNull(batches, "batches is null");
    this.columns = columns;
  }

  /** Whether every column of {@code schema} has a row representation this reads (no nested or TIME columns). */
  public static boolean readable(Schema schema) {
    for (Field field : schema.getFields()) {
      if (!field.getChildren().isEmpty() || !RowValues.readable(field.getType())) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Object current() {
    return current;
  }

  @Override
  public boolean moveNext() {
    while (batch == null || row >= batch.getRowCount()) {
      closeBatch();
      batch = batches.next();
      if (batch == null) {
        current = null;
        return false;
      }
      if (batch.getFieldVectors().size() != columns) {
        throw new IllegalStateException("A batch of " + batch.getFieldVectors().size() + " columns where the query has " + columns);
      }
      readers = new RowValues.Reader[columns];
      for (int c = 0; c < columns; c++) {
        readers[c] = RowValues.reader(batch.getVector(c));
      }
      row = 0;
    }
    if (columns == 1) {
      current = readers[0].get(row);
    } else {
      Object[] values = new Object[columns];
      for (int c = 0; c < columns; c++) {
        values[c] = readers[c].get(row);
      }
      current = values;
    }
    row++;
    return true;
  }

  @Override
  public void reset() {
    throw new UnsupportedOperationException("A query's batches cannot be read again");
  }

  @Override
  public void close() {
    try {
      closeBatch();
    } finally {
      batches.close();
    }
  }

  private void closeBatch() {
    if (batch != null) {
      batch.close();
      batch = null;
    }
  }
}
