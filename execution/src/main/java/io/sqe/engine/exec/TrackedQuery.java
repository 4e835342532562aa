package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.profile.ProfiledPlan;
import io.sqe.engine.session.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A statement that has a query id, from the moment it arrives or its client learns the id until
 * the id is forgotten, and its runs: its planning, then the reads of a query's ticket (each read
 * one run) or a command's execution. Cancelling it stops every run and refuses new ones.
 */
public final class TrackedQuery {
  /** The role whose holders may see and cancel every user's queries. */
  public static final String ADMIN_ROLE = Principal.ADMIN_ROLE;

  /** Where a query is: being planned, waiting for its first run, running, or how its last run ended. */
  public enum State {
    PLANNING,
    QUEUED,
    RUNNING,
    FINISHED,
    FAILED,
    CANCELLED
  }

  private final String id;
  private final Principal principal;
  private final String sql;
  private final Instant created = Instant.now();
  private final boolean held;
  private final QueryTracker tracker;
  private final Set<QueryRun> runs = ConcurrentHashMap.newKeySet();
  private int started;
  private final List<Runnable> cancelListeners = new CopyOnWriteArrayList<>();
  private volatile State state = State.QUEUED;
  private volatile QueryRun lastRun;
  private volatile SqeException cancellation;
  /** How long planning took, which the statement timeout counts against every run. */
  private volatile long planningNanos;
  private volatile Instant planned;
  private volatile Instant runStarted;
  private volatile Instant ended;
  private volatile Instant closed;
  private volatile QueryStats firstRunStats;
  private volatile String sessionId;
  private volatile String source;
  private volatile String tag;
  private volatile Failure failure;
  private volatile ProfiledPlan plan;
  private boolean labelled;
  /** Whether the query holds a place of the tracker's admission, from its first run to its last run's end. */
  private boolean admitted;

  /** How a statement failed, as its client was told: the error code's name and the message. */
  public record Failure(String code, String message) {
    public Failure {
      requireNonNull(code, "code is null");
      requireNonNull(message, "message is null");
    }
  }

  TrackedQuery(String id, Principal principal, String sql, boolean held, QueryTracker tracker) {
    this.id = requireNonNull(id, "id is null");
    this.principal = requireNonNull(principal, "principal is null");
    this.sql = requireNonNull(sql, "sql is null");
    this.held = held;
    this.tracker = requireNonNull(tracker, "tracker is null");
  }

  public String id() {
    return id;
  }

  public Principal principal() {
    return principal;
  }

  public String sql() {
    return sql;
  }

  public Instant created() {
    return created;
  }

  public State state() {
    return state;
  }

  /** When planning ended, if it has. */
  public Optional<Instant> planned() {
    return Optional.ofNullable(planned);
  }

  /** When the first run (not planning) began, if one has. */
  public Optional<Instant> started() {
    return Optional.ofNullable(runStarted);
  }

  /** When the first run returned its first batch, if it has. */
  public Optional<Instant> firstBatch() {
    QueryStats first = firstRunStats;
    return first == null ? Optional.empty() : Optional.ofNullable(first.firstBatch());
  }

  /** When the first run returned its last batch, if it has: the result was complete. */
  public Optional<Instant> lastBatch() {
    QueryStats first = firstRunStats;
    return first == null ? Optional.empty() : Optional.ofNullable(first.lastBatch());
  }

  /**
   * When the client's side of the statement was last closed: its result stream ended (read to
   * the end, failed, or given up by the client), or a command's answer was sent.
   */
  public Optional<Instant> closed() {
    return Optional.ofNullable(closed);
  }

  /** The client's stream of the statement's result ended, or its command's answer was sent, now. */
  public void markClosed() {
    this.closed = Instant.now();
  }

  /** When the last run ended, while none runs; empty while one runs or none has. */
  public Optional<Instant> ended() {
    return Optional.ofNullable(ended);
  }

  /** How long planning took so far. */
  public Duration planning() {
    return Duration.ofNanos(planningNanos);
  }

  /** The client application that sent the statement (Trino's {@code X-Trino-Source}), if it said. */
  public Optional<String> source() {
    return Optional.ofNullable(source);
  }

  /** The statement's query tag (the session option {@code query_tag}, Trino's client tags), if any. */
  public Optional<String> tag() {
    return Optional.ofNullable(tag);
  }

  /** The id of the client session that sent the statement, if it came from one the server keeps. */
  public Optional<String> sessionId() {
    return Optional.ofNullable(sessionId);
  }

  /**
   * Labels the statement with where it came from; the first labels given stay.
   *
   * @param sessionId the client session's id; null for none
   * @param source the client application; null when unknown
   * @param tag the query tag; null for none
   */
  public synchronized void label(String sessionId, String source, String tag) {
    if (!labelled) {
      labelled = true;
      this.sessionId = sessionId;
      this.source = source;
      this.tag = tag;
    }
  }

  /** The query's plan as EXPLAIN prints it, once planned; empty for commands. */
  public Optional<String> plan() {
    ProfiledPlan known = plan;
    return known == null ? Optional.empty() : Optional.of(known.text());
  }

  /**
   * The query's plan with the figures of the operators of its latest run under their lines
   * (as EXPLAIN ANALYZE prints it; live while it runs), once planned; empty for commands.
   */
  public Optional<String> profile() {
    ProfiledPlan known = plan;
    if (known == null) {
      return Optional.empty();
    }
    QueryRun run = lastRun;
    return Optional.of(String.join("\n", run == null ? List.of(known.text()) : known.render(run.stats().operators())));
  }

