package io.sqe.write.files;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes a chunk of rows into a Parquet file's column writers, the columns shared out between the
 * calling thread and the write path's helper threads (one fewer than the machine's cores).
 * parquet-mr's writer of one column touches only that column's state (values, dictionary,
 * levels, statistics) while values are written; pages are cut and compressed later, by the
 * calling thread. Columns go to threads by their cost in the previous chunk, largest first, each
 * to the least loaded thread; a part no helper has started when the caller is done with its own
 * runs on the caller, so a busy pool only costs the parallelism. The caller also ends the rows
 * and cuts pages, so it takes fewer columns.
 */
final class ColumnEncoding {
  private static final ExecutorService HELPERS = helpers();

  private final ColumnSink[] sinks;
  /** Each column's time in the last chunk, in nanoseconds. */
  private final long[] nanos;

  ColumnEncoding(ColumnSink[] sinks) {
    this.sinks = sinks;
    this.nanos = new long[sinks.length];
  }

  private static ExecutorService helpers() {
    int threads = Runtime.getRuntime().availableProcessors() - 1;
    if (threads < 1) {
      return null;
    }
    AtomicInteger ids = new AtomicInteger();
    return Executors.newFixedThreadPool(threads, task -> {
      Thread thread = new Thread(task, "sqe-write-encoder-" + ids.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Writes column values of rows {@code rows[i]} of {@code batches[i]}, for i below {@code count}.
   *
   * @param callerNanos the time the calling thread spends on the chunk besides its columns (ending
   *     the rows, cutting pages), which the shares of the columns make up for
   */
  void write(BatchRows[] batches, int[] rows, int count, long callerNanos) {
    List<Part> parts = parts(batches, rows, count, callerNanos);
    for (int i = 1; i < parts.size(); i++) {
      try {
        HELPERS.execute(parts.get(i));
      } catch (RejectedExecutionException e) {
        // The caller runs it below.
      }
    }
    for (Part part : parts) {
      if (part.claim()) {
        part.write();
      }
    }
    for (Part part : parts) {
      part.await();
    }
    for (Part part : parts) {
      part.rethrow();
    }
  }

  /** The columns shared out: the most expensive first, each to the part with the least so far. */
  private List<Part> parts(BatchRows[] batches, int[] rows, int count, long callerNanos) {
    int threads = HELPERS == null ? 1 : Math.min(sinks.length, Runtime.getRuntime().availableProcessors());
    List<Part> parts = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      parts.add(new Part(batches, rows, count));
    }
    Integer[] order = new Integer[sinks.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(nanos[b], nanos[a]));
    long[] load = new long[threads];
    load[0] = callerNanos;
    for (int column : order) {
      int least = 0;
      for (int p = 1; p < threads; p++) {
        if (load[p] < load[least]) {
          least = p;
        }
      }
      parts.get(least).columns.add(column);
      load[least] += Math.max(1, nanos[column]);
    }
    parts.forEach(p -> p.columns.sort(null));
    return parts;
  }

  /** Some of the columns, written by whichever thread claims them first. */
  private final class Part implements Runnable {
    private final List<Integer> columns = new ArrayList<>();
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    private final BatchRows[] batches;
    private final int[] rows;
    private final int count;
    private Throwable failure;

    Part(BatchRows[] batches, int[] rows, int count) {
      this.batches = batches;
      this.rows = rows;
      this.count = count;
    }

    boolean claim() {
      return claimed.compareAndSet(false, true);
    }

    @Override
    public void run() {
      if (claim()) {
        write();
      }
    }

    void write() {
      try {
        for (int column : columns) {
          long start = System.nanoTime();
          ColumnSink sink = sinks[column];
          for (int i = 0; i < count; i++) {
            VectorColumn values = batches[i].columns()[column];
            int row = rows[i];
            if (values.isNull(row)) {
              sink.writeNull();
            } else {
              values.write(sink, row);
            }
          }
          nanos[column] = System.nanoTime() - start;
        }
      } catch (RuntimeException | Error e) {
        failure = e;
      } finally {
        done.countDown();
      }
    }

    /** Waits for the part to be written, even when interrupted: its columns are not to be touched before. */
    void await() {
      boolean interrupted = false;
      while (true) {
        try {
          done.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }

    void rethrow() {
      if (failure instanceof RuntimeException e) {
        throw e;
      }
      if (failure instanceof Error e) {
        throw e;
      }
    }
  }
}
