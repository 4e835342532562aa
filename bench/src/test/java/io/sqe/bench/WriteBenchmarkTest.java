package io.sqe.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The write benchmark at a tiny scale: CTAS against DuckDB's COPY, and 0.1% MERGE/UPDATE on a many-file sorted table. */
class WriteBenchmarkTest {
  @Test
  void rewritesOnlyTheFilesHoldingTheTouchedKeys(@TempDir Path dir) throws Exception {
    Path output = dir.resolve("writes.md");
    WriteBenchmark.Options options =
        new WriteBenchmark.Options(0.01, 1, 0.0625, 0.001, 1, dir.resolve("work"), Optional.of(output));
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    WriteBenchmark.Report report = new WriteBenchmark(options, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();
    System.out.print(printed.toString(StandardCharsets.UTF_8));

    // CTAS wrote every row of lineitem, as DuckDB's COPY did.
    assertThat(report.ctasRows()).isEqualTo(report.copyRows()).isEqualTo(60_175L);
    assertThat(report.outcome("CTAS lineitem").files().added()).isPositive();

    WriteBenchmark.Outcome initial = report.outcome("CTAS sorted table (initial)");
    assertThat(initial.files().after()).as("the sorted table has many files").isGreaterThan(5);
    for (String name : new String[] {"MERGE 0.1%", "MERGE 0.1%, key range in ON", "UPDATE 0.1%"}) {
      WriteBenchmark.Outcome o = report.outcome(name);
      // 0.1% of 60,175 rows, rounded up to whole orders.
      assertThat(o.rows()).as(name).isEqualTo(report.touchedRows()).isBetween(60L, 70L);
      // The most recent order keys sit in the last file or two of a table sorted by key.
      assertThat(o.files().removed()).as(name).isPositive().isLessThan(o.files().before());
      assertThat(o.files().removed()).as(name).isLessThanOrEqualTo(2);
      assertThat(o.files().after()).as(name).isEqualTo(o.files().before() - o.files().removed() + o.files().added());
      assertThat(o.files().summary()).containsEntry("deleted-data-files", String.valueOf(o.files().removed()));
    }
    WriteBenchmark.Outcome replace = report.outcome("CREATE OR REPLACE (full rewrite)");
    assertThat(replace.files().removed()).isEqualTo(replace.files().before());

    assertThat(Files.readString(output)).contains("| MERGE 0.1% | SQE |").contains("CTAS of lineitem: SQE");
    assertThat(ImageIO.read(dir.resolve("writes.png").toFile()).getHeight()).isPositive();
  }

  @Test
  void rowsBecomeCopiesOfLineitem() {
    assertThat(WriteBenchmark.Options.copiesFor("60m", 1)).isEqualTo(10);
    assertThat(WriteBenchmark.Options.parse("--rows", "60m").copies()).isEqualTo(10);
    assertThat(WriteBenchmark.Options.parse("--scale", "0.1", "--rows", "6m").copies()).isEqualTo(10);
    assertThatThrownBy(() -> WriteBenchmark.Options.parse("--fraction", "2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--fraction");
    assertThatThrownBy(() -> WriteBenchmark.Options.parse("--bogus", "1")).hasMessageContaining("Unknown argument: --bogus");
    WriteBenchmark.Options ctas = WriteBenchmark.Options.parse("--ctas-only", "--settings", "planner.columnar=false");
    assertThat(ctas.ctasOnly()).isTrue();
    assertThat(ctas.tpch().serverSettings()).containsEntry("planner.columnar", "false").containsEntry("query.result-cache.max-bytes", "0");
    assertThat(ctas.commandLine()).contains("--ctas-only --settings planner.columnar=false");
  }
}
