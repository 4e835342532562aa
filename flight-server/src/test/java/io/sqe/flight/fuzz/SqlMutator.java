package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Breaks generated SQL so that it reaches the parser's and validator's error paths: drops,
 * duplicates, swaps or replaces tokens, inserts keywords and punctuation, cuts the statement
 * short, or changes characters anywhere (also inside literals: NUL, a lone quote, characters
 * beyond the Basic Multilingual Plane). It inserts no keyword that writes or changes the session,
 * so a mutated query stays a query.
 */
final class SqlMutator {
  private static final List<String> INSERTS = List.of(
      "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "NULL", "(", ")", ",", "*", "+", "-", "/", "%", "||", "::", "'",
      "\"", "CAST", "TRY_CAST", "AS", "CASE", "WHEN", "THEN", "ELSE", "END", "IN", "BETWEEN", "LIKE", "ESCAPE", "OVER",
      "PARTITION", "BY", "GROUP", "ORDER", "HAVING", "UNION", "INTERSECT", "JOIN", "ON", "USING", "LIMIT", "OFFSET",
      "FETCH", "VALUES", "ARRAY", "[", "]", "MAP", "ROW", "INTERVAL", "DATE", "TIME", "TIMESTAMP", "?", ";", ".", "=",
      "<", ">", "ALL", "ANY", "EXISTS", "DISTINCT", "LATERAL", "UNNEST", "TABLE", "WITH", "RECURSIVE", "FILTER",
      "WITHIN", "UESCAPE", "MATCH_RECOGNIZE", "TABLESAMPLE", "FOR", "SYSTEM_TIME", "AS OF", "0", "-1", "1e999",
      "9223372036854775808", "''", "U&'\\", "X'", "$", "@", "#", "{", "}", "\\", "`", "/*", "--", "\u0000",
      "\ud83d\ude00", "\u00a0", "\u202e", "fz.f", "\"f$files\"", "information_schema.tables");
  private static final List<String> CHARACTERS = List.of(
      "'", "\"", "(", ")", "\u0000", "\\", "\n", "\ud83d\ude00", "\uffff", "%", "_", "e", "0", ".", "-", "*", "/", "[", "$");

  private final Random random;

  SqlMutator(Random random) {
    this.random = requireNonNull(random, "random is null");
  }

  String mutate(String sql) {
    String mutated = sql;
    int rounds = 1 + random.nextInt(3);
    for (int i = 0; i < rounds; i++) {
      mutated = random.nextInt(4) == 0 ? characters(mutated) : tokens(mutated);
    }
    return mutated;
  }

  private String tokens(String sql) {
    List<String> tokens = new ArrayList<>(SqlTokens.split(sql));
    if (tokens.isEmpty()) {
      return pick(INSERTS);
    }
    int at = random.nextInt(tokens.size());
    switch (random.nextInt(7)) {
      case 0 -> tokens.remove(at);
      case 1 -> tokens.add(at, tokens.get(at));
      case 2 -> {
        if (at + 1 < tokens.size()) {
          String next = tokens.get(at + 1);
          tokens.set(at + 1, tokens.get(at));
          tokens.set(at, next);
        }
      }
      case 3 -> tokens.add(at, pick(INSERTS));
      case 4 -> tokens.set(at, pick(INSERTS));
      case 5 -> tokens.add(at, tokens.get(random.nextInt(tokens.size())));
      default -> tokens.subList(at, tokens.size()).clear();
    }
    return SqlTokens.join(tokens);
  }

  private String characters(String sql) {
    if (sql.isEmpty()) {
      return pick(CHARACTERS);
    }
    int at = random.nextInt(sql.length());
    // Never split a surrogate pair: a lone surrogate cannot travel as UTF-8 at all.
    if (Character.isLowSurrogate(sql.charAt(at))) {
      at--;
    }
    return switch (random.nextInt(3)) {
      case 0 -> sql.substring(0, at) + pick(CHARACTERS) + sql.substring(at);
      case 1 -> {
        int end = Math.min(sql.length(), at + 1 + random.nextInt(5));
        if (end < sql.length() && Character.isLowSurrogate(sql.charAt(end))) {
          end++;
        }
        yield sql.substring(0, at) + sql.substring(end);
      }
      default -> {
        int end = Math.min(sql.length(), at + 1 + random.nextInt(20));
        if (end < sql.length() && Character.isLowSurrogate(sql.charAt(end))) {
          end++;
        }
        yield sql.substring(0, end) + sql.substring(at, end) + sql.substring(end);
      }
    };
  }

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
