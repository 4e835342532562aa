package io.sqe.engine.exec.window;

import static java.util.Objects.requireNonNull;

import org.apache.arrow.vector.types.pojo.Field;

/**
 * One function of a window group: what it computes, the input column it reads (-1 for none), its
 * constant operand (LAG's and LEAD's offset, NTH_VALUE's position, NTILE's bucket count), LAG's
 * and LEAD's default (a column, or a constant when {@code defaultColumn} is -1; null for none),
 * and the Arrow field of its result.
 */
public record WindowFunction(Kind kind, int argument, long constant, int defaultColumn, Object defaultValue, Field output) {
  /** The window functions the columnar window computes. */
  public enum Kind {
    ROW_NUMBER,
    RANK,
    DENSE_RANK,
    NTILE,
    LAG,
    LEAD,
    FIRST_VALUE,
    LAST_VALUE,
    NTH_VALUE,
    COUNT_STAR,
    COUNT,
    /** SUM that is 0 over no rows; Calcite writes SUM and AVG over a window with it and COUNT. */
    SUM0,
    MIN,
    MAX;

    /** Whether the function adds up its frame's rows (the others read rows by position). */
    boolean accumulates() {
      return switch (this) {
        case COUNT_STAR, COUNT, SUM0, MIN, MAX -> true;
        default -> false;
      };
    }
  }

  public WindowFunction {
    requireNonNull(kind, "kind is null");
    requireNonNull(output, "output is null");
  }

  /** Whether a constant (in the engine's run-time representation; null for NULL) can be LAG's or LEAD's default into {@code output}. */
  public static boolean writes(Field output, Object value) {
    return Values.writes(output, value);
  }

  public static WindowFunction of(Kind kind, int argument, Field output) {
    return new WindowFunction(kind, argument, 0, -1, null, output);
  }
}
