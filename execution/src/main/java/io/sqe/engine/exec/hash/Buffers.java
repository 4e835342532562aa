package io.sqe.engine.exec.hash;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/** Growing the Arrow buffers of hash tables, so their memory stays under the query's allocator. */
final class Buffers {
  private Buffers() {}

  /**
   * A buffer of {@code capacity} bytes holding the first {@code used} bytes of {@code old}, which
   * is closed (null for none). When the allocator refuses, {@code old} is left as it was.
   */
  static ArrowBuf grow(BufferAllocator allocator, ArrowBuf old, long used, long capacity) {
    ArrowBuf grown = allocator.buffer(capacity);
    if (old != null) {
      grown.setBytes(0, old, 0, used);
      old.close();
    }
    return grown;
  }

  /** A zeroed buffer of {@code capacity} bytes. */
  static ArrowBuf zeroed(BufferAllocator allocator, long capacity) {
    ArrowBuf buffer = allocator.buffer(capacity);
    buffer.setZero(0, capacity);
    return buffer;
  }
}
