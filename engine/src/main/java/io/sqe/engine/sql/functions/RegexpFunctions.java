package io.sqe.engine.sql.functions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Trino's regular expression functions, with Java's regular expressions (Trino's own are Java's
 * syntax too): a pattern that does not compile, or a group the pattern lacks, is INVALID_ARGUMENT.
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
      throw new IllegalArgumentException("Invalid regular expression: " + e.getDescription() + " in " + regex);
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

  @Strict
  public static boolean regexpLike(String s, String regex) {
    return pattern(regex).matcher(s).find();
  }

  @Strict
  public static String regexpExtract(String s, String regex) {
    return regexpExtract(s, regex, 0);
  }

  @Strict
  public static String regexpExtract(String s, String regex, long group) {
    Matcher m = pattern(regex).matcher(s);
    checkGroup(m, group);
    return m.find() ? m.group((int) group) : null;
  }

  @Strict
  public static List<String> regexpExtractAll(String s, String regex) {
    return regexpExtractAll(s, regex, 0);
  }

  @Strict
  public static List<String> regexpExtractAll(String s, String regex, long group) {
    Matcher m = pattern(regex).matcher(s);
    checkGroup(m, group);
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group((int) group));
    }
    return out;
  }

  @Strict
  public static String regexpReplace(String s, String regex) {
    return pattern(regex).matcher(s).replaceAll("");
  }

  @Strict
  public static String regexpReplace(String s, String regex, String replacement) {
    try {
      return pattern(regex).matcher(s).replaceAll(replacement);
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("Illegal replacement sequence: " + replacement);
    }
  }

  @Strict
  public static long regexpCount(String s, String regex) {
    Matcher m = pattern(regex).matcher(s);
    long count = 0;
    while (m.find()) {
      count++;
    }
    return count;
  }

  @Strict
  public static int regexpPosition(String s, String regex) {
    return regexpPosition(s, regex, 1, 1);
  }

  @Strict
  public static int regexpPosition(String s, String regex, long start) {
    return regexpPosition(s, regex, start, 1);
  }

  /** The 1-based position of the {@code occurrence}th match at or after {@code start}; -1 when there is none. */
  @Strict
  public static int regexpPosition(String s, String regex, long start, long occurrence) {
    if (start < 1) {
      throw new IllegalArgumentException("start position cannot be smaller than 1");
    }
    if (occurrence < 1) {
      throw new IllegalArgumentException("occurrence cannot be smaller than 1");
    }
    if (start > s.length()) {
      return -1;
    }
    Matcher m = pattern(regex).matcher(s);
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

  @Strict
  public static List<String> regexpSplit(String s, String regex) {
    return Arrays.asList(pattern(regex).split(s, -1));
  }
}
