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
import java.util.UUID;
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
 */
public final class SqeFlightSqlProducer extends BasicFlightSqlProducer {
  private static final Duration TICKET_LIFETIME = Duration.ofMinutes(30);
  private static final Duration PREPARED_IDLE_LIFETIME = Duration.ofHours(2);

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
    Prepared statement = prepare(session.session(), command.getQuery());
    if (statement instanceof Prepared.Command) {
      // ADBC and dbt send every statement as a query: it runs here, once, and DoGet returns its count.
      long rows = runCommand(session, (Prepared.Command) statement, List.of(List.of()));
      return commandResult(session, statement.sql(), rows, descriptor);
    }
    String queryId = newQueryId();
    tickets.put(queryId, new PendingQuery(session.session(), statement));
    TicketStatementQuery ticket =
        TicketStatementQuery.newBuilder().setStatementHandle(ByteString.copyFromUtf8(queryId)).build();
    return flightInfo(statement.resultSchema(), descriptor, ticket);
  }

  /**
   * Runs a command once per parameter set and applies what it does to the session.
   *
   * @return the rows it changed, summed over the parameter sets
   */
  private long runCommand(ClientSession session, Prepared.Command command, List<List<Object>> parameterSets) {
    long rows = 0;
    for (List<Object> parameters : parameterSets) {
      String queryId = newQueryId();
      try {
        CommandResult result = engine.run(session.session(), command, parameters, queryId);
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
    return new SchemaResult(prepare(session(context).session(), command.getQuery()).resultSchema());
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
      Prepared statement = prepare(session.session(), request.getQuery());
      String handle = newQueryId();
      prepared.put(handle, new PreparedHandle(session.session(), statement));
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
      long rows = runCommand(session, (Prepared.Command) statement.statement(), parameterSets(statement));
      return commandResult(session, statement.statement().sql(), rows, descriptor);
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
    try {
      parameterSets = parameterSets(statement);
    } catch (RuntimeException e) {
      listener.error(e);
      return;
    }
    stream(statement.session(), statement.statement(), parameterSets, newQueryId(), listener);
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
        sendUpdateCount(ackStream, runCommand(session(context), (Prepared.Command) statement.statement(), parameterSets(statement)));
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
        Prepared statement = prepare(session.session(), command.getQuery());
        if (!(statement instanceof Prepared.Command)) {
          throw FlightErrors.invalid("A query cannot run as an update; execute it as a query");
        }
        sendUpdateCount(ackStream, runCommand(session, (Prepared.Command) statement, List.of(List.of())));
      } catch (RuntimeException e) {
        ackStream.onError(FlightErrors.toFlight(e, "update"));
      }
    };
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

  /** A client's prepared statement and the parameter rows last bound to it. */
  private static final class PreparedHandle {
    private final Session session;
    private final Prepared statement;
    private volatile List<List<Object>> parameterSets = List.of();

    PreparedHandle(Session session, Prepared statement) {
      this.session = session;
      this.statement = statement;
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
