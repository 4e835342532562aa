package io.sqe.engine.sql.parser;

import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.ASOF;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.COMMA;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.DEFAULT_;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.EXTEND;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.FETCH;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.LIMIT;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.MATCH_RECOGNIZE;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.OFFSET;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.ORDER;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.PARTITION;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.QUALIFY;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.RANGE;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.ROWS;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.RPAREN;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.SET;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.SET_MINUS;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.TABLESAMPLE;
import static io.sqe.engine.sql.parser.SqeSqlParserImplConstants.WINDOW;

import java.util.Set;

/**
 * Decides, for the grammar's lookaheads, what a non-reserved word means where it could be a name or
 * the keyword of a construct (the template edits in sql/pom.xml call it).
 */
public final class ClauseWords {
  /**
   * Words that start a clause after a table reference ({@code FROM t LIMIT 5}, {@code UPDATE t SET
   * ...}); there they are keywords, and an alias of that name needs {@code AS}.
   */
  private static final Set<Integer> AFTER_TABLE =
      Set.of(LIMIT, OFFSET, FETCH, WINDOW, QUALIFY, SET, SET_MINUS, TABLESAMPLE, MATCH_RECOGNIZE, EXTEND, ASOF);

  /** What may follow the name of a window that a window specification refines. */
  private static final Set<Integer> AFTER_WINDOW_NAME = Set.of(RPAREN, PARTITION, ORDER, ROWS, RANGE);

  private ClauseWords() {}

  /** Whether {@code next}, after a table reference, may start its alias (AS, or a word that starts no clause). */
  public static boolean mayStartTableAlias(Token next) {
    return !AFTER_TABLE.contains(next.kind);
  }

  /**
   * Whether a word after the parenthesis of a window specification names a window: {@code (w ORDER BY
   * x)}, not {@code (PARTITION BY x)} or {@code (ROWS BETWEEN ...)}.
   */
  public static boolean isWindowName(Token after) {
    return AFTER_WINDOW_NAME.contains(after.kind);
  }

  /** Whether the next tokens are the DEFAULT keyword as an item of a value list ({@code VALUES (DEFAULT, 1)}). */
  public static boolean isDefaultItem(Token next, Token after) {
    return next.kind == DEFAULT_ && (after.kind == COMMA || after.kind == RPAREN);
  }
}
