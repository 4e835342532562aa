package io.sqe.write.ingest;

import io.sqe.catalog.types.ArrowTypeMapping;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ViewVarBinaryVector;
import org.apache.arrow.vector.ViewVarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads the values of Arrow vectors as the values Iceberg's generic writers take for a column of
 * a given type. An Arrow type stores into the Iceberg type {@link ArrowTypeMapping#toIceberg}
 * gives it, and into wider ones: smaller integers into int and long, float into double, a
 * decimal into one of the same scale and at least its precision.
 */
public final class ArrowValues {
  private ArrowValues() {}

  /** Reads one row's value of a vector. */
  @FunctionalInterface
  public interface Reader {
    /** The value at {@code row}, or null. */
    Object read(int row);
  }

  /**
   * A reader of {@code vector}'s values for a column of type {@code type}.
   *
   * @param column the column's name, for messages
   */
  public static Reader reader(FieldVector vector, Type type, String column) {
    Reader values = values(vector, type, column);
    return row -> vector.isNull(row) ? null : values.read(row);
  }

  private static Reader values(FieldVector vector, Type type, String column) {
    switch (type.typeId()) {
      case BOOLEAN:
        if (vector instanceof BitVector) {
          BitVector bits = (BitVector) vector;
          return row -> bits.get(row) != 0;
        }
        break;
      case INTEGER:
        if (vector instanceof BaseIntVector && integerBits(vector) <= 32 && !isUInt32(vector)) {
          BaseIntVector ints = (BaseIntVector) vector;
          return row -> (int) ints.getValueAsLong(row);
        }
        break;
      case LONG:
        if (vector instanceof BaseIntVector && !(vector instanceof UInt8Vector)) {
          BaseIntVector ints = (BaseIntVector) vector;
          return ints::getValueAsLong;
        }
        break;
      case FLOAT:
        if (vector instanceof FloatingPointVector && floatBits(vector) <= 32) {
          FloatingPointVector floats = (FloatingPointVector) vector;
          return row -> (float) floats.getValueAsDouble(row);
        }
        break;
      case DOUBLE:
        if (vector instanceof FloatingPointVector) {
          FloatingPointVector floats = (FloatingPointVector) vector;
          return floats::getValueAsDouble;
        }
        break;
      case DECIMAL:
        return decimals(vector, (Types.DecimalType) type, column);
      case DATE:
        if (vector instanceof DateDayVector) {
          DateDayVector days = (DateDayVector) vector;
          return row -> LocalDate.ofEpochDay(days.get(row));
        }
        if (vector instanceof DateMilliVector) {
          DateMilliVector millis = (DateMilliVector) vector;
          return row -> LocalDate.ofEpochDay(Math.floorDiv(millis.get(row), 86_400_000L));
        }
        break;
      case TIME:
        return times(vector, column, type);
      case TIMESTAMP:
        if (vector instanceof TimeStampVector) {
          TimeStampVector stamps = (TimeStampVector) vector;
          TimeUnit unit = ((ArrowType.Timestamp) vector.getField().getType()).getUnit();
          if (((Types.TimestampType) type).shouldAdjustToUTC()) {
            return row -> OffsetDateTime.of(epochMicros(stamps.get(row), unit), ZoneOffset.UTC);
          }
          return row -> epochMicros(stamps.get(row), unit);
        }
        break;
      case TIMESTAMP_NANO:
        if (vector instanceof TimeStampVector) {
          TimeStampVector stamps = (TimeStampVector) vector;
          TimeUnit unit = ((ArrowType.Timestamp) vector.getField().getType()).getUnit();
          if (((Types.TimestampNanoType) type).shouldAdjustToUTC()) {
            return row -> OffsetDateTime.of(epochNanos(stamps.get(row), unit), ZoneOffset.UTC);
          }
          return row -> epochNanos(stamps.get(row), unit);
        }
        break;
      case STRING:
        if (vector instanceof VarCharVector || vector instanceof LargeVarCharVector || vector instanceof ViewVarCharVector) {
          return row -> vector.getObject(row).toString();
        }
        break;
      case BINARY:
        if (vector instanceof VarBinaryVector || vector instanceof LargeVarBinaryVector || vector instanceof ViewVarBinaryVector
            || vector instanceof FixedSizeBinaryVector) {
          return row -> ByteBuffer.wrap((byte[]) vector.getObject(row));
        }
        break;
      case FIXED:
        if (vector instanceof FixedSizeBinaryVector
            && ((FixedSizeBinaryVector) vector).getByteWidth() == ((Types.FixedType) type).length()) {
          FixedSizeBinaryVector fixed = (FixedSizeBinaryVector) vector;
          return fixed::get;
        }
        break;
      case UUID:
        if (vector instanceof FixedSizeBinaryVector && ((FixedSizeBinaryVector) vector).getByteWidth() == 16) {
          FixedSizeBinaryVector fixed = (FixedSizeBinaryVector) vector;
          return row -> {
            ByteBuffer bytes = ByteBuffer.wrap(fixed.get(row));
            return new UUID(bytes.getLong(), bytes.getLong());
          };
        }
        break;
      case STRUCT:
        if (vector instanceof StructVector) {
          return structs((StructVector) vector, type.asStructType(), column);
        }
        break;
      case LIST:
        return lists(vector, type.asListType(), column);
      case MAP:
        if (vector instanceof MapVector) {
          return maps((MapVector) vector, type.asMapType(), column);
        }
        break;
      default:
        break;
    }
    throw mismatch(vector, type, column);
  }

  private static SqeException mismatch(FieldVector vector, Type type, String column) {
    return new SqeException(
        ErrorCode.INVALID_ARGUMENT,
        "Column " + column + " is " + type + " but the data has Arrow type " + vector.getField().getType() + ", which does not store into it");
  }

  private static int integerBits(FieldVector vector) {
    return ((ArrowType.Int) vector.getField().getType()).getBitWidth();
  }

  private static boolean isUInt32(FieldVector vector) {
    ArrowType.Int type = (ArrowType.Int) vector.getField().getType();
    return type.getBitWidth() == 32 && !type.getIsSigned();
  }

  private static int floatBits(FieldVector vector) {
    switch (((ArrowType.FloatingPoint) vector.getField().getType()).getPrecision()) {
      case HALF:
        return 16;
      case SINGLE:
        return 32;
      default:
        return 64;
    }
  }

  private static Reader decimals(FieldVector vector, Types.DecimalType type, String column) {
    if (!(vector instanceof DecimalVector || vector instanceof Decimal256Vector)) {
      throw mismatch(vector, type, column);
    }
    ArrowType.Decimal decimal = (ArrowType.Decimal) vector.getField().getType();
    if (decimal.getScale() != type.scale() || decimal.getPrecision() - decimal.getScale() > type.precision() - type.scale()) {
      throw mismatch(vector, type, column);
    }
    return row -> {
      BigDecimal value = (BigDecimal) vector.getObject(row);
      if (value.precision() > type.precision()) {
        throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Value " + value + " of column " + column + " does not fit " + type);
      }
      return value.setScale(type.scale(), RoundingMode.UNNECESSARY);
    };
  }

  private static Reader times(FieldVector vector, String column, Type type) {
    if (vector instanceof TimeSecVector) {
      TimeSecVector v = (TimeSecVector) vector;
      return row -> LocalTime.ofSecondOfDay(v.get(row));
    }
    if (vector instanceof TimeMilliVector) {
      TimeMilliVector v = (TimeMilliVector) vector;
      return row -> LocalTime.ofNanoOfDay(v.get(row) * 1_000_000L);
    }
    if (vector instanceof TimeMicroVector) {
      TimeMicroVector v = (TimeMicroVector) vector;
      return row -> LocalTime.ofNanoOfDay(v.get(row) * 1_000L);
    }
    if (vector instanceof TimeNanoVector) {
      // Iceberg keeps times in microseconds.
      TimeNanoVector v = (TimeNanoVector) vector;
      return row -> LocalTime.ofNanoOfDay(v.get(row)).truncatedTo(ChronoUnit.MICROS);
    }
    throw mismatch(vector, type, column);
  }

  /** A timestamp value as a date-time in UTC, to the microsecond Iceberg keeps. */
  private static LocalDateTime epochMicros(long value, TimeUnit unit) {
    switch (unit) {
      case SECOND:
        return LocalDateTime.ofEpochSecond(value, 0, ZoneOffset.UTC);
      case MILLISECOND:
        return LocalDateTime.ofEpochSecond(Math.floorDiv(value, 1_000L), (int) Math.floorMod(value, 1_000L) * 1_000_000, ZoneOffset.UTC);
      case MICROSECOND:
        return LocalDateTime.ofEpochSecond(Math.floorDiv(value, 1_000_000L), (int) Math.floorMod(value, 1_000_000L) * 1_000, ZoneOffset.UTC);
      default:
        return epochNanos(value, unit).truncatedTo(ChronoUnit.MICROS);
    }
  }

  private static LocalDateTime epochNanos(long value, TimeUnit unit) {
    if (unit != TimeUnit.NANOSECOND) {
      return epochMicros(value, unit);
    }
    return LocalDateTime.ofEpochSecond(Math.floorDiv(value, 1_000_000_000L), (int) Math.floorMod(value, 1_000_000_000L), ZoneOffset.UTC);
  }

  private static Reader structs(StructVector vector, Types.StructType type, String column) {
    List<Types.NestedField> fields = type.fields();
    Reader[] children = new Reader[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField field = fields.get(i);
      FieldVector child = childNamed(vector, field.name());
      String name = column + "." + field.name();
      if (child == null) {
        if (field.isRequired()) {
          throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Field " + name + " is required but the data has no such field");
        }
        children[i] = row -> null;
      } else {
        children[i] = reader(child, field.type(), name);
      }
    }
    return row -> {
      Record record = GenericRecord.create(type);
      for (int i = 0; i < children.length; i++) {
        record.set(i, children[i].read(row));
      }
      return record;
    };
  }

  private static FieldVector childNamed(StructVector vector, String name) {
    FieldVector exact = (FieldVector) vector.getChild(name);
    if (exact != null) {
      return exact;
    }
    for (FieldVector child : vector.getChildrenFromFields()) {
      if (child.getName().equalsIgnoreCase(name)) {
        return child;
      }
    }
    return null;
  }

  private static Reader lists(FieldVector vector, Types.ListType type, String column) {
    if (vector instanceof MapVector) {
      throw mismatch(vector, type, column);
    }
    FieldVector data;
    Bounds bounds;
    if (vector instanceof ListVector) {
      ListVector list = (ListVector) vector;
      data = list.getDataVector();
      bounds = row -> new int[] {list.getElementStartIndex(row), list.getElementEndIndex(row)};
    } else if (vector instanceof LargeListVector) {
      LargeListVector list = (LargeListVector) vector;
      data = list.getDataVector();
      bounds = row -> new int[] {Math.toIntExact(list.getElementStartIndex(row)), Math.toIntExact(list.getElementEndIndex(row))};
    } else if (vector instanceof FixedSizeListVector) {
      FixedSizeListVector list = (FixedSizeListVector) vector;
      data = list.getDataVector();
      int size = list.getListSize();
      bounds = row -> new int[] {row * size, row * size + size};
    } else {
      throw mismatch(vector, type, column);
    }
    Reader elements = reader(data, type.elementType(), column + "[]");
    return row -> {
      int[] range = bounds.of(row);
      List<Object> values = new ArrayList<>(range[1] - range[0]);
      for (int i = range[0]; i < range[1]; i++) {
        values.add(elements.read(i));
      }
      return values;
    };
  }

  private static Reader maps(MapVector vector, Types.MapType type, String column) {
    StructVector entries = (StructVector) vector.getDataVector();
    List<FieldVector> parts = entries.getChildrenFromFields();
    if (parts.size() != 2) {
      throw mismatch(vector, type, column);
    }
    Reader keys = reader(parts.get(0), type.keyType(), column + ".key");
    Reader values = reader(parts.get(1), type.valueType(), column + ".value");
    return row -> {
      Map<Object, Object> map = new LinkedHashMap<>();
      for (int i = vector.getElementStartIndex(row); i < vector.getElementEndIndex(row); i++) {
        map.put(keys.read(i), values.read(i));
      }
      return map;
    };
  }

  /** Where a list's elements are in its data vector. */
  @FunctionalInterface
  private interface Bounds {
    int[] of(int row);
  }
}
