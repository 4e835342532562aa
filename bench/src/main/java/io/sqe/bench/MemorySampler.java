package io.sqe.bench;

import io.sqe.flight.SqeServer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's memory while a statement runs, sampled every few milliseconds on a daemon thread:
 * Java heap used (SQE runs in the benchmark's JVM, so this is the whole process's heap, garbage not
 * yet collected included) and the bytes held by the server's Arrow root allocator. {@link #begin()}
 * starts a window (and resets the JVM's per-pool peak usage); {@link #end()} returns its peaks. The
 * heap peak is the larger of the sampled maximum and the JVM's own peak of the heap's pools summed
 * (an upper bound: the pools need not peak together), so a spike between two samples is not lost.
 */
final class MemorySampler implements AutoCloseable {
  private static final long INTERVAL_MILLIS = 5;

  /** Peaks of one window, in bytes; -1 where nothing was measured ({@link #NONE}). */
  record Peak(long heapBytes, long arrowBytes) {
    static final Peak NONE = new Peak(-1, -1);

    String heapMb() {
      return heapBytes < 0 ? "" : String.format(Locale.ROOT, "%.0f", heapBytes / 1048576.0);
    }

    String arrowMb() {
      return arrowBytes < 0 ? "" : String.format(Locale.ROOT, "%.2f", arrowBytes / 1048576.0);
    }

    Peak max(Peak other) {
      return new Peak(Math.max(heapBytes, other.heapBytes), Math.max(arrowBytes, other.arrowBytes));
    }
  }

  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  private final List<MemoryPoolMXBean> heapPools =
      ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP).toList();
  private final SqeServer server;
  private final AtomicLong heapPeak = new AtomicLong();
  private final AtomicLong arrowPeak = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;

  MemorySampler(SqeServer server) {
    this.server = server;
    this.thread = new Thread(this::sample, "bench-memory-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  void begin() {
    heapPools.forEach(MemoryPoolMXBean::resetPeakUsage);
    heapPeak.set(memory.getHeapMemoryUsage().getUsed());
    arrowPeak.set(server.arrowAllocatedBytes());
  }

  Peak end() {
    sampleOnce();
    long pools = heapPools.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
    return new Peak(Math.max(heapPeak.get(), pools), arrowPeak.get());
  }

  private void sample() {
    while (running) {
      sampleOnce();
      try {
        Thread.sleep(INTERVAL_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void sampleOnce() {
    heapPeak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
    arrowPeak.accumulateAndGet(server.arrowAllocatedBytes(), Math::max);
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
