package io.sqe.engine.sql.functions;

import static org.apache.calcite.sql.type.SqlTypeFamily.CHARACTER;
import static org.apache.calcite.sql.type.SqlTypeFamily.DATE;
import static org.apache.calcite.sql.type.SqlTypeFamily.INTERVAL_DAY_TIME;
import static org.apache.calcite.sql.type.SqlTypeFamily.NUMERIC;
import static org.apache.calcite.sql.type.SqlTypeFamily.TIMESTAMP;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAccessor;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Trino's date and time functions that Calcite lacks. A DATE reaches them as days since 1970-01-01
 * and a TIMESTAMP as milliseconds of wall-clock time (SQE's planner converts its microseconds to
 * milliseconds and back around functions that read calendar time); TIMESTAMP WITH LOCAL TIME ZONE,
 * SQE's zoned type, is an instant in milliseconds. Formats follow Trino: date_format and date_parse
 * take MySQL's specifiers, format_datetime and parse_datetime Joda-Time's (java.time) patterns.
 */
public final class CalendarFunctions {
  private static final SqlReturnTypeInference DATE_TYPE = ReturnTypes.explicit(SqlTypeName.DATE);
  private static final SqlReturnTypeInference TIMESTAMP_TYPE = ReturnTypes.explicit(SqlTypeName.TIMESTAMP, 3);
  private static final SqlReturnTypeInference INSTANT_TYPE = ReturnTypes.explicit(SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, 3);

  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = build();

  private CalendarFunctions() {}

  private static List<SqlOperator> build() {
    List<SqlOperator> all = new ArrayList<>();
    String[][] fields = {
        {"day", "dayOfMonth"}, {"day_of_month", "dayOfMonth"}, {"day_of_week", "dayOfWeek"}, {"dow", "dayOfWeek"},
        {"day_of_year", "dayOfYear"}, {"doy", "dayOfYear"}, {"week_of_year", "weekOfYear"}, {"year_of_week", "yearOfWeek"},
        {"yow", "yearOfWeek"}};
    for (String[] f : fields) {
      all.add(JavaFunctions.scalar(f[0], CalendarFunctions.class, f[1], ReturnTypes.BIGINT, DATE));
      all.add(JavaFunctions.scalar(f[0], CalendarFunctions.class, f[1], ReturnTypes.BIGINT, TIMESTAMP));
    }
    all.add(JavaFunctions.scalar("millisecond", CalendarFunctions.class, "millisecond", ReturnTypes.BIGINT, TIMESTAMP));
    all.add(JavaFunctions.scalar("last_day_of_month", CalendarFunctions.class, "lastDayOfMonth", DATE_TYPE, DATE));
    all.add(JavaFunctions.scalar("last_day_of_month", CalendarFunctions.class, "lastDayOfMonth", DATE_TYPE, TIMESTAMP));
    all.add(JavaFunctions.scalar("from_unixtime", CalendarFunctions.class, "fromUnixtime", INSTANT_TYPE, NUMERIC));
    all.add(JavaFunctions.scalar("from_unixtime_nanos", CalendarFunctions.class, "fromUnixtimeNanos", INSTANT_TYPE, NUMERIC));
    all.add(JavaFunctions.scalar("to_unixtime", CalendarFunctions.class, "toUnixtime", ReturnTypes.DOUBLE, TIMESTAMP));
    all.add(JavaFunctions.scalar("from_iso8601_date", CalendarFunctions.class, "fromIso8601Date", DATE_TYPE, CHARACTER));
    all.add(JavaFunctions.scalar("from_iso8601_timestamp", CalendarFunctions.class, "fromIso8601Timestamp", INSTANT_TYPE, CHARACTER));
    all.add(JavaFunctions.scalar("from_iso8601_timestamp_nanos", CalendarFunctions.class, "fromIso8601Timestamp", INSTANT_TYPE, CHARACTER));
    all.add(JavaFunctions.scalar("to_iso8601", CalendarFunctions.class, "toIso8601", ReturnTypes.VARCHAR, DATE));
    all.add(JavaFunctions.scalar("to_iso8601", CalendarFunctions.class, "toIso8601", ReturnTypes.VARCHAR, TIMESTAMP));
    all.add(JavaFunctions.scalar("date_format", CalendarFunctions.class, "dateFormat", ReturnTypes.VARCHAR, TIMESTAMP, CHARACTER));
    all.add(JavaFunctions.scalar("date_parse", CalendarFunctions.class, "dateParse", TIMESTAMP_TYPE, CHARACTER, CHARACTER));
    all.add(JavaFunctions.scalar("format_datetime", CalendarFunctions.class, "formatDatetime", ReturnTypes.VARCHAR, TIMESTAMP, CHARACTER));
    all.add(JavaFunctions.scalar("parse_datetime", CalendarFunctions.class, "parseDatetime", INSTANT_TYPE, CHARACTER, CHARACTER));
    all.add(JavaFunctions.scalar("with_timezone", CalendarFunctions.class, "withTimezone", INSTANT_TYPE, TIMESTAMP, CHARACTER));
    all.add(JavaFunctions.scalar("at_timezone", CalendarFunctions.class, "atTimezone", TIMESTAMP_TYPE, TIMESTAMP, CHARACTER));
    all.add(JavaFunctions.scalar("to_milliseconds", CalendarFunctions.class, "toMilliseconds", ReturnTypes.BIGINT, INTERVAL_DAY_TIME));
    all.add(JavaFunctions.scalar("human_readable_seconds", CalendarFunctions.class, "humanReadableSeconds", ReturnTypes.VARCHAR, NUMERIC));
    all.add(JavaFunctions.scalar("parse_duration", CalendarFunctions.class, "parseDuration",
        ReturnTypes.explicit(f -> f.createSqlIntervalType(new SqlIntervalQualifier(TimeUnit.DAY, TimeUnit.SECOND, SqlParserPos.ZERO))),
        CHARACTER));
    for (String name : List.of("parse_data_size", "parse_presto_data_size")) {
      all.add(JavaFunctions.scalar(name, CalendarFunctions.class, "parseDataSize",
          ReturnTypes.explicit(f -> f.createSqlType(SqlTypeName.DECIMAL, 38, 0)), CHARACTER));
    }
    return List.copyOf(all);
  }

