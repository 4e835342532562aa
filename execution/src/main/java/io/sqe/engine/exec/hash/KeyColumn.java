package io.sqe.engine.exec.hash;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * How a key table hashes, stores, compares and writes back the values of one key column, read
 * straight from the column's Arrow buffers. Three layouts: values that fit a long (integers,
 * dates, times, timestamps, floating point, booleans), wider fixed-size values compared as bytes
 * (decimals, fixed-size binary), and variable-width text and binary kept in a side buffer.
 */
abstract class KeyColumn {
  /** The hash of NULL, a value of its own when grouping. */
  static final long NULL_HASH = 0x2545F4914F6CDD1DL;

  /** Bytes the column's value takes in the table's row of keys. */
  final int width;

  private KeyColumn(int width) {
    this.width = width;
  }

  /** The codec of {@code field}'s type; nested and view types are refused. */
  static KeyColumn of(Field field) {
    ArrowType type = field.getType();
    switch (type.getTypeID()) {
      case Int:
        return new Scalar(((ArrowType.Int) type).getBitWidth() / 8, Scalar.INTEGER);
      case Date:
        return new Scalar(((ArrowType.Date) type).getUnit() == DateUnit.DAY ? 4 : 8, Scalar.INTEGER);
      case Time:
        return new Scalar(((ArrowType.Time) type).getBitWidth() / 8, Scalar.INTEGER);
      case Timestamp:
      case Duration:
        return new Scalar(8, Scalar.INTEGER);
      case Interval:
        IntervalUnit unit = ((ArrowType.Interval) type).getUnit();
        return unit == IntervalUnit.YEAR_MONTH
            ? new Scalar(4, Scalar.INTEGER)
            : unit == IntervalUnit.DAY_TIME ? new Scalar(8, Scalar.INTEGER) : new Bytes(16);
      case FloatingPoint:
        FloatingPointPrecision precision = ((ArrowType.FloatingPoint) type).getPrecision();
        return precision == FloatingPointPrecision.DOUBLE
            ? new Scalar(8, Scalar.FLOAT)
            : precision == FloatingPointPrecision.SINGLE ? new Scalar(4, Scalar.FLOAT) : new Scalar(2, Scalar.INTEGER);
      case Bool:
        return new Scalar(1, Scalar.BIT);
      case Decimal:
        return new Bytes(((ArrowType.Decimal) type).getBitWidth() / 8);
      case FixedSizeBinary:
        return new Bytes(((ArrowType.FixedSizeBinary) type).getByteWidth());
      case Utf8:
      case Binary:
        return new Variable(false);
      case LargeUtf8:
      case LargeBinary:
        return new Variable(true);
      default:
        throw new IllegalArgumentException("A hash table cannot key column " + field.getName() + " of type " + type);
    }
  }

  /** Whether the value fits a long, for the table of one such key. */
  boolean fitsLong() {
    return false;
  }

  /** {@code values[r]} = the value at row {@code r} as a long, for rows 0..rowCount-1 (any for NULLs). */
  void readLongs(FieldVector vector, int rowCount, long[] values) {
    throw new UnsupportedOperationException();
  }

  /** Writes {@code value} (from {@link #readLongs}) at {@code index} of {@code out}, which has the room. */
  void writeLong(FieldVector out, int index, long value) {
    throw new UnsupportedOperationException();
  }

  /** Mixes the hash of each row's value (NULL included) into {@code hashes}. */
  abstract void hash(FieldVector vector, int rowCount, long[] hashes);

  /** Whether the non-NULL value at {@code row} equals the value stored at {@code at} of {@code rows}. */
  abstract boolean equal(FieldVector vector, int row, ArrowBuf rows, long at, VarData var);

  /** Stores the non-NULL value at {@code row} at {@code at} of {@code rows}. */
  abstract void store(FieldVector vector, int row, ArrowBuf rows, long at, VarData var);

  /** Writes the value stored at {@code at} of {@code rows} at {@code index} of {@code out}, which has the room. */
  abstract void copyOut(ArrowBuf rows, long at, VarData var, FieldVector out, int index);

  /** Writes NULL at {@code index} of {@code out}, which has the room. */
  void writeNull(FieldVector out, int index) {
    BitVectorHelper.unsetBit(out.getValidityBuffer(), index);
  }

  /** Makes room in {@code out} for values up to index {@code count - 1}. */
  void reserve(FieldVector out, int count) {
    while (out.getValueCapacity() < count) {
      out.reAlloc();
    }
  }

  static long mix(long hash, long value) {
    return (hash + fmix(value)) * 0x9E3779B97F4A7C15L;
  }

  /** MurmurHash3's 64-bit finalizer: every input bit reaches every output bit. */
  static long fmix(long value) {
    long h = value;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    h ^= h >>> 33;
    return h;
  }

  static boolean isNull(ArrowBuf validity, int row) {
    return BitVectorHelper.get(validity, row) == 0;
  }

