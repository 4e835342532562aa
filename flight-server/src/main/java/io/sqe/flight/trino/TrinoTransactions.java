package io.sqe.flight.trino;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.Principal;
import io.sqe.engine.txn.Transaction;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactions Trino clients hold by id ({@code X-Trino-Transaction-Id}): those a {@code
 * START TRANSACTION} began through this endpoint, each with the user who began it. A transaction
 * nobody uses for the idle timeout is rolled back, as a Flight session's transactions end with
 * their session.
 */
final class TrinoTransactions {
  private static final Logger LOG = LoggerFactory.getLogger(TrinoTransactions.class);

  private record Held(Transaction transaction, String user) {}

  private final Cache<String, Held> transactions;

  TrinoTransactions(Duration idleTimeout) {
    this.transactions = Caffeine.newBuilder()
        .expireAfterAccess(requireNonNull(idleTimeout, "idleTimeout is null"))
        .maximumSize(100_000)
        .scheduler(Scheduler.systemScheduler())
        .<String, Held>removalListener((id, held, cause) -> {
          if (held != null && cause.wasEvicted() && held.transaction().isOpen()) {
            LOG.info("Rolling back transaction {} of {}: unused for the idle timeout", id, held.user());
            rollback(held.transaction());
          }
        })
        .build();
  }

  /** Keeps a transaction a statement of {@code owner} began. */
  void add(Transaction transaction, Principal owner) {
    transactions.put(transaction.id(), new Held(transaction, owner.user()));
  }

  /**
   * The open transaction with that id, for {@code caller}: NOT_FOUND when there is none (it ended,
   * expired or never existed), PERMISSION_DENIED when another user's.
   */
  Transaction find(String id, Principal caller) {
    Held held = transactions.getIfPresent(id);
    if (held == null || !held.transaction().isOpen()) {
      transactions.invalidate(id);
      throw new SqeException(ErrorCode.NOT_FOUND,
          "Unknown transaction ID: " + id + ". Possibly expired? Commands ignored until end of transaction block");
    }
    if (!held.user().equals(caller.user())) {
      throw new SqeException(ErrorCode.PERMISSION_DENIED, "Transaction " + id + " belongs to another user");
    }
    return held.transaction();
  }

  /** Forgets a transaction that has ended. */
  void ended(Transaction transaction) {
    transactions.invalidate(transaction.id());
  }

  /** Rolls back every transaction still open: the endpoint is closing. */
  void close() {
    for (Held held : transactions.asMap().values()) {
      if (held.transaction().isOpen()) {
        rollback(held.transaction());
      }
    }
    transactions.invalidateAll();
  }

  private static void rollback(Transaction transaction) {
    try {
      transaction.rollback();
    } catch (RuntimeException e) {
      LOG.warn("Cannot roll back transaction {}", transaction.id(), e);
    }
  }
}
