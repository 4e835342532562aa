package io.sqe.bench;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.util.Text;

/**
 * Brings values from Arrow vectors and from JDBC into one shape so two engines' results compare:
 * whole numbers and decimals as {@link BigDecimal}, floating point as {@link Double}, dates as
 * {@link LocalDate}, timestamps as {@link LocalDateTime}, text as {@link String}.
 */
final class ResultValues {
  private ResultValues() {}

  /** The value at {@code index} of an Arrow vector. */
  static Object fromArrow(FieldVector vector, int index) {
    if (vector.isNull(index)) {
      return null;
    }
    if (vector instanceof DateDayVector) {
      return LocalDate.ofEpochDay(((DateDayVector) vector).get(index));
    }
    if (vector instanceof DateMilliVector) {
      return ((DateMilliVector) vector).getObject(index).toLocalDate();
    }
    Object value = vector.getObject(index);
    return normalize(value instanceof Text ? value.toString() : value);
  }

  /** A value as a JDBC driver or an Arrow vector returns it. */
  static Object normalize(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof java.sql.Date) {
      return ((java.sql.Date) value).toLocalDate();
    }
    if (value instanceof java.sql.Timestamp) {
      return ((java.sql.Timestamp) value).toLocalDateTime();
    }
    if (value instanceof Float || value instanceof Double) {
      return ((Number) value).doubleValue();
    }
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return BigDecimal.valueOf(((Number) value).longValue());
    }
    if (value instanceof BigInteger) {
      return new BigDecimal((BigInteger) value);
    }
    if (value instanceof CharSequence) {
      return value.toString();
    }
    return value;
  }
}
