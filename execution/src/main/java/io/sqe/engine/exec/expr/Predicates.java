package io.sqe.engine.exec.expr;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The conditions the columnar evaluator runs: comparisons of a column with a constant or another
 * column, ranges and sets of constants (SQL's IN, BETWEEN and Calcite's SEARCH), null tests, a
 * boolean column, AND and OR. Each narrows a selection of rows in one typed loop over the column's
 * Arrow buffers; AND narrows conjunct by conjunct, so later conjuncts only see the rows earlier ones
 * kept. A null operand makes a comparison unknown, and an unknown row is not kept.
 */
public final class Predicates {
  private Predicates() {}

  /** A condition no row satisfies: a comparison with a null constant, or with one no value of the column can equal. */
  public static Predicate none() {
    return (batch, sel, count) -> 0;
  }

  /**
   * A condition on the value of parameter {@code name}, known once an execution binds it: {@code
   * condition} makes it from the value, and a null value keeps no row (a comparison with null is
   * unknown).
   */
  public static Predicate parameter(String name, Function<Object, Predicate> condition) {
    return new Predicate() {
      @Override
      public int filter(VectorSchemaRoot batch, int[] selection, int count) {
        throw new IllegalStateException("Parameter " + name + " is not bound");
      }

      @Override
      public Predicate bind(Function<String, Object> parameters) {
        Object value = parameters.apply(name);
        return value == null ? none() : condition.apply(value);
      }
    };
  }

  /** A text pattern's test of UTF-8 bytes; a long match asks {@code checkpoint} now and then whether to go on. */
  @FunctionalInterface
  public interface TextMatcher {
    boolean matches(byte[] utf8, int length, io.sqe.engine.exec.Checkpoint checkpoint);
  }

  /**
   * {@code column [NOT] LIKE pattern} on a text column: true where {@code matcher} matches (does
   * not, when {@code negated}); a null value is neither. It asks the execution's checkpoint
   * (bound per execution) during long matches, so a timeout or cancel stops it within a row.
   */
  public static Predicate like(int column, TextMatcher matcher, boolean negated) {
    return new Predicate() {
      @Override
      public int filter(VectorSchemaRoot batch, int[] selection, int count) {
        throw new IllegalStateException("LIKE on column " + column + " is not bound to an execution");
      }

      @Override
      public Predicate bind(Function<String, Object> parameters) {
        Object bound = parameters.apply(io.sqe.engine.exec.Checkpoint.VARIABLE);
        io.sqe.engine.exec.Checkpoint checkpoint = bound instanceof io.sqe.engine.exec.Checkpoint c ? c : () -> {};
        return (batch, sel, count) -> {
          BaseVariableWidthVector vector = (BaseVariableWidthVector) batch.getVector(column);
          byte[] value = new byte[64];
          int kept = 0;
          for (int i = 0; i < count; i++) {
            int row = sel[i];
            if (vector.isNull(row)) {
              continue;
            }
            int start = vector.getStartOffset(row);
            int length = vector.getValueLength(row);
            if (value.length < length) {
              value = new byte[Math.max(length, value.length * 2)];
            }
            vector.getDataBuffer().getBytes(start, value, 0, length);
            if (matcher.matches(value, length, checkpoint) != negated) {
              sel[kept++] = row;
            }
          }
          return kept;
        };
      }
    };
  }

