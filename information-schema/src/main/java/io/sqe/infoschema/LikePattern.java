package io.sqe.infoschema;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A Flight SQL (and JDBC) name filter pattern: SQL LIKE syntax, where {@code %} matches any run of
 * characters, {@code _} matches one character, and a backslash makes the next character literal.
 * Matching is case-sensitive, as names are compared the way the catalog stores them.
 */
public final class LikePattern {
  /** The escape character clients learn from SQL_SEARCH_STRING_ESCAPE. */
  public static final char ESCAPE = '\\';

  private static final LikePattern ANY = new LikePattern(null, null);

  private final String pattern;
  private final Pattern regex;

  private LikePattern(String pattern, Pattern regex) {
    this.pattern = pattern;
    this.regex = regex;
  }

  /** A pattern; null means no filter (every name matches), as an absent protobuf field does. */
  public static LikePattern of(String pattern) {
    return pattern == null
        ? ANY
        : new LikePattern(pattern, Pattern.compile(toRegex(pattern), Pattern.DOTALL));
  }

  /** The Java regular expression equivalent to a LIKE pattern. */
  public static String toRegex(String pattern) {
    StringBuilder regex = new StringBuilder(pattern.length() + 16);
    StringBuilder literal = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == ESCAPE) {
        if (i + 1 == pattern.length()) {
          throw new SqeException(
              ErrorCode.INVALID_ARGUMENT, "Name pattern must not end with the escape character: " + pattern);
        }
        literal.append(pattern.charAt(++i));
      } else if (c == '%' || c == '_') {
        appendLiteral(regex, literal);
        regex.append(c == '%' ? ".*" : ".");
      } else {
        literal.append(c);
      }
    }
    appendLiteral(regex, literal);
    return regex.toString();
  }

  private static void appendLiteral(StringBuilder regex, StringBuilder literal) {
    if (literal.length() > 0) {
      regex.append(Pattern.quote(literal.toString()));
      literal.setLength(0);
    }
  }

  /** The one name the pattern matches when it has no wildcard, with its escapes resolved. */
  public Optional<String> literal() {
    if (pattern == null) {
      return Optional.empty();
    }
    StringBuilder name = new StringBuilder(pattern.length());
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '%' || c == '_') {
        return Optional.empty();
      }
      name.append(c == ESCAPE ? pattern.charAt(++i) : c);
    }
    return Optional.of(name.toString());
  }

  public boolean matches(String name) {
    return regex == null || regex.matcher(name).matches();
  }

  @Override
  public String toString() {
    return pattern == null ? "<any>" : pattern;
  }
}
