package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One TPC-H query on both engines: their timings, and whether their results agree.
 *
 * @param query the TPC-H query number
 * @param sqe SQE's executions
 * @param duckdb DuckDB's executions
 * @param status the verdict, see {@link Status}
 * @param note what went wrong or disturbed the timings, empty if nothing did
 */
record QueryOutcome(int query, EngineTimings sqe, EngineTimings duckdb, Status status, String note) {
  /** The verdict on one query. */
  enum Status {
    /** Both completed with the same result. */
    OK,
    /** Both completed with different results. */
    MISMATCH,
    /** An engine exceeded the timeout. */
    TIMEOUT,
    /** An engine failed. */
    ERROR
  }

  QueryOutcome {
    requireNonNull(sqe, "sqe is null");
    requireNonNull(duckdb, "duckdb is null");
    requireNonNull(status, "status is null");
    requireNonNull(note, "note is null");
  }

  /** Judges a query from both engines' executions; SQE's failure decides the status first. */
  static QueryOutcome of(int query, EngineTimings sqe, EngineTimings duckdb) {
    List<String> notes = new ArrayList<>();
    if (sqe.disturbedRuns() + duckdb.disturbedRuns() > 0) {
      notes.add(String.format(
          "%d SQE and %d DuckDB executions ran while a cancelled query still kept the process busy, so their times are too high",
          sqe.disturbedRuns(), duckdb.disturbedRuns()));
    }
    if (sqe.completed() && duckdb.completed()) {
      Optional<String> difference = ResultComparison.difference(sqe.rows(), duckdb.rows());
      difference.ifPresent(d -> notes.add(0, d));
      return new QueryOutcome(query, sqe, duckdb, difference.isPresent() ? Status.MISMATCH : Status.OK, String.join("; ", notes));
    }
    Status status = null;
    for (var engine : List.of(new Named("SQE", sqe), new Named("DuckDB", duckdb))) {
      Attempt failure = engine.timings().failure();
      if (failure != null) {
        notes.add(engine.name() + " " + failure.outcome().name().toLowerCase() + ": " + failure.message());
        if (status == null) {
          status = failure.outcome() == Attempt.Outcome.TIMEOUT ? Status.TIMEOUT : Status.ERROR;
        }
      }
    }
    return new QueryOutcome(query, sqe, duckdb, status == null ? Status.ERROR : status, String.join("; ", notes));
  }

  /** Both engines completed every execution, whether or not their results agree. */
  boolean completedOnBoth() {
    return sqe.completed() && duckdb.completed();
  }

  /** SQE's fastest run over DuckDB's fastest run. */
  double ratio() {
    return sqe.minMillis() / duckdb.minMillis();
  }

  /** Rows in the result: DuckDB's count, else SQE's, else -1. */
  long rows() {
    if (duckdb.rows() != null) {
      return duckdb.rows().size();
    }
    return sqe.rows() == null ? -1 : sqe.rows().size();
  }

  private record Named(String name, EngineTimings timings) {}
}
