package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.Session;
import io.sqe.engine.txn.Transaction;
import io.sqe.flight.session.ClientSession;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * A client's prepared statement and the parameter rows last bound to it. One prepared with a
 * Flight SQL transaction id runs in that transaction; any other runs in the transaction its
 * session has open when it runs (SQL BEGIN), if any. It is planned again when it runs over
 * another transaction, or over staged state that changed since it was planned.
 */
final class PreparedHandle {
  private final Session session;
  private final Prepared statement;
  private final boolean explicitTransaction;
  private final long transactionVersion;
  private final StatementHandle signed;
  /** Planned from a handle this server did not keep: it runs in the session the handle carries. */
  private final boolean redeemed;
  private volatile List<List<Object>> parameterSets = List.of();

  /** @param signed what the client's handle says */
  PreparedHandle(Session session, Prepared statement, boolean explicitTransaction, StatementHandle signed) {
    this(session, statement, explicitTransaction, signed, false, session.openTransaction().map(Transaction::version).orElse(-1L));
  }

  private PreparedHandle(
      Session session, Prepared statement, boolean explicitTransaction, StatementHandle signed, boolean redeemed, long transactionVersion) {
    this.session = requireNonNull(session, "session is null");
    this.statement = requireNonNull(statement, "statement is null");
    this.explicitTransaction = explicitTransaction;
    this.signed = requireNonNull(signed, "signed is null");
    this.redeemed = redeemed;
    this.transactionVersion = transactionVersion;
  }

  /** A statement planned here from a self-contained handle another server (or this one, before) issued. */
  static PreparedHandle redeemed(Session session, Prepared statement, StatementHandle signed) {
    PreparedHandle handle = new PreparedHandle(session, statement, false, signed, true, -1L);
    handle.bind(signed.parameterSets());
    return handle;
  }

  /** This handle for one call, with the parameter rows and signed form the client's handle carries. */
  PreparedHandle presented(StatementHandle presented) {
    PreparedHandle copy = new PreparedHandle(session, statement, explicitTransaction, presented, redeemed, transactionVersion);
    copy.bind(presented.parameterSets().isEmpty() ? parameterSets : presented.parameterSets());
    return copy;
  }

  /** What the client's handle says; its parameter rows may be older than those bound since. */
  StatementHandle signed() {
    return signed;
  }

  Session executionSession(ClientSession client) {
    if (redeemed) {
      return session;
    }
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
