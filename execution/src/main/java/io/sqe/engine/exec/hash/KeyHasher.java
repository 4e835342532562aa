package io.sqe.engine.exec.hash;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The 64-bit hash of each row's key values, equal for keys a {@link KeyTable} holds as one (NULL
 * a value of its own, -0.0 as 0.0, one NaN), for splitting rows by key outside a table.
 */
public final class KeyHasher {
  private final KeyColumn[] columns;

  /**
   * @param keys the Arrow fields of the key columns, in the order the columns are passed
   * @throws IllegalArgumentException for a key type a table cannot hold (nested types)
   */
  public KeyHasher(List<Field> keys) {
    requireNonNull(keys, "keys is null");
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("A key hash needs at least one key column");
    }
    this.columns = new KeyColumn[keys.size()];
    for (int k = 0; k < columns.length; k++) {
      columns[k] = KeyColumn.of(keys.get(k));
    }
  }

  /** hashes[r] = the hash of row r's keys, for rows 0..rowCount-1. */
  public void hash(List<FieldVector> keyColumns, int rowCount, long[] hashes) {
    if (keyColumns.size() != columns.length) {
      throw new IllegalArgumentException("Expected " + columns.length + " key columns, got " + keyColumns.size());
    }
    Arrays.fill(hashes, 0, rowCount, 0L);
    for (int k = 0; k < columns.length; k++) {
      columns[k].hash(keyColumns.get(k), rowCount, hashes);
    }
    for (int r = 0; r < rowCount; r++) {
      hashes[r] = KeyColumn.fmix(hashes[r]);
    }
  }
}
