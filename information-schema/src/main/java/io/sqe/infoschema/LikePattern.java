package io.sqe.infoschema;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.Checkpoint;
import java.util.Optional;

/**
 * A Flight SQL (and JDBC) name filter pattern: SQL LIKE syntax, where {@code %} matches any run of
 * characters, {@code _} matches one character (a code point), and a backslash makes the next
 * character literal. Matching is case-sensitive, as names are compared the way the catalog stores
 * them, and runs on the engine's LIKE matcher, which does not backtrack.
 */
public final class LikePattern {
  /** The escape character clients learn from SQL_SEARCH_STRING_ESCAPE. */
  public static final char ESCAPE = '\\';

  /** Names are short: a match needs no checks for cancellation. */
  private static final Checkpoint UNCHECKED = () -> {};

  private static final LikePattern ANY = new LikePattern(null, null);

  private final String pattern;
  private final io.sqe.engine.sql.functions.LikePattern matcher;

  private LikePattern(String pattern, io.sqe.engine.sql.functions.LikePattern matcher) {
    this.pattern = pattern;
    this.matcher = matcher;
  }

  /** A pattern; null means no filter (every name matches), as an absent protobuf field does. */
  public static LikePattern of(String pattern) {
    return pattern == null ? ANY : new LikePattern(pattern, compile(pattern));
  }

  /**
   * The pattern as SQL LIKE with backslash as its escape, which SQL allows only before {@code %},
   * {@code _} and itself: before any other character a backslash is dropped.
   */
  private static io.sqe.engine.sql.functions.LikePattern compile(String pattern) {
    StringBuilder like = new StringBuilder(pattern.length());
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == ESCAPE) {
        if (i + 1 == pattern.length()) {
          throw new SqeException(
              ErrorCode.INVALID_ARGUMENT, "Name pattern must not end with the escape character: " + pattern);
        }
        char next = pattern.charAt(++i);
        if (next == '%' || next == '_' || next == ESCAPE) {
          like.append(ESCAPE);
        }
        like.append(next);
      } else {
        like.append(c);
      }
    }
    return io.sqe.engine.sql.functions.LikePattern.compile(like.toString(), String.valueOf(ESCAPE), false);
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
    return matcher == null || matcher.matches(name, UNCHECKED);
  }

  @Override
  public String toString() {
    return pattern == null ? "<any>" : pattern;
  }
}
