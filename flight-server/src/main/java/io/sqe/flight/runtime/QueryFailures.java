package io.sqe.flight.runtime;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.command.CommandResult;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.flight.audit.StatementListener;

/**
 * Passes every statement's end on to another listener (the metrics), and keeps how each failed
 * with the statement, for {@code system.runtime.queries}: the engine knows that a run failed, the
 * server what its client was told.
 */
public final class QueryFailures implements StatementListener {
  private final StatementListener next;
  private final QueryTracker queries;

  public QueryFailures(StatementListener next, QueryTracker queries) {
    this.next = requireNonNull(next, "next is null");
    this.queries = requireNonNull(queries, "queries is null");
  }

  @Override
  public void statementEnded(String kind, String outcome, boolean inTransaction, long elapsedNanos) {
    next.statementEnded(kind, outcome, inTransaction, elapsedNanos);
  }

  @Override
  public void materialized(CommandResult.Reuse reuse) {
    next.materialized(reuse);
  }

  @Override
  public void offloaded(String kind) {
    next.offloaded(kind);
  }

  @Override
  public void statementFailed(String queryId, String code, String message) {
    next.statementFailed(queryId, code, message);
    queries.findWithHistory(queryId).ifPresent(query -> query.failed(code, message));
  }
}
