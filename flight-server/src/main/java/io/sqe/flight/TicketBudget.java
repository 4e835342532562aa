package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the tickets of each user keep (statements and their parameters, by estimated bytes), within
 * a limit per user and one in total: a client that asks for tickets and never reads them must not
 * fill the heap. A ticket over the limits makes room by evicting older tickets, those already read
 * first (a client that read its ticket rarely reads it again), then the oldest unread: a user's own
 * for the per-user limit, anyone's for the total. A ticket bigger than a limit is refused. The
 * server keeps a second budget of its own for prepared statement handles, which are never "read".
 */
final class TicketBudget {
  private final long perUser;
  private final long total;
  /** What is counted, for messages: "tickets", "prepared statements". */
  private final String kept;
  /** Every ticket counted, oldest first. */
  private final LinkedHashMap<String, Entry> tickets = new LinkedHashMap<>();
  private final Map<String, Long> userBytes = new HashMap<>();
  private long totalBytes;

  private static final class Entry {
    private final String user;
    private final long bytes;
    private boolean read;

    Entry(String user, long bytes) {
      this.user = user;
      this.bytes = bytes;
    }
  }

  /**
   * @param perUser the most bytes one user's tickets may keep
   * @param total the most bytes all tickets may keep
   * @param kept what is counted, as messages name it ("tickets")
   */
  TicketBudget(long perUser, long total, String kept) {
    if (perUser <= 0 || total <= 0) {
      throw new IllegalArgumentException("Ticket limits must be positive: " + perUser + ", " + total);
    }
    this.perUser = perUser;
    this.total = total;
    this.kept = requireNonNull(kept, "kept is null");
  }

  /**
   * Counts a new ticket of {@code user} keeping {@code bytes}.
   *
   * @return the tickets to drop to make room for it, no longer counted
   * @throws SqeException RESOURCE_EXHAUSTED when the ticket alone is over a limit
   */
  synchronized List<String> admit(String queryId, String user, long bytes) {
    requireNonNull(queryId, "queryId is null");
    requireNonNull(user, "user is null");
    refuseOverLimit(bytes);
    List<String> evicted = new ArrayList<>();
    // The user's own tickets make room under the user's limit, then anyone's under the total.
    evict(user, userBytes.getOrDefault(user, 0L) + bytes - perUser, evicted);
    evict(null, totalBytes + bytes - total, evicted);
    tickets.put(queryId, new Entry(user, bytes));
    userBytes.merge(user, bytes, Long::sum);
    totalBytes += bytes;
    return evicted;
  }

  /** Evicts tickets of {@code user} (null: of anyone) until {@code excess} bytes are free: those read first, oldest first. */
  private void evict(String user, long excess, List<String> evicted) {
    long freed = 0;
    for (boolean readOnly : new boolean[] {true, false}) {
      Iterator<Map.Entry<String, Entry>> candidates = tickets.entrySet().iterator();
      while (freed < excess && candidates.hasNext()) {
        Map.Entry<String, Entry> candidate = candidates.next();
        Entry entry = candidate.getValue();
        if ((user == null || entry.user.equals(user)) && (entry.read || !readOnly)) {
          candidates.remove();
          uncount(entry);
          freed += entry.bytes;
          evicted.add(candidate.getKey());
        }
      }
    }
  }

  /**
   * Counts {@code bytes} for a ticket counted already, as the newest (its parameters changed).
   *
   * @return the tickets to drop to make room for it, no longer counted
   * @throws SqeException RESOURCE_EXHAUSTED when the ticket alone is over a limit; it is then
   *     counted as it was
   */
  synchronized List<String> recount(String queryId, String user, long bytes) {
    refuseOverLimit(bytes);
    release(queryId);
    return admit(queryId, user, bytes);
  }

  private void refuseOverLimit(long bytes) {
    long limit = Math.min(perUser, total);
    if (bytes > limit) {
      throw new SqeException(
          ErrorCode.RESOURCE_EXHAUSTED,
          "The statement is too large to keep for " + kept + ": about " + megabytes(bytes) + " MB, over the server's limit of "
              + megabytes(limit) + " MB for a user's " + kept + " (query.tickets.max-bytes-per-user, query.tickets.max-bytes)");
    }
  }

  /** The ticket has been read (a DoGet began). */
  synchronized void read(String queryId) {
    Entry entry = tickets.get(queryId);
    if (entry != null) {
      entry.read = true;
    }
  }

  /** The ticket is gone (expired, evicted, closed); nothing if it was not counted. */
  synchronized void release(String queryId) {
    Entry entry = tickets.remove(queryId);
    if (entry != null) {
      uncount(entry);
    }
  }

  private void uncount(Entry entry) {
    totalBytes -= entry.bytes;
    userBytes.computeIfPresent(entry.user, (user, bytes) -> bytes == entry.bytes ? null : bytes - entry.bytes);
  }

  /** The bytes all counted tickets keep. */
  synchronized long totalBytes() {
    return totalBytes;
  }

  private static long megabytes(long bytes) {
    return (bytes + (1 << 20) - 1) >> 20;
  }
}
