package io.sqe.engine.sql;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import io.sqe.engine.sql.parser.SqeSqlParserImpl;
import io.sqe.engine.sql.parser.SqeSqlParserImplConstants;
import io.sqe.engine.sql.parser.Token;
import io.sqe.engine.sql.parser.TokenMgrError;
import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;

/**
 * Refuses, before parsing, a statement with more than {@link #MAX_OPERATORS} operators in one run
 * of an expression: Calcite's parser collects such a run and then reduces it one operator at a
 * time, scanning the whole run for each, so its time grows with the square of the run's length
 * (40,000 operators took 9 s of CPU, 100,000 half a minute) and nothing stops it once it has
 * begun. The count is made on the parser's own tokens, in linear time: operators between the same
 * parentheses, up to a comma or a clause's keyword. Parentheses nested deeper than {@link
 * NestingDepth#MAX_DEPTH} are refused too: the parser recurses through them (100,000 took 28 s).
 *
 * <p>{@code BETWEEN}, {@code LIKE} and {@code SIMILAR TO} cost far more: the parser reduces each
 * (with its {@code AND} or {@code ESCAPE}) by parsing the rest of the run again, so a run's time
 * grows with about the cube of their number (300 {@code BETWEEN}s ORed took 1 s, 600 took 10 s,
 * 1,000 minutes). A run may hold at most {@link #MAX_SPECIAL_OPERATORS} of them.
 */
public final class ExpressionLength {
  /** The most operators of one run: a 5,000-term OR of {@code a = 1 AND b = 2} terms has 20,000. */
  public static final int MAX_OPERATORS = 25_000;

  /** The most {@code BETWEEN}, {@code LIKE} and {@code SIMILAR TO} of one run: about 0.5 s of parsing. */
  public static final int MAX_SPECIAL_OPERATORS = 256;

  private static final Set<Integer> OPERATORS = Set.of(
      SqeSqlParserImplConstants.AND, SqeSqlParserImplConstants.OR,
      SqeSqlParserImplConstants.EQ, SqeSqlParserImplConstants.NE, SqeSqlParserImplConstants.NE2,
      SqeSqlParserImplConstants.LT, SqeSqlParserImplConstants.LE, SqeSqlParserImplConstants.GT, SqeSqlParserImplConstants.GE,
      SqeSqlParserImplConstants.PLUS, SqeSqlParserImplConstants.MINUS, SqeSqlParserImplConstants.STAR,
      SqeSqlParserImplConstants.SLASH, SqeSqlParserImplConstants.PERCENT_REMAINDER, SqeSqlParserImplConstants.CONCAT);

  /** Operators the parser reduces by parsing the rest of their run again. */
  private static final Set<Integer> SPECIAL_OPERATORS = Set.of(
      SqeSqlParserImplConstants.BETWEEN, SqeSqlParserImplConstants.LIKE, SqeSqlParserImplConstants.ILIKE,
      SqeSqlParserImplConstants.RLIKE, SqeSqlParserImplConstants.SIMILAR);

  /** Tokens that end one expression and begin another. */
  private static final Set<Integer> SEPARATORS = Set.of(
      SqeSqlParserImplConstants.COMMA, SqeSqlParserImplConstants.SELECT, SqeSqlParserImplConstants.FROM,
      SqeSqlParserImplConstants.WHERE, SqeSqlParserImplConstants.GROUP, SqeSqlParserImplConstants.HAVING,
      SqeSqlParserImplConstants.ORDER, SqeSqlParserImplConstants.WHEN, SqeSqlParserImplConstants.THEN,
      SqeSqlParserImplConstants.ELSE, SqeSqlParserImplConstants.END, SqeSqlParserImplConstants.ON,
      SqeSqlParserImplConstants.SET, SqeSqlParserImplConstants.VALUES, SqeSqlParserImplConstants.SEMICOLON);

  private ExpressionLength() {}

  /** Fails with INVALID_ARGUMENT, at the run's start, if {@code sql} has a run of too many operators. */
  public static void check(String sql) {
    SqeSqlParserImpl lexer = new SqeSqlParserImpl(new StringReader(sql));
    lexer.switchTo(SqlAbstractParserImpl.LexicalState.forConfig(SqlDialect.parserConfig()));
    Deque<int[]> runs = new ArrayDeque<>();
    // Per open parenthesis: the operators of its current run, where the run began, and its
    // special operators.
    runs.push(new int[] {0, 1, 1, 0});
    try {
      for (Token token = lexer.getNextToken(); token.kind != SqeSqlParserImplConstants.EOF; token = lexer.getNextToken()) {
        int[] run = runs.peek();
        if (token.kind == SqeSqlParserImplConstants.LPAREN) {
          if (runs.size() > NestingDepth.MAX_DEPTH) {
            throw new SqeException(
                ErrorCode.INVALID_ARGUMENT,
                "The statement nests parentheses more than " + NestingDepth.MAX_DEPTH + " levels deep",
                new SqlPosition(token.beginLine, token.beginColumn),
                null);
          }
          runs.push(new int[] {0, token.endLine, token.endColumn + 1, 0});
        } else if (token.kind == SqeSqlParserImplConstants.RPAREN) {
          if (runs.size() > 1) {
            runs.pop();
          }
        } else if (SEPARATORS.contains(token.kind)) {
          restart(run, token);
        } else if (OPERATORS.contains(token.kind) && ++run[0] > MAX_OPERATORS) {
          throw new SqeException(
              ErrorCode.INVALID_ARGUMENT,
              "An expression of the statement has more than " + MAX_OPERATORS + " operators in a row; write long lists of"
                  + " values as IN lists, which may be of any length",
              new SqlPosition(run[1], run[2]),
              null);
        } else if (SPECIAL_OPERATORS.contains(token.kind) && ++run[3] > MAX_SPECIAL_OPERATORS) {
          throw new SqeException(
              ErrorCode.INVALID_ARGUMENT,
              "An expression of the statement has more than " + MAX_SPECIAL_OPERATORS + " BETWEEN, LIKE or SIMILAR TO"
                  + " in a row; join with a table of the ranges or patterns instead",
              new SqlPosition(run[1], run[2]),
              null);
        }
      }
    } catch (TokenMgrError e) {
      // Not a statement the parser reads: it says why, with the position.
    }
  }

  private static void restart(int[] run, Token token) {
    run[0] = 0;
    run[1] = token.endLine;
    run[2] = token.endColumn + 1;
    run[3] = 0;
  }
}
