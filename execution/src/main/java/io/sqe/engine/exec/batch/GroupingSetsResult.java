package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The rows of a GROUPING SETS aggregate from the plain aggregate over its {@link ExpandBatches}
 * input (keys, grouping id, then the aggregate calls): the keys, then per call of the statement
 * either that call's column or its GROUPING(...) value, taken from the grouping id's bits. Over no
 * input rows, when the empty grouping set is one of the sets, there is still its one row (NULL
 * keys, COUNT 0, other calls NULL), as for a global aggregate.
 */
public final class GroupingSetsResult implements BatchOperator {
  /** One output column after the keys: an input column, or GROUPING of some keys. */
  public record Output(int column, int[] groupingKeys, boolean zeroWhenEmpty) {
    public static Output column(int column, boolean zeroWhenEmpty) {
      return new Output(column, null, zeroWhenEmpty);
    }

    /** GROUPING of the keys at these positions (GROUP_ID when none: 0, the sets being distinct). */
    public static Output grouping(int[] keys) {
      return new Output(-1, keys.clone(), true);
    }
  }

  private final BatchOperator input;
  private final int keys;
  private final List<Output> outputs;
  private final long emptySetId;
  private final Schema schema;
  private final BufferAllocator allocator;
  private boolean returnedRows;

  /**
   * @param keys the number of key columns before the input's grouping id
   * @param emptySetId the grouping id of the empty grouping set, or -1 when it is not a set
   */
  public GroupingSetsResult(BatchOperator input, int keys, List<Output> outputs, long emptySetId, Schema schema, BufferAllocator allocator) {
    this.input = requireNonNull(input, "input is null");
    this.keys = keys;
    this.outputs = List.copyOf(outputs);
    this.emptySetId = emptySetId;
    this.schema = requireNonNull(schema, "schema is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  @Override
  public VectorSchemaRoot next() {
    VectorSchemaRoot batch = input.next();
    if (batch == null) {
      if (returnedRows || emptySetId < 0) {
        return null;
      }
      returnedRows = true;
      return emptySetRow();
    }
    returnedRows = true;
    try (batch) {
      int rows = batch.getRowCount();
      List<FieldVector> vectors = new ArrayList<>(schema.getFields().size());
      try {
        for (int j = 0; j < keys; j++) {
          vectors.add(take(batch, j, schema.getFields().get(j), rows));
        }
        BigIntVector ids = (BigIntVector) batch.getVector(keys);
        for (int c = 0; c < outputs.size(); c++) {
          Output output = outputs.get(c);
          if (output.groupingKeys() == null) {
            vectors.add(take(batch, output.column(), schema.getFields().get(keys + c), rows));
          } else {
            BigIntVector grouping = (BigIntVector) schema.getFields().get(keys + c).createVector(allocator);
            vectors.add(grouping);
            grouping.allocateNew(rows);
            for (int r = 0; r < rows; r++) {
              grouping.set(r, grouping(ids.get(r), output.groupingKeys()));
            }
            grouping.setValueCount(rows);
          }
        }
      } catch (RuntimeException | Error e) {
        vectors.forEach(FieldVector::close);
        throw e;
      }
      return new VectorSchemaRoot(schema.getFields(), vectors, rows);
    }
  }

  /** GROUPING(k1, ..., kn): bit n-1-i set when key ki is not in the row's set. */
  private long grouping(long groupingId, int[] groupingKeys) {
    long value = 0;
    for (int key : groupingKeys) {
      value = value << 1 | (groupingId >>> (keys - 1 - key) & 1);
    }
    return value;
  }

  /** The input column's vector under the output's {@code field}, its buffers moved, not copied. */
  private FieldVector take(VectorSchemaRoot batch, int column, Field field, int rows) {
    FieldVector target = field.createVector(allocator);
    try {
      batch.getVector(column).makeTransferPair(target).transfer();
      target.setValueCount(rows);
      return target;
    } catch (RuntimeException | Error e) {
      target.close();
      throw e;
    }
  }

  private VectorSchemaRoot emptySetRow() {
    VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator);
    try {
      for (FieldVector vector : out.getFieldVectors()) {
        vector.setInitialCapacity(1);
        vector.allocateNew();
      }
      for (int c = 0; c < outputs.size(); c++) {
        Output output = outputs.get(c);
        FieldVector vector = out.getVector(keys + c);
        if (output.groupingKeys() != null) {
          ((BigIntVector) vector).set(0, grouping(emptySetId, output.groupingKeys()));
        } else if (output.zeroWhenEmpty()) {
          zero(vector);
        }
      }
      out.setRowCount(1);
      return out;
    } catch (RuntimeException | Error e) {
      out.close();
      throw e;
    }
  }

  /** A COUNT's or SUM0's value over no rows. */
  private static void zero(FieldVector vector) {
    if (vector instanceof BigIntVector v) {
      v.set(0, 0L);
    } else if (vector instanceof DecimalVector v) {
      v.set(0, BigDecimal.ZERO.setScale(v.getScale()));
    } else if (vector instanceof Float8Vector v) {
      v.set(0, 0.0);
    } else if (vector instanceof Float4Vector v) {
      v.set(0, 0.0f);
    } else {
      throw new IllegalArgumentException("No zero of " + vector.getField());
    }
  }

  @Override
  public void close() {
    input.close();
  }
}
