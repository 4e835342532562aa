package io.sqe.flight.ops;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import io.sqe.engine.command.CommandResult;
import io.sqe.flight.audit.StatementListener;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;
import java.util.function.Function;

/**
 * The server's Prometheus metrics, in a registry of its own (several servers in one JVM, as in
 * tests, keep theirs apart). Statements report here through the audit hook ({@link
 * StatementListener}), result streams through {@link #resultStreamed}; caches, gauges of live
 * state and the JVM's own metrics are read when scraped.
 */
public final class ServerMetrics implements StatementListener {
  /** Statements that change table data when they succeed outside a transaction (COMMIT: inside one). */
  private static final Set<String> WRITING_KINDS =
      Set.of("INSERT", "UPDATE", "DELETE", "MERGE", "CREATE TABLE AS", "INGEST", "TRUNCATE TABLE", "TRUNCATE");
  private static final String CONFLICT = "FAILED_PRECONDITION";
  private static final String UNKNOWN_KIND = "UNKNOWN";

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter text = PrometheusTextFormatWriter.create();
  private final Counter statements;
  private final Histogram duration;
  private final Counter commits;
  private final Counter conflicts;
  private final Counter rowsStreamed;
  private final Counter bytesStreamed;
  private final Counter filesScanned;
  private final Counter bytesScanned;
  private final Counter runtimes;
  private final Counter spilledBytes;
  private final Counter spillFiles;
  private final Counter materializationsReused;
  private final Counter materializationsRebuilt;
  private final Counter offloaded;
  private final Map<String, Cache<?, ?>> caches = new ConcurrentHashMap<>();
  /** Whether the JVM's own metrics are wanted; registered at the first scrape, not at startup. */
  private final boolean jvm;
  private boolean jvmRegistered;

  private ServerMetrics(boolean jvm) {
    statements =
        Counter.builder()
            .name("sqe_statements_total")
            .help("Statements run, by kind (SELECT, INSERT, MERGE, ...) and outcome (ok or the error code)")
            .labelNames("kind", "outcome")
            .register(registry);
    duration =
        Histogram.builder()
            .name("sqe_statement_duration_seconds")
            .help("Time from a statement's arrival to its end (for a query: its last batch sent), by kind")
            .unit(Unit.SECONDS)
            .labelNames("kind")
            .classicOnly()
            .classicUpperBounds(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)
            .register(registry);
    commits =
        Counter.builder()
            .name("sqe_commits_total")
            .help("Statements that committed a change to a table: writes outside a transaction, and COMMITs")
            .register(registry);
    conflicts =
        Counter.builder()
            .name("sqe_commit_conflicts_total")
            .help("Writes and COMMITs refused because a concurrent commit changed their table (FAILED_PRECONDITION)")
            .register(registry);
    rowsStreamed =
        Counter.builder().name("sqe_result_rows_total").help("Rows sent to clients in query results").register(registry);
    bytesStreamed =
        Counter.builder()
            .name("sqe_result_bytes_total")
            .help("Arrow body bytes sent to clients in query results")
            .register(registry);
    filesScanned =
        Counter.builder().name("sqe_scan_files_total").help("Data files opened by queries").register(registry);
    bytesScanned =
        Counter.builder().name("sqe_scan_bytes_total").help("Size of the data files opened by queries").register(registry);
    runtimes =
        Counter.builder()
            .name("sqe_query_runtime_total")
            .help("Query results streamed, by what ran them: columnar (SQE's operators), row (Calcite's runtime, the fallback), trino (offloaded) or cached")
            .labelNames("runtime")
            .register(registry);
    spilledBytes =
        Counter.builder()
            .name("sqe_spill_bytes_total")
            .help("Bytes queries wrote to the spill directory because they did not fit in query.max-memory")
            .register(registry);
    spillFiles =
        Counter.builder().name("sqe_spill_files_total").help("Files (sorted runs) queries wrote to the spill directory").register(registry);
    offloaded =
        Counter.builder()
            .name("sqe_statements_offloaded_total")
            .help("Statements that ran on the Trino cluster and succeeded (queries, INSERT ... SELECT, CREATE TABLE ... AS), by kind")
            .labelNames("kind")
            .register(registry);
    materializationsReused =
        Counter.builder()
            .name("sqe_materializations_reused_total")
            .help("CREATE OR REPLACE TABLE ... AS that committed nothing because nothing they read changed, by reason")
            .labelNames("reason")
            .register(registry);
    materializationsRebuilt =
        Counter.builder()
            .name("sqe_materializations_rebuilt_total")
            .help("CREATE OR REPLACE TABLE ... AS that ran, by what defeated reuse (input_changed, disabled, nondeterministic, ...)")
            .labelNames("reason")
            .register(registry);
    cacheCounter("sqe_cache_hits_total", "Cache hits, by cache", CacheStats::hitCount);
    cacheCounter("sqe_cache_misses_total", "Cache misses, by cache", CacheStats::missCount);
    cacheCounter("sqe_cache_evictions_total", "Entries evicted (size or expiry), by cache", CacheStats::evictionCount);
    GaugeWithCallback.builder()
        .name("sqe_cache_entries")
        .help("Entries in a cache (estimated), by cache")
        .labelNames("cache")
        .callback(callback -> caches.forEach((name, cache) -> callback.call(cache.estimatedSize(), name)))
        .register(registry);
    this.jvm = jvm;
  }

