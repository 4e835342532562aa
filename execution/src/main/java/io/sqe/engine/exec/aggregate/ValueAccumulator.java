package io.sqe.engine.exec.aggregate;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * MIN, MAX and ANY_VALUE, which keep one of a group's non-NULL values, and SINGLE_VALUE, the value
 * of a scalar sub-query, whose group may have only one row (NULL or not).
 */
final class ValueAccumulator implements Accumulator {
  private final AggregateCall.Kind kind;
  private final GroupValues values;
  /** SINGLE_VALUE only: the groups that have had a row. */
  private final StateBuffer seen;

  ValueAccumulator(AggregateCall.Kind kind, GroupValues values, BufferAllocator allocator) {
    this.kind = kind;
    this.values = values;
    this.seen = kind == AggregateCall.Kind.SINGLE_VALUE ? new StateBuffer(allocator) : null;
  }

  @Override
  public void grow(int groupCount) {
    values.grow(groupCount);
    if (seen != null) {
      seen.ensureBits(groupCount);
    }
  }

  @Override
  public void reserve(FieldVector input, int rowCount, int[] groups) {
    values.reserve(input, rowCount, groups);
  }

  @Override
  public void add(FieldVector input, int rowCount, int[] groups) {
    ArrowBuf validity = input.getValidityBuffer();
    boolean nulls = input.getNullCount() > 0;
    for (int r = 0; r < rowCount; r++) {
      int g = groups[r];
      if (g < 0) {
        continue;
      }
      if (seen != null) {
        if (BitVectorHelper.get(seen.buffer(), g) != 0) {
          throw new SqeException(ErrorCode.INVALID_ARGUMENT, "A scalar sub-query returned more than one row");
        }
        BitVectorHelper.setBit(seen.buffer(), g);
      }
      if (nulls && BitVectorHelper.get(validity, r) == 0) {
        continue;
      }
      if (!values.has(g)) {
        values.set(input, r, g);
      } else if (kind == AggregateCall.Kind.MIN ? values.compare(input, r, g) < 0 : kind == AggregateCall.Kind.MAX && values.compare(input, r, g) > 0) {
        values.set(input, r, g);
      }
    }
  }

  @Override
  public void write(int from, int count, FieldVector out) {
    values.write(from, count, out);
  }

  @Override
  public void close() {
    values.close();
    if (seen != null) {
      seen.close();
    }
  }
}
