package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.CatalogCredentials;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.trace.Spans;
import io.sqe.flight.audit.StatementAudit;
import io.sqe.flight.ops.LogSettings;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Streams query results to Flight clients one record batch at a time, waiting for each client to
 * be ready before each batch (gRPC flow control), and stopping a query when its client goes away.
 *
 * <p>Each stream runs on a thread of its own, not on the gRPC thread that asked for it: gRPC
 * delivers a call's "ready" and "cancelled" events on that call's thread, one after another, so a
 * stream that kept the thread would never hear of them. It would wait out a timeout whenever the
 * client fell behind, and keep running after the client left.
 */
final class ResultStreamer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ResultStreamer.class);
  private static final long READY_WAIT_MILLIS = 30_000;
  private static final long SHUTDOWN_WAIT_SECONDS = 30;
  private static final String CANCELLED_BY_CLIENT = "The client cancelled the stream";
  /**
   * How long a stopped query (its statement timeout passed, it was cancelled) has to end its
   * stream itself before its client is told without it: a thread stuck where it never checks
   * for cancellation, or gone, must not leave the client waiting.
   */
  private static final Duration STOP_GRACE = Duration.ofSeconds(5);

  private final BufferAllocator allocator;
  private final HeapGuard heap;
  private final ExecutorService threads;
  private final ScheduledExecutorService watchdog;
  private final Set<QueryBackpressure> running = ConcurrentHashMap.newKeySet();

  ResultStreamer(BufferAllocator allocator, HeapGuard heap) {
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.heap = requireNonNull(heap, "heap is null");
    AtomicInteger ids = new AtomicInteger();
    this.threads =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, "sqe-query-" + ids.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    this.watchdog =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "sqe-stream-watchdog");
              thread.setDaemon(true);
              return thread;
            });
  }

  /**
   * Starts sending the results of the executions in order as one stream (several parameter sets
   * of one prepared statement give several executions) and returns at once. Closes every
   * execution, hands the stream's figures to {@code trailers} before the stream ends, and
   * finishes {@code audit} with how it ended.
   *
   * @param closed runs once the stream has ended, however it ended
   */
  void start(
      Schema schema,
      Iterator<Supplier<QueryExecution>> executions,
      ServerStreamListener listener,
      String queryId,
      QueryTrailers.Holder trailers,
      StatementAudit audit,
      Runnable closed) {
    StreamEnd end = new StreamEnd(listener, closed);
    QueryBackpressure backpressure = new QueryBackpressure(stopped -> afterGrace(() -> end.afterStop(stopped, queryId, audit)));
    backpressure.register(listener);
    try {
      // The statement's trace context goes with it: the run's spans are its children.
      threads.execute(CatalogCredentials.carry(audit.trace().wrap(
          () -> stream(schema, executions, end, new QueryFigures.Builder(queryId), trailers, backpressure, audit))));
    } catch (RejectedExecutionException e) {
      RuntimeException error = CallStatus.UNAVAILABLE.withDescription("The server is shutting down").toRuntimeException();
      audit.failed(queryId, error, null);
      listener.error(error);
    }
  }

  private void afterGrace(Runnable check) {
    try {
      watchdog.schedule(check, STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Closing: close() waits for the streams themselves.
    }
  }

  /** Runs {@code task} on a query thread, which {@link #close()} waits for. */
  void submit(Runnable task) {
    try {
      threads.execute(CatalogCredentials.carry(task));
    } catch (RejectedExecutionException e) {
      throw CallStatus.UNAVAILABLE.withDescription("The server is shutting down").toRuntimeException();
    }
  }

  private void stream(
      Schema schema,
      Iterator<Supplier<QueryExecution>> executions,
      StreamEnd end,
      QueryFigures.Builder figures,
      QueryTrailers.Holder trailers,
      QueryBackpressure backpressure,
      StatementAudit audit) {
    running.add(backpressure);
    long rows = 0;
    ServerStreamListener listener = end.listener();
    try (MDC.MDCCloseable queryId = MDC.putCloseable(LogSettings.QUERY_ID, figures.queryId());
        HeapGuard.Watch watch = heap.watch(figures.queryId());
        VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator)) {
      VectorLoader loader = new VectorLoader(out);
      if (!end.send(() -> listener.start(out))) {
        return;
      }
      while (executions.hasNext()) {
        QueryExecution current = null;
        try (Spans.Scoped run = Spans.open("sqe.execute");
            QueryExecution execution = executions.next().get()) {
          current = execution;
          backpressure.running(execution);
          if (listener.isCancelled()) {
            execution.cancel(CANCELLED_BY_CLIENT);
          }
          while (execution.next()) {
            if (!awaitReady(backpressure, execution)) {
              // The client went away: there is nobody to tell.
              end.end(() -> { });
              audit.failed(figures.queryId(), CallStatus.CANCELLED.withDescription(CANCELLED_BY_CLIENT).toRuntimeException(), rows);
              return;
            }
            VectorSchemaRoot batch = execution.root();
            try (ArrowRecordBatch recordBatch = new VectorUnloader(batch).getRecordBatch()) {
              figures.batchSent(batch.getRowCount(), recordBatch.computeBodyLength());
              rows += batch.getRowCount();
              loader.load(recordBatch);
            }
            if (!end.send(listener::putNext)) {
              // The watchdog ended the stream while this thread did not check for the stop.
              return;
            }
            out.clear();
          }
        } finally {
          backpressure.running(null);
          if (current != null) {
            figures.executionEnded(current.context().stats());
          }
        }
      }
      QueryFigures done = figures.build();
      trailers.set(done);
      audit.span().bytes(done.bytes());
      audit.offloadedTo(done.offloadedTo());
      if (!end.end(listener::completed)) {
        return;
      }
      if (done.resultCached()) {
        audit.succeededFromCache(figures.queryId(), rows);
      } else {
        audit.succeeded(figures.queryId(), rows);
      }
    } catch (ExceptionInInitializerError e) {
      // Calcite computes a query's constant expressions in a static initializer of its generated
      // code, so an error there (ATANH(1), say) arrives as an Error.
      fail(end, figures, trailers, audit, rows, e.getCause() == null ? e : e.getCause());
    } catch (Throwable e) {
      // Errors too (OutOfMemoryError, StackOverflowError, LinkageError): uncaught, one ended this
      // thread and the client's DoGet never ended.
      fail(end, figures, trailers, audit, rows, e);
    } finally {
      running.remove(backpressure);
      // Only when nothing above could end the stream (the failure handling failed too).
      end.end(() -> listener.error(CallStatus.INTERNAL
          .withDescription("Query " + figures.queryId() + " ended without a result")
          .toRuntimeException()));
    }
  }

  private static void fail(
      StreamEnd end,
      QueryFigures.Builder figures,
      QueryTrailers.Holder trailers,
      StatementAudit audit,
      long rows,
      Throwable e) {
    LOG.debug("Query {} failed while streaming", figures.queryId(), e);
    QueryFigures done = figures.build();
    trailers.set(done);
    audit.offloadedTo(done.offloadedTo());
    RuntimeException error = FlightErrors.toFlight(e, figures.queryId());
    audit.failed(figures.queryId(), error, rows);
    end.end(() -> end.listener().error(error));
  }

  /** Stops every running query and waits for their streams to end, so that no buffer outlives this. */
  @Override
  public void close() {
    threads.shutdown();
    for (QueryBackpressure stream : running) {
      stream.cancel("The server is shutting down");
    }
    try {
      if (!threads.awaitTermination(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS)) {
        LOG.warn("{} result streams did not stop within {} s", running.size(), SHUTDOWN_WAIT_SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    watchdog.shutdownNow();
  }

  /**
   * Flight's callback strategy, which also stops the running query when the client cancels. The
   * strategy owns the listener's cancel handler (there is only one), so the query is reached
   * through the strategy's hook: a second handler would replace the strategy's, and a wait for a
   * cancelled client would then last until its timeout.
   */
  private static final class QueryBackpressure extends BackpressureStrategy.CallbackBackpressureStrategy {
    private final Consumer<QueryRun> stopped;
    private volatile QueryExecution running;
    private volatile String stopReason;

    /** @param stopped hears of each run that is stopped (cancelled, timed out) */
    QueryBackpressure(Consumer<QueryRun> stopped) {
      this.stopped = stopped;
    }

    void running(QueryExecution execution) {
      running = execution;
      if (execution == null) {
        return;
      }
      QueryRun run = execution.context().run();
      // A cancel from elsewhere (CancelFlightInfo, a timeout) must wake a wait for a slow client.
      run.onCancel(this::interruptWait);
      run.onCancel(() -> stopped.accept(run));
      String reason = stopReason;
      if (reason != null) {
        execution.cancel(reason);
      }
    }

    /** Stops the stream from the server's side. */
    void cancel(String reason) {
      stopReason = reason;
      QueryExecution execution = running;
      if (execution != null) {
        execution.cancel(reason);
      }
      interruptWait();
    }

    @Override
    protected boolean shouldContinueWaiting(ServerStreamListener listener, long remainingTimeout) {
      QueryExecution execution = running;
      return stopReason == null && (execution == null || !execution.context().isCancelled());
    }

    @Override
    protected void cancelCallback() {
      QueryExecution execution = running;
      if (execution != null) {
        execution.cancel(CANCELLED_BY_CLIENT);
      }
    }
  }

  /**
   * The end of one stream, sent once: by its thread, or by the watchdog when a stopped query's
   * thread has not ended it within {@link #STOP_GRACE}. Every call on the listener goes through
   * here, so the two never call it at once (gRPC's observers are not thread-safe).
   */
  private static final class StreamEnd {
    private final ServerStreamListener listener;
    private final Runnable closed;
    private boolean ended;

    StreamEnd(ServerStreamListener listener, Runnable closed) {
      this.listener = listener;
      this.closed = requireNonNull(closed, "closed is null");
    }

    ServerStreamListener listener() {
      return listener;
    }

    /** Makes a call on the stream unless it has ended; false if it has. */
    synchronized boolean send(Runnable call) {
      if (ended) {
        return false;
      }
      call.run();
      return true;
    }

    /** Ends the stream with {@code call} unless it has ended; false if it had. */
    synchronized boolean end(Runnable call) {
      if (ended) {
        return false;
      }
      ended = true;
      // Marked before the client hears the end, so that whatever it does next sees the mark.
      closed.run();
      call.run();
      return true;
    }

    /** Tells the client why its query stopped, if the query's thread has not by now. */
    void afterStop(QueryRun run, String queryId, StatementAudit audit) {
      RuntimeException error;
      try {
        run.checkCancelled();
        return;
      } catch (RuntimeException e) {
        error = FlightErrors.toFlight(e, queryId);
      }
      RuntimeException status = error;
      if (end(() -> listener.error(status))) {
        LOG.warn("Query {} did not end its stream within {} of being stopped; the client was told without it", queryId, STOP_GRACE);
        audit.failed(queryId, status, null);
      }
    }
  }

  private static boolean awaitReady(QueryBackpressure backpressure, QueryExecution execution) {
    while (true) {
      switch (backpressure.waitForListener(READY_WAIT_MILLIS)) {
        case READY:
          return true;
        case CANCELLED:
          execution.cancel(CANCELLED_BY_CLIENT);
          return false;
        case TIMEOUT:
          // A slow client is fine; a cancelled query is not.
          execution.context().checkCancelled();
          break;
        default:
          // Woken by close() or a cancel, which cancelled the query first.
          execution.context().checkCancelled();
          break;
      }
    }
  }
}
