package io.sqe.flight.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * Compares query results from two engines row by row: decimals exactly (at the coarser of the two
 * scales), floating point with a small relative tolerance, dates as dates, text as text.
 */
public final class ResultComparison {
  private static final double RELATIVE_TOLERANCE = 1e-9;

  private ResultComparison() {}

  public static List<List<Object>> rows(ResultSet rs) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    List<List<Object>> rows = new ArrayList<>();
    while (rs.next()) {
      List<Object> row = new ArrayList<>();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        row.add(normalize(rs.getObject(i)));
      }
      rows.add(row);
    }
    return rows;
  }

  private static Object normalize(Object value) {
    if (value instanceof java.sql.Date) {
      return ((java.sql.Date) value).toLocalDate();
    }
    if (value instanceof java.sql.Timestamp) {
      return ((java.sql.Timestamp) value).toLocalDateTime();
    }
    if (value instanceof Float || value instanceof Double) {
      return ((Number) value).doubleValue();
    }
    if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
      return BigDecimal.valueOf(((Number) value).longValue());
    }
    if (value instanceof java.math.BigInteger) {
      return new BigDecimal((java.math.BigInteger) value);
    }
    if (value instanceof CharSequence) {
      return value.toString();
    }
    return value;
  }

  public static void assertSameRows(String label, List<List<Object>> actual, List<List<Object>> expected) {
    assertThat(actual.size()).as("%s row count", label).isEqualTo(expected.size());
    for (int r = 0; r < expected.size(); r++) {
      List<Object> a = actual.get(r);
      List<Object> e = expected.get(r);
      assertThat(a.size()).as("%s row %d column count", label, r).isEqualTo(e.size());
      for (int c = 0; c < e.size(); c++) {
        if (!same(a.get(c), e.get(c))) {
          fail("%s row %d column %d: expected %s (%s) but was %s (%s)%n expected row %s%n actual row   %s",
              label, r, c, e.get(c), type(e.get(c)), a.get(c), type(a.get(c)), e, a);
        }
      }
    }
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
        && actual instanceof Number && expected instanceof Number) {
      // A decimal against a double: the decimal must be the double correctly rounded to its scale.
      BigDecimal decimal = (BigDecimal) (actual instanceof BigDecimal ? actual : expected);
      double other = ((Number) (actual instanceof BigDecimal ? expected : actual)).doubleValue();
      double halfUlp = 0.5 * Math.pow(10, -decimal.scale());
      return Math.abs(decimal.doubleValue() - other) <= halfUlp * (1 + 1e-9) + RELATIVE_TOLERANCE * Math.abs(other);
    }
    if (actual instanceof Number && expected instanceof Number) {
      double a = ((Number) actual).doubleValue();
      double e = ((Number) expected).doubleValue();
      return a == e || Math.abs(a - e) <= RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(e));
    }
    if (actual instanceof LocalDate || expected instanceof LocalDate) {
      return actual.toString().equals(expected.toString());
    }
    return actual.equals(expected);
  }
}
