package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.arrow.flight.FlightRuntimeException;

/**
 * Runs one execution at a time on a worker thread and times it there, from the engine call to its
 * last row. An execution that outlives the timeout is cancelled through its engine, and the timer
 * then waits until the process is idle again. A query that keeps running after its cancel slows
 * down later measurements, so until the process is idle again every execution is marked disturbed.
 */
final class QueryTimer implements AutoCloseable {
  private static final Duration STOP_WAIT = Duration.ofSeconds(60);
  private static final Duration IDLE_WAIT = Duration.ofSeconds(120);
  /** How long an execution waits for the process to become idle after a cancel that did not stop a query. */
  private static final Duration IDLE_RECHECK = Duration.ofSeconds(5);
  private static final Duration IDLE_WINDOW = Duration.ofSeconds(1);
  /** Busy fraction of one core below which the process counts as idle (GC and JIT stay below). */
  private static final double IDLE_CORE_FRACTION = 0.2;

  private final Duration timeout;
  private ExecutorService executor = newExecutor();
  /** A cancelled query kept the process busy after the last idle check. */
  private boolean backgroundWork;

  QueryTimer(Duration timeout) {
    this.timeout = requireNonNull(timeout, "timeout is null");
  }

  Attempt run(Engine engine, String sql) {
    if (backgroundWork && awaitIdle(IDLE_RECHECK)) {
      backgroundWork = false;
    }
    // Decided before the execution: its own timeout may leave work behind for the next ones.
    boolean disturbed = backgroundWork;
    return execute(engine, sql).withDisturbed(disturbed);
  }

  private Attempt execute(Engine engine, String sql) {
    Cancellation cancellation = new Cancellation();
    Future<Attempt> future =
        executor.submit(
            () -> {
              long start = System.nanoTime();
              ResultRows rows = engine.execute(sql, cancellation);
              return Attempt.completed(System.nanoTime() - start, rows);
            });
    try {
      return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return cancel(engine, future, cancellation);
    } catch (ExecutionException e) {
      return Attempt.error(describe(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancellation.cancel();
      throw new IllegalStateException("Interrupted while " + engine.name() + " ran a query", e);
    }
  }

  private Attempt cancel(Engine engine, Future<Attempt> future, Cancellation cancellation) {
    StringBuilder note = new StringBuilder("exceeded ").append(timeout.toSeconds()).append(" s");
    long cancelled = System.nanoTime();
    try {
      cancellation.cancel();
    } catch (RuntimeException e) {
      note.append("; the cancel failed: ").append(describe(e));
    }
    try {
      future.get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      note.append("; it completed while being cancelled");
    } catch (ExecutionException e) {
      note.append(String.format("; the %s client returned %d ms after the cancel", engine.name(), elapsedMillis(cancelled)));
    } catch (TimeoutException e) {
      // The worker is stuck in the engine; give up on it and carry on with a fresh thread.
      executor.shutdownNow();
      executor = newExecutor();
      note.append("; the ").append(engine.name()).append(" client was still waiting ").append(STOP_WAIT.toSeconds()).append(" s after the cancel");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while cancelling a query", e);
    }
    if (awaitIdle(IDLE_WAIT)) {
      note.append(String.format("; the process was idle %.1f s after the cancel", elapsedMillis(cancelled) / 1000.0));
    } else {
      backgroundWork = true;
      note.append("; the process was still busy ").append(IDLE_WAIT.toSeconds()).append(" s later");
    }
    return Attempt.timeout(note.toString());
  }

  /** Waits until the process uses less than a fraction of a core for a whole window. */
  private static boolean awaitIdle(Duration wait) {
    if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean)) {
      return true;
    }
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long start = System.nanoTime();
    while (System.nanoTime() - start < wait.toNanos()) {
      long cpuBefore = os.getProcessCpuTime();
      long wallBefore = System.nanoTime();
      try {
        Thread.sleep(IDLE_WINDOW.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      double busy = (double) (os.getProcessCpuTime() - cpuBefore) / (System.nanoTime() - wallBefore);
      if (busy < IDLE_CORE_FRACTION) {
        return true;
      }
    }
    return false;
  }

  private static long elapsedMillis(long since) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
  }

  /** One line naming the failure: the Flight status, or the exception type, and its message. */
  static String describe(Throwable t) {
    String message;
    if (t instanceof FlightRuntimeException) {
      FlightRuntimeException f = (FlightRuntimeException) t;
      message = f.status().code() + ": " + f.status().description();
    } else {
      message = t.getClass().getSimpleName() + ": " + t.getMessage();
    }
    return message.replaceAll("\\s+", " ").strip();
  }

  private static ExecutorService newExecutor() {
    return Executors.newSingleThreadExecutor(
        r -> {
          Thread thread = new Thread(r, "bench-query");
          thread.setDaemon(true);
          return thread;
        });
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
