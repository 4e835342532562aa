package io.sqe.bench;

import static java.util.Objects.requireNonNull;

/**
 * How one execution of one query on one engine went.
 *
 * @param outcome whether it completed, timed out or failed
 * @param nanos wall time of a completed execution
 * @param rows the result of a completed execution, else null
 * @param message why it did not complete, else null
 * @param disturbed whether it ran while the process was still busy with an earlier query that
 *     did not stop when cancelled
 */
record Attempt(Outcome outcome, long nanos, ResultRows rows, String message, boolean disturbed) {
  /** The ways an execution ends. */
  enum Outcome {
    COMPLETED,
    TIMEOUT,
    ERROR
  }

  Attempt {
    requireNonNull(outcome, "outcome is null");
    if ((outcome == Outcome.COMPLETED) != (rows != null)) {
      throw new IllegalArgumentException("Rows are for completed executions only, not " + outcome);
    }
  }

  static Attempt completed(long nanos, ResultRows rows) {
    return new Attempt(Outcome.COMPLETED, nanos, requireNonNull(rows, "rows is null"), null, false);
  }

  static Attempt timeout(String message) {
    return new Attempt(Outcome.TIMEOUT, 0, null, message, false);
  }

  static Attempt error(String message) {
    return new Attempt(Outcome.ERROR, 0, null, message, false);
  }

  Attempt withDisturbed(boolean disturbed) {
    return new Attempt(outcome, nanos, rows, message, disturbed);
  }

  boolean completed() {
    return outcome == Outcome.COMPLETED;
  }
}
