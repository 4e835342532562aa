package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one metadata benchmark run does.
 *
 * @param tables tables in the catalog, spread evenly over the schemas
 * @param schemas schemas (Iceberg namespaces) in the catalog
 * @param statements statements in one burst
 * @param threads clients running the burst side by side, as dbt's threads do
 * @param runs timed bursts per server after the first (cold) one
 * @param cacheTtl the cached server's {@code catalog.cache-ttl}
 * @param workDir directory holding the generated catalog, reused between runs
 * @param output file for the Markdown report
 */
public record MetadataBenchmarkOptions(
    int tables, int schemas, int statements, int threads, int runs, Duration cacheTtl, Path workDir, Optional<Path> output) {
  public static final String USAGE =
      "Usage: bench-metadata [options]\n"
          + "  --tables N           tables in the catalog (default 2000)\n"
          + "  --schemas N          schemas they are spread over (default 20)\n"
          + "  --statements N       statements in one burst (default 500)\n"
          + "  --threads N          clients running the burst side by side (default 4)\n"
          + "  --runs N             timed bursts per server after the cold one (default 3)\n"
          + "  --cache-ttl-seconds N  the cached server's catalog.cache-ttl (default 10, the server's default)\n"
          + "  --work-dir DIR       the generated catalog, reused between runs (default bench/target/work)\n"
          + "  --output FILE        also write the Markdown report\n";

  public MetadataBenchmarkOptions {
    requireNonNull(cacheTtl, "cacheTtl is null");
    requireNonNull(workDir, "workDir is null");
    requireNonNull(output, "output is null");
    if (schemas < 1 || tables < schemas) {
      throw new IllegalArgumentException("Invalid catalog: " + tables + " tables in " + schemas + " schemas (need at least one table per schema)");
    }
    if (statements < 1 + schemas) {
      throw new IllegalArgumentException("Invalid burst: " + statements + " statements (must be more than one per schema)");
    }
    if (threads < 1 || runs < 1) {
      throw new IllegalArgumentException("Invalid threads or runs: " + threads + ", " + runs + " (must be at least 1)");
    }
    if (cacheTtl.isNegative() || cacheTtl.isZero()) {
      throw new IllegalArgumentException("Invalid cache TTL: " + cacheTtl + " (must be positive; the other server runs without caches)");
    }
  }

  /** Parses {@code --name value} and {@code --name=value} arguments over the defaults. */
  public static MetadataBenchmarkOptions parse(String... args) {
    Map<String, String> values = CommandLineArguments.parse(Set.of(), args);
    CommandLineArguments.rejectUnknown(
        values,
        Set.of("--tables", "--schemas", "--statements", "--threads", "--runs", "--cache-ttl-seconds", "--work-dir", "--output"));
    return new MetadataBenchmarkOptions(
        CommandLineArguments.integer(values, "--tables", 2000),
        CommandLineArguments.integer(values, "--schemas", 20),
        CommandLineArguments.integer(values, "--statements", 500),
        CommandLineArguments.integer(values, "--threads", 4),
        CommandLineArguments.integer(values, "--runs", 3),
        Duration.ofMillis(Math.round(CommandLineArguments.number(values, "--cache-ttl-seconds", 10) * 1000)),
        values.containsKey("--work-dir") ? Path.of(values.get("--work-dir")) : BenchmarkOptions.DEFAULT_WORK_DIR,
        Optional.ofNullable(values.get("--output")).map(Path::of));
  }

  /** Where the catalog of this size lives. */
  public Path dataDir() {
    return workDir.resolve("metadata-" + tables + "x" + schemas).toAbsolutePath().normalize();
  }

  /** The options as command-line arguments, for the report. */
  public String commandLine() {
    return String.format(
        "bin/bench-metadata --tables %d --schemas %d --statements %d --threads %d --runs %d --cache-ttl-seconds %s",
        tables, schemas, statements, threads, runs, seconds());
  }

  /** The cache lifetime as the report shows it, e.g. {@code 10 s}. */
  public String cacheTtlLabel() {
    return seconds() + " s";
  }

  private String seconds() {
    return BigDecimal.valueOf(cacheTtl.toMillis(), 3).stripTrailingZeros().toPlainString();
  }
}
