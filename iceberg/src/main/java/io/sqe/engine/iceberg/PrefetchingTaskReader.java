package io.sqe.engine.iceberg;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.io.CloseableIterator;

/**
 * Reads the rows of a scan's file scan tasks on background threads, so that decoding Parquet
 * (the largest part of a scan's cost) runs on another core than the operators consuming the rows,
 * and two files decode at once. At most {@code parallelism} tasks are read ahead, each into a
 * bounded queue of row batches, and the rows come out in task order, exactly as a sequential read
 * returns them.
 *
 * <p>A reader stops at its next batch when the query is cancelled or the scan is closed; the
 * consumer checks for cancellation while it waits. A reader's failure is thrown to the consumer
 * when it reaches that task's rows.
 */
final class PrefetchingTaskReader implements AutoCloseable {
  private static final int BATCH_ROWS = 1024;
  private static final int QUEUED_BATCHES = 4;
  private static final long WAIT_MILLIS = 50;
  private static final Object[] END = new Object[0];
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ExecutorService READERS =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "sqe-scan-reader-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });

  private final Iterator<FileScanTask> tasks;
  private final Function<FileScanTask, CloseableIterator<Object>> open;
  private final QueryContext context;
  private final int parallelism;
  private final ArrayDeque<TaskRows> reading = new ArrayDeque<>();
  private volatile boolean closed;

  /**
   * @param open opens one task's rows, in the row shape the scan returns; called on a reader thread
   */
  PrefetchingTaskReader(
      Iterator<FileScanTask> tasks,
      Function<FileScanTask, CloseableIterator<Object>> open,
      QueryContext context,
      int parallelism) {
    this.tasks = tasks;
    this.open = open;
    this.context = context;
    this.parallelism = Math.max(1, parallelism);
  }

  /** The next batch of rows (never empty), or null after the last task's last row. */
  Object[] nextBatch() {
    while (true) {
      while (reading.size() < parallelism && tasks.hasNext() && !closed) {
        TaskRows task = new TaskRows(tasks.next());
        reading.addLast(task);
        READERS.execute(task);
      }
      TaskRows head = reading.peekFirst();
      if (head == null) {
        return null;
      }
      Object[] batch = head.take();
      if (batch == END) {
        reading.removeFirst();
        continue;
      }
      return batch;
    }
  }

  @Override
  public void close() {
    closed = true;
    reading.clear();
  }

  /** One task's rows, read on a reader thread into a bounded queue. */
  private final class TaskRows implements Runnable {
    private final FileScanTask task;
    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUED_BATCHES + 1);

    TaskRows(FileScanTask task) {
      this.task = task;
    }

    @Override
    public void run() {
      if (closed || context.isCancelled()) {
        return;
      }
      try (CloseableIterator<Object> rows = open.apply(task)) {
        Object[] batch = new Object[BATCH_ROWS];
        int size = 0;
        while (rows.hasNext()) {
          batch[size++] = rows.next();
          if (size == BATCH_ROWS) {
            if (!put(batch)) {
              return;
            }
            batch = new Object[BATCH_ROWS];
            size = 0;
          }
        }
        if (size > 0 && !put(Arrays.copyOf(batch, size))) {
          return;
        }
        put(END);
      } catch (IOException e) {
        put(new Failure(new UncheckedIOException(e)));
      } catch (RuntimeException | Error e) {
        put(new Failure(e));
      }
    }

    /** Queues {@code item}; false when the scan was closed or the query cancelled meanwhile. */
    private boolean put(Object item) {
      try {
        while (!closed && !context.isCancelled()) {
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

    /** The next batch of this task, or {@link #END}; waits for the reader, checking for cancellation. */
    Object[] take() {
      try {
        while (true) {
          context.checkCancelled();
          Object item = queue.poll(WAIT_MILLIS, TimeUnit.MILLISECONDS);
          if (item instanceof Failure) {
            Throwable cause = ((Failure) item).cause;
            if (cause instanceof RuntimeException) {
              throw (RuntimeException) cause;
            }
            throw (Error) cause;
          }
          if (item != null) {
            return (Object[]) item;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SqeException(ErrorCode.CANCELLED, "Interrupted while reading " + task.file().location());
      }
    }
  }

  private static final class Failure {
    private final Throwable cause;

    Failure(Throwable cause) {
      this.cause = cause;
    }
  }
}
