package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.aggregate.Accumulator;
import io.sqe.engine.exec.aggregate.Accumulators;
import io.sqe.engine.exec.aggregate.AggregateCall;
import io.sqe.engine.exec.hash.KeyTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * INTERSECT, EXCEPT and UNION, ALL or DISTINCT, of inputs with the same columns: every input's
 * rows are counted by their whole row in one {@link KeyTable} (NULLs equal, as set operations
 * compare rows), a count per input, the inputs read one after the other. Each distinct row is then
 * returned as many times as its counts give: the minimum for INTERSECT ALL, the first input's
 * count less the others' (at least 0) for EXCEPT ALL, the sum for UNION ALL, and once where that is
 * positive for DISTINCT. Keys and counts are in buffers of the query's allocator; when it refuses
 * one, the query fails with RESOURCE_EXHAUSTED naming this operator.
 */
public final class SetOperationBatches implements BatchOperator {
  /** The set operation. */
  public enum Kind { INTERSECT, EXCEPT, UNION }

  private static final int OUTPUT_ROWS = 4096;
  private static final Field COUNT = new Field("count", FieldType.notNullable(new ArrowType.Int(64, true)), null);

  private final List<BatchPlan> inputs;
  private final Kind kind;
  private final boolean all;
  private final Schema schema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private final KeyTable table;
  private final List<Accumulator> counts = new ArrayList<>();
  private BatchOperator current;
  private boolean drained;
  private int nextGroup;
  private VectorSchemaRoot chunk;
  private long[] repeats = new long[0];
  private int chunkRow;

  /** @param schema the output's columns, whose Arrow types every input's columns have */
  public SetOperationBatches(List<BatchPlan> inputs, Kind kind, boolean all, Schema schema, QueryContext context, BufferAllocator allocator) {
    this.inputs = List.copyOf(inputs);
    this.kind = requireNonNull(kind, "kind is null");
    this.all = all;
    this.schema = requireNonNull(schema, "schema is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    if (this.inputs.size() < 2) {
      throw new IllegalArgumentException("A set operation needs two inputs or more");
    }
    this.table = new KeyTable(schema.getFields(), allocator);
    try {
      for (int i = 0; i < this.inputs.size(); i++) {
        counts.add(Accumulators.create(new AggregateCall(AggregateCall.Kind.COUNT_STAR, -1, -1, null, COUNT), allocator));
      }
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  @Override
  public VectorSchemaRoot next() {
    try {
      if (!drained) {
        drain();
      }
      int[] rows = new int[OUTPUT_ROWS];
      int count = 0;
      while (count < OUTPUT_ROWS) {
        if (chunk == null || chunkRow == chunk.getRowCount()) {
          if (count > 0 || !nextChunk()) {
            break;
          }
        }
        if (repeats[chunkRow] == 0) {
          chunkRow++;
        } else {
          rows[count++] = chunkRow;
          repeats[chunkRow]--;
        }
      }
      if (count == 0) {
        return null;
      }
      VectorSchemaRoot from = chunk;
      return Gather.rows(schema, allocator, count, i -> from, i -> rows[i]);
    } catch (OutOfMemoryException e) {
      throw new SqeException(
          ErrorCode.RESOURCE_EXHAUSTED,
          "Query " + context.queryId() + " exceeded its memory limit in " + kind + " with " + table.size() + " distinct rows: " + e.getMessage(),
          e);
    }
  }

  /** Counts every input's rows by row, one input after the other. */
  private void drain() {
    int[] ids = new int[0];
    List<FieldVector> columns = new ArrayList<>(schema.getFields().size());
    for (int input = 0; input < inputs.size(); input++) {
      current = inputs.get(input).open(context, allocator);
      while (true) {
        try (VectorSchemaRoot batch = current.next()) {
          if (batch == null) {
            break;
          }
          int rows = batch.getRowCount();
          if (ids.length < rows) {
            ids = new int[rows];
          }
          columns.clear();
          columns.addAll(batch.getFieldVectors());
          table.insert(columns, rows, ids);
          for (Accumulator count : counts) {
            count.grow(table.size());
          }
          counts.get(input).add(null, rows, ids);
        }
        context.checkCancelled();
      }
      BatchOperator done = current;
      current = null;
      done.close();
    }
    drained = true;
  }

  /** Loads the keys of the next groups and how often each is returned; false after the last group. */
  private boolean nextChunk() {
    closeChunk();
    while (nextGroup < table.size()) {
      int groups = Math.min(OUTPUT_ROWS, table.size() - nextGroup);
      long[] times = times(nextGroup, groups);
      boolean any = false;
      for (int g = 0; g < groups && !any; g++) {
        any = times[g] > 0;
      }
      if (any) {
        VectorSchemaRoot keys = VectorSchemaRoot.create(schema, allocator);
        try {
          for (FieldVector vector : keys.getFieldVectors()) {
            vector.setInitialCapacity(groups);
            vector.allocateNew();
          }
          table.copyKeys(nextGroup, groups, keys.getFieldVectors());
          keys.setRowCount(groups);
        } catch (RuntimeException | Error e) {
          keys.close();
          throw e;
        }
        chunk = keys;
        repeats = times;
        chunkRow = 0;
      }
      nextGroup += groups;
      if (any) {
        return true;
      }
    }
    return false;
  }

  /** How often each of groups from..from+count-1 is returned. */
  private long[] times(int from, int count) {
    long[] times = new long[count];
    try (BigIntVector input = (BigIntVector) COUNT.createVector(allocator)) {
      input.allocateNew(count);
      for (int i = 0; i < counts.size(); i++) {
        counts.get(i).write(from, count, input);
        for (int g = 0; g < count; g++) {
          times[g] = i == 0 ? input.get(g) : combine(times[g], input.get(g));
        }
      }
    }
    if (!all) {
      for (int g = 0; g < count; g++) {
        times[g] = Math.min(times[g], 1);
      }
    }
    return times;
  }

  private long combine(long sofar, long next) {
    return switch (kind) {
      case INTERSECT -> Math.min(sofar, next);
      case EXCEPT -> all ? Math.max(0, sofar - next) : (next > 0 ? 0 : sofar);
      case UNION -> sofar + next;
    };
  }

  private void closeChunk() {
    if (chunk != null) {
      VectorSchemaRoot done = chunk;
      chunk = null;
      done.close();
    }
  }

  @Override
  public void close() {
    try {
      if (current != null) {
        BatchOperator open = current;
        current = null;
        open.close();
      }
    } finally {
      closeChunk();
      for (Accumulator count : counts) {
        count.close();
      }
      table.close();
    }
  }
}
