package io.sqe.engine.exec.expr;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.calcite.runtime.SqlFunctions;

/**
 * SQL's {@code SUBSTRING(text FROM start FOR length)} with a constant start and length, read in
 * place from a text vector's bytes. The row runtime cuts a value by UTF-16 units (Calcite's {@code
 * SqlFunctions.substring}); where the characters up to the slice's end are ASCII, a unit is a byte
 * and the slice is a range of the vector's bytes. Other values are decoded and cut by that same
 * function, so both give the same text.
 */
public record TextSlice(int start, int length) {
  public TextSlice {
    if (length < 0) {
      // The row runtime fails on a negative length: a caller leaves such a call to it.
      throw new IllegalArgumentException("Negative substring length " + length);
    }
  }

  /**
   * A position in the values of a text vector, the whole value or {@code slice} of it (none when
   * null): {@link #at} moves it to a row, then the comparisons read that row's text. Each
   * evaluation has its own, since it holds the row it is at.
   */
  static final class Cursor {
    private final TextSlice slice;
    private ArrowBuf data;
    private int from;
    private int to;
    /** The row's text when it was decoded and cut as a string, else null. */
    private byte[] decoded;

    Cursor(TextSlice slice) {
      this.slice = slice;
    }

    /** Moves to the (non-null) value at {@code row} of {@code vector}. */
    void at(BaseVariableWidthVector vector, int row) {
      ArrowBuf offsets = vector.getOffsetBuffer();
      int start = offsets.getInt((long) row * 4);
      int end = offsets.getInt((long) (row + 1) * 4);
      data = vector.getDataBuffer();
      decoded = null;
      if (slice == null) {
        from = start;
        to = end;
        return;
      }
      long s = slice.start();
      long e = s + slice.length();
      int bytes = end - start;
      // The row runtime's bounds in UTF-16 units: [max(s, 1) - 1, min(e - 1, units)), empty when e < 1 or s > units.
      long needed = Math.max(0, Math.min(e - 1, bytes));
      for (int i = 0; i < needed; i++) {
        if (data.getByte(start + i) < 0) {
          cut(start, bytes);
          return;
        }
      }
      // Here units == bytes when the value ends by e - 1 (all ASCII), and units >= e >= s otherwise.
      if (e < 1 || s > bytes) {
        from = start;
        to = start;
        return;
      }
      from = start + (int) Math.max(s - 1, 0);
      to = start + (int) needed;
    }

    private void cut(int start, int bytes) {
      byte[] value = new byte[bytes];
      data.getBytes(start, value);
      decoded = SqlFunctions.substring(new String(value, StandardCharsets.UTF_8), slice.start(), slice.length()).getBytes(StandardCharsets.UTF_8);
    }

    /** How the text compares with {@code value}, by unsigned bytes: negative, zero or positive. */
    int compareTo(byte[] value) {
      return decoded != null
          ? Arrays.compareUnsigned(decoded, value)
          : ByteFunctionHelpers.compare(data, from, to, value, 0, value.length);
    }

    /** A hash of the text's bytes, as {@link #hash(byte[])} hashes a constant. */
    int hash() {
      if (decoded != null) {
        return hash(decoded);
      }
      int h = 1;
      for (int i = from; i < to; i++) {
        h = 31 * h + data.getByte(i);
      }
      return h;
    }

    static int hash(byte[] value) {
      int h = 1;
      for (byte b : value) {
        h = 31 * h + b;
      }
      return h;
    }

    /** Whether the text is {@code value}, byte for byte. */
    boolean isEqualTo(byte[] value) {
      if (decoded != null) {
        return Arrays.equals(decoded, value);
      }
      if (to - from != value.length) {
        return false;
      }
      for (int i = 0; i < value.length; i++) {
        if (data.getByte(from + i) != value[i]) {
          return false;
        }
      }
      return true;
    }

    /** Appends the text at {@code row} of {@code out}. */
    void copyTo(BaseVariableWidthVector out, int row) {
      if (decoded != null) {
        out.setSafe(row, decoded);
      } else {
        out.setSafe(row, 1, from, to, data);
      }
    }
  }
}
