package io.sqe.flight.testing;

import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * Holds back a number of commits to one table at a {@link RestCatalogFixture} until it is
 * released, so that a test can line up writers that read the same snapshot and then commit
 * concurrently. Commits after the held ones go through.
 */
public final class CommitGate {
  private static final Duration MAX_HOLD = Duration.ofMinutes(2);

  private final Pattern commitPath;
  private final AtomicInteger toHold;
  private final CountDownLatch held;
  private final CountDownLatch released = new CountDownLatch(1);

  CommitGate(String table, int count) {
    this.commitPath = commitPath(table);
    this.toHold = new AtomicInteger(count);
    this.held = new CountDownLatch(count);
  }

  /** The path of commits to a table: POST [/v1][/prefix]/namespaces/{namespace}/tables/{table}. */
  static Pattern commitPath(String table) {
    return Pattern.compile(".*/namespaces/[^/]+/tables/" + Pattern.quote(table));
  }

  /** Blocks the request while it is one of the commits to hold and the gate is closed. */
  void pass(HttpServletRequest request) {
    if (!"POST".equals(request.getMethod()) || !commitPath.matcher(request.getRequestURI()).matches()) {
      return;
    }
    if (toHold.getAndDecrement() <= 0) {
      return;
    }
    held.countDown();
    try {
      if (!released.await(MAX_HOLD.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("Commit gate for " + commitPath + " was never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits until every commit to hold has arrived. */
  public void awaitHeld(Duration timeout) throws InterruptedException, TimeoutException {
    if (!held.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new TimeoutException(held.getCount() + " of the commits to hold have not arrived after " + timeout);
    }
  }

  /** Lets the held commits (and all later ones) through. */
  public void release() {
    released.countDown();
  }
}
