package io.sqe.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole Flight benchmark at a tiny size: SQE through ADBC, the plain Flight server, DuckDB, IPC, the report. */
class FlightThroughputBenchmarkTest {
  private static FlightThroughputBenchmark.Result run(String... args) throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    FlightThroughputBenchmark.Result result =
        FlightThroughputBenchmark.parse(args, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();
    // Surefire keeps this in the test's output file, for when the assertions below fail.
    System.out.print(printed.toString(StandardCharsets.UTF_8));
    return result;
  }

  private static void assertEveryPathRead(FlightThroughputBenchmark.Result result, long rows) {
    for (ThroughputPass pass : List.of(result.sqe(), result.plainFlight(), result.duckdb(), result.ipc())) {
      assertThat(pass.rows()).isEqualTo(rows);
      assertThat(pass.bytes()).isPositive();
      assertThat(pass.nanos()).isPositive();
    }
    // The plain server and the IPC stream carry SQE's own batches.
    assertThat(result.plainFlight().bytes()).isEqualTo(result.sqe().bytes());
    assertThat(result.ipc().bytes()).isEqualTo(result.sqe().bytes());
  }

  @Test
  void readsLineitemOnEveryPathFromTheTpchData(@TempDir Path dir) throws Exception {
    Path report = dir.resolve("flight.md");

    FlightThroughputBenchmark.Result result =
        run("--table", "lineitem", "--scale", "0.01", "--runs", "1", "--work-dir", dir.resolve("work").toString(), "--output", report.toString());

    // TPC-H's lineitem at scale 0.01, in the data directory bin/bench-tpch uses for that scale.
    assertThat(result.rows()).isEqualTo(60_175);
    assertEveryPathRead(result, 60_175);
    assertThat(dir.resolve("work").resolve("sf0.01").resolve("warehouse")).isDirectory();
    assertThat(result.sqe().scanCpuNanos()).isPositive();
    assertThat(result.markdown())
        .contains("`SELECT * FROM tpch.lineitem` at scale 0.01")
        .contains("| SQE through Flight SQL (ADBC, loopback, one stream) |")
        .contains("| Plain Arrow Flight server, the same batches from memory (loopback) |")
        .contains("| DuckDB, the same Parquet files to Arrow |")
        .contains("| The same batches as Arrow IPC to /dev/null |")
        .contains("SQE / plain Flight: **")
        .contains("Issue 27 asks for at least 4,000,000 rows/s")
        .contains("DuckDB v");
    assertThat(Files.readString(report)).isEqualTo(result.markdown());
  }

  @Test
  void readsTheSyntheticTableMadeByIngest(@TempDir Path dir) throws Exception {
    FlightThroughputBenchmark.Result result =
        run("--table", "synthetic", "--rows", "5000", "--warmups", "1", "--runs", "1", "--work-dir", dir.toString());

    assertEveryPathRead(result, 5_000);
    assertThat(result.markdown()).contains("`SELECT n, x, s FROM bench.flight_rows_5000`").doesNotContain("Issue 27");
  }

  @Test
  void sortsTheResultOnEveryPathWithOrderBy(@TempDir Path dir) throws Exception {
    FlightThroughputBenchmark.Result result = run(
        "--table", "synthetic", "--rows", "5000", "--warmups", "1", "--runs", "1", "--work-dir", dir.toString(),
        "--order-by", "s desc,n", "--settings", "query.max-memory=8m");

    assertEveryPathRead(result, 5_000);
    assertThat(result.markdown())
        .contains("`SELECT n, x, s FROM bench.flight_rows_5000 ORDER BY s desc, n`")
        .contains("read_parquet([...]) ORDER BY s desc, n`");
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThatThrownBy(() -> FlightThroughputBenchmark.parse(new String[] {"--order-by", "n; drop table x"}, out))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--order-by");
  }

  @Test
  void sizeOptionsMustMatchTheTable() {
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThatThrownBy(() -> FlightThroughputBenchmark.parse(new String[] {"--rows", "10"}, out))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--rows applies to --table synthetic");
    assertThatThrownBy(() -> FlightThroughputBenchmark.parse(new String[] {"--table", "synthetic", "--scale", "1"}, out))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--scale applies to --table lineitem");
    assertThatThrownBy(() -> FlightThroughputBenchmark.parse(new String[] {"--table", "synthetic", "--select", "n"}, out))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--select applies to --table lineitem");
    assertThatThrownBy(() -> FlightThroughputBenchmark.parse(new String[] {"--table", "orders"}, out))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lineitem or synthetic");
    // SQE's first untimed read keeps the batches the other paths serve.
    assertThatThrownBy(() -> FlightThroughputBenchmark.parse(new String[] {"--warmups", "0"}, out))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--warmups");
  }
}
