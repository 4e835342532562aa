package io.sqe.write.reuse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A lineage survives the snapshot summary whatever its inputs' names hold. */
class LineageTest {
  @Test
  void inputsWithTheSeparatorOrEscapesReadBackAsWritten() {
    Lineage lineage = new Lineage("f", List.of("table lake.s.\"a;b\" u snapshot 1", "table lake.s.\"100%3B\" u snapshot 2", ""), "p", "v", "c");
    Map<String, String> summary = lineage.summary(7, "shape");
    assertThat(Lineage.of(summary)).contains(lineage);
    assertThat(summary).containsEntry(Lineage.ROWS, "7").containsEntry(Lineage.TARGET, "shape");
  }

  @Test
  void noInputsAndNoLineage() {
    Lineage lineage = new Lineage("f", List.of(), "p", "v", "c");
    assertThat(Lineage.of(lineage.summary(0, "shape"))).contains(lineage);
    assertThat(Lineage.of(Map.of("sqe.query-id", "q"))).isEmpty();
    assertThat(Lineage.of(null)).isEmpty();
  }
}
