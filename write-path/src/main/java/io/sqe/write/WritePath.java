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
    return executors(MaintenanceSettings.DEFAULT, LocationRules.NONE);
  }

  /**
   * The executors, with table maintenance limited by {@code maintenance} and the locations
   * statements may choose for tables by {@code locations}.
   */
  public static List<CommandExecutor> executors(MaintenanceSettings maintenance, LocationRules locations) {
    return List.of(new DdlExecutor(maintenance, locations), new DmlExecutor(locations));
  }

  /** Transactions over Iceberg tables, in which the DML of {@link #executors()} is staged. */
  public static Transactions transactions() {
    return IcebergTransaction::begin;
  }
}
