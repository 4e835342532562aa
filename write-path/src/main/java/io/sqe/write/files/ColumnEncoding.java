package io.sqe.write.files;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes a chunk of rows into a Parquet file's columns, the columns shared out between the calling
 * thread and the write path's helper threads (one fewer than the machine's cores). Each column has
 * a writer of its own ({@link ColumnChunkWriter}), so a column's values and its pages (levels,
 * dictionary ids, compression) are written by one thread, touching only that column's state. The
 * columns are taken one at a time from a shared list, the most expensive in the previous chunk
 * first, by whichever thread is free: a helper that starts late, or not at all on a busy machine,
 * takes fewer, and the caller never waits for a column nobody has started.
 */
final class ColumnEncoding {
  private static final ExecutorService HELPERS = helpers();
  private static final int HELPER_COUNT = Runtime.getRuntime().availableProcessors() - 1;

  private final ColumnChunkWriter[] sinks;
  /** Each column's time in the last chunk, in nanoseconds. */
  private final long[] nanos;

  ColumnEncoding(ColumnChunkWriter[] sinks) {
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

  /** Writes column values of rows {@code rows[i]} of {@code batches[i]}, for i below {@code count}, and ends the rows. */
  void write(BatchRows[] batches, int[] rows, int count) {
    Chunk chunk = new Chunk(batches, rows, count, order());
    if (HELPERS != null) {
      for (int i = 0; i < Math.min(HELPER_COUNT, sinks.length - 1); i++) {
        try {
          HELPERS.execute(chunk);
        } catch (RejectedExecutionException e) {
          // The caller writes every column.
        }
      }
    }
    chunk.run();
    chunk.await();
    chunk.rethrow();
  }

  /** The columns by their time in the last chunk, the longest first. */
  private int[] order() {
    Integer[] order = new Integer[sinks.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(nanos[b], nanos[a]));
    return Arrays.stream(order).mapToInt(Integer::intValue).toArray();
  }

  /** A chunk's columns, each written by the first thread to take it. */
  private final class Chunk implements Runnable {
    private final BatchRows[] batches;
    private final int[] rows;
    private final int count;
    private final int[] order;
    private final AtomicInteger next = new AtomicInteger();
    private final CountDownLatch done;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    Chunk(BatchRows[] batches, int[] rows, int count, int[] order) {
      this.batches = batches;
      this.rows = rows;
      this.count = count;
      this.order = order;
      this.done = new CountDownLatch(order.length);
    }

    @Override
    public void run() {
      for (int taken = next.getAndIncrement(); taken < order.length; taken = next.getAndIncrement()) {
        int column = order[taken];
        try {
          if (failure.get() == null) {
            long start = System.nanoTime();
            write(column);
            nanos[column] = System.nanoTime() - start;
          }
        } catch (RuntimeException | Error e) {
          failure.compareAndSet(null, e);
        } finally {
          done.countDown();
        }
      }
    }

    /** Writes the column's values, in runs of rows of one batch, ending them where the column checks its page's size. */
    private void write(int column) {
      ColumnChunkWriter sink = sinks[column];
      int i = 0;
      while (i < count) {
        int start = i;
        int end = Math.min(count, i + sink.rowsBeforeCheck());
        while (i < end) {
          BatchRows batch = batches[i];
          int runEnd = i + 1;
          while (runEnd < end && batches[runEnd] == batch) {
            runEnd++;
          }
          batch.columns()[column].write(sink, rows, i, runEnd);
          i = runEnd;
        }
        sink.endRows(end - start);
      }
    }

    /** Waits for every column to be written, even when interrupted: they are not to be touched before. */
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
      Throwable thrown = failure.get();
      if (thrown instanceof RuntimeException e) {
        throw e;
      }
      if (thrown instanceof Error e) {
        throw e;
      }
    }
  }
}