  /** A 64-bit hash of {@code length} bytes of {@code buffer} from {@code start}, eight at a time. */
  static long hashBytes(ArrowBuf buffer, long start, long length) {
    long h = length * 0xC6A4A7935BD1E995L;
    long at = start;
    long end = start + length;
    for (; at + 8 <= end; at += 8) {
      h = Long.rotateLeft(h ^ buffer.getLong(at) * 0x87C37B91114253D5L, 31) * 0x4CF5AD432745937FL;
    }
    long tail = 0;
    for (int shift = 0; at < end; at++, shift += 8) {
      tail |= (buffer.getByte(at) & 0xFFL) << shift;
    }
    return fmix(h ^ tail * 0x87C37B91114253D5L);
  }

  /**
   * Whether {@code length} bytes of {@code a} from {@code atA} equal those of {@code b} from
   * {@code atB}; eight at a time, which measured faster than Arrow's {@code ByteFunctionHelpers}
   * for keys of a few bytes (TPC-H Q1's flags).
   */
  static boolean equalBytes(ArrowBuf a, long atA, ArrowBuf b, long atB, long length) {
    long i = 0;
    for (; i + 8 <= length; i += 8) {
      if (a.getLong(atA + i) != b.getLong(atB + i)) {
        return false;
      }
    }
    for (; i < length; i++) {
      if (a.getByte(atA + i) != b.getByte(atB + i)) {
        return false;
      }
    }
    return true;
  }

  static long readWidth(ArrowBuf buffer, long at, int width) {
    switch (width) {
      case 1:
        return buffer.getByte(at);
      case 2:
        return buffer.getShort(at);
      case 4:
        return buffer.getInt(at);
      default:
        return buffer.getLong(at);
    }
  }

  static void writeWidth(ArrowBuf buffer, long at, int width, long value) {
    switch (width) {
      case 1:
        buffer.setByte(at, (byte) value);
        break;
      case 2:
        buffer.setShort(at, (short) value);
        break;
      case 4:
        buffer.setInt(at, (int) value);
        break;
      default:
        buffer.setLong(at, value);
    }
  }

  /** A value of at most 8 bytes, handled as a long: floating point with -0.0 as 0.0 and one NaN. */
  static final class Scalar extends KeyColumn {
    static final int INTEGER = 0;
    static final int FLOAT = 1;
    static final int BIT = 2;

    /** {@link #INTEGER}, {@link #FLOAT} or {@link #BIT}. */
    final int kind;

    Scalar(int width, int kind) {
      super(width);
      this.kind = kind;
    }

    @Override
    boolean fitsLong() {
      return true;
    }

    @Override
    void readLongs(FieldVector vector, int rowCount, long[] values) {
      ArrowBuf data = vector.getDataBuffer();
      if (kind == BIT) {
        for (int r = 0; r < rowCount; r++) {
          values[r] = BitVectorHelper.get(data, r);
        }
      } else if (kind == FLOAT && width == 8) {
        for (int r = 0; r < rowCount; r++) {
          double value = data.getDouble((long) r * 8);
          // doubleToLongBits gives every NaN one pattern; adding 0.0 turns -0.0 into 0.0.
          values[r] = Double.doubleToLongBits(value + 0.0);
        }
      } else if (kind == FLOAT) {
        for (int r = 0; r < rowCount; r++) {
          values[r] = Float.floatToIntBits(data.getFloat((long) r * 4) + 0.0f);
        }
      } else if (width == 4) {
        for (int r = 0; r < rowCount; r++) {
          values[r] = data.getInt((long) r * 4);
        }
      } else if (width == 8) {
        for (int r = 0; r < rowCount; r++) {
          values[r] = data.getLong((long) r * 8);
        }
      } else {
        for (int r = 0; r < rowCount; r++) {
          values[r] = readWidth(data, (long) r * width, width);
        }
      }
    }

    private long value(FieldVector vector, int row) {
      ArrowBuf data = vector.getDataBuffer();
      if (kind == BIT) {
        return BitVectorHelper.get(data, row);
      }
      if (kind == FLOAT) {
        return width == 8
            ? Double.doubleToLongBits(data.getDouble((long) row * 8) + 0.0)
            : Float.floatToIntBits(data.getFloat((long) row * 4) + 0.0f);
      }
      return readWidth(data, (long) row * width, width);
    }

    @Override
    void writeLong(FieldVector out, int index, long value) {
      if (kind == BIT) {
        BitVectorHelper.setValidityBit(out.getDataBuffer(), index, (int) value);
      } else {
        writeWidth(out.getDataBuffer(), (long) index * width, width, value);
      }
      BitVectorHelper.setBit(out.getValidityBuffer(), index);
    }

    @Override
    void hash(FieldVector vector, int rowCount, long[] hashes) {
      ArrowBuf validity = vector.getValidityBuffer();
      boolean nulls = vector.getNullCount() > 0;
      for (int r = 0; r < rowCount; r++) {
        hashes[r] = mix(hashes[r], nulls && isNull(validity, r) ? NULL_HASH : value(vector, r));
      }
    }

