package io.sqe.engine.exec.aggregate;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/** COUNT(*), and COUNT(column), which counts the rows whose value is not NULL: a BIGINT per group. */
final class CountAccumulator implements Accumulator {
  private final StateBuffer counts;

  CountAccumulator(BufferAllocator allocator) {
    this.counts = new StateBuffer(allocator);
  }

  @Override
  public void grow(int groupCount) {
    counts.ensure(groupCount * 8L);
  }

  @Override
  public void add(FieldVector input, int rowCount, int[] groups) {
    ArrowBuf state = counts.buffer();
    boolean all = input == null || input.getNullCount() == 0;
    ArrowBuf validity = input == null ? null : input.getValidityBuffer();
    for (int r = 0; r < rowCount; r++) {
      int g = groups[r];
      if (g >= 0 && (all || BitVectorHelper.get(validity, r) != 0)) {
        long at = g * 8L;
        state.setLong(at, state.getLong(at) + 1);
      }
    }
  }

  @Override
  public void write(int from, int count, FieldVector out) {
    out.getDataBuffer().setBytes(0, counts.buffer(), from * 8L, count * 8L);
    ArrowBuf validity = out.getValidityBuffer();
    for (int i = 0; i < count; i++) {
      BitVectorHelper.setBit(validity, i);
    }
  }

  @Override
  public void close() {
    counts.close();
  }
}
