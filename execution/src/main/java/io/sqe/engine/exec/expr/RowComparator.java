package io.sqe.engine.exec.expr;

import java.math.BigDecimal;
import java.util.List;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
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
 * Compares rows of record batches by sort keys, as ORDER BY orders them: each key ascending or
 * descending, its nulls first or last. Numbers, dates and times compare by value (doubles as
 * {@link Double#compare} does, as the row runtime's sort), text and binary by unsigned bytes (text
 * is UTF-8, so by code point), booleans false first.
 */
public final class RowComparator {
  /** One sort key: a column, its direction and where its nulls go. */
  public record Key(int column, boolean descending, boolean nullsFirst) {}

  private final List<Key> keys;

  public RowComparator(List<Key> keys) {
    this.keys = List.copyOf(keys);
  }

  public List<Key> keys() {
    return keys;
  }

  /** Whether every key's column is of a type this comparator orders. */
  public static boolean orders(FieldVector vector) {
    return vector instanceof BigIntVector
        || vector instanceof IntVector
        || vector instanceof SmallIntVector
        || vector instanceof TinyIntVector
        || vector instanceof DateDayVector
        || vector instanceof TimeStampVector
        || vector instanceof TimeMicroVector
        || vector instanceof DecimalVector
        || vector instanceof Float8Vector
        || vector instanceof Float4Vector
        || vector instanceof BaseVariableWidthVector
        || vector instanceof BitVector;
  }

  /** How row {@code i} of {@code a} sorts against row {@code j} of {@code b}, which have the same columns. */
  public int compare(List<FieldVector> a, int i, List<FieldVector> b, int j) {
    for (Key key : keys) {
      FieldVector x = a.get(key.column());
      FieldVector y = b.get(key.column());
      boolean xNull = x.isNull(i);
      boolean yNull = y.isNull(j);
      int order;
      if (xNull || yNull) {
        if (xNull && yNull) {
          continue;
        }
        // Where nulls go does not turn with the direction.
        return xNull == key.nullsFirst() ? -1 : 1;
      }
      order = compareValues(x, i, y, j);
      if (order != 0) {
        return key.descending() ? -order : order;
      }
    }
    return 0;
  }

  private static int compareValues(FieldVector x, int i, FieldVector y, int j) {
    if (x instanceof Float8Vector || x instanceof Float4Vector) {
      return Double.compare(ColumnValues.doubles(x).get(i), ColumnValues.doubles(y).get(j));
    }
    if (x instanceof BaseVariableWidthVector left) {
      return compareBytes(left, i, (BaseVariableWidthVector) y, j);
    }
    if (x instanceof BitVector left) {
      return Integer.compare(left.get(i), ((BitVector) y).get(j));
    }
    if (x instanceof DecimalVector left && left.getPrecision() > 18) {
      BigDecimal u = left.getObject(i);
      BigDecimal v = ((DecimalVector) y).getObject(j);
      return u.compareTo(v);
    }
    return Long.compare(ColumnValues.longs(x).get(i), ColumnValues.longs(y).get(j));
  }

  private static int compareBytes(BaseVariableWidthVector x, int i, BaseVariableWidthVector y, int j) {
    long xStart = x.getStartOffset(i);
    long yStart = y.getStartOffset(j);
    return org.apache.arrow.memory.util.ByteFunctionHelpers.compare(
        x.getDataBuffer(), (int) xStart, (int) (xStart + x.getValueLength(i)),
        y.getDataBuffer(), (int) yStart, (int) (yStart + y.getValueLength(j)));
  }
}
