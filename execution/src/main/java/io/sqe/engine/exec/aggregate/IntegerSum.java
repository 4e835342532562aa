package io.sqe.engine.exec.aggregate;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * SUM and $SUM0 of integers into a BIGINT, failing on overflow as the row runtime's sums do
 * ("bigint overflow in sum") instead of wrapping around.
 */
final class IntegerSum implements Accumulator {
  private final int width;
  private final boolean zeroWhenEmpty;
  private final StateBuffer sums;
  private final StateBuffer seen;

  /** @param width bytes per input value: 1, 2, 4 or 8 */
  IntegerSum(int width, boolean zeroWhenEmpty, BufferAllocator allocator) {
    this.width = width;
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
      long value = switch (width) {
        case 1 -> data.getByte(r);
        case 2 -> data.getShort(r * 2L);
        case 4 -> data.getInt(r * 4L);
        default -> data.getLong(r * 8L);
      };
      long at = g * 8L;
      long total = state.getLong(at);
      long sum = total + value;
      if (((total ^ sum) & (value ^ sum)) < 0) {
        throw new SqeException(ErrorCode.INVALID_ARGUMENT, "bigint overflow in sum");
      }
      state.setLong(at, sum);
      BitVectorHelper.setBit(has, g);
    }
  }

  @Override
  public void write(int from, int count, FieldVector out) {
    out.getDataBuffer().setBytes(0, sums.buffer(), from * 8L, count * 8L);
    ArrowBuf validity = out.getValidityBuffer();
    ArrowBuf has = seen.buffer();
    for (int i = 0; i < count; i++) {
      if (zeroWhenEmpty || BitVectorHelper.get(has, from + i) != 0) {
        BitVectorHelper.setBit(validity, i);
      }
    }
  }

  @Override
  public void close() {
    sums.close();
    seen.close();
  }
}
