package io.sqe.engine.exec.parallel;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.trace.Spans;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.linq4j.function.Function0;
import org.apache.calcite.linq4j.function.Function1;

/**
 * Runs the parts of a parallel pipeline and hands their rows to the thread that consumes them.
 * A pipeline (for example a partial aggregate over a filter over a split scan) is compiled once,
 * as a function of its part's data context; each execution runs it as many times as its plan
 * says (the planner's {@code query.parallelism}): part 0 on the consuming thread itself, the others on
 * threads of a bounded, shared pool, each into a bounded queue of row batches. A part the pool has
 * no thread for runs on the consuming thread after its own, so a busy pool slows a query down but
 * never blocks it. The parts of a split scan claim its files one at a time, so they share the work
 * whatever its shape.
 *
 * <p>A part's failure fails the query with that error: the run is aborted at once, so the other
 * parts stop at their next cancellation check, and the consumer throws the first failure. A
 * cancelled query stops every part the same way.
 */
public final class ParallelParts {
  private static final int BATCH_ROWS = 1024;
  private static final int QUEUED_BATCHES_PER_PART = 4;
  private static final long WAIT_MILLIS = 50;
  private static final Object DONE = new Object();
  private static final AtomicInteger THREADS = new AtomicInteger();
  /** Shared by all queries; each uses at most parallelism - 1 of its threads. */
  static final ThreadPoolExecutor WORKERS =
      new ThreadPoolExecutor(
          0,
          Math.max(2, 4 * Runtime.getRuntime().availableProcessors()),
          30,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          runnable -> {
            Thread thread = new Thread(runnable, "sqe-part-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });

  private ParallelParts() {}

  /**
   * The rows of every part of {@code part}, in no particular order. Called from generated code.
   *
   * @param part the pipeline of one part, given that part's data context
   */
  public static Enumerable<Object> gather(DataContext root, Function1<DataContext, Enumerable<Object>> part, int parts) {
    return new AbstractEnumerable<>() {
      @Override
      public Enumerator<Object> enumerator() {
        return new Gather(root, part, parts);
      }
    };
  }

  /**
   * The rows of {@code rows}, read once per execution by whichever part asks first and then handed
   * to every part: the build side of a hash join whose probe side is split into parts. Outside a
   * parallel pipeline, {@code rows} itself. Called from generated code.
   *
   * @param rows the build side's code, run only by the part that reads it: an aggregate in it
   *     reads its input as soon as its code runs, so running it in every part would read it in
   *     every part
   */
  public static Enumerable<Object> shared(DataContext root, String key, Function0<Enumerable<Object>> rows) {
    ScanPart part = ScanPart.of(root);
    if (part == null) {
      return rows.apply();
    }
    return new AbstractEnumerable<>() {
      @Override
      public Enumerator<Object> enumerator() {
        List<Object> list = part.shared(key, () -> rows.apply().toList());
        return Linq4j.enumerator(list);
      }
    };
  }

  /** One execution of a parallel pipeline, as its consumer sees it. */
  private static final class Gather implements Enumerator<Object> {
    private final DataContext root;
    private final QueryContext context;
    private final Function1<DataContext, Enumerable<Object>> part;
    private final int parts;
    private final PartContext.Shared shared;
    private final BlockingQueue<Object> queue;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** The parts this thread runs itself, in order. */
    private final ArrayDeque<Integer> inline = new ArrayDeque<>();
    /** Parts running on the pool whose end this thread has not yet seen. */
    private int running;
    private volatile boolean closed;
    private boolean started;
    private boolean finished;
    private Enumerator<Object> local;
    private Object[] batch;
    private int batchIndex;
    private Object current;

    Gather(DataContext root, Function1<DataContext, Enumerable<Object>> part, int parts) {
      this.root = root;
      this.context = QueryContext.of(root);
      this.part = part;
      this.parts = parts;
      this.shared = new PartContext.Shared(parts);
      this.queue = new ArrayBlockingQueue<>(QUEUED_BATCHES_PER_PART * parts + parts);
    }

    /**
     * Starts the parts when the consumer first asks for a row, not when it opens the pipeline: a
     * join may open an input long before it reads it (or never read it), and parts started early
     * would compete for the query's threads with the input it reads first.
     */
    private void start() {
      started = true;
      inline.add(0);
      for (int i = 1; i < parts; i++) {
        try {
          WORKERS.execute(Spans.carried("sqe.pipeline.part", new Worker(i)));
          running++;
        } catch (RejectedExecutionException e) {
          inline.add(i);
        }
      }
    }

    @Override
    public Object current() {
      return current;
    }

    @Override
    public boolean moveNext() {
      try {
        if (!started) {
          start();
        }
        while (true) {
          if (local != null) {
            if (local.moveNext()) {
              current = local.current();
              return true;
            }
            local.close();
            local = null;
            continue;
          }
          if (batch != null && batchIndex < batch.length) {
            current = batch[batchIndex++];
            return true;
          }
          batch = null;
          Integer next = inline.poll();
          if (next != null) {
            local = part.apply(new PartContext(root, next, shared)).enumerator();
            continue;
          }
          if (running == 0) {
            Throwable failed = failure.get();
            if (failed != null) {
              throw ExecutionErrors.rethrow(failed);
            }
            finished = true;
            return false;
          }
          Object item = take();
          if (item == DONE) {
            running--;
          } else if (item instanceof Throwable) {
            throw ExecutionErrors.rethrow((Throwable) item);
          } else {
            batch = (Object[]) item;
            batchIndex = 0;
          }
        }
      } catch (RuntimeException | Error e) {
        throw ExecutionErrors.rethrow(failed(e));
      }
    }

    private Object take() {
      try {
        while (true) {
          context.checkCancelled();
          Object item = queue.poll(WAIT_MILLIS, TimeUnit.MILLISECONDS);
          if (item != null) {
            return item;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SqeException(ErrorCode.CANCELLED, "Interrupted while waiting for the parts of a parallel pipeline");
      }
    }

    /**
     * Records {@code e} as the pipeline's failure unless one came first, and stops the other parts;
     * returns the failure to report: the first, since later ones may only be its echo (a part
     * stopped by the abort).
     */
    private Throwable failed(Throwable e) {
      if (failure.compareAndSet(null, e)) {
        abort(e);
        return e;
      }
      return failure.get();
    }

    private void abort(Throwable e) {
      ErrorCode code = e instanceof SqeException ? ((SqeException) e).code() : ErrorCode.INTERNAL;
      String message = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
      context.run().abort(code, message);
    }

    @Override
    public void reset() {
      throw new UnsupportedOperationException("A parallel pipeline cannot be rewound");
    }

    @Override
    public void close() {
      closed = true;
      if (local != null) {
        local.close();
        local = null;
      }
      if (!finished && running > 0 && failure.get() == null) {
        // Abandoned early (something above failed): the parts still running have no consumer.
        failed(new SqeException(ErrorCode.CANCELLED, "Query " + context.queryId() + " stopped"));
      }
    }

    /** One part on a pool thread. */
    private final class Worker implements Runnable {
      private final int index;

      Worker(int index) {
        this.index = index;
      }

      @Override
      public void run() {
        try {
          if (closed || context.isCancelled()) {
            return;
          }
          try (Enumerator<Object> rows = part.apply(new PartContext(root, index, shared)).enumerator()) {
            Object[] rowBatch = new Object[BATCH_ROWS];
            int size = 0;
            while (rows.moveNext()) {
              rowBatch[size++] = rows.current();
              if (size == BATCH_ROWS) {
                if (!put(rowBatch)) {
                  return;
                }
                rowBatch = new Object[BATCH_ROWS];
                size = 0;
              }
            }
            if (size > 0) {
              put(Arrays.copyOf(rowBatch, size));
            }
          }
        } catch (RuntimeException | Error e) {
          put(failed(e));
        } finally {
          put(DONE);
        }
      }

      /** Queues {@code item}; false when the consumer has gone. */
      private boolean put(Object item) {
        try {
          while (!closed) {
            if (queue.offer(item, WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
              return true;
            }
          }
          return false;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
  }
}
