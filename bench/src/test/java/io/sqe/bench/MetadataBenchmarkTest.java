package io.sqe.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metadata burst at a tiny size: catalog creation, both servers, comparison, report. */
class MetadataBenchmarkTest {
  @Test
  void runsTheBurstOnBothServersAndFindsTheSameRows(@TempDir Path dir) throws Exception {
    Path report = dir.resolve("metadata.md");
    MetadataBenchmarkOptions options =
        new MetadataBenchmarkOptions(24, 3, 20, 2, 2, Duration.ofMinutes(1), dir.resolve("work"), Optional.of(report));
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    MetadataBenchmark.Result result = new MetadataBenchmark(options, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

    System.out.print(printed.toString(StandardCharsets.UTF_8));
    assertThat(result.mismatches()).isZero();
    assertThat(result.cachedNanos()).hasSize(3).allSatisfy(n -> assertThat(n).isPositive());
    assertThat(result.uncachedNanos()).hasSize(3).allSatisfy(n -> assertThat(n).isPositive());
    assertThat(result.ratio()).isPositive();
    assertThat(Files.readString(report))
        .contains("24 tables in 3 schemas; burst of 20 statements (1 schemata, 3 tables, 16 columns) from 2 clients")
        .contains("| catalog.cache-ttl 0 (no caches) |");
  }

  @Test
  void optionsParseAndCheckTheirValues() {
    MetadataBenchmarkOptions defaults = MetadataBenchmarkOptions.parse();
    assertThat(defaults.tables()).isEqualTo(2000);
    assertThat(defaults.statements()).isEqualTo(500);
    assertThat(MetadataBenchmarkOptions.parse("--tables=200", "--schemas", "4", "--statements", "100", "--cache-ttl-seconds", "30").commandLine())
        .isEqualTo("bin/bench-metadata --tables 200 --schemas 4 --statements 100 --threads 4 --runs 3 --cache-ttl-seconds 30");
    assertThatThrownBy(() -> MetadataBenchmarkOptions.parse("--schemas", "10", "--statements", "5"))
        .hasMessageContaining("Invalid burst: 5 statements");
    assertThatThrownBy(() -> MetadataBenchmarkOptions.parse("--tables")).hasMessage("Missing value for --tables");
  }
}
