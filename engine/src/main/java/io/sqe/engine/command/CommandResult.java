package io.sqe.engine.command;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.session.Session;
import java.util.function.UnaryOperator;

/**
 * What running a statement did.
 *
 * @param rowCount rows inserted, updated or deleted; 0 for DDL and session statements
 * @param sessionChange how the statement changes the session (USE, SET), applied by the caller
 */
public record CommandResult(long rowCount, UnaryOperator<Session> sessionChange) {
  public CommandResult {
    requireNonNull(sessionChange, "sessionChange is null");
  }

  public static CommandResult rows(long count) {
    return new CommandResult(count, UnaryOperator.identity());
  }

  public static CommandResult session(UnaryOperator<Session> change) {
    return new CommandResult(0, change);
  }
}
