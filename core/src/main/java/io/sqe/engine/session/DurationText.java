package io.sqe.engine.session;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them in settings and SQL: a whole number with a unit ({@code 500ms},
 * {@code 30s}, {@code 5m}, {@code 1h}, {@code 2d}) or ISO-8601 ({@code PT30S}).
 */
public final class DurationText {
  private static final Pattern WITH_UNIT = Pattern.compile("^(\\d+)\\s*(ms|s|m|h|d)$");
  private static final Pattern WHOLE_NUMBER = Pattern.compile("^\\d+$");

  private DurationText() {}

  /** The duration {@code text} names, or empty if it is not a duration. */
  public static Optional<Duration> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String value = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = WITH_UNIT.matcher(value);
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        switch (m.group(2)) {
          case "ms":
            return Optional.of(Duration.ofMillis(n));
          case "s":
            return Optional.of(Duration.ofSeconds(n));
          case "m":
            return Optional.of(Duration.ofMinutes(n));
          case "h":
            return Optional.of(Duration.ofHours(n));
          default:
            return Optional.of(Duration.ofDays(n));
        }
      }
      Duration iso = Duration.parse(value.toUpperCase(Locale.ROOT));
      return iso.isNegative() ? Optional.empty() : Optional.of(iso);
    } catch (DateTimeParseException | ArithmeticException e) {
      return Optional.empty();
    }
  }

  /**
   * A statement timeout: a duration, or a whole number of milliseconds as PostgreSQL's {@code
   * statement_timeout} takes it; {@code 0} means no limit.
   */
  public static Optional<Duration> parseTimeout(String text) {
    if (text != null && WHOLE_NUMBER.matcher(text.trim()).matches()) {
      try {
        return Optional.of(Duration.ofMillis(Long.parseLong(text.trim())));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
    return parse(text);
  }

  /** The shortest exact form: {@code 0}, {@code 1500ms}, {@code 30s}, {@code 5m}, {@code 2h}. */
  public static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis == 0) {
      return "0";
    }
    if (millis % 1000 != 0) {
      return millis + "ms";
    }
    long seconds = millis / 1000;
    if (seconds % 3600 == 0) {
      return seconds / 3600 + "h";
    }
    if (seconds % 60 == 0) {
      return seconds / 60 + "m";
    }
    return seconds + "s";
  }
}
