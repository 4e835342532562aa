package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.aggregate.Accumulator;
import io.sqe.engine.exec.aggregate.AggregateCall;
import io.sqe.engine.exec.aggregate.Accumulators;
import io.sqe.engine.exec.hash.KeyTable;
import io.sqe.engine.exec.hash.PackedKeyIds;
import io.sqe.engine.exec.spill.HashPartitions;
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
 * One pass of a {@link HashAggregateBatches} over some input: a {@link KeyTable} giving every row
 * its group's dense id, and each call's {@link Accumulator} adding the batch's values by id, a
 * column at a time. When its memory passes its budget, or the query's allocator refuses it, the
 * pass holds its groups (no new one is added) and writes the rows of the groups it does not hold to
 * {@link HashPartitions} of its level, for a pass of the next level to aggregate each partition.
 * Every group is thus wholly in one pass: its rows are added in their input order, wherever they
 * are, which keeps floating-point sums and SINGLE_VALUE exactly as without spilling.
 */
final class AggregationPass implements AutoCloseable {
  /** What every pass of one aggregate shares. */
  record Shape(
      int[] keyColumns,
      List<Field> keyFields,
      List<AggregateCall> calls,
      Schema output,
      QueryContext context,
      BufferAllocator query,
      BufferAllocator memory,
      int partitions,
      int maxLevel) {}

  private final Shape shape;
  private final int level;
  private KeyTable table;
  /** The ids of the few keys seen so far, when they pack into a long; null when they do not. */
  private final PackedKeyIds known;
  private final List<Accumulator> accumulators = new ArrayList<>();
  private final List<FieldVector> keys = new ArrayList<>();
  private HashPartitions spilled;
  private int groups;
  private int emitted;
  private int[] ids = new int[0];
  private int[] filtered = new int[0];
  private int[] selected = new int[0];

