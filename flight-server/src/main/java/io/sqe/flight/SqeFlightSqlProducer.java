package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.command.CommandResult;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutUpdateResult;
import org.apache.arrow.memory.ArrowBuf;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.engine.txn.Transaction;
import io.sqe.write.dml.BulkIngest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginSavepointRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginSavepointResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginTransactionRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginTransactionResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndSavepointRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndTransactionRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest;
import io.sqe.flight.session.ClientSession;
import io.sqe.flight.metadata.FlightSqlMetadata;
import io.sqe.infoschema.CatalogMetadata;
import io.sqe.flight.session.SessionManager;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCatalogs;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import io.sqe.flight.session.SessionOptions;
import io.sqe.catalog.Catalogs;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.GetSessionOptionsResult;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.BasicFlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;

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
  private static final Duration PREPARED_IDLE_LIFETIME = Duration.ofHours(2);
  private static final char SAVEPOINT_SEPARATOR = '/';

  private final QueryEngine engine;
  private final SessionManager sessions;
  private final PrincipalResolver principals;
  private final BufferAllocator allocator;
  private final SessionOptions sessionOptions;
  private final FlightSqlMetadata metadata;
  private final ResultStreamer results;
  private final Cache<String, PendingQuery> tickets =
      Caffeine.newBuilder().expireAfterWrite(TICKET_LIFETIME).maximumSize(100_000).build();
  private final Cache<String, PreparedHandle> prepared =
      Caffeine.newBuilder().expireAfterAccess(PREPARED_IDLE_LIFETIME).maximumSize(100_000).build();
  /** The session of every Flight SQL transaction, to tell a transaction of another session from an unknown one. */
  private final Cache<String, ClientSession> transactionSessions =
      Caffeine.newBuilder().expireAfterAccess(Duration.ofDays(1)).maximumSize(100_000).build();
  private final BulkIngest ingest;

  public SqeFlightSqlProducer(
      QueryEngine engine,
      Catalogs catalogs,
      SessionManager sessions,
      PrincipalResolver principals,
      CatalogMetadata catalogMetadata,
      BufferAllocator allocator) {
    this.engine = requireNonNull(engine, "engine is null");
    this.sessions = requireNonNull(sessions, "sessions is null");
    this.principals = requireNonNull(principals, "principals is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.sessionOptions = new SessionOptions(requireNonNull(catalogs, "catalogs is null"));
    this.metadata = new FlightSqlMetadata(catalogs, catalogMetadata, ServerInfo.NAME, ServerInfo.VERSION);
    this.results = new ResultStreamer(allocator);
    this.ingest = new BulkIngest(catalogs);
  }

  /** Stops the queries still streaming and waits for them, so their memory is back before the allocator closes. */
  @Override
  public void close() {
    results.close();
  }

  // ---- sessions

  ClientSession session(CallContext context) {
    Principal principal = principals.principal(context);
    CallHeadersMiddleware call = context.getMiddleware(CallHeadersMiddleware.KEY);
    ClientSession session = sessions.session(credential(call), sessionCookie(call), principal);
    applyHeaderDefaults(session, call == null ? null : call.headers());
    return session;
  }

  private static String credential(CallHeadersMiddleware call) {
    return call == null ? null : call.headers().get("authorization");
  }

  private static String sessionCookie(CallHeadersMiddleware call) {
    return call == null ? null : call.sessionCookie();
  }

  /**
   * The JDBC driver sends unknown connection properties as headers; like Dremio, SQE takes
   * {@code catalog} and {@code schema} headers as the session's defaults on its first call.
   */
  private static void applyHeaderDefaults(ClientSession session, CallHeaders headers) {
    if (headers == null) {
      return;
    }
    String schema = headers.get("schema");
    if (schema != null && !schema.isBlank() && session.session().schema() == null) {
      session.update(s -> s.withSchema(schema.trim()));
    }
  }

  private static String newQueryId() {
    return UUID.randomUUID().toString();
  }

  private Prepared prepare(Session session, String sql) {
    try {
      return engine.prepare(session, sql);
    } catch (RuntimeException e) {
      throw FlightErrors.toFlight(e, "prepare");
    }
  }

  /**
   * The session a statement runs in: with the Flight SQL transaction it names, if any; else the
   * client's session, whose SQL transaction (if one is open) it joins.
   */
  private Session statementSession(ClientSession session, ByteString transactionId) {
    if (transactionId.isEmpty()) {
      return session.session();
    }
    return session.session().withTransaction(transaction(session, transactionId));
  }

  /** This session's open transaction with that id: NOT_FOUND when there is none, PERMISSION_DENIED when another session's. */
  private Transaction transaction(ClientSession session, ByteString transactionId) {
    String id = transactionId.toStringUtf8();
    Optional<Transaction> transaction = session.transaction(id);
    if (transaction.isPresent()) {
      return transaction.get();
    }
    ClientSession owner = transactionSessions.getIfPresent(id);
    if (owner != null && owner != session && owner.transaction(id).isPresent()) {
      throw CallStatus.UNAUTHORIZED.withDescription("Transaction " + id + " belongs to another session").toRuntimeException();
    }
    throw CallStatus.NOT_FOUND
        .withDescription("Unknown transaction " + id + ": it has committed, rolled back or ended with its session, or never existed")
        .toRuntimeException();
  }

  @Override
  public void setSessionOptions(SetSessionOptionsRequest request, CallContext context, StreamListener<SetSessionOptionsResult> listener) {
    try {
      ClientSession session = session(context);
      listener.onNext(new SetSessionOptionsResult(sessionOptions.apply(session, request.getSessionOptions())));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightErrors.toFlight(e, "session"));
    }
  }

  @Override
  public void getSessionOptions(GetSessionOptionsRequest request, CallContext context, StreamListener<GetSessionOptionsResult> listener) {
    try {
      listener.onNext(new GetSessionOptionsResult(sessionOptions.current(session(context))));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightErrors.toFlight(e, "session"));
    }
  }

  @Override
  public void closeSession(CloseSessionRequest request, CallContext context, StreamListener<CloseSessionResult> listener) {
    try {
      CallHeadersMiddleware call = context.getMiddleware(CallHeadersMiddleware.KEY);
      sessions.close(credential(call), sessionCookie(call), principals.principal(context));
      listener.onNext(new CloseSessionResult(CloseSessionResult.Status.CLOSED));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightErrors.toFlight(e, "session"));
    }
  }

  // ---- ad-hoc queries

  @Override
  public FlightInfo getFlightInfoStatement(CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    ClientSession session = session(context);
    Session statementSession = statementSession(session, command.getTransactionId());
    Prepared statement = prepare(statementSession, command.getQuery());
    if (statement instanceof Prepared.Command) {
      // ADBC and dbt send every statement as a query: it runs here, once, and DoGet returns its count.
      long rows = runCommand(session, statementSession, (Prepared.Command) statement, List.of(List.of()));
      return commandResult(session, statement.sql(), rows, descriptor);
    }
    String queryId = newQueryId();
    tickets.put(queryId, new PendingQuery(statementSession, statement));
    TicketStatementQuery ticket =
        TicketStatementQuery.newBuilder().setStatementHandle(ByteString.copyFromUtf8(queryId)).build();
    return flightInfo(statement.resultSchema(), descriptor, ticket);
  }

  /**
   * Runs a command once per parameter set in {@code statementSession} and applies what it does to
   * the client's session.
   *
   * @return the rows it changed, summed over the parameter sets
   */
  private long runCommand(ClientSession session, Session statementSession, Prepared.Command command, List<List<Object>> parameterSets) {
    long rows = 0;
    for (List<Object> parameters : parameterSets) {
      String queryId = newQueryId();
      try {
        CommandResult result = engine.run(statementSession, command, parameters, queryId);
        session.update(result.sessionChange());
        rows += result.rowCount();
      } catch (RuntimeException e) {
        throw FlightErrors.toFlight(e, queryId);
      }
    }
    return rows;
  }

  /** A FlightInfo whose ticket returns one row, the count; total_records is the count too (ADBC's rowcount). */
  private FlightInfo commandResult(ClientSession session, String sql, long rows, FlightDescriptor descriptor) {
    String queryId = newQueryId();
    Prepared result = new Prepared.Rows(sql, Prepared.Command.RESULT_SCHEMA, List.<Object[]>of(new Object[] {rows}));
    tickets.put(queryId, new PendingQuery(session.session(), result));
    TicketStatementQuery ticket =
        TicketStatementQuery.newBuilder().setStatementHandle(ByteString.copyFromUtf8(queryId)).build();
    FlightEndpoint endpoint = new FlightEndpoint(new Ticket(Any.pack(ticket).toByteArray()));
    return new FlightInfo(result.resultSchema(), descriptor, List.of(endpoint), -1, rows);
  }

  /** Tells a DoPut client how many rows its update changed. */
  private void sendUpdateCount(StreamListener<PutResult> ackStream, long rows) {
    DoPutUpdateResult result = DoPutUpdateResult.newBuilder().setRecordCount(rows).build();
    byte[] bytes = result.toByteArray();
    try (ArrowBuf buffer = allocator.buffer(bytes.length)) {
      buffer.writeBytes(bytes);
      ackStream.onNext(PutResult.metadata(buffer));
    }
    ackStream.onCompleted();
  }

  @Override
  public SchemaResult getSchemaStatement(CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    ClientSession session = session(context);
    return new SchemaResult(prepare(statementSession(session, command.getTransactionId()), command.getQuery()).resultSchema());
  }

  @Override
  public void getStreamStatement(TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    String queryId = ticket.getStatementHandle().toStringUtf8();
    PendingQuery query = tickets.getIfPresent(queryId);
    if (query == null) {
      listener.error(CallStatus.NOT_FOUND.withDescription("Unknown or expired ticket; run the statement again").toRuntimeException());
      return;
    }
    Principal principal = principals.principal(context);
    if (!principal.user().equals(query.session().principal().user())) {
      listener.error(CallStatus.UNAUTHORIZED.withDescription("This ticket belongs to another user").toRuntimeException());
      return;
    }
    stream(query.session(), query.statement(), List.of(List.of()), queryId, listener);
  }

  private void stream(
      Session session, Prepared statement, List<List<Object>> parameterSets, String queryId, ServerStreamListener listener) {
    Iterator<List<Object>> sets = parameterSets.iterator();
    Iterator<Supplier<QueryExecution>> executions =
        new Iterator<>() {
          @Override
          public boolean hasNext() {
            return sets.hasNext();
          }

          @Override
          public Supplier<QueryExecution> next() {
            List<Object> parameters = sets.next();
            return () -> engine.execute(session, statement, parameters, queryId);
          }
        };
    results.start(statement.resultSchema(), executions, listener, queryId);
  }

  // ---- prepared statements

  @Override
  public void createPreparedStatement(
      ActionCreatePreparedStatementRequest request, CallContext context, StreamListener<Result> listener) {
    try {
      ClientSession session = session(context);
      Session statementSession = statementSession(session, request.getTransactionId());
      Prepared statement = prepare(statementSession, request.getQuery());
      String handle = newQueryId();
      prepared.put(handle, new PreparedHandle(statementSession, statement, !request.getTransactionId().isEmpty()));
      ActionCreatePreparedStatementResult result =
          ActionCreatePreparedStatementResult.newBuilder()
              .setPreparedStatementHandle(ByteString.copyFromUtf8(handle))
              // An empty dataset schema tells the JDBC driver to run a command through DoPut.
              .setDatasetSchema(
                  statement instanceof Prepared.Command
                      ? ByteString.EMPTY
                      : ByteString.copyFrom(statement.resultSchema().serializeAsMessage()))
              .setParameterSchema(ByteString.copyFrom(parameterSchema(statement).serializeAsMessage()))
              .build();
      listener.onNext(new Result(Any.pack(result).toByteArray()));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightErrors.toFlight(e, "prepare"));
    }
  }

  private static Schema parameterSchema(Prepared statement) {
    List<Field> fields = new ArrayList<>();
    List<RelDataType> types = statement.parameterTypes();
    for (int i = 0; i < types.size(); i++) {
      fields.add(CalciteTypeMapping.toArrow("parameter_" + (i + 1), types.get(i)));
    }
    return new Schema(fields);
  }

  @Override
  public void closePreparedStatement(
      ActionClosePreparedStatementRequest request, CallContext context, StreamListener<Result> listener) {
    String handle = request.getPreparedStatementHandle().toStringUtf8();
    PreparedHandle statement = prepared.getIfPresent(handle);
    if (statement != null && owns(context, statement)) {
      prepared.invalidate(handle);
    }
    listener.onCompleted();
  }

  private PreparedHandle preparedHandle(ByteString handle, CallContext context) {
    PreparedHandle statement = prepared.getIfPresent(handle.toStringUtf8());
    if (statement == null) {
      throw CallStatus.NOT_FOUND.withDescription("Unknown or closed prepared statement").toRuntimeException();
    }
    if (!owns(context, statement)) {
      throw CallStatus.UNAUTHORIZED.withDescription("This prepared statement belongs to another user").toRuntimeException();
    }
    return statement;
  }

  private boolean owns(CallContext context, PreparedHandle statement) {
    return principals.principal(context).user().equals(statement.session().principal().user());
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    PreparedHandle statement = preparedHandle(command.getPreparedStatementHandle(), context);
    if (statement.statement() instanceof Prepared.Command) {
      ClientSession session = session(context);
      Session statementSession = statement.executionSession(session);
      Prepared current = statement.current(statementSession, this::prepare);
      long rows = runCommand(session, statementSession, (Prepared.Command) current, parameterSets(statement));
      return commandResult(session, current.sql(), rows, descriptor);
    }
    return flightInfo(statement.statement().resultSchema(), descriptor, command);
  }

  /** The bound parameter rows, or one empty row for a statement without parameters. */
  private static List<List<Object>> parameterSets(PreparedHandle statement) {
    List<List<Object>> sets = statement.parameterSets();
    if (sets.isEmpty()) {
      if (!statement.statement().parameterTypes().isEmpty()) {
        throw FlightErrors.invalid("The prepared statement has parameters but none were bound");
      }
      return List.of(List.of());
    }
    return sets;
  }

  @Override
  public SchemaResult getSchemaPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return new SchemaResult(preparedHandle(command.getPreparedStatementHandle(), context).statement().resultSchema());
  }

  @Override
  public void getStreamPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, ServerStreamListener listener) {
    PreparedHandle statement;
    try {
      statement = preparedHandle(command.getPreparedStatementHandle(), context);
    } catch (RuntimeException e) {
      listener.error(e);
      return;
    }
    if (statement.statement() instanceof Prepared.Command) {
      listener.error(FlightErrors.invalid("A command's result comes from the ticket of its FlightInfo"));
      return;
    }
    List<List<Object>> parameterSets;
    Session statementSession;
    Prepared current;
    try {
      parameterSets = parameterSets(statement);
      statementSession = statement.executionSession(session(context));
      current = statement.current(statementSession, this::prepare);
    } catch (RuntimeException e) {
      listener.error(FlightErrors.toFlight(e, "prepare"));
      return;
    }
    stream(statementSession, current, parameterSets, newQueryId(), listener);
  }

  @Override
  public Runnable acceptPutPreparedStatementQuery(
      CommandPreparedStatementQuery command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        PreparedHandle statement = preparedHandle(command.getPreparedStatementHandle(), context);
        List<List<Object>> rows = ArrowParameters.read(flightStream);
        int expected = statement.statement().parameterTypes().size();
        for (List<Object> row : rows) {
          if (row.size() != expected) {
            throw FlightErrors.invalid("The statement has " + expected + " parameters but " + row.size() + " values were bound");
          }
        }
        statement.bind(rows);
        ackStream.onCompleted();
      } catch (RuntimeException e) {
        ackStream.onError(FlightErrors.toFlight(e, "bind"));
      }
    };
  }

  @Override
  public Runnable acceptPutPreparedStatementUpdate(
      CommandPreparedStatementUpdate command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        PreparedHandle statement = preparedHandle(command.getPreparedStatementHandle(), context);
        if (!(statement.statement() instanceof Prepared.Command)) {
          throw FlightErrors.invalid("This prepared statement is a query; fetch its results instead of updating");
        }
        List<List<Object>> rows = ArrowParameters.read(flightStream);
        if (!rows.isEmpty()) {
          statement.bind(rows);
        }
        ClientSession session = session(context);
        Session statementSession = statement.executionSession(session);
        Prepared current = statement.current(statementSession, this::prepare);
        sendUpdateCount(ackStream, runCommand(session, statementSession, (Prepared.Command) current, parameterSets(statement)));
      } catch (RuntimeException e) {
        ackStream.onError(FlightErrors.toFlight(e, "update"));
      }
    };
  }

  @Override
  public Runnable acceptPutStatement(
      CommandStatementUpdate command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        ClientSession session = session(context);
        Session statementSession = statementSession(session, command.getTransactionId());
        Prepared statement = prepare(statementSession, command.getQuery());
        if (!(statement instanceof Prepared.Command)) {
          throw FlightErrors.invalid("A query cannot run as an update; execute it as a query");
        }
        sendUpdateCount(ackStream, runCommand(session, statementSession, (Prepared.Command) statement, List.of(List.of())));
      } catch (RuntimeException e) {
        ackStream.onError(FlightErrors.toFlight(e, "update"));
      }
    };
  }

  // ---- bulk ingest

  @Override
  public Runnable acceptPutStatementBulkIngest(
      CommandStatementIngest command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return () -> {
      String queryId = newQueryId();
      try {
        ClientSession session = session(context);
        Session statementSession = statementSession(session, command.getTransactionId());
        long rows = ingest.ingest(statementSession, ingestRequest(command), flightStream.getRoot(), flightStream::next, queryId);
        sendUpdateCount(ackStream, rows);
      } catch (RuntimeException e) {
        ackStream.onError(FlightErrors.toFlight(e, queryId));
      }
    };
  }

  /** The write path's form of an ingest command; the protocol asks servers to refuse unspecified table options. */
  private static BulkIngest.Request ingestRequest(CommandStatementIngest command) {
    if (command.getTemporary()) {
      throw new SqeException(ErrorCode.NOT_SUPPORTED, "SQE has no temporary tables; ingest into a table of a schema");
    }
    CommandStatementIngest.TableDefinitionOptions options = command.getTableDefinitionOptions();
    BulkIngest.IfMissing ifMissing;
    switch (options.getIfNotExist()) {
      case TABLE_NOT_EXIST_OPTION_CREATE:
        ifMissing = BulkIngest.IfMissing.CREATE;
        break;
      case TABLE_NOT_EXIST_OPTION_FAIL:
        ifMissing = BulkIngest.IfMissing.FAIL;
        break;
      default:
        throw FlightErrors.invalid("Bulk ingest needs table_definition_options.if_not_exist: CREATE or FAIL");
    }
    BulkIngest.IfExists ifExists;
    switch (options.getIfExists()) {
      case TABLE_EXISTS_OPTION_FAIL:
        ifExists = BulkIngest.IfExists.FAIL;
        break;
      case TABLE_EXISTS_OPTION_APPEND:
        ifExists = BulkIngest.IfExists.APPEND;
        break;
      case TABLE_EXISTS_OPTION_REPLACE:
        ifExists = BulkIngest.IfExists.REPLACE;
        break;
      default:
        throw FlightErrors.invalid("Bulk ingest needs table_definition_options.if_exists: FAIL, APPEND or REPLACE");
    }
    return new BulkIngest.Request(
        command.hasCatalog() ? command.getCatalog() : null,
        command.hasSchema() ? command.getSchema() : null,
        command.getTable(),
        ifMissing,
        ifExists);
  }

  // ---- transactions

  @Override
  public void beginTransaction(
      ActionBeginTransactionRequest request, CallContext context, StreamListener<ActionBeginTransactionResult> listener) {
    try {
      ClientSession session = session(context);
      Transaction transaction = engine.beginTransaction(session.session());
      transactionSessions.put(transaction.id(), session);
      session.addTransaction(transaction);
      listener.onNext(
          ActionBeginTransactionResult.newBuilder().setTransactionId(ByteString.copyFromUtf8(transaction.id())).build());
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightErrors.toFlight(e, "transaction"));
    }
  }

  @Override
  public void endTransaction(ActionEndTransactionRequest request, CallContext context, StreamListener<Result> listener) {
    try {
      Transaction transaction = transaction(session(context), request.getTransactionId());
      switch (request.getAction()) {
        case END_TRANSACTION_COMMIT:
          transaction.commit();
          break;
        case END_TRANSACTION_ROLLBACK:
          transaction.rollback();
          break;
        default:
          throw FlightErrors.invalid("EndTransaction needs an action: COMMIT or ROLLBACK");
      }
      transactionSessions.invalidate(transaction.id());
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightErrors.toFlight(e, "transaction"));
    }
  }

  @Override
  public void beginSavepoint(
      ActionBeginSavepointRequest request, CallContext context, StreamListener<ActionBeginSavepointResult> listener) {
    try {
      Transaction transaction = transaction(session(context), request.getTransactionId());
      String savepoint = transaction.savepoint(request.getName());
      // The savepoint's id names its transaction too, since EndSavepoint carries only the savepoint's.
      ByteString id = ByteString.copyFromUtf8(transaction.id() + SAVEPOINT_SEPARATOR + savepoint);
      listener.onNext(ActionBeginSavepointResult.newBuilder().setSavepointId(id).build());
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightErrors.toFlight(e, "savepoint"));
    }
  }

  @Override
  public void endSavepoint(ActionEndSavepointRequest request, CallContext context, StreamListener<Result> listener) {
    try {
      String id = request.getSavepointId().toStringUtf8();
      int separator = id.indexOf(SAVEPOINT_SEPARATOR);
      if (separator < 0) {
        throw CallStatus.NOT_FOUND.withDescription("Unknown savepoint " + id).toRuntimeException();
      }
      Transaction transaction = transaction(session(context), ByteString.copyFromUtf8(id.substring(0, separator)));
      String savepoint = id.substring(separator + 1);
      switch (request.getAction()) {
        case END_SAVEPOINT_RELEASE:
          transaction.releaseSavepoint(savepoint);
          break;
        case END_SAVEPOINT_ROLLBACK:
          transaction.rollbackToSavepoint(savepoint);
          break;
        default:
          throw FlightErrors.invalid("EndSavepoint needs an action: RELEASE or ROLLBACK");
      }
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightErrors.toFlight(e, "savepoint"));
    }
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
    send(listener, () -> metadata.getDbSchemas(allocator, principals.principal(context), command));
  }

  @Override
  public void getStreamTables(CommandGetTables command, CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getTables(allocator, principals.principal(context), command));
  }

  @Override
  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getTableTypes(allocator));
  }

  @Override
  public void getStreamPrimaryKeys(CommandGetPrimaryKeys command, CallContext context, ServerStreamListener listener) {
    send(listener, () -> metadata.getPrimaryKeys(allocator, principals.principal(context), command));
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
    } catch (RuntimeException e) {
      listener.error(FlightErrors.toFlight(e, "metadata"));
    }
  }

  // ---- helpers

  private static FlightInfo flightInfo(Schema schema, FlightDescriptor descriptor, Message ticket) {
    FlightEndpoint endpoint = new FlightEndpoint(new Ticket(Any.pack(ticket).toByteArray()));
    return new FlightInfo(schema, descriptor, List.of(endpoint), -1, -1);
  }

  @Override
  protected <T extends Message> List<FlightEndpoint> determineEndpoints(T request, FlightDescriptor descriptor, Schema schema) {
    return List.of(new FlightEndpoint(new Ticket(Any.pack(request).toByteArray())));
  }

  /** A statement prepared at GetFlightInfo, waiting for its DoGet. */
  private record PendingQuery(Session session, Prepared statement) {}

  /**
   * A client's prepared statement and the parameter rows last bound to it. One prepared with a
   * Flight SQL transaction id runs in that transaction; any other runs in the transaction its
   * session has open when it runs (SQL BEGIN), if any. It is planned again when it runs over
   * another transaction, or over staged state that changed since it was planned.
   */
  private static final class PreparedHandle {
    private final Session session;
    private final Prepared statement;
    private final boolean explicitTransaction;
    private final long transactionVersion;
    private volatile List<List<Object>> parameterSets = List.of();

    PreparedHandle(Session session, Prepared statement, boolean explicitTransaction) {
      this.session = session;
      this.statement = statement;
      this.explicitTransaction = explicitTransaction;
      this.transactionVersion = session.openTransaction().map(Transaction::version).orElse(-1L);
    }

    Session executionSession(ClientSession client) {
      if (!explicitTransaction) {
        return client.session();
      }
      Transaction transaction = session.transaction();
      if (!transaction.isOpen()) {
        throw new SqeException(
            ErrorCode.FAILED_PRECONDITION,
            "Transaction " + transaction.id() + ", which this statement was prepared in, has ended; prepare it again");
      }
      return client.session().withTransaction(transaction);
    }

    /** The statement as planned for {@code execution}: as prepared, or planned again. */
    Prepared current(Session execution, BiFunction<Session, String, Prepared> prepare) {
      Transaction now = execution.openTransaction().orElse(null);
      if (session.transaction() == now && (now == null || now.version() == transactionVersion)) {
        return statement;
      }
      return prepare.apply(execution, statement.sql());
    }

    Session session() {
      return session;
    }

    Prepared statement() {
      return statement;
    }

    List<List<Object>> parameterSets() {
      return parameterSets;
    }

    void bind(List<List<Object>> rows) {
      parameterSets = List.copyOf(rows.stream().map(r -> java.util.Collections.unmodifiableList(new ArrayList<>(r))).toList());
    }
  }
}
