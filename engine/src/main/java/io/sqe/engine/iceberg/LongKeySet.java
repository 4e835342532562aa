package io.sqe.engine.iceberg;

/**
 * A set of longs in one open-addressing array (no boxing), for testing every row of a batch
 * against an IN list or a join's build-side keys.
 */
final class LongKeySet {
  private static final long EMPTY = Long.MIN_VALUE;

  private long[] slots;
  private int mask;
  private int size;
  private boolean containsEmpty;
  private long min = Long.MAX_VALUE;
  private long max = Long.MIN_VALUE;

  LongKeySet(int expected) {
    int capacity = Integer.highestOneBit(Math.max(4, expected) * 2 - 1) << 1;
    slots = new long[capacity];
    java.util.Arrays.fill(slots, EMPTY);
    mask = capacity - 1;
  }

  void add(long value) {
    min = Math.min(min, value);
    max = Math.max(max, value);
    if (value == EMPTY) {
      if (!containsEmpty) {
        containsEmpty = true;
        size++;
      }
      return;
    }
    if ((size + 1) * 2 > slots.length) {
      grow();
    }
    if (insert(slots, mask, value)) {
      size++;
    }
  }

  boolean contains(long value) {
    if (value < min || value > max) {
      return false;
    }
    if (value == EMPTY) {
      return containsEmpty;
    }
    int i = hash(value) & mask;
    while (true) {
      long slot = slots[i];
      if (slot == value) {
        return true;
      }
      if (slot == EMPTY) {
        return false;
      }
      i = (i + 1) & mask;
    }
  }

  int size() {
    return size;
  }

  /** The values, in no particular order. */
  long[] toArray() {
    long[] values = new long[size];
    int n = 0;
    if (containsEmpty) {
      values[n++] = EMPTY;
    }
    for (long slot : slots) {
      if (slot != EMPTY) {
        values[n++] = slot;
      }
    }
    return values;
  }

  private void grow() {
    long[] bigger = new long[slots.length * 2];
    java.util.Arrays.fill(bigger, EMPTY);
    int biggerMask = bigger.length - 1;
    for (long slot : slots) {
      if (slot != EMPTY) {
        insert(bigger, biggerMask, slot);
      }
    }
    slots = bigger;
    mask = biggerMask;
  }

  private static boolean insert(long[] slots, int mask, long value) {
    int i = hash(value) & mask;
    while (true) {
      long slot = slots[i];
      if (slot == value) {
        return false;
      }
      if (slot == EMPTY) {
        slots[i] = value;
        return true;
      }
      i = (i + 1) & mask;
    }
  }

  private static int hash(long value) {
    long h = value * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
