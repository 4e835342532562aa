package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.sqe.catalog.CatalogCredentials;
import io.sqe.catalog.Catalogs;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.flight.audit.AuditLog;
import io.sqe.flight.auth.TokenService;
import io.sqe.flight.metadata.ServerSqlInfo;
import io.sqe.flight.metadata.FlightSqlMetadata;
import io.sqe.flight.session.SessionManager;
import io.sqe.flight.session.SessionOptions;
import io.sqe.infoschema.CatalogMetadata;
import io.sqe.write.dml.BulkIngest;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.ActionType;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.FlightConstants;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.GetSessionOptionsResult;
import org.apache.arrow.flight.PollInfo;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.RenewFlightEndpointRequest;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.BasicFlightSqlProducer;
import org.apache.arrow.flight.sql.FlightSqlUtils;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginSavepointRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginSavepointResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginTransactionRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginTransactionResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndSavepointRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndTransactionRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * SQE's Flight SQL service: runs statements for authenticated sessions through the engine and
 * streams the results.
 *
 * <p>A statement is prepared (parsed, validated, planned) at GetFlightInfo, so every error in it
 * surfaces there; the ticket names the prepared statement, and DoGet runs it.
 *
 * <p>A statement runs in the Flight SQL transaction it names by id, else in the transaction SQL
 * BEGIN opened in its session, else on its own. Transactions belong to the session that began
 * them and end with it.
 */
public final class SqeFlightSqlProducer extends BasicFlightSqlProducer {
  private static final Duration TICKET_LIFETIME = Duration.ofMinutes(30);

  private final QueryEngine engine;
  private final CallSessions calls;
  private final FlightTransactions transactions;
  private final StatementCalls statements;
  private final BufferAllocator allocator;
  private final FlightSqlMetadata metadata;
  private final ResultStreamer results;
  private final QueryTickets tickets;
  private final Polls polls;
  private final Cancellation cancellation;
  private final PreparedStatements prepared;
  private final IngestCalls ingest;