  private static LocalDate date(int days) {
    return LocalDate.ofEpochDay(days);
  }

  private static LocalDateTime timestamp(long millis) {
    return LocalDateTime.ofEpochSecond(Math.floorDiv(millis, 1000), (int) Math.floorMod(millis, 1000) * 1_000_000, ZoneOffset.UTC);
  }

  private static long millis(LocalDateTime t) {
    return t.toInstant(ZoneOffset.UTC).toEpochMilli();
  }

  private static ZoneId zone(String name) {
    try {
      return ZoneId.of(name);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("'" + name + "' is not a valid time zone");
    }
  }

  // ---- called from generated code

  public static long dayOfMonth(int days) {
    return date(days).getDayOfMonth();
  }

  public static long dayOfMonth(long millis) {
    return timestamp(millis).getDayOfMonth();
  }

  public static long dayOfWeek(int days) {
    return date(days).getDayOfWeek().getValue();
  }

  public static long dayOfWeek(long millis) {
    return timestamp(millis).getDayOfWeek().getValue();
  }

  public static long dayOfYear(int days) {
    return date(days).getDayOfYear();
  }

  public static long dayOfYear(long millis) {
    return timestamp(millis).getDayOfYear();
  }

  public static long weekOfYear(int days) {
    return date(days).get(IsoFields.WEEK_OF_WEEK_BASED_YEAR);
  }

  public static long weekOfYear(long millis) {
    return timestamp(millis).get(IsoFields.WEEK_OF_WEEK_BASED_YEAR);
  }

  public static long yearOfWeek(int days) {
    return date(days).get(IsoFields.WEEK_BASED_YEAR);
  }

  public static long yearOfWeek(long millis) {
    return timestamp(millis).get(IsoFields.WEEK_BASED_YEAR);
  }

  public static long millisecond(long millis) {
    return Math.floorMod(millis, 1000);
  }

  public static int lastDayOfMonth(int days) {
    return (int) date(days).with(TemporalAdjusters.lastDayOfMonth()).toEpochDay();
  }

  public static int lastDayOfMonth(long millis) {
    return (int) timestamp(millis).toLocalDate().with(TemporalAdjusters.lastDayOfMonth()).toEpochDay();
  }

  @Strict
  public static long fromUnixtime(Number seconds) {
    return Math.round(seconds.doubleValue() * 1000);
  }

