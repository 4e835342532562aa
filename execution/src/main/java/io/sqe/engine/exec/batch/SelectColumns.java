package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Picks and orders columns of its input's batches: a projection of column references. The
 * vectors move to the output batch by transfer, without copying a value; the columns it drops
 * are released with the input batch.
 */
public final class SelectColumns implements BatchOperator {
  private final BatchOperator input;
  private final int[] columns;
  private final Schema schema;

  /**
   * @param columns for each output column, the input column it is; no input column twice
   * @param schema the output's schema, whose fields have the types of the input columns they pick
   */
  public SelectColumns(BatchOperator input, int[] columns, Schema schema) {
    this.input = requireNonNull(input, "input is null");
    this.columns = columns.clone();
    this.schema = requireNonNull(schema, "schema is null");
    if (schema.getFields().size() != columns.length) {
      throw new IllegalArgumentException("The schema has " + schema.getFields().size() + " fields for " + columns.length + " columns");
    }
  }

  @Override
  public VectorSchemaRoot next() {
    try (VectorSchemaRoot batch = input.next()) {
      if (batch == null) {
        return null;
      }
      List<FieldVector> vectors = new ArrayList<>(columns.length);
      try {
        for (int i = 0; i < columns.length; i++) {
          FieldVector source = batch.getVector(columns[i]);
          FieldVector target = schema.getFields().get(i).createVector(source.getAllocator());
          vectors.add(target);
          source.makeTransferPair(target).transfer();
        }
      } catch (RuntimeException | Error e) {
        vectors.forEach(FieldVector::close);
        throw e;
      }
      return new VectorSchemaRoot(schema.getFields(), vectors, batch.getRowCount());
    }
  }

  @Override
  public void close() {
    input.close();
  }
}
