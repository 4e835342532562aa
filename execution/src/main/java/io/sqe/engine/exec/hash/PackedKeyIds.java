package io.sqe.engine.exec.hash;

import static java.util.Objects.requireNonNull;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The ids a {@link KeyTable} gave to a few distinct keys that pack into one long, so that a batch
 * whose keys are all among them takes its ids without hashing or comparing the keys: GROUP BY of
 * short text and small integers with few groups (TPC-H Q1's one-letter flags). Each row's keys are
 * packed, a column at a time, into the bits of one long (NULL, the length of text, then its bytes),
 * which only rows of equal keys share, and looked up in a small open-addressing table of Java
 * arrays. The caller asks the key table for the ids of a batch with an unknown key and hands them
 * back to {@link #remember}; past {@link #MAX_KEYS} distinct keys, or when the text outgrows the
 * bits fixed by the first batch too often, the ids stop being kept and {@link #find} answers false
 * at once.
 */
public final class PackedKeyIds {
  /** The most distinct keys kept: their table (24 KB at most) stays in the core's caches. */
  static final int MAX_KEYS = 1024;
  /** The longest text packed: seven bytes and a length still leave bits for other keys. */
  private static final int MAX_TEXT = 7;
  /** Batches looked at before those whose keys do not pack may turn the ids off. */
  private static final int TRIAL_BATCHES = 16;
  /** The bit above a packed key's bits, so that 0 marks an empty slot. */
  private static final long PRESENT = 1L;
  /** Whether a long read from a buffer has the first byte lowest, as {@link Text} packs it. */
  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
  private static final long[] BYTE_MASKS = {0, 0xFFL, 0xFFFFL, 0xFF_FFFFL, 0xFFFF_FFFFL, 0xFF_FFFF_FFFFL, 0xFFFF_FFFF_FFFFL, 0xFF_FFFF_FFFF_FFFFL};

  private final Packer[] packers;
  private long[] packed = new long[0];
  /** Whether {@link #packed} holds the keys of the rows last passed to {@link #find}, from {@link #missAt} on. */
  private boolean packedValid;
  private int missAt;
  private long[] slots = new long[16];
  private int[] ids = new int[16];
  private int shift = 64 - 4;
  private int size;
  private boolean off;
  private int batches;
  private int unpacked;

  private PackedKeyIds(Packer[] packers) {
    this.packers = packers;
  }

  /**
   * Ids for keys of {@code fields}, or null when they cannot pack into one long or gain nothing
   * from it (one key that already fits a long takes a table of longs).
   */
  public static PackedKeyIds of(List<Field> fields) {
    requireNonNull(fields, "fields is null");
    if (fields.size() == 1 && KeyColumn.of(fields.get(0)).fitsLong()) {
      return null;
    }
    Packer[] packers = new Packer[fields.size()];
    int bits = 0;
    for (int k = 0; k < packers.length; k++) {
      packers[k] = Packer.of(KeyColumn.of(fields.get(k)));
      if (packers[k] == null) {
        return null;
      }
      // Text takes at least one byte and its length until the first batch fixes its longest.
      bits += packers[k].bits(1);
    }
    return bits < 64 ? new PackedKeyIds(packers) : null;
  }

  /**
   * Fills ids[r] for rows 0..rowCount-1 and returns true when every row's keys are known; else
   * returns false, with ids undefined, and the caller passes the key table's ids to {@link #remember}.
   */
  public boolean find(List<FieldVector> keyColumns, int rowCount, int[] rowIds) {
    packedValid = false;
    if (off) {
      return false;
    }
    batches++;
    if (packed.length < rowCount) {
      packed = new long[rowCount];
    }
    if (!pack(keyColumns, rowCount)) {
      if (++unpacked * 2 > batches && batches >= TRIAL_BATCHES) {
        turnOff();
      }
      return false;
    }
    packedValid = true;
    long[] keys = packed;
    long[] slots = this.slots;
    int[] ids = this.ids;
    int shift = this.shift;
    int mask = slots.length - 1;
    for (int r = 0; r < rowCount; r++) {
      long key = keys[r];
      int slot = slot(key, shift);
      while (true) {
        long at = slots[slot];
        if (at == key) {
          rowIds[r] = ids[slot];
          break;
        }
        if (at == 0) {
          missAt = r;
          return false;
        }
        slot = (slot + 1) & mask;
      }
    }
    return true;
  }

  /**
   * Keeps the ids of the rows of the last {@link #find} that answered false, as the key table gave
   * them: those of 0..{@code held}-1 only, the groups the caller holds.
   */
  public void remember(int rowCount, int[] rowIds, int held) {
    if (!packedValid || off) {
      return;
    }
    packedValid = false;
    for (int r = missAt; r < rowCount; r++) {
      int id = rowIds[r];
      if (id >= 0 && id < held && !put(packed[r], id)) {
        turnOff();
        return;
      }
    }
  }

  /** Whether {@code key} is kept with {@code id}, false past {@link #MAX_KEYS}. */
  private boolean put(long key, int id) {
    int mask = slots.length - 1;
    int slot = slot(key, shift);
    while (slots[slot] != 0) {
      if (slots[slot] == key) {
        return true;
      }
      slot = (slot + 1) & mask;
    }
    if (size == MAX_KEYS) {
      return false;
    }
    slots[slot] = key;
    ids[slot] = id;
    if (++size * 2 > slots.length) {
      grow();
    }
    return true;
  }

  private void grow() {
    long[] oldSlots = slots;
    int[] oldIds = ids;
    slots = new long[oldSlots.length * 2];
    ids = new int[oldSlots.length * 2];
    shift--;
    int mask = slots.length - 1;
    for (int s = 0; s < oldSlots.length; s++) {
      if (oldSlots[s] != 0) {
        int slot = slot(oldSlots[s], shift);
        while (slots[slot] != 0) {
          slot = (slot + 1) & mask;
        }
        slots[slot] = oldSlots[s];
        ids[slot] = oldIds[s];
      }
    }
  }

  private static int slot(long key, int shift) {
    return (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
  }

  private void turnOff() {
    off = true;
    slots = null;
    ids = null;
    packed = null;
  }

  /** Packs each row's keys into {@link #packed}; false when a text value is longer than its bits allow. */
  private boolean pack(List<FieldVector> keyColumns, int rowCount) {
    long[] keys = packed;
    Arrays.fill(keys, 0, rowCount, PRESENT);
    if (batches == 1 && !fixTextLengths(keyColumns, rowCount)) {
      turnOff();
      return false;
    }
    for (int k = 0; k < packers.length; k++) {
      if (!packers[k].pack(keyColumns.get(k), rowCount, keys)) {
        return false;
      }
    }
    return true;
  }

  /** Sizes each text key for the longest value of the first batch; false when the keys then do not fit a long. */
  private boolean fixTextLengths(List<FieldVector> keyColumns, int rowCount) {
    int bits = 0;
    for (int k = 0; k < packers.length; k++) {
      if (packers[k] instanceof Text text) {
        text.fix(text.longest(keyColumns.get(k), rowCount));
      }
      bits += packers[k].bits(0);
    }
    return bits < 64;
  }

  /** How one key column's values pack into bits of a long, 0 for NULL. */
  private abstract static class Packer {
    /** The bits a value takes, with text of at most {@code textBytes} bytes until it is fixed. */
    abstract int bits(int textBytes);

    /** Shifts each row's key left and adds this column's bits; false when a value does not fit them. */
    abstract boolean pack(FieldVector vector, int rowCount, long[] keys);

    /** The packer of {@code column}'s values, null for values wider than four bytes. */
    static Packer of(KeyColumn column) {
      if (column instanceof KeyColumn.Scalar scalar) {
        // Floating point packs its bits as they are: -0.0 and 0.0 pack apart and both take the table's one id.
        return scalar.kind == KeyColumn.Scalar.BIT ? new Bool() : scalar.width <= 4 ? new Fixed(scalar.width) : null;
      }
      return column instanceof KeyColumn.Variable variable ? new Text(variable.large) : null;
    }
  }

  /** Values of 1, 2 or 4 bytes (integers, dates, times, REAL): a NULL bit and the value's bits. */
  private static final class Fixed extends Packer {
    private final int width;

    Fixed(int width) {
      this.width = width;
    }

    @Override
    int bits(int textBytes) {
      return width * 8 + 1;
    }

    @Override
    boolean pack(FieldVector vector, int rowCount, long[] keys) {
      ArrowBuf data = vector.getDataBuffer();
      ArrowBuf validity = vector.getValidityBuffer();
      boolean nulls = vector.getNullCount() > 0;
      int bits = width * 8 + 1;
      for (int r = 0; r < rowCount; r++) {
        long value;
        if (nulls && BitVectorHelper.get(validity, r) == 0) {
          value = 0;
        } else {
          long raw = switch (width) {
            case 1 -> data.getByte(r) & 0xFFL;
            case 2 -> data.getShort(r * 2L) & 0xFFFFL;
            default -> data.getInt(r * 4L) & 0xFFFF_FFFFL;
          };
          value = raw << 1 | 1;
        }
        keys[r] = keys[r] << bits | value;
      }
      return true;
    }
  }

  /** BOOLEAN: NULL, false or true in two bits. */
  private static final class Bool extends Packer {
    @Override
    int bits(int textBytes) {
      return 2;
    }

    @Override
    boolean pack(FieldVector vector, int rowCount, long[] keys) {
      ArrowBuf data = vector.getDataBuffer();
      ArrowBuf validity = vector.getValidityBuffer();
      boolean nulls = vector.getNullCount() > 0;
      for (int r = 0; r < rowCount; r++) {
        long value = nulls && BitVectorHelper.get(validity, r) == 0 ? 0 : 1 + BitVectorHelper.get(data, r);
        keys[r] = keys[r] << 2 | value;
      }
      return true;
    }
  }

  /**
   * Text or binary of at most {@code bytes} bytes, fixed by the first batch: the length plus one
   * (0 for NULL) in the low bits, above it the bytes, first byte lowest.
   */
  private static final class Text extends Packer {
    private final boolean large;
    private int bytes = -1;
    private int lengthBits;

    Text(boolean large) {
      this.large = large;
    }

    @Override
    int bits(int textBytes) {
      int length = bytes < 0 ? textBytes : bytes;
      return length * 8 + lengthBits(length);
    }

    /** Bits for a length of 0..{@code length} plus NULL. */
    private static int lengthBits(int length) {
      return 32 - Integer.numberOfLeadingZeros(length + 1);
    }

    void fix(int longest) {
      bytes = Math.min(MAX_TEXT, Math.max(1, longest));
      lengthBits = lengthBits(bytes);
    }

    int longest(FieldVector vector, int rowCount) {
      long longest = 0;
      ArrowBuf offsets = vector.getOffsetBuffer();
      for (int r = 0; r < rowCount; r++) {
        longest = Math.max(longest, end(offsets, r) - start(offsets, r));
      }
      return (int) Math.min(longest, MAX_TEXT + 1);
    }

    private long start(ArrowBuf offsets, int row) {
      return large ? offsets.getLong(row * 8L) : offsets.getInt(row * 4L);
    }

    private long end(ArrowBuf offsets, int row) {
      return large ? offsets.getLong((row + 1) * 8L) : offsets.getInt((row + 1) * 4L);
    }

    @Override
    boolean pack(FieldVector vector, int rowCount, long[] keys) {
      ArrowBuf offsets = vector.getOffsetBuffer();
      ArrowBuf data = vector.getDataBuffer();
      ArrowBuf validity = vector.getValidityBuffer();
      boolean nulls = vector.getNullCount() > 0;
      long capacity = data.capacity();
      int bits = bytes * 8 + lengthBits;
      // A row's end is the next row's start: one offset read a row.
      long end = rowCount == 0 ? 0 : start(offsets, 0);
      for (int r = 0; r < rowCount; r++) {
        long start = end;
        end = end(offsets, r);
        long value;
        if (nulls && BitVectorHelper.get(validity, r) == 0) {
          value = 0;
        } else {
          int length = (int) (end - start);
          if (length > bytes) {
            return false;
          }
          long text;
          if (LITTLE_ENDIAN && start + 8 <= capacity) {
            text = data.getLong(start) & BYTE_MASKS[length];
          } else {
            text = 0;
            for (int i = length - 1; i >= 0; i--) {
              text = text << 8 | data.getByte(start + i) & 0xFFL;
            }
          }
          value = text << lengthBits | (length + 1);
        }
        keys[r] = keys[r] << bits | value;
      }
      return true;
    }
  }
}
