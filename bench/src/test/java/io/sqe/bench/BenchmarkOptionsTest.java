package io.sqe.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchmarkOptionsTest {
  @Test
  void defaultsRunAllQueriesAtScaleOne() {
    BenchmarkOptions options = BenchmarkOptions.parse();
    assertThat(options.scale()).isEqualTo(1);
    assertThat(options.queries()).hasSize(22);
    assertThat(options.runs()).isEqualTo(3);
    assertThat(options.warmups()).isEqualTo(1);
    assertThat(options.warmPasses()).isEqualTo(3);
    assertThat(options.timeout()).isEqualTo(Duration.ofSeconds(600));
    assertThat(options.dataDir()).isEqualTo(Path.of("bench/target/work/sf1").toAbsolutePath());
  }

  @Test
  void parsesBothArgumentForms() {
    BenchmarkOptions options =
        BenchmarkOptions.parse("--scale=0.10", "--queries", "3-5,1,3", "--runs", "5", "--warm-passes", "2", "--timeout-seconds=2.5", "--output", "r.csv");
    assertThat(options.scaleLabel()).isEqualTo("0.1");
    assertThat(options.queries()).isEqualTo(List.of(3, 4, 5, 1));
    assertThat(options.runs()).isEqualTo(5);
    assertThat(options.timeout()).isEqualTo(Duration.ofMillis(2500));
    assertThat(options.commandLine())
        .isEqualTo("bin/bench-tpch --scale 0.1 --runs 5 --warmups 1 --warm-passes 2 --queries 3,4,5,1 --timeout-seconds 2.5 --output r.csv");
  }

  @Test
  void cacheOptionsBecomeServerSettingsAndTheResultCacheIsOffByDefault() {
    assertThat(BenchmarkOptions.parse().serverSettings()).containsExactly(java.util.Map.entry("query.result-cache.max-bytes", "0"));
    BenchmarkOptions options = BenchmarkOptions.parse("--plan-cache-entries", "0", "--result-cache-bytes", "64m");
    assertThat(options.serverSettings())
        .containsEntry("query.plan-cache.max-entries", "0")
        .containsEntry("query.result-cache.max-bytes", "64m");
    assertThat(options.commandLine()).endsWith(" --plan-cache-entries 0 --result-cache-bytes 64m");
  }

  @Test
  void rejectsBadValuesByName() {
    assertThatThrownBy(() -> BenchmarkOptions.parse("--queries", "23")).hasMessage("Invalid TPC-H query number: 23 (must be 1 to 22)");
    assertThatThrownBy(() -> BenchmarkOptions.parse("--runs", "0")).hasMessageContaining("Invalid number of runs: 0");
    assertThatThrownBy(() -> BenchmarkOptions.parse("--scale")).hasMessage("Missing value for --scale");
    assertThatThrownBy(() -> BenchmarkOptions.parse("--sf", "1")).hasMessage("Unknown argument: --sf");
  }
}