  /** @param level 0 over the operator's input, n + 1 over a partition a pass of level n spilled */
  AggregationPass(Shape shape, int level) {
    this.shape = requireNonNull(shape, "shape is null");
    this.level = level;
    try {
      this.table = shape.keyColumns().length == 0 ? null : new KeyTable(shape.keyFields(), shape.memory());
      this.known = table == null ? null : PackedKeyIds.of(shape.keyFields());
      for (AggregateCall call : shape.calls()) {
        accumulators.add(Accumulators.create(call, shape.memory()));
      }
      if (table == null) {
        grow(1);
      }
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  int level() {
    return level;
  }

  int groups() {
    return groups;
  }

  /** Adds {@code batch}'s rows to their groups, or to the partitions for those this pass does not hold. */
  void add(VectorSchemaRoot batch) {
    int rows = batch.getRowCount();
    if (ids.length < rows) {
      ids = new int[rows];
      filtered = new int[rows];
      selected = new int[rows];
    }
    if (table == null) {
      Arrays.fill(ids, 0, rows, 0);
      reserve(batch, rows);
      accumulate(batch, rows);
      return;
    }
    keys.clear();
    for (int column : shape.keyColumns()) {
      keys.add(batch.getVector(column));
    }
    // Rows whose keys are all known take their ids without the table, and add no group.
    boolean allKnown = known != null && known.find(keys, rows, ids);
    if (spilled == null) {
      if (overBudget()) {
        startSpilling(batch, null);
      } else {
        try {
          if (!allKnown) {
            table.insert(keys, rows, ids);
            grow(table.size());
          }
          reserve(batch, rows);
          accumulate(batch, rows);
          if (!allKnown && known != null) {
            known.remember(rows, ids, groups);
          }
          return;
        } catch (OutOfMemoryException e) {
          // The table and states stay as they were before what did not fit: hold those groups.
          startSpilling(batch, e);
        }
      }
    }
    if (allKnown) {
      // Known keys are groups this pass holds: none of the rows spills.
      reserve(batch, rows);
      accumulate(batch, rows);
      return;
    }
    table.lookup(keys, rows, ids);
    int spilledRows = 0;
    for (int r = 0; r < rows; r++) {
      // A group the refused insert added has no states: it is not held either.
      if (ids[r] < 0 || ids[r] >= groups) {
        ids[r] = -1;
        selected[spilledRows++] = r;
      }
    }
    reserve(batch, rows);
    accumulate(batch, rows);
    if (known != null) {
      known.remember(rows, ids, groups);
    }
    if (spilledRows > 0) {
      try {
        spilled.add(batch, selected, spilledRows);
      } catch (SqeException e) {
        throw couldNotSpill(e);
      }
    }
  }

  /**
   * Whether the pass holds more than its budget, three eighths of the query's limit (not half, as
   * the sort's: the table and states grow by doubling, so one more batch may take half as much
   * again), or holds a sixteenth while the query as a whole holds half (scans' prefetched batches,
   * other operators, parallel parts), which leaves them room.
   */
  boolean overBudget() {
    long limit = shape.query().getLimit();
    long held = shape.memory().getAllocatedMemory();
    return held > limit / 8 * 3 || shape.query().getAllocatedMemory() > limit / 2 && held > limit / 16;
  }

  private void startSpilling(VectorSchemaRoot batch, OutOfMemoryException cause) {
    if (level > shape.maxLevel()) {
      throw new CannotSpill(level, cause);
    }
    if (groups == 0 && table.size() > 0) {
      // A refused first batch left keys without states: all of them go to the partitions, whose
      // smaller batches a deeper pass aggregates with the memory the input's operators held.
      table.close();
      table = null;
      table = new KeyTable(shape.keyFields(), shape.memory());
    }
    try {
      spilled = new HashPartitions(
          shape.context().spill(), batch.getSchema(), shape.keyColumns(), shape.partitions(), level, batchRows(batch), shape.memory());
    } catch (SqeException e) {
      throw couldNotSpill(e);
    }
  }

  /** A failure to write the spill (disk full, {@code query.max-spill}), naming the operator that spilled. */
  private SqeException couldNotSpill(SqeException e) {
    return new SqeException(e.code(), "HashAggregate could not spill what did not fit in query.max-memory: " + e.getMessage(), e);
  }

  /** Rows per partition's gathering batch: all of them together take a sixteenth of the query's limit. */
  private int batchRows(VectorSchemaRoot batch) {
    long bytes = 0;
    for (FieldVector vector : batch.getFieldVectors()) {
      for (ArrowBuf buffer : vector.getFieldBuffers()) {
        bytes += buffer.capacity();
      }
    }
    long rowBytes = Math.max(1, bytes / Math.max(1, batch.getRowCount()));
    long rows = shape.query().getLimit() / 16 / shape.partitions() / rowBytes;
    return (int) Math.max(16, Math.min(HashAggregateBatches.OUTPUT_ROWS, rows));
  }

  /** Makes room for {@link #accumulate} to allocate nothing; the allocator refuses here or not at all. */
  private void reserve(VectorSchemaRoot batch, int rows) {
    List<AggregateCall> calls = shape.calls();
    for (int c = 0; c < calls.size(); c++) {
      AggregateCall call = calls.get(c);
      if (call.argument() >= 0) {
        accumulators.get(c).reserve(batch.getVector(call.argument()), rows, groupsOf(call, batch, rows));
      }
    }
  }

  private void accumulate(VectorSchemaRoot batch, int rows) {
    List<AggregateCall> calls = shape.calls();
    for (int c = 0; c < calls.size(); c++) {
      AggregateCall call = calls.get(c);
      FieldVector argument = call.argument() < 0 ? null : batch.getVector(call.argument());
      accumulators.get(c).add(argument, rows, groupsOf(call, batch, rows));
    }
  }

  /** The rows' groups for {@code call}: -1 for a row its FILTER drops (in a shared array, valid until the next call). */
  private int[] groupsOf(AggregateCall call, VectorSchemaRoot batch, int rows) {
    return call.filter() < 0 ? ids : filter(batch.getVector(call.filter()), rows, ids, filtered);
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

  /** Ends the input: what is spilled is written out, and the partitions are ready to read. */
  void finishInput() {
    if (spilled != null) {
      try {
        spilled.finish();
      } catch (SqeException e) {
        throw couldNotSpill(e);
      }
    }
  }

  /** The partitions of the rows this pass did not hold, handed to the caller; null when none. */
  HashPartitions takeSpilled() {
    HashPartitions partitions = spilled;
    spilled = null;
    return partitions;
  }

  /** The next at most {@code maxRows} groups held: their keys, then one column per call; null after the last. */
  VectorSchemaRoot next(int maxRows) {
    if (emitted >= groups) {
      return null;
    }
    int count = Math.min(maxRows, groups - emitted);
    VectorSchemaRoot out = VectorSchemaRoot.create(shape.output(), shape.query());
    try {
      List<FieldVector> vectors = out.getFieldVectors();
      for (FieldVector vector : vectors) {
        vector.setInitialCapacity(count);
        vector.allocateNew();
      }
      int keyCount = shape.keyColumns().length;
      if (table != null) {
        table.copyKeys(emitted, count, vectors.subList(0, keyCount));
      }
      for (int c = 0; c < accumulators.size(); c++) {
        accumulators.get(c).write(emitted, count, vectors.get(keyCount + c));
      }
      out.setRowCount(count);
    } catch (RuntimeException | Error e) {
      out.close();
      throw e;
    }
    emitted += count;
    return out;
  }

  /** Frees the table, the states and the partitions not taken. */
  @Override
  public void close() {
    try {
      if (spilled != null) {
        spilled.close();
        spilled = null;
      }
    } finally {
      for (Accumulator accumulator : accumulators) {
        accumulator.close();
      }
      if (table != null) {
        table.close();
      }
    }
  }

  /** A pass that must spill but cannot: it is past the deepest level. */
  static final class CannotSpill extends RuntimeException {
    private final int level;

    CannotSpill(int level, OutOfMemoryException cause) {
      super(cause == null ? "over its budget" : cause.getMessage(), cause);
      this.level = level;
    }

    int level() {
      return level;
    }
  }
}
