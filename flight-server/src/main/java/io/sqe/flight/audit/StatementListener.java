package io.sqe.flight.audit;

import io.sqe.engine.command.CommandResult;

/** Hears of every statement as it ends, whether or not the audit log writes lines (metrics). */
public interface StatementListener {
  /** The outcome of a statement that succeeded; others carry their error code. */
  String OK = "ok";

  /** Hears nothing. */
  StatementListener NONE = (kind, outcome, inTransaction, elapsedNanos) -> {};

  /**
   * @param kind the statement's kind ({@code SELECT}, {@code INSERT}, {@code CREATE TABLE AS},
   *     {@code INGEST}, ...); null when its text does not parse
   * @param outcome {@value #OK} or the error code it failed with ({@code FAILED_PRECONDITION}, ...)
   * @param inTransaction whether it ran inside a transaction, so that a write only staged its changes
   * @param elapsedNanos from its arrival to its end
   */
  void statementEnded(String kind, String outcome, boolean inTransaction, long elapsedNanos);

  /** A statement that materializes a table succeeded, reusing what an earlier run committed or not as {@code reuse} says. */
  default void materialized(CommandResult.Reuse reuse) {}

  /** A statement of {@code kind} (as {@link #statementEnded} names it) ran on the Trino cluster and succeeded. */
  default void offloaded(String kind) {}

  /**
   * Hears how a statement failed, after {@link #statementEnded}.
   *
   * @param code the error code it failed with
   * @param message what its client was told, with the statement's parameter values replaced
   */
  default void statementFailed(String queryId, String code, String message) {}
}
