package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.opentelemetry.context.Scope;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.flight.audit.AuditLog;
import io.sqe.flight.audit.Outcomes;
import io.sqe.flight.audit.StatementAudit;
import io.sqe.flight.audit.StatementListener;
import io.sqe.flight.ops.LogSettings;
import io.sqe.flight.runtime.RuntimeSchema;
import io.sqe.flight.session.ClientSession;
import io.sqe.flight.tracing.StatementSpan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutUpdateResult;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.MDC;

/**
 * The lifecycle of a statement a Flight call runs, ad hoc or prepared: audit record, planning under
 * a query id that lists it, then running it (a command) or keeping it for its ticket (a query), and
 * the audit record's outcome; and the reads of its ticket.
 */
final class StatementCalls {
  private static final int SHOWN_TEXT_LENGTH = 4_096;

  private final QueryEngine engine;
  private final CallSessions calls;
  private final FlightTransactions transactions;
  private final QueryTickets tickets;
  private final IssuingServer server;
  private final StatementHandles handles;
  private final ResultStreamer results;
  private final HeapGuard heap;
  private final AuditLog audit;
  private final BufferAllocator allocator;

  StatementCalls(
      QueryEngine engine,
      CallSessions calls,
      FlightTransactions transactions,
      QueryTickets tickets,
      StatementHandles handles,
      ResultStreamer results,
      HeapGuard heap,
      AuditLog audit,
      BufferAllocator allocator) {
    this.engine = requireNonNull(engine, "engine is null");
    this.calls = requireNonNull(calls, "calls is null");
    this.transactions = requireNonNull(transactions, "transactions is null");
    this.tickets = requireNonNull(tickets, "tickets is null");
    this.handles = requireNonNull(handles, "handles is null");
    this.server = handles.server();
    this.results = requireNonNull(results, "results is null");
    this.heap = requireNonNull(heap, "heap is null");
    this.audit = requireNonNull(audit, "audit is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  /**
   * A statement a Flight call runs.
   *
   * @param client the client's session, which a command's session changes go to
   * @param session the session the statement runs in
   * @param sql its text, as SHOW QUERIES shows it while it is planned
   * @param record its audit record
   * @param plan plans it under a query id
   * @param parameterSets the parameter rows it runs with, one execution each; asked for after planning
   */
  record Call(
      ClientSession client,
      Session session,
      String sql,
      StatementAudit record,
      Function<String, Prepared> plan,
      Supplier<List<List<Object>>> parameterSets) {}

  /** The call of an ad-hoc statement, in the transaction it names or its session's. */
  Call call(CommandStatementQuery command, ClientSession session, CallContext context) {
    return adHoc(session, command.getTransactionId(), command.getQuery(), context);
  }

  private Call adHoc(ClientSession session, ByteString transactionId, String sql, CallContext context) {
    Session statementSession = transactions.statementSession(session, transactionId);
    StatementAudit record = audit(context, statementSession, sql);
    return new Call(session, statementSession, sql, record, queryId -> prepare(statementSession, sql, queryId), () -> List.of(List.of()));
  }

  String newQueryId() {
    return server.newId();
  }

  /** Begins the audit record of a statement that arrives now from {@code context}'s client. */
  StatementAudit audit(CallContext context, Session session, String sql) {
    if (!audit.recordsStatements()) {
      return StatementAudit.NONE;
    }
    return audit.statement(
        session.principal().user(), CallSessions.clientAddress(context), session, sql,
        audit.tracing().clientContext(name -> CallSessions.header(context, name)));
  }

  /**
   * Plans a statement to prepare under {@code handle} (CreatePreparedStatement), in a trace of
   * its own that continues the client's.
   */
  Prepared prepareHandle(CallContext context, Session session, String sql, String handle) {
    StatementSpan span = audit.tracing().beginPreparation(
        audit.tracing().clientContext(name -> CallSessions.header(context, name)),
        session.principal().user(),
        CallSessions.clientAddress(context));
    String tag = session.options().get(RuntimeSchema.QUERY_TAG);
    try (Scope trace = span.context().makeCurrent()) {
      Prepared prepared = prepare(session, sql, handle);
      span.end(handle, null, sql, tag, List.of(), List.of(), StatementListener.OK, null, false);
      return prepared;
    } catch (RuntimeException | Error e) {
      span.end(handle, null, sql, tag, List.of(), List.of(), Outcomes.code(e), null, false);
      throw e;
    }
  }

  /**
   * Plans a statement under {@code queryId}, which lists it and cancels it while it is planned,
   * as does the client cancelling the call or its deadline passing.
   */
  Prepared prepare(Session session, String sql, String queryId) {
    try {
      return whileTheCallLasts(queryId, () -> engine.prepare(session, sql, queryId));
    } catch (RuntimeException | Error e) {
      throw FlightErrors.toFlight(e, queryId);
    }
  }

  /** Plans a statement under {@code queryId} with its tables read at {@code snapshots}, as {@link #prepare(Session, String, String)}. */
  Prepared prepare(Session session, String sql, String queryId, List<QueryEngine.TableSnapshot> snapshots) {
    try {
      return whileTheCallLasts(queryId, () -> engine.prepare(session, sql, queryId, snapshots));
    } catch (RuntimeException | Error e) {
      throw FlightErrors.toFlight(e, queryId);
    }
  }

  /**
   * Lists a statement under its query id, by the text SHOW QUERIES shows, labelled with the client
   * session that sent it and the session's query tag.
   */
  void track(String queryId, ClientSession client, Session session, String sql) {
    engine.queries().track(queryId, session.principal(), shownText(sql))
        .label(client.id(), null, session.options().get(RuntimeSchema.QUERY_TAG));
  }

  /** Lists a statement under its query id, by the text SHOW QUERIES shows, if it is not already. */
  void track(String queryId, Session session, String sql) {
    engine.queries().track(queryId, session.principal(), shownText(sql));
  }

  FlightInfo getFlightInfo(CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return describe(call(command, calls.session(context), context), descriptor);
  }

  /**
   * Plans a call's statement and runs it if it is a command, else keeps it for the DoGets of its
   * ticket; the FlightInfo names the ticket either way.
   */
  FlightInfo describe(Call call, FlightDescriptor descriptor) {
    String queryId = newQueryId();
    // Known from its arrival, so that its planning can be listed, cancelled and timed.
    track(queryId, call.client(), call.session(), call.sql());
    try (Scope trace = call.record().trace().makeCurrent()) {
      Prepared statement = call.plan().apply(queryId);
      List<List<Object>> parameterSets = call.parameterSets().get();
      if (statement instanceof Prepared.Command) {
        // ADBC and dbt send every statement as a query: it runs here, once, and DoGet returns its count.
        Prepared.Command run = (Prepared.Command) statement;
        CommandOutcome outcome = runCommand(call.client(), call.session(), run, parameterSets, queryId);
        call.record().materialized(outcome.reuse());
        call.record().offloadedTo(outcome.offloadedTo());
        call.record().succeeded(queryId, outcome.rows());
        return commandResult(call.client(), queryId, run, outcome, descriptor, 0);
      }
      return queryResult(queryId, call.session(), statement, parameterSets, descriptor, call.record());
    } catch (RuntimeException | Error e) {
      engine.queries().forget(queryId);
      throw failed(call.record(), queryId, e);
    }
  }

  /** What a statement failed with as a Flight status, recorded in its audit line. */
  static RuntimeException failed(StatementAudit record, String queryId, Throwable e) {
    RuntimeException error = FlightErrors.toFlight(e, queryId);
    record.failed(queryId, error, null);
    return error;
  }

  /** Keeps a query for the DoGets of its ticket and describes it: schema, ticket, query id. */
  private FlightInfo queryResult(
      String queryId,
      Session session,
      Prepared statement,
      List<List<Object>> parameterSets,
      FlightDescriptor descriptor,
      StatementAudit record) {
    PendingQuery pending = tickets.register(queryId, session, statement, parameterSets, false, 0);
    track(queryId, session, statement.sql());
    pending.audit(record);
    long records = statement instanceof Prepared.Rows ? ((Prepared.Rows) statement).rows().size() : -1;
    byte[] ticket = handles.queryTicket(queryId, session, statement, parameterSets);
    return flightInfo(queryId, statement.resultSchema(), descriptor, pending, ticket, records);
  }

  /** Plans and runs a command whose client gets only its count (DoPut), so its query id is forgotten at once. */
  long update(Call call) {
    String queryId = newQueryId();
    return call.record().recordUpdate(queryId, () -> {
      track(queryId, call.client(), call.session(), call.sql());
      try {
        Prepared statement = call.plan().apply(queryId);
        if (!(statement instanceof Prepared.Command)) {
          throw FlightErrors.invalid("A query cannot run as an update; execute it as a query");
        }
        CommandOutcome outcome = runCommand(call.client(), call.session(), (Prepared.Command) statement, call.parameterSets().get(), queryId);
        QueryTrailers.Holder trailers = QueryTrailers.current();
        // The audit line's key, as a query's DoGet trailers carry it.
        trailers.put("x-sqe-query-id", queryId);
        reported(call.record(), outcome, trailers);
        return outcome.rows();
      } finally {
        engine.queries().forget(queryId);
      }
    });
  }

  Runnable acceptPut(CommandStatementUpdate command, CallContext context, StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        long updated = update(adHoc(calls.session(context), command.getTransactionId(), command.getQuery(), context));
        sendUpdateCount(ackStream, updated);
      } catch (RuntimeException | Error e) {
        ackStream.onError(FlightErrors.toFlight(e, "update"));
      }
    };
  }

