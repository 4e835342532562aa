package io.sqe.engine.exec.join;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.hash.KeyHasher;
import io.sqe.engine.exec.spill.QuerySpill;
import io.sqe.engine.exec.spill.RunWriter;
import io.sqe.engine.exec.spill.SpilledRun;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The rows of one side of a join written to spill runs, one per partition, the partition chosen by
 * a seeded hash of the row's keys: rows with equal keys, on either side, land in the same
 * partition. A row with a NULL key matches nothing, so it may go anywhere: such rows are spread
 * over the partitions in turn when the join returns them unmatched, and dropped otherwise. Rows
 * wait in a small batch per partition, written when full.
 */
public final class SpilledPartitions implements AutoCloseable {
  private static final int MAX_BATCH_ROWS = 4096;
  private static final int MIN_BATCH_ROWS = 64;

  private final QuerySpill spill;
  private final Schema schema;
  private final int[] keys;
  private final KeyHasher hasher;
  private final long seed;
  private final boolean keepNullKeys;
  private final long memory;
  private final BufferAllocator allocator;
  private final RunWriter[] writers;
  private final VectorSchemaRoot[] pending;
  private final int[] pendingRows;
  private int batchRows;
  private int nextNullPartition;
  private long[] hashes = new long[0];
  private int[] partitionOf = new int[0];
  private int[] order = new int[0];

  /**
   * @param keys the key columns' positions in {@code schema}
   * @param keepNullKeys whether rows with a NULL key are kept (the join returns them unmatched)
   * @param memory about the most bytes the waiting batches of all partitions may hold together
   */
  public SpilledPartitions(
      QuerySpill spill, Schema schema, int[] keys, int partitions, long seed, boolean keepNullKeys, long memory, BufferAllocator allocator) {
    this.spill = requireNonNull(spill, "spill is null");
    this.schema = requireNonNull(schema, "schema is null");
    this.keys = keys.clone();
    List<Field> keyFields = new ArrayList<>();
    for (int key : keys) {
      keyFields.add(schema.getFields().get(key));
    }
    this.hasher = new KeyHasher(keyFields);
    if (partitions < 2) {
      throw new IllegalArgumentException("partitions must be at least 2, not " + partitions);
    }
    this.seed = seed;
    this.keepNullKeys = keepNullKeys;
    this.memory = memory;
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.writers = new RunWriter[partitions];
    this.pending = new VectorSchemaRoot[partitions];
    this.pendingRows = new int[partitions];
  }

  /** Adds the rows of {@code batch}, of this side's schema; the caller keeps the batch. */
  public void add(VectorSchemaRoot batch) {
    int rows = batch.getRowCount();
    if (rows == 0) {
      return;
    }
    if (batchRows == 0) {
      long rowBytes = Math.max(1, bytes(batch) / rows);
      batchRows = (int) Math.max(MIN_BATCH_ROWS, Math.min(MAX_BATCH_ROWS, memory / writers.length / rowBytes));
    }
    if (hashes.length < rows) {
      hashes = new long[rows];
      partitionOf = new int[rows];
      order = new int[rows];
    }
    List<FieldVector> keyColumns = new ArrayList<>(keys.length);
    boolean nulls = false;
    for (int key : keys) {
      FieldVector column = batch.getVector(key);
      keyColumns.add(column);
      nulls |= column.getNullCount() > 0;
    }
    hasher.hash(keyColumns, rows, hashes);
    int partitions = writers.length;
    int[] counts = new int[partitions + 1];
    for (int r = 0; r < rows; r++) {
      int p = partition(hashes[r], partitions);
      if (nulls && anyNull(keyColumns, r)) {
        if (keepNullKeys) {
          p = nextNullPartition;
          nextNullPartition = (nextNullPartition + 1) % partitions;
        } else {
          p = -1;
        }
      }
      partitionOf[r] = p;
      if (p >= 0) {
        counts[p + 1]++;
      }
    }
    // Rows grouped by partition, in their order within each: a counting sort.
    for (int p = 0; p < partitions; p++) {
      counts[p + 1] += counts[p];
    }
    int[] starts = counts.clone();
    for (int r = 0; r < rows; r++) {
      int p = partitionOf[r];
      if (p >= 0) {
        order[starts[p]++] = r;
      }
    }
    List<FieldVector> from = batch.getFieldVectors();
    for (int p = 0; p < partitions; p++) {
      int at = counts[p];
      int end = counts[p + 1];
      while (at < end) {
        if (pending[p] == null) {
          pending[p] = VectorSchemaRoot.create(schema, allocator);
          for (FieldVector vector : pending[p].getFieldVectors()) {
            vector.setInitialCapacity(batchRows);
            vector.allocateNew();
          }
        }
        int take = Math.min(end - at, batchRows - pendingRows[p]);
        List<FieldVector> to = pending[p].getFieldVectors();
        int base = pendingRows[p];
        for (int c = 0; c < to.size(); c++) {
          FieldVector target = to.get(c);
          FieldVector source = from.get(c);
          for (int i = 0; i < take; i++) {
            target.copyFromSafe(order[at + i], base + i, source);
          }
        }
        pendingRows[p] += take;
        at += take;
        if (pendingRows[p] == batchRows) {
          flush(p);
        }
      }
    }
  }

  /**
   * The partition of a key's hash: its hash mixed again under this level's seed, so that rows that
   * shared a partition at the level above part, and spread over a key table's slots.
   */
  private int partition(long hash, int partitions) {
    long h = hash ^ seed;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    // The high 32 bits scaled to the count.
    return (int) (((h >>> 32) * partitions) >>> 32);
  }

  /** Writes what waits and ends the runs: one per partition, null where no row went. */
  public SpilledRun[] finish() {
    SpilledRun[] runs = new SpilledRun[writers.length];
    for (int p = 0; p < writers.length; p++) {
      flush(p);
      if (writers[p] != null) {
        runs[p] = writers[p].finish();
        writers[p] = null;
      }
    }
    return runs;
  }

  private void flush(int p) {
    VectorSchemaRoot batch = pending[p];
    if (batch == null) {
      return;
    }
    pending[p] = null;
    try (batch) {
      int rows = pendingRows[p];
      pendingRows[p] = 0;
      if (rows == 0) {
        return;
      }
      for (FieldVector vector : batch.getFieldVectors()) {
        vector.setValueCount(rows);
      }
      batch.setRowCount(rows);
      if (writers[p] == null) {
        writers[p] = spill.newRun(schema, allocator);
      }
      writers[p].write(batch);
    }
  }

  private static boolean anyNull(List<FieldVector> keys, int row) {
    for (FieldVector key : keys) {
      if (key.isNull(row)) {
        return true;
      }
    }
    return false;
  }

  private static long bytes(VectorSchemaRoot batch) {
    long bytes = 0;
    for (FieldVector vector : batch.getFieldVectors()) {
      for (ArrowBuf buffer : vector.getFieldBuffers()) {
        bytes += buffer.capacity();
      }
    }
    return bytes;
  }

  /** Releases the waiting batches and removes the runs not finished. */
  @Override
  public void close() {
    for (int p = 0; p < writers.length; p++) {
      if (pending[p] != null) {
        pending[p].close();
        pending[p] = null;
      }
      if (writers[p] != null) {
        writers[p].close();
        writers[p] = null;
      }
    }
  }
}
