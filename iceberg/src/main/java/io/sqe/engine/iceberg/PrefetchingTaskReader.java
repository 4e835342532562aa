package io.sqe.engine.iceberg;

import io.opentelemetry.api.trace.Span;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.trace.Spans;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.io.CloseableIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a scan's file scan tasks on background threads, so that decoding Parquet (the largest part
 * of a scan's cost) runs on another core than the operators consuming its output, and two files
 * decode at once. At most {@code parallelism} tasks are read ahead, each into a bounded queue of
 * items (batches of rows, or record batches), and the items come out in task order, exactly as a
 * sequential read returns them.
 *
 * <p>A reader stops at its next item when the query is cancelled or the scan is closed; the
 * consumer checks for cancellation while it waits. A reader's failure is thrown to the consumer
 * when it reaches that task's items. Items that own memory are handed to {@code discard} when the
 * scan closes before taking them, and closing waits for the readers to stop, so that nothing a
 * reader allocated outlives the scan.
 *
 * <p>Read-ahead yields to the query's memory: while less than a quarter of the query's limit is free,
 * a reader whose items wait in its queue decodes no further until the consumer takes them or the
 * memory is freed (a sort or aggregate above spills). Otherwise batches read ahead, several per
 * task, would take the room the operator consuming them needs, and fail the query instead.
 */