  /**
   * Runs a command once per parameter set in {@code statementSession} and applies what it does to
   * the client's session. The query id stays known for its result's ticket.
   *
   * @return the rows it changed, summed over the parameter sets, and the rows it reported
   */
  CommandOutcome runCommand(
      ClientSession session, Session statementSession, Prepared.Command command, List<List<Object>> parameterSets, String queryId) {
    track(queryId, statementSession, command.sql());
    try {
      return whileTheCallLasts(queryId, () -> {
        long rows = 0;
        List<Object[]> report = new ArrayList<>();
        CommandResult.Reuse reuse = null;
        String offloadedTo = null;
        for (List<Object> parameters : parameterSets) {
          CommandResult result = engine.run(statementSession, command, parameters, queryId);
          session.update(result.sessionChange());
          rows += result.rowCount();
          report.addAll(result.report());
          reuse = result.reuse() != null ? result.reuse() : reuse;
          offloadedTo = result.offloadedTo() != null ? result.offloadedTo() : offloadedTo;
        }
        return new CommandOutcome(rows, report, reuse, offloadedTo);
      });
    } catch (RuntimeException | Error e) {
      engine.queries().forget(queryId);
      throw FlightErrors.toFlight(e, queryId);
    }
  }

  /**
   * What running a command did: the rows it changed, the rows of its report if it makes one, and
   * whether it reused a materialization (null when it materializes none; with several parameter
   * sets, the last run's), and the Trino cluster that ran it (null when none did).
   */
  record CommandOutcome(long rows, List<Object[]> report, CommandResult.Reuse reuse, String offloadedTo) {}

