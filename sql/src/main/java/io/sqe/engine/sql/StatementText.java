package io.sqe.engine.sql;

/** Positions in a statement's text as the parser counts them: lines and columns from 1, a tab one column. */
public final class StatementText {
  private StatementText() {}

  /** The offset in {@code sql} of the character at {@code line} and {@code column}. */
  public static int offset(String sql, int line, int column) {
    int offset = 0;
    for (int current = 1; current < line; current++) {
      int newline = nextLineBreak(sql, offset);
      if (newline < 0) {
        return sql.length();
      }
      // A CR LF pair ends one line, as the parser counts it.
      offset = newline + (sql.charAt(newline) == '\r' && newline + 1 < sql.length() && sql.charAt(newline + 1) == '\n' ? 2 : 1);
    }
    return Math.min(sql.length(), offset + column - 1);
  }

  private static int nextLineBreak(String sql, int from) {
    for (int i = from; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (c == '\n' || c == '\r') {
        return i;
      }
    }
    return -1;
  }
}
