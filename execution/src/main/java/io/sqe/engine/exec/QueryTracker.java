package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.Principal;
import java.time.Duration;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The statements of one engine by query id: what cancelling, statement timeouts and the list of
 * queries act on. A statement whose client holds its id (a ticket) stays until {@link #forget};
 * one run without a handed-out id is tracked while it runs. The latest statements to end are kept
 * a while longer, as the recent history ({@code system.runtime.queries}).
 */
public final class QueryTracker implements AutoCloseable {
  /** How many ended statements the history keeps unless told otherwise. */
  public static final int DEFAULT_HISTORY = 1_000;

  private final ConcurrentMap<String, TrackedQuery> queries = new ConcurrentHashMap<>();
  private final int historySize;
  private final Admission admission;
  /** Ended statements by id, oldest first; a statement that runs again moves to the end. */
  private final LinkedHashMap<String, TrackedQuery> history = new LinkedHashMap<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "sqe-statement-timeouts");
            thread.setDaemon(true);
            return thread;
          });

  public QueryTracker() {
    this(DEFAULT_HISTORY, Admission.UNLIMITED);
  }

  /**
   * @param historySize how many ended statements to keep listed; 0 keeps none
   * @param admission how many statements may run at once; a run waits for its place
   */
  public QueryTracker(int historySize, Admission admission) {
    if (historySize < 0) {
      throw new IllegalArgumentException("historySize must not be negative: " + historySize);
    }
    this.historySize = historySize;
    this.admission = requireNonNull(admission, "admission is null");
  }

  /** The limits on statements that run at once. */
  public Admission admission() {
    return admission;
  }

  /** Tracks a statement whose id its client holds, until {@link #forget}. */
  public TrackedQuery track(String queryId, Principal principal, String sql) {
    return queries.computeIfAbsent(queryId, id -> new TrackedQuery(id, principal, sql, true, this));
  }

  public Optional<TrackedQuery> find(String queryId) {
    return Optional.ofNullable(queries.get(requireNonNull(queryId, "queryId is null")));
  }

  /**
   * The query with that id, for {@code caller} to see or cancel: NOT_FOUND when there is none,
   * PERMISSION_DENIED when it is another user's and the caller is no admin.
   */
  public TrackedQuery controllable(String queryId, Principal caller) {
    TrackedQuery query = find(queryId).orElseThrow(() -> new SqeException(
        ErrorCode.NOT_FOUND, "Unknown query " + queryId + ": it never existed, or it ended and its ticket expired"));
    if (!query.isControllableBy(caller)) {
      throw new SqeException(
          ErrorCode.PERMISSION_DENIED, "Query " + queryId + " belongs to another user; only that user or an admin may cancel it");
    }
    return query;
  }

  /**
   * The tracked statements and those of the history, each once, oldest first: what {@code
   * system.runtime.queries} lists.
   */
  public List<TrackedQuery> allWithHistory() {
    Map<String, TrackedQuery> all = new LinkedHashMap<>();
    synchronized (history) {
      all.putAll(history);
    }
    for (TrackedQuery query : queries.values()) {
      all.put(query.id(), query);
    }
    return all.values().stream().sorted(Comparator.comparing(TrackedQuery::created)).toList();
  }

  /** A statement that is tracked, or one in the recent history. */
  public Optional<TrackedQuery> findWithHistory(String queryId) {
    Optional<TrackedQuery> tracked = find(queryId);
    if (tracked.isPresent()) {
      return tracked;
    }
    synchronized (history) {
      return Optional.ofNullable(history.get(queryId));
    }
  }

  /** Every tracked query, oldest first. */
  public List<TrackedQuery> all() {
    return queries.values().stream().sorted(Comparator.comparing(TrackedQuery::created)).toList();
  }

  /** Stops tracking a query whose id its client can no longer use; its runs go on until they end. */
  public void forget(String queryId) {
    queries.remove(queryId);
  }

  /**
   * Starts a run of the statement with that id, tracking it while it runs if nobody holds its
   * id. Fails if the query has been cancelled.
   *
   * @param timeout the statement timeout: the run may take what the statement's planning left of
   *     it; zero for no limit
   */
  public QueryRun begin(String queryId, Principal principal, String sql, Duration timeout) {
    TrackedQuery query = queries.computeIfAbsent(queryId, id -> new TrackedQuery(id, principal, sql, false, this));
    return query.begin(timeout, timer);
  }

  /**
   * Starts planning the statement with that id, tracking it while it is planned if nobody holds
   * its id. Fails if the query has been cancelled.
   *
   * @param timeout the statement timeout, which planning counts against; zero for no limit
   */
  public QueryRun plan(String queryId, Principal principal, String sql, Duration timeout) {
    TrackedQuery query = queries.computeIfAbsent(queryId, id -> new TrackedQuery(id, principal, sql, false, this));
    return query.beginPlanning(timeout, timer);
  }

  void ended(TrackedQuery query) {
    if (query.isIdle() && query.ended().isPresent() && historySize > 0) {
      synchronized (history) {
        history.remove(query.id());
        history.put(query.id(), query);
        if (history.size() > historySize) {
          Iterator<String> oldest = history.keySet().iterator();
          oldest.next();
          oldest.remove();
        }
      }
    }
    if (!query.held() && query.isIdle()) {
      queries.remove(query.id(), query);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
