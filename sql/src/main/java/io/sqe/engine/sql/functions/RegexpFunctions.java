package io.sqe.engine.sql.functions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.calcite.DataContext;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Trino's regular expression functions, with Java's regular expressions (Trino's own are Java's
 * syntax too): a pattern that does not compile, or a group the pattern lacks, is INVALID_ARGUMENT.
 * They match text that calls the query's checkpoint as it is read ({@link RegexFunctions#checked}),
 * so a statement timeout or a cancel stops a pattern that backtracks within one value, and
 * regexp_replace refuses a result over the query's limit on one value.
 */
public final class RegexpFunctions {
  /** The functions, for SQE's operator table; they replace Calcite's of the same names. */
  public static final List<SqlOperator> ALL = build();

  /** Compiled patterns; a statement's pattern is usually a constant, so few distinct ones are live at once. */
  private static final ConcurrentHashMap<String, Pattern> PATTERNS = new ConcurrentHashMap<>();
  private static final int MAX_PATTERNS = 1000;

  private RegexpFunctions() {}

  private static List<SqlOperator> build() {
    List<SqlOperator> all = new ArrayList<>();
    for (String name : List.of("regexp_like", "regexp_extract", "regexp_replace", "regexp_count", "regexp_position")) {
      all.addAll(JavaFunctions.scalar(name, RegexpFunctions.class, MathFunctions.camel(name)));
    }
    for (String name : List.of("regexp_extract_all", "regexp_split")) {
      all.addAll(JavaFunctions.scalar(name, RegexpFunctions.class, MathFunctions.camel(name),
          ReturnTypes.explicit(f -> f.createArrayType(f.createTypeWithNullability(f.createSqlType(SqlTypeName.VARCHAR), true), -1))));
    }
    return List.copyOf(all);
  }

  /** Whether {@code operator} is a library function that one of {@link #ALL} replaces. */
  public static boolean isReplaced(SqlOperator operator) {
    return ALL.stream().anyMatch(o -> o.getName().equalsIgnoreCase(operator.getName()) && o != operator);
  }

  private static Pattern pattern(String regex) {
    Pattern p = PATTERNS.get(regex);
    if (p != null) {
      return p;
    }
    try {
      p = Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException("Invalid regular expression '" + regex + "': " + e.getDescription());
    }
    if (PATTERNS.size() >= MAX_PATTERNS) {
      PATTERNS.clear();
    }
    PATTERNS.put(regex, p);
    return p;
  }

  private static void checkGroup(Matcher m, long group) {
    if (group < 0 || group > m.groupCount()) {
      throw new IllegalArgumentException("Pattern has " + m.groupCount() + " groups. Cannot access group " + group);
    }
  }

  // ---- called from generated code

  public static boolean regexpLike(DataContext root, String s, String regex) {
    return pattern(regex).matcher(RegexFunctions.checked(root, s)).find();
  }

  public static String regexpExtract(DataContext root, String s, String regex) {
    return regexpExtract(root, s, regex, 0);
  }

  public static String regexpExtract(DataContext root, String s, String regex, long group) {
    Matcher m = pattern(regex).matcher(RegexFunctions.checked(root, s));
    checkGroup(m, group);
    return m.find() ? m.group((int) group) : null;
  }

  public static List<String> regexpExtractAll(DataContext root, String s, String regex) {
    return regexpExtractAll(root, s, regex, 0);
  }

  public static List<String> regexpExtractAll(DataContext root, String s, String regex, long group) {
    Matcher m = pattern(regex).matcher(RegexFunctions.checked(root, s));
    checkGroup(m, group);
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group((int) group));
    }
    return out;
  }

  public static String regexpReplace(DataContext root, String s, String regex) {
    return regexpReplace(root, s, regex, "");
  }

  public static String regexpReplace(DataContext root, String s, String regex, String replacement) {
    Matcher m = pattern(regex).matcher(RegexFunctions.checked(root, s));
    StringBuilder result = new StringBuilder();
    long limit = BoundedFunctions.limit(root);
    try {
      while (m.find()) {
        m.appendReplacement(result, replacement);
        if (result.length() > limit) {
          BoundedFunctions.check(root, result.length(), "regexp_replace");
        }
      }
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("Illegal replacement sequence: " + replacement);
    }
    m.appendTail(result);
    BoundedFunctions.check(root, result.length(), "regexp_replace");
    return result.toString();
  }

  public static long regexpCount(DataContext root, String s, String regex) {
    Matcher m = pattern(regex).matcher(RegexFunctions.checked(root, s));
    long count = 0;
    while (m.find()) {
      count++;
    }
    return count;
  }

  public static int regexpPosition(DataContext root, String s, String regex) {
    return regexpPosition(root, s, regex, 1, 1);
  }

  public static int regexpPosition(DataContext root, String s, String regex, long start) {
    return regexpPosition(root, s, regex, start, 1);
  }

  /** The 1-based position of the {@code occurrence}th match at or after {@code start}; -1 when there is none. */
  public static int regexpPosition(DataContext root, String s, String regex, long start, long occurrence) {
    if (start < 1) {
      throw new IllegalArgumentException("start position cannot be smaller than 1");
    }
    if (occurrence < 1) {
      throw new IllegalArgumentException("occurrence cannot be smaller than 1");
    }
    if (start > s.length()) {
      return -1;
    }
    Matcher m = pattern(regex).matcher(RegexFunctions.checked(root, s));
    int from = (int) start - 1;
    for (long found = 0; m.find(from); ) {
      if (++found == occurrence) {
        return m.start() + 1;
      }
      from = m.end() == m.start() ? m.end() + 1 : m.end();
      if (from > s.length()) {
        break;
      }
    }
    return -1;
  }

  public static List<String> regexpSplit(DataContext root, String s, String regex) {
    return Arrays.asList(pattern(regex).split(RegexFunctions.checked(root, s), -1));
  }
}
