package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.session.Principal;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * When the heap is nearly full after a full collection, the guard stops the running statement
 * whose thread allocated the most since it started, with RESOURCE_EXHAUSTED, and no other; below
 * the threshold, or switched off, it stops none.
 */
class HeapGuardTest {
  private static final long MAX = 1_000;

  @Test
  void stopsTheStatementThatAllocatedTheMost() throws Exception {
    try (QueryTracker queries = new QueryTracker(); HeapGuard guard = HeapGuard.start(0.9, queries)) {
      TrackedQuery big = queries.track("big", Principal.of("alice"), "select 1");
      TrackedQuery small = queries.track("small", Principal.of("bob"), "select 2");
      CountDownLatch watching = new CountDownLatch(2);
      CountDownLatch done = new CountDownLatch(1);
      ExecutorService threads = Executors.newFixedThreadPool(2);
      try {
        Future<?> a = threads.submit(() -> run(guard, "big", 64 << 20, watching, done));
        Future<?> b = threads.submit(() -> run(guard, "small", 1 << 20, watching, done));
        assertThat(watching.await(30, TimeUnit.SECONDS)).isTrue();

        guard.afterFullCollection(899, MAX);
        assertThat(big.isCancelled()).as("below the threshold").isFalse();

        guard.afterFullCollection(950, MAX);
        assertThat(small.isCancelled()).isFalse();
        assertThatThrownBy(big::checkNotCancelled).isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
          assertThat(e.getMessage()).contains("Query big was stopped").contains("95% full");
        });

        // The stopped statement gets time to let go before another is stopped.
        guard.afterFullCollection(990, MAX);
        assertThat(small.isCancelled()).isFalse();
        done.countDown();
        a.get(30, TimeUnit.SECONDS);
        b.get(30, TimeUnit.SECONDS);
      } finally {
        threads.shutdownNow();
      }
    }
  }

  @Test
  void aThresholdOfZeroStopsNothing() throws Exception {
    try (QueryTracker queries = new QueryTracker(); HeapGuard guard = HeapGuard.start(0, queries)) {
      TrackedQuery query = queries.track("q", Principal.of("alice"), "select 1");
      try (HeapGuard.Watch watch = guard.watch("q")) {
        guard.afterFullCollection(MAX, MAX);
      }
      assertThat(query.isCancelled()).isFalse();
    }
  }

  /** Allocates {@code bytes} while watched as {@code queryId}, and stays watched until {@code done}. */
  private static Void run(HeapGuard guard, String queryId, int bytes, CountDownLatch watching, CountDownLatch done)
      throws InterruptedException {
    try (HeapGuard.Watch watch = guard.watch(queryId)) {
      long sum = 0;
      for (int allocated = 0; allocated < bytes; allocated += 1 << 16) {
        sum += new byte[1 << 16].length;
      }
      assertThat(sum).isGreaterThanOrEqualTo(bytes);
      watching.countDown();
      done.await();
    }
    return null;
  }
}
