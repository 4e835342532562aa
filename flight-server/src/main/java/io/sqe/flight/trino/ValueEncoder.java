package io.sqe.flight.trino;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sqe.catalog.types.ArrowTypeMapping;
import io.sqe.catalog.types.TrinoType;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.vector.BaseVariableWidthVector;
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
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Writes one column's values as Trino's JSON encoding has them: numbers as JSON numbers (a
 * double's NaN and infinities as the strings {@code "NaN"}, {@code "Infinity"}, {@code
 * "-Infinity"}), decimals as strings, dates, times and timestamps as text ({@code 2024-01-31},
 * {@code 12:34:56.123456}, {@code 2024-01-31 12:34:56.123456}, with {@code " UTC"} after a
 * timestamp with time zone), binary as Base64, arrays as JSON arrays, maps as JSON objects keyed
 * by the key's text, rows as JSON arrays of their fields.
 */
abstract class ValueEncoder {
  /** Writes the value at {@code index}, which is not null. */
  abstract void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException;

  /** The value as the text of a JSON object key (a map's key). */
  String text(FieldVector vector, int index) {
    Object value = vector.getObject(index);
    return String.valueOf(value);
  }

  final void write(JsonGenerator json, FieldVector vector, int index) throws IOException {
    if (vector.isNull(index)) {
      json.writeNull();
    } else {
      writeValue(json, vector, index);
    }
  }

  /** The encoder of an SQE result column. */
  static ValueEncoder of(Field field) {
    ArrowType type = field.getType();
    if (ArrowTypeMapping.UUID_EXTENSION.equals(field.getMetadata().get(ArrowTypeMapping.EXTENSION_NAME))) {
      return new UuidEncoder();
    }
    switch (type.getTypeID()) {
      case Null:
        return new NullEncoder();
      case Bool:
        return new BooleanEncoder();
      case Int:
        return new IntegerEncoder();
      case FloatingPoint:
        return new FloatingPointEncoder();
      case Decimal:
        return new DecimalEncoder();
      case Utf8:
        return new VarcharEncoder();
      case Binary:
      case LargeBinary:
      case FixedSizeBinary:
        return new BinaryEncoder();
      case Date:
        return new DateEncoder();
      case Time:
        return new TimeEncoder();
      case Timestamp:
        return new TimestampEncoder((ArrowType.Timestamp) type);
      case Interval:
        return new IntervalEncoder();
      case List:
        return new ArrayEncoder(of(field.getChildren().get(0)));
      case Map: {
        List<Field> entry = field.getChildren().get(0).getChildren();
        return new MapEncoder(of(entry.get(0)), of(entry.get(1)));
      }
      case Struct: {
        List<ValueEncoder> fields = new ArrayList<>();
        for (Field child : field.getChildren()) {
          fields.add(of(child));
        }
        return new RowEncoder(fields);
      }
      default:
        return new TextEncoder();
    }
  }

