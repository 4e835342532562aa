package io.sqe.engine.exec.aggregate;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * SUM and $SUM0 of floating point, in the result's precision and in row order, as the row
 * runtime's {@code acc = acc + value} adds them: a REAL result is rounded to float after each
 * addition (the double sum of two floats rounds to their float sum).
 */
final class FloatSum implements Accumulator {
  private final boolean singleInput;
  private final boolean singleOutput;
  private final boolean zeroWhenEmpty;
  private final StateBuffer sums;
  private final StateBuffer seen;

  FloatSum(boolean singleInput, boolean singleOutput, boolean zeroWhenEmpty, BufferAllocator allocator) {
    this.singleInput = singleInput;
    this.singleOutput = singleOutput;
    this.zeroWhenEmpty = zeroWhenEmpty;
    this.sums = new StateBuffer(allocator);
    this.seen = new StateBuffer(allocator);
  }

  @Override
  public void grow(int groupCount) {
    sums.ensure(groupCount * 8L);
    seen.ensureBits(groupCount);
  }

  @Override
  public void add(FieldVector input, int rowCount, int[] groups) {
    ArrowBuf state = sums.buffer();
    ArrowBuf has = seen.buffer();
    ArrowBuf data = input.getDataBuffer();
    ArrowBuf validity = input.getValidityBuffer();
    boolean nulls = input.getNullCount() > 0;
    for (int r = 0; r < rowCount; r++) {
      int g = groups[r];
      if (g < 0 || nulls && BitVectorHelper.get(validity, r) == 0) {
        continue;
      }
      double value = singleInput ? data.getFloat(r * 4L) : data.getDouble(r * 8L);
      long at = g * 8L;
      double sum = state.getDouble(at) + value;
      state.setDouble(at, singleOutput ? (float) sum : sum);
      BitVectorHelper.setBit(has, g);
    }
  }

  @Override
  public void write(int from, int count, FieldVector out) {
    ArrowBuf state = sums.buffer();
    ArrowBuf data = out.getDataBuffer();
    ArrowBuf validity = out.getValidityBuffer();
    ArrowBuf has = seen.buffer();
    for (int i = 0; i < count; i++) {
      int g = from + i;
      if (!zeroWhenEmpty && BitVectorHelper.get(has, g) == 0) {
        continue;
      }
      double sum = state.getDouble(g * 8L);
      if (singleOutput) {
        data.setFloat(i * 4L, (float) sum);
      } else {
        data.setDouble(i * 8L, sum);
      }
      BitVectorHelper.setBit(validity, i);
    }
  }

  @Override
  public void close() {
    sums.close();
    seen.close();
  }
}
