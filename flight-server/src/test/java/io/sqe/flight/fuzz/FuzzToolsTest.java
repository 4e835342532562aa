package io.sqe.flight.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.sql.SqeParser;
import io.sqe.engine.sql.SqlDialect;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fuzzer's own parts that need no server: tokens, shrinking, error classes, generation. */
class FuzzToolsTest {
  @Test
  void tokensKeepLiteralsQuotedNamesAndOperatorsWhole() {
    assertThat(SqlTokens.split("SELECT 'it''s',\"a \"\"b\"\" c\", X'0F', u&'\\0041', 1.5E-3, .5, t.c<>2 || x::int -- note\n/* c */ =>"))
        .containsExactly("SELECT", "'it''s'", ",", "\"a \"\"b\"\" c\"", ",", "X'0F'", ",", "u&'\\0041'", ",", "1.5E-3", ",", ".5",
            ",", "t", ".", "c", "<>", "2", "||", "x", "::", "int", "-- note", "/* c */", "=>");
  }

  /** Generated statements that parse still parse, to the same tree, once split and joined again. */
  @Test
  void splittingAndJoiningGeneratedStatementsKeepsTheirMeaning() {
    int parsed = 0;
    for (int seed = 0; seed < 300; seed++) {
      String sql = new StatementGenerator(new Random(seed)).statement().sql();
      String original;
      try {
        original = SqlDialect.toSql(SqeParser.parse(sql));
      } catch (RuntimeException e) {
        continue;
      }
      parsed++;
      assertThat(SqlDialect.toSql(SqeParser.parse(SqlTokens.join(SqlTokens.split(sql))))).as(sql).isEqualTo(original);
    }
    assertThat(parsed).as("statements that parse, of 300").isGreaterThan(200);
  }

  @Test
  void theShrinkerKeepsOnlyWhatTheFailureNeeds() {
    Shrinker shrinker = new Shrinker(sql -> sql.contains("1 / 0") && sql.startsWith("SELECT"), 200);
    assertThat(shrinker.shrink("SELECT a , b + 1 / 0 AS c FROM t WHERE d > 2 ORDER BY 1")).isEqualTo("SELECT 1 / 0");
    assertThat(new Shrinker(sql -> false, 10).shrink("SELECT 1")).isEqualTo("SELECT 1");
  }

  @Test
  void anErrorClassHasNoLiteralsNumbersNamesOrQueryIds() {
    assertThat(Outcome.shape("Query 0ad1b81c5208.234641dc-e7e0-4301-8519-7aede81a8dc6 failed: Value 2147483648 out of range"
            + " for 'it''s' in \"T\".\"c\" (line 1, column 17)\nWas expecting one of: ..."))
        .isEqualTo("Query <id> failed: Value N out of range for '?' in \"?\".\"?\" (line N, column N)");
    assertThat(new Outcome("INVALID_ARGUMENT", "x".repeat(50_000) + "'", java.time.Duration.ZERO).errorClass())
        .startsWith("INVALID_ARGUMENT: xxx").endsWith("...");
    assertThat(List.of("OK", "INVALID_ARGUMENT", "NOT_FOUND", "UNIMPLEMENTED", "TIMED_OUT"))
        .noneMatch(code -> new Outcome(code, "", java.time.Duration.ZERO).isFailure());
    assertThat(List.of("INTERNAL", "UNKNOWN", "UNAVAILABLE", "CANCELLED", Outcome.CLIENT_DEADLINE, Outcome.CLIENT_ERROR))
        .allMatch(code -> new Outcome(code, "", java.time.Duration.ZERO).isFailure());
  }
}
