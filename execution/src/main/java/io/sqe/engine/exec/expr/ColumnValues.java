package io.sqe.engine.exec.expr;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;

/**
 * Typed reads of a column's values straight from its Arrow buffers, in the three forms the
 * evaluator compares: longs (integers, dates, times and timestamps, and decimals of up to 18
 * digits as their unscaled values), doubles, and bytes (text as UTF-8, whose byte order is the
 * order of its code points).
 */
final class ColumnValues {
  private ColumnValues() {}

  /** A column's values as longs. */
  interface Longs {
    long get(int row);
  }

  /** A column's values as doubles. */
  interface Doubles {
    double get(int row);
  }

  static Longs longs(FieldVector vector) {
    ArrowBuf data = vector.getDataBuffer();
    if (vector instanceof IntVector || vector instanceof DateDayVector) {
      return row -> data.getInt((long) row * 4);
    }
    if (vector instanceof BigIntVector || vector instanceof TimeStampVector || vector instanceof TimeMicroVector) {
      return row -> data.getLong((long) row * 8);
    }
    if (vector instanceof DecimalVector) {
      // Little-endian 128 bits whose value fits the low 64 for 18 digits or fewer.
      return row -> data.getLong((long) row * 16);
    }
    if (vector instanceof SmallIntVector) {
      return row -> data.getShort((long) row * 2);
    }
    if (vector instanceof TinyIntVector) {
      return row -> data.getByte(row);
    }
    throw new IllegalArgumentException("Not a column of longs: " + vector.getField());
  }

  /**
   * Whether any of the first {@code rows} values of {@code vector} is NULL: its validity read 64
   * rows at a time, where Arrow's null count reads it a byte at a time and counts every bit.
   */
  static boolean anyNull(FieldVector vector, int rows) {
    if (!(vector instanceof BaseFixedWidthVector) && !(vector instanceof BaseVariableWidthVector)) {
      return vector.getNullCount() > 0;
    }
    ArrowBuf validity = vector.getValidityBuffer();
    int words = rows >>> 6;
    for (int w = 0; w < words; w++) {
      if (validity.getLong((long) w * 8) != -1L) {
        return true;
      }
    }
    for (int r = words << 6; r < rows; r++) {
      if (vector.isNull(r)) {
        return true;
      }
    }
    return false;
  }

  static Doubles doubles(FieldVector vector) {
    ArrowBuf data = vector.getDataBuffer();
    if (vector instanceof Float8Vector) {
      return row -> data.getDouble((long) row * 8);
    }
    if (vector instanceof Float4Vector) {
      return row -> data.getFloat((long) row * 4);
    }
    throw new IllegalArgumentException("Not a column of doubles: " + vector.getField());
  }


  /** How the values at {@code row} of two text or binary columns compare, by unsigned bytes. */
  static int compareBytes(BaseVariableWidthVector left, BaseVariableWidthVector right, int row) {
    ArrowBuf leftOffsets = left.getOffsetBuffer();
    ArrowBuf rightOffsets = right.getOffsetBuffer();
    return ByteFunctionHelpers.compare(
        left.getDataBuffer(),
        leftOffsets.getInt((long) row * 4),
        leftOffsets.getInt((long) (row + 1) * 4),
        right.getDataBuffer(),
        rightOffsets.getInt((long) row * 4),
        rightOffsets.getInt((long) (row + 1) * 4));
  }
}