  /**
   * Tells the audit record (and through it the metrics) and the call's trailers ({@code
   * x-sqe-materialization}: {@code reused} or {@code rebuilt}, with its reason and detail; {@code
   * x-sqe-runtime: trino} for a write the Trino cluster ran) whether a statement reused a
   * materialization and where it ran.
   */
  static void reported(StatementAudit record, CommandOutcome outcome, QueryTrailers.Holder trailers) {
    record.offloadedTo(outcome.offloadedTo());
    record.materialized(outcome.reuse());
    trailersOf(outcome).forEach(trailers::put);
  }

  /**
   * The trailers that say whether a statement reused a materialization (none when it materializes
   * none) and that the Trino cluster ran it (none when it ran here).
   */
  static Map<String, String> trailersOf(CommandOutcome outcome) {
    Map<String, String> trailers = new HashMap<>();
    CommandResult.Reuse reuse = outcome.reuse();
    if (reuse != null) {
      trailers.put("x-sqe-materialization", reuse.outcome());
      trailers.put("x-sqe-materialization-reason", reuse.reason());
      trailers.put("x-sqe-materialization-detail", reuse.detail());
    }
    if (outcome.offloadedTo() != null) {
      trailers.put("x-sqe-runtime", "trino");
    }
    return trailers;
  }

