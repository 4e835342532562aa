package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.DurationText;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.calcite.util.CancelFlag;

/**
 * One run of a statement: its planning, a query's execution from its first batch to its last, or
 * one run of a command. It carries the cancel flag its planner and plans poll, its statement
 * timeout and the figures it collects. Closing it ends the run.
 */
public final class QueryRun implements AutoCloseable {
  private final String queryId;
  private final String operationId;
  private final TrackedQuery query;
  private final boolean planning;
  private final QueryStats stats = new QueryStats();
  /** Calcite's generated code polls this flag too. */
  private final AtomicBoolean cancelled = new AtomicBoolean();
  private final List<Runnable> cancelListeners = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final long started = System.nanoTime();
  private volatile ErrorCode cancelCode = ErrorCode.CANCELLED;
  private volatile String cancelReason = "Query was cancelled";
  private volatile boolean succeeded;
  /** Whether the run was stopped because part of it failed, not at someone's request. */
  private volatile boolean aborted;
  private volatile ScheduledFuture<?> deadline;

  QueryRun(String queryId, String operationId, TrackedQuery query, boolean planning) {
    this.queryId = requireNonNull(queryId, "queryId is null");
    this.operationId = requireNonNull(operationId, "operationId is null");
    this.query = query;
    this.planning = planning;
  }

  /** A run nobody can reach by query id: the queries a statement runs while it is prepared. */
  public static QueryRun untracked(String queryId) {
    return new QueryRun(queryId, queryId, null, false);
  }

  /** Whether this run plans its statement, rather than running it. */
  public boolean isPlanning() {
    return planning;
  }

  public String queryId() {
    return queryId;
  }

  /**
   * An id of this run alone, for what a run writes (data file names): the query id for the
   * first run, with a suffix for later ones (a command run once per parameter set).
   */
  public String operationId() {
    return operationId;
  }

  public QueryStats stats() {
    return stats;
  }

  AtomicBoolean cancelFlag() {
    return cancelled;
  }

  /** The flag Calcite's planners poll while this run plans: set when the run is cancelled. */
  public CancelFlag plannerCancelFlag() {
    return new CancelFlag(cancelled);
  }

  /**
   * Cancels the run when {@code left} (if positive) has passed.
   *
   * @param timeout the statement timeout, for the message
   * @param left what is left of it for this run
   */
  void startDeadline(Duration timeout, Duration left, ScheduledExecutorService timer) {
    if (timeout.isZero() || timeout.isNegative()) {
      return;
    }
    String message =
        "Query " + queryId + " exceeded its statement timeout of " + DurationText.format(timeout)
            + " (session option statement_timeout, server default query.max-run-time)"
            + (planning ? " while it was being planned" : "") + " and was cancelled";
    deadline = timer.schedule(() -> cancel(ErrorCode.DEADLINE_EXCEEDED, message), left.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Asks the run to stop; it fails with {@code code} at its next check. Only the first request
   * counts.
   *
   * @return whether this request stopped the run
   */
  public boolean cancel(ErrorCode code, String reason) {
    return stop(code, reason, false);
  }

  /**
   * Stops the run because one of its threads failed: the others fail with {@code code} and {@code
   * reason} at their next check, and the run ends as failed, not cancelled.
   *
   * @return whether this request stopped the run
   */
  public boolean abort(ErrorCode code, String reason) {
    return stop(code, reason, true);
  }

  private boolean stop(ErrorCode code, String reason, boolean failure) {
    synchronized (this) {
      if (cancelled.get() || closed.get()) {
        return false;
      }
      aborted = failure;
      cancelCode = requireNonNull(code, "code is null");
      cancelReason = requireNonNull(reason, "reason is null");
      cancelled.set(true);
    }
    for (Runnable listener : cancelListeners) {
      listener.run();
    }
    return true;
  }

  /**
   * Runs {@code listener} when the run is cancelled (at once if it is already), so that a thread
   * waiting on something other than the plan (a slow client) hears of it.
   */
  public void onCancel(Runnable listener) {
    cancelListeners.add(listener);
    if (cancelled.get()) {
      listener.run();
    }
  }

  public boolean isCancelled() {
    return cancelled.get();
  }

  public void checkCancelled() {
    if (cancelled.get()) {
      throw new SqeException(cancelCode, cancelReason);
    }
  }

  /** Marks the run as having done all its work, so that closing it counts as success. */
  public void succeeded() {
    succeeded = true;
  }

  /** The time since the run started, or its length once it has ended. */
  public long elapsedNanos() {
    long execution = stats.executionNanos();
    return closed.get() && execution > 0 ? execution : System.nanoTime() - started;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    ScheduledFuture<?> timer = deadline;
    if (timer != null) {
      timer.cancel(false);
    }
    if (stats.executionNanos() == 0) {
      stats.executionNanos(System.nanoTime() - started);
    }
    if (query != null) {
      TrackedQuery.State outcome =
          succeeded ? TrackedQuery.State.FINISHED : cancelled.get() && !aborted ? TrackedQuery.State.CANCELLED : TrackedQuery.State.FAILED;
      query.ended(this, outcome);
    }
  }
}
