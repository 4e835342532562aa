package io.sqe.engine.command;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.session.Session;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * What running a statement did.
 *
 * @param rowCount rows inserted, updated or deleted; 0 for DDL and session statements
 * @param sessionChange how the statement changes the session (USE, SET), applied by the caller
 * @param report the rows of a command that reports what it did (table maintenance), as Calcite
 *     run-time values of {@link PreparedCommand#reportSchema()}; empty for the others
 */
public record CommandResult(long rowCount, UnaryOperator<Session> sessionChange, List<Object[]> report) {
  public CommandResult {
    requireNonNull(sessionChange, "sessionChange is null");
    report = List.copyOf(report);
  }

  public static CommandResult rows(long count) {
    return new CommandResult(count, UnaryOperator.identity(), List.of());
  }

  public static CommandResult session(UnaryOperator<Session> change) {
    return new CommandResult(0, change, List.of());
  }

  /** What a command with a {@link PreparedCommand#reportSchema() report} did: its rows, and no count. */
  public static CommandResult report(List<Object[]> rows) {
    return new CommandResult(0, UnaryOperator.identity(), rows);
  }
}
