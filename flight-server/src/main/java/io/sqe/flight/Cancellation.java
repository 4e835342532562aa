package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.Any;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.session.Principal;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelFlightInfoResult;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.sql.FlightSqlUtils;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCancelQueryRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCancelQueryResult;

/** The cancel actions, Flight's CancelFlightInfo and Flight SQL's older CancelQuery, for the query a FlightInfo names. */
final class Cancellation {
  /** How long CancelFlightInfo waits for a query to stop before it answers CANCELLING. */
  private static final Duration CANCEL_WAIT = Duration.ofSeconds(3);

  private final QueryTracker queries;
  private final QueryTickets tickets;
  private final CallSessions calls;

  Cancellation(QueryTracker queries, QueryTickets tickets, CallSessions calls) {
    this.queries = requireNonNull(queries, "queries is null");
    this.tickets = requireNonNull(tickets, "tickets is null");
    this.calls = requireNonNull(calls, "calls is null");
  }

  Result cancelFlightInfo(Action action, CallContext context) {
    String type = action.getType();
    FlightInfo info = ActionBodies.read(type, () -> CancelFlightInfoRequest.deserialize(ByteBuffer.wrap(action.getBody())).getInfo());
    CancelStatus status = cancel(queryId(info), calls.principal(context));
    return new Result(new CancelFlightInfoResult(status).serialize().array());
  }

  Result cancelQuery(Action action, CallContext context) {
    String type = action.getType();
    FlightInfo info = ActionBodies.read(type, () -> FlightInfo.deserialize(
        FlightSqlUtils.unpackAndParseOrThrow(action.getBody(), ActionCancelQueryRequest.class).getInfo().asReadOnlyByteBuffer()));
    CancelStatus status = cancel(queryId(info), calls.principal(context));
    ActionCancelQueryResult result = ActionCancelQueryResult.newBuilder().setResult(cancelResult(status)).build();
    return new Result(Any.pack(result).toByteArray());
  }

  private static ActionCancelQueryResult.CancelResult cancelResult(CancelStatus status) {
    switch (status) {
      case CANCELLED:
        return ActionCancelQueryResult.CancelResult.CANCEL_RESULT_CANCELLED;
      case CANCELLING:
        return ActionCancelQueryResult.CancelResult.CANCEL_RESULT_CANCELLING;
      case NOT_CANCELLABLE:
        return ActionCancelQueryResult.CancelResult.CANCEL_RESULT_NOT_CANCELLABLE;
      default:
        return ActionCancelQueryResult.CancelResult.CANCEL_RESULT_UNSPECIFIED;
    }
  }

  /** The query a FlightInfo of ours names: by its app_metadata, else by its ticket. */
  private static String queryId(FlightInfo info) {
    Optional<String> id = QueryIdMetadata.queryId(info.getAppMetadata());
    if (id.isEmpty() && !info.getEndpoints().isEmpty()) {
      id = QueryTickets.handle(info.getEndpoints().get(0).getTicket()).map(StatementHandles::localIdOf);
    }
    return id.orElseThrow(() -> FlightErrors.invalid(
        "The FlightInfo names no SQE query: it has no query_id in its app_metadata and no ticket of a statement"));
  }

  /**
   * Cancels a query for {@code caller}, its own user or an admin, and waits a little for it to
   * stop and release its memory.
   *
   * @return CANCELLED when it has stopped (or had not started), CANCELLING when it is still
   *     stopping, NOT_CANCELLABLE when it had already done its work (a command has committed)
   */
  private CancelStatus cancel(String queryId, Principal caller) {
    TrackedQuery query = queries.controllable(queryId, caller);
    Optional<PendingQuery> pending = tickets.find(queryId);
    if (pending.isPresent() && pending.get().commandResult()) {
      return CancelStatus.NOT_CANCELLABLE;
    }
    query.cancelBy(caller);
    try {
      if (!query.awaitIdle(CANCEL_WAIT)) {
        return CancelStatus.CANCELLING;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CancelStatus.CANCELLING;
    }
    return query.state() == TrackedQuery.State.FINISHED ? CancelStatus.NOT_CANCELLABLE : CancelStatus.CANCELLED;
  }
}
