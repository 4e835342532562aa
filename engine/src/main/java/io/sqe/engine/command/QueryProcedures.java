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
 * in the query's FlightInfo, its trailers, {@code SHOW QUERIES} and {@code system.runtime.queries}.
 * {@code CALL system.kill_query(query_id => '<id>', message => '...')} does the same as Trino's
 * procedure of that name does: its client is told {@code Query killed. Message: ...}.
 */
public final class QueryProcedures implements CommandExecutor {
  public static final String CANCEL_QUERY = StatementPrivileges.CANCEL_QUERY;
  public static final String KILL_QUERY = StatementPrivileges.KILL_QUERY;
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
    String name = String.join(".", call.name().names).toLowerCase(Locale.ROOT);
    String queryId;
    String reason;
    if (name.equals(CANCEL_QUERY)) {
      List<SqlNode> arguments = call.arguments().getList();
      if (arguments.size() != 1 || !(arguments.get(0) instanceof SqlCharStringLiteral)) {
        throw new SqeException(
            ErrorCode.INVALID_ARGUMENT, CANCEL_QUERY + " takes one argument, the query id as a string: CALL " + CANCEL_QUERY + "('<query id>')");
      }
      queryId = ((SqlCharStringLiteral) arguments.get(0)).getValueAs(String.class);
      reason = null;
    } else if (name.equals(KILL_QUERY)) {
      ProcedureArguments arguments = ProcedureArguments.of(KILL_QUERY, call, List.of("query_id", "message"));
      queryId = arguments.required("query_id");
      reason = killReason(arguments.optional("message").orElse(null));
    } else {
      return Optional.empty();
    }
    return Optional.of(
        new PreparedCommand() {
          @Override
          public boolean runsInTransaction() {
            return true;
          }

          @Override
          public CommandResult execute(CommandContext run, List<Object> parameters) {
            return CommandResult.rows(cancel(queryId, reason, run.session().principal()) ? 1 : 0);
          }
        });
  }

  /**
   * What the client of a killed query is told: Trino's words, which its clients and tools show as
   * they are.
   *
   * @param message the killer's message; null or blank for none
   */
  public static String killReason(String message) {
    return message == null || message.isBlank() ? "Query killed" : "Query killed. Message: " + message;
  }

  /**
   * @param reason what the query's client is told; null for the message of a cancel
   * @return whether this call cancelled the query (rather than an earlier one)
   */
  private boolean cancel(String queryId, String reason, Principal caller) {
    TrackedQuery query = queries.controllable(queryId, caller);
    boolean cancelled = reason == null ? query.cancelBy(caller) : query.cancel(ErrorCode.CANCELLED, reason);
    try {
      query.awaitIdle(STOP_WAIT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return cancelled;
  }
}
