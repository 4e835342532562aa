package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.protobuf.ByteString;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.audit.StatementFacts;
import io.sqe.engine.session.Session;
import io.sqe.engine.txn.Transaction;
import io.sqe.flight.audit.AuditLog;
import io.sqe.flight.audit.StatementAudit;
import io.sqe.flight.session.ClientSession;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginSavepointRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginSavepointResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginTransactionResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndSavepointRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndTransactionRequest;

/**
 * Flight SQL transactions and their savepoints, and the session a statement runs in: a
 * transaction belongs to the session that began it and ends with it.
 */
final class FlightTransactions {
  private static final char SAVEPOINT_SEPARATOR = '/';

  private final QueryEngine engine;
  private final CallSessions calls;
  private final AuditLog audit;
  /** The session of every Flight SQL transaction, to tell a transaction of another session from an unknown one. */
  private final Cache<String, ClientSession> transactionSessions =
      Caffeine.newBuilder().expireAfterAccess(Duration.ofDays(1)).maximumSize(100_000).build();

  private final String serverId;

  /** @param serverId this server's id ({@link IssuingServer}), which an unknown transaction's error names */
  FlightTransactions(QueryEngine engine, CallSessions calls, AuditLog audit, String serverId) {
    this.engine = requireNonNull(engine, "engine is null");
    this.calls = requireNonNull(calls, "calls is null");
    this.audit = requireNonNull(audit, "audit is null");
    this.serverId = requireNonNull(serverId, "serverId is null");
  }

  /**
   * The session a statement runs in: with the Flight SQL transaction it names, if any; else the
   * client's session, whose SQL transaction (if one is open) it joins.
   */
  Session statementSession(ClientSession session, ByteString transactionId) {
    if (transactionId.isEmpty()) {
      return session.session();
    }
    return session.session().withTransaction(transaction(session, transactionId));
  }

  /**
   * This session's open transaction with that id: NOT_FOUND when there is none (naming this server,
   * since the client may have begun it on another), PERMISSION_DENIED when another session's.
   */
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
        .withDescription("Unknown transaction " + id + " on this SQE server (" + serverId + "): it has committed, rolled back or "
            + "ended with its session, or another server began it; a transaction lives only on the server that began it, so "
            + "route a client's calls to one server while it has one open (docs/deploy.md)")
        .toRuntimeException();
  }

  void begin(CallContext context, StreamListener<ActionBeginTransactionResult> listener) {
    try {
      ClientSession session = calls.session(context);
      Transaction transaction = engine.beginTransaction(session.session());
      transactionSessions.put(transaction.id(), session);
      session.addTransaction(transaction);
      listener.onNext(
          ActionBeginTransactionResult.newBuilder().setTransactionId(ByteString.copyFromUtf8(transaction.id())).build());
      listener.onCompleted();
    } catch (RuntimeException | Error e) {
      listener.onError(FlightErrors.toFlight(e, "transaction"));
    }
  }

  void end(ActionEndTransactionRequest request, CallContext context, StreamListener<Result> listener) {
    try {
      ClientSession session = calls.session(context);
      Transaction transaction = transaction(session, request.getTransactionId());
      switch (request.getAction()) {
        case END_TRANSACTION_COMMIT:
          // Recorded as SQL's COMMIT is: the audit line, the statement and commit (or conflict) metrics.
          transactionAudit(context, session.session(), "COMMIT").recordUpdate(null, () -> {
            transaction.commit();
            return 0;
          });
          break;
        case END_TRANSACTION_ROLLBACK:
          transactionAudit(context, session.session(), "ROLLBACK").recordUpdate(null, () -> {
            transaction.rollback();
            return 0;
          });
          break;
        default:
          throw FlightErrors.invalid("EndTransaction needs an action: COMMIT or ROLLBACK");
      }
      transactionSessions.invalidate(transaction.id());
      listener.onCompleted();
    } catch (RuntimeException | Error e) {
      listener.onError(FlightErrors.toFlight(e, "transaction"));
    }
  }

  void beginSavepoint(ActionBeginSavepointRequest request, CallContext context, StreamListener<ActionBeginSavepointResult> listener) {
    try {
      Transaction transaction = transaction(calls.session(context), request.getTransactionId());
      String savepoint = transaction.savepoint(request.getName());
      // The savepoint's id names its transaction too, since EndSavepoint carries only the savepoint's.
      ByteString id = ByteString.copyFromUtf8(transaction.id() + SAVEPOINT_SEPARATOR + savepoint);
      listener.onNext(ActionBeginSavepointResult.newBuilder().setSavepointId(id).build());
      listener.onCompleted();
    } catch (RuntimeException | Error e) {
      listener.onError(FlightErrors.toFlight(e, "savepoint"));
    }
  }

  void endSavepoint(ActionEndSavepointRequest request, CallContext context, StreamListener<Result> listener) {
    try {
      String id = request.getSavepointId().toStringUtf8();
      int separator = id.indexOf(SAVEPOINT_SEPARATOR);
      if (separator < 0) {
        throw CallStatus.NOT_FOUND.withDescription("Unknown savepoint " + id).toRuntimeException();
      }
      Transaction transaction = transaction(calls.session(context), ByteString.copyFromUtf8(id.substring(0, separator)));
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
    } catch (RuntimeException | Error e) {
      listener.onError(FlightErrors.toFlight(e, "savepoint"));
    }
  }

  /** The audit record of a Flight SQL EndTransaction: kind COMMIT or ROLLBACK, as their SQL statements. */
  private StatementAudit transactionAudit(CallContext context, Session session, String kind) {
    if (!audit.recordsStatements()) {
      return StatementAudit.NONE;
    }
    String client = CallSessions.clientAddress(context);
    return audit.statement(
        session.principal().user(), client, new StatementFacts(kind, List.of(), List.of()),
        audit.tracing().clientContext(name -> CallSessions.header(context, name)));
  }
}
