package io.sqe.engine.exec.window;

/**
 * The rows a window aggregate of one row reads, relative to that row: ROWS bounds count rows
 * ({@code offset} negative for PRECEDING), RANGE bounds are UNBOUNDED or CURRENT ROW, which takes
 * the row's peers (the rows of equal ORDER BY keys) in.
 */
public record WindowFrame(boolean rows, Bound lower, Bound upper) {
  /** One end of a frame. */
  public record Bound(Kind kind, long offset) {
    /** What a bound is relative to. */
    public enum Kind {
      UNBOUNDED,
      CURRENT_ROW,
      /** {@code offset} rows from the current one; ROWS frames only. */
      OFFSET
    }

    public static final Bound UNBOUNDED = new Bound(Kind.UNBOUNDED, 0);
    public static final Bound CURRENT_ROW = new Bound(Kind.CURRENT_ROW, 0);

    public static Bound offset(long offset) {
      return new Bound(Kind.OFFSET, offset);
    }
  }

  public WindowFrame {
    if (!rows && (lower.kind() == Bound.Kind.OFFSET || upper.kind() == Bound.Kind.OFFSET)) {
      throw new IllegalArgumentException("A RANGE frame has no row offsets");
    }
  }

  /** The first row of the frame of row {@code i}, of rows {@code [0, n)} whose peers start at {@code peerStart}. */
  int lower(int i, int peerStart) {
    return switch (lower.kind()) {
      case UNBOUNDED -> 0;
      case CURRENT_ROW -> rows ? i : peerStart;
      case OFFSET -> (int) Math.max(0, Math.min(Integer.MAX_VALUE, i + lower.offset()));
    };
  }

  /** The last row of the frame of row {@code i} (less than the first when it is empty). */
  int upper(int i, int peerEnd, int n) {
    return switch (upper.kind()) {
      case UNBOUNDED -> n - 1;
      case CURRENT_ROW -> rows ? i : peerEnd - 1;
      case OFFSET -> (int) Math.max(-1, Math.min(n - 1, i + upper.offset()));
    };
  }
}