  /** Keeps the query's plan, for the web console's query page. */
  public void planned(ProfiledPlan profile) {
    this.plan = requireNonNull(profile, "profile is null");
  }

  /** Why the statement failed or was cancelled, if it did. */
  public Optional<Failure> failure() {
    Failure known = failure;
    if (known == null && state == State.CANCELLED && cancellation != null) {
      known = new Failure(cancellation.code().name(), cancellation.getMessage());
    }
    return Optional.ofNullable(known);
  }

  /** Records how the statement failed, as its client is told; the first failure stays. */
  public synchronized void failed(String code, String message) {
    if (failure == null) {
      failure = new Failure(code, message);
    }
  }

  /** The figures of the latest run, if it has run. */
  public Optional<QueryStats> stats() {
    QueryRun run = lastRun;
    return run == null ? Optional.empty() : Optional.of(run.stats());
  }

  /** How long the latest run has taken so far, or took. */
  public Optional<Duration> elapsed() {
    QueryRun run = lastRun;
    return run == null ? Optional.empty() : Optional.of(Duration.ofNanos(run.elapsedNanos()));
  }

  boolean held() {
    return held;
  }

  /** Whether {@code caller} may see and cancel this query: its own user, or an admin. */
  public boolean isControllableBy(Principal caller) {
    return caller.user().equals(principal.user()) || caller.roles().contains(ADMIN_ROLE);
  }

  /**
   * Stops every run with {@code code} and refuses later ones.
   *
   * @return false if it was cancelled already
   */
  public boolean cancel(ErrorCode code, String reason) {
    synchronized (this) {
      if (cancellation != null) {
        return false;
      }
      cancellation = new SqeException(code, reason);
      if (runs.isEmpty()) {
        state = State.CANCELLED;
      }
    }
    for (QueryRun run : runs) {
      run.cancel(code, reason);
    }
    for (Runnable listener : cancelListeners) {
      listener.run();
    }
    return true;
  }

  /**
   * Cancels the query on behalf of {@code caller}, whose name the message carries when it is not
   * the query's own user.
   *
   * @return false if it was cancelled already
   */
  public boolean cancelBy(Principal caller) {
    String by = caller.user().equals(principal.user()) ? "" : " by " + caller.user();
    return cancel(ErrorCode.CANCELLED, "Query " + id + " was cancelled" + by);
  }

  public boolean isCancelled() {
    return cancellation != null;
  }

  /** Runs {@code listener} when the query is cancelled, at once if it already is. */
  public void onCancel(Runnable listener) {
    cancelListeners.add(listener);
    if (cancellation != null) {
      listener.run();
    }
  }

  /** Fails with the query's cancellation if it has been cancelled. */
  public void checkNotCancelled() {
    SqeException e = cancellation;
    if (e != null) {
      throw new SqeException(e.code(), e.getMessage());
    }
  }

  /**
   * Waits until no run of the query is left, and with them their memory.
   *
   * @return whether none is left
   */
  public synchronized boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!runs.isEmpty()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }

  QueryRun begin(Duration timeout, ScheduledExecutorService timer) {
    admit();
    QueryRun run;
    synchronized (this) {
      if (cancellation != null) {
        releaseIfIdle();
      }
      checkNotCancelled();
      started++;
      run = new QueryRun(id, started == 1 ? id : id + "-" + started, this, false);
      runs.add(run);
      lastRun = run;
      state = State.RUNNING;
      ended = null;
      if (started == 1) {
        runStarted = Instant.now();
        firstRunStats = run.stats();
      }
    }
    // The statement timeout covers planning and running together.
    Duration left = timeout.minusNanos(planningNanos);
    run.startDeadline(timeout, timeout.isZero() || !(left.isZero() || left.isNegative()) ? left : Duration.ofNanos(1), timer);
    return run;
  }

  /** Waits for a place to run, unless the query holds one already (its other runs). */
  private void admit() {
    Admission admission = tracker.admission();
    synchronized (this) {
      if (admitted || !admission.limits(this)) {
        return;
      }
    }
    admission.acquire(this);
    boolean held;
    synchronized (this) {
      held = admitted;
      admitted = true;
    }
    if (held) {
      admission.release(this);
    }
  }

  /** Gives back the query's place when no run of it is left; called holding this query's lock. */
  private void releaseIfIdle() {
    if (admitted && runs.isEmpty()) {
      admitted = false;
      tracker.admission().release(this);
    }
  }

  /** Starts planning the statement: a run that has the whole statement timeout. */
  QueryRun beginPlanning(Duration timeout, ScheduledExecutorService timer) {
    QueryRun run;
    synchronized (this) {
      checkNotCancelled();
      run = new QueryRun(id, id, this, true);
      runs.add(run);
      lastRun = run;
      state = State.PLANNING;
    }
    run.startDeadline(timeout, timeout, timer);
    return run;
  }

  void ended(QueryRun run, State outcome) {
    synchronized (this) {
      runs.remove(run);
      if (run.isPlanning() && outcome == State.FINISHED) {
        planningNanos += run.elapsedNanos();
        planned = Instant.now();
      }
      if (runs.isEmpty()) {
        // A statement that has been planned waits for its first run.
        State end = run.isPlanning() && outcome == State.FINISHED ? State.QUEUED : outcome;
        state = cancellation != null && outcome != State.FINISHED ? State.CANCELLED : end;
        if (state != State.QUEUED) {
          ended = Instant.now();
        }
        releaseIfIdle();
        notifyAll();
      }
    }
    tracker.ended(this);
  }

  synchronized boolean isIdle() {
    return runs.isEmpty();
  }
}
