package io.sqe.flight.offload;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.ResultComparison;
import io.sqe.flight.testing.TpchHarness;
import io.sqe.flight.testing.TrinoCluster;
import io.sqe.sample.tpch.TpchQueries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TPC-H run here and offloaded to a Trino cluster on this machine, query by query in one run, to
 * size {@code offload.min-scan-bytes} ({@code bin/bench-offload}; not a test: its name keeps it out
 * of {@code mvn verify}). Each query runs alternately with {@code offload = 'never'} and {@code
 * 'always'} after a warm-up of each, through the Flight SQL JDBC driver, reading every row, with
 * the result cache off; the report gives the medians, their ratio and the scan EXPLAIN estimates
 * for the query, and whether the offloaded answer is DuckDB's over the same Parquet files.
 *
 * <p>System properties: {@code sqe.bench.scale} (1), {@code sqe.bench.runs} (3), {@code
 * sqe.bench.queries} (all 22, e.g. {@code 1,6,19}), {@code sqe.bench.trino-heap-gib} (4), {@code
 * sqe.bench.output} (a Markdown file; else standard output only).
 */
class OffloadBenchmark extends TpchHarness {
  @Test
  void localAgainstOffloaded(@TempDir Path dir) throws Exception {
    assumeTrue(System.getProperty("sqe.bench.scale") != null, "run by bin/bench-offload");
    String scale = System.getProperty("sqe.bench.scale");
    int runs = Integer.getInteger("sqe.bench.runs", 3);
    int heap = Integer.getInteger("sqe.bench.trino-heap-gib", 4);
    List<Integer> queries = new ArrayList<>();
    String chosen = System.getProperty("sqe.bench.queries", "");
    if (chosen.isBlank()) {
      queries.addAll(TpchQueries.numbers());
    } else {
      Arrays.stream(chosen.split(",")).map(String::trim).map(Integer::valueOf).forEach(queries::add);
    }
    List<String> report = new ArrayList<>();
    try (RestCatalogFixture rest = RestCatalogFixture.start(dir.resolve("rest"));
        TrinoCluster trino = TrinoCluster.start(dir.resolve("trino"), rest.uri(), heap)) {
      Map<String, String> settings = new HashMap<>(rest.sqeSettings());
      settings.put("sample-data.tpch-scale", scale);
      settings.put("offload.trino-uri", trino.uri());
      // Each local run computes its result: an offloaded one is never taken from the result cache.
      settings.put("query.result-cache.max-bytes", "0");
      open(dir.resolve("sqe"), settings);
      try (Statement s = sqe.createStatement()) {
        report.add("TPC-H scale " + scale + ", " + runs + " runs of each after a warm-up, medians; Trino " + TrinoCluster.VERSION
            + " (a coordinator and a worker, " + heap + " GiB heap each) on this machine; the offloaded answer compared"
            + " with DuckDB's over the same Parquet files");
        report.add("");
        report.add("| query | estimated scan | local ms | offloaded ms | offloaded / local | offloaded = DuckDB |");
        report.add("|---|---|---|---|---|---|");
        for (int query : queries) {
          String sql = TpchQueries.query(query);
          s.execute("SET SESSION offload = 'never'");
          String estimate = estimate(s, sql);
          long[] local = new long[runs];
          long[] offloaded = new long[runs];
          String failure = null;
          String side = "here";
          try {
            for (int run = -1; run < runs; run++) {
              side = "here";
              s.execute("SET SESSION offload = 'never'");
              long here = time(s, sql);
              side = "offloaded";
              s.execute("SET SESSION offload = 'always'");
              long there = time(s, sql);
              if (run >= 0) {
                local[run] = here;
                offloaded[run] = there;
              }
            }
          } catch (SQLException e) {
            // The driver's own message only repeats the statement: the server's is its cause's.
            Throwable cause = e;
            while (cause.getCause() != null && cause.getCause() != cause) {
              cause = cause.getCause();
            }
            failure = side + ": " + String.valueOf(cause.getMessage()).lines().findFirst().orElse("failed").replace('|', '/');
          }
          String line = failure != null
              ? String.format(Locale.ROOT, "| Q%d | %s | failed: %s | | | |", query, estimate, failure)
              : String.format(Locale.ROOT, "| Q%d | %s | %d | %d | %.2f | %s |", query, estimate, median(local), median(offloaded),
                  (double) median(offloaded) / median(local), sameAsDuckDb(s, query, sql));
          report.add(line);
          System.out.println(line);
        }
      } finally {
        close();
      }
    }
    String text = String.join("\n", report) + "\n";
    System.out.println(text);
    String output = System.getProperty("sqe.bench.output");
    if (output != null && !output.isBlank()) {
      Files.writeString(Path.of(output), text);
    }
  }

  /**
   * Whether the query offloaded gives DuckDB's rows: "yes", "yes, no rows" (Q11 at scale 10, whose
   * fraction is scale 1's), or "no" and how they differ.
   */
  private String sameAsDuckDb(Statement s, int query, String sql) throws Exception {
    List<List<Object>> expected = rows(duckdb, sql);
    s.execute("SET SESSION offload = 'always'");
    List<List<Object>> offloaded = rows(sqe, sql);
    try {
      ResultComparison.assertSameRows("Q" + query, offloaded, expected);
      return expected.isEmpty() ? "yes, no rows" : "yes";
    } catch (AssertionError e) {
      return "no: " + String.valueOf(e.getMessage()).lines().findFirst().orElse("differs").replace('|', '/');
    }
  }

  /** What EXPLAIN's last line gives as the query's estimated scan. */
  private static String estimate(Statement s, String sql) throws SQLException {
    s.execute("SET SESSION offload = 'auto'");
    String last = "";
    try (ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
      while (rs.next()) {
        last = rs.getString(1);
      }
    }
    return last.replaceFirst("^-- offload: \\w+ \\(estimated scan (.*?) (<=|>) .*$", "$1");
  }

  /** Milliseconds to run {@code sql} and read all its rows. */
  private static long time(Statement s, String sql) throws SQLException {
    long start = System.nanoTime();
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        // every row crosses to the client
      }
    }
    return (System.nanoTime() - start) / 1_000_000;
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
