package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Write performance, through SQE's Flight SQL endpoint in process, over the TPC-H data of
 * {@link TpchBenchmark}:
 *
 * <ol>
 *   <li>CTAS of lineitem through SQE against DuckDB's {@code COPY (SELECT * FROM lineitem) TO
 *       'x.parquet'} of the same files, in the same run;
 *   <li>a table {@code lineitem_sorted} sorted by (l_orderkey, l_linenumber), made by CTAS with a
 *       small target file size so that it has many files with disjoint key ranges ({@code --copies}
 *       N makes it N copies of lineitem with shifted order keys: 10 copies of scale 1 is 60M rows);
 *   <li>on it, a MERGE from a source of the most recent 0.1% of the rows (the highest order keys,
 *       as new orders arrive), the same MERGE with the source's key range also in its ON condition,
 *       an UPDATE of the same rows by key range, a DELETE of them by their new comment (a column
 *       whose statistics skip no file: its query reads the whole table; one run), and a full CREATE
 *       OR REPLACE of the table with the same change applied; for each, the time and the data files
 *       it rewrote out of the table's total, from the table's files before and after its commit.
 * </ol>
 */
public final class WriteBenchmark {
  private static final String SORTED = "lineitem_sorted";
  private static final String SOURCE = "lineitem_merge_source";
  private static final String CTAS = "lineitem_ctas";
  private static final String COPY = "COPY lineitem TO parquet";
  private static final String CTAS_LINEITEM = "CTAS lineitem";
  private static final String COPY_SORTED = "COPY lineitem ORDER BY l_orderkey TO parquet";
  private static final String CTAS_SORTED = "CTAS lineitem SORTED BY (l_orderkey)";
  private static final String DELETE_UNSORTED = "DELETE 0.1% by l_comment";
  private static final com.sun.management.OperatingSystemMXBean PROCESS =
      (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

  /**
   * What to run; see {@link #USAGE}.
   *
   * @param ctasOnly run only the CTAS statements and DuckDB's COPY of the same rows
   * @param settings sqe.yaml settings for SQE on top of the benchmark's own
   */
  public record Options(
      double scale,
      int copies,
      double targetFileMb,
      double fraction,
      int runs,
      Path workDir,
      Optional<Path> output,
      boolean ctasOnly,
      Map<String, String> settings) {
    public Options {
      requireNonNull(workDir, "workDir is null");
      requireNonNull(output, "output is null");
      settings = Map.copyOf(settings);
      if (!(scale > 0) || scale > 100) {
        throw new IllegalArgumentException("Invalid scale: " + scale + " (must be above 0 and at most 100)");
      }
      if (copies < 1 || copies > 100) {
        throw new IllegalArgumentException("Invalid --copies: " + copies + " (1 to 100)");
      }
      if (!(targetFileMb > 0)) {
        throw new IllegalArgumentException("Invalid --target-file-mb: " + targetFileMb + " (must be above 0)");
      }
      if (!(fraction > 0) || fraction >= 1) {
        throw new IllegalArgumentException("Invalid --fraction: " + fraction + " (between 0 and 1)");
      }
      if (runs < 1) {
        throw new IllegalArgumentException("Invalid number of runs: " + runs + " (must be at least 1)");
      }
    }

    /** Every statement, with the server's settings. */
    public Options(double scale, int copies, double targetFileMb, double fraction, int runs, Path workDir, Optional<Path> output) {
      this(scale, copies, targetFileMb, fraction, runs, workDir, output, false, Map.of());
    }

    static Options parse(String... args) {
      Map<String, String> values = CommandLineArguments.parse(Set.of("--ctas-only"), args);
      CommandLineArguments.rejectUnknown(
          values,
          Set.of("--scale", "--copies", "--rows", "--target-file-mb", "--fraction", "--runs", "--work-dir", "--output", "--ctas-only",
              "--settings"));
      double scale = CommandLineArguments.number(values, "--scale", 1);
      int copies = CommandLineArguments.integer(values, "--copies", 1);
      if (values.containsKey("--rows")) {
        copies = copiesFor(values.get("--rows"), scale);
      }
      return new Options(
          scale,
          copies,
          CommandLineArguments.number(values, "--target-file-mb", 4),
          CommandLineArguments.number(values, "--fraction", 0.001),
          CommandLineArguments.integer(values, "--runs", 1),
          values.containsKey("--work-dir") ? Path.of(values.get("--work-dir")) : BenchmarkOptions.DEFAULT_WORK_DIR,
          Optional.ofNullable(values.get("--output")).map(Path::of),
          values.containsKey("--ctas-only"),
          values.containsKey("--settings") ? BenchmarkOptions.settings(values.get("--settings")) : Map.of());
    }

    /** {@code 60m} at scale 1 is 10 copies of lineitem's 6M rows. */
    static int copiesFor(String rows, double scale) {
      String r = rows.trim().toLowerCase(Locale.ROOT);
      double multiplier = r.endsWith("m") ? 1e6 : r.endsWith("k") ? 1e3 : 1;
      double count = CommandLineArguments.number("--rows", r.replaceAll("[mk]$", "")) * multiplier;
      return Math.max(1, (int) Math.round(count / (6_000_000 * scale)));
    }

    BenchmarkOptions tpch() {
      Map<String, String> server = new LinkedHashMap<>(BenchmarkOptions.DEFAULT_SERVER_SETTINGS);
      // Each run writes again: a CTAS over unchanged inputs would otherwise commit nothing the
      // second time (materialization reuse) and time nothing.
      server.put("materialization-reuse", "false");
      server.putAll(settings);
      return new BenchmarkOptions(scale, workDir, 1, 0, 0, List.of(1), Duration.ofHours(1), Optional.empty(), false, server);
    }

    String commandLine() {
      StringBuilder s = new StringBuilder("bin/bench-writes --scale ").append(tpch().scaleLabel());
      if (copies > 1) {
        s.append(" --copies ").append(copies);
      }
      s.append(" --target-file-mb ").append(BigDecimal.valueOf(targetFileMb).stripTrailingZeros().toPlainString());
      s.append(" --fraction ").append(BigDecimal.valueOf(fraction).stripTrailingZeros().toPlainString());
      s.append(" --runs ").append(runs);
      if (ctasOnly) {
        s.append(" --ctas-only");
      }
      if (!settings.isEmpty()) {
        s.append(" --settings ").append(settings.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue()).sorted().collect(Collectors.joining(",")));
      }
      if (!workDir.equals(BenchmarkOptions.DEFAULT_WORK_DIR)) {
        s.append(" --work-dir ").append(workDir);
      }
      output.ifPresent(o -> s.append(" --output ").append(o));
      return s.toString();
    }
  }

