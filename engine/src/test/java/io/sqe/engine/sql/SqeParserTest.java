package io.sqe.engine.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
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
}
