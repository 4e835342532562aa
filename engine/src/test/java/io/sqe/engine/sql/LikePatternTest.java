package io.sqe.engine.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.Checkpoint;
import io.sqe.engine.sql.functions.LikePattern;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * SQE's LIKE matcher: the same answers as a regular expression built from the pattern (on random
 * text with multi-byte code points and line terminators), and work that grows linearly with the
 * text on patterns that make a backtracking matcher take polynomial or exponential time, counted in
 * the calls it makes to its checkpoint (one per {@link LikePattern#CHECK_INTERVAL} steps).
 */
class LikePatternTest {
  private static final Checkpoint NONE = () -> {};

  /** Counts checkpoint calls. */
  private static final class Counter implements Checkpoint {
    long calls;

    @Override
    public void check() {
      calls++;
    }
  }

  private static boolean like(String value, String pattern) {
    return LikePattern.compile(pattern, null, false).matches(value, NONE);
  }

  @Test
  void agreesWithARegularExpressionOnRandomTextAndPatterns() {
    long seed = Long.getLong("sqe.test.seed", System.nanoTime());
    System.out.println("LikePatternTest seed: " + seed + " (replay with -Dsqe.test.seed=" + seed + ")");
    Random random = new Random(seed);
    String[] text = {"a", "b", "ab", "é", "\ud83d\ude00", "\n", "\u2028", "%", "_", "!", "\u05d0", "e\u0301"};
    String[] pattern = {"%", "_", "a", "b", "ab", "é", "\ud83d\ude00", "!%", "!_", "!!", "\n", "__", "\u05d0"};
    for (int n = 0; n < 20_000; n++) {
      StringBuilder value = new StringBuilder();
      for (int i = random.nextInt(8); i > 0; i--) {
        value.append(text[random.nextInt(text.length)]);
      }
      StringBuilder like = new StringBuilder();
      for (int i = 1 + random.nextInt(5); i > 0; i--) {
        like.append(pattern[random.nextInt(pattern.length)]);
      }
      boolean expected = regex(like.toString(), '!').matcher(value).matches();
      LikePattern compiled = LikePattern.compile(like.toString(), "!", false);
      assertThat(compiled.matches(value.toString(), NONE)).as("seed %d: '%s' LIKE '%s' ESCAPE '!'", seed, value, like).isEqualTo(expected);
      byte[] bytes = (value + "tail").getBytes(StandardCharsets.UTF_8);
      int length = bytes.length - 4;
      assertThat(compiled.matches(bytes, length, NONE)).as("seed %d: bytes of '%s'", seed, value).isEqualTo(expected);
    }
  }

  /** The pattern as a regular expression in which {@code .} is any one code point. */
  private static Pattern regex(String like, char escape) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < like.length(); ) {
      int c = like.codePointAt(i);
      i += Character.charCount(c);
      if (c == escape) {
        c = like.codePointAt(i);
        i += Character.charCount(c);
        regex.append(Pattern.quote(new String(Character.toChars(c))));
      } else if (c == '%') {
        regex.append(".*");
      } else if (c == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(new String(Character.toChars(c))));
      }
    }
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }

  @Test
  void underscoreIsOneCodePointWhateverItsWidth() {
    assertThat(like("\ud83d\ude00", "_")).isTrue();
    assertThat(like("\ud83d\ude00", "__")).isFalse();
    assertThat(like("a\nb", "a_b")).isTrue();
    assertThat(like("e\u0301", "_")).isFalse();
    assertThat(like("e\u0301", "e_")).isTrue();
    assertThat(like("東京タワー", "東京%")).isTrue();
    assertThat(like("שלום עולם", "%עו_ם")).isTrue();
  }

  @Test
  void ilikeFoldsCaseBeyondAscii() {
    LikePattern pattern = LikePattern.compile("%é%straße_", null, true);
    assertThat(pattern.matches("CAFÉ STRASSE", NONE)).isFalse();
    assertThat(pattern.matches("CAFÉ STRAßEN", NONE)).isTrue();
    assertThat(LikePattern.compile("ΑΘΉΝΑ", null, true).matches("αθήνα", NONE)).isTrue();
    assertThat(LikePattern.compile("a_c", null, true).matches("ABC", NONE)).isTrue();
    assertThat(LikePattern.compile("a_c", null, false).matches("ABC", NONE)).isFalse();
  }

  @Test
  void escapeRules() {
    assertThat(LikePattern.compile("100!%", "!", false).matches("100%", NONE)).isTrue();
    assertThat(LikePattern.compile("100!%", "!", false).matches("1000", NONE)).isFalse();
    assertThat(LikePattern.compile("a\ud83d\ude00_", "\ud83d\ude00", false).matches("a_", NONE)).isTrue();
    for (String[] bad : new String[][] {{"abc!", "!"}, {"a!bc", "!"}, {"abc", ""}, {"abc", "!!"}}) {
      assertThatThrownBy(() -> LikePattern.compile(bad[0], bad[1], false))
          .as("%s ESCAPE %s", bad[0], bad[1])
          .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    }
  }

  /**
   * Patterns that take a backtracking matcher (Calcite's regular expression) time polynomial or
   * exponential in the text: here the work is at most a small multiple of the text's length, and
   * doubling the text doubles it.
   */
  @Test
  void adversarialPatternsTakeLinearWork() {
    String nested = "%a".repeat(12) + "%b%";
    String longSegment = "%" + "a".repeat(500) + "b%";
    String underscores = "%a_a_a_a_a_a_a_a_b%";
    String issue = "%a".repeat(12) + "%b";
    for (String pattern : new String[] {nested, longSegment, underscores, issue}) {
      long small = work(pattern, 1 << 20);
      long large = work(pattern, 1 << 21);
      // Steps per byte of text: 2 for Knuth-Morris-Pratt, one plus the segment's length for a segment with _.
      long bound = 20L * (1 << 21) / LikePattern.CHECK_INTERVAL;
      assertThat(large).as(pattern).isLessThanOrEqualTo(bound).isLessThanOrEqualTo(2 * small + 2);
    }
  }

  /** The checkpoint calls of matching {@code pattern} against {@code length} a's (no match). */
  private static long work(String pattern, int length) {
    Counter counter = new Counter();
    assertThat(LikePattern.compile(pattern, null, false).matches("a".repeat(length), counter)).isFalse();
    return counter.calls;
  }

  @Test
  void aLongMatchStopsAtItsCheckpoint() {
    Checkpoint cancelled = () -> {
      throw new SqeException(ErrorCode.CANCELLED, "Query was cancelled");
    };
    String text = "a".repeat(1 << 20);
    assertThatThrownBy(() -> LikePattern.compile("%a_b%", null, false).matches(text, cancelled))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));
    assertThatThrownBy(() -> LikePattern.compile("%ab%", null, false).matches(text, cancelled))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));
  }
}
