package io.sqe.engine.sql.functions;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.Checkpoint;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.calcite.DataContext;
import org.apache.calcite.runtime.SqlFunctions;
import org.apache.calcite.sql.SqlOperator;

/**
 * Regular expressions as generated code runs them: {@code SIMILAR TO}, {@code regexp_like} and
 * PostgreSQL's {@code regexp_replace}, with Calcite's semantics (its translation of SIMILAR TO
 * patterns, its flags and replacement syntax), but matched on
 * text that calls the query's {@link Checkpoint} every {@link LikePattern#CHECK_INTERVAL} reads.
 * java.util.regex backtracks, exponentially or as a high power of the text's length for some
 * patterns ({@code (.*a){12}b}); the checks let a statement timeout or a cancel stop it within one
 * value, and bound what the planner spends folding one over literals.
 *
 * <p>RE2-style matching ({@code com.google.re2j}) would take linear time, but it is not on the
 * classpath and refuses what users write for java.util.regex and PostgreSQL today (backreferences,
 * lookaround, Java's character classes), so SQE keeps the semantics and bounds the time instead.
 */
public final class RegexFunctions {
  public static final SqlOperator SIMILAR = ExecutionFunction.operator("SQE_SIMILAR", RegexFunctions.class, "similar");
  public static final SqlOperator NOT_SIMILAR = ExecutionFunction.operator("SQE_NOT_SIMILAR", RegexFunctions.class, "notSimilar");
  /** {@code regexp_like(s, regex [, flags])}. */
  public static final SqlOperator REGEXP_LIKE = ExecutionFunction.operator("SQE_REGEXP_LIKE", RegexFunctions.class, "regexpLike");
  /** PostgreSQL's {@code regexp_replace(s, regex, replacement [, flags])}. */
  public static final SqlOperator REGEXP_REPLACE =
      ExecutionFunction.operator("SQE_REGEXP_REPLACE", RegexFunctions.class, "regexpReplace");

  /** Calcite's translation of SIMILAR TO patterns, which it does not make public. */
  private static final Method SIMILAR_TO_REGEX = calciteLike("sqlToRegexSimilar", String.class, CharSequence.class);

  private record Key(String kind, String pattern, String option, int flags) {}

  private static final Cache<Key, Object> COMPILED = Caffeine.newBuilder().maximumSize(1_000).build();

  private RegexFunctions() {}

  private static Method calciteLike(String name, Class<?>... parameters) {
    try {
      Method method = Class.forName("org.apache.calcite.runtime.Like").getDeclaredMethod(name, parameters);
      method.setAccessible(true);
      return method;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Calcite's Like." + name + " is missing", e);
    }
  }

