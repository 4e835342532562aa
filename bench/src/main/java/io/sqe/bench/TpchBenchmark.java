package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import io.sqe.bench.QueryOutcome.Status;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.SqeServer;
import io.sqe.flight.config.ConfigLoader;
import io.sqe.sample.tpch.TpchLoader;
import io.sqe.sample.tpch.TpchQueries;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * TPC-H through SQE's Flight SQL endpoint against DuckDB over the same Parquet files, in one
 * process: starts SQE on a loopback port over a data directory that keeps the generated tables
 * between runs, points DuckDB at the tables' data files, and times each query on both engines.
 */
public final class TpchBenchmark {
  static final String SCHEMA = "tpch";
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private final BenchmarkOptions options;
  private final PrintStream out;

  public TpchBenchmark(BenchmarkOptions options, PrintStream out) {
    this.options = requireNonNull(options, "options is null");
    this.out = requireNonNull(out, "out is null");
  }

  public static void main(String[] args) throws Exception {
    Optional<BenchmarkOptions> parsed = CommandLineArguments.optionsOrExit(args, BenchmarkOptions.USAGE, BenchmarkOptions::parse);
    if (parsed.isEmpty()) {
      return;
    }
    BenchmarkOptions options = parsed.get();
    TpchBenchmark benchmark = new TpchBenchmark(options, System.out);
    int status = 0;
    if (options.explain()) {
      benchmark.explain();
    } else {
      BenchmarkReport report = benchmark.run();
      // A wrong or failed query must not pass unnoticed in a script; a timeout is an expected outcome.
      status = report.count(Status.MISMATCH) + report.count(Status.ERROR) > 0 ? 3 : 0;
    }
    // A cancelled query that SQE did not stop may still hold a server thread, which keeps the JVM up.
    System.exit(status);
  }

  /** Times every selected query on both engines, prints the report and writes it if asked. */
  public BenchmarkReport run() throws Exception {
    RunEnvironment environment = RunEnvironment.detect();
    environment.describe().forEach(out::println);
    List<String> setup = new ArrayList<>();
    List<QueryOutcome> outcomes = new ArrayList<>();
    Map<Integer, MemorySampler.Peak> memory = new LinkedHashMap<>();
    Engines engines = Engines.start(options, setup, out);
    double loadBefore = RunEnvironment.loadAverage();
    try (QueryTimer timer = new QueryTimer(options.timeout());
        MemorySampler sampler = new MemorySampler(engines.server())) {
      setup.forEach(out::println);
      out.printf("Running %d queries: %d warm-up and %d timed runs per engine, timeout %d s%n",
          options.queries().size(), options.warmups(), options.runs(), options.timeout().toSeconds());
      warmPasses(engines, timer);
      for (int query : options.queries()) {
        QueryOutcome outcome = runQuery(query, engines, timer, sampler, memory);
        outcomes.add(outcome);
        out.println(progressLine(outcome));
      }
      // On a shared machine other work skews the times; the load average shows how much there was.
      setup.add(String.format(
          Locale.ROOT,
          "System load average (1 min, %d cores): %.2f when the queries started, %.2f when they ended",
          environment.cores(), loadBefore, RunEnvironment.loadAverage()));
    } finally {
      engines.closeWithin(CLOSE_WAIT, out);
    }
    BenchmarkReport report = new BenchmarkReport(environment, options, setup, outcomes, memory);
    out.println();
    out.print(report.markdown());
    Path chart;
    if (options.output().isPresent()) {
      Path file = options.output().get();
      write(file, file.toString().toLowerCase(Locale.ROOT).endsWith(".csv") ? report.csv() : report.markdown());
      chart = BarChart.nextTo(file);
    } else {
      chart = options.workDir().resolve("results").resolve("tpch-sf" + options.scaleLabel() + ".png");
    }
    report.chart().writePng(chart);
    out.println("Wrote " + chart);
    return report;
  }

  /** Prints SQE's plan of every selected query. */
  public void explain() throws Exception {
    List<String> setup = new ArrayList<>();
    StringBuilder plans = new StringBuilder();
    Engines engines = Engines.start(options, setup, out);
    try {
      for (int query : options.queries()) {
        plans.append("-- Q").append(query).append('\n');
        for (String line : engines.sqe().explain(TpchQueries.query(query))) {
          plans.append(line).append('\n');
        }
        plans.append('\n');
      }
    } finally {
      engines.closeWithin(CLOSE_WAIT, out);
    }
    out.print(plans);
    if (options.output().isPresent()) {
      write(options.output().get(), plans.toString());
    }
  }

