package io.sqe.bench;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Compares two engines' results row by row, in order: decimals exactly at the coarser of the two
 * scales, a decimal against a double as that double rounded to the decimal's scale, doubles with a
 * small relative tolerance, everything else by equality.
 */
final class ResultComparison {
  private static final double RELATIVE_TOLERANCE = 1e-9;

  private ResultComparison() {}

  /** Empty when the results agree, else a description of the first difference. */
  static Optional<String> difference(ResultRows actual, ResultRows expected) {
    Optional<String> ordered = firstDifference(actual.rows(), expected.rows());
    if (ordered.isEmpty()) {
      return ordered;
    }
    // Tells a reader whether only the order differs, e.g. between rows that tie on the sort key.
    boolean sameRows = actual.size() == expected.size() && sameMultiset(actual.rows(), expected.rows());
    return Optional.of(ordered.get() + (sameRows ? " (the same rows in another order)" : ""));
  }

  private static Optional<String> firstDifference(List<List<Object>> actual, List<List<Object>> expected) {
    if (actual.size() != expected.size()) {
      return Optional.of("SQE returned " + actual.size() + " rows, DuckDB " + expected.size());
    }
    for (int r = 0; r < expected.size(); r++) {
      List<Object> a = actual.get(r);
      List<Object> e = expected.get(r);
      if (a.size() != e.size()) {
        return Optional.of("row " + (r + 1) + " has " + a.size() + " columns from SQE, " + e.size() + " from DuckDB");
      }
      for (int c = 0; c < e.size(); c++) {
        if (!same(a.get(c), e.get(c))) {
          return Optional.of(
              String.format(
                  "row %d column %d: SQE %s (%s), DuckDB %s (%s)",
                  r + 1, c + 1, a.get(c), type(a.get(c)), e.get(c), type(e.get(c))));
        }
      }
    }
    return Optional.empty();
  }

  /** Sorts both sides by value, then compares them in that order. */
  private static boolean sameMultiset(List<List<Object>> actual, List<List<Object>> expected) {
    List<List<Object>> a = new ArrayList<>(actual);
    List<List<Object>> e = new ArrayList<>(expected);
    a.sort(ResultComparison::compareRows);
    e.sort(ResultComparison::compareRows);
    return firstDifference(a, e).isEmpty();
  }

  private static int compareRows(List<Object> x, List<Object> y) {
    for (int c = 0; c < Math.min(x.size(), y.size()); c++) {
      int order = compareValues(x.get(c), y.get(c));
      if (order != 0) {
        return order;
      }
    }
    return Integer.compare(x.size(), y.size());
  }

  private static int compareValues(Object x, Object y) {
    if (x == null || y == null) {
      return x == null ? (y == null ? 0 : -1) : 1;
    }
    if (x instanceof Number && y instanceof Number) {
      return Double.compare(((Number) x).doubleValue(), ((Number) y).doubleValue());
    }
    return x.toString().compareTo(y.toString());
  }

  private static String type(Object o) {
    return o == null ? "null" : o.getClass().getSimpleName();
  }

  static boolean same(Object actual, Object expected) {
    if (actual == null || expected == null) {
      return actual == expected;
    }
    if (actual instanceof BigDecimal && expected instanceof BigDecimal) {
      BigDecimal a = (BigDecimal) actual;
      BigDecimal e = (BigDecimal) expected;
      int scale = Math.min(a.scale(), e.scale());
      return a.setScale(scale, RoundingMode.HALF_UP).compareTo(e.setScale(scale, RoundingMode.HALF_UP)) == 0;
    }
    if (actual instanceof BigDecimal ^ expected instanceof BigDecimal
        && actual instanceof Number
        && expected instanceof Number) {
      BigDecimal decimal = (BigDecimal) (actual instanceof BigDecimal ? actual : expected);
      double other = ((Number) (actual instanceof BigDecimal ? expected : actual)).doubleValue();
      double halfUlp = 0.5 * Math.pow(10, -decimal.scale());
      return Math.abs(decimal.doubleValue() - other)
          <= halfUlp * (1 + 1e-9) + RELATIVE_TOLERANCE * Math.abs(other);
    }
    if (actual instanceof Number && expected instanceof Number) {
      double a = ((Number) actual).doubleValue();
      double e = ((Number) expected).doubleValue();
      return a == e || Math.abs(a - e) <= RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(e));
    }
    if (actual instanceof LocalDate || expected instanceof LocalDate) {
      return actual.toString().equals(expected.toString());
    }
    return Objects.equals(actual, expected);
  }
}