  private static Object call(Method method, Object... arguments) {
    try {
      return method.invoke(null, arguments);
    } catch (InvocationTargetException e) {
      throw invalid(String.valueOf(arguments[0]), e.getCause());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static SqeException invalid(String pattern, Throwable cause) {
    String reason = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage().replace(System.lineSeparator(), " ");
    return new SqeException(ErrorCode.INVALID_ARGUMENT, "Invalid regular expression '" + pattern + "': " + reason, cause);
  }

  private static Pattern similarPattern(String pattern, String escape) {
    return (Pattern) COMPILED.get(new Key("similar", pattern, escape, 0), k -> compile((String) call(SIMILAR_TO_REGEX, pattern, escape), 0, pattern));
  }

  private static Pattern javaPattern(String regex, int flags) {
    return (Pattern) COMPILED.get(new Key("java", regex, null, flags), k -> compile(regex, flags, regex));
  }

  private static Pattern compile(String regex, int flags, String written) {
    try {
      return Pattern.compile(regex, flags);
    } catch (PatternSyntaxException e) {
      throw invalid(written, e);
    }
  }

  private static String replacement(String replacement) {
    return (String) COMPILED.get(new Key("replacement", replacement, null, 0), k -> {
      try {
        return SqlFunctions.RegexFunction.replaceNonDollarIndexedString(replacement);
      } catch (RuntimeException e) {
        throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Invalid replacement '" + replacement + "' for regexp_replace", e);
      }
    });
  }

  /** PostgreSQL's flags as Calcite reads them: i, c, n, m, s; g is handled by the caller. */
  private static int flags(String flags) {
    int result = 0;
    for (int i = 0; i < flags.length(); i++) {
      switch (flags.charAt(i)) {
        case 'i' -> result |= Pattern.CASE_INSENSITIVE;
        case 'c' -> result &= ~Pattern.CASE_INSENSITIVE;
        case 'n' -> result |= Pattern.DOTALL;
        case 'm' -> result |= Pattern.MULTILINE;
        case 's' -> result &= ~Pattern.DOTALL;
        case 'g' -> { }
        default -> throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Invalid regular expression flags '" + flags + "'");
      }
    }
    return result;
  }

  /**
   * {@code s} as text that calls {@code root}'s checkpoint while a matcher reads it (also for
   * Trino's functions, {@link RegexpFunctions}).
   */
  static CharSequence checked(DataContext root, String s) {
    return new CheckedText(s, Checkpoint.of(root));
  }

  // ---- called from generated code

  public static boolean similar(DataContext root, String s, String pattern) {
    return similarPattern(pattern, null).matcher(checked(root, s)).matches();
  }

  public static boolean similar(DataContext root, String s, String pattern, String escape) {
    return similarPattern(pattern, escape).matcher(checked(root, s)).matches();
  }

  public static boolean notSimilar(DataContext root, String s, String pattern) {
    return !similar(root, s, pattern);
  }

  public static boolean notSimilar(DataContext root, String s, String pattern, String escape) {
    return !similar(root, s, pattern, escape);
  }

  public static boolean regexpLike(DataContext root, String s, String regex) {
    return javaPattern(regex, 0).matcher(checked(root, s)).find();
  }

  public static boolean regexpLike(DataContext root, String s, String regex, String flags) {
    return javaPattern(regex, flags(flags)).matcher(checked(root, s)).find();
  }

  /** The first match replaced, as in PostgreSQL; {@code \1} names a group. */
  public static String regexpReplace(DataContext root, String s, String regex, String replacement) {
    return replace(root, javaPattern(regex, 0).matcher(checked(root, s)), replacement(replacement), false);
  }

  /** With flags: {@code g} replaces every match. */
  public static String regexpReplace(DataContext root, String s, String regex, String replacement, String flags) {
    return replace(root, javaPattern(regex, flags(flags)).matcher(checked(root, s)), replacement(replacement), flags.indexOf('g') >= 0);
  }

  /** The replaced text, refused as soon as it grows past the query's limit on one value. */
  private static String replace(DataContext root, Matcher matcher, String replacement, boolean all) {
    StringBuilder result = new StringBuilder();
    long limit = BoundedFunctions.limit(root);
    while (matcher.find()) {
      matcher.appendReplacement(result, replacement);
      if (result.length() > limit) {
        BoundedFunctions.check(root, result.length(), "regexp_replace");
      }
      if (!all) {
        break;
      }
    }
    matcher.appendTail(result);
    BoundedFunctions.check(root, result.length(), "regexp_replace");
    return result.toString();
  }

  /** Text that calls a checkpoint every {@link LikePattern#CHECK_INTERVAL} reads of a character. */
  private static final class CheckedText implements CharSequence {
    private final String text;
    private final Checkpoint checkpoint;
    private int countdown = LikePattern.CHECK_INTERVAL;

    CheckedText(String text, Checkpoint checkpoint) {
      this.text = text;
      this.checkpoint = checkpoint;
    }

    @Override
    public char charAt(int index) {
      if (--countdown == 0) {
        countdown = LikePattern.CHECK_INTERVAL;
        checkpoint.check();
      }
      return text.charAt(index);
    }

    @Override
    public int length() {
      return text.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return text.subSequence(start, end);
    }

    @Override
    public String toString() {
      return text;
    }
  }
}
