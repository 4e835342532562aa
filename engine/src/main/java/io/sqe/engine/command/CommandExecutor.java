package io.sqe.engine.command;

import java.util.Optional;
import org.apache.calcite.sql.SqlNode;

/**
 * Runs statements that are not queries: DDL, DML and session statements. The write path
 * implements this for DDL and DML; the engine registers executors with its {@code QueryEngine}.
 */
public interface CommandExecutor {
  /**
   * Prepares {@code statement} if this executor runs statements of its kind: resolves names and
   * checks types, so that every error in the statement surfaces here, and changes nothing.
   *
   * @return empty if this executor does not run such statements
   */
  Optional<PreparedCommand> prepare(CommandContext context, SqlNode statement);
}
