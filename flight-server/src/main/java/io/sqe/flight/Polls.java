package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.flight.audit.StatementAudit;
import io.sqe.flight.session.ClientSession;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.PollInfo;
import org.apache.arrow.flight.sql.FlightSqlUtils;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * PollFlightInfo: starts a statement in the background and answers at once with its progress and
 * a retry descriptor, or with its final FlightInfo once a DoGet can stream the result.
 */
final class Polls {
  /** How long a PollFlightInfo with a retry descriptor waits for news before it answers. */
  private static final Duration LONG_POLL_WAIT = Duration.ofSeconds(1);

  /** Statements started by PollFlightInfo, by query id, until their retry descriptors expire. */
  private final Cache<String, PollState> states;
  private final Duration lifetime;
  private final QueryEngine engine;
  private final CallSessions calls;
  private final StatementCalls statements;
  private final PreparedStatements prepared;
  private final QueryTickets tickets;
  private final ResultStreamer results;
  private final StatementHandles handles;

  /**
   * @param states made by {@link #newStates}: the producer hands its {@code invalidate} to the
   *     tickets first, since a poll's state must go with its evicted ticket
   * @param lifetime how long a poll's retry descriptor can be used, as long as a ticket
   */
  Polls(
      Cache<String, PollState> states,
      Duration lifetime,
      QueryEngine engine,
      CallSessions calls,
      StatementCalls statements,
      PreparedStatements prepared,
      QueryTickets tickets,
      ResultStreamer results,
      StatementHandles handles) {
    this.states = requireNonNull(states, "states is null");
    this.lifetime = requireNonNull(lifetime, "lifetime is null");
    this.engine = requireNonNull(engine, "engine is null");
    this.calls = requireNonNull(calls, "calls is null");
    this.statements = requireNonNull(statements, "statements is null");
    this.prepared = requireNonNull(prepared, "prepared is null");
    this.tickets = requireNonNull(tickets, "tickets is null");
    this.results = requireNonNull(results, "results is null");
    this.handles = requireNonNull(handles, "handles is null");
  }

  /** The poll states of a {@link Polls}, which expire with their retry descriptors. */
  static Cache<String, PollState> newStates(Duration lifetime) {
    return Caffeine.newBuilder().expireAfterWrite(lifetime).maximumSize(100_000).build();
  }

  /**
   * Starts the statement a PollFlightInfo names, or answers a poll of one started before.
   *
   * @param metadata answers a metadata command in full
   */
  PollInfo poll(Any command, CallContext context, FlightDescriptor descriptor, Supplier<FlightInfo> metadata) {
    if (command.is(TicketStatementQuery.class)) {
      byte[] bytes = FlightSqlUtils.unpackOrThrow(command, TicketStatementQuery.class).getStatementHandle().toByteArray();
      Optional<StatementHandle> handle = handles.read(bytes, StatementHandle.Kind.TICKET, "poll's descriptor", calls.principal(context));
      String queryId = StatementHandles.localId(handle, bytes);
      PollState poll = states.getIfPresent(queryId);
      if (poll != null) {
        if (!calls.principal(context).user().equals(poll.principal().user())) {
          throw CallStatus.UNAUTHORIZED.withDescription("Query " + queryId + " belongs to another user").toRuntimeException();
        }
        return pollInfo(queryId, poll, LONG_POLL_WAIT);
      }
      if (handle.isPresent() && handle.get().selfContained()) {
        return elsewhere(handle.get(), bytes, context, descriptor);
      }
      if (handle.isPresent()) {
        throw handles.notHere(handle.get(), "poll of query " + queryId);
      }
      throw handles.server().unknown(
          queryId, "poll of query " + queryId, "Unknown or expired poll of query " + queryId + "; run the statement again");
    }
    ClientSession session = calls.session(context);
    String queryId = statements.newQueryId();
    StatementCalls.Call call = null;
    Prepared statement;
    List<List<Object>> parameterSets;
    try {
      if (command.is(CommandStatementQuery.class)) {
        call = statements.call(FlightSqlUtils.unpackOrThrow(command, CommandStatementQuery.class), session, context);
      } else if (command.is(CommandPreparedStatementQuery.class)) {
        ByteString handle = FlightSqlUtils.unpackOrThrow(command, CommandPreparedStatementQuery.class).getPreparedStatementHandle();
        call = prepared.call(prepared.handle(handle, context), session, context);
      } else {
        return new PollInfo(metadata.get(), null, null, null);
      }
      statements.track(queryId, call.client(), call.session(), call.sql());
      statement = call.plan().apply(queryId);
      parameterSets = call.parameterSets().get();
    } catch (RuntimeException | Error e) {
      engine.queries().forget(queryId);
      throw StatementCalls.failed(call == null ? StatementAudit.NONE : call.record(), queryId, e);
    }
    Session statementSession = call.session();
    StatementAudit record = call.record();
    statements.track(queryId, call.client(), statementSession, statement.sql());
    CompletableFuture<FlightInfo> result = new CompletableFuture<>();
    // A query's retry descriptor is its ticket, which any server can redeem; a command's outcome
    // only this server learns.
    byte[] ticket = statement instanceof Prepared.Command
        ? handles.serverOnlyTicket(queryId, statementSession)
        : handles.queryTicket(queryId, statementSession, statement, parameterSets);
    PollState poll =
        new PollState(result, statement.resultSchema(), descriptor, statementSession.principal(), Instant.now().plus(lifetime), ticket);
    states.put(queryId, poll);
    try {
      if (statement instanceof Prepared.Command) {
        Prepared.Command run = (Prepared.Command) statement;
        results.submit(() -> complete(result, () -> {
          StatementCalls.CommandOutcome outcome;
          try {
            outcome = statements.runCommand(session, statementSession, run, parameterSets, queryId);
          } catch (RuntimeException | Error e) {
            throw StatementCalls.failed(record, queryId, e);
          }
          record.materialized(outcome.reuse());
          record.offloadedTo(outcome.offloadedTo());
          record.succeeded(queryId, outcome.rows());
          return statements.commandResult(session, queryId, run, outcome, descriptor, keptBytes(descriptor));
        }));
      } else {
        startInBackground(queryId, statementSession, statement, parameterSets, descriptor, result, record, ticket);
      }
    } catch (RuntimeException | Error e) {
      states.invalidate(queryId);
      engine.queries().forget(queryId);
      throw StatementCalls.failed(record, queryId, e);
    }
    return pollInfo(queryId, poll, Duration.ZERO);
  }

