package io.sqe.engine.iceberg;

import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Converts values of Iceberg's generic data model into the Java values SQE's engine uses: dates
 * as days, times as milliseconds (Calcite's), timestamps as microseconds (see
 * {@code TimestampMicros}), binaries as {@link ByteString}, structs as {@code Object[]}.
 */
final class IcebergValueConverters {
  private IcebergValueConverters() {}

  static long micros(java.time.Instant instant) {
    return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000L);
  }

  /** The converter of a value of {@code type} as Iceberg's generic readers return it. */
  static Function<Object, Object> forType(Type type) {
    return forType(type, IcebergValueConverters::genericPrimitive);
  }

  /**
   * The converter of a value of {@code type}: structs become {@code Object[]}, lists and maps keep
   * their shape, and {@code primitive} converts what they hold (and a value of a primitive type).
   */
  static Function<Object, Object> forType(Type type, Function<Type.PrimitiveType, Function<Object, Object>> primitive) {
    switch (type.typeId()) {
      case STRUCT: {
        List<Types.NestedField> fields = type.asStructType().fields();
        List<Function<Object, Object>> converters = new ArrayList<>();
        for (Types.NestedField f : fields) {
          converters.add(forType(f.type(), primitive));
        }
        return v -> {
          StructLike struct = (StructLike) v;
          Object[] out = new Object[converters.size()];
          for (int i = 0; i < out.length; i++) {
            Object value = struct.get(i, Object.class);
            out[i] = value == null ? null : converters.get(i).apply(value);
          }
          return out;
        };
      }
      case LIST: {
        Function<Object, Object> element = forType(type.asListType().elementType(), primitive);
        return v -> {
          List<?> list = (List<?>) v;
          List<Object> out = new ArrayList<>(list.size());
          for (Object e : list) {
            out.add(e == null ? null : element.apply(e));
          }
          return out;
        };
      }
      case MAP: {
        Function<Object, Object> key = forType(type.asMapType().keyType(), primitive);
        Function<Object, Object> value = forType(type.asMapType().valueType(), primitive);
        return v -> {
          Map<?, ?> map = (Map<?, ?>) v;
          Map<Object, Object> out = new LinkedHashMap<>();
          for (Map.Entry<?, ?> e : map.entrySet()) {
            out.put(key.apply(e.getKey()), e.getValue() == null ? null : value.apply(e.getValue()));
          }
          return out;
        };
      }
      default:
        return primitive.apply(type.asPrimitiveType());
    }
  }

  private static Function<Object, Object> genericPrimitive(Type.PrimitiveType type) {
    switch (type.typeId()) {
      case DATE:
        return v -> (int) ((LocalDate) v).toEpochDay();
      case TIME:
        return v -> (int) (((LocalTime) v).toNanoOfDay() / 1_000_000L);
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        return v -> micros(v instanceof OffsetDateTime ? ((OffsetDateTime) v).toInstant() : ((LocalDateTime) v).toInstant(ZoneOffset.UTC));
      case FIXED:
        return v -> new ByteString((byte[]) v);
      case BINARY:
        return v -> byteString((ByteBuffer) v);
      default:
        // boolean, int, long, float, double, decimal, string and uuid are already what Calcite uses.
        return Function.identity();
    }
  }

  /** The bytes left in {@code buffer}, which is not moved. */
  static ByteString byteString(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return new ByteString(bytes);
  }
}