  /**
   * @param audit where every statement is recorded
   * @param heap watches the statements that run, to stop the biggest when the heap runs short
   * @param ticketBudget bounds what the tickets of each user, and of all, keep
   * @param handleBudget bounds what the prepared statement handles of each user, and of all, keep
   * @param tokens the login tokens, whose keys sign the tickets and prepared statement handles this
   *     server issues and check those it is given (servers sharing them redeem each other's), and
   *     which name the server holding a client's open transaction ({@link TransactionBinding})
   */
  public SqeFlightSqlProducer(
      QueryEngine engine,
      Catalogs catalogs,
      SessionManager sessions,
      PrincipalResolver principals,
      CatalogMetadata catalogMetadata,
      BufferAllocator allocator,
      AuditLog audit,
      HeapGuard heap,
      TicketBudget ticketBudget,
      TicketBudget handleBudget,
      TokenService tokens) {
    this.engine = requireNonNull(engine, "engine is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    IssuingServer server = new IssuingServer();
    this.calls = new CallSessions(
        sessions, principals, new SessionOptions(requireNonNull(catalogs, "catalogs is null"), engine.config()),
        new TransactionBinding(requireNonNull(tokens, "tokens is null"), server.id()));
    this.metadata = new FlightSqlMetadata(catalogs, catalogMetadata, ServerInfo.NAME, ServerInfo.VERSION, sessions.idleTimeout());
    this.transactions = new FlightTransactions(engine, calls, audit, server.id());
    StatementHandles handles = new StatementHandles(
        new SignedHandles(tokens.handleKeys()), server, engine, TICKET_LIFETIME,
        ServerSqlInfo.PREPARED_STATEMENT_IDLE_TIMEOUT, Clock.systemUTC());
    this.results = new ResultStreamer(allocator, requireNonNull(heap, "heap is null"));
    // A poll's state goes with its evicted ticket: it holds the statement too.
    Cache<String, Polls.PollState> pollStates = Polls.newStates(TICKET_LIFETIME);
    this.tickets =
        new QueryTickets(engine.queries(), TICKET_LIFETIME, requireNonNull(ticketBudget, "ticketBudget is null"), pollStates::invalidate);
    this.statements = new StatementCalls(engine, calls, transactions, tickets, handles, results, heap, audit, allocator);
    this.ingest = new IngestCalls(new BulkIngest(catalogs, engine.accessControl()), calls, transactions, statements, audit);
    this.prepared = new PreparedStatements(calls, transactions, statements, handles, handleBudget);
    this.cancellation = new Cancellation(engine.queries(), tickets, calls);
    this.polls = new Polls(pollStates, TICKET_LIFETIME, engine, calls, statements, prepared, tickets, results, handles);
  }

  /**
   * Stops the queries still running and waits for them, and closes executions started for
   * tickets nobody fetched, so their memory is back before the allocator closes.
   */
  @Override
  public void close() {
    for (TrackedQuery query : engine.queries().all()) {
      query.cancel(ErrorCode.CANCELLED, "The server is shutting down");
    }
    results.close();
    tickets.close();
  }

  /**
   * The producer's own caches by the name the metrics give them: {@code tickets} (query tickets,
   * looked up by each DoGet and renewal) and {@code prepared_statements} (handles, looked up by
   * each execution and by their close).
   */
  public Map<String, Cache<?, ?>> caches() {
    return Map.of("tickets", tickets.cache(), "prepared_statements", prepared.cache());
  }

  // ---- sessions

  @Override
  public void setSessionOptions(SetSessionOptionsRequest request, CallContext context, StreamListener<SetSessionOptionsResult> listener) {
    calls.setOptions(request, context, listener);
  }

  @Override
  public void getSessionOptions(GetSessionOptionsRequest request, CallContext context, StreamListener<GetSessionOptionsResult> listener) {
    calls.getOptions(context, listener);
  }

  @Override
  public void closeSession(CloseSessionRequest request, CallContext context, StreamListener<CloseSessionResult> listener) {
    calls.close(context, listener);
  }

  // ---- Flight's entry points

  // Each Flight call below also answers an Error its statement's own handling did not reach with
  // a status: Flight passes Errors on to gRPC, which ends the call UNKNOWN. GetFlightInfo and
  // GetSchema, which answer by returning, do so for SQE's own exceptions too: Flight would answer
  // those INTERNAL "There was an error servicing your request", hiding what they say.

  @Override
  public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor) {
    command(descriptor);
    try (CatalogCredentials.Scope caller = calls.catalogCaller(context)) {
      return super.getFlightInfo(context, descriptor);
    } catch (RuntimeException | Error e) {
      throw FlightErrors.toFlight(e, "GetFlightInfo");
    }
  }

  @Override
  public SchemaResult getSchema(CallContext context, FlightDescriptor descriptor) {
    command(descriptor);
    try (CatalogCredentials.Scope caller = calls.catalogCaller(context)) {
      return super.getSchema(context, descriptor);
    } catch (RuntimeException | Error e) {
      throw FlightErrors.toFlight(e, "GetSchema");
    }
  }

  @Override
  public Runnable acceptPut(CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    try (CatalogCredentials.Scope caller = calls.catalogCaller(context)) {
      Runnable put = CatalogCredentials.carry(super.acceptPut(context, flightStream, ackStream));
      return () -> {
        try {
          put.run();
        } catch (Error e) {
          ackStream.onError(FlightErrors.toFlight(e, "DoPut"));
        }
      };
    }
  }

