package io.sqe.engine.exec.profile;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one operator of a columnar plan did in one run, summed over the threads that ran a copy of
 * it (the parts of a parallel pipeline): rows, batches and bytes it returned, the time spent
 * opening it and in its {@code next()} calls (its inputs' time included), and the peak memory of
 * the allocator it has of its own, if it has one.
 */
public final class OperatorStats {
  private final LongAdder rows = new LongAdder();
  private final LongAdder batches = new LongAdder();
  private final LongAdder bytes = new LongAdder();
  private final LongAdder nanos = new LongAdder();
  private final AtomicLong peakMemoryBytes = new AtomicLong(-1);

  /** A call took {@code nanos} and returned a batch of {@code rows} rows in {@code bytes} bytes, or none when {@code rows} is -1. */
  public void returned(long rows, long bytes, long nanos) {
    if (rows >= 0) {
      this.rows.add(rows);
      this.batches.increment();
      this.bytes.add(bytes);
    }
    this.nanos.add(nanos);
  }

  /** The operator's own allocator peaked at {@code bytes}; the largest of its copies' peaks stays. */
  public void peakMemory(long bytes) {
    peakMemoryBytes.accumulateAndGet(bytes, Math::max);
  }

  public long rows() {
    return rows.sum();
  }

  public long batches() {
    return batches.sum();
  }

  public long bytes() {
    return bytes.sum();
  }

  /** Time spent opening the operator and in its {@code next()}, its inputs' included. */
  public long inclusiveNanos() {
    return nanos.sum();
  }

  /** The peak of its own allocator; -1 when it has none. */
  public long peakMemoryBytes() {
    return peakMemoryBytes.get();
  }
}
