package io.sqe.flight;

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