  public static final String USAGE =
      "Usage: bench-writes [options]\n"
          + "  --scale N            TPC-H scale factor of the data (default 1; generated once, shared with bench-tpch)\n"
          + "  --copies N           lineitem_sorted holds N copies of lineitem, order keys shifted (default 1)\n"
          + "  --rows N             the same as a row count: 60m at scale 1 is --copies 10\n"
          + "  --target-file-mb N   lineitem_sorted's write.target-file-size-bytes, in MiB (default 4)\n"
          + "  --fraction F         share of rows the MERGE and UPDATE touch (default 0.001)\n"
          + "  --runs N             timed runs of each statement (default 1)\n"
          + "  --ctas-only          only the CTAS of lineitem, unsorted and sorted by l_orderkey, and DuckDB's COPY of the same rows\n"
          + "  --settings K=V,...   sqe.yaml settings for SQE, e.g. planner.columnar=false to compare\n"
          + "  --work-dir DIR       as bench-tpch (default bench/target/work)\n"
          + "  --output FILE        also write the Markdown report, and FILE's name with .png for the chart\n";

  /** The data files of a table, before and after one statement, and the commit's summary. */
  record FileCounts(int before, int after, int removed, int added, Map<String, String> summary) {
    String rewritten() {
      return removed + " / " + before;
    }
  }

