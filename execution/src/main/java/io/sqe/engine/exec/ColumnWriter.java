package io.sqe.engine.exec;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.calcite.avatica.util.ByteString;

/**
 * Writes engine run-time values into one Arrow vector: dates as days, times from milliseconds to
 * microseconds, timestamps as the microseconds they already are, decimals rescaled to the column's scale, structs from
 * {@code Object[]}, lists from {@link List}, maps from {@link Map}.
 */
public abstract class ColumnWriter {
  final FieldVector vector;

  ColumnWriter(FieldVector vector) {
    this.vector = vector;
  }

  /** Writes {@code value} (possibly null) at {@code index}. */
  public final void write(int index, Object value) {
    if (value == null) {
      vector.setNull(index);
    } else {
      writeValue(index, value);
    }
  }

  abstract void writeValue(int index, Object value);

  public static ColumnWriter create(FieldVector vector) {
    if (vector instanceof BitVector) {
      BitVector v = (BitVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Boolean) o) ? 1 : 0));
    }
    if (vector instanceof TinyIntVector) {
      TinyIntVector v = (TinyIntVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).byteValue()));
    }
    if (vector instanceof SmallIntVector) {
      SmallIntVector v = (SmallIntVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).shortValue()));
    }
    if (vector instanceof IntVector) {
      IntVector v = (IntVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).intValue()));
    }
    if (vector instanceof BigIntVector) {
      BigIntVector v = (BigIntVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).longValue()));
    }
    if (vector instanceof Float4Vector) {
      Float4Vector v = (Float4Vector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).floatValue()));
    }
    if (vector instanceof Float8Vector) {
      Float8Vector v = (Float8Vector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).doubleValue()));
    }
    if (vector instanceof DecimalVector) {
      DecimalVector v = (DecimalVector) vector;
      int scale = v.getScale();
      int precision = v.getPrecision();
      return lambda(vector, (i, o) -> v.setSafe(i, decimal(o, precision, scale, v.getName())));
    }
    if (vector instanceof DateDayVector) {
      DateDayVector v = (DateDayVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).intValue()));
    }
    if (vector instanceof TimeMicroVector) {
      TimeMicroVector v = (TimeMicroVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).longValue() * 1000L));
    }
    if (vector instanceof TimeStampMicroTZVector) {
      TimeStampMicroTZVector v = (TimeStampMicroTZVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).longValue()));
    }
    if (vector instanceof TimeStampMicroVector) {
      TimeStampMicroVector v = (TimeStampMicroVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).longValue()));
    }
    if (vector instanceof IntervalYearVector) {
      IntervalYearVector v = (IntervalYearVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, ((Number) o).intValue()));
    }
    if (vector instanceof IntervalDayVector) {
      IntervalDayVector v = (IntervalDayVector) vector;
      return lambda(vector, (i, o) -> {
        long millis = ((Number) o).longValue();
        v.setSafe(i, (int) Math.floorDiv(millis, 86_400_000L), (int) Math.floorMod(millis, 86_400_000L));
      });
    }
    if (vector instanceof VarCharVector) {
      VarCharVector v = (VarCharVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, o.toString().getBytes(StandardCharsets.UTF_8)));
    }
    if (vector instanceof VarBinaryVector) {
      VarBinaryVector v = (VarBinaryVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, bytes(o)));
    }
    if (vector instanceof FixedSizeBinaryVector) {
      FixedSizeBinaryVector v = (FixedSizeBinaryVector) vector;
      return lambda(vector, (i, o) -> v.setSafe(i, fixed(o, v.getByteWidth(), v.getName())));
    }
    if (vector instanceof NullVector) {
      return lambda(vector, (i, o) -> { });
    }
    if (vector instanceof MapVector) {
      return new MapWriter((MapVector) vector);
    }
    if (vector instanceof ListVector) {
      return new ListWriter((ListVector) vector);
    }
    if (vector instanceof StructVector) {
      return new StructWriter((StructVector) vector);
    }
    throw new SqeException(ErrorCode.NOT_SUPPORTED, "Cannot return values of type " + vector.getField().getType());
  }

  private static BigDecimal decimal(Object o, int precision, int scale, String column) {
    BigDecimal value = o instanceof BigDecimal ? (BigDecimal) o : new BigDecimal(o.toString());
    BigDecimal scaled = value.setScale(scale, RoundingMode.HALF_UP);
    if (scaled.precision() > precision) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "Value " + value.toPlainString() + " of column " + column + " does not fit DECIMAL(" + precision + ", " + scale + ")");
    }
    return scaled;
  }

  private static byte[] bytes(Object o) {
    if (o instanceof ByteString) {
      return ((ByteString) o).getBytes();
    }
    if (o instanceof byte[]) {
      return (byte[]) o;
    }
    if (o instanceof UUID) {
      UUID u = (UUID) o;
      return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    }
    return o.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] fixed(Object o, int width, String column) {
    byte[] b = bytes(o);
    if (b.length == width) {
      return b;
    }
    if (b.length < width) {
      byte[] padded = new byte[width];
      System.arraycopy(b, 0, padded, 0, b.length);
      return padded;
    }
    throw new SqeException(
        ErrorCode.INVALID_ARGUMENT, "Value of column " + column + " is longer than " + width + " bytes");
  }

  private interface ValueSetter {
    void set(int index, Object value);
  }

  private static ColumnWriter lambda(FieldVector vector, ValueSetter setter) {
    return new ColumnWriter(vector) {
      @Override
      void writeValue(int index, Object value) {
        setter.set(index, value);
      }
    };
  }

  private static final class StructWriter extends ColumnWriter {
    private final StructVector struct;
    private final ColumnWriter[] children;

    StructWriter(StructVector struct) {
      super(struct);
      this.struct = struct;
      List<FieldVector> vectors = struct.getChildrenFromFields();
      this.children = new ColumnWriter[vectors.size()];
      for (int i = 0; i < children.length; i++) {
        children[i] = create(vectors.get(i));
      }
    }

    @Override
    void writeValue(int index, Object value) {
      struct.setIndexDefined(index);
      for (int i = 0; i < children.length; i++) {
        children[i].write(index, field(value, i));
      }
    }

    private static Object field(Object struct, int i) {
      if (struct instanceof Object[]) {
        return ((Object[]) struct)[i];
      }
      if (struct instanceof List) {
        return ((List<?>) struct).get(i);
      }
      throw new SqeException(ErrorCode.INTERNAL, "Unexpected struct value " + struct.getClass().getName());
    }
  }

  private static class ListWriter extends ColumnWriter {
    private final ListVector list;
    private final ColumnWriter element;

    ListWriter(ListVector list) {
      super(list);
      this.list = list;
      this.element = create(list.getDataVector());
    }

    @Override
    void writeValue(int index, Object value) {
      List<?> values = (List<?>) value;
      int start = list.startNewValue(index);
      for (int i = 0; i < values.size(); i++) {
        element.write(start + i, values.get(i));
      }
      list.endValue(index, values.size());
    }
  }

  private static final class MapWriter extends ColumnWriter {
    private final MapVector map;
    private final StructVector entries;
    private final ColumnWriter key;
    private final ColumnWriter value;

    MapWriter(MapVector map) {
      super(map);
      this.map = map;
      this.entries = (StructVector) map.getDataVector();
      List<FieldVector> children = entries.getChildrenFromFields();
      this.key = create(children.get(0));
      this.value = create(children.get(1));
    }

    @Override
    void writeValue(int index, Object o) {
      Map<?, ?> values = (Map<?, ?>) o;
      int start = map.startNewValue(index);
      int i = 0;
      for (Map.Entry<?, ?> e : values.entrySet()) {
        entries.setIndexDefined(start + i);
        key.write(start + i, e.getKey());
        value.write(start + i, e.getValue());
        i++;
      }
      map.endValue(index, values.size());
    }
  }
}