  private void write(Path file, String text) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(file, text, StandardCharsets.UTF_8);
    out.println("Wrote " + file);
  }

  /**
   * Runs every selected query on both engines, untimed, {@code warmPasses} times. A failure here is
   * not reported: the timed runs meet it again and report it.
   */
  private void warmPasses(Engines engines, QueryTimer timer) {
    for (int pass = 0; pass < options.warmPasses(); pass++) {
      out.printf("Warm pass %d of %d over %d queries%n", pass + 1, options.warmPasses(), options.queries().size());
      for (int query : options.queries()) {
        String sql = TpchQueries.query(query);
        new EngineRuns(engines.duckdb()).run(timer, sql, false);
        new EngineRuns(engines.sqe()).run(timer, sql, false);
      }
    }
  }

  /**
   * DuckDB's executions first, then SQE's: an SQE query that keeps running after its cancel must
   * not slow down DuckDB's measurement of the same query.
   */
  private QueryOutcome runQuery(
      int query, Engines engines, QueryTimer timer, MemorySampler sampler, Map<Integer, MemorySampler.Peak> memory) {
    String sql = TpchQueries.query(query);
    EngineRuns duckdb = new EngineRuns(engines.duckdb());
    EngineRuns sqe = new EngineRuns(engines.sqe());
    for (EngineRuns engine : List.of(duckdb, sqe)) {
      if (engine == sqe) {
        sampler.begin();
      }
      for (int i = 0; i < options.warmups(); i++) {
        engine.run(timer, sql, false);
      }
      for (int i = 0; i < options.runs(); i++) {
        engine.run(timer, sql, true);
      }
    }
    memory.put(query, sampler.end());
    return QueryOutcome.of(query, sqe.timings(), duckdb.timings());
  }

  private static String progressLine(QueryOutcome o) {
    return String.format(
        Locale.ROOT,
        "Q%-2d SQE %10s ms (plan %7s ms)  DuckDB %9s ms  %7s  %6s rows  %s%s",
        o.query(),
        o.sqe().completed() ? String.format(Locale.ROOT, "%.1f", o.sqe().minMillis()) : "-",
        o.sqe().completed() && o.sqe().medianPrepareMillis().isPresent()
            ? String.format(Locale.ROOT, "%.1f", o.sqe().medianPrepareMillis().getAsDouble())
            : "-",
        o.duckdb().completed() ? String.format(Locale.ROOT, "%.1f", o.duckdb().minMillis()) : "-",
        o.completedOnBoth() ? String.format(Locale.ROOT, "%.2fx", o.ratio()) : "",
        o.rows() < 0 ? "-" : String.valueOf(o.rows()),
        o.status(),
        o.note().isEmpty() ? "" : "  (" + o.note() + ")");
  }

  /** The executions of one query on one engine; stops at the first that does not complete. */
  private static final class EngineRuns {
    private final Engine engine;
    private final List<Long> nanos = new ArrayList<>();
    private final List<Long> prepareNanos = new ArrayList<>();
    private Attempt failure;
    private ResultRows rows;
    private int disturbedRuns;

    EngineRuns(Engine engine) {
      this.engine = engine;
    }

    void run(QueryTimer timer, String sql, boolean timed) {
      if (failure != null) {
        return;
      }
      // Garbage from the other engine's run must not be collected on this run's time.
      System.gc();
      Attempt attempt = timer.run(engine, sql);
      if (attempt.disturbed()) {
        disturbedRuns++;
      }
      if (!attempt.completed()) {
        failure = attempt;
        return;
      }
      rows = attempt.rows();
      if (timed) {
        nanos.add(attempt.nanos());
        prepareNanos.add(attempt.rows().prepareNanos());
      }
    }

    EngineTimings timings() {
      return new EngineTimings(nanos, prepareNanos, failure, rows, disturbedRuns);
    }
  }

  /** The SQE server, a Flight SQL client logged in to it, and DuckDB over the same files. */
  static final class Engines implements AutoCloseable {
    /**
     * Closes everything, giving up after {@code wait}: a query SQE did not stop when cancelled can
     * hold the server's shutdown and its memory. The measurements are done by then, so a failure
     * to close is reported, not thrown.
     */
    void closeWithin(Duration wait, PrintStream out) {
      FutureTask<Void> closing = new FutureTask<>(() -> {
        close();
        return null;
      });
      Thread thread = new Thread(closing, "bench-close");
      thread.setDaemon(true);
      thread.start();
      try {
        closing.get(wait.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        out.println("Warning: closing the engines failed: " + QueryTimer.describe(e.getCause()));
        for (Throwable suppressed : e.getCause().getSuppressed()) {
          out.println("  " + QueryTimer.describe(suppressed));
        }
      } catch (TimeoutException e) {
        out.println("Warning: the engines did not close within " + wait.toSeconds() + " s");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private final SqeServer server;
    private final BufferAllocator allocator;
    private final SqeFlightEngine sqe;
    private final DuckDbEngine duckdb;

    private Engines(SqeServer server, BufferAllocator allocator, SqeFlightEngine sqe, DuckDbEngine duckdb) {
      this.server = server;
      this.allocator = allocator;
      this.sqe = sqe;
      this.duckdb = duckdb;
    }

    /** Starts everything, loading TPC-H first if the data directory lacks it; adds facts to setup. */
    static Engines start(BenchmarkOptions options, List<String> setup, PrintStream out) throws Exception {
      Path dataDir = options.dataDir();
      boolean existed = Files.isDirectory(dataDir.resolve("warehouse"));
      out.println((existed ? "Starting SQE over " : "Starting SQE and generating TPC-H scale " + options.scaleLabel() + " into ") + dataDir);
      Map<String, String> settings = new LinkedHashMap<>();
      settings.put("host", "127.0.0.1");
      settings.put("port", "0");
      settings.put("data-dir", dataDir.toString());
      settings.put("sample-data.tpch-scale", options.scaleLabel());
      // The client logs in once; its token must outlast the longest run.
      settings.put("auth.token-lifetime", "7d");
      settings.putAll(options.serverSettings());
      long start = System.nanoTime();
      SqeServer server = SqeServer.start(ConfigLoader.fromSettings(settings));
      BufferAllocator allocator = null;
      SqeFlightEngine sqe = null;
      try {
        setup.add(
            String.format(
                Locale.ROOT,
                "SQE: in process on grpc://127.0.0.1:%d, embedded Iceberg catalog in %s; start %s took %.1f s",
                server.port(),
                dataDir,
                existed ? "over the existing data" : "with data generation",
                (System.nanoTime() - start) / 1e9));
        String password = BenchUser.password(server.authentication().users());
        Map<String, List<String>> files = dataFiles(server, setup);
        allocator = new RootAllocator();
        sqe = SqeFlightEngine.connect(allocator, server.location(), BenchUser.NAME, password, SCHEMA);
        DuckDbEngine duckdb = DuckDbEngine.open(files);
        setup.add(duckdb.describe() + ", in process, one view per table over read_parquet of the same files");
        return new Engines(server, allocator, sqe, duckdb);
      } catch (Exception | Error e) {
        closeAll(e, sqe, allocator, server);
        throw e;
      }
    }

    /** The local paths of each TPC-H table's current data files, as DuckDB reads them. */
    private static Map<String, List<String>> dataFiles(SqeServer server, List<String> setup) throws IOException {
      LakehouseCatalog catalog = server.catalogs().find("iceberg").orElseThrow();
      Map<String, List<String>> files = new LinkedHashMap<>();
      long bytes = 0;
      long rows = 0;
      int count = 0;
      List<String> perTable = new ArrayList<>();
      for (String name : TpchLoader.tableNames()) {
        TableFiles table = TableFiles.current(catalog, TableIdentifier.of(SCHEMA, name));
        List<String> paths = table.paths();
        long tableRows = table.rows();
        bytes += table.bytes();
        files.put(name, paths);
        rows += tableRows;
        count += paths.size();
        perTable.add(name + " " + tableRows + " rows/" + paths.size() + " files");
      }
      setup.add(
          String.format(
              Locale.ROOT,
              "Data: %d rows in %d Parquet files, %.0f MB (%s)",
              rows, count, bytes / 1e6, String.join(", ", perTable)));
      return files;
    }

    SqeFlightEngine sqe() {
      return sqe;
    }

    SqeServer server() {
      return server;
    }

    DuckDbEngine duckdb() {
      return duckdb;
    }

    @Override
    public void close() throws Exception {
      Exception failure = new Exception("Closing the benchmark's engines failed");
      closeAll(failure, duckdb, sqe, allocator, server);
      if (failure.getSuppressed().length > 0) {
        throw failure;
      }
    }

    private static void closeAll(Throwable failure, AutoCloseable... closeables) {
      for (AutoCloseable closeable : closeables) {
        if (closeable == null) {
          continue;
        }
        try {
          closeable.close();
        } catch (Exception e) {
          failure.addSuppressed(e);
        }
      }
    }
  }
}
