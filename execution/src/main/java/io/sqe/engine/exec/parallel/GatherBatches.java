package io.sqe.engine.exec.parallel;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.batch.BatchOperator;
import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.trace.Spans;
import java.util.ArrayDeque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The columnar form of a parallel pipeline: {@code parts} copies of a batch plan over a split
 * scan, each opened with its part's context (so each scan claims its own splits of the files all
 * parts planned once), and the batches of all of them, in no particular order. As {@link
 * ParallelParts} does for rows: part 0 runs on the consuming thread, the others on the shared pool
 * (a part it has no thread for runs on the consuming thread after its own), each handing its
 * batches over through a bounded queue. The first failure of a part is the gather's; closing the
 * gather early stops the parts at their next batch and returns only once every part has closed
 * its operators and every queued batch is released, so the query's allocator is left empty.
 */
public final class GatherBatches implements BatchOperator {
  private static final int QUEUED_BATCHES_PER_PART = 2;
  private static final long WAIT_MILLIS = 50;
  private static final Object DONE = new Object();

  private final BatchPlan part;
  private final int parts;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private final PartContext.Shared shared;
  private final BlockingQueue<Object> queue;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final ArrayDeque<Integer> inline = new ArrayDeque<>();
  private CountDownLatch workersDone = new CountDownLatch(0);
  private int running;
  private volatile boolean closed;
  private boolean started;
  private BatchOperator local;

  public GatherBatches(BatchPlan part, int parts, QueryContext context, BufferAllocator allocator) {
    this.part = requireNonNull(part, "part is null");
    this.parts = parts;
    this.shared = new PartContext.Shared(parts);
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.queue = new ArrayBlockingQueue<>(QUEUED_BATCHES_PER_PART * parts + parts);
  }

  /** Starts the parts when the first batch is asked for, as {@link ParallelParts} does. */
  private void start() {
    started = true;
    inline.add(0);
    workersDone = new CountDownLatch(parts - 1);
    for (int i = 1; i < parts; i++) {
      try {
        ParallelParts.WORKERS.execute(Spans.carried("sqe.pipeline.part", new Worker(i)));
        running++;
      } catch (RejectedExecutionException e) {
        inline.add(i);
        workersDone.countDown();
      }
    }
  }

  private BatchOperator open(int index) {
    PartContext partContext = new PartContext(context, index, shared);
    return part.open(context.forPart(partContext, partContext.runtimeState()), allocator);
  }

  @Override
  public VectorSchemaRoot next() {
    try {
      if (!started) {
        start();
      }
      while (true) {
        Object item = queue.poll();
        if (item == null && local != null) {
          VectorSchemaRoot batch = local.next();
          if (batch != null) {
            return batch;
          }
          local.close();
          local = null;
          continue;
        }
        if (item == null && !inline.isEmpty()) {
          local = open(inline.poll());
          continue;
        }
        if (item == null) {
          if (running == 0) {
            Throwable failed = failure.get();
            if (failed != null) {
              throw ExecutionErrors.rethrow(failed);
            }
            return null;
          }
          item = take();
        }
        if (item == DONE) {
          running--;
        } else if (item instanceof Throwable thrown) {
          throw ExecutionErrors.rethrow(thrown);
        } else {
          return (VectorSchemaRoot) item;
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

  /** Records the first failure, which is the one reported: later ones may be its echo. */
  private Throwable failed(Throwable e) {
    return failure.compareAndSet(null, e) ? e : failure.get();
  }

  @Override
  public void close() {
    closed = true;
    try {
      if (local != null) {
        local.close();
        local = null;
      }
    } finally {
      // The parts see the flag at their next batch; their batches still queued are released here.
      boolean interrupted = false;
      while (true) {
        releaseQueued();
        try {
          if (workersDone.await(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
            break;
          }
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      releaseQueued();
      // No part runs any more: what they shared (a join's build side) goes now if it has not.
      shared.close();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void releaseQueued() {
    for (Object item = queue.poll(); item != null; item = queue.poll()) {
      if (item instanceof VectorSchemaRoot batch) {
        batch.close();
      }
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
        try (BatchOperator operator = open(index)) {
          while (!closed) {
            VectorSchemaRoot batch = operator.next();
            if (batch == null) {
              break;
            }
            if (!put(batch)) {
              batch.close();
              return;
            }
          }
        }
      } catch (RuntimeException | Error e) {
        put(failed(e));
      } finally {
        put(DONE);
        workersDone.countDown();
      }
    }

    /**
     * Queues {@code item}; false when the consumer has gone. While the queue is full the part is
     * marked as handing over: an exchange it reads from does not wait for it then, since the
     * consumer it waits for may be the one waiting in the exchange.
     */
    private boolean put(Object item) {
      if (queue.offer(item)) {
        return true;
      }
      shared.handingOver(index, true);
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
      } finally {
        shared.handingOver(index, false);
      }
    }
  }
}
