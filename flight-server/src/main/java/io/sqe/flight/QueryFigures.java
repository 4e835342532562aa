package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryStats;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What one DoGet cost, as the client reads it in the call's gRPC trailers. Only figures and the
 * query id: never parameter values, SQL text or anything else a client sent.
 *
 * @param queryId the query the stream belongs to
 * @param planningMillis time to parse, validate, optimise and compile the statement
 * @param executionMillis time from the start of the run to its last row, summed over executions
 * @param rows rows sent
 * @param bytes Arrow body bytes sent
 * @param filesScanned data files opened
 * @param bytesScanned size of the data files opened
 * @param peakMemoryBytes the most Arrow memory one execution held at once
 * @param spilledBytes bytes the operators wrote to the spill space, over memory they could not hold
 * @param spillFiles files (runs) they wrote there
 * @param planCached whether the plan came from the plan cache
 * @param resultCached whether every execution handed out a cached result instead of running
 * @param runtime what ran the query: {@code columnar} (SQE's columnar operators, in every
 *     execution), {@code row} (Calcite's row runtime, the fallback for plans the columnar operators
 *     do not cover yet), {@code trino} (the Trino cluster the query was offloaded to, in every
 *     execution) or {@code cached} (a cached result)
 * @param offloadedTo the Trino cluster an execution's rows came from; null when none did
 */
record QueryFigures(
    String queryId,
    long planningMillis,
    long executionMillis,
    long rows,
    long bytes,
    long filesScanned,
    long bytesScanned,
    long peakMemoryBytes,
    long spilledBytes,
    long spillFiles,
    boolean planCached,
    boolean resultCached,
    String runtime,
    String offloadedTo) {
  static final String PREFIX = "x-sqe-";

  QueryFigures {
    requireNonNull(queryId, "queryId is null");
  }

  /** The trailers, keyed {@code x-sqe-*}. */
  Map<String, String> trailers() {
    Map<String, String> values = new LinkedHashMap<>();
    values.put(PREFIX + "query-id", queryId);
    values.put(PREFIX + "planning-ms", Long.toString(planningMillis));
    values.put(PREFIX + "execution-ms", Long.toString(executionMillis));
    values.put(PREFIX + "rows", Long.toString(rows));
    values.put(PREFIX + "bytes", Long.toString(bytes));
    values.put(PREFIX + "files-scanned", Long.toString(filesScanned));
    values.put(PREFIX + "bytes-scanned", Long.toString(bytesScanned));
    values.put(PREFIX + "peak-memory-bytes", Long.toString(peakMemoryBytes));
    values.put(PREFIX + "spilled-bytes", Long.toString(spilledBytes));
    values.put(PREFIX + "spill-files", Long.toString(spillFiles));
    values.put(PREFIX + "plan-cached", Boolean.toString(planCached));
    values.put(PREFIX + "result-cached", Boolean.toString(resultCached));
    values.put(PREFIX + "runtime", runtime);
    return values;
  }

  /** Adds up the figures of a stream's executions as they end. */
  static final class Builder {
    private final String queryId;
    private long planningNanos;
    private long executionNanos;
    private long rows;
    private long bytes;
    private long filesScanned;
    private long bytesScanned;
    private long peakMemoryBytes;
    private long spilledBytes;
    private long spillFiles;
    private boolean planCached;
    private int executions;
    private int resultsCached;
    private int columnar;
    private int offloaded;
    private String offloadedTo;

    Builder(String queryId) {
      this.queryId = requireNonNull(queryId, "queryId is null");
    }

    String queryId() {
      return queryId;
    }

    void batchSent(int batchRows, long batchBytes) {
      rows += batchRows;
      bytes += batchBytes;
    }

    /** Adds an execution's figures; the executions of one stream share one plan. */
    void executionEnded(QueryStats stats) {
      planningNanos = Math.max(planningNanos, stats.planningNanos());
      executionNanos += stats.executionNanos();
      filesScanned += stats.filesScanned();
      bytesScanned += stats.bytesScanned();
      peakMemoryBytes = Math.max(peakMemoryBytes, stats.peakMemoryBytes());
      spilledBytes += stats.spilledBytes();
      spillFiles += stats.spillFiles();
      planCached = stats.planCached();
      executions++;
      if (stats.resultCached()) {
        resultsCached++;
      }
      if (stats.columnar()) {
        columnar++;
      }
      if (stats.offloadedTo() != null) {
        offloaded++;
        offloadedTo = stats.offloadedTo();
      }
    }

    QueryFigures build() {
      return new QueryFigures(
          queryId,
          TimeUnit.NANOSECONDS.toMillis(planningNanos),
          TimeUnit.NANOSECONDS.toMillis(executionNanos),
          rows,
          bytes,
          filesScanned,
          bytesScanned,
          peakMemoryBytes,
          spilledBytes,
          spillFiles,
          planCached,
          executions > 0 && resultsCached == executions,
          runtime(),
          offloadedTo);
    }

    private String runtime() {
      if (executions > 0 && resultsCached == executions) {
        return "cached";
      }
      if (executions > 0 && offloaded == executions) {
        return "trino";
      }
      return executions > 0 && columnar == executions ? "columnar" : "row";
    }
  }
}