final class PrefetchingTaskReader<T> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PrefetchingTaskReader.class);
  /** Rows per batch when the items are rows: see {@link #rowBatches}. */
  static final int ROW_BATCH = 1024;
  private static final int QUEUED_ITEMS = 4;
  private static final long WAIT_MILLIS = 50;
  /** How long closing waits for the readers to reach their next item and stop. */
  private static final long CLOSE_WAIT_SECONDS = 30;
  private static final Object END = new Object();
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ExecutorService READERS =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "sqe-scan-reader-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });

  private final Iterator<FileScanTask> tasks;
  private final Function<FileScanTask, CloseableIterator<T>> open;
  private final Consumer<T> discard;
  private final QueryContext context;
  private final int parallelism;
  /** The memory the items take, or null when they are rows on the heap. */
  private final BufferAllocator memory;
  /** Read-ahead pauses while {@link #memory} has less headroom than this. */
  private final long reserve;
  private final ArrayDeque<TaskItems> reading = new ArrayDeque<>();
  private volatile boolean closed;

  /**
   * @param open opens one task's items; called on a reader thread
   * @param discard releases an item nobody will take
   * @param memory the allocator the items' memory comes from, or null when they hold none
   */
  PrefetchingTaskReader(
      Iterator<FileScanTask> tasks,
      Function<FileScanTask, CloseableIterator<T>> open,
      Consumer<T> discard,
      QueryContext context,
      int parallelism,
      BufferAllocator memory) {
    this.tasks = tasks;
    this.open = open;
    this.discard = discard;
    this.context = context;
    this.parallelism = Math.max(1, parallelism);
    this.memory = memory;
    this.reserve = memory == null ? 0 : limit(memory) / 4;
  }

  /** The smallest limit on the way from {@code allocator} to the root: what bounds its allocations. */
  private static long limit(BufferAllocator allocator) {
    long limit = Long.MAX_VALUE;
    for (BufferAllocator a = allocator; a != null; a = a.getParentAllocator()) {
      limit = Math.min(limit, a.getLimit());
    }
    return limit;
  }

  /** A reader of tasks' rows, in batches of up to {@link #ROW_BATCH} rows. */
  static PrefetchingTaskReader<Object[]> rowBatches(
      Iterator<FileScanTask> tasks, Function<FileScanTask, CloseableIterator<Object>> open, QueryContext context, int parallelism) {
    return new PrefetchingTaskReader<>(tasks, task -> new RowBatches(open.apply(task)), batch -> {}, context, parallelism, null);
  }

  /** The next item, or null after the last task's last item. */
  T next() {
    while (true) {
      while (reading.size() < parallelism && tasks.hasNext() && !closed) {
        TaskItems task = new TaskItems(tasks.next());
        reading.addLast(task);
        READERS.execute(Spans.carried("sqe.scan.read_task", task));
      }
      TaskItems head = reading.peekFirst();
      if (head == null) {
        return null;
      }
      T item = head.take();
      if (item == null) {
        reading.removeFirst();
        continue;
      }
      return item;
    }
  }

  @Override
  public void close() {
    closed = true;
    List<TaskItems> started = List.copyOf(reading);
    reading.clear();
    for (TaskItems task : started) {
      task.drain();
    }
    for (TaskItems task : started) {
      try {
        if (!task.done.await(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
          LOG.warn("A scan reader of {} did not stop within {} s", task.task.file().location(), CLOSE_WAIT_SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      task.drain();
    }
  }

  /** One task's items, read on a reader thread into a bounded queue. */
  private final class TaskItems implements Runnable {
    private final FileScanTask task;
    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUED_ITEMS + 1);
    /** Counted down when the reader has stopped and will put nothing more. */
    private final CountDownLatch done = new CountDownLatch(1);

    TaskItems(FileScanTask task) {
      this.task = task;
    }

    @Override
    public void run() {
      try {
        read();
      } finally {
        if (closed) {
          drain();
        }
        done.countDown();
      }
    }

    private void read() {
      if (closed || context.isCancelled()) {
        return;
      }
      // The end (or failure) is queued only once the task's reader is closed: the consumer may
      // release the query's memory as soon as it takes it.
      Object last = END;
      Span.current().setAttribute("sqe.file.bytes", task.file().fileSizeInBytes());
      try (CloseableIterator<T> items = open.apply(task)) {
        while (awaitRoom() && items.hasNext()) {
          T item = items.next();
          if (!put(item)) {
            discard.accept(item);
            return;
          }
        }
      } catch (IOException e) {
        last = new Failure(new UncheckedIOException(e));
      } catch (RuntimeException | Error e) {
        last = new Failure(e);
      }
      put(last);
    }

    /**
     * Waits while this task's items are queued and the query's memory is short; false when the scan
     * was closed or the query cancelled meanwhile.
     */
    private boolean awaitRoom() {
      if (memory == null) {
        return true;
      }
      try {
        while (!queue.isEmpty() && memory.getHeadroom() < reserve) {
          if (closed || context.isCancelled()) {
            return false;
          }
          synchronized (this) {
            wait(WAIT_MILLIS);
          }
        }
        return !closed && !context.isCancelled();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
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

    /** Releases the items nobody will take. */
    @SuppressWarnings("unchecked")
    void drain() {
      Object item;
      while ((item = queue.poll()) != null) {
        if (item != END && !(item instanceof Failure)) {
          discard.accept((T) item);
        }
      }
    }

    /** The next item of this task, or null at its end; waits for the reader, checking for cancellation. */
    @SuppressWarnings("unchecked")
    T take() {
      try {
        while (true) {
          context.checkCancelled();
          Object item = queue.poll(WAIT_MILLIS, TimeUnit.MILLISECONDS);
          if (item != null && memory != null) {
            synchronized (this) {
              notifyAll();
            }
          }
          if (item instanceof Failure) {
            Throwable cause = ((Failure) item).cause;
            if (cause instanceof RuntimeException) {
              throw (RuntimeException) cause;
            }
            throw (Error) cause;
          }
          if (item == END) {
            return null;
          }
          if (item != null) {
            return (T) item;
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

  /** A task's rows in batches of up to {@link #ROW_BATCH}. */
  private static final class RowBatches implements CloseableIterator<Object[]> {
    private final CloseableIterator<Object> rows;

    RowBatches(CloseableIterator<Object> rows) {
      this.rows = rows;
    }

    @Override
    public boolean hasNext() {
      return rows.hasNext();
    }

    @Override
    public Object[] next() {
      if (!rows.hasNext()) {
        throw new NoSuchElementException();
      }
      Object[] batch = new Object[ROW_BATCH];
      int size = 0;
      while (size < ROW_BATCH && rows.hasNext()) {
        batch[size++] = rows.next();
      }
      return size == ROW_BATCH ? batch : Arrays.copyOf(batch, size);
    }

    @Override
    public void close() throws IOException {
      rows.close();
    }
  }
}
