package io.sqe.engine.exec.join;

import static java.util.Objects.requireNonNull;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A growable array of ints in an Arrow buffer of the query's allocator, so that a join's row chains
 * and match flags count against the query's memory limit. New entries read {@code fill}.
 */
final class ArrowInts implements AutoCloseable {
  private final BufferAllocator allocator;
  private final int fill;
  private ArrowBuf buffer;
  private int capacity;

  ArrowInts(BufferAllocator allocator, int fill) {
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.fill = fill;
  }

  /** Makes entries {@code 0..size-1} readable, the new ones {@code fill}. */
  void ensure(int size) {
    if (size <= capacity) {
      return;
    }
    int grown = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(size, Math.max(1024L, capacity * 2L)));
    ArrowBuf next = allocator.buffer((long) grown * Integer.BYTES);
    if (buffer != null) {
      next.setBytes(0, buffer, 0, (long) capacity * Integer.BYTES);
      buffer.close();
    }
    buffer = next;
    for (int i = capacity; i < grown; i++) {
      buffer.setInt((long) i * Integer.BYTES, fill);
    }
    capacity = grown;
  }

  int get(int index) {
    return buffer.getInt((long) index * Integer.BYTES);
  }

  void set(int index, int value) {
    buffer.setInt((long) index * Integer.BYTES, value);
  }

  @Override
  public void close() {
    if (buffer != null) {
      buffer.close();
      buffer = null;
      capacity = 0;
    }
  }
}
