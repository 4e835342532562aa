package io.sqe.engine.iceberg;

/**
 * A set of longs in one open-addressing array (no boxing), for testing every row of a batch
 * against an IN list or a join's build-side keys; or, built by {@link #frozenOf} from keys dense
 * enough, a bitmap over their range: a test is then one bit in a few megabytes at most instead of a
 * probe that misses the cache on a large set.
 */
final class LongKeySet {
  private static final long EMPTY = Long.MIN_VALUE;
  /** The largest range a bitmap covers: 2^26 bits, 8 MiB. */
  private static final long MAX_BITMAP_BITS = 1L << 26;

  private long[] slots;
  /** Bit {@code v - min} is set for every key {@code v}; null unless built as a bitmap (then {@code slots} is null). */
  private long[] bits;
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
    if (bits != null) {
      long offset = value - min;
      return (bits[(int) (offset >>> 6)] & (1L << offset)) != 0;
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

  /**
   * The distinct values among the first {@code count} of {@code keys} (which lie in {@code [low,
   * high]}), to be tested only: a bitmap over that range when it is at most {@link #MAX_BITMAP_BITS}
   * wide and no larger than the hash array would be at its fullest (two slots of 64 bits per key, so
   * at most 128 bits of range per key), else a hash set; null
   * when the set would hold more than {@code maxKeys}.
   */
  static LongKeySet frozenOf(long[] keys, int count, long low, long high, int maxKeys) {
    if (count > 0 && bitmapFits(low, high, count)) {
      long[] bitmap = new long[(int) ((high - low + 64) >>> 6)];
      for (int i = 0; i < count; i++) {
        setBit(bitmap, keys[i] - low);
      }
      int distinct = 0;
      for (long word : bitmap) {
        distinct += Long.bitCount(word);
      }
      if (bitmapFits(low, high, distinct)) {
        LongKeySet set = new LongKeySet(low, high, distinct, bitmap);
        return set.size <= maxKeys ? set : null;
      }
    }
    LongKeySet set = new LongKeySet(Math.min(count, 1024));
    for (int i = 0; i < count; i++) {
      set.add(keys[i]);
      if (set.size > maxKeys) {
        return null;
      }
    }
    return set;
  }

  private LongKeySet(long min, long max, int size, long[] bits) {
    this.min = min;
    this.max = max;
    this.size = size;
    this.bits = bits;
  }

  private static boolean bitmapFits(long min, long max, long keys) {
    long span = max - min + 1;
    return span > 0 && span <= MAX_BITMAP_BITS && span <= 128L * keys;
  }

  private static void setBit(long[] bitmap, long offset) {
    bitmap[(int) (offset >>> 6)] |= 1L << offset;
  }

  int size() {
    return size;
  }

  /** The values, in no particular order. */
  long[] toArray() {
    long[] values = new long[size];
    int n = 0;
    if (slots == null) {
      for (int word = 0; word < bits.length; word++) {
        for (long w = bits[word]; w != 0; w &= w - 1) {
          values[n++] = min + ((long) word << 6) + Long.numberOfTrailingZeros(w);
        }
      }
      return values;
    }
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
