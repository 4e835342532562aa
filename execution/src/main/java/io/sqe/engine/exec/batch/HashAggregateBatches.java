package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.aggregate.Accumulator;
import io.sqe.engine.exec.aggregate.AggregateCall;
import io.sqe.engine.exec.aggregate.Accumulators;
import io.sqe.engine.exec.hash.KeyTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * GROUP BY over batches: each batch's keys are looked up in a {@link KeyTable}, which gives every
 * row its group's dense id, and each aggregate call's {@link Accumulator} adds the batch's values
 * by id, a column at a time. Without keys there is one group, which is returned even over no input
 * (COUNT 0, SUM NULL). After the input's last batch, the groups are returned in batches of at most
 * {@link #OUTPUT_ROWS}: their keys, then one column per call. Keys and states are in buffers of
 * the query's allocator; when it refuses one, the query fails with RESOURCE_EXHAUSTED naming this
 * operator.
 */
public final class HashAggregateBatches implements BatchOperator {
  static final int OUTPUT_ROWS = 4096;
  private static final String NAME = "HashAggregate";

  private final BatchOperator input;
  private final int[] keyColumns;
  private final List<AggregateCall> calls;
  private final Schema schema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private final KeyTable table;
  private final List<Accumulator> accumulators = new ArrayList<>();
  private boolean drained;
  private int groups;
  private int emitted;

  /**
   * @param keyColumns the input columns grouped by, in the order of the output's first columns
   * @param keyFields the input's fields of those columns
   * @param schema the output: the keys, then one column per call
   */
  public HashAggregateBatches(
      BatchOperator input,
      int[] keyColumns,
      List<Field> keyFields,
      List<AggregateCall> calls,
      Schema schema,
      QueryContext context,
      BufferAllocator allocator) {
    this.input = requireNonNull(input, "input is null");
    this.keyColumns = keyColumns.clone();
    this.calls = List.copyOf(calls);
    this.schema = requireNonNull(schema, "schema is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.table = keyColumns.length == 0 ? null : new KeyTable(keyFields, allocator);
    for (AggregateCall call : calls) {
      accumulators.add(Accumulators.create(call, allocator));
    }
  }

  @Override
  public VectorSchemaRoot next() {
    try {
      if (!drained) {
        drain();
      }
      if (emitted >= groups) {
        return null;
      }
      int count = Math.min(OUTPUT_ROWS, groups - emitted);
      VectorSchemaRoot out = output(emitted, count);
      emitted += count;
      return out;
    } catch (OutOfMemoryException e) {
      throw new SqeException(
          ErrorCode.RESOURCE_EXHAUSTED,
          "Query " + context.queryId() + " exceeded its memory limit in " + NAME + " with " + groups + " groups: " + e.getMessage(),
          e);
    }
  }

  private void drain() {
    int[] ids = new int[0];
    int[] filtered = new int[0];
    List<FieldVector> keys = new ArrayList<>(keyColumns.length);
    if (table == null) {
      grow(1);
    }
    while (true) {
      try (VectorSchemaRoot batch = input.next()) {
        if (batch == null) {
          break;
        }
        int rows = batch.getRowCount();
        if (ids.length < rows) {
          ids = new int[rows];
          filtered = new int[rows];
        }
        if (table == null) {
          Arrays.fill(ids, 0, rows, 0);
        } else {
          keys.clear();
          for (int column : keyColumns) {
            keys.add(batch.getVector(column));
          }
          table.insert(keys, rows, ids);
          grow(table.size());
        }
        for (int c = 0; c < calls.size(); c++) {
          AggregateCall call = calls.get(c);
          int[] groupsOfRows = ids;
          if (call.filter() >= 0) {
            groupsOfRows = filter(batch.getVector(call.filter()), rows, ids, filtered);
          }
          FieldVector argument = call.argument() < 0 ? null : batch.getVector(call.argument());
          accumulators.get(c).add(argument, rows, groupsOfRows);
        }
      }
      context.checkCancelled();
    }
    drained = true;
  }

  /** The groups of the rows whose FILTER value is TRUE, -1 for the others. */
  private static int[] filter(FieldVector condition, int rows, int[] ids, int[] out) {
    ArrowBuf validity = condition.getValidityBuffer();
    ArrowBuf values = condition.getDataBuffer();
    for (int r = 0; r < rows; r++) {
      out[r] = BitVectorHelper.get(validity, r) != 0 && BitVectorHelper.get(values, r) != 0 ? ids[r] : -1;
    }
    return out;
  }

  private void grow(int groupCount) {
    if (groupCount > groups) {
      for (Accumulator accumulator : accumulators) {
        accumulator.grow(groupCount);
      }
      groups = groupCount;
    }
  }

  private VectorSchemaRoot output(int from, int count) {
    VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator);
    try {
      List<FieldVector> vectors = out.getFieldVectors();
      for (FieldVector vector : vectors) {
        vector.setInitialCapacity(count);
        vector.allocateNew();
      }
      if (table != null) {
        table.copyKeys(from, count, vectors.subList(0, keyColumns.length));
      }
      for (int c = 0; c < calls.size(); c++) {
        accumulators.get(c).write(from, count, vectors.get(keyColumns.length + c));
      }
      out.setRowCount(count);
      return out;
    } catch (RuntimeException | Error e) {
      out.close();
      throw e;
    }
  }

  @Override
  public void close() {
    try {
      input.close();
    } finally {
      for (Accumulator accumulator : accumulators) {
        accumulator.close();
      }
      if (table != null) {
        table.close();
      }
    }
  }
}
