package io.sqe.engine.exec.aggregate;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Makes the accumulator of an aggregate call, for the input and result types it computes exactly. */
public final class Accumulators {
  private Accumulators() {}

  /** Whether {@link #create} computes {@code call}: the planner keeps the row runtime for the others. */
  public static boolean supports(AggregateCall call) {
    // Accumulators allocate nothing until their first group: one made without an allocator only answers.
    return make(call, null) != null;
  }

  /** The accumulator of {@code call}, its state in {@code allocator}'s buffers. */
  public static Accumulator create(AggregateCall call, BufferAllocator allocator) {
    Accumulator accumulator = make(call, allocator);
    if (accumulator == null) {
      throw new IllegalArgumentException("No columnar accumulator for " + call);
    }
    return accumulator;
  }

  private static Accumulator make(AggregateCall call, BufferAllocator allocator) {
    ArrowType out = call.output().getType();
    ArrowType in = call.input() == null ? null : call.input().getType();
    switch (call.kind()) {
      case COUNT_STAR:
      case COUNT:
        return out instanceof ArrowType.Int i && i.getBitWidth() == 64 ? new CountAccumulator(allocator) : null;
      case SUM:
      case SUM0:
        return sum(in, out, call.kind() == AggregateCall.Kind.SUM0, allocator);
      default:
        if (!in.equals(out)) {
          return null;
        }
        GroupValues values = GroupValues.of(call.input(), allocator);
        return values == null ? null : new ValueAccumulator(call.kind(), values, allocator);
    }
  }

  private static Accumulator sum(ArrowType in, ArrowType out, boolean zeroWhenEmpty, BufferAllocator allocator) {
    if (in instanceof ArrowType.Int i && out instanceof ArrowType.Int o && o.getBitWidth() == 64 && i.getIsSigned()) {
      return new IntegerSum(i.getBitWidth() / 8, zeroWhenEmpty, allocator);
    }
    if (in instanceof ArrowType.Decimal i && out instanceof ArrowType.Decimal o
        && i.getBitWidth() == 128 && o.getBitWidth() == 128 && i.getScale() == o.getScale()) {
      return new DecimalSum(i.getPrecision(), o.getPrecision(), zeroWhenEmpty, allocator);
    }
    if (in instanceof ArrowType.FloatingPoint i && out instanceof ArrowType.FloatingPoint o
        && i.getPrecision() != FloatingPointPrecision.HALF && o.getPrecision() != FloatingPointPrecision.HALF) {
      return new FloatSum(
          i.getPrecision() == FloatingPointPrecision.SINGLE, o.getPrecision() == FloatingPointPrecision.SINGLE, zeroWhenEmpty, allocator);
    }
    return null;
  }
}