  /** Refuses a ticket that is no protobuf as INVALID_ARGUMENT; Flight SQL's dispatch would say INTERNAL. */
  @Override
  public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
    try {
      Any.parseFrom(ticket.getBytes());
    } catch (InvalidProtocolBufferException e) {
      listener.error(FlightErrors.invalid("The ticket is not one this server issued: it is no protobuf message"));
      return;
    }
    try (CatalogCredentials.Scope caller = calls.catalogCaller(context)) {
      super.getStream(context, ticket, listener);
    } catch (Error e) {
      listener.error(FlightErrors.toFlight(e, "DoGet"));
    }
  }

  /** A descriptor's command; Flight SQL has no path descriptors. */
  private static byte[] command(FlightDescriptor descriptor) {
    if (!descriptor.isCommand()) {
      throw FlightErrors.invalid("Flight SQL takes command descriptors, not paths: " + descriptor);
    }
    return descriptor.getCommand();
  }

  // ---- ad-hoc statements

  @Override
  public FlightInfo getFlightInfoStatement(CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return statements.getFlightInfo(command, context, descriptor);
  }

  @Override
  public SchemaResult getSchemaStatement(CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return statements.getSchema(command, context);
  }

  @Override
  public void getStreamStatement(TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    statements.getStream(ticket, context, listener);
  }

  @Override
  public Runnable acceptPutStatement(
      CommandStatementUpdate command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return statements.acceptPut(command, context, ackStream);
  }

  // ---- prepared statements

  @Override
  public void createPreparedStatement(
      ActionCreatePreparedStatementRequest request, CallContext context, StreamListener<Result> listener) {
    prepared.create(request, context, listener);
  }

  @Override
  public void closePreparedStatement(
      ActionClosePreparedStatementRequest request, CallContext context, StreamListener<Result> listener) {
    prepared.close(request, context, listener);
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return prepared.getFlightInfo(command, context, descriptor);
  }

  @Override
  public SchemaResult getSchemaPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return prepared.getSchema(command, context);
  }

  @Override
  public void getStreamPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, ServerStreamListener listener) {
    prepared.getStream(command, context, listener);
  }

  @Override
  public Runnable acceptPutPreparedStatementQuery(
      CommandPreparedStatementQuery command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return prepared.acceptPutQuery(command, context, flightStream, ackStream);
  }

  @Override
  public Runnable acceptPutPreparedStatementUpdate(
      CommandPreparedStatementUpdate command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return prepared.acceptPutUpdate(command, context, flightStream, ackStream);
  }

  // ---- actions, polling

  @Override
  public void listActions(CallContext context, StreamListener<ActionType> listener) {
    for (ActionType action : FlightSqlUtils.FLIGHT_SQL_ACTIONS) {
      if (!action.getType().equals(FlightSqlUtils.FLIGHT_SQL_CREATE_PREPARED_SUBSTRAIT_PLAN.getType())) {
        listener.onNext(action);
      }
    }
    listener.onNext(FlightConstants.CANCEL_FLIGHT_INFO);
    listener.onNext(FlightConstants.RENEW_FLIGHT_ENDPOINT);
    listener.onNext(FlightConstants.SET_SESSION_OPTIONS);
    listener.onNext(FlightConstants.GET_SESSION_OPTIONS);
    listener.onNext(FlightConstants.CLOSE_SESSION);
    listener.onCompleted();
  }

  /**
   * Answers CancelFlightInfo, CancelQuery and RenewFlightEndpoint itself, so that a body that is
   * not the message the action takes is INVALID_ARGUMENT (Flight's own handling says INTERNAL);
   * every other action goes to Flight SQL's dispatch, which refuses unknown ones as
   * INVALID_ARGUMENT.
   */
  @Override
  public void doAction(CallContext context, Action action, StreamListener<Result> listener) {
    try (CatalogCredentials.Scope caller = calls.catalogCaller(context)) {
      doActionAsCaller(context, action, listener);
    } catch (Error e) {
      listener.onError(FlightErrors.toFlight(e, action.getType()));
    }
  }

  private void doActionAsCaller(CallContext context, Action action, StreamListener<Result> listener) {
    String type = action.getType();
    try {
      if (type.equals(FlightConstants.CANCEL_FLIGHT_INFO.getType())) {
        listener.onNext(cancellation.cancelFlightInfo(action, context));
      } else if (type.equals(FlightSqlUtils.FLIGHT_SQL_CANCEL_QUERY.getType())) {
        listener.onNext(cancellation.cancelQuery(action, context));
      } else if (type.equals(FlightConstants.RENEW_FLIGHT_ENDPOINT.getType())) {
        FlightEndpoint endpoint =
            ActionBodies.read(type, () -> RenewFlightEndpointRequest.deserialize(ByteBuffer.wrap(action.getBody())).getFlightEndpoint());
        listener.onNext(new Result(statements.renew(endpoint, context).serialize().array()));
      } else {
        ActionBodies.checkSessionAction(type, action.getBody());
        super.doAction(context, action, listener);
        return;
      }
      listener.onCompleted();
    } catch (RuntimeException | Error e) {
      listener.onError(FlightErrors.toFlight(e, type));
    }
  }

  /**
   * Starts a statement and answers at once: its final FlightInfo when a DoGet can stream the
   * result (a query's first batch is ready, a command has run), else its progress and a retry
   * descriptor to poll again with, which waits a little for news. Metadata commands are answered
   * in full at once.
   */
  @Override
  public PollInfo pollFlightInfo(CallContext context, FlightDescriptor descriptor) {
    try (CatalogCredentials.Scope caller = calls.catalogCaller(context)) {
      Any command = FlightSqlUtils.parseOrThrow(command(descriptor));
      return polls.poll(command, context, descriptor, () -> getFlightInfo(context, descriptor));
    } catch (Error e) {
      throw FlightErrors.toFlight(e, "PollFlightInfo");
    }
  }

  // ---- bulk ingest

  @Override
  public Runnable acceptPutStatementBulkIngest(
      CommandStatementIngest command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return ingest.acceptPut(command, context, flightStream, ackStream);
  }

  // ---- transactions

  @Override
  public void beginTransaction(
      ActionBeginTransactionRequest request, CallContext context, StreamListener<ActionBeginTransactionResult> listener) {
    transactions.begin(context, listener);
  }

  @Override
  public void endTransaction(ActionEndTransactionRequest request, CallContext context, StreamListener<Result> listener) {
    transactions.end(request, context, listener);
  }

  @Override
  public void beginSavepoint(
      ActionBeginSavepointRequest request, CallContext context, StreamListener<ActionBeginSavepointResult> listener) {
    transactions.beginSavepoint(request, context, listener);
  }

  @Override
  public void endSavepoint(ActionEndSavepointRequest request, CallContext context, StreamListener<Result> listener) {
    transactions.endSavepoint(request, context, listener);
  }

  // ---- metadata

  @Override
  public void getStreamSqlInfo(CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getSqlInfo(allocator, command));
  }

  @Override
  public void getStreamTypeInfo(CommandGetXdbcTypeInfo command, CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getXdbcTypeInfo(allocator, command));
  }

  @Override
  public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getCatalogs(allocator));
  }

  @Override
  public void getStreamSchemas(CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getDbSchemas(allocator, calls.principal(context), command));
  }

  @Override
  public void getStreamTables(CommandGetTables command, CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getTables(allocator, calls.principal(context), command));
  }

  @Override
  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getTableTypes(allocator));
  }

  @Override
  public void getStreamPrimaryKeys(CommandGetPrimaryKeys command, CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getPrimaryKeys(allocator, calls.principal(context), command));
  }

  @Override
  public void getStreamExportedKeys(CommandGetExportedKeys command, CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getExportedKeys(allocator, command));
  }

  @Override
  public void getStreamImportedKeys(CommandGetImportedKeys command, CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getImportedKeys(allocator, command));
  }

  @Override
  public void getStreamCrossReference(CommandGetCrossReference command, CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getCrossReference(allocator, command));
  }

  /** Sends a metadata answer as one record batch. */
  private static void send(ServerStreamListener listener, Supplier<VectorSchemaRoot> answer) {
    try (VectorSchemaRoot root = answer.get()) {
      listener.start(root);
      listener.putNext();
      listener.completed();
    } catch (RuntimeException | Error e) {
      listener.error(FlightErrors.toFlight(e, "metadata"));
    }
  }

  // ---- helpers

  @Override
  protected <T extends Message> List<FlightEndpoint> determineEndpoints(T request, FlightDescriptor descriptor, Schema schema) {
    return List.of(new FlightEndpoint(new Ticket(Any.pack(request).toByteArray())));
  }
}
