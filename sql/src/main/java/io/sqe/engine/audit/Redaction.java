package io.sqe.engine.audit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes from an error message what the statement's text and parameters hold: an error may quote
 * a literal ("Cannot cast 'abc' to INTEGER") or a bound value, and neither the audit log nor the
 * server log keeps them. It replaces every string literal of the statement, every numeric literal
 * of three or more characters, and every parameter value, wherever they occur in the message,
 * with {@code ***}.
 */
public final class Redaction {
  public static final String MASK = "***";
  /** Causes followed when an error is copied for a log; real chains are a handful deep. */
  private static final int MAX_CAUSES = 16;
  /**
   * A quoted literal. Possessive runs: a plain alternation repeated once per character recurses
   * once per character in java.util.regex, and a long literal overflowed the stack.
   */
  private static final Pattern STRING_LITERAL = Pattern.compile("'((?:[^']++|'')*+)'");
  private static final Pattern NUMBER_LITERAL = Pattern.compile("(?<![\\w.])\\d[\\d.]*(?:[eE][-+]?\\d+)?(?![\\w.])");
  private static final int MIN_NUMBER_LENGTH = 3;

  private Redaction() {}

  public static String redact(String message, String sql, List<Object> parameterValues) {
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

  /**
   * {@code sql} with every string literal replaced by {@code '?'} and every numeric literal by
   * {@code ?}: the statement's shape, which traces fingerprint, without its values.
   */
  public static String withoutLiterals(String sql) {
    String noStrings = STRING_LITERAL.matcher(sql).replaceAll("'?'");
    return NUMBER_LITERAL.matcher(noStrings).replaceAll("?");
  }

  /**
   * A copy of {@code error} and its causes for the server log: each message redacted against
   * {@code sql} and named by its original class, the stack traces kept, so that a log line helps
   * with the failure without quoting the statement's literals.
   */
  public static Throwable forLog(Throwable error, String sql) {
    return copy(error, sql, 0);
  }

  private static Throwable copy(Throwable error, String sql, int depth) {
    Throwable cause = error.getCause();
    Throwable copiedCause = cause == null || cause == error || depth >= MAX_CAUSES ? null : copy(cause, sql, depth + 1);
    String message = error.getMessage() == null ? null : redact(error.getMessage(), sql, List.of());
    Redacted copy = new Redacted(error.getClass().getName() + (message == null ? "" : ": " + message), copiedCause);
    copy.setStackTrace(error.getStackTrace());
    return copy;
  }

  /** An error as logged: the original's class name and redacted message, its stack trace. */
  private static final class Redacted extends RuntimeException {
    Redacted(String message, Throwable cause) {
      super(message, cause, false, true);
    }

    @Override
    public String toString() {
      return getMessage();
    }
  }
}
