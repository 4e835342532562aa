package io.sqe.engine.exec.spill;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.hash.KeyRouting;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Rows split by a hash of their key columns into a number of spilled runs, for an operator that
 * does not fit in memory to work on one partition at a time (a Grace hash aggregate or join): rows
 * with equal keys (as a key table groups them, NULL included) land in the same partition, in the
 * order they were added. Each partition gathers rows in a batch of its own and writes it to its run
 * when full, so the memory held is about {@code count * batchRows} rows whatever the input's size.
 *
 * <p>The rows are routed by {@link KeyRouting} salted by {@code level}: a partition's rows spread
 * over a table's slots, and re-partitioning a partition at the next level spreads its rows again. Use: {@link #add} batches, {@link #finish},
 * then {@link #open} each partition; {@link #close} removes every file left.
 */
public final class HashPartitions implements AutoCloseable {
  private final QuerySpill spill;
  private final Schema schema;
  private final int count;
  private final int batchRows;
  private final BufferAllocator allocator;
  private final KeyRouting routing;
  private final VectorSchemaRoot[] buffers;
  private final int[] buffered;
  private final RunWriter[] writers;
  private final SpilledRun[] runs;
  private final long[] rows;
  private boolean finished;

  /**
   * @param spill the query's spill, where the runs are written
   * @param schema the schema of the batches added and read back
   * @param keyColumns the columns of {@code schema} whose values partition the rows
   * @param count how many partitions, at least 2
   * @param level the partitioning's depth (0 first, 1 to split a partition of level 0, ...): each
   *     level splits by other bits of the hash
   * @param batchRows rows per written batch, at least 1
   * @param allocator where the gathering batches and the read-back batches are allocated
   */
  public HashPartitions(
      QuerySpill spill, Schema schema, int[] keyColumns, int count, int level, int batchRows, BufferAllocator allocator) {
    this.spill = requireNonNull(spill, "spill is null");
    this.schema = requireNonNull(schema, "schema is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    if (count < 2) {
      throw new IllegalArgumentException("count must be at least 2, not " + count);
    }
    if (batchRows < 1) {
      throw new IllegalArgumentException("batchRows must be positive, not " + batchRows);
    }
    if (level < 0) {
      throw new IllegalArgumentException("level must not be negative, not " + level);
    }
    this.routing = new KeyRouting(schema, keyColumns, count, (level + 1) * 0x9E3779B97F4A7C15L);
    this.count = count;
    this.batchRows = batchRows;
    this.buffers = new VectorSchemaRoot[count];
    this.buffered = new int[count];
    this.writers = new RunWriter[count];
    this.runs = new SpilledRun[count];
    this.rows = new long[count];
  }

  public int count() {
    return count;
  }

  /** Adds every row of {@code batch}; the caller keeps the batch. */
  public void add(VectorSchemaRoot batch) {
    checkOpen();
    routing.routeAll(batch);
    append(batch);
  }

  /** Adds rows {@code selected[0..selectedCount-1]} of {@code batch}, in that order; the caller keeps the batch. */
  public void add(VectorSchemaRoot batch, int[] selected, int selectedCount) {
    checkOpen();
    routing.route(batch, selected, selectedCount);
    append(batch);
  }

  private void checkOpen() {
    if (finished) {
      throw new IllegalStateException("Partitions already finished");
    }
  }

  /** Appends the rows {@link #routing} routed last to their partitions. */
  private void append(VectorSchemaRoot batch) {
    for (int p = 0; p < count; p++) {
      int from = routing.start(p);
      int to = routing.start(p + 1);
      while (from < to) {
        from += append(p, batch, from, to);
      }
    }
  }

  /** Copies routed rows [from..to) into partition {@code p}'s batch as far as it has room; how many. */
  private int append(int p, VectorSchemaRoot batch, int from, int to) {
    VectorSchemaRoot buffer = buffers[p];
    if (buffer == null) {
      buffer = VectorSchemaRoot.create(schema, allocator);
      for (FieldVector vector : buffer.getFieldVectors()) {
        vector.setInitialCapacity(batchRows);
        vector.allocateNew();
      }
      buffers[p] = buffer;
    }
    int at = buffered[p];
    int n = Math.min(to - from, batchRows - at);
    List<FieldVector> target = buffer.getFieldVectors();
    int[] routed = routing.rows();
    for (int c = 0; c < target.size(); c++) {
      FieldVector out = target.get(c);
      FieldVector in = batch.getVector(c);
      for (int i = 0; i < n; i++) {
        out.copyFromSafe(routed[from + i], at + i, in);
      }
    }
    buffered[p] = at + n;
    rows[p] += n;
    if (buffered[p] == batchRows) {
      flush(p);
    }
    return n;
  }

  private void flush(int p) {
    VectorSchemaRoot buffer = buffers[p];
    int n = buffered[p];
    if (n == 0) {
      return;
    }
    for (FieldVector vector : buffer.getFieldVectors()) {
      vector.setValueCount(n);
    }
    buffer.setRowCount(n);
    if (writers[p] == null) {
      writers[p] = spill.newRun(schema, allocator);
    }
    writers[p].write(buffer);
    buffer.getFieldVectors().forEach(ValueVector::reset);
    buffer.setRowCount(0);
    buffered[p] = 0;
  }

  /** Writes what each partition still gathers and ends its run; frees the gathering batches. */
  public void finish() {
    if (finished) {
      return;
    }
    for (int p = 0; p < count; p++) {
      flush(p);
      closeBuffer(p);
      if (writers[p] != null) {
        RunWriter writer = writers[p];
        writers[p] = null;
        runs[p] = writer.finish();
      }
    }
    finished = true;
  }

  /** The rows added to partition {@code p}. */
  public long rows(int p) {
    return rows[p];
  }

  /** The bytes partition {@code p} takes on disk, once finished. */
  public long bytes(int p) {
    return runs[p] == null ? 0 : runs[p].bytes();
  }

  /**
   * A reader of partition {@code p}'s rows in the order they were added, its batches in {@code
   * allocator}; null when the partition has no row. Only after {@link #finish}.
   */
  public RunReader open(int p, BufferAllocator allocator) {
    if (!finished) {
      throw new IllegalStateException("Partitions not finished");
    }
    return runs[p] == null ? null : runs[p].open(allocator);
  }

  /** Removes partition {@code p}'s file, once read for the last time. */
  public void delete(int p) {
    if (runs[p] != null) {
      runs[p].delete();
      runs[p] = null;
    }
  }

  private void closeBuffer(int p) {
    if (buffers[p] != null) {
      buffers[p].close();
      buffers[p] = null;
      buffered[p] = 0;
    }
  }

  /** Frees the gathering batches and removes every partition's file. */
  @Override
  public void close() {
    for (int p = 0; p < count; p++) {
      closeBuffer(p);
      if (writers[p] != null) {
        writers[p].close();
        writers[p] = null;
      }
      delete(p);
    }
  }
}
