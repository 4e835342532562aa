package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.DurationText;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * How many statements run at once: at most {@code maxRunning} in the server, the rest waiting in
 * order of arrival (state QUEUED) up to {@code queueTimeout}, and at most {@code maxPerUser} of one
 * user's running or waiting. A statement holds its place from its first run until its last run
 * ends. Admins' statements take no place and never wait, so that an admin can always see and stop
 * what runs (as PostgreSQL reserves connections for superusers).
 */
public final class Admission {
  /** Lets every statement run at once. */
  public static final Admission UNLIMITED = new Admission(0, 0, Duration.ZERO);

  /** How often a waiting statement looks whether it was cancelled. */
  private static final long CANCEL_CHECK_MILLIS = 100;

  private final int maxRunning;
  private final int maxPerUser;
  private final Duration queueTimeout;
  private final ArrayDeque<Object> queue = new ArrayDeque<>();
  private final Map<String, Integer> perUser = new HashMap<>();
  private int running;
  private long timedOut;
  private long refused;

  /**
   * @param maxRunning statements that run at once; 0 for no limit
   * @param maxPerUser statements of one user that run or wait at once; 0 for no limit
   * @param queueTimeout how long a statement waits for its turn; zero to wait as long as it takes
   */
  public Admission(int maxRunning, int maxPerUser, Duration queueTimeout) {
    if (maxRunning < 0 || maxPerUser < 0) {
      throw new IllegalArgumentException("Limits must not be negative: " + maxRunning + ", " + maxPerUser);
    }
    this.maxRunning = maxRunning;
    this.maxPerUser = maxPerUser;
    this.queueTimeout = requireNonNull(queueTimeout, "queueTimeout is null");
  }

  boolean limits(TrackedQuery query) {
    return (maxRunning > 0 || maxPerUser > 0) && !query.principal().isAdmin();
  }

  /**
   * Takes a place for {@code query}, waiting for it in order of arrival; RESOURCE_EXHAUSTED when
   * its user has {@code maxPerUser} statements already or it waited {@code queueTimeout}, and the
   * query's cancellation if it is cancelled while it waits.
   */
  synchronized void acquire(TrackedQuery query) {
    String user = query.principal().user();
    int mine = perUser.getOrDefault(user, 0);
    if (maxPerUser > 0 && mine >= maxPerUser) {
      refused++;
      throw new SqeException(ErrorCode.RESOURCE_EXHAUSTED,
          "Query " + query.id() + " was refused: user " + user + " already runs or queues " + mine
              + " statements, the most one user may (server.max-running-statements-per-user)");
    }
    perUser.merge(user, 1, Integer::sum);
    if (maxRunning == 0 || (queue.isEmpty() && running < maxRunning)) {
      running++;
      return;
    }
    Object place = new Object();
    queue.addLast(place);
    long start = System.nanoTime();
    boolean admitted = false;
    try {
      while (true) {
        if (queue.peekFirst() == place && running < maxRunning) {
          running++;
          admitted = true;
          return;
        }
        query.checkNotCancelled();
        long left = queueTimeout.isZero() ? CANCEL_CHECK_MILLIS : queueTimeout.toMillis() - (System.nanoTime() - start) / 1_000_000;
        if (left <= 0) {
          timedOut++;
          throw new SqeException(ErrorCode.RESOURCE_EXHAUSTED,
              "Query " + query.id() + " was queued for " + DurationText.format(queueTimeout) + " while " + running
                  + " statements ran, the most the server runs at once (server.max-running-statements), and was"
                  + " refused (server.queue-timeout)");
        }
        wait(Math.min(left, CANCEL_CHECK_MILLIS));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SqeException(ErrorCode.CANCELLED, "Query " + query.id() + " was interrupted while queued");
    } finally {
      queue.remove(place);
      if (!admitted) {
        release(user, false);
      }
      notifyAll();
    }
  }

  /** Gives back the place a statement of {@code user} held. */
  synchronized void release(TrackedQuery query) {
    release(query.principal().user(), true);
    notifyAll();
  }

  private void release(String user, boolean wasRunning) {
    if (wasRunning) {
      running--;
    }
    perUser.computeIfPresent(user, (name, count) -> count <= 1 ? null : count - 1);
  }

  /** Statements waiting for their turn now. */
  public synchronized int queued() {
    return queue.size();
  }

  /** Statements holding a place now. */
  public synchronized int running() {
    return running;
  }

  /** Statements refused since start after waiting {@code queueTimeout}. */
  public synchronized long timedOut() {
    return timedOut;
  }

  /** Statements refused since start for their user's limit. */
  public synchronized long refused() {
    return refused;
  }
}
