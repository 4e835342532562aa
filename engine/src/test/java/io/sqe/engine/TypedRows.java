package io.sqe.engine;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * Rows of every type the scan decodes (and a TIME it does not), for tests of the readers: row
 * {@code n} has nulls in every column but {@code id} when {@code n % 7 == 3}, a text column of five
 * values (dictionary-encoded), and one of distinct values (pages that fall back to plain).
 */
public final class TypedRows {
  public static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "b", Types.BooleanType.get()),
          Types.NestedField.optional(3, "i", Types.IntegerType.get()),
          Types.NestedField.optional(4, "l", Types.LongType.get()),
          Types.NestedField.optional(5, "f", Types.FloatType.get()),
          Types.NestedField.optional(6, "d", Types.DoubleType.get()),
          Types.NestedField.optional(7, "color", Types.StringType.get()),
          Types.NestedField.optional(8, "label", Types.StringType.get()),
          Types.NestedField.optional(9, "amount", Types.DecimalType.of(15, 2)),
          Types.NestedField.optional(10, "rate", Types.DecimalType.of(7, 3)),
          Types.NestedField.optional(11, "big", Types.DecimalType.of(30, 4)),
          Types.NestedField.optional(12, "ship_day", Types.DateType.get()),
          Types.NestedField.optional(13, "stamp", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(14, "stamp_tz", Types.TimestampType.withZone()),
          Types.NestedField.optional(15, "bytes", Types.BinaryType.get()),
          Types.NestedField.optional(16, "code", Types.FixedType.ofLength(4)),
          Types.NestedField.optional(17, "clock", Types.TimeType.get()));
  /** The columns but {@code clock}, which the scan reads row by row. */
  public static final String DECODED_COLUMNS = "id, b, i, l, f, d, color, label, amount, rate, big, ship_day, stamp, stamp_tz, bytes, code";
  private static final List<String> COLORS = List.of("red", "green", "blue", "cyan", "magenta");

  private TypedRows() {}

  public static Record row(int n) {
    GenericRecord r = GenericRecord.create(SCHEMA);
    r.setField("id", (long) n);
    boolean nulls = n % 7 == 3;
    r.setField("b", nulls ? null : n % 3 == 0);
    r.setField("i", nulls ? null : n - 3000);
    r.setField("l", nulls ? null : (long) n * 1_000_000_007L);
    r.setField("f", nulls ? null : n / 8.0f);
    r.setField("d", nulls ? null : n / 3.0);
    r.setField("color", nulls ? null : COLORS.get(n % COLORS.size()));
    r.setField("label", nulls ? null : "label-é-" + n);
    r.setField("amount", nulls ? null : BigDecimal.valueOf(n * 137L - 50_000, 2));
    r.setField("rate", nulls ? null : BigDecimal.valueOf(n % 100 - 50, 3));
    r.setField("big", nulls ? null : new BigDecimal("12345678901234567890.1234").add(BigDecimal.valueOf(n)).negate());
    r.setField("ship_day", nulls ? null : LocalDate.of(1992, 1, 1).plusDays(n % 2500));
    r.setField("stamp", nulls ? null : LocalDateTime.of(2020, 2, 29, 12, 0).plusNanos(n * 1_001_000L).minusDays(n));
    r.setField("stamp_tz", nulls ? null : OffsetDateTime.of(1969, 12, 31, 23, 59, 0, 0, ZoneOffset.UTC).plusNanos(n * 123_000L));
    r.setField("bytes", nulls ? null : ByteBuffer.wrap(("b" + n).getBytes(StandardCharsets.UTF_8)));
    r.setField("code", nulls ? null : new byte[] {(byte) n, (byte) (n >> 8), 0, -1});
    r.setField("clock", nulls ? null : LocalTime.ofSecondOfDay(n % 86_400));
    return r;
  }
}