  @Strict
  public static long fromUnixtimeNanos(Number nanos) {
    return Math.floorDiv(nanos.longValue(), 1_000_000L);
  }

  public static double toUnixtime(long millis) {
    return millis / 1000.0;
  }

  /** A date as ISO 8601 writes it: calendar (2024-05-17), week (2024-W20-5) or ordinal (2024-138). */
  @Strict
  public static int fromIso8601Date(String text) {
    for (DateTimeFormatter f : List.of(DateTimeFormatter.ISO_LOCAL_DATE, DateTimeFormatter.ISO_WEEK_DATE, DateTimeFormatter.ISO_ORDINAL_DATE)) {
      try {
        return (int) LocalDate.parse(text, f).toEpochDay();
      } catch (DateTimeParseException e) {
        // the next form
      }
    }
    throw new IllegalArgumentException("Invalid format: \"" + text + "\"");
  }

  /** An ISO 8601 date and time; without an offset it is in UTC. */
  @Strict
  public static long fromIso8601Timestamp(String text) {
    try {
      TemporalAccessor t = new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .optionalStart().appendLiteral('T').append(DateTimeFormatter.ISO_LOCAL_TIME).optionalEnd()
          .optionalStart().appendOffsetId().optionalEnd()
          .parseDefaulting(ChronoField.HOUR_OF_DAY, 0)
          .toFormatter(Locale.ROOT)
          .parse(text);
      ZoneOffset offset = t.isSupported(ChronoField.OFFSET_SECONDS) ? ZoneOffset.from(t) : ZoneOffset.UTC;
      return LocalDateTime.from(t).toInstant(offset).toEpochMilli();
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("Invalid format: \"" + text + "\"");
    }
  }

  public static String toIso8601(int days) {
    return date(days).toString();
  }

  public static String toIso8601(long millis) {
    return timestamp(millis).format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS", Locale.ROOT));
  }

  @Strict
  public static String dateFormat(long millis, String format) {
    return timestamp(millis).format(mysqlFormatter(format));
  }

  @Strict
  public static long dateParse(String text, String format) {
    try {
      TemporalAccessor t = new DateTimeFormatterBuilder()
          .parseCaseInsensitive()
          .append(mysqlFormatter(format))
          .parseDefaulting(ChronoField.MONTH_OF_YEAR, 1)
          .parseDefaulting(ChronoField.DAY_OF_MONTH, 1)
          .parseDefaulting(ChronoField.HOUR_OF_DAY, 0)
          .toFormatter(Locale.ENGLISH)
          .parse(text);
      return millis(LocalDateTime.from(t));
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("Invalid format: '" + text + "' for '" + format + "'");
    }
  }

  @Strict
  public static String formatDatetime(long millis, String pattern) {
    return timestamp(millis).format(jodaFormatter(pattern));
  }

  /** The text read with a Joda-Time pattern, in UTC unless it names an offset. */
  @Strict
  public static long parseDatetime(String text, String pattern) {
    try {
      TemporalAccessor t = new DateTimeFormatterBuilder()
          .append(jodaFormatter(pattern))
          .parseDefaulting(ChronoField.HOUR_OF_DAY, 0)
          .toFormatter(Locale.ENGLISH)
          .parse(text);
      ZoneOffset offset = t.isSupported(ChronoField.OFFSET_SECONDS) ? ZoneOffset.from(t) : ZoneOffset.UTC;
      return LocalDateTime.from(t).toInstant(offset).toEpochMilli();
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("Invalid format: \"" + text + "\" for \"" + pattern + "\"");
    }
  }

  /** The instant at which the wall-clock time is {@code millis} in {@code zone}. */
  @Strict
  public static long withTimezone(long millis, String zone) {
    return ZonedDateTime.of(timestamp(millis), zone(zone)).toInstant().toEpochMilli();
  }