  private static final class NullEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeNull();
    }
  }

  private static final class BooleanEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeBoolean(((BitVector) vector).get(index) != 0);
    }
  }

  private static final class IntegerEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeNumber(value(vector, index));
    }

    @Override
    String text(FieldVector vector, int index) {
      return Long.toString(value(vector, index));
    }

    private static long value(FieldVector vector, int index) {
      if (vector instanceof BigIntVector) {
        return ((BigIntVector) vector).get(index);
      }
      if (vector instanceof IntVector) {
        return ((IntVector) vector).get(index);
      }
      if (vector instanceof SmallIntVector) {
        return ((SmallIntVector) vector).get(index);
      }
      if (vector instanceof TinyIntVector) {
        return ((TinyIntVector) vector).get(index);
      }
      return ((Number) vector.getObject(index)).longValue();
    }
  }

  private static final class FloatingPointEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      if (vector instanceof Float4Vector) {
        float value = ((Float4Vector) vector).get(index);
        if (Float.isFinite(value)) {
          json.writeNumber(value);
        } else {
          json.writeString(Float.toString(value));
        }
        return;
      }
      double value = ((Float8Vector) vector).get(index);
      if (Double.isFinite(value)) {
        json.writeNumber(value);
      } else {
        json.writeString(Double.toString(value));
      }
    }

    @Override
    String text(FieldVector vector, int index) {
      return vector instanceof Float4Vector
          ? Float.toString(((Float4Vector) vector).get(index))
          : Double.toString(((Float8Vector) vector).get(index));
    }
  }

  private static final class DecimalEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeString(text(vector, index));
    }

    @Override
    String text(FieldVector vector, int index) {
      BigDecimal value = ((DecimalVector) vector).getObject(index);
      return value.toPlainString();
    }
  }

  private static final class VarcharEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      byte[] utf8 = ((VarCharVector) vector).get(index);
      json.writeUTF8String(utf8, 0, utf8.length);
    }

    @Override
    String text(FieldVector vector, int index) {
      return new String(((VarCharVector) vector).get(index), StandardCharsets.UTF_8);
    }
  }

  private static final class BinaryEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeString(text(vector, index));
    }

    @Override
    String text(FieldVector vector, int index) {
      byte[] bytes = vector instanceof BaseVariableWidthVector
          ? ((BaseVariableWidthVector) vector).get(index)
          : ((FixedSizeBinaryVector) vector).get(index);
      return Base64.getEncoder().encodeToString(bytes);
    }
  }

  private static final class UuidEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeString(text(vector, index));
    }

    @Override
    String text(FieldVector vector, int index) {
      ByteBuffer bytes = ByteBuffer.wrap(((FixedSizeBinaryVector) vector).get(index));
      return new UUID(bytes.getLong(), bytes.getLong()).toString();
    }
  }

  private static final class DateEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeString(text(vector, index));
    }

    @Override
    String text(FieldVector vector, int index) {
      return LocalDate.ofEpochDay(((DateDayVector) vector).get(index)).toString();
    }
  }

  private static final class TimeEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeString(text(vector, index));
    }

    @Override
    String text(FieldVector vector, int index) {
      // SQE's times are microseconds of the day.
      long micros = ((TimeMicroVector) vector).get(index);
      return TimestampText.time(LocalTime.ofNanoOfDay(micros * 1_000), 6);
    }
  }

  private static final class TimestampEncoder extends ValueEncoder {
    private final TimeUnit unit;
    private final int precision;
    private final boolean withZone;

    TimestampEncoder(ArrowType.Timestamp type) {
      this.unit = type.getUnit();
      this.precision = (int) TrinoType.precision(unit);
      this.withZone = type.getTimezone() != null;
    }

    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeString(text(vector, index));
    }

    @Override
    String text(FieldVector vector, int index) {
      long value = ((TimeStampVector) vector).get(index);
      LocalDateTime time = switch (unit) {
        case SECOND -> LocalDateTime.ofEpochSecond(value, 0, ZoneOffset.UTC);
        case MILLISECOND -> LocalDateTime.ofEpochSecond(Math.floorDiv(value, 1_000L), (int) Math.floorMod(value, 1_000L) * 1_000_000, ZoneOffset.UTC);
        case MICROSECOND -> LocalDateTime.ofEpochSecond(Math.floorDiv(value, 1_000_000L), (int) Math.floorMod(value, 1_000_000L) * 1_000, ZoneOffset.UTC);
        case NANOSECOND -> LocalDateTime.ofEpochSecond(Math.floorDiv(value, 1_000_000_000L), (int) Math.floorMod(value, 1_000_000_000L), ZoneOffset.UTC);
      };
      // Instants are kept in UTC; Trino clients read the zone after the value.
      String text = TimestampText.timestamp(time, precision);
      return withZone ? text + " UTC" : text;
    }
  }

  private static final class IntervalEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeString(text(vector, index));
    }

    @Override
    String text(FieldVector vector, int index) {
      if (vector instanceof IntervalYearVector) {
        int months = ((IntervalYearVector) vector).get(index);
        String sign = months < 0 ? "-" : "";
        long abs = Math.abs((long) months);
        return sign + (abs / 12) + "-" + (abs % 12);
      }
      Duration duration = ((IntervalDayVector) vector).getObject(index);
      return TimestampText.dayToSecond(duration);
    }
  }

  /** Anything else, as the text of its Java value. */
  private static final class TextEncoder extends ValueEncoder {
    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      json.writeString(String.valueOf(vector.getObject(index)));
    }
  }

  private static final class ArrayEncoder extends ValueEncoder {
    private final ValueEncoder elements;

    ArrayEncoder(ValueEncoder elements) {
      this.elements = elements;
    }

    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      ListVector list = (ListVector) vector;
      FieldVector data = list.getDataVector();
      int start = list.getElementStartIndex(index);
      int end = list.getElementEndIndex(index);
      json.writeStartArray();
      for (int i = start; i < end; i++) {
        elements.write(json, data, i);
      }
      json.writeEndArray();
    }
  }

  private static final class MapEncoder extends ValueEncoder {
    private final ValueEncoder keys;
    private final ValueEncoder values;

    MapEncoder(ValueEncoder keys, ValueEncoder values) {
      this.keys = keys;
      this.values = values;
    }

    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      MapVector map = (MapVector) vector;
      StructVector entries = (StructVector) map.getDataVector();
      FieldVector keyVector = (FieldVector) entries.getChildByOrdinal(0);
      FieldVector valueVector = (FieldVector) entries.getChildByOrdinal(1);
      int start = map.getElementStartIndex(index);
      int end = map.getElementEndIndex(index);
      json.writeStartObject();
      for (int i = start; i < end; i++) {
        json.writeFieldName(keys.text(keyVector, i));
        values.write(json, valueVector, i);
      }
      json.writeEndObject();
    }
  }

  private static final class RowEncoder extends ValueEncoder {
    private final List<ValueEncoder> fields;

    RowEncoder(List<ValueEncoder> fields) {
      this.fields = List.copyOf(fields);
    }

    @Override
    void writeValue(JsonGenerator json, FieldVector vector, int index) throws IOException {
      StructVector row = (StructVector) vector;
      json.writeStartArray();
      for (int i = 0; i < fields.size(); i++) {
        ValueVector child = row.getChildByOrdinal(i);
        fields.get(i).write(json, (FieldVector) child, index);
      }
      json.writeEndArray();
    }
  }
}
