package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableRangeSet;
import com.google.common.collect.RangeSet;
import java.util.Arrays;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.util.Sarg;

/**
 * The values of a large {@code IN} list, or any set of ranges, as generated code tests them: one
 * lookup per row instead of one comparison per value. Built while planning; read only after.
 */
public abstract class ValueSet {
  /** Searches of at most this many ranges (or excluded values) compile as Calcite compiles them. */
  public static final int MIN_RANGES = 32;

  ValueSet() {}

  /** Whether {@code search} (a SEARCH call) is large enough to be tested through a set. */
  public static boolean isLarge(RexCall search) {
    Sarg<?> sarg = ((RexLiteral) search.getOperands().get(1)).getValueAs(Sarg.class);
    if (sarg == null) {
      return false;
    }
    int ranges = sarg.isComplementedPoints() ? sarg.rangeSet.complement().asRanges().size() : sarg.rangeSet.asRanges().size();
    return ranges > MIN_RANGES;
  }

  /**
   * Integers (or dates, as days) in closed ranges {@code [lows[i], highs[i]]}, sorted and apart.
   * Points are ranges of one value.
   */
  public static ValueSet ofLongs(long[] lows, long[] highs) {
    return new Longs(lows, highs);
  }

  /** Values of one comparable type (decimals, doubles, strings) in {@code ranges}. */
  public static ValueSet of(RangeSet<Comparable<?>> ranges) {
    return new Ranges(ImmutableRangeSet.copyOf(ranges));
  }

  /** Whether the set holds {@code value}, an integer or a date's day number. */
  public abstract boolean contains(long value);

  /** Whether the set holds {@code value}, of the set's type (a Number for integers). */
  public abstract boolean contains(Object value);

  private static final class Longs extends ValueSet {
    private final long[] lows;
    private final long[] highs;

    Longs(long[] lows, long[] highs) {
      if (lows.length != highs.length) {
        throw new IllegalArgumentException("lows and highs differ in length");
      }
      this.lows = lows.clone();
      this.highs = highs.clone();
    }

    @Override
    public boolean contains(long value) {
      int i = Arrays.binarySearch(lows, value);
      if (i >= 0) {
        return true;
      }
      // The range starting below the value, if any, is the only one that may hold it.
      int below = -i - 2;
      return below >= 0 && value <= highs[below];
    }

    @Override
    public boolean contains(Object value) {
      return contains(((Number) requireNonNull(value, "value is null")).longValue());
    }
  }

  private static final class Ranges extends ValueSet {
    private final ImmutableRangeSet<Comparable<?>> ranges;

    Ranges(ImmutableRangeSet<Comparable<?>> ranges) {
      this.ranges = ranges;
    }

    @Override
    public boolean contains(long value) {
      return contains((Object) value);
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public boolean contains(Object value) {
      Comparable<?> key = (Comparable<?>) requireNonNull(value, "value is null");
      if (value instanceof Double || value instanceof Float) {
        double d = ((Number) value).doubleValue();
        // SQL's -0.0 equals 0.0, which Double.compareTo does not say.
        key = d == 0.0 ? 0.0 : d;
      }
      return ((ImmutableRangeSet) ranges).contains(key);
    }
  }
}
