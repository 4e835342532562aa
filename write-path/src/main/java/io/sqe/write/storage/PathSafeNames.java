package io.sqe.write.storage;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import java.util.Optional;

/**
 * Schema, table and view names that may become directory names. Catalogs join a new object's
 * names into its default location ({@code <warehouse>/<schema>/<table>}, Iceberg's JDBC catalog
 * and REST servers alike), so a name must be exactly one plain path segment: not empty, not
 * {@code .} or {@code ..}, without {@code /} or {@code \}, without {@code ?} or {@code #} (where
 * S3 locations end their key), and without control characters.
 */
public final class PathSafeNames {
  private PathSafeNames() {}

  /** What makes {@code name} unfit for a directory name; empty when it is fit. */
  public static Optional<String> problem(String name) {
    if (name.isEmpty()) {
      return Optional.of("it is empty");
    }
    if (name.equals(".") || name.equals("..")) {
      return Optional.of("'" + name + "' names a directory relative to another");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      switch (c) {
        case '/', '\\' -> {
          return Optional.of("it contains '" + c + "', which separates directories");
        }
        case '?', '#' -> {
          return Optional.of("it contains '" + c + "', where object storage locations end their path");
        }
        default -> {
          if (Character.isISOControl(c)) {
            return Optional.of("it contains the control character " + String.format("U+%04X", (int) c));
          }
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Throws INVALID_ARGUMENT, naming the name, when it is unfit for a directory name.
   *
   * @param kind what the name names, for the message: {@code schema}, {@code table}, {@code view}
   * @param at where the name is in the statement; null when it came from elsewhere (bulk ingest)
   */
  public static void check(String kind, String name, SqlPosition at) {
    problem(name).ifPresent(problem -> {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "Invalid " + kind + " name '" + printable(name) + "': " + problem
              + "; names become directory names in storage, so each must be one plain path segment",
          at,
          null);
    });
  }

  /** The name with control characters written as {@code \\uXXXX}, so that messages and logs stay one line. */
  static String printable(String name) {
    StringBuilder text = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isISOControl(c)) {
        text.append(String.format("\\u%04x", (int) c));
      } else {
        text.append(c);
      }
    }
    return text.toString();
  }
}
