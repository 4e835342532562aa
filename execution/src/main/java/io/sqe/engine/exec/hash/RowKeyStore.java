package io.sqe.engine.exec.hash;

import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * Keys of any types and number: each id's keys are one fixed-width row (a NULL bit per key, then
 * each key's bytes; text and binary as an offset and length in a side buffer). A slot holds the
 * id plus one and 32 bits of the key's hash, so most mismatches are rejected without reading the
 * row. Hashes are computed a column at a time over the batch.
 */
final class RowKeyStore implements KeyStore {
  /** Bytes per slot: the id plus one (0 for an empty slot), then the high 32 bits of the hash. */
  private static final int SLOT = 8;

  private final KeyColumn[] columns;
  private final long[] offsets;
  private final int nullBytes;
  private final int width;
  private final BufferAllocator allocator;
  private final VarData var;
  private ArrowBuf slots;
  private ArrowBuf rows;
  /** The full hash of each id, 8 bytes each, to grow the slots without reading the keys again. */
  private ArrowBuf hashes;
  private int mask;
  private int size;
  private long[] batchHashes = new long[0];
  private final ArrowBuf[] validity;
  private final boolean[] nullable;

  RowKeyStore(KeyColumn[] columns, BufferAllocator allocator) {
    this.columns = columns;
    this.allocator = allocator;
    this.nullBytes = (columns.length + 7) / 8;
    this.offsets = new long[columns.length];
    long at = nullBytes;
    for (int k = 0; k < columns.length; k++) {
      offsets[k] = at;
      at += columns[k].width;
    }
    this.width = Math.toIntExact(at);
    this.validity = new ArrowBuf[columns.length];
    this.nullable = new boolean[columns.length];
    this.var = new VarData(allocator);
    this.slots = Buffers.zeroed(allocator, 64L * SLOT);
    this.mask = 63;
  }

  @Override
  public void insert(List<FieldVector> keyColumns, int rowCount, int[] ids) {
    if (batchHashes.length < rowCount) {
      batchHashes = new long[rowCount];
    }
    long[] h = batchHashes;
    hash(keyColumns, rowCount, h, validity, nullable);
    for (int r = 0; r < rowCount; r++) {
      ids[r] = findOrAdd(keyColumns, r, h[r]);
    }
  }

  @Override
  public void find(List<FieldVector> keyColumns, int rowCount, int[] ids, ProbeScratch scratch) {
    find(keyColumns, rowCount, ids, scratch, false);
  }

  @Override
  public void lookup(List<FieldVector> keyColumns, int rowCount, int[] ids, ProbeScratch scratch) {
    find(keyColumns, rowCount, ids, scratch, true);
  }

