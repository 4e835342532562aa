package io.sqe.engine.session;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.Locale;

/**
 * Names and values of planner and execution options as {@code sqe.yaml} and {@code SET} write
 * them: a name is compared in lower case with {@code _} and {@code -} alike (so that {@code SET
 * planner.parallel_min_rows = 0} needs no quotes), a value is parsed strictly, and a bad one is an
 * INVALID_ARGUMENT that names the option.
 */
public final class OptionText {
  private OptionText() {}

  /** {@code name} as options are keyed: lower case, with {@code -} for {@code _}. */
  public static String normalize(String name) {
    return name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** {@code true} or {@code false}, in any case. */
  public static boolean bool(String name, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.equals("true") || v.equals("false")) {
      return v.equals("true");
    }
    throw invalid(name, value, "true or false");
  }

  /** A whole number from {@code min} up. */
  public static long atLeast(String name, String value, long min) {
    long parsed;
    try {
      parsed = Long.parseLong(value.trim().replace("_", ""));
    } catch (NumberFormatException e) {
      throw invalid(name, value, "a whole number of at least " + min);
    }
    if (parsed < min) {
      throw invalid(name, value, "a whole number of at least " + min);
    }
    return parsed;
  }

  /** A finite number from {@code min} up; above {@code min} only when {@code exclusive}. */
  public static double decimal(String name, String value, double min, boolean exclusive) {
    String expected = "a number " + (exclusive ? "above " : "of at least ") + min;
    double parsed;
    try {
      parsed = Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw invalid(name, value, expected);
    }
    if (!Double.isFinite(parsed) || parsed < min || (exclusive && parsed == min)) {
      throw invalid(name, value, expected);
    }
    return parsed;
  }

  private static SqeException invalid(String name, String value, String expected) {
    return new SqeException(ErrorCode.INVALID_ARGUMENT, "Invalid value '" + value + "' for " + name + ": use " + expected);
  }
}