  /**
   * Runs {@code work} for a tracked query on the thread of a client's call, cancelling the query
   * if the client cancels the call or its deadline passes: ADBC's cancel does that, and a
   * command that runs inside GetFlightInfo would otherwise go on without anyone to answer.
   */
  private <T> T whileTheCallLasts(String queryId, Supplier<T> work) {
    Context call = Context.current();
    Context.CancellationListener stop =
        cancelled -> engine.queries().find(queryId).ifPresent(q ->
            q.cancel(ErrorCode.CANCELLED, "Query " + queryId + " was cancelled: the client cancelled its call or the call's deadline passed"));
    call.addListener(stop, Runnable::run);
    try (MDC.MDCCloseable id = MDC.putCloseable(LogSettings.QUERY_ID, queryId);
        HeapGuard.Watch watch = heap.watch(queryId)) {
      return work.get();
    } finally {
      call.removeListener(stop);
    }
  }

  /**
   * A FlightInfo whose ticket returns one row, the count; total_records is the count too (ADBC's
   * rowcount). A command that reports what it did (table maintenance) returns its report instead.
   *
   * @param alsoKept bytes the caller keeps for as long as the ticket
   */
  FlightInfo commandResult(
      ClientSession session, String queryId, Prepared.Command command, CommandOutcome outcome, FlightDescriptor descriptor, long alsoKept) {
    // Its ticket returns the outcome and never runs the statement again: it keeps no more of it
    // than SHOW QUERIES shows.
    String text = shownText(command.sql());
    Prepared result = command.reports()
        ? new Prepared.Rows(text, command.resultSchema(), outcome.report())
        : new Prepared.Rows(text, Prepared.Command.RESULT_SCHEMA, List.<Object[]>of(new Object[] {outcome.rows()}));
    PendingQuery pending = tickets.register(queryId, session.session(), result, List.of(List.of()), true, alsoKept);
    pending.trailers(trailersOf(outcome));
    long records = command.reports() ? outcome.report().size() : outcome.rows();
    byte[] ticket = handles.commandTicket(queryId, session.session(), text, command.reports(), outcome.rows());
    return flightInfo(queryId, result.resultSchema(), descriptor, pending, ticket, records);
  }

  /**
   * The text of a statement that SHOW QUERIES shows and that is kept where the statement itself
   * is not needed: at most its first {@value #SHOWN_TEXT_LENGTH} characters.
   */
  private static String shownText(String sql) {
    return sql.length() <= SHOWN_TEXT_LENGTH ? sql : sql.substring(0, SHOWN_TEXT_LENGTH) + "...";
  }

  /** Tells a DoPut client how many rows its update changed. */
  void sendUpdateCount(StreamListener<PutResult> ackStream, long rows) {
    sendPutMetadata(ackStream, DoPutUpdateResult.newBuilder().setRecordCount(rows).build());
  }

  /** Answers a DoPut with one message in the metadata of its only result. */
  void sendPutMetadata(StreamListener<PutResult> ackStream, com.google.protobuf.Message message) {
    byte[] bytes = message.toByteArray();
    try (ArrowBuf buffer = allocator.buffer(bytes.length)) {
      buffer.writeBytes(bytes);
      ackStream.onNext(PutResult.metadata(buffer));
    }
    ackStream.onCompleted();
  }

  SchemaResult getSchema(CommandStatementQuery command, CallContext context) {
    ClientSession session = calls.session(context);
    Session statementSession = transactions.statementSession(session, command.getTransactionId());
    return new SchemaResult(prepare(statementSession, command.getQuery(), newQueryId()).resultSchema());
  }

