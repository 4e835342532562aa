package io.sqe.flight.trino;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.LocalTime;

/** Dates and times as Trino writes them: a fixed number of fraction digits, a space before the time. */
final class TimestampText {
  private TimestampText() {}

  /** {@code 2024-01-31 12:34:56.123456} for precision 6. */
  static String timestamp(LocalDateTime value, int precision) {
    return value.toLocalDate() + " " + time(value.toLocalTime(), precision);
  }

  /** {@code 12:34:56.123456} for precision 6; no fraction for precision 0. */
  static String time(LocalTime value, int precision) {
    StringBuilder text = new StringBuilder(8 + 1 + precision);
    two(text, value.getHour()).append(':');
    two(text, value.getMinute()).append(':');
    two(text, value.getSecond());
    fraction(text, value.getNano(), precision);
    return text.toString();
  }

  /** An interval of days to seconds: {@code 1 02:03:04.500}, negative with a leading minus. */
  static String dayToSecond(Duration value) {
    StringBuilder text = new StringBuilder();
    if (value.isNegative()) {
      text.append('-');
      value = value.negated();
    }
    text.append(value.toDays()).append(' ');
    two(text, value.toHoursPart()).append(':');
    two(text, value.toMinutesPart()).append(':');
    two(text, value.toSecondsPart());
    fraction(text, value.toNanosPart(), 3);
    return text.toString();
  }

  private static StringBuilder two(StringBuilder text, int value) {
    if (value < 10) {
      text.append('0');
    }
    return text.append(value);
  }

  private static void fraction(StringBuilder text, int nanos, int precision) {
    if (precision == 0) {
      return;
    }
    String digits = Integer.toString(nanos + 1_000_000_000).substring(1, 1 + precision);
    text.append('.').append(digits);
  }
}
