package io.sqe.write.dml;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.command.PreparedCommand;
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
 * AS, DELETE, UPDATE and MERGE, each as one Iceberg commit.
 */
public final class DmlExecutor implements CommandExecutor {
  private final LocationRules locations;

  public DmlExecutor() {
    this(LocationRules.NONE);
  }

  /** @param locations who may choose where a new table's files go (CREATE TABLE ... AS), and where */
  public DmlExecutor(LocationRules locations) {
    this.locations = requireNonNull(locations, "locations is null");
  }

  @Override
  public Optional<PreparedCommand> prepare(CommandContext context, SqlNode statement) {
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
      return Optional.of(CreateTableAsCommand.prepare(context, (SqlCreateTable) statement, locations));
    }
    return Optional.empty();
  }
}
