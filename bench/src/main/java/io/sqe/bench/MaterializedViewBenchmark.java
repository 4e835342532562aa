package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Dashboard queries over TPC-H's lineitem, orders, customer and nation, through SQE's Flight SQL
 * endpoint in process: each timed as written (the session's {@code materialized_view_rewrite}
 * off, so it joins and aggregates the sources) and rewritten onto one materialized view of the
 * same joins at a finer grouping, runs of the two interleaved. Each query's rewritten answer must
 * equal its answer over the sources, and EXPLAIN must show the rewrite.
 */
public final class MaterializedViewBenchmark {
  static final String VIEW = "dashboard_revenue";
  private static final String JOINS = " FROM lineitem JOIN orders ON l_orderkey = o_orderkey"
      + " JOIN customer ON o_custkey = c_custkey JOIN nation ON c_nationkey = n_nationkey";
  static final String VIEW_SQL = "SELECT n_name, c_mktsegment, o_orderpriority, l_returnflag, l_shipmode,"
      + " sum(l_extendedprice) AS revenue, sum(l_quantity) AS quantity, count(*) AS line_count,"
      + " min(l_discount) AS min_discount, max(l_discount) AS max_discount" + JOINS
      + " GROUP BY n_name, c_mktsegment, o_orderpriority, l_returnflag, l_shipmode";
  /** The dashboard's tiles: a roll-up by nation, a filtered roll-up by segment, the same grouping. */
  static final Map<String, String> QUERIES = Map.of(
      "revenue by nation",
      "SELECT n_name, sum(l_extendedprice) AS revenue, count(*) AS line_count" + JOINS
          + " GROUP BY n_name ORDER BY revenue DESC",
      "air and mail by segment, urgent orders",
      "SELECT c_mktsegment, l_shipmode, sum(l_quantity) AS quantity, max(l_discount) AS max_discount" + JOINS
          + " WHERE l_shipmode IN ('AIR', 'MAIL') AND o_orderpriority = '1-URGENT' GROUP BY c_mktsegment, l_shipmode"
          + " ORDER BY c_mktsegment, l_shipmode",
      "the view's own grouping",
      VIEW_SQL);

  /** What to run; see {@link #USAGE}. */
  public record Options(double scale, int runs, int warmups, Path workDir, Optional<Path> output) {
    public Options {
      requireNonNull(workDir, "workDir is null");
      requireNonNull(output, "output is null");
      if (!(scale > 0) || scale > 100) {
        throw new IllegalArgumentException("Invalid scale: " + scale + " (must be above 0 and at most 100)");
      }
      if (runs < 1 || warmups < 0) {
        throw new IllegalArgumentException("Invalid --runs " + runs + " or --warmups " + warmups + " (at least 1 and 0)");
      }
    }

    static Options parse(String... args) {
      Map<String, String> values = CommandLineArguments.parse(Set.of(), args);
      CommandLineArguments.rejectUnknown(values, Set.of("--scale", "--runs", "--warmups", "--work-dir", "--output"));
      return new Options(
          CommandLineArguments.number(values, "--scale", 1),
          CommandLineArguments.integer(values, "--runs", 5),
          CommandLineArguments.integer(values, "--warmups", 1),
          values.containsKey("--work-dir") ? Path.of(values.get("--work-dir")) : BenchmarkOptions.DEFAULT_WORK_DIR,
          Optional.ofNullable(values.get("--output")).map(Path::of));
    }

    BenchmarkOptions tpch() {
      return new BenchmarkOptions(scale, workDir, 1, 0, List.of(1), Duration.ofHours(1), Optional.empty(), false);
    }

    String commandLine() {
      StringBuilder s = new StringBuilder("bin/bench-mview --scale ").append(tpch().scaleLabel())
          .append(" --runs ").append(runs).append(" --warmups ").append(warmups);
      if (!workDir.equals(BenchmarkOptions.DEFAULT_WORK_DIR)) {
        s.append(" --work-dir ").append(workDir);
      }
      output.ifPresent(o -> s.append(" --output ").append(o));
      return s.toString();
    }
  }

  public static final String USAGE =
      "Usage: bench-mview [options]\n"
          + "  --scale N       TPC-H scale factor of the data (default 1; generated once, shared with bench-tpch)\n"
          + "  --runs N        timed runs of each query, as written and rewritten, interleaved (default 5)\n"
          + "  --warmups N     untimed runs of each first (default 1)\n"
          + "  --work-dir DIR  as bench-tpch (default bench/target/work)\n"
          + "  --output FILE   also write the Markdown report\n";