  /** ids of the rows' keys; a row with a NULL key finds none unless {@code nullsAreValues}. */
  private void find(List<FieldVector> keyColumns, int rowCount, int[] ids, ProbeScratch scratch, boolean nullsAreValues) {
    long[] h = scratch.longs(rowCount);
    ArrowBuf[] validity = scratch.validity(columns.length);
    boolean[] nullable = scratch.nullable(columns.length);
    hash(keyColumns, rowCount, h, validity, nullable);
    rows:
    for (int r = 0; r < rowCount; r++) {
      for (int k = 0; k < columns.length && !nullsAreValues; k++) {
        if (nullable[k] && KeyColumn.isNull(validity[k], r)) {
          ids[r] = -1;
          continue rows;
        }
      }
      int tag = (int) (h[r] >>> 32);
      int slot = (int) h[r] & mask;
      while (true) {
        long at = (long) slot * SLOT;
        int id = slots.getInt(at) - 1;
        if (id < 0 || slots.getInt(at + 4) == tag && equal(keyColumns, r, id, validity, nullable)) {
          ids[r] = id;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
  }

  /** Hashes the rows' keys into {@code h}, noting each key column's validity and whether it has nulls. */
  private void hash(List<FieldVector> keyColumns, int rowCount, long[] h, ArrowBuf[] validity, boolean[] nullable) {
    Arrays.fill(h, 0, rowCount, 0L);
    for (int k = 0; k < columns.length; k++) {
      FieldVector vector = keyColumns.get(k);
      validity[k] = vector.getValidityBuffer();
      nullable[k] = vector.getNullCount() > 0;
      columns[k].hash(vector, rowCount, h);
    }
    for (int r = 0; r < rowCount; r++) {
      h[r] = KeyColumn.fmix(h[r]);
    }
  }

  private int findOrAdd(List<FieldVector> keyColumns, int row, long hash) {
    if ((size + 1) * 2L > mask + 1L) {
      rehash();
    }
    int tag = (int) (hash >>> 32);
    int slot = (int) hash & mask;
    while (true) {
      long at = (long) slot * SLOT;
      int id = slots.getInt(at) - 1;
      if (id < 0) {
        id = add(keyColumns, row, hash);
        slots.setInt(at, id + 1);
        slots.setInt(at + 4, tag);
        return id;
      }
      if (slots.getInt(at + 4) == tag && equal(keyColumns, row, id, validity, nullable)) {
        return id;
      }
      slot = (slot + 1) & mask;
    }
  }

  private boolean equal(List<FieldVector> keyColumns, int row, int id, ArrowBuf[] validity, boolean[] nullable) {
    long at = (long) id * width;
    for (int k = 0; k < columns.length; k++) {
      boolean rowNull = nullable[k] && KeyColumn.isNull(validity[k], row);
      boolean storedNull = (rows.getByte(at + (k >> 3)) & (1 << (k & 7))) != 0;
      if (rowNull != storedNull) {
        return false;
      }
      if (!rowNull && !columns[k].equal(keyColumns.get(k), row, rows, at + offsets[k], var)) {
        return false;
      }
    }
    return true;
  }

  private int add(List<FieldVector> keyColumns, int row, long hash) {
    long at = (long) size * width;
    if (rows == null || at + width > rows.capacity()) {
      long capacity = Math.max(64L * width, 2 * at);
      rows = Buffers.grow(allocator, rows, at, capacity);
    }
    if (hashes == null || (size + 1) * 8L > hashes.capacity()) {
      hashes = Buffers.grow(allocator, hashes, size * 8L, Math.max(512, size * 16L));
    }
    rows.setZero(at, nullBytes);
    for (int k = 0; k < columns.length; k++) {
      if (nullable[k] && KeyColumn.isNull(validity[k], row)) {
        long bits = at + (k >> 3);
        rows.setByte(bits, rows.getByte(bits) | (1 << (k & 7)));
      } else {
        columns[k].store(keyColumns.get(k), row, rows, at + offsets[k], var);
      }
    }
    hashes.setLong(size * 8L, hash);
    return size++;
  }

  private void rehash() {
    int capacity = (mask + 1) * 2;
    int newMask = capacity - 1;
    ArrowBuf grown = Buffers.zeroed(allocator, (long) capacity * SLOT);
    for (int id = 0; id < size; id++) {
      long hash = hashes.getLong(id * 8L);
      int slot = (int) hash & newMask;
      while (grown.getInt((long) slot * SLOT) != 0) {
        slot = (slot + 1) & newMask;
      }
      grown.setInt((long) slot * SLOT, id + 1);
      grown.setInt((long) slot * SLOT + 4, (int) (hash >>> 32));
    }
    slots.close();
    slots = grown;
    mask = newMask;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public void copyKeys(int from, int count, List<FieldVector> out) {
    for (int k = 0; k < columns.length; k++) {
      FieldVector vector = out.get(k);
      KeyColumn column = columns[k];
      int base = vector.getValueCount();
      column.reserve(vector, base + count);
      for (int i = 0; i < count; i++) {
        long at = (long) (from + i) * width;
        if ((rows.getByte(at + (k >> 3)) & (1 << (k & 7))) != 0) {
          column.writeNull(vector, base + i);
        } else {
          column.copyOut(rows, at + offsets[k], var, vector, base + i);
        }
      }
      vector.setValueCount(base + count);
    }
  }

  @Override
  public void close() {
    for (ArrowBuf buffer : new ArrowBuf[] {slots, rows, hashes}) {
      if (buffer != null) {
        buffer.close();
      }
    }
    slots = null;
    rows = null;
    hashes = null;
    var.close();
  }
}
