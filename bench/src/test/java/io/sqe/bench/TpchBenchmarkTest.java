package io.sqe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.bench.QueryOutcome.Status;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole benchmark at a tiny scale: server, data generation, both engines, comparison, report. */
class TpchBenchmarkTest {
  @Test
  void timesQueriesOnBothEnginesAndFindsTheSameResults(@TempDir Path dir) throws Exception {
    Path csv = dir.resolve("report.csv");
    BenchmarkOptions options =
        new BenchmarkOptions(0.01, dir.resolve("work"), 1, 0, List.of(1, 6, 14), Duration.ofSeconds(60), Optional.of(csv), false);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    BenchmarkReport report = new TpchBenchmark(options, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

    assertThat(report.outcomes()).extracting(QueryOutcome::query).containsExactly(1, 6, 14);
    assertThat(report.outcomes()).allSatisfy(o -> {
      assertThat(o.status()).as("Q%d: %s", o.query(), o.note()).isEqualTo(Status.OK);
      assertThat(o.sqe().nanos()).hasSize(1).allSatisfy(n -> assertThat(n).isPositive());
      assertThat(o.duckdb().nanos()).hasSize(1).allSatisfy(n -> assertThat(n).isPositive());
      assertThat(o.sqe().medianPrepareMillis()).isPresent();
    });
    // Q1 has one row per (returnflag, linestatus) pair; Q6 and Q14 are one aggregate row.
    assertThat(report.outcomes()).extracting(QueryOutcome::rows).containsExactly(4L, 1L, 1L);
    assertThat(report.ratioGeomean()).isPresent();
    assertThat(report.ratioGeomean().getAsDouble()).isPositive();

    String output = printed.toString(StandardCharsets.UTF_8);
    // Surefire keeps this in the test's output file, for when the assertions below fail.
    System.out.print(output);
    assertThat(output).contains("| Q6 |").contains("Geometric mean").contains("DuckDB v");
    assertThat(Files.readAllLines(csv))
        .hasSize(4)
        .first()
        .isEqualTo(
            "scale,query,sqe_min_ms,sqe_median_ms,sqe_plan_ms,duckdb_min_ms,duckdb_median_ms,ratio,rows,status,note,"
                + "sqe_peak_heap_mb,sqe_peak_arrow_mb");
    // The server's memory was sampled while SQE ran each query.
    assertThat(report.outcomes()).allSatisfy(o -> assertThat(report.memory(o.query()).heapBytes()).isPositive());
    assertThat(report.peakMemory().arrowBytes()).isGreaterThanOrEqualTo(0);
    // The chart lands next to the report.
    Path chart = dir.resolve("report.png");
    assertThat(chart).exists();
    assertThat(javax.imageio.ImageIO.read(chart.toFile()).getWidth()).isPositive();
    assertThat(Files.readAllLines(csv).get(2)).startsWith("0.01,6,").contains(",OK,");
  }
}
