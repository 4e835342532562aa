package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.aggregate.AggregateCall;
import io.sqe.engine.exec.spill.HashPartitions;
import io.sqe.engine.exec.spill.RunReader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * GROUP BY over batches, of any number of groups: each batch's keys are looked up in a hash table
 * that gives every row its group's dense id, and each aggregate call's accumulator adds the batch's
 * values by id, a column at a time (an {@link AggregationPass}). Without keys there is one group,
 * which is returned even over no input (COUNT 0, SUM NULL). After the input's last batch, the
 * groups are returned in batches of at most {@link #OUTPUT_ROWS}: their keys, then one column per
 * call.
 *
 * <p>Keys and states are in buffers of the query's allocator (a child of it, to see the operator's
 * own share). Past its budget (three eighths of the query's limit, less when the query as a whole runs short)
 * or when the allocator refuses, a pass keeps the groups it holds, and keeps adding their rows, but
 * takes no new group: the input rows of the others are written, as they are, to {@link
 * #PARTITIONS} spill partitions by a hash of their keys (Grace hash aggregation, as DuckDB and
 * DataFusion do). Once the pass's groups are returned and freed, each partition is aggregated
 * alone by a pass of the next level, which may split it again by other bits of the hash, down to
 * {@link #MAX_LEVEL}. Input rows are spilled, not partial states, because re-aggregating rows is
 * exact for every call (floating-point sums in their row order, SINGLE_VALUE's second row, FILTER)
 * with no second, merging form of each accumulator; the held groups absorb the rows of the most
 * frequent keys, which then never touch the disk. Without memory pressure nothing is spilled. A
 * global aggregate holds one group and never spills. A pass past the deepest level that must spill
 * fails the query with RESOURCE_EXHAUSTED naming this operator.
 */
public final class HashAggregateBatches implements BatchOperator, HoldsMemory {
  static final int OUTPUT_ROWS = 4096;
  /** Partitions a pass spills to: 16 per level, as DuckDB's radix partitioning starts with. */
  static final int PARTITIONS = 16;
  /** The deepest level that may spill: past it, 16^5 partitions of the input did not fit. */
  static final int MAX_LEVEL = 4;
  private static final String NAME = "HashAggregate";
  /**
   * The groups a partial aggregate holds at most before it returns them and starts again: with
   * 16-byte slots at most half full, its keys and a few states, a table that stays in this
   * machine's 32 MiB L3 cache with room for both parts' tables and the batches around them.
   */
  static final int PARTIAL_GROUPS = 1 << 18;
  /**
   * The memory a partial aggregate holds at most before it returns its groups: as its group count,
   * what stays in the caches (half this machine's 32 MiB L3 per part), whatever the keys' width
   * (TPC-H Q10's seven keys hold some 200 bytes a group, its 2^18 groups 52 MiB).
   */
  static final long PARTIAL_BYTES = 16L << 20;
  /**
   * Input rows after which a partial aggregate without calls (a DISTINCT) that found almost as many
   * groups as rows stops grouping: it returns the groups it holds and hands the rest of its input's
   * keys on as they are, for the final phase to group once (Trino's adaptive partial aggregation).
   */
  static final int PASS_THROUGH_ROWS = 1 << 15;
  /** Groups per input row above which such a partial aggregate passes its input through. */
  private static final double PASS_THROUGH_SHARE = 0.8;

  private final BatchOperator input;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private final BufferAllocator memory;
  private final AggregationPass.Shape shape;
  /** Partitions spilled and not yet aggregated, the deepest level's first. */
  private final Deque<Spilled> pending = new ArrayDeque<>();
  /** The groups a partial aggregate holds at most before it returns them and starts again; 0 for a whole one. */
  private final int flushGroups;
  private AggregationPass pass;
  /** Whether this is a partial aggregate without calls whose keys keep their input's types: it may pass its input through. */
  private final boolean mayPassThrough;
  /** Input rows added to the current pass. */
  private long passRows;
  /** Whether the rest of the input passes through as partial rows of one group each. */
  private boolean passingThrough;
  private boolean started;
  private boolean drained;
  private boolean inputClosed;

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
    this(input, keyColumns, keyFields, calls, schema, context, allocator, MAX_LEVEL, 0);
  }

  /**
   * The partial phase of a split aggregate, whose groups a final phase combines: it returns the
   * groups it holds and starts again with none whenever it holds {@link #PARTIAL_GROUPS} of them,
   * {@link #PARTIAL_BYTES}, or its memory passes its budget, instead of spilling. A table that size
   * stays in the processor's caches, where one of every group misses them on each new key (TPC-H
   * Q18's 1.5 million orders); input clustered by the keys (lineitem by l_orderkey) loses nothing by it.
   */
  public static HashAggregateBatches partial(
      BatchOperator input,
      int[] keyColumns,
      List<Field> keyFields,
      List<AggregateCall> calls,
      Schema schema,
      QueryContext context,
      BufferAllocator allocator) {
    return partial(input, keyColumns, keyFields, calls, schema, context, allocator, PARTIAL_GROUPS);
  }

  /** As {@link #partial(BatchOperator, int[], List, List, Schema, QueryContext, BufferAllocator)}, at {@code flushGroups} groups. */
  static HashAggregateBatches partial(
      BatchOperator input,
      int[] keyColumns,
      List<Field> keyFields,
      List<AggregateCall> calls,
      Schema schema,
      QueryContext context,
      BufferAllocator allocator,
      int flushGroups) {
    if (flushGroups <= 0) {
      throw new IllegalArgumentException("A partial aggregate returns its groups after at least one: " + flushGroups);
    }
    return new HashAggregateBatches(input, keyColumns, keyFields, calls, schema, context, allocator, MAX_LEVEL, flushGroups);
  }

  /**
   * @param maxLevel the deepest level whose passes may spill; -1 for none
   * @param flushGroups for a partial aggregate, the groups it holds at most (see {@link #partial}); 0 for a whole one
   */
  HashAggregateBatches(
      BatchOperator input,
      int[] keyColumns,
      List<Field> keyFields,
      List<AggregateCall> calls,
      Schema schema,
      QueryContext context,
      BufferAllocator allocator,
      int maxLevel,
      int flushGroups) {
    this.flushGroups = flushGroups;
    this.mayPassThrough = flushGroups > 0 && calls.isEmpty() && sameTypes(keyFields, schema);
    this.input = requireNonNull(input, "input is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.memory = allocator.newChildAllocator(NAME, 0, Long.MAX_VALUE);
    this.shape = new AggregationPass.Shape(
        keyColumns.clone(), List.copyOf(keyFields), List.copyOf(calls), requireNonNull(schema, "schema is null"), context, allocator,
        memory, PARTITIONS, maxLevel);
    try {
      this.pass = new AggregationPass(shape, 0);
    } catch (OutOfMemoryException e) {
      memory.close();
      throw exhausted(0, e);
    } catch (RuntimeException | Error e) {
      memory.close();
      throw e;
    }
  }

  @Override
  public long peakMemoryBytes() {
    return memory.getPeakMemoryAllocation();
  }

  @Override
  public VectorSchemaRoot next() {
    try {
      if (!started) {
        started = true;
        drain();
      }
      while (true) {
        if (pass != null) {
          VectorSchemaRoot out = pass.next(OUTPUT_ROWS);
          if (out != null) {
            return out;
          }
          HashPartitions partitions = pass.takeSpilled();
          int level = pass.level();
          pass.close();
          pass = null;
          if (partitions != null) {
            pending.push(new Spilled(partitions, level + 1));
          }
        }
        Spilled next = pending.peek();
        if (next == null) {
          if (drained) {
            return null;
          }
          if (passingThrough) {
            return passThrough();
          }
          // A partial aggregate returned what it held: a new pass takes the rest of the input.
          pass = new AggregationPass(shape, 0);
          drain();
          continue;
        }
        context.checkCancelled();
        int partition = next.nextPartition();
        if (partition < 0) {
          pending.pop().partitions.close();
        } else {
          pass = aggregate(next, partition);
        }
      }
    } catch (OutOfMemoryException e) {
      throw exhausted(pass == null ? 0 : pass.groups(), e);
    } catch (AggregationPass.CannotSpill e) {
      throw cannotSpill(e);
    }
  }

  /** Adds the input to the pass, up to its end, or for a partial aggregate until the pass is full. */
  private void drain() {
    while (true) {
      try (VectorSchemaRoot batch = input.next()) {
        if (batch == null) {
          break;
        }
        pass.add(batch);
        passRows += batch.getRowCount();
      }
      context.checkCancelled();
      if (flushGroups > 0
          && (pass.groups() >= flushGroups || memory.getAllocatedMemory() > PARTIAL_BYTES || pass.overBudget() || reducesLittle())) {
        pass.finishInput();
        passRows = 0;
        return;
      }
    }
    drained = true;
    // The input's readers and buffers go now, before the partitions need the memory.
    closeInput();
    pass.finishInput();
  }

  /** Whether the partial aggregate should pass the rest of its input through: see {@link #PASS_THROUGH_ROWS}. */
  private boolean reducesLittle() {
    if (mayPassThrough && passRows >= PASS_THROUGH_ROWS && pass.groups() > passRows * PASS_THROUGH_SHARE) {
      passingThrough = true;
    }
    return passingThrough;
  }

  /** The next input batch's keys as partial rows, their vectors moved, not copied; null at the input's end. */
  private VectorSchemaRoot passThrough() {
    try (VectorSchemaRoot batch = input.next()) {
      if (batch == null) {
        drained = true;
        closeInput();
        return null;
      }
      List<Field> fields = shape.output().getFields();
      List<FieldVector> vectors = new ArrayList<>(fields.size());
      try {
        for (int i = 0; i < fields.size(); i++) {
          FieldVector from = batch.getVector(shape.keyColumns()[i]);
          FieldVector to = fields.get(i).createVector(from.getAllocator());
          vectors.add(to);
          from.makeTransferPair(to).transfer();
        }
      } catch (RuntimeException | Error e) {
        vectors.forEach(FieldVector::close);
        throw e;
      }
      return new VectorSchemaRoot(fields, vectors, batch.getRowCount());
    }
  }

  /** Whether each key field has the type of the output column it becomes. */
  private static boolean sameTypes(List<Field> keyFields, Schema schema) {
    for (int i = 0; i < keyFields.size(); i++) {
      if (!keyFields.get(i).getType().equals(schema.getFields().get(i).getType())) {
        return false;
      }
    }
    return true;
  }

  /** A pass of {@code spilled}'s level over its partition {@code partition}, which is then deleted. */
  private AggregationPass aggregate(Spilled spilled, int partition) {
    AggregationPass partitionPass = new AggregationPass(shape, spilled.level);
    try (RunReader reader = spilled.partitions.open(partition, allocator)) {
      while (reader.loadNext()) {
        partitionPass.add(reader.batch());
        context.checkCancelled();
      }
      partitionPass.finishInput();
    } catch (RuntimeException | Error e) {
      partitionPass.close();
      throw e;
    } finally {
      spilled.partitions.delete(partition);
    }
    return partitionPass;
  }

  private SqeException exhausted(int groups, OutOfMemoryException e) {
    return new SqeException(
        ErrorCode.RESOURCE_EXHAUSTED,
        "Query " + context.queryId() + " exceeded its memory limit of " + allocator.getLimit() + " bytes (query.max-memory) in operator "
            + NAME + " with " + groups + " groups: " + e.getMessage(),
        e);
  }

  private SqeException cannotSpill(AggregationPass.CannotSpill e) {
    String why = "the rows of " + (e.level() == 0 ? "its input" : "a partition split " + e.level() + (e.level() == 1 ? " time" : " times"))
        + " did not fit";
    return new SqeException(
        ErrorCode.RESOURCE_EXHAUSTED,
        "Query " + context.queryId() + " exceeded its memory limit of " + allocator.getLimit() + " bytes (query.max-memory) in operator "
            + NAME + ", even spilling to disk: " + why,
        e.getCause() != null ? e.getCause() : e);
  }

  private void closeInput() {
    if (!inputClosed) {
      inputClosed = true;
      input.close();
    }
  }

  @Override
  public void close() {
    try {
      closeInput();
    } finally {
      try {
        if (pass != null) {
          pass.close();
          pass = null;
        }
        while (!pending.isEmpty()) {
          pending.pop().partitions.close();
        }
      } finally {
        memory.close();
      }
    }
  }

  /** The partitions a pass spilled, read one after another by passes of {@code level}. */
  private static final class Spilled {
    private final HashPartitions partitions;
    private final int level;
    private int next;

    Spilled(HashPartitions partitions, int level) {
      this.partitions = partitions;
      this.level = level;
    }

    /** The next partition holding rows, or -1 after the last. */
    int nextPartition() {
      while (next < partitions.count()) {
        int partition = next++;
        if (partitions.rows(partition) > 0) {
          return partition;
        }
      }
      return -1;
    }
  }
}
