package io.sqe.engine.exec;

import java.util.concurrent.atomic.AtomicLong;

/** Figures one query collects as it runs; safe to read from another thread. */
public final class QueryStats {
  private final AtomicLong filesScanned = new AtomicLong();
  private final AtomicLong bytesScanned = new AtomicLong();
  private final AtomicLong rowsReturned = new AtomicLong();
  private final AtomicLong batchesReturned = new AtomicLong();
  private volatile long planningNanos;
  private volatile long executionNanos;

  public void fileOpened(long bytes) {
    filesScanned.incrementAndGet();
    bytesScanned.addAndGet(bytes);
  }

  void batchReturned(int rows) {
    batchesReturned.incrementAndGet();
    rowsReturned.addAndGet(rows);
  }

  public void planningNanos(long nanos) {
    planningNanos = nanos;
  }

  void executionNanos(long nanos) {
    executionNanos = nanos;
  }

  public long filesScanned() {
    return filesScanned.get();
  }

  public long bytesScanned() {
    return bytesScanned.get();
  }

  public long rowsReturned() {
    return rowsReturned.get();
  }

  public long batchesReturned() {
    return batchesReturned.get();
  }

  public long planningNanos() {
    return planningNanos;
  }

  public long executionNanos() {
    return executionNanos;
  }
}
