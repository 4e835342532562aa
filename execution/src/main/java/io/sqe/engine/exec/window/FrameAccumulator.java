package io.sqe.engine.exec.window;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.expr.RowComparator;
import java.math.BigDecimal;
import java.util.List;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;

/** The running state of COUNT, $SUM0, MIN or MAX over the rows of a frame, added one at a time in any order. */
abstract class FrameAccumulator {
  final WindowRows rows;
  final int argument;

  FrameAccumulator(WindowRows rows, int argument) {
    this.rows = rows;
    this.argument = argument;
  }

  abstract void reset();

  abstract void add(int i);

  /** Writes the result over the rows added since the last reset at {@code position} of {@code out}. */
  abstract void write(FieldVector out, int position);

  static FrameAccumulator of(WindowFunction function, WindowRows rows) {
    int argument = function.argument();
    return switch (function.kind()) {
      case COUNT_STAR, COUNT -> new Count(rows, argument);
      case SUM0 -> {
        FieldVector sample = rows.vector(argument, 0);
        if (sample instanceof Float8Vector || sample instanceof Float4Vector) {
          yield new DoubleSum(rows, argument);
        }
        yield sample instanceof DecimalVector ? new DecimalSum(rows, argument) : new LongSum(rows, argument);
      }
      case MIN, MAX -> new Extreme(rows, argument, function.kind() == WindowFunction.Kind.MAX);
      default -> throw new IllegalArgumentException("Not an aggregate: " + function.kind());
    };
  }

  boolean isNull(int i) {
    return rows.vector(argument, i).isNull(rows.row(i));
  }

  private static final class Count extends FrameAccumulator {
    private long count;

    Count(WindowRows rows, int argument) {
      super(rows, argument);
    }

    @Override
    void reset() {
      count = 0;
    }

    @Override
    void add(int i) {
      if (argument < 0 || !isNull(i)) {
        count++;
      }
    }

    @Override
    void write(FieldVector out, int position) {
      Values.setLong(out, position, count);
    }
  }

  /** $SUM0 of integers, failing on overflow with the row runtime's error (its sums are checked). */
  private static final class LongSum extends FrameAccumulator {
    private long sum;

    LongSum(WindowRows rows, int argument) {
      super(rows, argument);
    }

    @Override
    void reset() {
      sum = 0;
    }

    @Override
    void add(int i) {
      if (!isNull(i)) {
        long value = Values.getLong(rows.vector(argument, i), rows.row(i));
        long total = sum + value;
        if (((sum ^ total) & (value ^ total)) < 0) {
          throw new SqeException(ErrorCode.INVALID_ARGUMENT, "bigint overflow in sum");
        }
        sum = total;
      }
    }

    @Override
    void write(FieldVector out, int position) {
      Values.setLong(out, position, sum);
    }
  }

  private static final class DoubleSum extends FrameAccumulator {
    private double sum;

    DoubleSum(WindowRows rows, int argument) {
      super(rows, argument);
    }

    @Override
    void reset() {
      sum = 0;
    }

    @Override
    void add(int i) {
      if (!isNull(i)) {
        sum += Values.getDouble(rows.vector(argument, i), rows.row(i));
      }
    }

    @Override
    void write(FieldVector out, int position) {
      Values.setDouble(out, position, sum);
    }
  }

  private static final class DecimalSum extends FrameAccumulator {
    private BigDecimal sum = BigDecimal.ZERO;

    DecimalSum(WindowRows rows, int argument) {
      super(rows, argument);
    }

    @Override
    void reset() {
      sum = BigDecimal.ZERO;
    }

    @Override
    void add(int i) {
      if (!isNull(i)) {
        sum = sum.add(((DecimalVector) rows.vector(argument, i)).getObject(rows.row(i)));
      }
    }

    @Override
    void write(FieldVector out, int position) {
      Values.setDecimal(out, position, sum);
    }
  }

  /** MIN or MAX: the row of the least or greatest value added, whose value is copied out. */
  private static final class Extreme extends FrameAccumulator {
    private final RowComparator comparator;
    private int best = -1;

    Extreme(WindowRows rows, int argument, boolean max) {
      super(rows, argument);
      this.comparator = new RowComparator(List.of(new RowComparator.Key(argument, max, false)));
    }

    @Override
    void reset() {
      best = -1;
    }

    @Override
    void add(int i) {
      if (!isNull(i) && (best < 0 || comparator.compare(rows.columnsOf(i), rows.row(i), rows.columnsOf(best), rows.row(best)) < 0)) {
        best = i;
      }
    }

    @Override
    void write(FieldVector out, int position) {
      if (best < 0) {
        out.setNull(position);
      } else {
        out.copyFromSafe(rows.row(best), position, rows.vector(argument, best));
      }
    }
  }
}
