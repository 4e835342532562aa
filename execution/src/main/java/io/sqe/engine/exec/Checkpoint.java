package io.sqe.engine.exec;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import org.apache.calcite.DataContext;

/**
 * Where a long evaluation of a single value (a LIKE or a regular expression over a long string)
 * stops now and then to ask whether it should go on, so that a statement timeout or a cancel
 * reaches it in the middle of one row.
 */
@FunctionalInterface
public interface Checkpoint {
  /** The {@link DataContext} variable that holds an execution's checkpoint. */
  String VARIABLE = "sqe.checkpoint";

  /**
   * Checks made per evaluation when there is no query to ask, as while the planner folds constants:
   * about 2^24 steps of matching (some milliseconds) between {@link #check} calls of every 2^12.
   */
  int UNATTENDED_CHECKS = 1 << 12;

  /** Throws when the evaluation must stop (its query was cancelled or ran out of time). */
  void check();

  /**
   * The checkpoint of the execution {@code root} belongs to. Without one (the planner folding
   * constants), a budget: past {@link #UNATTENDED_CHECKS} checks the evaluation fails, which leaves
   * the expression to run under the statement's timeout.
   */
  static Checkpoint of(DataContext root) {
    Object checkpoint = root.get(VARIABLE);
    return checkpoint instanceof Checkpoint ? (Checkpoint) checkpoint : new Budget(UNATTENDED_CHECKS);
  }

  /** Fails on the first check after {@code checks} of them. */
  final class Budget implements Checkpoint {
    private int left;

    Budget(int checks) {
      this.left = checks;
    }

    @Override
    public void check() {
      if (--left < 0) {
        throw new SqeException(ErrorCode.RESOURCE_EXHAUSTED, "The expression takes too long to evaluate outside a query");
      }
    }
  }
}
