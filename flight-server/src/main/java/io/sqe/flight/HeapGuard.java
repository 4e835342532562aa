package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.exec.QueryTracker;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops the running statement that allocated the most heap when the old generation is still
 * nearly full after a full collection, with RESOURCE_EXHAUSTED: otherwise the next OutOfMemoryError picks its
 * victim at random, a gRPC thread or another user's query as likely as the one that filled the
 * heap.
 *
 * <p>Heap is not accounted per query (Arrow memory is, by each query's allocator), so "the most"
 * is measured by the bytes the statement's thread has allocated since it started, which the JVM
 * counts per thread. After stopping one it waits five seconds for that statement to let go
 * before it stops another.
 */
public final class HeapGuard implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeapGuard.class);
  private static final long PAUSE_NANOS = 5_000_000_000L;
  /** What a major collection's notification says, for every collector of HotSpot. */
  private static final String MAJOR_COLLECTION = "end of major GC";

  private final double threshold;
  private final QueryTracker queries;
  private final com.sun.management.ThreadMXBean threads;
  private final Set<Watch> watched = ConcurrentHashMap.newKeySet();
  private final List<Runnable> unsubscribe = new ArrayList<>();
  private final AtomicLong lastStop = new AtomicLong(System.nanoTime() - PAUSE_NANOS);

  private HeapGuard(double threshold, QueryTracker queries) {
    this.threshold = threshold;
    this.queries = requireNonNull(queries, "queries is null");
    this.threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  }

  /**
   * Watches the heap after every full collection.
   *
   * @param threshold the share of the heap (0 to 1) still in use after a full collection at which
   *     a statement is stopped; 0 turns the guard off
   */
  public static HeapGuard start(double threshold, QueryTracker queries) {
    if (threshold < 0 || threshold > 1) {
      throw new IllegalArgumentException("threshold must be between 0 and 1, not " + threshold);
    }
    HeapGuard guard = new HeapGuard(threshold, queries);
    if (threshold > 0) {
      guard.subscribe();
    }
    return guard;
  }

  private void subscribe() {
    // The old generation: the heap pools that take a usage threshold (HotSpot's eden and survivor
    // spaces do not). Live data ends up there, and the parallel collector caps it at a part of the
    // heap, so the heap's total would say 85% full while the old generation is at its limit.
    Set<String> oldPools = ConcurrentHashMap.newKeySet();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.isUsageThresholdSupported()) {
        oldPools.add(pool.getName());
      }
    }
    NotificationListener listener = (notification, handback) -> collected(notification, oldPools);
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector instanceof NotificationEmitter) {
        NotificationEmitter emitter = (NotificationEmitter) collector;
        emitter.addNotificationListener(listener, null, null);
        unsubscribe.add(() -> {
          try {
            emitter.removeNotificationListener(listener);
          } catch (ListenerNotFoundException e) {
            // Already gone.
          }
        });
      }
    }
  }

  private void collected(Notification notification, Set<String> oldPools) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    // After a minor collection the old generation still holds its garbage: only a full one says
    // what is live.
    if (!MAJOR_COLLECTION.equals(info.getGcAction())) {
      return;
    }
    long used = 0;
    long max = 0;
    for (var pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      MemoryUsage usage = pool.getValue();
      if (oldPools.contains(pool.getKey()) && usage.getMax() > 0) {
        used += usage.getUsed();
        max += usage.getMax();
      }
    }
    if (max > 0) {
      afterFullCollection(used, max);
    }
  }

  /** Stops the statement that allocated the most if {@code used} of {@code max} heap bytes is over the threshold. */
  void afterFullCollection(long used, long max) {
    if (threshold == 0 || used < threshold * max) {
      return;
    }
    long now = System.nanoTime();
    long last = lastStop.get();
    if (now - last < PAUSE_NANOS || !lastStop.compareAndSet(last, now)) {
      return;
    }
    Optional<Watch> biggest = watched.stream().max(Comparator.comparingLong(this::allocated));
    if (biggest.isEmpty()) {
      LOG.warn("The heap is {}% full after a full collection, and no statement is running", percent(used, max));
      return;
    }
    Watch watch = biggest.get();
    String message = "Query " + watch.queryId + " was stopped: the server's heap was " + percent(used, max)
        + "% full after a full garbage collection, and of the statements running this one had allocated the most ("
        + allocated(watch) / (1024 * 1024) + " MB); run it with less data or when the server is less busy";
    LOG.warn("{}", message);
    queries.find(watch.queryId).ifPresent(query -> query.cancel(ErrorCode.RESOURCE_EXHAUSTED, message));
  }

  private static long percent(long used, long max) {
    return Math.round(100.0 * used / max);
  }

  private long allocated(Watch watch) {
    if (!threads.isThreadAllocatedMemorySupported() || !threads.isThreadAllocatedMemoryEnabled()) {
      // Without the JVM's counts, the statement that has run longest.
      return System.nanoTime() - watch.startNanos;
    }
    long now = threads.getThreadAllocatedBytes(watch.threadId);
    return now < 0 ? 0 : now - watch.startBytes;
  }

  /**
   * Watches the statement {@code queryId} that runs on the calling thread until the watch is
   * closed.
   */
  Watch watch(String queryId) {
    Thread thread = Thread.currentThread();
    long start = threshold > 0 && threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled()
        ? threads.getThreadAllocatedBytes(thread.getId())
        : 0;
    Watch watch = new Watch(queryId, thread.getId(), Math.max(start, 0), System.nanoTime());
    if (threshold > 0) {
      watched.add(watch);
    }
    return watch;
  }

  @Override
  public void close() {
    unsubscribe.forEach(Runnable::run);
    watched.clear();
  }

  /** A statement running on a thread, watched until closed. */
  final class Watch implements AutoCloseable {
    private final String queryId;
    private final long threadId;
    private final long startBytes;
    private final long startNanos;

    private Watch(String queryId, long threadId, long startBytes, long startNanos) {
      this.queryId = requireNonNull(queryId, "queryId is null");
      this.threadId = threadId;
      this.startBytes = startBytes;
      this.startNanos = startNanos;
    }

    @Override
    public void close() {
      watched.remove(this);
    }
  }
}
