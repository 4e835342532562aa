package io.sqe.write.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import java.util.List;
import org.junit.jupiter.api.Test;

class PathSafeNamesTest {
  @Test
  void namesThatAreOnePlainSegmentPass() {
    for (String name : List.of("orders", "Orders 2024", "a.b", "...", "..a", "t$x", "日本", "a:b", "50%", "x'y")) {
      assertThat(PathSafeNames.problem(name)).as(name).isEmpty();
    }
  }

  @Test
  void namesThatLeaveTheirDirectoryOrCutAPathAreRefused() {
    for (String name : List.of("", ".", "..", "../hr/victim", "a/b", "/abs", "a\\b", "..\\x", "v?", "v#", "nul\u0000", "tab\t", "del\u007f", "c1\u0085")) {
      assertThat(PathSafeNames.problem(name)).as(name).isPresent();
    }
  }

  @Test
  void theErrorNamesTheNameWithControlCharactersSpelledOut() {
    assertThatThrownBy(() -> PathSafeNames.check("table", "a\u0000b/c", new SqlPosition(1, 14)))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).startsWith("Invalid table name 'a\\u0000b/c': ").contains("U+0000").doesNotContain("\u0000");
          assertThat(e.clientMessage()).endsWith("(line 1, column 14)");
        });
  }
}
