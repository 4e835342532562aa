package io.sqe.flight;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.util.Text;

/** Reads the parameter rows a client binds to a prepared statement through DoPut. */
final class ArrowParameters {
  private ArrowParameters() {}

  /** Every row of every batch in the stream, each as plain Java values. */
  static List<List<Object>> read(FlightStream stream) {
    List<List<Object>> rows = new ArrayList<>();
    while (stream.next()) {
      VectorSchemaRoot root = stream.getRoot();
      for (int r = 0; r < root.getRowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (FieldVector vector : root.getFieldVectors()) {
          row.add(value(vector, r));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  static Object value(FieldVector vector, int index) {
    if (vector.isNull(index)) {
      return null;
    }
    if (vector instanceof DateDayVector) {
      return LocalDate.ofEpochDay(((DateDayVector) vector).get(index));
    }
    if (vector instanceof DateMilliVector) {
      return LocalDate.ofEpochDay(Math.floorDiv(((DateMilliVector) vector).get(index), 86_400_000L));
    }
    if (vector instanceof TimeSecVector) {
      return LocalTime.ofSecondOfDay(((TimeSecVector) vector).get(index));
    }
    if (vector instanceof TimeMilliVector) {
      return LocalTime.ofNanoOfDay(((TimeMilliVector) vector).get(index) * 1_000_000L);
    }
    if (vector instanceof TimeMicroVector) {
      return LocalTime.ofNanoOfDay(((TimeMicroVector) vector).get(index) * 1_000L);
    }
    if (vector instanceof TimeNanoVector) {
      return LocalTime.ofNanoOfDay(((TimeNanoVector) vector).get(index));
    }
    if (vector instanceof TimeStampVector) {
      ArrowType.Timestamp type = (ArrowType.Timestamp) vector.getField().getType();
      long raw = ((TimeStampVector) vector).get(index);
      Instant instant = instant(raw, type.getUnit());
      return type.getTimezone() == null ? LocalDateTime.ofInstant(instant, java.time.ZoneOffset.UTC) : instant;
    }
    Object value = vector.getObject(index);
    if (value instanceof Text) {
      return value.toString();
    }
    return value;
  }

  private static Instant instant(long raw, org.apache.arrow.vector.types.TimeUnit unit) {
    switch (unit) {
      case SECOND:
        return Instant.ofEpochSecond(raw);
      case MILLISECOND:
        return Instant.ofEpochMilli(raw);
      case MICROSECOND:
        return Instant.ofEpochSecond(Math.floorDiv(raw, 1_000_000L), Math.floorMod(raw, 1_000_000L) * 1_000L);
      default:
        return Instant.ofEpochSecond(Math.floorDiv(raw, TimeUnit.SECONDS.toNanos(1)), Math.floorMod(raw, 1_000_000_000L));
    }
  }
}