  /** One query's times in milliseconds, over the sources and rewritten, and its rows. */
  record Outcome(String name, String sql, List<Double> baseMillis, List<Double> rewrittenMillis, int rows) {
    double baseMin() {
      return baseMillis.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    double rewrittenMin() {
      return rewrittenMillis.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    static double median(List<Double> millis) {
      double[] sorted = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      return sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
  }

  /** What a run measured. */
  record Report(RunEnvironment environment, Options options, List<String> setup, double createMillis, List<Outcome> outcomes) {
    String markdown() {
      List<String> lines = new ArrayList<>();
      lines.add("## Dashboard queries rewritten onto a materialized view, TPC-H scale " + options.tpch().scaleLabel());
      lines.add("");
      environment.describe().forEach(l -> lines.add("- " + l));
      setup.forEach(l -> lines.add("- " + l));
      lines.add("- Command: `" + options.commandLine() + "`");
      lines.add("- Method: one process, SQE through Flight SQL; each query run as written with `materialized_view_rewrite`"
          + " off and rewritten, the two alternating, " + options.warmups() + " warm-up and " + options.runs()
          + " timed runs each; result cache off; both answers equal, and EXPLAIN shows the rewrite");
      lines.add(String.format(Locale.ROOT, "- `CREATE MATERIALIZED VIEW %s`: %.0f ms", VIEW, createMillis));
      lines.add("");
      lines.add("| Query | rows | over the sources min / median ms | rewritten min / median ms | rewritten / sources (min) |");
      lines.add("|---|---:|---:|---:|---:|");
      for (Outcome o : outcomes) {
        lines.add(String.format(Locale.ROOT, "| %s | %d | %.1f / %.1f | %.1f / %.1f | %.3f |",
            o.name(), o.rows(), o.baseMin(), Outcome.median(o.baseMillis()), o.rewrittenMin(),
            Outcome.median(o.rewrittenMillis()), o.rewrittenMin() / o.baseMin()));
      }
      lines.add("");
      lines.add("The view: `" + VIEW_SQL + "`");
      lines.add("");
      for (Outcome o : outcomes) {
        lines.add("- " + o.name() + ": `" + o.sql() + "`");
      }
      return String.join("\n", lines) + "\n";
    }
  }

  private final Options options;
  private final PrintStream out;

  public MaterializedViewBenchmark(Options options, PrintStream out) {
    this.options = requireNonNull(options, "options is null");
    this.out = requireNonNull(out, "out is null");
  }

  public static void main(String[] args) throws Exception {
    Optional<Options> options = CommandLineArguments.optionsOrExit(args, USAGE, Options::parse);
    if (options.isPresent()) {
      new MaterializedViewBenchmark(options.get(), System.out).run();
      System.exit(0);
    }
  }

  public Report run() throws Exception {
    RunEnvironment environment = RunEnvironment.detect();
    environment.describe().forEach(out::println);
    List<String> setup = new ArrayList<>();
    List<Outcome> outcomes = new ArrayList<>();
    TpchBenchmark.Engines engines = TpchBenchmark.Engines.start(options.tpch(), setup, out);
    setup.forEach(out::println);
    double loadBefore = RunEnvironment.loadAverage();
    double createMillis;
    try {
      SqeFlightEngine sqe = engines.sqe();
      sqe.update("DROP MATERIALIZED VIEW IF EXISTS " + VIEW);
      long start = System.nanoTime();
      sqe.update("CREATE MATERIALIZED VIEW " + VIEW + " AS " + VIEW_SQL);
      createMillis = (System.nanoTime() - start) / 1e6;
      for (Map.Entry<String, String> query : new TreeMap<>(QUERIES).entrySet()) {
        outcomes.add(measure(sqe, query.getKey(), query.getValue()));
        out.println(outcomes.get(outcomes.size() - 1).name() + " done");
      }
      sqe.update("DROP MATERIALIZED VIEW " + VIEW);
      setup.add(String.format(Locale.ROOT,
          "System load average (1 min, %d cores): %.2f when the queries started, %.2f when they ended",
          environment.cores(), loadBefore, RunEnvironment.loadAverage()));
    } finally {
      engines.closeWithin(Duration.ofSeconds(30), out);
    }
    Report report = new Report(environment, options, setup, createMillis, outcomes);
    out.println();
    out.print(report.markdown());
    if (options.output().isPresent()) {
      Path file = options.output().get();
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, report.markdown(), StandardCharsets.UTF_8);
      out.println("Wrote " + file);
    }
    return report;
  }

  private Outcome measure(SqeFlightEngine sqe, String name, String sql) throws Exception {
    if (!String.join("\n", sqe.explain(sql)).contains("-- rewritten onto materialized view")) {
      throw new IllegalStateException("Not rewritten onto " + VIEW + ": " + name + "\n" + String.join("\n", sqe.explain(sql)));
    }
    List<Double> base = new ArrayList<>();
    List<Double> rewritten = new ArrayList<>();
    List<String> rewrittenRows = null;
    List<String> baseRows = null;
    for (int run = 0; run < options.warmups() + options.runs(); run++) {
      boolean timed = run >= options.warmups();
      // Alternating which goes first evens out what the other's run leaves behind (caches, garbage).
      for (boolean rewrite : run % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) {
        sqe.update("SET SESSION materialized_view_rewrite = " + rewrite);
        long start = System.nanoTime();
        ResultRows rows = sqe.execute(sql, new Cancellation());
        double millis = (System.nanoTime() - start) / 1e6;
        List<String> sorted = rows.rows().stream().map(Object::toString).sorted().toList();
        if (rewrite) {
          rewrittenRows = sorted;
        } else {
          baseRows = sorted;
        }
        if (timed) {
          (rewrite ? rewritten : base).add(millis);
        }
      }
    }
    sqe.update("RESET materialized_view_rewrite");
    if (!baseRows.equals(rewrittenRows)) {
      throw new IllegalStateException("The rewritten answer differs from the sources' for " + name);
    }
    return new Outcome(name, sql, base, rewritten, baseRows.size());
  }
}