  /** Metrics with the JVM's own (memory, threads, garbage collection, ...). */
  public static ServerMetrics create() {
    return new ServerMetrics(true);
  }

  private void cacheCounter(String name, String help, Function<CacheStats, Long> value) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames("cache")
        .callback(callback -> caches.forEach((cache, c) -> callback.call(value.apply(c.stats()), cache)))
        .register(registry);
  }

  /**
   * Exports a cache's hits, misses, evictions and size under {@code name}; the cache must be built
   * with {@code recordStats()}, else its counts stay 0. A later cache of the same name replaces it.
   */
  public void registerCache(String name, Cache<?, ?> cache) {
    requireNonNull(name, "name is null");
    caches.put(name, requireNonNull(cache, "cache is null"));
  }

  /** The registered caches by name, for the web console's cache page. */
  public Map<String, Cache<?, ?>> caches() {
    return new TreeMap<>(caches);
  }

  /** A gauge read when scraped: live state such as sessions or memory in use. */
  public void registerGauge(String name, String help, DoubleSupplier value) {
    requireNonNull(value, "value is null");
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .callback(callback -> callback.call(value.getAsDouble()))
        .register(registry);
  }

  @Override
  public void statementEnded(String kind, String outcome, boolean inTransaction, long elapsedNanos) {
    String k = kind == null ? UNKNOWN_KIND : kind;
    statements.labelValues(k, outcome).inc();
    duration.labelValues(k).observe(elapsedNanos / 1e9);
    boolean commitsChanges = k.equals("COMMIT") || (WRITING_KINDS.contains(k) && !inTransaction);
    if (!commitsChanges) {
      return;
    }
    if (outcome.equals(StatementListener.OK)) {
      commits.inc();
    } else if (outcome.equals(CONFLICT)) {
      conflicts.inc();
    }
  }

  @Override
  public void materialized(CommandResult.Reuse reuse) {
    (reuse.reused() ? materializationsReused : materializationsRebuilt).labelValues(reuse.reason()).inc();
  }

  @Override
  public void offloaded(String kind) {
    offloaded.labelValues(kind == null ? "unknown" : kind).inc();
  }

  /** A query's results have been sent (or its stream ended early): what it sent, read and spilled. */
  public void resultStreamed(long rows, long bytes, long files, long scannedBytes, long spilled, long spilledFiles, String runtime) {
    runtimes.labelValues(runtime).inc();
    spilledBytes.inc(spilled);
    spillFiles.inc(spilledFiles);
    rowsStreamed.inc(rows);
    bytesStreamed.inc(bytes);
    filesScanned.inc(files);
    bytesScanned.inc(scannedBytes);
  }

  /** The content type of {@link #writeTo}'s output. */
  public String contentType() {
    return text.getContentType();
  }

  /** Writes every metric in Prometheus' text format. */
  public void writeTo(OutputStream out) throws IOException {
    registerJvmMetrics();
    text.write(out, registry.scrape());
  }

  /**
   * The JVM's metrics (memory pools, threads, GC, ...) read the platform's management beans, whose
   * classes are a few hundred more for the JVM to load; they are registered when first scraped, so
   * that a start does not wait for them (docs/benchmarks.md, "Startup").
   */
  private synchronized void registerJvmMetrics() {
    if (jvm && !jvmRegistered) {
      jvmRegistered = true;
      JvmMetrics.builder().register(registry);
    }
  }
}
