package io.sqe.engine.exec;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.UUID;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.rel.type.RelDataType;

/** Converts a bound parameter value from its Java form to the value Calcite's runtime expects. */
public final class ParameterValues {
  private ParameterValues() {}

  public static Object toInternal(Object value, RelDataType type, int index) {
    if (value == null) {
      return null;
    }
    try {
      switch (type.getSqlTypeName()) {
        case BOOLEAN:
          return value instanceof Boolean ? value : Boolean.valueOf(value.toString().trim());
        case TINYINT:
          return number(value).byteValueExact();
        case SMALLINT:
          return number(value).shortValueExact();
        case INTEGER:
          return number(value).intValueExact();
        case BIGINT:
          return number(value).longValueExact();
        case DECIMAL:
          return number(value).setScale(type.getScale(), RoundingMode.HALF_UP);
        case REAL:
          return value instanceof Number ? ((Number) value).floatValue() : Float.parseFloat(value.toString());
        case FLOAT:
        case DOUBLE:
          return value instanceof Number ? ((Number) value).doubleValue() : Double.parseDouble(value.toString());
        case CHAR:
        case VARCHAR:
          return value.toString();
        case DATE:
          return (int) date(value).toEpochDay();
        case TIME:
          return (int) (time(value).toNanoOfDay() / 1_000_000L);
        case TIMESTAMP:
          return micros(timestamp(value).toInstant(ZoneOffset.UTC));
        case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
          return micros(instant(value));
        case BINARY:
        case VARBINARY:
          return new ByteString(bytes(value));
        case UUID:
          return uuid(value);
        default:
          return value;
      }
    } catch (ArithmeticException | IllegalArgumentException | DateTimeParseException | ClassCastException e) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "Parameter " + (index + 1) + " (" + describe(value) + ") is not a valid " + type.getFullTypeString(),
          e);
    }
  }

  /** Clients bind UUIDs as 16 bytes: Arrow's UUID type is a fixed-size binary. */
  private static UUID uuid(Object value) {
    if (value instanceof UUID) {
      return (UUID) value;
    }
    if (value instanceof byte[] || value instanceof ByteBuffer || value instanceof ByteString) {
      byte[] bytes = bytes(value);
      if (bytes.length != 16) {
        throw new IllegalArgumentException("A UUID has 16 bytes, not " + bytes.length);
      }
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      return new UUID(buffer.getLong(), buffer.getLong());
    }
    return UUID.fromString(value.toString().trim());
  }

  private static String describe(Object value) {
    if (value instanceof byte[] || value instanceof ByteBuffer || value instanceof ByteString) {
      return "0x" + java.util.HexFormat.of().formatHex(bytes(value));
    }
    return String.valueOf(value);
  }

  private static long micros(Instant instant) {
    return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000L);
  }

  private static BigDecimal number(Object value) {
    if (value instanceof BigDecimal) {
      return (BigDecimal) value;
    }
    if (value instanceof Double || value instanceof Float) {
      return BigDecimal.valueOf(((Number) value).doubleValue());
    }
    if (value instanceof Number) {
      return BigDecimal.valueOf(((Number) value).longValue());
    }
    if (value instanceof Boolean) {
      return ((Boolean) value) ? BigDecimal.ONE : BigDecimal.ZERO;
    }
    return new BigDecimal(value.toString().trim());
  }

  private static LocalDate date(Object value) {
    if (value instanceof LocalDate) {
      return (LocalDate) value;
    }
    if (value instanceof LocalDateTime) {
      return ((LocalDateTime) value).toLocalDate();
    }
    if (value instanceof Number) {
      return LocalDate.ofEpochDay(((Number) value).longValue());
    }
    return LocalDate.parse(value.toString().trim());
  }

  private static LocalTime time(Object value) {
    if (value instanceof LocalTime) {
      return (LocalTime) value;
    }
    if (value instanceof LocalDateTime) {
      return ((LocalDateTime) value).toLocalTime();
    }
    return LocalTime.parse(value.toString().trim());
  }

  private static LocalDateTime timestamp(Object value) {
    if (value instanceof LocalDateTime) {
      return (LocalDateTime) value;
    }
    if (value instanceof LocalDate) {
      return ((LocalDate) value).atStartOfDay();
    }
    if (value instanceof Instant) {
      return LocalDateTime.ofInstant((Instant) value, ZoneOffset.UTC);
    }
    if (value instanceof OffsetDateTime) {
      return ((OffsetDateTime) value).toLocalDateTime();
    }
    if (value instanceof java.sql.Timestamp) {
      return ((java.sql.Timestamp) value).toLocalDateTime();
    }
    return LocalDateTime.parse(value.toString().trim().replace(' ', 'T'));
  }

  private static Instant instant(Object value) {
    if (value instanceof Instant) {
      return (Instant) value;
    }
    if (value instanceof OffsetDateTime) {
      return ((OffsetDateTime) value).toInstant();
    }
    if (value instanceof ZonedDateTime) {
      return ((ZonedDateTime) value).toInstant();
    }
    if (value instanceof LocalDateTime) {
      return ((LocalDateTime) value).toInstant(ZoneOffset.UTC);
    }
    if (value instanceof Number) {
      return Instant.ofEpochMilli(((Number) value).longValue());
    }
    String text = value.toString().trim().replace(' ', 'T');
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
    }
  }

  private static byte[] bytes(Object value) {
    if (value instanceof byte[]) {
      return (byte[]) value;
    }
    if (value instanceof ByteBuffer) {
      ByteBuffer b = ((ByteBuffer) value).duplicate();
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    }
    if (value instanceof ByteString) {
      return ((ByteString) value).getBytes();
    }
    return value.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
