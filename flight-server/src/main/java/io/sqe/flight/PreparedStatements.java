package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.Prepared;
import io.sqe.engine.session.Session;
import io.sqe.flight.audit.StatementAudit;
import io.sqe.flight.metadata.ServerSqlInfo;
import io.sqe.flight.session.ClientSession;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutPreparedStatementResult;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;

/**
 * Prepared statement handles: creating and closing them, binding parameter rows to them within
 * their byte budget, and running them through the statement lifecycle.
 */
final class PreparedStatements {
  private final CallSessions calls;
  private final FlightTransactions transactions;
  private final StatementCalls statements;
  private final StatementHandles signed;
  /** What prepared statement handles keep, by handle. */
  private final TicketBudget budget;
  private final Cache<String, PreparedHandle> handles;

  PreparedStatements(
      CallSessions calls, FlightTransactions transactions, StatementCalls statements, StatementHandles signed, TicketBudget budget) {
    this.calls = requireNonNull(calls, "calls is null");
    this.transactions = requireNonNull(transactions, "transactions is null");
    this.statements = requireNonNull(statements, "statements is null");
    this.signed = requireNonNull(signed, "signed is null");
    this.budget = requireNonNull(budget, "budget is null");
    this.handles =
        Caffeine.newBuilder()
            .expireAfterAccess(ServerSqlInfo.PREPARED_STATEMENT_IDLE_TIMEOUT)
            .maximumSize(100_000)
            .recordStats()
            // An idle handle's bytes are free on time, not at the next access; at once on the
            // thread that removes, so that a closed handle's bytes are free when its close answers.
            .scheduler(Scheduler.systemScheduler())
            .executor(Runnable::run)
            .<String, PreparedHandle>removalListener((handle, statement, cause) -> {
              if (cause != RemovalCause.REPLACED && handle != null) {
                budget.release(handle);
              }
            })
            .build();
  }

  /** The handles by id, for the server's cache metrics: looked up by each execution and by their close. */
  Cache<String, PreparedHandle> cache() {
    return handles;
  }

