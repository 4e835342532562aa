package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The input of a GROUPING SETS aggregate: each input batch once per grouping set, its key columns
 * not in that set NULL, followed by the set's grouping id and the columns the aggregate calls read.
 * A plain hash aggregate over (keys, grouping id) then computes every set at once, the id keeping
 * a NULL a set stands for apart from a NULL in the data. Columns are shared with the input batch
 * (Arrow's split-and-transfer of every row slices its buffers), not copied.
 */
public final class ExpandBatches implements BatchOperator {
  private final BatchOperator input;
  private final int[] keyColumns;
  private final long[] groupingIds;
  private final int[] passedColumns;
  private final Schema schema;
  private final BufferAllocator allocator;
  private VectorSchemaRoot batch;
  private int nextSet;

  /**
   * @param keyColumns the input columns grouped by, in their order in the output
   * @param groupingIds per grouping set, its id: bit {@code keyColumns.length - 1 - j} set when
   *     key {@code j} is not in the set (SQL's GROUPING of every key)
   * @param passedColumns the input columns passed through after the id
   * @param schema the output: a nullable field per key, the BIGINT id, then the passed columns
   */
  public ExpandBatches(BatchOperator input, int[] keyColumns, long[] groupingIds, int[] passedColumns, Schema schema, BufferAllocator allocator) {
    this.input = requireNonNull(input, "input is null");
    this.keyColumns = keyColumns.clone();
    this.groupingIds = groupingIds.clone();
    this.passedColumns = passedColumns.clone();
    this.schema = requireNonNull(schema, "schema is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    if (schema.getFields().size() != keyColumns.length + 1 + passedColumns.length) {
      throw new IllegalArgumentException("The schema has " + schema.getFields().size() + " fields for "
          + keyColumns.length + " keys, an id and " + passedColumns.length + " columns");
    }
  }

  @Override
  public VectorSchemaRoot next() {
    if (batch == null || nextSet == groupingIds.length) {
      closeBatch();
      batch = input.next();
      nextSet = 0;
      if (batch == null) {
        return null;
      }
    }
    return expand(groupingIds[nextSet++]);
  }

  private VectorSchemaRoot expand(long groupingId) {
    int rows = batch.getRowCount();
    List<Field> fields = schema.getFields();
    List<FieldVector> vectors = new ArrayList<>(fields.size());
    try {
      int keys = keyColumns.length;
      for (int j = 0; j < keys; j++) {
        boolean inSet = (groupingId >>> (keys - 1 - j) & 1) == 0;
        vectors.add(inSet ? shared(keyColumns[j], fields.get(j), rows) : nulls(fields.get(j), rows));
      }
      BigIntVector id = (BigIntVector) fields.get(keys).createVector(allocator);
      vectors.add(id);
      id.allocateNew(rows);
      for (int r = 0; r < rows; r++) {
        id.set(r, groupingId);
      }
      id.setValueCount(rows);
      for (int c = 0; c < passedColumns.length; c++) {
        vectors.add(shared(passedColumns[c], fields.get(keys + 1 + c), rows));
      }
    } catch (RuntimeException | Error e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(fields, vectors, rows);
  }

  /** A vector of {@code field} holding the input column's values, sharing its buffers. */
  private FieldVector shared(int column, Field field, int rows) {
    FieldVector target = field.createVector(allocator);
    try {
      batch.getVector(column).makeTransferPair(target).splitAndTransfer(0, rows);
      return target;
    } catch (RuntimeException | Error e) {
      target.close();
      throw e;
    }
  }

  private FieldVector nulls(Field field, int rows) {
    FieldVector vector = field.createVector(allocator);
    try {
      vector.setInitialCapacity(rows);
      vector.allocateNew();
      vector.setValueCount(rows);
      return vector;
    } catch (RuntimeException | Error e) {
      vector.close();
      throw e;
    }
  }

  private void closeBatch() {
    if (batch != null) {
      VectorSchemaRoot done = batch;
      batch = null;
      done.close();
    }
  }

  @Override
  public void close() {
    try {
      closeBatch();
    } finally {
      input.close();
    }
  }
}
