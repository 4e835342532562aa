package io.sqe.write;

import io.sqe.engine.command.CommandExecutor;
import io.sqe.write.ddl.DdlExecutor;
import io.sqe.write.dml.DmlExecutor;
import java.util.List;

/** The statements the write path runs, as command executors for the engine. */
public final class WritePath {
  private WritePath() {}

  public static List<CommandExecutor> executors() {
    return List.of(new DdlExecutor(), new DmlExecutor());
  }
}