  /**
   * Runs the statement a ticket names again, or returns the count of the command it names: from
   * what this server keeps when it issued the ticket and the tables are still at the snapshots it
   * was planned against, else planned again from the ticket, reading those snapshots.
   */
  void getStream(TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    byte[] bytes = ticket.getStatementHandle().toByteArray();
    String queryId = null;
    try {
      Optional<StatementHandle> handle = handles.read(bytes, StatementHandle.Kind.TICKET, "ticket", calls.principal(context));
      queryId = StatementHandles.localId(handle, bytes);
      Optional<PendingQuery> kept = tickets.find(queryId);
      if (kept.isPresent() && (handle.isEmpty() || !handle.get().selfContained() || handle.get().commandCount() != null
          || handles.snapshotsCurrent(handle.get()))) {
        PendingQuery query = owned(kept.get(), context);
        streamKept(queryId, query, context, listener);
        return;
      }
      if (handle.isEmpty()) {
        throw server.unknown(queryId, "ticket", "Unknown or expired ticket; run the statement again");
      }
      if (!handle.get().selfContained()) {
        throw handles.notHere(handle.get(), "ticket");
      }
      // Kept, but its tables moved on: the audit record begun with the statement ends with this run.
      StatementAudit begun = kept.filter(query -> owned(query, context) != null).map(PendingQuery::takeAudit).orElse(null);
      redeem(handle.get(), context, listener, begun);
    } catch (RuntimeException | Error e) {
      listener.error(FlightErrors.toFlight(e, queryId == null ? "ticket" : queryId));
    }
  }

  private void streamKept(String queryId, PendingQuery query, CallContext context, ServerStreamListener listener) {
    tickets.read(queryId);
    QueryTrailers.Holder trailers = QueryTrailers.current();
    query.trailers().forEach(trailers::put);
    StatementAudit record = query.takeAudit();
    if (record == null) {
      // A later DoGet of the same ticket runs the statement again; a command's count is no run.
      record = query.commandResult() ? StatementAudit.NONE
          : audit(context, query.session(), query.statement().sql()).withParameters(query.parameterSets());
    }
    stream(query.session(), query.statement(), query.parameterSets(), queryId, query.takePrefetched(), listener, record);
  }

  /**
   * Serves a ticket this server does not keep (another server issued it, or the tables moved on
   * since): a command's count as the ticket carries it, a query planned again in the ticket's
   * session settings over the snapshots it was planned against.
   *
   * @param begun the audit record begun when the statement was planned here, if its first run is this one
   */
  private void redeem(StatementHandle handle, CallContext context, ServerStreamListener listener, StatementAudit begun) {
    ClientSession client = calls.session(context);
    Session session = StatementHandles.session(handle, client);
    String queryId = newQueryId();
    if (handle.commandCount() != null) {
      Prepared.Rows count = new Prepared.Rows(
          shownText(handle.sql()), Prepared.Command.RESULT_SCHEMA, List.<Object[]>of(new Object[] {handle.commandCount()}));
      stream(session, count, List.of(List.of()), queryId, null, listener, StatementAudit.NONE);
      return;
    }
    StatementAudit record = begun != null ? begun : audit(context, session, handle.sql()).withParameters(handle.parameterSets());
    track(queryId, client, session, handle.sql());
    Prepared statement;
    try {
      statement = whileTheCallLasts(queryId, () -> engine.prepare(session, handle.sql(), queryId, StatementHandles.snapshots(handle)));
    } catch (RuntimeException | Error e) {
      engine.queries().forget(queryId);
      throw failed(record, queryId, e);
    }
    List<List<Object>> parameterSets = handle.parameterSets().isEmpty() ? List.of(List.of()) : handle.parameterSets();
    stream(session, statement, parameterSets, queryId, null, listener, record);
  }

  private PendingQuery owned(PendingQuery query, CallContext context) {
    Principal principal = calls.principal(context);
    if (!principal.user().equals(query.session().principal().user())) {
      throw CallStatus.UNAUTHORIZED.withDescription("This ticket belongs to another user").toRuntimeException();
    }
    return query;
  }

