package io.sqe.engine.exec.window;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.expr.RowComparator;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * Computes the functions of one window group over one partition, whose rows are in the group's
 * ORDER BY order: ranks from the rows' peers, offsets and frame values by position, and aggregates
 * by adding each frame's rows to an accumulator. Frames that start at the partition's start are
 * computed as running totals and frames that end at its end as running totals backwards, so each
 * row is added once; frames bounded on both sides add their rows again only when the frame moved
 * other than by growing.
 */
public final class WindowEvaluator {
  private final List<WindowFunction> functions;
  private final RowComparator order;
  private final WindowFrame frame;

  public WindowEvaluator(List<WindowFunction> functions, RowComparator order, WindowFrame frame) {
    this.functions = List.copyOf(functions);
    this.order = requireNonNull(order, "order is null");
    this.frame = requireNonNull(frame, "frame is null");
  }

  /** Writes each function's value of rows {@code [from, to)} of {@code rows}, a partition, at the same positions of {@code outs}. */
  public void evaluate(WindowRows rows, int from, int to, List<FieldVector> outs) {
    int n = to - from;
    int[] peerStart = new int[n];
    int[] peerEnd = new int[n];
    peers(rows, from, n, peerStart, peerEnd);
    List<FrameAccumulator> accumulators = new ArrayList<>();
    List<FieldVector> accumulated = new ArrayList<>();
    for (int f = 0; f < functions.size(); f++) {
      WindowFunction function = functions.get(f);
      FieldVector out = outs.get(f);
      if (function.kind().accumulates()) {
        accumulators.add(FrameAccumulator.of(function, rows));
        accumulated.add(out);
      } else {
        evaluate(function, rows, from, n, peerStart, peerEnd, out);
      }
    }
    if (!accumulators.isEmpty()) {
      aggregate(accumulators, accumulated, from, n, peerStart, peerEnd);
    }
  }

  /** The peers of each row: the rows from {@code peerStart} to before {@code peerEnd} (partition positions) share its ORDER BY keys. */
  private void peers(WindowRows rows, int from, int n, int[] peerStart, int[] peerEnd) {
    int start = 0;
    for (int p = 1; p <= n; p++) {
      if (p == n || order.compare(rows.columnsOf(from + p - 1), rows.row(from + p - 1), rows.columnsOf(from + p), rows.row(from + p)) != 0) {
        for (int q = start; q < p; q++) {
          peerStart[q] = start;
          peerEnd[q] = p;
        }
        start = p;
      }
    }
  }

  private void evaluate(WindowFunction function, WindowRows rows, int from, int n, int[] peerStart, int[] peerEnd, FieldVector out) {
    long dense = 0;
    for (int p = 0; p < n; p++) {
      int i = from + p;
      switch (function.kind()) {
        case ROW_NUMBER -> Values.setLong(out, i, p + 1);
        case RANK -> Values.setLong(out, i, peerStart[p] + 1);
        case DENSE_RANK -> {
          if (peerStart[p] == p) {
            dense++;
          }
          Values.setLong(out, i, dense);
        }
        // As Calcite computes it: 1 + tiles * position / rows, in integers.
        case NTILE -> Values.setLong(out, i, 1 + function.constant() * p / n);
        case LAG, LEAD -> {
          long at = function.kind() == WindowFunction.Kind.LAG ? p - function.constant() : p + function.constant();
          if (at >= 0 && at < n) {
            copy(rows, function.argument(), from + (int) at, out, i);
          } else if (function.defaultColumn() >= 0) {
            copy(rows, function.defaultColumn(), i, out, i);
          } else {
            Values.set(out, i, function.defaultValue());
          }
        }
        case FIRST_VALUE, LAST_VALUE, NTH_VALUE -> {
          int lo = frame.lower(p, peerStart[p]);
          int hi = frame.upper(p, peerEnd[p], n);
          long at = switch (function.kind()) {
            case FIRST_VALUE -> lo;
            case LAST_VALUE -> hi;
            default -> lo + function.constant() - 1;
          };
          if (lo <= hi && at >= lo && at <= hi) {
            copy(rows, function.argument(), from + (int) at, out, i);
          } else {
            out.setNull(i);
          }
        }
        default -> throw new IllegalStateException("Not a ranking or value function: " + function.kind());
      }
    }
  }

  private static void copy(WindowRows rows, int column, int from, FieldVector out, int to) {
    out.copyFromSafe(rows.row(from), to, rows.vector(column, from));
  }

  private void aggregate(List<FrameAccumulator> accumulators, List<FieldVector> outs, int from, int n, int[] peerStart, int[] peerEnd) {
    accumulators.forEach(FrameAccumulator::reset);
    if (frame.lower().kind() == WindowFrame.Bound.Kind.UNBOUNDED) {
      int added = -1;
      for (int p = 0; p < n; p++) {
        int hi = frame.upper(p, peerEnd[p], n);
        while (added < hi) {
          added++;
          for (FrameAccumulator accumulator : accumulators) {
            accumulator.add(from + added);
          }
        }
        write(accumulators, outs, from + p);
      }
      return;
    }
    if (frame.upper().kind() == WindowFrame.Bound.Kind.UNBOUNDED) {
      int added = n;
      for (int p = n - 1; p >= 0; p--) {
        int lo = frame.lower(p, peerStart[p]);
        while (added > lo) {
          added--;
          for (FrameAccumulator accumulator : accumulators) {
            accumulator.add(from + added);
          }
        }
        write(accumulators, outs, from + p);
      }
      return;
    }
    int lastLo = 0;
    int lastHi = -1;
    for (int p = 0; p < n; p++) {
      int lo = frame.lower(p, peerStart[p]);
      int hi = frame.upper(p, peerEnd[p], n);
      if (lo != lastLo || hi < lastHi) {
        accumulators.forEach(FrameAccumulator::reset);
        lastHi = lo - 1;
        lastLo = lo;
      }
      while (lastHi < hi) {
        lastHi++;
        for (FrameAccumulator accumulator : accumulators) {
          accumulator.add(from + lastHi);
        }
      }
      write(accumulators, outs, from + p);
    }
  }

  private static void write(List<FrameAccumulator> accumulators, List<FieldVector> outs, int position) {
    for (int a = 0; a < accumulators.size(); a++) {
      accumulators.get(a).write(outs.get(a), position);
    }
  }
}
