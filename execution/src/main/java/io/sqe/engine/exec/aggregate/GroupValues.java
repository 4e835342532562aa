package io.sqe.engine.exec.aggregate;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * One value of a column's type per group (a MIN, MAX, ANY_VALUE or a scalar sub-query's value),
 * in Arrow buffers, compared in SQL's order for the type: integers, dates, times and timestamps
 * as signed numbers, floating point as {@link Double#compare}, decimals as signed 128-bit unscaled
 * values, booleans false before true, text (UTF-8, whose byte order is code point order) and
 * binary by unsigned bytes.
 */
abstract class GroupValues implements AutoCloseable {
  /** Which groups hold a value. */
  final StateBuffer valid;

  private GroupValues(BufferAllocator allocator) {
    this.valid = new StateBuffer(allocator);
  }

  /** The storage for values of {@code field}'s type, or null for a type it does not hold. */
  static GroupValues of(Field field, BufferAllocator allocator) {
    ArrowType type = field.getType();
    switch (type.getTypeID()) {
      case Int:
        return new Fixed(((ArrowType.Int) type).getBitWidth() / 8, Fixed.SIGNED, allocator);
      case Date:
        return new Fixed(((ArrowType.Date) type).getUnit() == DateUnit.DAY ? 4 : 8, Fixed.SIGNED, allocator);
      case Time:
        return new Fixed(((ArrowType.Time) type).getBitWidth() / 8, Fixed.SIGNED, allocator);
      case Timestamp:
      case Duration:
        return new Fixed(8, Fixed.SIGNED, allocator);
      case Interval:
        return ((ArrowType.Interval) type).getUnit() == IntervalUnit.YEAR_MONTH ? new Fixed(4, Fixed.SIGNED, allocator) : null;
      case FloatingPoint:
        FloatingPointPrecision precision = ((ArrowType.FloatingPoint) type).getPrecision();
        return precision == FloatingPointPrecision.DOUBLE
            ? new Fixed(8, Fixed.FLOAT, allocator)
            : precision == FloatingPointPrecision.SINGLE ? new Fixed(4, Fixed.FLOAT, allocator) : null;
      case Bool:
        return new Fixed(1, Fixed.BIT, allocator);
      case Decimal:
        return ((ArrowType.Decimal) type).getBitWidth() == 128 ? new Fixed(16, Fixed.DECIMAL, allocator) : null;
      case FixedSizeBinary:
        return new Fixed(((ArrowType.FixedSizeBinary) type).getByteWidth(), Fixed.BYTES, allocator);
      case Utf8:
      case Binary:
        return new Variable(allocator);
      default:
        return null;
    }
  }

  void grow(int groupCount) {
    valid.ensureBits(groupCount);
  }

  /** Makes room for {@link #set} of the rows r of 0..rowCount-1 of {@code input} whose groups[r] is not negative to allocate nothing. */
  void reserve(FieldVector input, int rowCount, int[] groups) {}

  boolean has(int group) {
    return BitVectorHelper.get(valid.buffer(), group) != 0;
  }

  /** How the non-NULL value at {@code row} of {@code input} compares with group {@code group}'s value. */
  abstract int compare(FieldVector input, int row, int group);

  /** Makes the non-NULL value at {@code row} of {@code input} group {@code group}'s value. */
  abstract void set(FieldVector input, int row, int group);

  /** Writes the values of groups from..from+count-1 (NULL for none) at 0..count-1 of {@code out}. */
  abstract void write(int from, int count, FieldVector out);

  @Override
  public void close() {
    valid.close();
  }

  /** Values of a fixed width, stored as they are in the vector (a boolean as a byte). */
  static final class Fixed extends GroupValues {
    static final int SIGNED = 0;
    static final int FLOAT = 1;
    static final int DECIMAL = 2;
    static final int BYTES = 3;
    static final int BIT = 4;

    private final int width;
    private final int kind;
    private final StateBuffer values;

    Fixed(int width, int kind, BufferAllocator allocator) {
      super(allocator);
      this.width = width;
      this.kind = kind;
      this.values = new StateBuffer(allocator);
    }

    @Override
    void grow(int groupCount) {
      super.grow(groupCount);
      values.ensure((long) groupCount * width);
    }

    @Override
    int compare(FieldVector input, int row, int group) {
      ArrowBuf data = input.getDataBuffer();
      ArrowBuf state = values.buffer();
      long at = (long) row * width;
      long stored = (long) group * width;
      switch (kind) {
        case BIT:
          return Integer.compare(BitVectorHelper.get(data, row), state.getByte(group));
        case FLOAT:
          return width == 8
              ? Double.compare(data.getDouble(at), state.getDouble(stored))
              : Float.compare(data.getFloat(at), state.getFloat(stored));
        case DECIMAL:
          int high = Long.compare(data.getLong(at + 8), state.getLong(stored + 8));
          return high != 0 ? high : Long.compareUnsigned(data.getLong(at), state.getLong(stored));
        case BYTES:
          return ByteFunctionHelpers.compare(data, at, at + width, state, stored, stored + width);
        default:
          return Long.compare(signed(data, at), signed(state, stored));
      }
    }

    private long signed(ArrowBuf buffer, long at) {
      return switch (width) {
        case 1 -> buffer.getByte(at);
        case 2 -> buffer.getShort(at);
        case 4 -> buffer.getInt(at);
        default -> buffer.getLong(at);
      };
    }

    @Override
    void set(FieldVector input, int row, int group) {
      if (kind == BIT) {
        values.buffer().setByte(group, BitVectorHelper.get(input.getDataBuffer(), row));
      } else {
        values.buffer().setBytes((long) group * width, input.getDataBuffer(), (long) row * width, width);
      }
      BitVectorHelper.setBit(valid.buffer(), group);
    }

    @Override
    void write(int from, int count, FieldVector out) {
      ArrowBuf data = out.getDataBuffer();
      ArrowBuf validity = out.getValidityBuffer();
      ArrowBuf state = values.buffer();
      for (int i = 0; i < count; i++) {
        int g = from + i;
        if (!has(g)) {
          continue;
        }
        if (kind == BIT) {
          BitVectorHelper.setValidityBit(data, i, state.getByte(g));
        } else {
          data.setBytes((long) i * width, state, (long) g * width, width);
        }
        BitVectorHelper.setBit(validity, i);
      }
    }

    @Override
    public void close() {
      super.close();
      values.close();
    }
  }

  /**
   * Text and binary: each group's value is an offset and length (8 bytes each) into a buffer the
   * values are appended to. A replaced value is left behind; when more than half the buffer is
   * such garbage, the live values are copied into a new one.
   */
  static final class Variable extends GroupValues {
    private static final long MIN_COMPACT_BYTES = 1 << 20;

    private final BufferAllocator allocator;
    private final StateBuffer refs;
    private ArrowBuf data;
    private long used;
    private long live;
    private int groups;

    Variable(BufferAllocator allocator) {
      super(allocator);
      this.allocator = allocator;
      this.refs = new StateBuffer(allocator);
    }

    @Override
    void grow(int groupCount) {
      super.grow(groupCount);
      refs.ensure(groupCount * 16L);
      groups = groupCount;
    }

    @Override
    int compare(FieldVector input, int row, int group) {
      BaseVariableWidthVector vector = (BaseVariableWidthVector) input;
      ArrowBuf state = refs.buffer();
      long offset = state.getLong(group * 16L);
      long length = state.getLong(group * 16L + 8);
      return ByteFunctionHelpers.compare(
          vector.getDataBuffer(), vector.getStartOffset(row), vector.getEndOffset(row), data, offset, offset + length);
    }

    @Override
    void set(FieldVector input, int row, int group) {
      BaseVariableWidthVector vector = (BaseVariableWidthVector) input;
      int start = vector.getStartOffset(row);
      int length = vector.getEndOffset(row) - start;
      if (has(group)) {
        // Garbage from now on: a compaction leaves it behind.
        live -= refs.buffer().getLong(group * 16L + 8);
        BitVectorHelper.unsetBit(valid.buffer(), group);
      }
      reserve(length);
      data.setBytes(used, vector.getDataBuffer(), start, length);
      refs.buffer().setLong(group * 16L, used);
      refs.buffer().setLong(group * 16L + 8, length);
      used += length;
      live += length;
      BitVectorHelper.setBit(valid.buffer(), group);
    }

    /**
     * Compacts when more than half the buffer is garbage, then makes room for the rows' bytes:
     * what a batch's {@link #set} calls append at most.
     */
    @Override
    void reserve(FieldVector input, int rowCount, int[] groups) {
      if (used - live > Math.max(MIN_COMPACT_BYTES, live)) {
        compact();
      }
      BaseVariableWidthVector vector = (BaseVariableWidthVector) input;
      long bytes = 0;
      for (int r = 0; r < rowCount; r++) {
        if (groups[r] >= 0) {
          bytes += vector.getEndOffset(r) - vector.getStartOffset(r);
        }
      }
      reserve(bytes);
    }

    private void reserve(long length) {
      long capacity = data == null ? 0 : data.capacity();
      if (used + length <= capacity) {
        return;
      }
      long needed = used + length;
      long doubled = Math.max(needed, Math.max(4096, capacity * 2));
      ArrowBuf grown;
      try {
        grown = allocator.buffer(doubled);
      } catch (OutOfMemoryException e) {
        // Near the limit, room for these bytes alone may still be there.
        grown = allocator.buffer(needed);
      }
      if (data != null) {
        grown.setBytes(0, data, 0, used);
        data.close();
      }
      data = grown;
    }

    /** Copies the live values into a new buffer. */
    private void compact() {
      ArrowBuf compacted = allocator.buffer(Math.max(4096, live * 2));
      ArrowBuf state = refs.buffer();
      long at = 0;
      for (int g = 0; g < groups; g++) {
        if (!has(g)) {
          continue;
        }
        long offset = state.getLong(g * 16L);
        long length = state.getLong(g * 16L + 8);
        compacted.setBytes(at, data, offset, length);
        state.setLong(g * 16L, at);
        at += length;
      }
      data.close();
      data = compacted;
      used = at;
    }

    @Override
    void write(int from, int count, FieldVector out) {
      BaseVariableWidthVector vector = (BaseVariableWidthVector) out;
      ArrowBuf state = refs.buffer();
      for (int i = 0; i < count; i++) {
        int g = from + i;
        if (has(g)) {
          long offset = state.getLong(g * 16L);
          long length = state.getLong(g * 16L + 8);
          vector.setSafe(i, 1, (int) offset, (int) (offset + length), data);
        } else {
          vector.setNull(i);
        }
      }
    }

    @Override
    public void close() {
      super.close();
      refs.close();
      if (data != null) {
        data.close();
        data = null;
      }
    }
  }
}