  /** Starts a query's first execution and computes its first batch, for the first DoGet of its ticket. */
  private void startInBackground(
      String queryId,
      Session session,
      Prepared statement,
      List<List<Object>> parameterSets,
      FlightDescriptor descriptor,
      CompletableFuture<FlightInfo> result,
      StatementAudit record,
      byte[] ticket) {
    PendingQuery pending = tickets.register(queryId, session, statement, parameterSets, false, keptBytes(descriptor) + ticket.length);
    pending.audit(record);
    CompletableFuture<QueryExecution> first = new CompletableFuture<>();
    pending.prefetched(first);
    // However it is cancelled (CancelFlightInfo, CALL system.cancel_query), an unfetched execution closes.
    engine.queries().find(queryId).ifPresent(query -> query.onCancel(pending::discard));
    results.submit(() -> complete(result, () -> {
      QueryExecution execution = null;
      try {
        execution = engine.execute(session, statement, parameterSets.get(0), queryId);
        execution.prefetch();
        long records = execution.exhausted() && parameterSets.size() == 1 ? execution.root().getRowCount() : -1;
        first.complete(execution);
        return StatementCalls.flightInfo(queryId, statement.resultSchema(), descriptor, pending, ticket, records);
      } catch (RuntimeException | Error e) {
        if (execution != null) {
          execution.close();
        }
        // No DoGet will run it: the first one gets this failure from the poll.
        pending.takeAudit();
        record.failed(queryId, e, null);
        first.completeExceptionally(e);
        throw e;
      }
    }));
  }

  private static void complete(CompletableFuture<FlightInfo> result, Supplier<FlightInfo> work) {
    try {
      result.complete(work.get());
    } catch (RuntimeException | Error e) {
      result.completeExceptionally(e);
    }
  }

  /** What a poll answers after waiting up to {@code wait} for the statement's result. */
  private PollInfo pollInfo(String queryId, PollState poll, Duration wait) {
    try {
      FlightInfo done = poll.result().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return new PollInfo(done, null, 1.0, poll.expiresAt());
    } catch (TimeoutException e) {
      OptionalDouble scanned =
          engine.queries().find(queryId).flatMap(TrackedQuery::stats).map(QueryStats::scanProgress).orElse(OptionalDouble.empty());
      // Unknown until a scan has planned its files; then the share of them opened.
      Double progress = scanned.isPresent() ? scanned.getAsDouble() : null;
      // The retry descriptor is the ticket's message: it names the query, and only polls read it.
      FlightDescriptor retry = FlightDescriptor.command(QueryTickets.ticket(poll.ticket()).getBytes());
      return new PollInfo(StatementCalls.flightInfo(queryId, poll.schema(), poll.descriptor(), null, poll.ticket(), -1), retry, progress, poll.expiresAt());
    } catch (ExecutionException e) {
      states.invalidate(queryId);
      throw FlightErrors.toFlight(e.getCause(), queryId);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallStatus.CANCELLED.withDescription("Interrupted while waiting for query " + queryId).toRuntimeException();
    }
  }

  /**
   * A poll of a query another server started (or this one, and forgot): its ticket, which any
   * server can redeem, is its result; the query runs when the ticket is read.
   */
  private PollInfo elsewhere(StatementHandle handle, byte[] ticket, CallContext context, FlightDescriptor descriptor) {
    Schema schema;
    if (handle.commandCount() != null) {
      schema = Prepared.Command.RESULT_SCHEMA;
    } else {
      Session session = StatementHandles.session(handle, calls.session(context));
      schema = statements.prepare(session, handle.sql(), statements.newQueryId(), StatementHandles.snapshots(handle)).resultSchema();
    }
    Instant expiresAt = handle.issuedAt().plus(lifetime);
    FlightInfo info = FlightInfo.builder(
            schema, descriptor, List.of(FlightEndpoint.builder(QueryTickets.ticket(ticket)).setExpirationTime(expiresAt).build()))
        .setRecords(-1)
        .build();
    return new PollInfo(info, null, 1.0, expiresAt);
  }

  /** What a poll keeps besides its ticket: its descriptor, which holds the statement again. */
  private static long keptBytes(FlightDescriptor descriptor) {
    return descriptor.isCommand() ? descriptor.getCommand().length : 0;
  }

  /**
   * A statement PollFlightInfo started: its FlightInfo once a DoGet can stream the result, and
   * what the FlightInfos before that show.
   */
  record PollState(
      CompletableFuture<FlightInfo> result, Schema schema, FlightDescriptor descriptor, Principal principal, Instant expiresAt, byte[] ticket) {}
}
