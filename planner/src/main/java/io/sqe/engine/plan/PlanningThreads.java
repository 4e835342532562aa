package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.context.Context;
import io.sqe.catalog.CatalogCredentials;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.exec.QueryRun;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.calcite.util.CancelFlag;
import org.slf4j.MDC;

/**
 * Plans statements on threads of their own, with deep stacks and under their run's cancellation.
 *
 * <p>Parsing, validation, conversion, simplification and code generation recurse once per level of
 * an expression, several frames each: a 500-term OR overflowed the 1 MiB stack of a call thread.
 * Planning threads have {@link #STACK_BYTES} (address space, touched only as deep as it goes).
 *
 * <p>The calling thread waits for the planning, and stops waiting when the run is cancelled (by
 * the client, its statement timeout, {@code system.cancel_query} or the server's shutdown): the
 * planner stops at its next check of the run's cancel flag ({@link #checkCancelled}, Calcite's own
 * checks through {@link #cancelFlag}), and should it not within {@link #STOP_WAIT}, the caller
 * answers anyway.
 */
public final class PlanningThreads {
  /** The stack of a planning thread. */
  public static final long STACK_BYTES = 256L << 20;

  /** How long a caller waits for a cancelled planning to stop before it answers without it. */
  static final Duration STOP_WAIT = Duration.ofSeconds(2);

  private static final Duration POLL = Duration.ofMillis(50);
  private static final ThreadLocal<QueryRun> RUN = new ThreadLocal<>();
  private static final AtomicInteger THREADS = new AtomicInteger();
  /** As many threads as statements are being planned; idle ones end after a minute. */
  private static final ExecutorService POOL =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          60,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          task -> {
            Thread thread = new Thread(null, task, "sqe-planner-" + THREADS.incrementAndGet(), STACK_BYTES);
            thread.setDaemon(true);
            return thread;
          });

  private PlanningThreads() {}

  /**
   * Runs {@code work} on a planning thread under {@code run}'s cancellation and returns what it
   * returns; on this thread if it is a planning thread already. Fails with the run's cancellation
   * (CANCELLED, DEADLINE_EXCEEDED) once the run is cancelled, whatever the work did.
   */
  public static <T> T plan(QueryRun run, Supplier<T> work) {
    requireNonNull(run, "run is null");
    requireNonNull(work, "work is null");
    if (RUN.get() != null) {
      return work.get();
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    // The planning thread acts for the caller: the catalog calls it makes carry the caller's
    // credentials (a pass-through catalog's user token), and its log lines the caller's query id.
    Map<String, String> logContext = MDC.getCopyOfContextMap();
    // And its trace: the planning's spans are the statement's.
    POOL.execute(Context.current().wrap(CatalogCredentials.carry(() -> {
      RUN.set(run);
      if (logContext != null) {
        MDC.setContextMap(logContext);
      }
      try {
        result.complete(work.get());
      } catch (Throwable e) {
        result.completeExceptionally(ExecutionErrors.stackOverflow(e).<Throwable>map(tooDeep -> tooDeep).orElse(e));
      } finally {
        RUN.remove();
        MDC.clear();
      }
    })));
    return await(run, result);
  }

  private static <T> T await(QueryRun run, CompletableFuture<T> result) {
    long stopBy = Long.MAX_VALUE;
    try {
      while (true) {
        try {
          T value = result.get(POLL.toNanos(), TimeUnit.NANOSECONDS);
          run.checkCancelled();
          return value;
        } catch (TimeoutException e) {
          if (run.isCancelled()) {
            stopBy = Math.min(stopBy, System.nanoTime() + STOP_WAIT.toNanos());
            if (System.nanoTime() - stopBy > 0) {
              run.checkCancelled();
            }
          }
        }
      }
    } catch (ExecutionException e) {
      // A planner that stops because the run was cancelled may fail in its own words.
      run.checkCancelled();
      throw ExecutionErrors.rethrow(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SqeException(ErrorCode.CANCELLED, "Query " + run.queryId() + " was interrupted while it was being planned");
    }
  }

  /** The planning run of this thread, if it is planning a statement. */
  public static Optional<QueryRun> current() {
    return Optional.ofNullable(RUN.get());
  }

  /** Fails with the cancellation of the statement this thread plans, if it has been cancelled. */
  public static void checkCancelled() {
    QueryRun run = RUN.get();
    if (run != null) {
      run.checkCancelled();
    }
  }

  /** The flag Calcite's planners poll: the run's, on a planning thread; else one never set. */
  static CancelFlag cancelFlag() {
    QueryRun run = RUN.get();
    return run != null ? run.plannerCancelFlag() : new CancelFlag(new AtomicBoolean());
  }
}
