package io.sqe.engine.exec.hash;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * The keys of one column whose values fit a long (integers, dates, times, timestamps, floating
 * point, booleans): each slot holds the key itself next to its id, so a probe reads one cache
 * line and compares one long. NULL has an id of its own, outside the slots.
 */
final class LongKeyStore implements KeyStore {
  /** Bytes per slot: the key, then its id plus one (0 for an empty slot), then padding. */
  private static final int SLOT = 16;

  private final KeyColumn column;
  private final BufferAllocator allocator;
  private ArrowBuf slots;
  /** The key of each id, 8 bytes each, for {@link #copyKeys}. */
  private ArrowBuf keys;
  private int mask;
  private int slotted;
  private int size;
  private int nullId = -1;
  private long[] values = new long[0];

  LongKeyStore(KeyColumn column, BufferAllocator allocator) {
    this.column = column;
    this.allocator = allocator;
    this.slots = Buffers.zeroed(allocator, 64L * SLOT);
    this.mask = 63;
  }

  @Override
  public void insert(List<FieldVector> keyColumns, int rowCount, int[] ids) {
    FieldVector vector = keyColumns.get(0);
    long[] values = read(vector, rowCount);
    ArrowBuf validity = vector.getValidityBuffer();
    boolean nulls = vector.getNullCount() > 0;
    // Room for every key of the batch up front, so that the loop never checks for it; at most a
    // batch's worth of slots more than needed.
    while ((slotted + (long) rowCount) * 2L > mask + 1L) {
      rehash();
    }
    // A repeat of the row before's key takes its id without a probe: tables sorted or clustered
    // by the key (TPC-H lineitem by l_orderkey) repeat most keys.
    long previous = 0;
    int previousId = -1;
    for (int r = 0; r < rowCount; r++) {
      if (nulls && KeyColumn.isNull(validity, r)) {
        if (nullId < 0) {
          nullId = add(0);
        }
        ids[r] = nullId;
        continue;
      }
      long key = values[r];
      if (key != previous || previousId < 0) {
        previousId = findOrAdd(key);
        previous = key;
      }
      ids[r] = previousId;
    }
  }

  @Override
  public void find(List<FieldVector> keyColumns, int rowCount, int[] ids, ProbeScratch scratch) {
    find(keyColumns, rowCount, ids, scratch, -1);
  }

  @Override
  public void lookup(List<FieldVector> keyColumns, int rowCount, int[] ids, ProbeScratch scratch) {
    find(keyColumns, rowCount, ids, scratch, nullId);
  }

  /** ids of the rows' keys, {@code idOfNull} for a NULL key. */
  private void find(List<FieldVector> keyColumns, int rowCount, int[] ids, ProbeScratch scratch, int idOfNull) {
    FieldVector vector = keyColumns.get(0);
    long[] values = scratch.longs(rowCount);
    column.readLongs(vector, rowCount, values);
    ArrowBuf validity = vector.getValidityBuffer();
    boolean nulls = vector.getNullCount() > 0;
    int wrap = mask;
    // As in insert: a repeat of the row before's key takes its id without a probe.
    long previous = 0;
    int previousId = 0;
    boolean repeat = false;
    for (int r = 0; r < rowCount; r++) {
      if (nulls && KeyColumn.isNull(validity, r)) {
        ids[r] = idOfNull;
        repeat = false;
        continue;
      }
      long key = values[r];
      if (repeat && key == previous) {
        ids[r] = previousId;
        continue;
      }
      int slot = (int) KeyColumn.fmix(key) & wrap;
      while (true) {
        long at = (long) slot * SLOT;
        int id = slots.getInt(at + 8) - 1;
        if (id < 0 || slots.getLong(at) == key) {
          ids[r] = id;
          previousId = id;
          break;
        }
        slot = (slot + 1) & wrap;
      }
      previous = key;
      repeat = true;
    }
  }

  private long[] read(FieldVector vector, int rowCount) {
    if (values.length < rowCount) {
      values = new long[rowCount];
    }
    column.readLongs(vector, rowCount, values);
    return values;
  }

  /** The id of {@code key}, added if new; the caller made room for it. */
  private int findOrAdd(long key) {
    int slot = (int) KeyColumn.fmix(key) & mask;
    while (true) {
      long at = (long) slot * SLOT;
      int id = slots.getInt(at + 8) - 1;
      if (id < 0) {
        id = add(key);
        slots.setLong(at, key);
        slots.setInt(at + 8, id + 1);
        slotted++;
        return id;
      }
      if (slots.getLong(at) == key) {
        return id;
      }
      slot = (slot + 1) & mask;
    }
  }

  private int add(long key) {
    if (keys == null || (size + 1) * 8L > keys.capacity()) {
      keys = Buffers.grow(allocator, keys, size * 8L, Math.max(512, size * 16L));
    }
    keys.setLong(size * 8L, key);
    return size++;
  }

  private void rehash() {
    int capacity = (mask + 1) * 2;
    int newMask = capacity - 1;
    ArrowBuf grown = Buffers.zeroed(allocator, (long) capacity * SLOT);
    for (long at = 0; at < (mask + 1L) * SLOT; at += SLOT) {
      int idPlusOne = slots.getInt(at + 8);
      if (idPlusOne != 0) {
        long key = slots.getLong(at);
        int slot = (int) KeyColumn.fmix(key) & newMask;
        while (grown.getInt((long) slot * SLOT + 8) != 0) {
          slot = (slot + 1) & newMask;
        }
        grown.setLong((long) slot * SLOT, key);
        grown.setInt((long) slot * SLOT + 8, idPlusOne);
      }
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
    FieldVector vector = out.get(0);
    int base = vector.getValueCount();
    column.reserve(vector, base + count);
    for (int i = 0; i < count; i++) {
      int id = from + i;
      if (id == nullId) {
        column.writeNull(vector, base + i);
      } else {
        column.writeLong(vector, base + i, keys.getLong(id * 8L));
      }
    }
    vector.setValueCount(base + count);
  }

  @Override
  public void close() {
    if (slots != null) {
      slots.close();
      slots = null;
    }
    if (keys != null) {
      keys.close();
      keys = null;
    }
  }
}
