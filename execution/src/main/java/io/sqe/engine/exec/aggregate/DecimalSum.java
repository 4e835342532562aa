package io.sqe.engine.exec.aggregate;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.math.BigInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * SUM and $SUM0 of decimals, exact: the unscaled values are added into 128 bits per group (two
 * longs, low first, as Arrow lays out a decimal), without a BigDecimal per row. The result has the
 * input's scale; a total beyond the result's precision fails as a decimal overflow.
 */
final class DecimalSum implements Accumulator {
  private static final BigInteger LOW_64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private final boolean wide;
  private final boolean zeroWhenEmpty;
  private final BigInteger limit;
  private final StateBuffer sums;
  private final StateBuffer seen;

  /**
   * @param inputPrecision the input's precision: up to 18 digits an unscaled value is its low 64 bits
   * @param outputPrecision the result's precision, which the totals must fit
   */
  DecimalSum(int inputPrecision, int outputPrecision, boolean zeroWhenEmpty, BufferAllocator allocator) {
    this.wide = inputPrecision > 18;
    this.zeroWhenEmpty = zeroWhenEmpty;
    this.limit = BigInteger.TEN.pow(outputPrecision);
    this.sums = new StateBuffer(allocator);
    this.seen = new StateBuffer(allocator);
  }

  @Override
  public void grow(int groupCount) {
    sums.ensure(groupCount * 16L);
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
      long low = data.getLong(r * 16L);
      long high = wide ? data.getLong(r * 16L + 8) : low >> 63;
      long at = g * 16L;
      long total = state.getLong(at);
      long sum = total + low;
      long carry = Long.compareUnsigned(sum, total) < 0 ? 1 : 0;
      state.setLong(at, sum);
      state.setLong(at + 8, state.getLong(at + 8) + high + carry);
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
      long low = state.getLong(g * 16L);
      long high = state.getLong(g * 16L + 8);
      if (high != low >> 63) {
        BigInteger total = BigInteger.valueOf(high).shiftLeft(64).or(BigInteger.valueOf(low).and(LOW_64));
        if (total.abs().compareTo(limit) >= 0) {
          throw new SqeException(ErrorCode.INVALID_ARGUMENT, "decimal overflow in sum");
        }
      }
      data.setLong(i * 16L, low);
      data.setLong(i * 16L + 8, high);
      BitVectorHelper.setBit(validity, i);
    }
  }

  @Override
  public void close() {
    sums.close();
    seen.close();
  }
}
