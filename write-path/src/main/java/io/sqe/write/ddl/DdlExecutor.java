package io.sqe.write.ddl;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.sql.ddl.SqlAlterTable;
import io.sqe.engine.sql.ddl.SqlAlterTableCreateRef;
import io.sqe.engine.sql.ddl.SqlAlterTableDropRef;
import io.sqe.engine.sql.ddl.SqlAlterTableExecute;
import io.sqe.engine.sql.ddl.SqlAlterViewRename;
import io.sqe.engine.sql.ddl.SqlCommentOn;
import io.sqe.engine.sql.ddl.SqlCreateMaterializedView;
import io.sqe.engine.sql.ddl.SqlCreateSchema;
import io.sqe.engine.sql.ddl.SqlCreateTable;
import io.sqe.engine.sql.ddl.SqlCreateView;
import io.sqe.engine.sql.ddl.SqlDropMaterializedView;
import io.sqe.engine.sql.ddl.SqlDropSchema;
import io.sqe.engine.sql.ddl.SqlDropTable;
import io.sqe.engine.sql.ddl.SqlDropView;
import io.sqe.engine.sql.ddl.SqlRefreshMaterializedView;
import io.sqe.engine.sql.ddl.SqlTruncateTable;
import io.sqe.write.maintenance.MaintenanceSettings;
import io.sqe.write.storage.LocationRules;
import java.util.Optional;
import org.apache.calcite.sql.SqlNode;

/**
 * Runs DDL against the Iceberg catalogs: schemas, tables (without a query; CREATE TABLE AS is
 * DML's), ALTER TABLE (with branches, tags and the maintenance procedures of ALTER TABLE EXECUTE),
 * views, materialized views and comments. Preparing resolves names and checks types, layouts and properties; running
 * checks again against the catalog as it is then, applies IF [NOT] EXISTS, and commits once.
 */
public final class DdlExecutor implements CommandExecutor {
  private final MaintenanceSettings maintenance;
  private final LocationRules locations;

  public DdlExecutor() {
    this(MaintenanceSettings.DEFAULT, LocationRules.NONE);
  }

  /** @param locations who may choose where tables' files go, and where */
  public DdlExecutor(MaintenanceSettings maintenance, LocationRules locations) {
    this.maintenance = requireNonNull(maintenance, "maintenance is null");
    this.locations = requireNonNull(locations, "locations is null");
  }

  @Override
  public Optional<PreparedCommand> prepare(CommandContext context, SqlNode statement) {
    if (statement instanceof SqlCreateSchema) {
      return Optional.of(SchemaStatements.create(context, (SqlCreateSchema) statement, locations));
    }
    if (statement instanceof SqlDropSchema) {
      return Optional.of(SchemaStatements.drop(context, (SqlDropSchema) statement));
    }
    if (statement instanceof SqlCreateTable) {
      SqlCreateTable create = (SqlCreateTable) statement;
      return create.query() != null ? Optional.empty() : Optional.of(TableStatements.create(context, create, locations));
    }
    if (statement instanceof SqlDropTable) {
      return Optional.of(TableStatements.drop(context, (SqlDropTable) statement));
    }
    if (statement instanceof SqlTruncateTable) {
      return Optional.of(TableStatements.truncate(context, (SqlTruncateTable) statement));
    }
    if (statement instanceof SqlAlterTableCreateRef) {
      return Optional.of(RefStatements.create(context, (SqlAlterTableCreateRef) statement));
    }
    if (statement instanceof SqlAlterTableDropRef) {
      return Optional.of(RefStatements.drop(context, (SqlAlterTableDropRef) statement));
    }
    if (statement instanceof SqlAlterTableExecute) {
      return Optional.of(TableProcedures.prepare(context, (SqlAlterTableExecute) statement, maintenance));
    }
    if (statement instanceof SqlAlterTable) {
      return AlterTableStatements.prepare(context, (SqlAlterTable) statement, locations);
    }
    if (statement instanceof SqlCreateView) {
      return Optional.of(ViewStatements.create(context, (SqlCreateView) statement));
    }
    if (statement instanceof SqlDropView) {
      return Optional.of(ViewStatements.drop(context, (SqlDropView) statement));
    }
    if (statement instanceof SqlCreateMaterializedView) {
      return Optional.of(MaterializedViewStatements.create(context, (SqlCreateMaterializedView) statement));
    }
    if (statement instanceof SqlDropMaterializedView) {
      return Optional.of(MaterializedViewStatements.drop(context, (SqlDropMaterializedView) statement));
    }
    if (statement instanceof SqlRefreshMaterializedView) {
      return Optional.of(MaterializedViewStatements.refresh(context, (SqlRefreshMaterializedView) statement));
    }
    if (statement instanceof SqlAlterViewRename) {
      return Optional.of(ViewStatements.rename(context, (SqlAlterViewRename) statement));
    }
    if (statement instanceof SqlCommentOn) {
      SqlCommentOn comment = (SqlCommentOn) statement;
      switch (comment.target()) {
        case TABLE:
          return Optional.of(TableStatements.commentOnTable(context, comment));
        case COLUMN:
          return Optional.of(
              ViewStatements.commentsOnViewColumn(context, comment)
                  ? ViewStatements.commentOnColumn(context, comment)
                  : TableStatements.commentOnColumn(context, comment));
        default:
          return Optional.of(ViewStatements.comment(context, comment));
      }
    }
    return Optional.empty();
  }
}
