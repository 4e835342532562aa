package io.sqe.flight.fuzz;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL into tokens (quoted strings with their prefixes, quoted identifiers, numbers, words,
 * comments, operators) so that mutation and shrinking work on tokens, never inside a literal.
 * Joining the tokens with single spaces gives SQL of the same meaning, except inside a token
 * that was split from a prefix it needs.
 */
final class SqlTokens {
  private static final List<String> OPERATORS = List.of("<>", "<=", ">=", "!=", "||", "::", "=>", "!~", "~*");

  private SqlTokens() {}

  static List<String> split(String sql) {
    List<String> tokens = new ArrayList<>();
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
        continue;
      }
      int end;
      if (c == '\'') {
        end = quoted(sql, i, '\'');
      } else if (c == '"') {
        end = quoted(sql, i, '"');
      } else if (startsPrefixedString(sql, i)) {
        end = quoted(sql, sql.indexOf('\'', i), '\'');
      } else if (sql.startsWith("--", i)) {
        end = sql.indexOf('\n', i) < 0 ? n : sql.indexOf('\n', i);
      } else if (sql.startsWith("/*", i)) {
        end = sql.indexOf("*/", i + 2) < 0 ? n : sql.indexOf("*/", i + 2) + 2;
      } else if (Character.isDigit(c) || c == '.' && i + 1 < n && Character.isDigit(sql.charAt(i + 1))) {
        end = number(sql, i);
      } else if (Character.isLetter(c) || c == '_' || Character.isSurrogate(c)) {
        end = i;
        while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_' || sql.charAt(end) == '$'
            || Character.isSurrogate(sql.charAt(end)))) {
          end++;
        }
      } else {
        end = i + 1;
        for (String operator : OPERATORS) {
          if (sql.startsWith(operator, i)) {
            end = i + operator.length();
            break;
          }
        }
      }
      tokens.add(sql.substring(i, end));
      i = end;
    }
    return tokens;
  }

  static String join(List<String> tokens) {
    return String.join(" ", tokens);
  }

  /** X'..', U&'..', N'..' and E'..' literals, in any case. */
  private static boolean startsPrefixedString(String sql, int i) {
    String rest = sql.substring(i, Math.min(sql.length(), i + 3)).toUpperCase(java.util.Locale.ROOT);
    return rest.startsWith("U&'") || rest.length() >= 2 && "XNE".indexOf(rest.charAt(0)) >= 0 && rest.charAt(1) == '\''
        && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1)));
  }

  /** The end of a quoted token starting at {@code start}; a doubled quote stays inside. */
  private static int quoted(String sql, int start, char quote) {
    int i = start + 1;
    while (i < sql.length()) {
      if (sql.charAt(i) == quote) {
        if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return sql.length();
  }

  private static int number(String sql, int start) {
    int i = start;
    while (i < sql.length() && (Character.isDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
      i++;
    }
    if (i < sql.length() && (sql.charAt(i) == 'e' || sql.charAt(i) == 'E')) {
      int exponent = i + 1;
      if (exponent < sql.length() && (sql.charAt(exponent) == '+' || sql.charAt(exponent) == '-')) {
        exponent++;
      }
      if (exponent < sql.length() && Character.isDigit(sql.charAt(exponent))) {
        i = exponent;
        while (i < sql.length() && Character.isDigit(sql.charAt(i))) {
          i++;
        }
      }
    }
    return i;
  }
}
