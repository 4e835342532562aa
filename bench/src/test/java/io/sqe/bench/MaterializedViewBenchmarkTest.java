package io.sqe.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The materialized-view benchmark at a tiny scale: every dashboard query is rewritten and answers as over the sources. */
class MaterializedViewBenchmarkTest {
  @Test
  void everyDashboardQueryIsRewrittenWithTheSourcesAnswer(@TempDir Path dir) throws Exception {
    Path output = dir.resolve("mview.md");
    MaterializedViewBenchmark.Options options =
        new MaterializedViewBenchmark.Options(0.01, 1, 0, dir.resolve("work"), Optional.of(output));
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    // run() fails unless EXPLAIN shows each rewrite and both answers are equal.
    MaterializedViewBenchmark.Report report =
        new MaterializedViewBenchmark(options, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();
    System.out.print(printed.toString(StandardCharsets.UTF_8));

    assertThat(report.outcomes()).hasSize(MaterializedViewBenchmark.QUERIES.size());
    // 25 nations, each with customers that ordered.
    assertThat(report.outcomes()).filteredOn(o -> o.name().equals("revenue by nation")).singleElement()
        .satisfies(o -> assertThat(o.rows()).isEqualTo(25));
    assertThat(Files.readString(output)).contains("| revenue by nation | 25 |");
  }

  @Test
  void rejectsBadArguments() {
    assertThat(MaterializedViewBenchmark.Options.parse("--runs", "3").runs()).isEqualTo(3);
    assertThatThrownBy(() -> MaterializedViewBenchmark.Options.parse("--runs", "0")).hasMessageContaining("--runs");
    assertThatThrownBy(() -> MaterializedViewBenchmark.Options.parse("--bogus", "1")).hasMessageContaining("Unknown argument: --bogus");
  }
}
