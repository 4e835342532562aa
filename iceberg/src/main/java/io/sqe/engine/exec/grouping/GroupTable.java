package io.sqe.engine.exec.grouping;

import java.util.Arrays;
import java.util.List;

/**
 * An open-addressing hash table from grouping keys to dense group numbers (0, 1, 2, ... in the
 * order the groups first appear), with the same notion of equal keys as a {@code HashMap}
 * ({@code equals}, or {@code Arrays.deepEquals} for {@code Object[]} keys).
 *
 * <p>Keys that are one {@code Integer} or {@code Long}, or a pair of them (a two-element list or
 * array) whose values fit in 32 bits each, are held as one primitive {@code long}: no boxed key is
 * hashed or compared, and a NULL key is a group of its own. The first non-NULL key decides that
 * representation; a later key that does not fit it (another class, a NULL in a pair, a value
 * beyond 32 bits) moves the table to general keys once, keeping the group numbers. General keys
 * are hashed element by element with a mixing step between elements: the {@code 31 * h + e}
 * hash of Calcite's composite keys gives whole families of integer tuples one hash code
 * ({@code (a, b)} and {@code (a + 1, b - 31)}), which turned {@code HashMap}'s bins into trees.
 */
final class GroupTable {
  private static final int UNDECIDED = 0;
  private static final int SCALAR = 1;
  private static final int LIST_PAIR = 2;
  private static final int ARRAY_PAIR = 3;
  private static final int GENERAL = 4;

  private static final long NULL_HASH = 0x2545F4914F6CDD1DL;

  /** Probes after which a table of single primitive keys mixes its keys' bits. */
  private static final int MAX_PROBES = 64;

  private int kind = UNDECIDED;
  /** Whether primitive keys are placed by a full mix of their bits (always, for pairs). */
  private boolean mixed;
  /** The classes of the key (SCALAR) or of the pair's elements (LIST_PAIR, ARRAY_PAIR). */
  private Class<?> class0;
  private Class<?> class1;

  /** Group number + 1 per slot, 0 for an empty slot. */
  private int[] slots = new int[16];
  /** Per slot: the key as a long (primitive kinds) or the key's hash (GENERAL). */
  private long[] slotValues = new long[16];
  private int mask = 15;

  /** Per group: its key at {@code 2 * group}, its value at {@code 2 * group + 1}, side by side in memory. */
  private Object[] entries = new Object[32];
  private int size;
  /** The group of the NULL key while keys are primitive, or -1. */
  private int nullGroup = -1;
  /** The last key {@link #encode} turned into a long. */
  private long code;

  /** The number of groups. */
  int size() {
    return size;
  }

  /** The key of group {@code group}, as it first appeared. */
  Object key(int group) {
    return entries[2 * group];
  }

  /** The value the caller keeps for group {@code group} (an accumulator), or null. */
  Object value(int group) {
    return entries[2 * group + 1];
  }

  void setValue(int group, Object value) {
    entries[2 * group + 1] = value;
  }

  /**
   * The number of {@code key}'s group; if the key is new, a group is added and the result is
   * {@code ~group} (negative), so that the caller knows to initialise it.
   */
  int groupOf(Object key) {
    if (kind != GENERAL) {
      if (key == null && kind != LIST_PAIR && kind != ARRAY_PAIR) {
        if (nullGroup >= 0) {
          return nullGroup;
        }
        nullGroup = size;
        return ~append(null);
      }
      if (kind == UNDECIDED) {
        decide(key);
      }
      if (kind != GENERAL) {
        if (encode(key)) {
          return primitiveGroupOf(code, key);
        }
        toGeneral();
      }
    }
    return generalGroupOf(hash(key), key);
  }

  private void decide(Object key) {
    Class<?> type = key.getClass();
    if (type == Integer.class || type == Long.class) {
      kind = SCALAR;
      class0 = type;
      return;
    }
    Object a = null;
    Object b = null;
    int pairKind = GENERAL;
    if (key instanceof List<?> list && list.size() == 2) {
      a = list.get(0);
      b = list.get(1);
      pairKind = LIST_PAIR;
    } else if (key instanceof Object[] array && array.length == 2) {
      a = array[0];
      b = array[1];
      pairKind = ARRAY_PAIR;
    }
    if (pairKind != GENERAL && integral(a) && integral(b) && nullGroup < 0) {
      kind = pairKind;
      mixed = true;
      class0 = a.getClass();
      class1 = b.getClass();
      return;
    }
    toGeneral();
  }

  private static boolean integral(Object value) {
    return value != null && (value.getClass() == Integer.class || value.getClass() == Long.class);
  }

  /** Sets {@link #code} to {@code key} as a long, or returns false if it does not fit the table's kind. */
  private boolean encode(Object key) {
    if (kind == SCALAR) {
      if (key.getClass() != class0) {
        return false;
      }
      code = ((Number) key).longValue();
      return true;
    }
    if (kind == LIST_PAIR) {
      return key instanceof List<?> list && list.size() == 2 && encodePair(list.get(0), list.get(1));
    }
    return key instanceof Object[] array && array.length == 2 && encodePair(array[0], array[1]);
  }

