package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.sqe.engine.Prepared;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.session.Session;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;

/**
 * The tickets clients hold, by query id. A ticket can be read until it expires, each read running
 * the statement again; renewing it (RenewFlightEndpoint) restarts its lifetime. When a ticket
 * goes, the engine forgets its query and an execution started for it and never fetched closes.
 * What tickets keep is bounded by a {@link TicketBudget}: a new ticket may evict older ones.
 */
final class QueryTickets implements AutoCloseable {
  private final Duration lifetime;
  private final TicketBudget budget;
  private final Consumer<String> evicted;
  private final Cache<String, PendingQuery> tickets;

  /** @param evicted hears of each ticket evicted to make room for a newer one */
  QueryTickets(QueryTracker queries, Duration lifetime, TicketBudget budget, Consumer<String> evicted) {
    requireNonNull(queries, "queries is null");
    this.lifetime = requireNonNull(lifetime, "lifetime is null");
    this.budget = requireNonNull(budget, "budget is null");
    this.evicted = requireNonNull(evicted, "evicted is null");
    this.tickets =
        Caffeine.newBuilder()
            .expireAfterWrite(lifetime)
            .maximumSize(100_000)
            // Hits: a ticket read (DoGet) or renewed while it is kept; misses: one unknown or expired.
            .recordStats()
            // On time, not at the next access: an unfetched execution holds memory.
            .scheduler(Scheduler.systemScheduler())
            // At once on the thread that removes, so that close() leaves nothing open.
            .executor(Runnable::run)
            .<String, PendingQuery>removalListener((queryId, pending, cause) -> {
              if (cause == RemovalCause.REPLACED || queryId == null) {
                return;
              }
              budget.release(queryId);
              queries.forget(queryId);
              if (pending != null) {
                pending.discard();
              }
            })
            .build();
  }

  /**
   * Keeps a statement for the DoGets of its ticket, evicting older tickets if it needs their room.
   *
   * @param alsoKept bytes the caller keeps for as long as the ticket
   * @throws io.sqe.engine.SqeException RESOURCE_EXHAUSTED when the statement alone is over the limits
   */
  PendingQuery register(
      String queryId, Session session, Prepared statement, List<List<Object>> parameterSets, boolean commandResult, long alsoKept) {
    PendingQuery pending = new PendingQuery(session, statement, parameterSets, commandResult, Instant.now().plus(lifetime), alsoKept);
    List<String> room = budget.admit(queryId, session.principal().user(), pending.estimatedBytes());
    tickets.put(queryId, pending);
    for (String old : room) {
      tickets.invalidate(old);
      evicted.accept(old);
    }
    return pending;
  }

  /** A DoGet begins reading the ticket: once read, it is among the first to make room for others. */
  void read(String queryId) {
    budget.read(queryId);
  }

  Optional<PendingQuery> find(String queryId) {
    return Optional.ofNullable(tickets.getIfPresent(queryId));
  }

  /** Restarts a ticket's lifetime. */
  void renew(String queryId, PendingQuery pending) {
    pending.expiresAt(Instant.now().plus(lifetime));
    tickets.put(queryId, pending);
  }

  /** The ticket that carries a statement handle ({@link StatementHandles}). */
  static Ticket ticket(byte[] handle) {
    TicketStatementQuery ticket = TicketStatementQuery.newBuilder().setStatementHandle(ByteString.copyFrom(handle)).build();
    return new Ticket(Any.pack(ticket).toByteArray());
  }

  /** The statement handle a ticket of ours carries, or empty for any other ticket. */
  static Optional<byte[]> handle(Ticket ticket) {
    try {
      Any any = Any.parseFrom(ticket.getBytes());
      if (!any.is(TicketStatementQuery.class)) {
        return Optional.empty();
      }
      return Optional.of(any.unpack(TicketStatementQuery.class).getStatementHandle().toByteArray());
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }

  /** The tickets by query id, for the server's cache metrics. */
  Cache<String, PendingQuery> cache() {
    return tickets;
  }

  @Override
  public void close() {
    tickets.invalidateAll();
    tickets.cleanUp();
  }
}
