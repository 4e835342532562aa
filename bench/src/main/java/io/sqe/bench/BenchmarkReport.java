package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import io.sqe.bench.QueryOutcome.Status;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.ToDoubleFunction;

/**
 * The result of a benchmark run, as a Markdown document or as CSV.
 *
 * @param environment machine, Java and commit
 * @param options what was run
 * @param setup facts about the data and the engines, one line each
 * @param outcomes one per query, in run order
 */
record BenchmarkReport(
    RunEnvironment environment,
    BenchmarkOptions options,
    List<String> setup,
    List<QueryOutcome> outcomes,
    Map<Integer, MemorySampler.Peak> memory) {
  BenchmarkReport {
    requireNonNull(environment, "environment is null");
    requireNonNull(options, "options is null");
    setup = List.copyOf(setup);
    outcomes = List.copyOf(outcomes);
    memory = Map.copyOf(memory);
  }

  /** The server's memory while SQE ran a query (its warm-ups and timed runs), or none. */
  MemorySampler.Peak memory(int query) {
    return memory.getOrDefault(query, MemorySampler.Peak.NONE);
  }

  /** The highest peaks over all queries. */
  MemorySampler.Peak peakMemory() {
    return memory.values().stream().reduce(MemorySampler.Peak.NONE, MemorySampler.Peak::max);
  }

  /** SQE/DuckDB per query on a log scale, with the geometric mean marked. */
  BarChart chart() {
    BarChart chart =
        new BarChart(
            "TPC-H scale " + options.scaleLabel() + ": SQE time / DuckDB time per query (" + environment.date() + ")",
            "SQE/DuckDB, min of " + options.runs() + " runs",
            "SQE/DuckDB");
    for (QueryOutcome o : byQuery()) {
      String note =
          o.completedOnBoth()
              ? String.format(Locale.ROOT, "SQE %.0f ms, DuckDB %.0f ms", o.sqe().minMillis(), o.duckdb().minMillis())
              : o.status().name();
      chart.row("Q" + o.query(), note, o.completedOnBoth() ? o.ratio() : Double.NaN);
    }
    ratioGeomean().ifPresent(g -> chart.reference(g, String.format(Locale.ROOT, "geometric mean %.2fx", g)));
    MemorySampler.Peak peak = peakMemory();
    chart.footer("Commit " + environment.commit() + "; " + completedOnBoth().size() + " of " + outcomes.size()
        + " queries completed on both engines; peak server memory: heap " + peak.heapMb() + " MB, Arrow " + peak.arrowMb() + " MB");
    return chart;
  }

  /** The queries that completed on both engines, the ones the geometric means cover. */
  List<QueryOutcome> completedOnBoth() {
    return outcomes.stream().filter(QueryOutcome::completedOnBoth).toList();
  }

  OptionalDouble sqeGeomeanMillis() {
    return geomean(o -> o.sqe().minMillis());
  }

  OptionalDouble duckdbGeomeanMillis() {
    return geomean(o -> o.duckdb().minMillis());
  }

  OptionalDouble ratioGeomean() {
    return geomean(QueryOutcome::ratio);
  }

  private OptionalDouble geomean(ToDoubleFunction<QueryOutcome> value) {
    List<QueryOutcome> both = completedOnBoth();
    if (both.isEmpty()) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(Math.exp(both.stream().mapToDouble(o -> Math.log(value.applyAsDouble(o))).average().orElseThrow()));
  }

  long count(Status status) {
    return outcomes.stream().filter(o -> o.status() == status).count();
  }

  String markdown() {
    List<String> lines = new ArrayList<>();
    lines.add("## TPC-H scale " + options.scaleLabel() + ": SQE (Flight SQL) and DuckDB over the same Parquet files");
    lines.add("");
    for (String line : environment.describe()) {
      lines.add("- " + line);
    }
    for (String line : setup) {
      lines.add("- " + line);
    }
    lines.add("- Command: `" + options.commandLine() + "`");
    lines.add(
        String.format(
            "- Method: one process; first %d untimed pass(es) over all the queries on both engines; then per query, DuckDB's %d warm-up and %d timed runs, then SQE's;"
                + " a full GC before every run; queries that exceed the timeout are cancelled; min and median wall time (SQE: GetFlightInfo to the last batch read;"
                + " DuckDB: executeQuery to the last row read); SQE plan = median time of the GetFlightInfo call alone"
                + " (parse, validate, optimise, generate and compile code);"
                + " results compared row by row (decimals exactly, doubles within 1e-9);"
                + " peak heap = the JVM's heap in use (SQE runs in this JVM; uncollected garbage included) and peak Arrow ="
                + " the server's Arrow allocator, sampled every 5 ms while SQE ran the query",
            options.warmPasses(), options.warmups(), options.runs()));
    lines.add("");
    lines.add("| Query | SQE min ms | SQE median ms | SQE plan ms | DuckDB min ms | DuckDB median ms | SQE/DuckDB | Rows | Status | SQE peak heap MB | SQE peak Arrow MB |");
    lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|");
    for (QueryOutcome o : byQuery()) {
      lines.add(
          String.format(
              "| Q%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |",
              o.query(),
              minCell(o.sqe()),
              medianCell(o.sqe()),
              prepareCell(o.sqe()),
              minCell(o.duckdb()),
              medianCell(o.duckdb()),
              ratioCell(o),
              o.rows() < 0 ? "" : String.valueOf(o.rows()),
              o.status(),
              memory(o.query()).heapMb(),
              memory(o.query()).arrowMb()));
    }
    lines.add("");
    lines.add(summary());
    MemorySampler.Peak peak = peakMemory();
    lines.add("");
    lines.add("Peak server memory over the run: heap " + peak.heapMb() + " MB, Arrow allocator " + peak.arrowMb() + " MB.");
    List<QueryOutcome> noted = byQuery().stream().filter(o -> !o.note().isEmpty()).toList();
    if (!noted.isEmpty()) {
      lines.add("");
      for (QueryOutcome o : noted) {
        lines.add("- Q" + o.query() + " " + o.status() + ": " + o.note());
      }
    }
    return String.join("\n", lines) + "\n";
  }

  /** The geometric means, over the queries that completed on both engines. */
  String summary() {
    List<QueryOutcome> both = completedOnBoth();
    if (both.isEmpty()) {
      return "No query completed on both engines, so there are no geometric means.";
    }
    String counts =
        String.format(
            "%d of %d queries completed on both engines (%d OK, %d MISMATCH; %d TIMEOUT, %d ERROR).",
            both.size(), outcomes.size(), count(Status.OK), count(Status.MISMATCH), count(Status.TIMEOUT), count(Status.ERROR));
    return counts
        + String.format(
            Locale.ROOT,
            " Geometric mean of the min times over those: SQE %.1f ms, DuckDB %.1f ms, SQE/DuckDB %.2f.",
            sqeGeomeanMillis().orElseThrow(),
            duckdbGeomeanMillis().orElseThrow(),
            ratioGeomean().orElseThrow());
  }

  String csv() {
    List<String> lines = new ArrayList<>();
    lines.add("scale,query,sqe_min_ms,sqe_median_ms,sqe_plan_ms,duckdb_min_ms,duckdb_median_ms,ratio,rows,status,note,sqe_peak_heap_mb,sqe_peak_arrow_mb");
    for (QueryOutcome o : byQuery()) {
      lines.add(
          String.join(
              ",",
              options.scaleLabel(),
              String.valueOf(o.query()),
              o.sqe().completed() ? millis(o.sqe().minMillis()) : "",
              o.sqe().completed() ? millis(o.sqe().medianMillis()) : "",
              prepareCell(o.sqe()),
              o.duckdb().completed() ? millis(o.duckdb().minMillis()) : "",
              o.duckdb().completed() ? millis(o.duckdb().medianMillis()) : "",
              o.completedOnBoth() ? String.format(Locale.ROOT, "%.3f", o.ratio()) : "",
              o.rows() < 0 ? "" : String.valueOf(o.rows()),
              o.status().name(),
              "\"" + o.note().replace("\"", "\"\"") + "\"",
              memory(o.query()).heapMb(),
              memory(o.query()).arrowMb()));
    }
    return String.join("\n", lines) + "\n";
  }

  /** The outcomes in query order, whatever order the queries ran in. */
  private List<QueryOutcome> byQuery() {
    return outcomes.stream().sorted(Comparator.comparingInt(QueryOutcome::query)).toList();
  }

  private String minCell(EngineTimings timings) {
    if (timings.completed()) {
      return millis(timings.minMillis());
    }
    return failureCell(timings);
  }

  private String medianCell(EngineTimings timings) {
    return timings.completed() ? millis(timings.medianMillis()) : "";
  }

  private static String prepareCell(EngineTimings timings) {
    if (!timings.completed()) {
      return "";
    }
    OptionalDouble prepare = timings.medianPrepareMillis();
    return prepare.isPresent() ? millis(prepare.getAsDouble()) : "";
  }

  private String failureCell(EngineTimings timings) {
    if (timings.failure() == null) {
      return "";
    }
    return timings.failure().outcome() == Attempt.Outcome.TIMEOUT
        ? "> " + options.timeout().toSeconds() * 1000
        : "error";
  }

  private String ratioCell(QueryOutcome o) {
    if (o.completedOnBoth()) {
      return String.format(Locale.ROOT, "%.2f", o.ratio());
    }
    // SQE ran out of time while DuckDB finished: the ratio is at least timeout over DuckDB's time.
    Attempt failure = o.sqe().failure();
    if (failure != null && failure.outcome() == Attempt.Outcome.TIMEOUT && o.duckdb().completed()) {
      return String.format(Locale.ROOT, "> %.0f", options.timeout().toMillis() / o.duckdb().minMillis());
    }
    return "";
  }

  private static String millis(double ms) {
    return String.format(Locale.ROOT, "%.1f", ms);
  }
}
