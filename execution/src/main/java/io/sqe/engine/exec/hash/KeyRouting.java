package io.sqe.engine.exec.hash;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Routes the rows of batches to {@code count} partitions by a hash of their key columns, so that
 * rows with equal keys (as a key table groups them, NULL included) land in the same partition:
 * spilled partitions of an aggregate or join, the parts of an exchange. The partition comes from
 * a re-mix of the key hash with a salt, not from the bits a {@link KeyTable} indexes by, so the
 * keys of one partition still spread over a table's slots, and each user (a spill level, an
 * exchange) salts apart from the others. Holds its scratch arrays: one instance per thread.
 */
public final class KeyRouting {
  private final int[] keyColumns;
  private final KeyHasher hasher;
  private final int count;
  private final long salt;
  private final List<FieldVector> keys;
  private final int[] starts;
  private long[] hashes = new long[0];
  private int[] partitionOfRow = new int[0];
  private int[] byPartition = new int[0];
  /** 0, 1, 2, ...: the selection of every row. */
  private int[] all = new int[0];

  /**
   * @param schema the batches' schema
   * @param keyColumns the columns of {@code schema} whose values route the rows
   * @param count how many partitions, at least 1
   */
  public KeyRouting(Schema schema, int[] keyColumns, int count, long salt) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be positive, not " + count);
    }
    this.keyColumns = keyColumns.clone();
    List<Field> keyFields = new ArrayList<>(keyColumns.length);
    for (int column : keyColumns) {
      keyFields.add(schema.getFields().get(column));
    }
    this.hasher = new KeyHasher(keyFields);
    this.keys = new ArrayList<>(keyColumns.length);
    this.count = count;
    this.salt = salt;
    this.starts = new int[count + 1];
  }

  /** Routes every row of {@code batch}; see {@link #route(VectorSchemaRoot, int[], int)}. */
  public void routeAll(VectorSchemaRoot batch) {
    int rowCount = batch.getRowCount();
    if (all.length < rowCount) {
      all = new int[rowCount];
      for (int r = 0; r < rowCount; r++) {
        all[r] = r;
      }
    }
    route(batch, all, rowCount);
  }

  /**
   * Routes rows {@code selected[0..selectedCount-1]} of {@code batch}: afterwards partition
   * {@code p}'s rows are {@code rows()[start(p)..start(p + 1))}, in their order in {@code
   * selected} (a counting sort), until the next call.
   */
  public void route(VectorSchemaRoot batch, int[] selected, int selectedCount) {
    int rowCount = batch.getRowCount();
    if (partitionOfRow.length < rowCount) {
      partitionOfRow = new int[rowCount];
      byPartition = new int[rowCount];
      hashes = new long[rowCount];
    }
    keys.clear();
    for (int column : keyColumns) {
      keys.add(batch.getVector(column));
    }
    hasher.hash(keys, rowCount, hashes);
    for (int r = 0; r < rowCount; r++) {
      partitionOfRow[r] = partition(hashes[r]);
    }
    Arrays.fill(starts, 0);
    for (int i = 0; i < selectedCount; i++) {
      starts[partitionOfRow[selected[i]] + 1]++;
    }
    for (int p = 0; p < count; p++) {
      starts[p + 1] += starts[p];
    }
    int[] next = starts.clone();
    for (int i = 0; i < selectedCount; i++) {
      int row = selected[i];
      byPartition[next[partitionOfRow[row]]++] = row;
    }
  }

  /** The routed rows, by partition: see {@link #route}. */
  public int[] rows() {
    return byPartition;
  }

  /** Where partition {@code p}'s routed rows start in {@link #rows()}; {@code start(count)} is their number. */
  public int start(int p) {
    return starts[p];
  }

  private int partition(long hash) {
    long h = hash ^ salt;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    // The high 32 bits, scaled to the count: any count, not only powers of two.
    return (int) (((h >>> 32) * count) >>> 32);
  }
}