  /** {@code column IS NULL}, or {@code IS NOT NULL} when {@code isNull} is false. */
  public static Predicate isNull(int column, boolean isNull) {
    return (batch, sel, count) -> {
      FieldVector vector = batch.getVector(column);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        if (vector.isNull(row) == isNull) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** A boolean column that is {@code expected} (and not null). */
  public static Predicate booleanColumn(int column, boolean expected) {
    int wanted = expected ? 1 : 0;
    return (batch, sel, count) -> {
      BitVector vector = (BitVector) batch.getVector(column);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        if (!vector.isNull(row) && vector.get(row) == wanted) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** A column of longs ({@link ColumnValues#longs}) compared with {@code value}. */
  public static Predicate compareLong(int column, Comparison op, long value) {
    return (batch, sel, count) -> {
      FieldVector vector = batch.getVector(column);
      ColumnValues.Longs values = ColumnValues.longs(vector);
      boolean nullable = vector.getNullCount() > 0;
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        if (nullable && vector.isNull(row)) {
          continue;
        }
        long v = values.get(row);
        if (op.holds(Long.compare(v, value))) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** Two columns of longs of one scale compared. */
  public static Predicate compareLongColumns(int left, Comparison op, int right) {
    return (batch, sel, count) -> {
      FieldVector a = batch.getVector(left);
      FieldVector b = batch.getVector(right);
      ColumnValues.Longs x = ColumnValues.longs(a);
      ColumnValues.Longs y = ColumnValues.longs(b);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        if (!a.isNull(row) && !b.isNull(row) && op.holds(Long.compare(x.get(row), y.get(row)))) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /**
   * Two integer or decimal columns of up to 38 digits compared by value, their unscaled values
   * having scales {@code leftScale} and {@code rightScale}: {@code 1.5 = 1.500}.
   */
  public static Predicate compareExactColumns(int left, int leftScale, Comparison op, int right, int rightScale) {
    return DecimalComparison.compare(left, leftScale, op, right, rightScale);
  }

  /**
   * An exact-number column of up to 38 digits (read as 128 bits) compared with {@code unscaled}, a
   * value of the column's scale; a value past 128 bits compares as beyond every value the column holds.
   */
  public static Predicate compareExactConstant(int column, Comparison op, BigInteger unscaled) {
    if (unscaled.bitLength() > 127) {
      boolean above = unscaled.signum() > 0;
      boolean holds = switch (op) {
        case EQUAL -> false;
        case NOT_EQUAL -> true;
        case LESS, LESS_OR_EQUAL -> above;
        case GREATER, GREATER_OR_EQUAL -> !above;
      };
      return holds ? isNull(column, false) : none();
    }
    return DecimalComparison.compareConstant(column, op, unscaled.shiftRight(64).longValue(), unscaled.longValue());
  }

  /** A column of doubles compared with {@code value}; NaN compares as Java's operators do (never equal, never ordered). */
  public static Predicate compareDouble(int column, Comparison op, double value) {
    return (batch, sel, count) -> {
      FieldVector vector = batch.getVector(column);
      ColumnValues.Doubles values = ColumnValues.doubles(vector);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        if (!vector.isNull(row) && holds(op, values.get(row), value)) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** Two columns of doubles compared. */
  public static Predicate compareDoubleColumns(int left, Comparison op, int right) {
    return (batch, sel, count) -> {
      FieldVector a = batch.getVector(left);
      FieldVector b = batch.getVector(right);
      ColumnValues.Doubles x = ColumnValues.doubles(a);
      ColumnValues.Doubles y = ColumnValues.doubles(b);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        if (!a.isNull(row) && !b.isNull(row) && holds(op, x.get(row), y.get(row))) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** A text or binary column compared with {@code value} by unsigned bytes (text: UTF-8, so by code points). */
  public static Predicate compareBytes(int column, Comparison op, byte[] value) {
    return compareBytes(column, null, op, value);
  }

  /**
   * A text or binary column, or {@code slice} of a text column ({@code SUBSTRING}) when not null,
   * compared with {@code value} by unsigned bytes.
   */
  public static Predicate compareBytes(int column, TextSlice slice, Comparison op, byte[] value) {
    byte[] constant = value.clone();
    return (batch, sel, count) -> {
      BaseVariableWidthVector vector = (BaseVariableWidthVector) batch.getVector(column);
      TextSlice.Cursor text = new TextSlice.Cursor(slice);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        if (vector.isNull(row)) {
          continue;
        }
        text.at(vector, row);
        if (op.holds(text.compareTo(constant))) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** Two text or binary columns compared by unsigned bytes. */
  public static Predicate compareBytesColumns(int left, Comparison op, int right) {
    return (batch, sel, count) -> {
      BaseVariableWidthVector a = (BaseVariableWidthVector) batch.getVector(left);
      BaseVariableWidthVector b = (BaseVariableWidthVector) batch.getVector(right);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        if (!a.isNull(row) && !b.isNull(row) && op.holds(ColumnValues.compareBytes(a, b, row))) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /**
   * A column of longs within any of the inclusive ranges {@code [mins[i], maxs[i]]}; null rows are
   * kept when {@code nullsKept} (Calcite's SEARCH with nulls as TRUE). Many single values are
   * looked up by binary search.
   */
  public static Predicate longRanges(int column, long[] mins, long[] maxs, boolean nullsKept) {
    if (mins.length != maxs.length) {
      throw new IllegalArgumentException("mins and maxs differ in length");
    }
    boolean points = Arrays.equals(mins, maxs);
    long[] sortedPoints = points ? Arrays.stream(mins).sorted().toArray() : null;
    long[] lows = mins.clone();
    long[] highs = maxs.clone();
    return (batch, sel, count) -> {
      FieldVector vector = batch.getVector(column);
      ColumnValues.Longs values = ColumnValues.longs(vector);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        boolean keep;
        if (vector.isNull(row)) {
          keep = nullsKept;
        } else {
          long v = values.get(row);
          keep = points && sortedPoints.length > 8 ? Arrays.binarySearch(sortedPoints, v) >= 0 : inRanges(v, lows, highs);
        }
        if (keep) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** One bound of a range of doubles or bytes: its value, or null when unbounded, and whether it is included. */
  public record Bound<T>(T value, boolean inclusive) {
    public static <T> Bound<T> unbounded() {
      return new Bound<>(null, false);
    }
  }

  /** A range of doubles or bytes. */
  public record Range<T>(Bound<T> low, Bound<T> high) {}

  /** A column of doubles within any of {@code ranges}; null rows kept when {@code nullsKept}. */
  public static Predicate doubleRanges(int column, List<Range<Double>> ranges, boolean nullsKept) {
    List<Range<Double>> copy = List.copyOf(ranges);
    return (batch, sel, count) -> {
      FieldVector vector = batch.getVector(column);
      ColumnValues.Doubles values = ColumnValues.doubles(vector);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        boolean keep = vector.isNull(row) ? nullsKept : inDoubleRanges(values.get(row), copy);
        if (keep) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** A text or binary column within any of {@code ranges}, by unsigned bytes; null rows kept when {@code nullsKept}. */
  public static Predicate bytesRanges(int column, List<Range<byte[]>> ranges, boolean nullsKept) {
    return bytesRanges(column, null, ranges, nullsKept);
  }

  /**
   * A text or binary column, or {@code slice} of a text column ({@code SUBSTRING}) when not null,
   * within any of {@code ranges}, by unsigned bytes; null rows kept when {@code nullsKept}.
   */
  public static Predicate bytesRanges(int column, TextSlice slice, List<Range<byte[]>> ranges, boolean nullsKept) {
    List<Range<byte[]>> copy = List.copyOf(ranges);
    byte[][] points = points(copy);
    if (points != null) {
      return bytesIn(column, slice, points, nullsKept);
    }
    return (batch, sel, count) -> {
      BaseVariableWidthVector vector = (BaseVariableWidthVector) batch.getVector(column);
      TextSlice.Cursor text = new TextSlice.Cursor(slice);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        boolean keep;
        if (vector.isNull(row)) {
          keep = nullsKept;
        } else {
          text.at(vector, row);
          keep = inBytesRanges(text, copy);
        }
        if (keep) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** The values of ranges that are all single values (an IN list), else null. */
  private static byte[][] points(List<Range<byte[]>> ranges) {
    byte[][] points = new byte[ranges.size()][];
    for (int i = 0; i < points.length; i++) {
      Range<byte[]> range = ranges.get(i);
      byte[] low = range.low().value();
      if (low == null || !range.low().inclusive() || !range.high().inclusive() || !Arrays.equals(low, range.high().value())) {
        return null;
      }
      points[i] = low;
    }
    return points;
  }

  /**
   * A text or binary column (or a slice of text) equal to one of {@code points}: a hash of each
   * value looked up in an open-addressing table of the points, then compared byte for byte.
   */
  private static Predicate bytesIn(int column, TextSlice slice, byte[][] points, boolean nullsKept) {
    int size = Integer.highestOneBit(Math.max(points.length, 1) * 4 - 1) << 1;
    byte[][] table = new byte[size][];
    int mask = size - 1;
    for (byte[] point : points) {
      int at = TextSlice.Cursor.hash(point) & mask;
      while (table[at] != null && !Arrays.equals(table[at], point)) {
        at = (at + 1) & mask;
      }
      table[at] = point.clone();
    }
    return (batch, sel, count) -> {
      BaseVariableWidthVector vector = (BaseVariableWidthVector) batch.getVector(column);
      TextSlice.Cursor text = new TextSlice.Cursor(slice);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        int row = sel[i];
        boolean keep = nullsKept;
        if (!vector.isNull(row)) {
          text.at(vector, row);
          keep = false;
          for (int at = text.hash() & mask; table[at] != null; at = (at + 1) & mask) {
            if (text.isEqualTo(table[at])) {
              keep = true;
              break;
            }
          }
        }
        if (keep) {
          sel[kept++] = row;
        }
      }
      return kept;
    };
  }

  /** {@code predicate}, saying that it reads only {@code columns} ({@link Predicate#columns}). */
  public static Predicate reading(Predicate predicate, int[] columns) {
    int[] read = columns.clone();
    Arrays.sort(read);
    return new Predicate() {
      @Override
      public int filter(VectorSchemaRoot batch, int[] selection, int count) {
        return predicate.filter(batch, selection, count);
      }

      @Override
      public Predicate bind(Function<String, Object> parameters) {
        Predicate bound = predicate.bind(parameters);
        return bound == predicate ? this : reading(bound, read);
      }

      @Override
      public int[] columns() {
        return read.clone();
      }
    };
  }

  /** All of {@code conjuncts}, each seeing only the rows the ones before it kept. */
  public static Predicate and(List<Predicate> conjuncts) {
    List<Predicate> copy = List.copyOf(conjuncts);
    return new Predicate() {
      @Override
      public int filter(VectorSchemaRoot batch, int[] sel, int count) {
        int kept = count;
        for (Predicate conjunct : copy) {
          if (kept == 0) {
            return 0;
          }
          kept = conjunct.filter(batch, sel, kept);
        }
        return kept;
      }

      @Override
      public Predicate bind(Function<String, Object> parameters) {
        return and(bound(copy, parameters));
      }
    };
  }

  private static List<Predicate> bound(List<Predicate> predicates, Function<String, Object> parameters) {
    List<Predicate> bound = new ArrayList<>(predicates.size());
    for (Predicate predicate : predicates) {
      bound.add(predicate.bind(parameters));
    }
    return bound;
  }

  /** Any of {@code disjuncts}: each sees the rows the ones before it did not keep. */
  public static Predicate or(List<Predicate> disjuncts) {
    List<Predicate> copy = List.copyOf(disjuncts);
    Predicate or = (batch, sel, count) -> {
      boolean[] keep = new boolean[batch.getRowCount()];
      int[] rest = Arrays.copyOf(sel, count);
      int remaining = count;
      int[] candidates = new int[count];
      for (Predicate disjunct : copy) {
        if (remaining == 0) {
          break;
        }
        System.arraycopy(rest, 0, candidates, 0, remaining);
        int matched = disjunct.filter(batch, candidates, remaining);
        for (int i = 0; i < matched; i++) {
          keep[candidates[i]] = true;
        }
        int left = 0;
        for (int i = 0; i < remaining; i++) {
          if (!keep[rest[i]]) {
            rest[left++] = rest[i];
          }
        }
        remaining = left;
      }
      int kept = 0;
      for (int i = 0; i < count; i++) {
        if (keep[sel[i]]) {
          sel[kept++] = sel[i];
        }
      }
      return kept;
    };
    return new Predicate() {
      @Override
      public int filter(VectorSchemaRoot batch, int[] sel, int count) {
        return or.filter(batch, sel, count);
      }

      @Override
      public Predicate bind(Function<String, Object> parameters) {
        return or(bound(copy, parameters));
      }
    };
  }

  private static boolean holds(Comparison op, double a, double b) {
    return switch (op) {
      case EQUAL -> a == b;
      case NOT_EQUAL -> a != b;
      case LESS -> a < b;
      case LESS_OR_EQUAL -> a <= b;
      case GREATER -> a > b;
      case GREATER_OR_EQUAL -> a >= b;
    };
  }

  private static boolean inRanges(long v, long[] lows, long[] highs) {
    for (int r = 0; r < lows.length; r++) {
      if (v >= lows[r] && v <= highs[r]) {
        return true;
      }
    }
    return false;
  }

  private static boolean inDoubleRanges(double v, List<Range<Double>> ranges) {
    for (Range<Double> range : ranges) {
      Bound<Double> low = range.low();
      Bound<Double> high = range.high();
      boolean aboveLow = low.value() == null || (low.inclusive() ? v >= low.value() : v > low.value());
      boolean belowHigh = high.value() == null || (high.inclusive() ? v <= high.value() : v < high.value());
      if (aboveLow && belowHigh) {
        return true;
      }
    }
    return false;
  }

  private static boolean inBytesRanges(TextSlice.Cursor text, List<Range<byte[]>> ranges) {
    for (Range<byte[]> range : ranges) {
      Bound<byte[]> low = range.low();
      Bound<byte[]> high = range.high();
      if (low.value() != null) {
        int order = text.compareTo(low.value());
        if (low.inclusive() ? order < 0 : order <= 0) {
          continue;
        }
      }
      if (high.value() != null) {
        int order = text.compareTo(high.value());
        if (high.inclusive() ? order > 0 : order >= 0) {
          continue;
        }
      }
      return true;
    }
    return false;
  }
}
