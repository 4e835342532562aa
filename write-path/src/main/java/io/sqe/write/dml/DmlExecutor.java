package io.sqe.write.dml;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.command.WriteOptions;
import io.sqe.engine.sql.ddl.SqlCreateTable;
import io.sqe.engine.sql.ddl.SqlMergeStatement;
import io.sqe.write.storage.LocationRules;
import java.util.Optional;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.SqlNode;

/**
 * Runs the statements that write rows: INSERT, CREATE TABLE ... AS, CREATE OR REPLACE TABLE ...
 * AS, DELETE, UPDATE and MERGE, each as one Iceberg commit. Outside a transaction, a statement
 * whose commit loses a race with another writer runs again on the new snapshot, up to {@code
 * maxCommitRetries} times, before it fails ({@link ReRunOnConflict}).
 */
public final class DmlExecutor implements CommandExecutor {
  /**
   * How many times a statement runs again by default after losing a commit race. Each attempt
   * against k busy writers wins about one time in k: four writers updating one row, 40 statements,
   * failed 30 times without re-runs, 10 times with 4, 3 times with 8.
   */
  public static final int DEFAULT_MAX_COMMIT_RETRIES = 8;

  private final LocationRules locations;
  private final int maxCommitRetries;
  private final boolean materializationReuse;

  public DmlExecutor() {
    this(LocationRules.NONE, DEFAULT_MAX_COMMIT_RETRIES, true);
  }

  /**
   * @param locations who may choose where a new table's files go (CREATE TABLE ... AS), and where
   * @param maxCommitRetries how many times a statement runs again after losing a commit race; 0 never
   * @param materializationReuse whether a CREATE OR REPLACE TABLE ... AS whose inputs did not change
   *     commits nothing, unless the session sets {@link WriteOptions#MATERIALIZATION_REUSE}
   */
  public DmlExecutor(LocationRules locations, int maxCommitRetries, boolean materializationReuse) {
    if (maxCommitRetries < 0) {
      throw new IllegalArgumentException("maxCommitRetries must not be negative: " + maxCommitRetries);
    }
    this.locations = requireNonNull(locations, "locations is null");
    this.maxCommitRetries = maxCommitRetries;
    this.materializationReuse = materializationReuse;
  }

  @Override
  public Optional<PreparedCommand> prepare(CommandContext context, SqlNode statement) {
    return prepared(context, statement).map(command -> ReRunOnConflict.wrap(command, maxCommitRetries));
  }

  private Optional<PreparedCommand> prepared(CommandContext context, SqlNode statement) {
    if (statement instanceof SqlInsert) {
      return Optional.of(InsertCommand.prepare(context, (SqlInsert) statement));
    }
    if (statement instanceof SqlDelete) {
      return Optional.of(DeleteUpdatePlanner.delete(context, (SqlDelete) statement));
    }
    if (statement instanceof SqlUpdate) {
      return Optional.of(DeleteUpdatePlanner.update(context, (SqlUpdate) statement));
    }
    if (statement instanceof SqlMergeStatement) {
      return Optional.of(MergePlanner.prepare(context, (SqlMergeStatement) statement));
    }
    if (statement instanceof SqlCreateTable && ((SqlCreateTable) statement).query() != null) {
      return Optional.of(CreateTableAsCommand.prepare(context, (SqlCreateTable) statement, locations, materializationReuse));
    }
    return Optional.empty();
  }
}
