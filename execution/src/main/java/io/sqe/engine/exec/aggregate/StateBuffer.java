package io.sqe.engine.exec.aggregate;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * An accumulator's state for every group, in one Arrow buffer of the query's allocator that grows
 * (zero-filled) as groups are added, so it counts against the query's memory limit.
 */
final class StateBuffer implements AutoCloseable {
  private final BufferAllocator allocator;
  private ArrowBuf buffer;

  StateBuffer(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  /** The buffer, valid until the next {@link #ensure}. */
  ArrowBuf buffer() {
    return buffer;
  }

  /** Makes the buffer at least {@code bytes} long; bytes added are zero. */
  void ensure(long bytes) {
    long capacity = buffer == null ? 0 : buffer.capacity();
    if (capacity >= bytes) {
      return;
    }
    long grown = Math.max(bytes, Math.max(64, capacity * 2));
    ArrowBuf next = allocator.buffer(grown);
    if (buffer != null) {
      next.setBytes(0, buffer, 0, capacity);
      buffer.close();
    }
    next.setZero(capacity, next.capacity() - capacity);
    buffer = next;
  }

  /** Ensures room for one bit per group of {@code groups}. */
  void ensureBits(int groups) {
    ensure((groups + 63L) / 64 * 8);
  }

  @Override
  public void close() {
    if (buffer != null) {
      buffer.close();
      buffer = null;
    }
  }
}
