package io.sqe.engine.exec.hash;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/** The bytes of a key table's variable-width keys, one after another in a buffer that doubles as it fills. */
final class VarData implements AutoCloseable {
  private final BufferAllocator allocator;
  private ArrowBuf buffer;
  private long used;

  VarData(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  ArrowBuf buffer() {
    return buffer;
  }

  /** Copies {@code length} bytes of {@code source} from {@code start} to the end; returns where they now start. */
  long append(ArrowBuf source, long start, int length) {
    long at = used;
    if (buffer == null || at + length > buffer.capacity()) {
      long capacity = Math.max(4096, Math.max(at + length, buffer == null ? 0 : buffer.capacity() * 2));
      buffer = Buffers.grow(allocator, buffer, at, capacity);
    }
    buffer.setBytes(at, source, start, length);
    used = at + length;
    return at;
  }

  @Override
  public void close() {
    if (buffer != null) {
      buffer.close();
      buffer = null;
    }
  }
}
