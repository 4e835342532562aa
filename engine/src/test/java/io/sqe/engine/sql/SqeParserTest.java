package io.sqe.engine.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SqeParserTest {
  @Test
  void syntaxErrorNamesThePositionOnce() {
    assertThatThrownBy(() -> SqeParser.parse("select a,\n  , b from t"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.position()).contains(new SqlPosition(2, 3));
          assertThat(e.clientMessage())
              .isEqualTo("Syntax error: Encountered \",\" (line 2, column 3)");
        });
  }

  @Test
  void lexicalErrorNamesThePositionOnce() {
    assertThatThrownBy(() -> SqeParser.parse("select # from t"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.position()).contains(new SqlPosition(1, 8));
          assertThat(e.clientMessage())
              .startsWith("Syntax error: Lexical error")
              .endsWith("(line 1, column 8)")
              .containsOnlyOnce("line 1, column 8");
        });
  }

  @Test
  void aRunOfManyBetweenOrLikeIsRefusedAtItsStartAndSmallerRunsParse() {
    String ranges = IntStream.range(0, ExpressionLength.MAX_SPECIAL_OPERATORS + 1)
        .mapToObj(i -> "k between " + i + " and " + (i + 1))
        .collect(Collectors.joining(" or "));
    assertThatThrownBy(() -> SqeParser.parse("select 1 from t\nwhere " + ranges))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.position()).contains(new SqlPosition(2, 6));
          assertThat(e.clientMessage()).contains("more than 256 BETWEEN, LIKE or SIMILAR TO in a row");
        });
    String patterns = IntStream.range(0, ExpressionLength.MAX_SPECIAL_OPERATORS)
        .mapToObj(i -> "s like 'x" + i + "%'")
        .collect(Collectors.joining(" or "));
    // As many as allowed in one run, and again in a second run (the select list's next item).
    assertThat(SqeParser.parse("select " + patterns + ", " + patterns + " from t")).isNotNull();
  }
}
