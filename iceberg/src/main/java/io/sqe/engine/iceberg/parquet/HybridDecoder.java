package io.sqe.engine.iceberg.parquet;

import java.util.Arrays;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;

/**
 * Decodes Parquet's RLE/bit-packed hybrid encoding (dictionary ids, definition levels) in bulk into
 * an {@code int[]}: a repeated run is one {@code Arrays.fill}, a bit-packed run is unpacked 32 values
 * at a time by parquet's generated {@link BytePacker}s.
 */
final class HybridDecoder {
  private final int[] tail = new int[32];
  private final byte[] padded = new byte[32 * 4];

  /**
   * Decodes {@code count} values of {@code bitWidth} bits from {@code in[pos, end)} into {@code
   * out[0, count)}; returns the position after the last run read.
   */
  int decode(byte[] in, int pos, int end, int bitWidth, int[] out, int count) {
    if (bitWidth == 0) {
      Arrays.fill(out, 0, count, 0);
      return pos;
    }
    BytePacker packer = Packer.LITTLE_ENDIAN.newBytePacker(bitWidth);
    int valueBytes = (bitWidth + 7) / 8;
    int n = 0;
    while (n < count) {
      if (pos >= end) {
        throw new IllegalStateException("Parquet RLE/bit-packed data ends after " + n + " of " + count + " values");
      }
      int header = 0;
      int shift = 0;
      byte b;
      do {
        b = in[pos++];
        header |= (b & 0x7F) << shift;
        shift += 7;
      } while ((b & 0x80) != 0);
      if ((header & 1) == 0) {
        int run = header >>> 1;
        int value = 0;
        for (int i = 0; i < valueBytes; i++) {
          value |= (in[pos++] & 0xFF) << (8 * i);
        }
        int k = Math.min(run, count - n);
        Arrays.fill(out, n, n + k, value);
        n += k;
      } else {
        int groups = header >>> 1;
        int values = groups * 8;
        int runEnd = pos + groups * bitWidth;
        int k = Math.min(values, count - n);
        int p = pos;
        int i = 0;
        int bytes32 = 4 * bitWidth;
        while (i + 32 <= k && p + bytes32 <= end) {
          packer.unpack32Values(in, p, out, n + i);
          p += bytes32;
          i += 32;
        }
        while (i < k) {
          if (i + 8 <= k && p + bitWidth <= end) {
            packer.unpack8Values(in, p, out, n + i);
          } else {
            // The last group of a page: its bytes may stop short of a whole group, and it may
            // hold fewer values than 8 that are still wanted.
            Arrays.fill(padded, 0, bitWidth, (byte) 0);
            System.arraycopy(in, p, padded, 0, Math.max(0, Math.min(bitWidth, end - p)));
            packer.unpack8Values(padded, 0, tail, 0);
            System.arraycopy(tail, 0, out, n + i, Math.min(8, k - i));
          }
          p += bitWidth;
          i += 8;
        }
        n += k;
        pos = runEnd;
      }
    }
    return pos;
  }
}
