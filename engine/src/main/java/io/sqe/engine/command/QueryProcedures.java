package io.sqe.engine.command;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.security.StatementPrivileges;
import io.sqe.engine.session.Principal;
import io.sqe.engine.sql.ddl.SqlCallProcedure;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlNode;

/**
 * {@code CALL system.cancel_query('<query id>')}: cancels a query of the caller's, or of anyone
 * for an admin, from any connection, and waits a little for it to stop. The query id is the one
 * in the query's FlightInfo, its trailers and {@code SHOW QUERIES}.
 */
public final class QueryProcedures implements CommandExecutor {
  public static final String CANCEL_QUERY = StatementPrivileges.CANCEL_QUERY;
  private static final Duration STOP_WAIT = Duration.ofSeconds(3);

  private final QueryTracker queries;

  public QueryProcedures(QueryTracker queries) {
    this.queries = requireNonNull(queries, "queries is null");
  }

  @Override
  public Optional<PreparedCommand> prepare(CommandContext context, SqlNode statement) {
    if (!(statement instanceof SqlCallProcedure)) {
      return Optional.empty();
    }
    SqlCallProcedure call = (SqlCallProcedure) statement;
    if (!String.join(".", call.name().names).toLowerCase(Locale.ROOT).equals(CANCEL_QUERY)) {
      return Optional.empty();
    }
    List<SqlNode> arguments = call.arguments().getList();
    if (arguments.size() != 1 || !(arguments.get(0) instanceof SqlCharStringLiteral)) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT, CANCEL_QUERY + " takes one argument, the query id as a string: CALL " + CANCEL_QUERY + "('<query id>')");
    }
    String queryId = ((SqlCharStringLiteral) arguments.get(0)).getValueAs(String.class);
    return Optional.of(
        new PreparedCommand() {
          @Override
          public boolean runsInTransaction() {
            return true;
          }

          @Override
          public CommandResult execute(CommandContext run, List<Object> parameters) {
            return CommandResult.rows(cancel(queryId, run.session().principal()) ? 1 : 0);
          }
        });
  }

  /** @return whether this call cancelled the query (rather than an earlier one) */
  private boolean cancel(String queryId, Principal caller) {
    TrackedQuery query = queries.controllable(queryId, caller);
    boolean cancelled = query.cancelBy(caller);
    try {
      query.awaitIdle(STOP_WAIT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return cancelled;
  }
}
