package io.sqe.engine.sql;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;

/**
 * Parses exactly one SQL statement (a trailing semicolon is allowed), with chains of AND, OR and
 * {@code ||} balanced and the length and nesting of expressions limited (see {@link
 * ExpressionLength}, {@link ExpressionChains}, {@link NestingDepth}).
 */
public final class SqeParser {
  private SqeParser() {}

  public static SqlNode parse(String sql) {
    if (sql == null || sql.isBlank()) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "The statement is empty");
    }
    checkNoNul(sql);
    ExpressionLength.check(sql);
    SqlNodeList statements;
    try {
      statements = SqlParser.create(sql, SqlDialect.parserConfig()).parseStmtList();
    } catch (SqlParseException e) {
      throw SqlErrors.parseError(e);
    }
    if (statements.size() != 1) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT, "Expected one statement, found " + statements.size());
    }
    return bounded(statements.get(0));
  }

  /**
   * Refuses a statement with a NUL character: no catalog, table or column name may hold one (the
   * catalog's SQLite store and file paths end a name there), and as in PostgreSQL no text value
   * may either.
   */
  private static void checkNoNul(String sql) {
    int at = sql.indexOf('\0');
    if (at < 0) {
      return;
    }
    int line = 1;
    int lineStart = 0;
    for (int i = 0; i < at; i++) {
      if (sql.charAt(i) == '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    throw new SqeException(
        ErrorCode.INVALID_ARGUMENT,
        "The statement holds a NUL character (U+0000), which no name or text may hold",
        new SqeException.SqlPosition(line, at - lineStart + 1),
        null);
  }

  /** Parses one SQL expression, such as a column mask or a row filter. */
  public static SqlNode parseExpression(String sql) {
    if (sql == null || sql.isBlank()) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "The expression is empty");
    }
    ExpressionLength.check(sql);
    try {
      return bounded(SqlParser.create(sql, SqlDialect.parserConfig()).parseExpression());
    } catch (SqlParseException e) {
      throw SqlErrors.parseError(e);
    }
  }

  private static SqlNode bounded(SqlNode node) {
    NestingDepth.check(ExpressionChains.balance(node));
    return node;
  }
}