    @Override
    boolean equal(FieldVector vector, int row, ArrowBuf rows, long at, VarData var) {
      return value(vector, row) == readWidth(rows, at, width);
    }

    @Override
    void store(FieldVector vector, int row, ArrowBuf rows, long at, VarData var) {
      writeWidth(rows, at, width, value(vector, row));
    }

    @Override
    void copyOut(ArrowBuf rows, long at, VarData var, FieldVector out, int index) {
      writeLong(out, index, readWidth(rows, at, width));
    }
  }

  /** A fixed-size value wider than a long (decimals, fixed-size binary), compared byte by byte. */
  static final class Bytes extends KeyColumn {
    Bytes(int width) {
      super(width);
    }

    @Override
    void hash(FieldVector vector, int rowCount, long[] hashes) {
      ArrowBuf data = vector.getDataBuffer();
      ArrowBuf validity = vector.getValidityBuffer();
      boolean nulls = vector.getNullCount() > 0;
      for (int r = 0; r < rowCount; r++) {
        hashes[r] = mix(hashes[r], nulls && isNull(validity, r) ? NULL_HASH : hashBytes(data, (long) r * width, width));
      }
    }

    @Override
    boolean equal(FieldVector vector, int row, ArrowBuf rows, long at, VarData var) {
      return equalBytes(vector.getDataBuffer(), (long) row * width, rows, at, width);
    }

    @Override
    void store(FieldVector vector, int row, ArrowBuf rows, long at, VarData var) {
      rows.setBytes(at, vector.getDataBuffer(), (long) row * width, width);
    }

    @Override
    void copyOut(ArrowBuf rows, long at, VarData var, FieldVector out, int index) {
      out.getDataBuffer().setBytes((long) index * width, rows, at, width);
      BitVectorHelper.setBit(out.getValidityBuffer(), index);
    }
  }

  /**
   * Variable-width text or binary: the row holds the value's offset in the side buffer (8 bytes)
   * and its length (4 bytes).
   */
  static final class Variable extends KeyColumn {
    /** Whether the offsets are longs (large text and binary). */
    final boolean large;

    Variable(boolean large) {
      super(12);
      this.large = large;
    }

    private long start(FieldVector vector, int row) {
      ArrowBuf offsets = vector.getOffsetBuffer();
      return large ? offsets.getLong((long) row * 8) : offsets.getInt((long) row * 4);
    }

    private long end(FieldVector vector, int row) {
      ArrowBuf offsets = vector.getOffsetBuffer();
      return large ? offsets.getLong((long) (row + 1) * 8) : offsets.getInt((long) (row + 1) * 4);
    }

    @Override
    void hash(FieldVector vector, int rowCount, long[] hashes) {
      ArrowBuf data = vector.getDataBuffer();
      ArrowBuf validity = vector.getValidityBuffer();
      boolean nulls = vector.getNullCount() > 0;
      for (int r = 0; r < rowCount; r++) {
        if (nulls && isNull(validity, r)) {
          hashes[r] = mix(hashes[r], NULL_HASH);
        } else {
          long start = start(vector, r);
          hashes[r] = mix(hashes[r], hashBytes(data, start, end(vector, r) - start));
        }
      }
    }

    @Override
    boolean equal(FieldVector vector, int row, ArrowBuf rows, long at, VarData var) {
      long start = start(vector, row);
      long length = end(vector, row) - start;
      if (length != rows.getInt(at + 8)) {
        return false;
      }
      return equalBytes(vector.getDataBuffer(), start, var.buffer(), rows.getLong(at), length);
    }

    @Override
    void store(FieldVector vector, int row, ArrowBuf rows, long at, VarData var) {
      long start = start(vector, row);
      int length = Math.toIntExact(end(vector, row) - start);
      rows.setLong(at, var.append(vector.getDataBuffer(), start, length));
      rows.setInt(at + 8, length);
    }

    @Override
    void copyOut(ArrowBuf rows, long at, VarData var, FieldVector out, int index) {
      long offset = rows.getLong(at);
      int length = rows.getInt(at + 8);
      if (out instanceof BaseLargeVariableWidthVector large) {
        large.setSafe(index, 1, offset, offset + length, var.buffer());
      } else {
        ((BaseVariableWidthVector) out).setSafe(index, 1, Math.toIntExact(offset), Math.toIntExact(offset + length), var.buffer());
      }
    }

    @Override
    void writeNull(FieldVector out, int index) {
      if (out instanceof BaseLargeVariableWidthVector large) {
        large.setNull(index);
      } else {
        ((BaseVariableWidthVector) out).setNull(index);
      }
    }

    @Override
    void reserve(FieldVector out, int count) {
      // setSafe makes room for each value as it is written.
    }
  }
}
