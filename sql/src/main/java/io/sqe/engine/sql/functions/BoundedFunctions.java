package io.sqe.engine.sql.functions;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.List;
import org.apache.calcite.DataContext;
import org.apache.calcite.runtime.SqlFunctions;
import org.apache.calcite.sql.SqlOperator;

/**
 * The string functions whose result can be far larger than their arguments, as generated code runs
 * them: each works out the length of its result from its arguments and refuses one longer than the
 * query's limit ({@code query.max-value-size}) with INVALID_ARGUMENT naming the function, before
 * allocating anything (Calcite's {@code lpad('x', 2000000000, 'y')} and {@code repeat('x',
 * 2147483647)} grew a builder until the heap ran out). Lengths are in characters (UTF-16 code
 * units, as Java strings count them). Within the limit each function is Calcite's own.
 */
public final class BoundedFunctions {
  /** The {@link DataContext} variable that holds the limit of an execution. */
  public static final String VARIABLE = "sqe.maxValueSize";

  /**
   * The limit while the planner folds constants, where no execution supplies one: a larger
   * constant is left to execution, under the query's own limit (which is never smaller).
   */
  public static final long WHILE_PLANNING = 1L << 20;

  public static final SqlOperator LPAD = ExecutionFunction.operator("SQE_LPAD", BoundedFunctions.class, "lpad");
  public static final SqlOperator RPAD = ExecutionFunction.operator("SQE_RPAD", BoundedFunctions.class, "rpad");
  public static final SqlOperator REPEAT = ExecutionFunction.operator("SQE_REPEAT", BoundedFunctions.class, "repeat");
  public static final SqlOperator REPLACE = ExecutionFunction.operator("SQE_REPLACE", BoundedFunctions.class, "replace");
  /** {@code s1 || s2} on strings. */
  public static final SqlOperator CONCAT = ExecutionFunction.operator("SQE_CONCAT", BoundedFunctions.class, "concat");
  /** {@code array_join} and {@code array_to_string}. */
  public static final SqlOperator ARRAY_TO_STRING =
      ExecutionFunction.operator("SQE_ARRAY_TO_STRING", BoundedFunctions.class, "arrayToString");

  private BoundedFunctions() {}

  /** The largest value one call may produce in the execution {@code root} belongs to. */
  static long limit(DataContext root) {
    Object limit = root.get(VARIABLE);
    return limit instanceof Long ? (Long) limit : WHILE_PLANNING;
  }

  /** Throws when a result of {@code length} characters would be over the limit. */
  static void check(DataContext root, long length, String function) {
    long limit = limit(root);
    if (length > limit) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          function + " would return " + length + " characters, more than the limit of " + limit
              + " for one value (query.max-value-size)");
    }
  }

  // ---- called from generated code

  public static String lpad(DataContext root, String s, long length) {
    return lpad(root, s, length, " ");
  }

  public static String lpad(DataContext root, String s, long length, String fill) {
    check(root, length, "lpad");
    return SqlFunctions.lpad(s, length < 0 ? -1 : (int) length, fill);
  }

  public static String rpad(DataContext root, String s, long length) {
    return rpad(root, s, length, " ");
  }

  public static String rpad(DataContext root, String s, long length, String fill) {
    check(root, length, "rpad");
    return SqlFunctions.rpad(s, length < 0 ? -1 : (int) length, fill);
  }

  public static String repeat(DataContext root, String s, long count) {
    if (count > 0) {
      // A count past the limit overflows no product: it is over the limit with any non-empty s.
      check(root, s.isEmpty() ? 0 : count > limit(root) ? count : s.length() * count, "repeat");
    }
    return SqlFunctions.repeat(s, (int) Math.max(count, 0));
  }

  public static String replace(DataContext root, String s, String search, String replacement) {
    if (!search.isEmpty() && replacement.length() > search.length()) {
      long matches = 0;
      for (int at = s.indexOf(search); at >= 0; at = s.indexOf(search, at + search.length())) {
        matches++;
      }
      check(root, s.length() + matches * (replacement.length() - search.length()), "replace");
    }
    return SqlFunctions.replace(s, search, replacement, true);
  }

  public static String concat(DataContext root, String a, String b) {
    check(root, (long) a.length() + b.length(), "||");
    return a.concat(b);
  }

  public static String arrayToString(DataContext root, List<?> array, String delimiter) {
    check(root, joinedLength(array, delimiter, null), "array_to_string");
    return SqlFunctions.arrayToString(array, delimiter);
  }

  public static String arrayToString(DataContext root, List<?> array, String delimiter, String nullText) {
    check(root, joinedLength(array, delimiter, nullText), "array_to_string");
    return SqlFunctions.arrayToString(array, delimiter, nullText);
  }

  private static long joinedLength(List<?> array, String delimiter, String nullText) {
    long length = 0;
    long items = 0;
    for (Object item : array) {
      if (item == null && nullText == null) {
        continue;
      }
      length += item == null ? nullText.length() : item.toString().length();
      items++;
    }
    return length + Math.max(0, items - 1) * delimiter.length();
  }
}
