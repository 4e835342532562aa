package io.sqe.engine.exec.expr;

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
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.calcite.avatica.util.ByteString;

/**
 * A column's values as the row runtime holds them (what its scans produce and Calcite's generated
 * code reads): booleans, integers of their width, floats and doubles boxed, decimals as {@code
 * BigDecimal} of the column's scale, dates as {@code Integer} days, timestamps as {@code Long}
 * microseconds, text as {@code String}, binary values as {@code ByteString}; null for SQL's null.
 */
final class RowValues {
  private RowValues() {}

  /** Reads one row's value of a column. */
  interface Reader {
    Object get(int row);
  }

  /** Whether {@link #reader} reads columns of this Arrow type. */
  static boolean readable(ArrowType type) {
    return switch (type.getTypeID()) {
      case Bool, Int, Decimal, Date, Utf8, Binary -> true;
      case FloatingPoint -> ((ArrowType.FloatingPoint) type).getPrecision() != org.apache.arrow.vector.types.FloatingPointPrecision.HALF;
      case Timestamp -> ((ArrowType.Timestamp) type).getUnit() == org.apache.arrow.vector.types.TimeUnit.MICROSECOND;
      default -> false;
    };
  }

  static Reader reader(FieldVector vector) {
    if (vector instanceof BitVector v) {
      return row -> v.isNull(row) ? null : v.get(row) != 0;
    }
    if (vector instanceof TinyIntVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof SmallIntVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof IntVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof BigIntVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof Float4Vector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof Float8Vector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof DecimalVector v) {
      return v::getObject;
    }
    if (vector instanceof DateDayVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof TimeStampMicroVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof TimeStampMicroTZVector v) {
      return row -> v.isNull(row) ? null : v.get(row);
    }
    if (vector instanceof VarCharVector v) {
      return row -> v.isNull(row) ? null : new String(v.get(row), StandardCharsets.UTF_8);
    }
    if (vector instanceof VarBinaryVector v) {
      return row -> v.isNull(row) ? null : new ByteString(v.get(row));
    }
    throw new IllegalArgumentException("No row values for a column of " + vector.getField().getType());
  }
}