  /** The wall-clock time in {@code zone} of the instant {@code millis}. */
  @Strict
  public static long atTimezone(long millis, String zone) {
    return millis(LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), zone(zone)));
  }

  public static long toMilliseconds(long millis) {
    return millis;
  }

  /** 3762 is "1 hour, 2 minutes, 42 seconds", as Trino writes it (weeks, days, hours, minutes, seconds). */
  @Strict
  public static String humanReadableSeconds(Number value) {
    long seconds = Math.round(Math.abs(value.doubleValue()));
    long[] amounts = {seconds / 604_800, seconds % 604_800 / 86_400, seconds % 86_400 / 3_600, seconds % 3_600 / 60, seconds % 60};
    String[] units = {"week", "day", "hour", "minute", "second"};
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < amounts.length; i++) {
      if (amounts[i] > 0) {
        parts.add(amounts[i] + " " + units[i] + (amounts[i] == 1 ? "" : "s"));
      }
    }
    return parts.isEmpty() ? "0 seconds" : String.join(", ", parts);
  }

  private static final Pattern DURATION = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s|m|h|d)\\s*");

  /** Airlift's duration text ('3.5h', '10ms') as an interval, to the millisecond. */
  @Strict
  public static long parseDuration(String text) {
    Matcher m = DURATION.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("duration is not a valid data duration string: " + text);
    }
    double amount = Double.parseDouble(m.group(1));
    double millis = switch (m.group(2)) {
      case "ns" -> amount / 1e6;
      case "us" -> amount / 1e3;
      case "ms" -> amount;
      case "s" -> amount * 1e3;
      case "m" -> amount * 60e3;
      case "h" -> amount * 3600e3;
      default -> amount * 86400e3;
    };
    return Math.round(millis);
  }

  private static final Pattern DATA_SIZE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*(B|kB|MB|GB|TB|PB|EB|ZB|YB)\\s*");

  /** '2.5kB' as a number of bytes (powers of 1024), as Trino's parse_data_size. */
  @Strict
  public static java.math.BigDecimal parseDataSize(String text) {
    Matcher m = DATA_SIZE.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("Invalid data size: '" + text + "'");
    }
    int power = List.of("B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB").indexOf(m.group(2));
    return new java.math.BigDecimal(m.group(1)).multiply(java.math.BigDecimal.valueOf(1024).pow(power))
        .setScale(0, java.math.RoundingMode.DOWN);
  }

  /** MySQL's date_format specifiers as a java.time formatter. */
  private static DateTimeFormatter mysqlFormatter(String format) {
    DateTimeFormatterBuilder b = new DateTimeFormatterBuilder();
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 == format.length()) {
        b.appendLiteral(c);
        continue;
      }
      char s = format.charAt(++i);
      switch (s) {
        case 'a' -> b.appendPattern("EEE");
        case 'b' -> b.appendPattern("MMM");
        case 'c' -> b.appendValue(ChronoField.MONTH_OF_YEAR);
        case 'd' -> b.appendPattern("dd");
        case 'e' -> b.appendValue(ChronoField.DAY_OF_MONTH);
        case 'f' -> b.appendPattern("SSSSSS");
        case 'H' -> b.appendPattern("HH");
        case 'h', 'I' -> b.appendPattern("hh");
        case 'i' -> b.appendPattern("mm");
        case 'j' -> b.appendPattern("DDD");
        case 'k' -> b.appendValue(ChronoField.HOUR_OF_DAY);
        case 'l' -> b.appendValue(ChronoField.CLOCK_HOUR_OF_AMPM);
        case 'M' -> b.appendPattern("MMMM");
        case 'm' -> b.appendPattern("MM");
        case 'p' -> b.appendPattern("a");
        case 'r' -> b.appendPattern("hh:mm:ss a");
        case 'S', 's' -> b.appendPattern("ss");
        case 'T' -> b.appendPattern("HH:mm:ss");
        case 'v' -> b.appendValue(IsoFields.WEEK_OF_WEEK_BASED_YEAR, 2);
        case 'W' -> b.appendPattern("EEEE");
        case 'x' -> b.appendValue(IsoFields.WEEK_BASED_YEAR, 4);
        case 'Y' -> b.appendValue(ChronoField.YEAR, 4);
        case 'y' -> b.appendValueReduced(ChronoField.YEAR, 2, 2, 2000);
        case '%' -> b.appendLiteral('%');
        default -> throw new IllegalArgumentException("Unsupported format specifier %" + s + " in " + format);
      }
    }
    return b.toFormatter(Locale.ENGLISH);
  }

  private static DateTimeFormatter jodaFormatter(String pattern) {
    try {
      return DateTimeFormatter.ofPattern(pattern, Locale.ENGLISH);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid pattern: " + pattern + " (" + e.getMessage() + ")");
    }
  }
}
