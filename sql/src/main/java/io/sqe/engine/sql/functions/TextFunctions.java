package io.sqe.engine.sql.functions;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Formatter;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;

/** Trino's string functions that Calcite's libraries lack or define otherwise. */
public final class TextFunctions {
  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = build();

  private TextFunctions() {}

  private static List<SqlOperator> build() {
    List<SqlOperator> all = new ArrayList<>();
    for (String name : List.of("levenshtein_distance", "hamming_distance", "codepoint", "luhn_check", "normalize")) {
      all.addAll(JavaFunctions.scalar(name, TextFunctions.class, MathFunctions.camel(name)));
    }
    all.addAll(JavaFunctions.scalar("reverse", TextFunctions.class, "reverse"));
    all.addAll(JavaFunctions.scalar("format_number", TextFunctions.class, "formatNumber"));
    all.addAll(JavaFunctions.scalar("format", TextFunctions.class, "format"));
    all.addAll(JavaFunctions.scalar("split", TextFunctions.class, "split",
        ReturnTypes.explicit(f -> f.createArrayType(f.createSqlType(SqlTypeName.VARCHAR), -1))));
    return List.copyOf(all);
  }

  // ---- called from generated code

  @Strict
  public static long levenshteinDistance(String a, String b) {
    int[] x = a.codePoints().toArray();
    int[] y = b.codePoints().toArray();
    int[] previous = new int[y.length + 1];
    int[] current = new int[y.length + 1];
    for (int j = 0; j <= y.length; j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= x.length; i++) {
      current[0] = i;
      for (int j = 1; j <= y.length; j++) {
        int substitution = previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[y.length];
  }

  @Strict
  public static long hammingDistance(String a, String b) {
    int[] x = a.codePoints().toArray();
    int[] y = b.codePoints().toArray();
    if (x.length != y.length) {
      throw new IllegalArgumentException("The input strings to hamming_distance function must have the same length");
    }
    long distance = 0;
    for (int i = 0; i < x.length; i++) {
      distance += x[i] == y[i] ? 0 : 1;
    }
    return distance;
  }

  @Strict
  public static int codepoint(String s) {
    if (s.codePointCount(0, s.length()) != 1) {
      throw new IllegalArgumentException("Input string must be a single character string");
    }
    return s.codePointAt(0);
  }

  @Strict
  public static boolean luhnCheck(String digits) {
    if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException("Input contains non-digit character");
    }
    int sum = 0;
    boolean doubled = false;
    for (int i = digits.length() - 1; i >= 0; i--) {
      int d = digits.charAt(i) - '0';
      if (doubled) {
        d *= 2;
        d = d > 9 ? d - 9 : d;
      }
      sum += d;
      doubled = !doubled;
    }
    return sum % 10 == 0;
  }

  /** NFC, the form Trino's normalize(s) uses. */
  @Strict
  public static String normalize(String s) {
    return Normalizer.normalize(s, Normalizer.Form.NFC);
  }

  /** {@code s} in Unicode normalization form NFC, NFD, NFKC or NFKD. */
  @Strict
  public static String normalize(String s, String form) {
    try {
      return Normalizer.normalize(s, Normalizer.Form.valueOf(form.toUpperCase(java.util.Locale.ROOT)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Normalization form must be one of [NFD, NFC, NFKD, NFKC]: " + form);
    }
  }

  /** 1234567 as "1.23M": three significant digits and K, M, B, T or Q for thousands and up. */
  @Strict
  public static String formatNumber(Number value) {
    java.math.BigDecimal x = new java.math.BigDecimal(value.toString());
    String[] units = {"", "K", "M", "B", "T", "Q"};
    int unit = 0;
    while (unit < units.length - 1 && x.abs().compareTo(java.math.BigDecimal.valueOf(1000)) >= 0) {
      x = x.movePointLeft(3);
      unit++;
    }
    java.math.BigDecimal rounded = x.round(new java.math.MathContext(3, java.math.RoundingMode.HALF_UP));
    return rounded.stripTrailingZeros().toPlainString() + units[unit];
  }

  /** Trino's format(format, args...): Java's Formatter, with one to five arguments. */
  @TakesNulls
  public static String format(DataContext root, String format, Object a) {
    return formatted(root, format, a);
  }

  @TakesNulls
  public static String format(DataContext root, String format, Object a, Object b) {
    return formatted(root, format, a, b);
  }

  @TakesNulls
  public static String format(DataContext root, String format, Object a, Object b, Object c) {
    return formatted(root, format, a, b, c);
  }

  @TakesNulls
  public static String format(DataContext root, String format, Object a, Object b, Object c, Object d) {
    return formatted(root, format, a, b, c, d);
  }

  @TakesNulls
  public static String format(DataContext root, String format, Object a, Object b, Object c, Object d, Object e) {
    return formatted(root, format, a, b, c, d, e);
  }

  /** A width or precision in a format specifier: {@code %[index$][flags][width][.precision]}. */
  private static final Pattern SIZES = Pattern.compile("%(?:\\d+\\$)?[-#+ 0,(<]*(\\d+)?(?:\\.(\\d+))?");

  /**
   * The formatted text, refused when over the query's limit: a width or precision over it before
   * anything is formatted (a precision's digits are built before they are written), the text as
   * soon as it grows past it.
   */
  private static String formatted(DataContext root, String format, Object... args) {
    if (format == null) {
      return null;
    }
    long limit = BoundedFunctions.limit(root);
    Matcher sizes = SIZES.matcher(format);
    while (sizes.find()) {
      for (int group = 1; group <= 2; group++) {
        String digits = sizes.group(group);
        if (digits != null && (digits.length() > 18 || Long.parseLong(digits) > limit)) {
          BoundedFunctions.check(root, digits.length() > 18 ? Long.MAX_VALUE : Long.parseLong(digits), "format");
        }
      }
    }
    StringBuilder text = new StringBuilder();
    Appendable bounded = new Appendable() {
      @Override
      public Appendable append(CharSequence s) {
        return append(s, 0, s == null ? 4 : s.length());
      }

      @Override
      public Appendable append(CharSequence s, int start, int end) {
        BoundedFunctions.check(root, (long) text.length() + end - start, "format");
        text.append(s, start, end);
        return this;
      }

      @Override
      public Appendable append(char c) {
        BoundedFunctions.check(root, text.length() + 1L, "format");
        text.append(c);
        return this;
      }
    };
    try (Formatter formatter = new Formatter(bounded, Locale.ENGLISH)) {
      formatter.format(format, args);
    } catch (java.util.IllegalFormatException e) {
      throw new IllegalArgumentException("Invalid format string: " + format + " (" + e.getMessage() + ")");
    }
    return text.toString();
  }

  @Strict
  public static String reverse(String s) {
    return new StringBuilder(s).reverse().toString();
  }

  /** {@code s} split at each {@code delimiter} (plain text). */
  @Strict
  public static List<String> split(String s, String delimiter) {
    return split(s, delimiter, Long.MAX_VALUE);
  }

  /** At most {@code limit} fields, the last holding the rest. */
  @Strict
  public static List<String> split(String s, String delimiter, long limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("Limit must be positive");
    }
    if (delimiter.isEmpty()) {
      throw new IllegalArgumentException("The delimiter may not be the empty string");
    }
    List<String> fields = new ArrayList<>();
    int from = 0;
    while (fields.size() < limit - 1) {
      int at = s.indexOf(delimiter, from);
      if (at < 0) {
        break;
      }
      fields.add(s.substring(from, at));
      from = at + delimiter.length();
    }
    fields.add(s.substring(from));
    return fields;
  }
}
