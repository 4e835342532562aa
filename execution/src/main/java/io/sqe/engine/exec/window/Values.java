package io.sqe.engine.exec.window;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** Typed reads and writes of single values of the columns window functions sum and return. */
final class Values {
  private Values() {}

  /** The integer at {@code row} of an integer column. */
  static long getLong(FieldVector vector, int row) {
    if (vector instanceof BigIntVector v) {
      return v.get(row);
    }
    if (vector instanceof IntVector v) {
      return v.get(row);
    }
    if (vector instanceof SmallIntVector v) {
      return v.get(row);
    }
    if (vector instanceof TinyIntVector v) {
      return v.get(row);
    }
    throw new IllegalArgumentException("Not an integer column: " + vector.getField());
  }

  static double getDouble(FieldVector vector, int row) {
    if (vector instanceof Float8Vector v) {
      return v.get(row);
    }
    if (vector instanceof Float4Vector v) {
      return v.get(row);
    }
    throw new IllegalArgumentException("Not a floating-point column: " + vector.getField());
  }

  static void setLong(FieldVector vector, int row, long value) {
    if (vector instanceof BigIntVector v) {
      v.setSafe(row, value);
    } else if (vector instanceof IntVector v) {
      v.setSafe(row, Math.toIntExact(value));
    } else if (vector instanceof SmallIntVector v) {
      v.setSafe(row, (short) value);
    } else if (vector instanceof TinyIntVector v) {
      v.setSafe(row, (byte) value);
    } else {
      throw new IllegalArgumentException("Not an integer column: " + vector.getField());
    }
  }

  static void setDouble(FieldVector vector, int row, double value) {
    if (vector instanceof Float8Vector v) {
      v.setSafe(row, value);
    } else if (vector instanceof Float4Vector v) {
      v.setSafe(row, (float) value);
    } else {
      throw new IllegalArgumentException("Not a floating-point column: " + vector.getField());
    }
  }

  static void setDecimal(FieldVector vector, int row, BigDecimal value) {
    DecimalVector decimal = (DecimalVector) vector;
    decimal.setSafe(row, value.setScale(decimal.getScale(), RoundingMode.UNNECESSARY));
  }

  /** Whether {@link #set} writes {@code value} (a constant in the engine's representation) to a column of {@code field}. */
  static boolean writes(Field field, Object value) {
    if (value == null) {
      return true;
    }
    ArrowType type = field.getType();
    return switch (type.getTypeID()) {
      case Int -> value instanceof Long;
      case FloatingPoint -> value instanceof Double;
      case Decimal -> value instanceof BigDecimal decimal && decimal.scale() <= ((ArrowType.Decimal) type).getScale();
      case Utf8 -> value instanceof String;
      case Bool -> value instanceof Boolean;
      case Date -> value instanceof Integer && ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY;
      default -> false;
    };
  }

  /** Writes a constant {@link #writes} accepts; null sets a null. */
  static void set(FieldVector vector, int row, Object value) {
    if (value == null) {
      vector.setNull(row);
    } else if (value instanceof Long v) {
      setLong(vector, row, v);
    } else if (value instanceof Double v) {
      setDouble(vector, row, v);
    } else if (value instanceof BigDecimal v) {
      setDecimal(vector, row, v);
    } else if (value instanceof String v) {
      ((VarCharVector) vector).setSafe(row, v.getBytes(StandardCharsets.UTF_8));
    } else if (value instanceof Boolean v) {
      ((BitVector) vector).setSafe(row, v ? 1 : 0);
    } else {
      ((DateDayVector) vector).setSafe(row, (Integer) value);
    }
  }
}