  /** One statement's runs. */
  /**
   * @param cpuMillis per run, the CPU time the process used during the statement (SQE's threads, or
   *     DuckDB's, which run in the process too): what the statement costs whatever else the
   *     machine runs, unlike its wall time
   */
  record Outcome(
      String name, String engine, String sql, List<Double> millis, List<Double> cpuMillis, long rows, FileCounts files, MemorySampler.Peak memory) {
    /** The CPU time of the fastest run. */
    double cpuOfFastest() {
      int fastest = 0;
      for (int i = 1; i < millis.size(); i++) {
        if (millis.get(i) < millis.get(fastest)) {
          fastest = i;
        }
      }
      return cpuMillis.get(fastest);
    }

    double min() {
      return millis.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    double median() {
      double[] sorted = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      return sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
  }

  /** What a run measured. */
  record Report(
      RunEnvironment environment, Options options, List<String> setup, List<Outcome> outcomes, long ctasRows, long copyRows, long touchedRows) {
    Outcome outcome(String name) {
      return outcomes.stream().filter(o -> o.name().equals(name)).findFirst().orElseThrow();
    }

    String markdown() {
      List<String> lines = new ArrayList<>();
      lines.add("## Writes at TPC-H scale " + options.tpch().scaleLabel() + (options.copies() > 1 ? " x " + options.copies() + " copies of lineitem" : ""));
      lines.add("");
      environment.describe().forEach(l -> lines.add("- " + l));
      setup.forEach(l -> lines.add("- " + l));
      lines.add("- Command: `" + options.commandLine() + "`");
      lines.add("- Method: one process; SQE through Flight SQL (executeUpdate), DuckDB through JDBC; a full GC before every run;"
          + " files rewritten = data files of the snapshot before the statement that are not in the snapshot after it, of all"
          + " data files before; peak heap and Arrow sampled every 5 ms during the statement's runs");
      lines.add("");
      lines.add("| Statement | Engine | min ms | median ms | process CPU ms | rows | data files rewritten / before | files added | files after"
          + " | peak heap MB | peak Arrow MB |");
      lines.add("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
      for (Outcome o : outcomes) {
        lines.add(String.format(Locale.ROOT, "| %s | %s | %.1f | %.1f | %.0f | %d | %s | %s | %s | %s | %s |",
            o.name(), o.engine(), o.min(), o.median(), o.cpuOfFastest(), o.rows(),
            o.files() == null ? "" : o.files().rewritten(),
            o.files() == null ? "" : String.valueOf(o.files().added()),
            o.files() == null ? "" : String.valueOf(o.files().after()),
            o.memory().heapMb(), o.memory().arrowMb()));
      }
      lines.add("");
      Outcome ctas = outcome(CTAS_LINEITEM);
      Outcome copy = outcome(COPY);
      lines.add(String.format(Locale.ROOT,
          "CTAS of lineitem: SQE %.1f ms, DuckDB COPY %.1f ms, SQE/DuckDB %.2f (CPU %.2f); rows %d (SQE) and %d (DuckDB).",
          ctas.min(), copy.min(), ctas.min() / copy.min(), ctas.cpuOfFastest() / copy.cpuOfFastest(), ctasRows, copyRows));
      Outcome sortedCtas = outcome(CTAS_SORTED);
      Outcome sortedCopy = outcome(COPY_SORTED);
      lines.add(String.format(Locale.ROOT,
          "CTAS of lineitem sorted by l_orderkey: SQE %.1f ms, DuckDB COPY ... ORDER BY l_orderkey %.1f ms, SQE/DuckDB %.2f (CPU %.2f).",
          sortedCtas.min(), sortedCopy.min(), sortedCtas.min() / sortedCopy.min(), sortedCtas.cpuOfFastest() / sortedCopy.cpuOfFastest()));
      if (!options.ctasOnly()) {
        Outcome replace = outcome("CREATE OR REPLACE (full rewrite)");
        for (String name : List.of("MERGE 0.1%", "MERGE 0.1%, key range in ON", "UPDATE 0.1%", DELETE_UNSORTED)) {
          Outcome o = outcome(name);
          lines.add(String.format(Locale.ROOT,
              "%s: %.1f ms, %s data files rewritten, %.2f of the full CREATE OR REPLACE's time (%.1f ms, %s files).",
              name, o.min(), o.files().rewritten(), o.min() / replace.min(), replace.min(), replace.files().rewritten()));
        }
      }
      lines.add("");
      lines.add("SQL of each statement:");
      lines.add("");
      for (Outcome o : outcomes) {
        lines.add("- " + o.name() + ": `" + o.sql().replaceAll("\\s+", " ") + "`");
      }
      return String.join("\n", lines) + "\n";
    }

    BarChart chart() {
      BarChart chart = new BarChart(
          "Writes, TPC-H scale " + options.tpch().scaleLabel() + (options.copies() > 1 ? " x " + options.copies() : "")
              + " lineitem (" + environment.date() + ")",
          "milliseconds, min of " + options.runs() + " run(s)",
          "SQE", "DuckDB");
      for (Outcome o : outcomes) {
        boolean duck = o.engine().equals("DuckDB");
        String note = o.files() == null
            ? o.rows() + " rows"
            : o.files().before() == 0
                ? o.files().added() + " files written"
                : "files rewritten " + o.files().rewritten() + " (" + o.rows() + " rows)";
        chart.row(o.name(), note, duck ? Double.NaN : o.min(), duck ? o.min() : Double.NaN);
      }
      chart.footer("Commit " + environment.commit()
          + (options.settings().isEmpty() ? "" : "; settings " + new java.util.TreeMap<>(options.settings()))
          + (options.ctasOnly() ? "" : "; lineitem_sorted sorted by (l_orderkey, l_linenumber), target file size "
          + BigDecimal.valueOf(options.targetFileMb()).stripTrailingZeros().toPlainString() + " MiB; MERGE/UPDATE touch "
          + BigDecimal.valueOf(options.fraction() * 100).stripTrailingZeros().toPlainString() + "% of rows (highest order keys)"));
      return chart;
    }
  }

  private final Options options;
  private final PrintStream out;

  public WriteBenchmark(Options options, PrintStream out) {
    this.options = requireNonNull(options, "options is null");
    this.out = requireNonNull(out, "out is null");
  }

  public static void main(String[] args) throws Exception {
    Optional<Options> options = CommandLineArguments.optionsOrExit(args, USAGE, Options::parse);
    if (options.isPresent()) {
      new WriteBenchmark(options.get(), System.out).run();
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
    long[] rows = new long[3];
    Path copyFile = options.tpch().dataDir().resolve("duckdb-lineitem-copy.parquet");
    try (MemorySampler sampler = new MemorySampler(engines.server())) {
      SqeFlightEngine sqe = engines.sqe();
      DuckDbEngine duckdb = engines.duckdb();
      LakehouseCatalog catalog = engines.server().catalogs().find("iceberg").orElseThrow();
      ctas(sqe, duckdb, catalog, sampler, copyFile, outcomes, rows);
      if (!options.ctasOnly()) {
        rows[2] = rewrites(sqe, catalog, sampler, setup, outcomes);
      }
      setup.add(String.format(Locale.ROOT,
          "System load average (1 min, %d cores): %.2f when the statements started, %.2f when they ended",
          environment.cores(), loadBefore, RunEnvironment.loadAverage()));
    } finally {
      Files.deleteIfExists(copyFile);
      engines.closeWithin(Duration.ofSeconds(30), out);
    }
    Report report = new Report(environment, options, setup, outcomes, rows[0], rows[1], rows[2]);
    out.println();
    out.print(report.markdown());
    Path chart;
    if (options.output().isPresent()) {
      Path file = options.output().get();
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, report.markdown(), StandardCharsets.UTF_8);
      out.println("Wrote " + file);
      chart = BarChart.nextTo(file);
    } else {
      chart = options.workDir().resolve("results").resolve("writes-sf" + options.tpch().scaleLabel() + ".png");
    }
    report.chart().writePng(chart);
    out.println("Wrote " + chart);
    return report;
  }

  /**
   * CTAS through SQE against DuckDB's COPY to ZSTD Parquet (the codec SQE writes), the same rows:
   * as they come, then sorted by order key; puts the rows of SQE's table and of DuckDB's file in
   * {@code rows[0]} and {@code rows[1]}.
   */
  private void ctas(
      SqeFlightEngine sqe, DuckDbEngine duckdb, LakehouseCatalog catalog, MemorySampler sampler, Path copyFile, List<Outcome> outcomes, long[] rows)
      throws Exception {
    String copySql = copySql("SELECT * FROM lineitem", copyFile);
    outcomes.add(time(COPY, "DuckDB", copySql, sampler, () -> duckdb.update(copySql), null));
    rows[1] = number(duckdb.execute("SELECT count(*) FROM read_parquet('" + copyFile.toString().replace("'", "''") + "')", new Cancellation()));
    Files.deleteIfExists(copyFile);
    String ctasSql = "CREATE OR REPLACE TABLE " + CTAS + " AS SELECT * FROM lineitem";
    outcomes.add(time(CTAS_LINEITEM, "SQE", ctasSql, sampler, () -> sqe.update(ctasSql), tableFiles(catalog, CTAS)));
    rows[0] = number(sqe.execute("SELECT count(*) FROM " + CTAS, new Cancellation()));
    String sortedCopySql = copySql("SELECT * FROM lineitem ORDER BY l_orderkey", copyFile);
    outcomes.add(time(COPY_SORTED, "DuckDB", sortedCopySql, sampler, () -> duckdb.update(sortedCopySql), null));
    Files.deleteIfExists(copyFile);
    String sortedCtasSql = "CREATE OR REPLACE TABLE " + CTAS + " SORTED BY (l_orderkey) AS SELECT * FROM lineitem";
    outcomes.add(time(CTAS_SORTED, "SQE", sortedCtasSql, sampler, () -> sqe.update(sortedCtasSql), tableFiles(catalog, CTAS)));
    long sortedRows = number(sqe.execute("SELECT count(*) FROM " + CTAS, new Cancellation()));
    if (sortedRows != rows[0]) {
      throw new IllegalStateException("The sorted CTAS wrote " + sortedRows + " rows, the unsorted one " + rows[0]);
    }
    sqe.update("DROP TABLE " + CTAS + " PURGE");
  }

  private static String copySql(String query, Path file) {
    return "COPY (" + query + ") TO '" + file.toString().replace("'", "''") + "' (FORMAT parquet, COMPRESSION zstd)";
  }

  /**
   * The sorted table with many files, then the 0.1% MERGE, MERGE with the key range, UPDATE and
   * full CREATE OR REPLACE on it; returns the rows each of them touches.
   */
  private long rewrites(SqeFlightEngine sqe, LakehouseCatalog catalog, MemorySampler sampler, List<String> setup, List<Outcome> outcomes)
      throws Exception {
    // 2. The sorted table, with many files.
    Table lineitem = load(catalog, "lineitem");
    List<String> columns = lineitem.schema().columns().stream().map(Types.NestedField::name).toList();
    long keyOffset = number(sqe.execute("SELECT max(l_orderkey) FROM lineitem", new Cancellation()));
    String source = source(columns, keyOffset);
    String layout = " SORTED BY (l_orderkey, l_linenumber) WITH ('write.target-file-size-bytes' = "
        + Math.round(options.targetFileMb() * 1048576) + ")";
    String createSql = "CREATE OR REPLACE TABLE " + SORTED + layout + " AS " + source;
    outcomes.add(time("CTAS sorted table (initial)", "SQE", createSql, sampler, () -> sqe.update(createSql), tableFiles(catalog, SORTED)));
    long total = number(sqe.execute("SELECT count(*) FROM " + SORTED, new Cancellation()));
    long touched = Math.max(1, Math.round(total * options.fraction()));
    long from = number(sqe.execute(
        "SELECT min(l_orderkey) FROM (SELECT l_orderkey FROM " + SORTED + " ORDER BY l_orderkey DESC LIMIT " + touched + ") k",
        new Cancellation()));
    long to = number(sqe.execute("SELECT max(l_orderkey) FROM " + SORTED, new Cancellation()));
    sqe.update("CREATE OR REPLACE TABLE " + SOURCE + " AS SELECT l_orderkey, l_linenumber, CAST('merged' AS VARCHAR) AS l_comment"
        + " FROM " + SORTED + " WHERE l_orderkey BETWEEN " + from + " AND " + to);
    long sourceRows = number(sqe.execute("SELECT count(*) FROM " + SOURCE, new Cancellation()));
    setup.add(String.format(Locale.ROOT,
        "%s: %d rows in %d data files; the MERGE source %s holds the %d rows (%.3f%%) of the highest order keys, %d to %d"
            + " (clustered: the most recent orders)",
        SORTED, total, load(catalog, SORTED).currentSnapshot() == null ? 0 : files(load(catalog, SORTED)).size(),
        SOURCE, sourceRows, 100.0 * sourceRows / total, from, to));

    // 3. MERGE, MERGE with the key range, UPDATE, CREATE OR REPLACE: each touches the same rows.
    String on = "t.l_orderkey = s.l_orderkey AND t.l_linenumber = s.l_linenumber";
    String mergeSql = "MERGE INTO " + SORTED + " t USING " + SOURCE + " s ON " + on
        + " WHEN MATCHED THEN UPDATE SET l_comment = s.l_comment";
    outcomes.add(time("MERGE 0.1%", "SQE", mergeSql, sampler, () -> sqe.update(mergeSql), tableFiles(catalog, SORTED)));
    String rangedSql = "MERGE INTO " + SORTED + " t USING " + SOURCE + " s ON " + on + " AND t.l_orderkey BETWEEN " + from + " AND " + to
        + " WHEN MATCHED THEN UPDATE SET l_comment = s.l_comment";
    outcomes.add(time("MERGE 0.1%, key range in ON", "SQE", rangedSql, sampler, () -> sqe.update(rangedSql), tableFiles(catalog, SORTED)));
    String updateSql = "UPDATE " + SORTED + " SET l_comment = 'updated' WHERE l_orderkey BETWEEN " + from + " AND " + to;
    outcomes.add(time("UPDATE 0.1%", "SQE", updateSql, sampler, () -> sqe.update(updateSql), tableFiles(catalog, SORTED)));
    // The rows the UPDATE changed, found by a column no file's statistics rule out, so its query
    // reads every file; once, as a second run would find nothing to delete.
    String deleteSql = "DELETE FROM " + SORTED + " WHERE l_comment = 'updated'";
    outcomes.add(time(DELETE_UNSORTED, "SQE", deleteSql, 1, sampler, () -> sqe.update(deleteSql), tableFiles(catalog, SORTED)));
    String changed = columns.stream()
        .map(c -> c.equals("l_comment")
            ? "CASE WHEN l_orderkey BETWEEN " + from + " AND " + to + " THEN CAST('replaced' AS VARCHAR) ELSE l_comment END AS l_comment"
            : c)
        .collect(Collectors.joining(", "));
    String replaceSql = "CREATE OR REPLACE TABLE " + SORTED + layout + " AS SELECT " + changed + " FROM (" + source + ") src";
    outcomes.add(time("CREATE OR REPLACE (full rewrite)", "SQE", replaceSql, sampler, () -> sqe.update(replaceSql), tableFiles(catalog, SORTED)));
    long replaced = number(sqe.execute("SELECT count(*) FROM " + SORTED + " WHERE l_comment = 'replaced'", new Cancellation()));
    if (replaced != sourceRows) {
      throw new IllegalStateException("CREATE OR REPLACE changed " + replaced + " rows, not the " + sourceRows + " of the MERGE source");
    }
    return sourceRows;
  }

  /** lineitem, or N copies of it with the order keys of copy k shifted by k times the largest key. */
  private String source(List<String> columns, long keyOffset) {
    if (options.copies() == 1) {
      return "SELECT " + String.join(", ", columns) + " FROM lineitem";
    }
    List<String> parts = new ArrayList<>();
    for (int k = 0; k < options.copies(); k++) {
      long shift = k * keyOffset;
      parts.add("SELECT " + columns.stream()
          .map(c -> c.equals("l_orderkey") && shift > 0 ? "l_orderkey + " + shift + " AS l_orderkey" : c)
          .collect(Collectors.joining(", ")) + " FROM lineitem");
    }
    return String.join(" UNION ALL ", parts);
  }

  @FunctionalInterface
  private interface Statement {
    long run() throws Exception;
  }

  /** Counts a table's data files before and after each run; the last run's figures are kept. */
  private static final class FileCounter {
    private final LakehouseCatalog catalog;
    private final String table;
    private Set<String> before = Set.of();

    FileCounter(LakehouseCatalog catalog, String table) {
      this.catalog = catalog;
      this.table = table;
    }

    void before() throws IOException {
      Optional<Table> t = catalog.loadTable(TableIdentifier.of(TpchBenchmark.SCHEMA, table));
      before = t.isPresent() ? files(refreshed(t.get())) : Set.of();
    }

    FileCounts after() throws IOException {
      Table t = load(catalog, table);
      Set<String> after = files(t);
      Set<String> removed = new HashSet<>(before);
      removed.removeAll(after);
      Set<String> added = new HashSet<>(after);
      added.removeAll(before);
      Snapshot snapshot = t.currentSnapshot();
      return new FileCounts(before.size(), after.size(), removed.size(), added.size(),
          snapshot == null ? Map.of() : new LinkedHashMap<>(snapshot.summary()));
    }
  }

  private FileCounter tableFiles(LakehouseCatalog catalog, String table) {
    return new FileCounter(catalog, table);
  }

  private Outcome time(String name, String engine, String sql, MemorySampler sampler, Statement statement, FileCounter counter)
      throws Exception {
    return time(name, engine, sql, options.runs(), sampler, statement, counter);
  }

  private Outcome time(String name, String engine, String sql, int runs, MemorySampler sampler, Statement statement, FileCounter counter)
      throws Exception {
    out.println("Running " + name + " (" + engine + ")");
    List<Double> millis = new ArrayList<>();
    List<Double> cpuMillis = new ArrayList<>();
    long rows = -1;
    FileCounts files = null;
    MemorySampler.Peak peak = MemorySampler.Peak.NONE;
    for (int i = 0; i < runs; i++) {
      if (counter != null) {
        counter.before();
      }
      System.gc();
      sampler.begin();
      long cpu = PROCESS.getProcessCpuTime();
      long start = System.nanoTime();
      rows = statement.run();
      millis.add((System.nanoTime() - start) / 1e6);
      cpuMillis.add((PROCESS.getProcessCpuTime() - cpu) / 1e6);
      peak = peak.max(sampler.end());
      if (counter != null) {
        files = counter.after();
      }
    }
    Outcome outcome = new Outcome(name, engine, sql, millis, cpuMillis, rows, files, peak);
    out.printf(Locale.ROOT, "  %s %s: %.1f ms (process CPU %.0f ms), %d rows%s%n", engine, name, outcome.min(), outcome.cpuOfFastest(), rows,
        files == null ? "" : ", data files rewritten " + files.rewritten() + ", added " + files.added() + ", summary " + files.summary());
    return outcome;
  }

  private static Table load(LakehouseCatalog catalog, String name) {
    return refreshed(catalog.loadTable(TableIdentifier.of(TpchBenchmark.SCHEMA, name))
        .orElseThrow(() -> new IllegalStateException("Table " + TpchBenchmark.SCHEMA + "." + name + " is missing")));
  }

  private static Table refreshed(Table table) {
    table.refresh();
    return table;
  }

  private static Set<String> files(Table table) throws IOException {
    Set<String> paths = new HashSet<>();
    if (table.currentSnapshot() == null) {
      return paths;
    }
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        paths.add(task.file().location());
      }
    }
    return paths;
  }

  private static long number(ResultRows rows) {
    Object value = rows.rows().get(0).get(0);
    return ((Number) value).longValue();
  }
}
