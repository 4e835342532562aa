package io.sqe.engine.exec.join;

import io.sqe.engine.exec.QueryContext;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.function.Function1;

/**
 * The build (right) side of a hash join on integer keys: its rows, and an open-addressing table
 * from each key, one primitive {@code long}, to the chain of rows that have it. Two or more keys
 * are packed into one long by their ranges on the build side (each key less its minimum, in as
 * many bits as its range needs); when the ranges need more than 64 bits together, the table is
 * not built and the join runs Calcite's own ({@link #packed()} false). Rows with a NULL key are
 * kept (an outer join returns them) but never found. Read-only once built, so the parts of a
 * parallel pipeline can probe one table at once.
 */
final class LongKeyJoinTable {
  private static final int CHECK_EVERY = 4096;

  private final Object[] rows;
  private final int rowCount;
  private final boolean packed;
  /** Per key: its smallest and largest value on the build side, and its bits in the packed key. */
  private final long[] mins;
  private final long[] maxs;
  private final int[] bits;
  /**
   * Two longs per slot, side by side so that a probe reads one cache line: the key, then the first
   * row with that key, plus one (0 for an empty slot).
   */
  private final long[] slots;
  /** Per row: the next row with the same key, plus one; 0 at the end of the chain. */
  private final int[] next;
  private final int mask;

  private LongKeyJoinTable(Object[] rows, int rowCount, long[] mins, long[] maxs, int[] bits, long[] slots, int[] next) {
    this.rows = rows;
    this.rowCount = rowCount;
    this.packed = bits != null;
    this.mins = mins;
    this.maxs = maxs;
    this.bits = bits;
    this.slots = slots;
    this.next = next;
    this.mask = slots == null ? 0 : slots.length / 2 - 1;
  }

  /**
   * Reads {@code input} to its end (and closes it) into a table keyed by {@code keys}.
   *
   * @param keepRows whether to keep the rows and a chain per key (a join that returns or tests
   *     build rows), or only the distinct keys (a semi or anti join without other conditions)
   */
  static LongKeyJoinTable build(Enumerator<Object> input, Function1<Object, Object>[] keys, boolean keepRows, QueryContext context) {
    int keyCount = keys.length;
    Object[] rows = new Object[1024];
    long[][] values = new long[keyCount][1024];
    BitSet nullKeys = new BitSet();
    int n = 0;
    try (input) {
      while (input.moveNext()) {
        if (n == rows.length) {
          rows = Arrays.copyOf(rows, n * 2);
          for (int k = 0; k < keyCount; k++) {
            values[k] = Arrays.copyOf(values[k], n * 2);
          }
        }
        Object row = input.current();
        rows[n] = row;
        for (int k = 0; k < keyCount; k++) {
          Object value = keys[k].apply(row);
          if (value == null) {
            nullKeys.set(n);
            break;
          }
          values[k][n] = ((Number) value).longValue();
        }
        n++;
        if (n % CHECK_EVERY == 0 && context != null) {
          context.checkCancelled();
        }
      }
    }
    long[] mins = new long[keyCount];
    long[] maxs = new long[keyCount];
    Arrays.fill(mins, Long.MAX_VALUE);
    Arrays.fill(maxs, Long.MIN_VALUE);
    for (int r = nullKeys.nextClearBit(0); r < n; r = nullKeys.nextClearBit(r + 1)) {
      for (int k = 0; k < keyCount; k++) {
        long value = values[k][r];
        mins[k] = Math.min(mins[k], value);
        maxs[k] = Math.max(maxs[k], value);
      }
    }
    int[] bits = packing(mins, maxs);
    if (bits == null) {
      return new LongKeyJoinTable(rows, n, mins, maxs, null, null, null);
    }
    if (context != null) {
      context.stats().joinTableBuilt();
    }
    int keyed = n - nullKeys.cardinality();
    int capacity = Integer.highestOneBit(Math.max(2, keyed) * 2 - 1) << 1;
    long[] slots = new long[capacity * 2];
    int[] next = keepRows ? new int[n] : null;
    int mask = capacity - 1;
    // Backwards, so that each chain lists its rows in the order they were read.
    for (int r = n - 1; r >= 0; r--) {
      if (nullKeys.get(r)) {
        continue;
      }
      long key = keyCount == 1 ? values[0][r] : pack(values, r, mins, bits);
      int slot = (hash(key) & mask) << 1;
      while (slots[slot + 1] != 0 && slots[slot] != key) {
        slot = (slot + 2) & (mask << 1 | 1);
      }
      if (keepRows) {
        next[r] = (int) slots[slot + 1];
        slots[slot + 1] = r + 1;
      } else {
        slots[slot + 1] = 1;
      }
      slots[slot] = key;
    }
    return new LongKeyJoinTable(keepRows ? rows : null, n, mins, maxs, bits, slots, next);
  }

  /** Whether the keys fit one long; if not, the join runs Calcite's own over {@link #rowList()}. */
  boolean packed() {
    return packed;
  }

  int rowCount() {
    return rowCount;
  }

  /** The build row at {@code index}, from 0. */
  Object row(int index) {
    return rows[index];
  }

  /** The build rows, in the order read, for Calcite's join when the keys do not fit one long. */
  List<Object> rowList() {
    return Arrays.asList(rows).subList(0, rowCount);
  }

  /**
   * The first build row whose keys equal the keys of {@code probe} (read by {@code keys}), plus
   * one; 0 when there is none or a key is NULL. Without kept rows, 1 for a key that is there.
   */
  int find(Object probe, Function1<Object, Object>[] keys) {
    long key;
    if (keys.length == 1) {
      Object value = keys[0].apply(probe);
      if (value == null) {
        return 0;
      }
      key = ((Number) value).longValue();
      if (key < mins[0] || key > maxs[0]) {
        return 0;
      }
    } else {
      key = 0;
      for (int k = 0; k < keys.length; k++) {
        Object value = keys[k].apply(probe);
        if (value == null) {
          return 0;
        }
        long v = ((Number) value).longValue();
        if (v < mins[k] || v > maxs[k]) {
          return 0;
        }
        key = (key << bits[k]) | (v - mins[k]);
      }
    }
    int slot = (hash(key) & mask) << 1;
    int wrap = mask << 1 | 1;
    while (true) {
      int head = (int) slots[slot + 1];
      if (head == 0 || slots[slot] == key) {
        return head;
      }
      slot = (slot + 2) & wrap;
    }
  }

  /** The next build row after {@code index} with the same key, plus one; 0 after the last. */
  int next(int index) {
    return next[index];
  }

  /**
   * How many bits each key takes in the packed key, or null when the ranges need more than 64
   * together. One key needs no packing: its value is the key.
   */
  private static int[] packing(long[] mins, long[] maxs) {
    int[] bits = new int[mins.length];
    if (mins.length == 1) {
      return bits;
    }
    int total = 0;
    for (int k = 0; k < mins.length; k++) {
      if (mins[k] > maxs[k]) {
        // No row with all keys non-NULL: nothing is found, whatever the packing.
        return bits;
      }
      long range = maxs[k] - mins[k];
      if (range < 0) {
        // The range overflows a long.
        return null;
      }
      bits[k] = 64 - Long.numberOfLeadingZeros(range);
      total += bits[k];
    }
    return total <= 64 ? bits : null;
  }

  private static long pack(long[][] values, int row, long[] mins, int[] bits) {
    long key = 0;
    for (int k = 0; k < values.length; k++) {
      key = (key << bits[k]) | (values[k][row] - mins[k]);
    }
    return key;
  }

  private static int hash(long value) {
    long h = value * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
