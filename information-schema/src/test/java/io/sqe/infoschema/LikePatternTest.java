package io.sqe.infoschema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LikePatternTest {
  @Test
  void nullMatchesEverything() {
    LikePattern any = LikePattern.of(null);
    assertThat(any.matches("")).isTrue();
    assertThat(any.matches("orders")).isTrue();
  }

  @Test
  void emptyPatternMatchesOnlyTheEmptyName() {
    assertThat(LikePattern.of("").matches("")).isTrue();
    assertThat(LikePattern.of("").matches("a")).isFalse();
  }

  @Test
  void percentMatchesAnyRunIncludingNone() {
    LikePattern p = LikePattern.of("ord%");
    assertThat(p.matches("ord")).isTrue();
    assertThat(p.matches("orders")).isTrue();
    assertThat(p.matches("order\nlines")).isTrue();
    assertThat(p.matches("xorders")).isFalse();
    assertThat(LikePattern.of("%").matches("")).isTrue();
    assertThat(LikePattern.of("%s%").matches("sales")).isTrue();
  }

  @Test
  void underscoreMatchesExactlyOneCharacter() {
    LikePattern p = LikePattern.of("sales_2024");
    assertThat(p.matches("sales_2024")).isTrue();
    assertThat(p.matches("salesx2024")).isTrue();
    assertThat(p.matches("sales2024")).isFalse();
    assertThat(p.matches("sales__2024")).isFalse();
  }

  @Test
  void escapedWildcardsAreLiteral() {
    LikePattern underscore = LikePattern.of("sales\\_2024");
    assertThat(underscore.matches("sales_2024")).isTrue();
    assertThat(underscore.matches("salesx2024")).isFalse();

    LikePattern percent = LikePattern.of("100\\%");
    assertThat(percent.matches("100%")).isTrue();
    assertThat(percent.matches("1000")).isFalse();

    LikePattern backslash = LikePattern.of("a\\\\b");
    assertThat(backslash.matches("a\\b")).isTrue();
    assertThat(backslash.matches("ab")).isFalse();

    assertThat(LikePattern.of("\\a").matches("a")).isTrue();
  }

  @Test
  void regexMetacharactersInNamesAreLiteral() {
    for (String name : new String[] {"a.b", "a+b", "a*b", "(x)", "[y]", "{z}", "a|b", "^$", "a?b", "\\Q\\E", "$1"}) {
      assertThat(LikePattern.of(name.replace("\\", "\\\\")).matches(name)).as(name).isTrue();
    }
    assertThat(LikePattern.of("a.b").matches("axb")).isFalse();
    assertThat(LikePattern.of("a*b").matches("aab")).isFalse();
    assertThat(LikePattern.of("a+b%").matches("a+bc")).isTrue();
    assertThat(LikePattern.of("a+b%").matches("aab")).isFalse();
  }

  @Test
  void matchingIsCaseSensitive() {
    assertThat(LikePattern.of("Orders").matches("orders")).isFalse();
    assertThat(LikePattern.of("Orders").matches("Orders")).isTrue();
  }

  /** A backtracking matcher takes time as the 12th power of the name's length here. */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void manyPercentsOnALongNameDoNotBacktrack() {
    LikePattern p = LikePattern.of("%a".repeat(12) + "%b");
    assertThat(p.matches("a".repeat(1000))).isFalse();
    assertThat(p.matches("a".repeat(1000) + "b")).isTrue();
  }

  @Test
  void underscoreIsOneCodePoint() {
    assertThat(LikePattern.of("t_").matches("t\ud83d\ude00")).isTrue();
    assertThat(LikePattern.of("t__").matches("t\ud83d\ude00")).isFalse();
  }

  @Test
  void trailingEscapeIsAnInvalidArgument() {
    assertThatThrownBy(() -> LikePattern.of("abc\\"))
        .isInstanceOf(SqeException.class)
        .satisfies(e -> assertThat(((SqeException) e).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("abc\\");
  }
}
