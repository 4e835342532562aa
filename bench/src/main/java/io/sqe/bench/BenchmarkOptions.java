package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import io.sqe.sample.tpch.TpchQueries;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one benchmark run does: the TPC-H scale, where its data lives, how often each query runs and
 * for how long it may run.
 *
 * @param scale TPC-H scale factor
 * @param workDir directory holding one SQE data directory per scale, reused between runs
 * @param runs timed runs per query and engine
 * @param warmups untimed runs per query and engine before the timed ones
 * @param warmPasses untimed passes over all selected queries, on both engines, before the first
 *     query is timed: a server runs for hours, so its compiler has seen every operator; without a
 *     pass the first queries are measured on an interpreter and JIT the later ones do not pay for
 * @param queries TPC-H query numbers, in the order they run
 * @param timeout longest one execution of a query may take before it is cancelled
 * @param output file for the report: CSV when it ends with {@code .csv}, else Markdown
 * @param explain print SQE's plan of each query instead of timing it
 * @param serverSettings settings for the SQE server on top of the benchmark's own: by default the
 *     result cache is off, so that repeated runs of a query execute it
 */
public record BenchmarkOptions(
    double scale,
    Path workDir,
    int runs,
    int warmups,
    int warmPasses,
    List<Integer> queries,
    Duration timeout,
    Optional<Path> output,
    boolean explain,
    Map<String, String> serverSettings) {
  /** The server settings of a run that names none: no result cache. */
  public static final Map<String, String> DEFAULT_SERVER_SETTINGS = Map.of("query.result-cache.max-bytes", "0");
  public static final Path DEFAULT_WORK_DIR = Path.of("bench", "target", "work");

  public static final String USAGE =
      "Usage: bench-tpch [options]\n"
          + "  --scale N            TPC-H scale factor (default 1)\n"
          + "  --work-dir DIR       data, generated once per scale and reused (default bench/target/work)\n"
          + "  --runs N             timed runs per query and engine (default 3)\n"
          + "  --warmups N          untimed runs per query and engine first (default 1)\n"
          + "  --warm-passes N      untimed passes over all the queries on both engines before any is timed (default 3)\n"
          + "  --queries LIST       e.g. 1,6,19 or 1-5,7 (default all 22)\n"
          + "  --timeout-seconds N  cancel an execution after this long and report TIMEOUT (default 600)\n"
          + "  --output FILE        also write the report: CSV if FILE ends with .csv, else Markdown\n"
          + "  --explain            print SQE's plan for each query instead of timing\n"
          + "  --plan-cache-entries N  SQE's plan cache size, 0 for off (default: the server's default)\n"
          + "  --result-cache-bytes S  SQE's result cache size, e.g. 64m (default 0: off, so each run executes)\n"
          + "  --settings K=V,...   sqe.yaml settings for SQE, e.g. planner.columnar=false,query.parallelism=1\n";

  public BenchmarkOptions {
    requireNonNull(workDir, "workDir is null");
    requireNonNull(queries, "queries is null");
    requireNonNull(timeout, "timeout is null");
    requireNonNull(output, "output is null");
    if (!(scale > 0) || scale > 100) {
      throw new IllegalArgumentException("Invalid scale: " + scale + " (must be above 0 and at most 100)");
    }
    if (runs < 1) {
      throw new IllegalArgumentException("Invalid number of runs: " + runs + " (must be at least 1)");
    }
    if (warmups < 0) {
      throw new IllegalArgumentException("Invalid number of warm-ups: " + warmups + " (must not be negative)");
    }
    if (warmPasses < 0) {
      throw new IllegalArgumentException("Invalid number of warm passes: " + warmPasses + " (must not be negative)");
    }
    if (queries.isEmpty()) {
      throw new IllegalArgumentException("No queries selected");
    }
    for (int query : queries) {
      if (!TpchQueries.numbers().contains(query)) {
        throw new IllegalArgumentException("Invalid TPC-H query number: " + query + " (must be 1 to 22)");
      }
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("Invalid timeout: " + timeout + " (must be positive)");
    }
    queries = List.copyOf(queries);
    serverSettings = Map.copyOf(serverSettings);
  }

  public BenchmarkOptions(
      double scale, Path workDir, int runs, int warmups, List<Integer> queries, Duration timeout, Optional<Path> output, boolean explain) {
    this(scale, workDir, runs, warmups, 0, queries, timeout, output, explain, DEFAULT_SERVER_SETTINGS);
  }

  /**
   * The defaults: scale 1, three warm passes, 3 runs after 1 warm-up, all 22 queries, 600 s
   * timeout. Three passes, not one: a fresh server's JIT compiles the operators' loops over the
   * first several runs of each kind of query, and one pass left it still compiling during the
   * timed runs (TPC-H scale 1: 1.63x DuckDB's time with one, 1.40-1.46x with three, same build).
   */
  public static BenchmarkOptions defaults() {
    return new BenchmarkOptions(
        1, DEFAULT_WORK_DIR, 3, 1, 3, TpchQueries.numbers(), Duration.ofSeconds(600), Optional.empty(), false, DEFAULT_SERVER_SETTINGS);
  }

  /** Parses {@code --name value} and {@code --name=value} arguments over the defaults. */
  public static BenchmarkOptions parse(String... args) {
    BenchmarkOptions o = defaults();
    double scale = o.scale;
    Path workDir = o.workDir;
    int runs = o.runs;
    int warmups = o.warmups;
    int warmPasses = o.warmPasses;
    List<Integer> queries = o.queries;
    Duration timeout = o.timeout;
    Optional<Path> output = o.output;
    boolean explain = o.explain;
    Map<String, String> serverSettings = new java.util.HashMap<>(o.serverSettings);
    for (Map.Entry<String, String> argument : CommandLineArguments.parse(Set.of("--explain"), args).entrySet()) {
      String name = argument.getKey();
      String value = argument.getValue();
      switch (name) {
        case "--explain":
          explain = true;
          break;
        case "--scale":
          scale = CommandLineArguments.number(name, value);
          break;
        case "--work-dir":
          workDir = Path.of(value);
          break;
        case "--runs":
          runs = CommandLineArguments.integer(name, value);
          break;
        case "--warmups":
          warmups = CommandLineArguments.integer(name, value);
          break;
        case "--warm-passes":
          warmPasses = CommandLineArguments.integer(name, value);
          break;
        case "--queries":
          queries = queryList(value);
          break;
        case "--timeout-seconds":
          timeout = Duration.ofMillis(Math.round(CommandLineArguments.number(name, value) * 1000));
          break;
        case "--output":
          output = Optional.of(Path.of(value));
          break;
        case "--plan-cache-entries":
          serverSettings.put("query.plan-cache.max-entries", Integer.toString(CommandLineArguments.integer(name, value)));
          break;
        case "--result-cache-bytes":
          serverSettings.put("query.result-cache.max-bytes", value);
          break;
        case "--settings":
          serverSettings.putAll(settings(value));
          break;
        default:
          throw new IllegalArgumentException("Unknown argument: " + name);
      }
    }
    return new BenchmarkOptions(scale, workDir, runs, warmups, warmPasses, queries, timeout, output, explain, serverSettings);
  }

  /** The scale as written in directory names and reports: 1, 0.1, 0.01. */
  public String scaleLabel() {
    return BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString();
  }

  /** The SQE data directory for this scale; a different scale gets its own directory. */
  public Path dataDir() {
    return workDir.resolve("sf" + scaleLabel()).toAbsolutePath().normalize();
  }

  /** The options as command-line arguments, for the report. */
  public String commandLine() {
    StringBuilder s = new StringBuilder("bin/bench-tpch --scale ").append(scaleLabel());
    if (!workDir.equals(DEFAULT_WORK_DIR)) {
      s.append(" --work-dir ").append(workDir);
    }
    s.append(" --runs ").append(runs).append(" --warmups ").append(warmups).append(" --warm-passes ").append(warmPasses);
    if (!queries.equals(TpchQueries.numbers())) {
      s.append(" --queries ").append(String.join(",", queries.stream().map(String::valueOf).toList()));
    }
    s.append(" --timeout-seconds ").append(BigDecimal.valueOf(timeout.toMillis(), 3).stripTrailingZeros().toPlainString());
    output.ifPresent(file -> s.append(" --output ").append(file));
    if (explain) {
      s.append(" --explain");
    }
    String planCache = serverSettings.get("query.plan-cache.max-entries");
    if (planCache != null) {
      s.append(" --plan-cache-entries ").append(planCache);
    }
    String resultCache = serverSettings.get("query.result-cache.max-bytes");
    if (resultCache != null && !resultCache.equals(DEFAULT_SERVER_SETTINGS.get("query.result-cache.max-bytes"))) {
      s.append(" --result-cache-bytes ").append(resultCache);
    }
    String others = serverSettings.entrySet().stream()
        .filter(e -> !e.getKey().equals("query.plan-cache.max-entries") && !e.getKey().equals("query.result-cache.max-bytes"))
        .map(e -> e.getKey() + "=" + e.getValue())
        .sorted()
        .collect(java.util.stream.Collectors.joining(","));
    if (!others.isEmpty()) {
      s.append(" --settings ").append(others);
    }
    return s.toString();
  }

  /** {@code 1,6,19} or ranges such as {@code 1-5,7}; duplicates are dropped, order is kept. */
  static List<Integer> queryList(String value) {
    Set<Integer> queries = new LinkedHashSet<>();
    for (String part : value.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      try {
        int dash = p.indexOf('-');
        if (dash > 0) {
          int from = Integer.parseInt(p.substring(0, dash).trim());
          int to = Integer.parseInt(p.substring(dash + 1).trim());
          if (from > to) {
            throw new IllegalArgumentException("Invalid query range: " + p);
          }
          for (int q = from; q <= to; q++) {
            queries.add(q);
          }
        } else {
          queries.add(Integer.parseInt(p));
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--queries must list query numbers such as 1,6,19 or 1-5, not '" + value + "'");
      }
    }
    return new ArrayList<>(queries);
  }

  /**
   * The value of {@code --settings}: {@code sqe.yaml} settings as key=value pairs separated by
   * commas, for A/B runs of one build (planner and execution options); the server checks each.
   */
  static Map<String, String> settings(String value) {
    Map<String, String> settings = new java.util.LinkedHashMap<>();
    for (String setting : value.split(",")) {
      int eq = setting.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--settings takes key=value pairs separated by commas, not " + setting);
      }
      settings.put(setting.substring(0, eq).trim(), setting.substring(eq + 1).trim());
    }
    return settings;
  }
}
