package io.sqe.write;

import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.txn.Transactions;
import io.sqe.write.ddl.DdlExecutor;
import io.sqe.write.dml.DmlExecutor;
import io.sqe.write.maintenance.MaintenanceSettings;
import io.sqe.write.storage.LocationRules;
import io.sqe.write.txn.IcebergTransaction;
import java.util.List;

/** The statements the write path runs, as command executors for the engine, and its transactions. */
public final class WritePath {
  private WritePath() {}

  public static List<CommandExecutor> executors() {
    return executors(MaintenanceSettings.DEFAULT);
  }

  /** The executors, with table maintenance limited by {@code maintenance}. */
  public static List<CommandExecutor> executors(MaintenanceSettings maintenance) {
    return executors(maintenance, LocationRules.NONE, DmlExecutor.DEFAULT_MAX_COMMIT_RETRIES, true);
  }

  /**
   * The executors, with table maintenance limited by {@code maintenance}, the locations statements
   * may choose for tables by {@code locations}, and a statement that loses a commit race outside a
   * transaction run again up to {@code maxCommitRetries} times, and materializations reused unless
   * {@code materializationReuse} is false (a session may still say otherwise).
   */
  public static List<CommandExecutor> executors(
      MaintenanceSettings maintenance, LocationRules locations, int maxCommitRetries, boolean materializationReuse) {
    return List.of(new DdlExecutor(maintenance, locations), new DmlExecutor(locations, maxCommitRetries, materializationReuse));
  }

  /** Transactions over Iceberg tables, in which the DML of {@link #executors()} is staged. */
  public static Transactions transactions() {
    return IcebergTransaction::begin;
  }
}