  void create(ActionCreatePreparedStatementRequest request, CallContext context, StreamListener<Result> listener) {
    try {
      ClientSession session = calls.session(context);
      Session statementSession = transactions.statementSession(session, request.getTransactionId());
      String handle = statements.newQueryId();
      Prepared statement;
      try {
        statement = statements.prepareHandle(context, statementSession, request.getQuery(), handle);
      } catch (RuntimeException | Error e) {
        // A statement that cannot be prepared never runs: this is its only record.
        throw StatementCalls.failed(statements.audit(context, statementSession, request.getQuery()), handle, e);
      }
      StatementHandle issued = signed.prepared(handle, statementSession, request.getQuery(), statement, !request.getTransactionId().isEmpty());
      ByteString bytes = signed.encode(issued);
      List<String> room = budget.admit(handle, statementSession.principal().user(), PendingQuery.estimate(statement, List.of()));
      handles.put(handle, new PreparedHandle(statementSession, statement, !request.getTransactionId().isEmpty(), issued));
      handles.invalidateAll(room);
      ActionCreatePreparedStatementResult result =
          ActionCreatePreparedStatementResult.newBuilder()
              .setPreparedStatementHandle(bytes)
              // An empty dataset schema tells the JDBC driver to run a command through DoPut; one
              // that reports what it did runs as a query, whose rows are the report.
              .setDatasetSchema(
                  statement instanceof Prepared.Command && !((Prepared.Command) statement).reports()
                      ? ByteString.EMPTY
                      : ByteString.copyFrom(statement.resultSchema().serializeAsMessage()))
              .setParameterSchema(ByteString.copyFrom(parameterSchema(statement).serializeAsMessage()))
              .build();
      listener.onNext(new Result(Any.pack(result).toByteArray()));
      listener.onCompleted();
    } catch (RuntimeException | Error e) {
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

  /**
   * Closes a handle of the caller's that this server keeps; closing an unknown one is no error, as
   * it may have expired or be kept by another server, where it expires when idle.
   */
  void close(ActionClosePreparedStatementRequest request, CallContext context, StreamListener<Result> listener) {
    byte[] bytes = request.getPreparedStatementHandle().toByteArray();
    try {
      String handle = StatementHandles.localId(
          signed.read(bytes, StatementHandle.Kind.PREPARED, "prepared statement", calls.principal(context)), bytes);
      PreparedHandle statement = handles.getIfPresent(handle);
      if (statement != null && owns(context, statement)) {
        handles.invalidate(handle);
      }
    } catch (RuntimeException e) {
      // Expired, another user's or altered: there is nothing of the caller's to close.
    }
    listener.onCompleted();
  }

  /**
   * The caller's prepared statement: the one this server keeps, with the parameter rows the
   * client's handle carries if any, else planned here from the client's self-contained handle.
   * NOT_FOUND when unknown, closed or evicted, PERMISSION_DENIED when another user's.
   */
  PreparedHandle handle(ByteString handle, CallContext context) {
    byte[] bytes = handle.toByteArray();
    Optional<StatementHandle> presented =
        signed.read(bytes, StatementHandle.Kind.PREPARED, "prepared statement", calls.principal(context));
    String id = StatementHandles.localId(presented, bytes);
    PreparedHandle statement = handles.getIfPresent(id);
    if (statement != null) {
      if (!owns(context, statement)) {
        throw CallStatus.UNAUTHORIZED.withDescription("This prepared statement belongs to another user").toRuntimeException();
      }
      return presented.map(statement::presented).orElse(statement);
    }
    if (presented.isPresent() && presented.get().selfContained()) {
      StatementHandle carried = presented.get();
      Session session = StatementHandles.session(carried, calls.session(context));
      return PreparedHandle.redeemed(session, statements.prepare(session, carried.sql(), statements.newQueryId()), carried);
    }
    if (presented.isPresent() && presented.get().scope() == StatementHandle.Scope.TRANSACTION) {
      throw signed.notHere(presented.get(), "prepared statement");
    }
    throw signed.server().unknown(
        presented.map(h -> h.issuer() + "." + h.localId()).orElse(id),
        "prepared statement",
        "Unknown, closed or evicted prepared statement; prepare it again (a user's newest prepared statements evict their "
            + "oldest past query.tickets.max-bytes-per-user, anyone's past query.tickets.max-bytes, and idle ones close after "
            + ServerSqlInfo.PREPARED_STATEMENT_IDLE_TIMEOUT.toHours() + " hours)");
  }

  /** Binds parameter rows to a handle, counting what it keeps with them (it may evict the user's older handles). */
  private void bind(PreparedHandle statement, List<List<Object>> rows) {
    String id = statement.signed().localId();
    PreparedHandle kept = handles.getIfPresent(id);
    if (kept != null) {
      List<String> room = budget.recount(id, kept.session().principal().user(), PendingQuery.estimate(kept.statement(), rows));
      kept.bind(rows);
      handles.invalidateAll(room);
    }
    statement.bind(rows);
  }

  private boolean owns(CallContext context, PreparedHandle statement) {
    return calls.principal(context).user().equals(statement.session().principal().user());
  }

  /**
   * Runs a prepared command, or describes a prepared query with the parameters bound now: its
   * ticket runs it with those, whatever is bound later.
   */
  FlightInfo getFlightInfo(CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    PreparedHandle statement = handle(command.getPreparedStatementHandle(), context);
    return statements.describe(call(statement, calls.session(context), context), descriptor);
  }

  /** The call of a prepared statement, with the parameter rows bound to it now. */
  StatementCalls.Call call(PreparedHandle handle, ClientSession session, CallContext context) {
    Session statementSession = handle.executionSession(session);
    String sql = handle.statement().sql();
    StatementAudit record = statements.audit(context, statementSession, sql).withParameters(handle.parameterSets());
    return new StatementCalls.Call(
        session,
        statementSession,
        sql,
        record,
        queryId -> handle.current(statementSession, (s, text) -> statements.prepare(s, text, queryId)),
        () -> parameterSets(handle));
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

  SchemaResult getSchema(CommandPreparedStatementQuery command, CallContext context) {
    return new SchemaResult(handle(command.getPreparedStatementHandle(), context).statement().resultSchema());
  }

  /** Runs a prepared query with the parameter rows bound now. */
  void getStream(CommandPreparedStatementQuery command, CallContext context, ServerStreamListener listener) {
    PreparedHandle statement;
    try {
      statement = handle(command.getPreparedStatementHandle(), context);
    } catch (RuntimeException | Error e) {
      listener.error(FlightErrors.toFlight(e, "prepare"));
      return;
    }
    if (statement.statement() instanceof Prepared.Command) {
      listener.error(FlightErrors.invalid("A command's result comes from the ticket of its FlightInfo"));
      return;
    }
    String queryId = statements.newQueryId();
    StatementCalls.Call call = null;
    List<List<Object>> parameterSets;
    Prepared current;
    try {
      call = call(statement, calls.session(context), context);
      parameterSets = call.parameterSets().get();
      current = call.plan().apply(queryId);
    } catch (RuntimeException | Error e) {
      listener.error(StatementCalls.failed(call == null ? StatementAudit.NONE : call.record(), queryId, e));
      return;
    }
    statements.stream(call.session(), current, parameterSets, queryId, null, listener, call.record());
  }

  /** Binds the parameter rows a client sends to its prepared statement. */
  Runnable acceptPutQuery(
      CommandPreparedStatementQuery command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        PreparedHandle statement = handle(command.getPreparedStatementHandle(), context);
        List<List<Object>> rows = ArrowParameters.read(flightStream);
        int expected = statement.statement().parameterTypes().size();
        for (List<Object> row : rows) {
          if (row.size() != expected) {
            throw FlightErrors.invalid("The statement has " + expected + " parameters but " + row.size() + " values were bound");
          }
        }
        bind(statement, rows);
        // The handle with the rows bound, which the client sends from now on: any server can run it.
        ByteString updated = signed.withParameters(statement.signed(), rows);
        statements.sendPutMetadata(ackStream, DoPutPreparedStatementResult.newBuilder().setPreparedStatementHandle(updated).build());
      } catch (RuntimeException | Error e) {
        ackStream.onError(FlightErrors.toFlight(e, "bind"));
      }
    };
  }

  /** Runs a prepared command with the parameter rows the client sends, or else those bound before. */
  Runnable acceptPutUpdate(
      CommandPreparedStatementUpdate command, CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        PreparedHandle statement = handle(command.getPreparedStatementHandle(), context);
        if (!(statement.statement() instanceof Prepared.Command)) {
          throw FlightErrors.invalid("This prepared statement is a query; fetch its results instead of updating");
        }
        List<List<Object>> rows = ArrowParameters.read(flightStream);
        if (!rows.isEmpty()) {
          bind(statement, rows);
        }
        long updated = statements.update(call(statement, calls.session(context), context));
        statements.sendUpdateCount(ackStream, updated);
      } catch (RuntimeException | Error e) {
        ackStream.onError(FlightErrors.toFlight(e, "update"));
      }
    };
  }
}
