package io.sqe.flight.session;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.session.Session;
import io.sqe.engine.txn.Transaction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's session: the settings its statements run with, changed by SetSessionOptions and
 * session statements, and its open transactions: the one SQL BEGIN started, which statements
 * without a transaction id join, and those begun through Flight SQL's BeginTransaction, which
 * statements name by id. Closing the session rolls them all back.
 */
public final class ClientSession {
  private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);

  private final String id;
  private volatile Session session;
  private final Map<String, Transaction> transactions = new ConcurrentHashMap<>();
  private volatile boolean closed;
  private final Instant created = Instant.now();
  private volatile Instant lastUsed = created;

  ClientSession(String id, Session session) {
    this.id = requireNonNull(id, "id is null");
    this.session = requireNonNull(session, "session is null");
  }

  public String id() {
    return id;
  }

  public Session session() {
    return session;
  }

  /** When the session began. */
  public Instant created() {
    return created;
  }

  /** When a call last used the session. */
  public Instant lastUsed() {
    return lastUsed;
  }

  void used() {
    lastUsed = Instant.now();
  }

  public synchronized void update(UnaryOperator<Session> change) {
    session = requireNonNull(change.apply(session), "session is null");
  }

  /** Keeps a transaction begun through Flight SQL until it ends or the session closes. */
  public void addTransaction(Transaction transaction) {
    transactions.put(transaction.id(), transaction);
    if (closed) {
      close();
    }
  }

  /** This session's open Flight SQL transaction with that id. */
  public Optional<Transaction> transaction(String transactionId) {
    Transaction transaction = transactions.get(transactionId);
    if (transaction != null && !transaction.isOpen()) {
      transactions.remove(transactionId);
      return Optional.empty();
    }
    return Optional.ofNullable(transaction);
  }

  /** Rolls back every transaction still open: a transaction dies with its session. */
  void close() {
    closed = true;
    List<Transaction> open = new ArrayList<>(transactions.values());
    transactions.clear();
    session.openTransaction().ifPresent(open::add);
    for (Transaction transaction : open) {
      try {
        transaction.rollback();
      } catch (RuntimeException e) {
        LOG.warn("Cannot roll back transaction {} of closed session {}", transaction.id(), id, e);
      }
    }
  }
}
