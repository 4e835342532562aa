package io.sqe.write.files;

import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;

/**
 * A dictionary page's ids in Parquet's RLE / bit-packing hybrid encoding, preceded by their bit
 * width: the bytes parquet-mr's {@code DictionaryValuesWriter} makes with its {@code
 * RunLengthBitPackingHybridEncoder} (the same runs, the same groups, the same headers), from ids
 * in an {@code int[]} into one reused array. parquet-mr's encoder packs through a generated packer
 * per width and sets each bit-packed run's header by walking its output's slabs, which took an
 * eighth of a sorted CTAS's samples.
 */
final class HybridIdEncoder {
  /** A bit-packed run holds at most this many groups of 8, so that its header fits in a byte. */
  private static final int MAX_GROUPS = 63;

  private byte[] out = new byte[4096];
  private int size;
  private final int[] buffered = new int[8];
  private int bufferedCount;
  private int previous;
  private int repeats;
  private int groups;
  /** Where the current bit-packed run's header goes; -1 outside a bit-packed run. */
  private int header = -1;
  private int bitWidth;
  private long mask;

  /**
   * {@code ids[0..count)} encoded at {@code bitWidth}: valid until the next call, which reuses the
   * array.
   */
  BytesInput encode(int[] ids, int count, int bitWidth) {
    this.bitWidth = bitWidth;
    this.mask = bitWidth == 32 ? 0xFFFFFFFFL : (1L << bitWidth) - 1;
    size = 0;
    bufferedCount = 0;
    previous = 0;
    repeats = 0;
    groups = 0;
    header = -1;
    ensure(1);
    out[size++] = (byte) bitWidth;
    for (int i = 0; i < count; i++) {
      add(ids[i]);
    }
    if (repeats >= 8) {
      writeRleRun();
    } else if (bufferedCount > 0) {
      Arrays.fill(buffered, bufferedCount, 8, 0);
      writeGroup();
      endBitPackedRun();
    } else {
      endBitPackedRun();
    }
    return BytesInput.from(out, 0, size);
  }

  private void add(int value) {
    if (value == previous) {
      if (++repeats >= 8) {
        // Certainly an RLE run now: only count until it ends.
        return;
      }
    } else {
      if (repeats >= 8) {
        writeRleRun();
      }
      repeats = 1;
      previous = value;
    }
    buffered[bufferedCount++] = value;
    if (bufferedCount == 8) {
      writeGroup();
    }
  }

  /** The 8 buffered values, bit-packed little-endian, appended to the current bit-packed run or a new one. */
  private void writeGroup() {
    if (groups >= MAX_GROUPS) {
      endBitPackedRun();
    }
    ensure(1 + bitWidth);
    if (header == -1) {
      header = size;
      out[size++] = 0;
    }
    long bits = 0;
    int held = 0;
    for (int i = 0; i < 8; i++) {
      bits |= (buffered[i] & mask) << held;
      held += bitWidth;
      while (held >= 8) {
        out[size++] = (byte) bits;
        bits >>>= 8;
        held -= 8;
      }
    }
    bufferedCount = 0;
    // Repeats just packed into the group no longer count towards an RLE run.
    repeats = 0;
    groups++;
  }

  private void endBitPackedRun() {
    if (header == -1) {
      return;
    }
    out[header] = (byte) (groups << 1 | 1);
    header = -1;
    groups = 0;
  }

  private void writeRleRun() {
    endBitPackedRun();
    ensure(5 + 4);
    // The run's length as an unsigned varint, shifted left by one (a 0 low bit: an RLE run).
    int length = repeats << 1;
    while ((length & ~0x7F) != 0) {
      out[size++] = (byte) (length & 0x7F | 0x80);
      length >>>= 7;
    }
    out[size++] = (byte) length;
    // The value in the fewest whole bytes its width needs, little-endian.
    for (int b = 0, bytes = (bitWidth + 7) / 8; b < bytes; b++) {
      out[size++] = (byte) (previous >>> (8 * b));
    }
    repeats = 0;
    bufferedCount = 0;
  }

  private void ensure(int more) {
    if (out.length - size < more) {
      out = Arrays.copyOf(out, Math.max(out.length * 2, size + more));
    }
  }
}