  private boolean encodePair(Object a, Object b) {
    if (a == null || b == null || a.getClass() != class0 || b.getClass() != class1) {
      return false;
    }
    long x = ((Number) a).longValue();
    long y = ((Number) b).longValue();
    if (x != (int) x || y != (int) y) {
      return false;
    }
    code = (x << 32) | (y & 0xFFFF_FFFFL);
    return true;
  }

  private int primitiveGroupOf(long value, Object key) {
    int slot = position(value);
    int probes = 0;
    while (true) {
      int group = slots[slot];
      if (group == 0) {
        return ~insert(slot, value, key);
      }
      if (slotValues[slot] == value) {
        return group - 1;
      }
      if (++probes == MAX_PROBES && !mixed) {
        // Keys in a pattern the cheap spread piles up (a stride that is a multiple of the table's size).
        mixed = true;
        resize(slots.length);
        return primitiveGroupOf(value, key);
      }
      slot = (slot + 1) & mask;
    }
  }

  /**
   * The home slot of a primitive key. Single keys start with {@code HashMap}'s spread, which keeps
   * consecutive keys (a scan sorted by its key, as TPC-H's lineitem by l_orderkey) in consecutive
   * slots, so the table is walked, not jumped about in; a probe sequence of {@link #MAX_PROBES}
   * switches the table to a full mix. Pairs are mixed from the start.
   */
  private int position(long value) {
    if (mixed) {
      return (int) mix(value) & mask;
    }
    int h = (int) (value ^ (value >>> 32));
    return (h ^ (h >>> 16)) & mask;
  }

  private int generalGroupOf(long hash, Object key) {
    int slot = (int) hash & mask;
    while (true) {
      int group = slots[slot];
      if (group == 0) {
        return ~insert(slot, hash, key);
      }
      if (slotValues[slot] == hash && equal(entries[2 * (group - 1)], key)) {
        return group - 1;
      }
      slot = (slot + 1) & mask;
    }
  }

  private int insert(int slot, long value, Object key) {
    int group = append(key);
    slots[slot] = group + 1;
    slotValues[slot] = value;
    // At most half full, so that probe sequences stay short.
    if (2 * size > slots.length) {
      resize(slots.length * 2);
    }
    return group;
  }

  private int append(Object key) {
    if (2 * size == entries.length) {
      entries = Arrays.copyOf(entries, entries.length * 2);
    }
    entries[2 * size] = key;
    return size++;
  }

  private void resize(int capacity) {
    int[] oldSlots = slots;
    long[] oldValues = slotValues;
    slots = new int[capacity];
    slotValues = new long[capacity];
    mask = capacity - 1;
    boolean general = kind == GENERAL;
    for (int i = 0; i < oldSlots.length; i++) {
      if (oldSlots[i] != 0) {
        long value = oldValues[i];
        int slot = general ? (int) value & mask : position(value);
        while (slots[slot] != 0) {
          slot = (slot + 1) & mask;
        }
        slots[slot] = oldSlots[i];
        slotValues[slot] = value;
      }
    }
  }

  /** Rehashes every group's key as a general key; the group numbers stay. */
  private void toGeneral() {
    kind = GENERAL;
    nullGroup = -1;
    int capacity = 16;
    while (capacity < 2 * (size + 1)) {
      capacity *= 2;
    }
    slots = new int[capacity];
    slotValues = new long[capacity];
    mask = capacity - 1;
    for (int group = 0; group < size; group++) {
      long hash = hash(entries[2 * group]);
      int slot = (int) hash & mask;
      while (slots[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      slots[slot] = group + 1;
      slotValues[slot] = hash;
    }
  }

  static long hash(Object key) {
    if (key instanceof List<?> list) {
      long h = 1;
      for (int i = 0, n = list.size(); i < n; i++) {
        h = combine(h, list.get(i));
      }
      return mix(h);
    }
    if (key instanceof Object[] array) {
      long h = 1;
      for (Object element : array) {
        h = combine(h, element);
      }
      return mix(h);
    }
    return mix(elementHash(key));
  }

  /** Mixes {@code h} before the next element goes in, so that no linear family of tuples shares a hash. */
  private static long combine(long h, Object element) {
    h = (h ^ elementHash(element)) * 0x9E37_79B9_7F4A_7C15L;
    return h ^ (h >>> 32);
  }

  private static long elementHash(Object element) {
    if (element == null) {
      return NULL_HASH;
    }
    if (element instanceof Object[] array) {
      return Arrays.deepHashCode(array);
    }
    return element.hashCode();
  }

  private static boolean equal(Object a, Object b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    if (a instanceof Object[] x && b instanceof Object[] y) {
      return Arrays.deepEquals(x, y);
    }
    return a.equals(b);
  }

  /** Murmur3's 64-bit finaliser. */
  private static long mix(long k) {
    k ^= k >>> 33;
    k *= 0xFF51_AFD7_ED55_8CCDL;
    k ^= k >>> 33;
    k *= 0xC4CE_B9FE_1A85_EC53L;
    k ^= k >>> 33;
    return k;
  }
}
