package io.sqe.flight.audit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes from an error message what the statement's text and parameters hold: an error may quote
 * a literal ("Cannot cast 'abc' to INTEGER") or a bound value, and the audit log keeps neither.
 * It replaces every string literal of the statement, every numeric literal of three or more
 * characters, and every parameter value, wherever they occur in the message, with {@code ***}.
 */
final class Redaction {
  static final String MASK = "***";
  private static final Pattern STRING_LITERAL = Pattern.compile("'((?:[^']|'')*)'");
  private static final Pattern NUMBER_LITERAL = Pattern.compile("(?<![\\w.])\\d[\\d.]*(?:[eE][-+]?\\d+)?(?![\\w.])");
  private static final int MIN_NUMBER_LENGTH = 3;

  private Redaction() {}

  static String redact(String message, String sql, List<Object> parameterValues) {
    List<String> secrets = new ArrayList<>();
    if (sql != null) {
      Matcher strings = STRING_LITERAL.matcher(sql);
      while (strings.find()) {
        String value = strings.group(1);
        secrets.add(value);
        secrets.add(value.replace("''", "'"));
      }
      Matcher numbers = NUMBER_LITERAL.matcher(STRING_LITERAL.matcher(sql).replaceAll("''"));
      while (numbers.find()) {
        if (numbers.group().length() >= MIN_NUMBER_LENGTH) {
          secrets.add(numbers.group());
        }
      }
    }
    for (Object value : parameterValues) {
      if (value != null) {
        secrets.add(value instanceof byte[] ? new String((byte[]) value, java.nio.charset.StandardCharsets.UTF_8) : value.toString());
      }
    }
    // Longest first, so a value that contains another is masked whole.
    secrets.sort(Comparator.comparingInt(String::length).reversed());
    String redacted = message;
    for (String secret : secrets) {
      if (!secret.isEmpty()) {
        redacted = redacted.replace(secret, MASK);
      }
    }
    return redacted;
  }
}
