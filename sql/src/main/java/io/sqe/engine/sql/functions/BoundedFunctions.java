package io.sqe.engine.sql.functions;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.calcite.DataContext;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.runtime.SqlFunctions;
import org.apache.calcite.sql.SqlOperator;

/**
 * The string functions whose result can be far larger than their arguments, as generated code runs
 * them: each works out the length of its result from its arguments and refuses one longer than the
 * query's limit ({@code query.max-value-size}) with INVALID_ARGUMENT naming the function, before
 * allocating anything (Calcite's {@code lpad('x', 2000000000, 'y')} and {@code repeat('x',
 * 2147483647)} grew a builder until the heap ran out). Lengths are in characters (UTF-16 code
 * units, as Java strings count them), bytes for binary values and elements for arrays (maps:
 * entries), all under the one limit. Within the limit each function is Calcite's own.
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
  /** {@code lpad} and {@code rpad} on binary values. */
  public static final SqlOperator BINARY_LPAD = ExecutionFunction.operator("SQE_BINARY_LPAD", BoundedFunctions.class, "binaryLpad");
  public static final SqlOperator BINARY_RPAD = ExecutionFunction.operator("SQE_BINARY_RPAD", BoundedFunctions.class, "binaryRpad");
  /** {@code b1 || b2} on binary values. */
  public static final SqlOperator BINARY_CONCAT = ExecutionFunction.operator("SQE_BINARY_CONCAT", BoundedFunctions.class, "binaryConcat");
  /** {@code a1 || a2} on arrays. */
  public static final SqlOperator ARRAY_CONCAT_OPERATOR =
      ExecutionFunction.operator("SQE_ARRAY_CONCAT_OPERATOR", BoundedFunctions.class, "arrayConcatOperator");
  /** {@code array_concat(a1, a2, ...)}. */
  public static final SqlOperator ARRAY_CONCAT = ExecutionFunction.operator("SQE_ARRAY_CONCAT", BoundedFunctions.class, "arrayConcat");
  /** {@code concat(s1, s2, ...)}, PostgreSQL's: a NULL operand counts as empty. */
  public static final SqlOperator CONCAT_FUNCTION =
      ExecutionFunction.operatorTakingNulls("SQE_CONCAT_FUNCTION", BoundedFunctions.class, "concatFunction");
  /** {@code concat_ws(separator, s1, ...)}, PostgreSQL's: NULL operands are left out, arrays' elements joined. */
  public static final SqlOperator CONCAT_WS = ExecutionFunction.operatorTakingNulls("SQE_CONCAT_WS", BoundedFunctions.class, "concatWs");
  /** {@code overlay(s PLACING r FROM n [FOR length])} on text. */
  public static final SqlOperator OVERLAY = ExecutionFunction.operator("SQE_OVERLAY", BoundedFunctions.class, "overlay");
  /** {@code overlay} on binary values. */
  public static final SqlOperator BINARY_OVERLAY = ExecutionFunction.operator("SQE_BINARY_OVERLAY", BoundedFunctions.class, "binaryOverlay");
  /** {@code array_join} and {@code array_to_string}. */
  public static final SqlOperator ARRAY_TO_STRING =
      ExecutionFunction.operator("SQE_ARRAY_TO_STRING", BoundedFunctions.class, "arrayToString");

  /**
   * {@code checked(value, function)}: the value of a JSON constructor or formatter, refused when
   * over the limit. Their text is only known once built, but each builds from operands that are
   * themselves within the limit and at most escapes each character (six times, {@code \u0000}),
   * so nesting them cannot compound: each level is checked before the next one builds on it.
   */
  public static final SqlOperator CHECKED = ExecutionFunction.operator("SQE_CHECKED", BoundedFunctions.class, "checked");

  /** Calcite's default fill of binary {@code lpad} and {@code rpad}. */
  private static final ByteString SPACE = new ByteString(new byte[] {' '});

  private BoundedFunctions() {}

  /** The largest value one call may produce in the execution {@code root} belongs to. */
  static long limit(DataContext root) {
    Object limit = root.get(VARIABLE);
    return limit instanceof Long ? (Long) limit : WHILE_PLANNING;
  }

  /** Throws when a result of {@code length} characters would be over the limit. */
  static void check(DataContext root, long length, String function) {
    check(root, length, function, "characters");
  }

  /** Throws when a binary result of {@code length} bytes would be over the limit. */
  static void checkBytes(DataContext root, long length, String function) {
    check(root, length, function, "bytes");
  }

  /** Throws when an array (or map) of {@code count} elements (entries) would be over the limit. */
  static void checkElements(DataContext root, long count, String function) {
    check(root, count, function, "elements");
  }

  private static void check(DataContext root, long length, String function, String unit) {
    long limit = limit(root);
    if (length > limit) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          function + " would return " + length + " " + unit + ", more than the limit of " + limit
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

  public static String checked(DataContext root, String value, String function) {
    check(root, value.length(), function);
    return value;
  }

  public static String concat(DataContext root, String a, String b) {
    check(root, (long) a.length() + b.length(), "||");
    return a.concat(b);
  }

  public static ByteString binaryLpad(DataContext root, ByteString b, long length) {
    return binaryLpad(root, b, length, SPACE);
  }

  public static ByteString binaryLpad(DataContext root, ByteString b, long length, ByteString fill) {
    checkBytes(root, length, "lpad");
    return SqlFunctions.lpad(b, length < 0 ? -1 : (int) length, fill);
  }

  public static ByteString binaryRpad(DataContext root, ByteString b, long length) {
    return binaryRpad(root, b, length, SPACE);
  }

  public static ByteString binaryRpad(DataContext root, ByteString b, long length, ByteString fill) {
    checkBytes(root, length, "rpad");
    return SqlFunctions.rpad(b, length < 0 ? -1 : (int) length, fill);
  }

  public static ByteString binaryConcat(DataContext root, ByteString a, ByteString b) {
    checkBytes(root, (long) a.length() + b.length(), "||");
    return a.concat(b);
  }

  public static List<Object> arrayConcatOperator(DataContext root, List<?> a, List<?> b) {
    return concatenated(root, "||", a, b);
  }

  public static List<Object> arrayConcat(DataContext root, List<?>... arrays) {
    return concatenated(root, "array_concat", arrays);
  }

  private static List<Object> concatenated(DataContext root, String function, List<?>... arrays) {
    long count = 0;
    for (List<?> array : arrays) {
      count += array.size();
    }
    checkElements(root, count, function);
    List<Object> out = new ArrayList<>((int) count);
    for (List<?> array : arrays) {
      out.addAll(array);
    }
    return out;
  }

  public static String concatFunction(DataContext root, String... strings) {
    long length = 0;
    for (String s : strings) {
      length += s == null ? 0 : s.length();
    }
    check(root, length, "concat");
    return SqlFunctions.concatMultiWithNull(strings);
  }

  /** Each operand is a string or an array of strings, as Calcite passes them. */
  public static String concatWs(DataContext root, String separator, Object... operands) {
    if (separator == null) {
      return null;
    }
    long length = 0;
    long pieces = 0;
    for (Object operand : operands) {
      for (Object piece : operand instanceof List<?> list ? list : Collections.singletonList(operand)) {
        if (piece != null) {
          length += piece.toString().length();
          pieces++;
        }
      }
    }
    check(root, length + Math.max(0, pieces - 1) * separator.length(), "concat_ws");
    return SqlFunctions.concatMultiTypeWithSeparator(separator, operands);
  }

  public static String overlay(DataContext root, String s, String replacement, long start) {
    return overlay(root, s, replacement, start, replacement.length());
  }

  public static String overlay(DataContext root, String s, String replacement, long start, long length) {
    check(root, overlaid(s.length(), replacement.length(), start, length), "overlay");
    return SqlFunctions.overlay(s, replacement, (int) start, (int) length);
  }

  public static ByteString binaryOverlay(DataContext root, ByteString b, ByteString replacement, long start) {
    return binaryOverlay(root, b, replacement, start, replacement.length());
  }

  public static ByteString binaryOverlay(DataContext root, ByteString b, ByteString replacement, long start, long length) {
    checkBytes(root, overlaid(b.length(), replacement.length(), start, length), "overlay");
    return SqlFunctions.overlay(b, replacement, (int) start, (int) length);
  }

  /** The length of {@code overlay}'s result: what precedes {@code start}, the replacement, and what follows the part replaced. */
  private static long overlaid(long length, long replacement, long start, long replaced) {
    long before = Math.min(Math.max(start - 1, 0), length);
    return before + replacement + Math.max(0, length - (before + Math.max(replaced, 0)));
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
