package io.sqe.write.files;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.parquet.bytes.ByteBufferAllocator;

/**
 * The heap buffers of one Parquet file's column writers, kept for reuse when parquet-mr releases
 * them: its value and level writers drop their slabs after every page and allocate them again,
 * the same sizes, for the next (zeroed new arrays each time, and garbage for the young
 * collector). Buffers of a size are reused as they are (parquet-mr writes a slab before it reads
 * it); up to 16 MiB are kept, a file's pages at Iceberg's page row limit taking a few MiB (a
 * partitioned write keeps many files open). Safe for the threads that share a file's columns.
 */
final class SlabPool implements ByteBufferAllocator {
  private static final long MAX_POOLED_BYTES = 16L << 20;

  private final Map<Integer, Queue<ByteBuffer>> free = new ConcurrentHashMap<>();
  private final AtomicLong pooledBytes = new AtomicLong();

  @Override
  public ByteBuffer allocate(int size) {
    Queue<ByteBuffer> buffers = free.get(size);
    ByteBuffer buffer = buffers == null ? null : buffers.poll();
    if (buffer == null) {
      return ByteBuffer.allocate(size);
    }
    pooledBytes.addAndGet(-size);
    return buffer.clear();
  }

  @Override
  public void release(ByteBuffer buffer) {
    int size = buffer.capacity();
    if (buffer.isDirect() || pooledBytes.addAndGet(size) > MAX_POOLED_BYTES) {
      pooledBytes.addAndGet(-size);
      return;
    }
    free.computeIfAbsent(size, s -> new ConcurrentLinkedQueue<>()).offer(buffer);
  }

  @Override
  public boolean isDirect() {
    return false;
  }
}
