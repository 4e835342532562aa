package io.sqe.flight.runtime;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.command.ProcedureArguments;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.security.StatementPrivileges;
import io.sqe.engine.session.Principal;
import io.sqe.engine.sql.ddl.SqlCallProcedure;
import io.sqe.flight.session.ClientSession;
import io.sqe.flight.session.SessionManager;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.calcite.sql.SqlNode;

/**
 * {@code CALL system.kill_session(session_id => '<id>', message => '...')}: for the session's user
 * or an admin, cancels the statements the session runs (their clients are told {@code Session
 * killed. Message: ...}) and ends the session, rolling back its transactions; the client's next
 * call starts a new session. Named after Trino's {@code kill_query}, which it extends to what SQE
 * keeps on the server and Trino does not: the session ({@code system.runtime.sessions}).
 */
public final class SessionProcedures implements CommandExecutor {
  public static final String KILL_SESSION = StatementPrivileges.KILL_SESSION;

  private final SessionManager sessions;
  private final QueryTracker queries;

  public SessionProcedures(SessionManager sessions, QueryTracker queries) {
    this.sessions = requireNonNull(sessions, "sessions is null");
    this.queries = requireNonNull(queries, "queries is null");
  }

  @Override
  public Optional<PreparedCommand> prepare(CommandContext context, SqlNode statement) {
    if (!(statement instanceof SqlCallProcedure call)
        || !String.join(".", call.name().names).toLowerCase(Locale.ROOT).equals(KILL_SESSION)) {
      return Optional.empty();
    }
    ProcedureArguments arguments = ProcedureArguments.of(KILL_SESSION, call, List.of("session_id", "message"));
    String sessionId = arguments.required("session_id");
    String message = arguments.optional("message").orElse(null);
    return Optional.of(
        new PreparedCommand() {
          @Override
          public boolean runsInTransaction() {
            return true;
          }

          @Override
          public CommandResult execute(CommandContext run, List<Object> parameters) {
            return CommandResult.rows(kill(sessionId, message, run.session().principal()) ? 1 : 0);
          }
        });
  }

  /**
   * Kills a session for {@code caller}, its user or an admin: NOT_FOUND when there is none,
   * PERMISSION_DENIED when it is another user's.
   *
   * @param message what the session's clients are told after {@code Session killed}; null or blank for nothing
   * @return whether this call ended the session
   */
  public boolean kill(String sessionId, String message, Principal caller) {
    String reason = message == null || message.isBlank() ? "Session killed" : "Session killed. Message: " + message;
    ClientSession session = sessions.find(sessionId).orElseThrow(() -> new SqeException(
        ErrorCode.NOT_FOUND, "Unknown session " + sessionId + ": it never existed, or it ended"));
    if (!caller.isAdmin() && !caller.user().equals(session.session().principal().user())) {
      throw new SqeException(
          ErrorCode.PERMISSION_DENIED, "Session " + sessionId + " belongs to another user; only that user or an admin may kill it");
    }
    for (TrackedQuery query : queries.all()) {
      if (query.sessionId().filter(sessionId::equals).isPresent()) {
        query.cancel(ErrorCode.CANCELLED, reason);
      }
    }
    return sessions.close(session);
  }
}
