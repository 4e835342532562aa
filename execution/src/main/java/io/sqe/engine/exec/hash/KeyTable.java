package io.sqe.engine.exec.hash;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Open-addressing table from the values of key columns to dense ids 0..size-1, its memory under an
 * allocator.
 *
 * <p>Keys are read straight from the batches' Arrow buffers and kept in Arrow buffers of the
 * allocator given, so a table counts against the query's memory limit: past it, an operation
 * throws Arrow's {@code OutOfMemoryException} and leaves the table as it was before the key that
 * did not fit (the operator using the table names itself in the error). Values are equal as SQL
 * groups them: -0.0 equals 0.0 and every NaN equals every other. Hashes mix every bit of every key
 * (a plain {@code 31 * h + e} gives whole families of integer tuples one hash). One key of at most
 * 8 bytes takes a faster layout that stores the key in the slot itself.
 */
public final class KeyTable implements AutoCloseable {
  private final int keyCount;
  private final KeyStore store;
  /** The scratch of {@link #find}, for the table's owner; other threads take a {@link #finder()}. */
  private final ProbeScratch scratch = new ProbeScratch();

  /**
   * @param keys the Arrow fields of the key columns, in the order the columns are passed
   * @throws IllegalArgumentException for a key type a table cannot hold (nested types)
   */
  public KeyTable(List<Field> keys, BufferAllocator allocator) {
    requireNonNull(keys, "keys is null");
    requireNonNull(allocator, "allocator is null");
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("A key table needs at least one key column");
    }
    KeyColumn[] columns = new KeyColumn[keys.size()];
    for (int k = 0; k < columns.length; k++) {
      columns[k] = KeyColumn.of(keys.get(k));
    }
    this.keyCount = columns.length;
    this.store = columns.length == 1 && columns[0].fitsLong()
        ? new LongKeyStore(columns[0], allocator)
        : new RowKeyStore(columns, allocator);
  }

  /** Whether a table can key a column of {@code field}'s type (every type but nested ones). */
  public static boolean supports(Field field) {
    try {
      KeyColumn.of(field);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** ids[i] = id of row i's key, new keys added; a NULL in a key column is a value (GROUP BY). */
  public void insert(List<FieldVector> keyColumns, int rowCount, int[] ids) {
    check(keyColumns, rowCount, ids);
    store.insert(keyColumns, rowCount, ids);
  }

  /** ids[i] = id of row i's key, or -1 when absent or when any key column is NULL (join). */
  public void find(List<FieldVector> keyColumns, int rowCount, int[] ids) {
    check(keyColumns, rowCount, ids);
    store.find(keyColumns, rowCount, ids, scratch);
  }

  /**
   * A finder of ids with scratch of its own: threads that probe a table no one inserts into any
   * more (a join's build side that parallel parts share) each use their own.
   */
  public Finder finder() {
    return new Finder();
  }

  /** Finds ids in this table as {@link KeyTable#find} does, for one thread. */
  public final class Finder {
    private final ProbeScratch own = new ProbeScratch();

    private Finder() {}

    /** ids[i] = id of row i's key, or -1 when absent or when any key column is NULL. */
    public void find(List<FieldVector> keyColumns, int rowCount, int[] ids) {
      check(keyColumns, rowCount, ids);
      store.find(keyColumns, rowCount, ids, own);
    }
  }

  /** ids[i] = id of row i's key, or -1 when absent; a NULL in a key column is a value (GROUP BY), nothing is added. */
  public void lookup(List<FieldVector> keyColumns, int rowCount, int[] ids) {
    check(keyColumns, rowCount, ids);
    store.lookup(keyColumns, rowCount, ids, scratch);
  }

  public int size() {
    return store.size();
  }

  /** Appends the keys of ids from..from+count-1 to vectors of the key fields' types. */
  public void copyKeys(int from, int count, List<FieldVector> out) {
    if (out.size() != keyCount) {
      throw new IllegalArgumentException("Expected " + keyCount + " key vectors, got " + out.size());
    }
    if (from < 0 || count < 0 || from + count > store.size()) {
      throw new IndexOutOfBoundsException("Ids " + from + ".." + (from + count - 1) + " of " + store.size());
    }
    store.copyKeys(from, count, out);
  }

  @Override
  public void close() {
    store.close();
  }

  private void check(List<FieldVector> keyColumns, int rowCount, int[] ids) {
    if (keyColumns.size() != keyCount) {
      throw new IllegalArgumentException("Expected " + keyCount + " key columns, got " + keyColumns.size());
    }
    if (ids.length < rowCount) {
      throw new IllegalArgumentException("ids holds " + ids.length + " of " + rowCount + " rows");
    }
  }
}