  /**
   * Restarts the lifetime of a ticket of the caller's, which can be read until it expires: one
   * this server keeps, or a self-contained one another server issued, signed again.
   */
  FlightEndpoint renew(FlightEndpoint endpoint, CallContext context) {
    byte[] bytes = QueryTickets.handle(endpoint.getTicket())
        .orElseThrow(() -> FlightErrors.invalid("The endpoint's ticket is not a ticket of an SQE statement"));
    Optional<StatementHandle> handle = handles.read(bytes, StatementHandle.Kind.TICKET, "ticket", calls.principal(context));
    String queryId = StatementHandles.localId(handle, bytes);
    Optional<PendingQuery> kept = tickets.find(queryId);
    org.apache.arrow.flight.Ticket renewed;
    java.time.Instant expiresAt;
    if (kept.isPresent()) {
      PendingQuery pending = owned(kept.get(), context);
      tickets.renew(queryId, pending);
      renewed = handle.isPresent() ? QueryTickets.ticket(handles.renewed(handle.get())) : endpoint.getTicket();
      expiresAt = pending.expiresAt();
    } else if (handle.isPresent() && handle.get().selfContained()) {
      renewed = QueryTickets.ticket(handles.renewed(handle.get()));
      expiresAt = handles.expiry(StatementHandle.Kind.TICKET);
    } else if (handle.isPresent()) {
      throw handles.notHere(handle.get(), "ticket");
    } else {
      throw server.unknown(queryId, "ticket", "Unknown or expired ticket; run the statement again");
    }
    return FlightEndpoint.builder(renewed, endpoint.getLocations().toArray(new Location[0]))
        .setExpirationTime(expiresAt)
        .setAppMetadata(endpoint.getAppMetadata())
        .build();
  }

  /**
   * Streams the statement's results, once per parameter set, starting with {@code prefetched}
   * (an execution PollFlightInfo started) when there is one.
   */
  void stream(
      Session session,
      Prepared statement,
      List<List<Object>> parameterSets,
      String queryId,
      CompletableFuture<QueryExecution> prefetched,
      ServerStreamListener listener,
      StatementAudit record) {
    Iterator<List<Object>> sets = parameterSets.iterator();
    Iterator<Supplier<QueryExecution>> executions =
        new Iterator<>() {
          private CompletableFuture<QueryExecution> first = prefetched;

          @Override
          public boolean hasNext() {
            return sets.hasNext();
          }

          @Override
          public Supplier<QueryExecution> next() {
            List<Object> parameters = sets.next();
            CompletableFuture<QueryExecution> started = first;
            first = null;
            if (started != null) {
              return () -> await(started);
            }
            return () -> engine.execute(session, statement, parameters, queryId);
          }
        };
    results.start(statement.resultSchema(), executions, listener, queryId, QueryTrailers.current(), record,
        () -> engine.queries().findWithHistory(queryId).ifPresent(TrackedQuery::markClosed));
  }

  private static <T> T await(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      throw ExecutionErrors.rethrow(e.getCause());
    }
  }

  /**
   * A FlightInfo of a statement: its query id in app_metadata, and the ticket's endpoint with the
   * ticket's expiration time (none while a PollFlightInfo has no result yet).
   *
   * @param ticket the signed handle the ticket carries; unused without {@code pending}
   * @param records the rows the ticket returns, or -1 if unknown
   */
  static FlightInfo flightInfo(
      String queryId, Schema schema, FlightDescriptor descriptor, PendingQuery pending, byte[] ticket, long records) {
    List<FlightEndpoint> endpoints =
        pending == null
            ? List.of()
            : List.of(FlightEndpoint.builder(QueryTickets.ticket(ticket)).setExpirationTime(pending.expiresAt()).build());
    return FlightInfo.builder(schema, descriptor, endpoints)
        .setRecords(records)
        .setAppMetadata(QueryIdMetadata.of(queryId))
        .build();
  }
}
