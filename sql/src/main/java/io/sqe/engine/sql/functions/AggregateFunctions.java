package io.sqe.engine.sql.functions;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Trino's aggregate functions that Calcite lacks, as Calcite user-defined aggregates (each class an
 * accumulator with init, add, merge and result). approx_distinct and approx_percentile are exact:
 * they keep the group's distinct values, or all its values, which is within Trino's error bounds.
 */
public final class AggregateFunctions {
  private static final SqlReturnTypeInference DOUBLE = ReturnTypes.DOUBLE;

  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = List.of(
      JavaFunctions.aggregate("count_if", CountIf.class, ReturnTypes.BIGINT),
      JavaFunctions.aggregate("arbitrary", Arbitrary.class, ReturnTypes.ARG0),
      JavaFunctions.aggregate("approx_distinct", ApproxDistinct.class, ReturnTypes.BIGINT),
      JavaFunctions.aggregate("approx_percentile", ApproxPercentile.class, ReturnTypes.ARG0),
      JavaFunctions.aggregate("histogram", Histogram.class,
          b -> b.getTypeFactory().createMapType(b.getOperandType(0), b.getTypeFactory().createSqlType(SqlTypeName.BIGINT))),
      JavaFunctions.aggregate("map_agg", MapAgg.class,
          b -> b.getTypeFactory().createMapType(b.getOperandType(0), b.getOperandType(1))),
      JavaFunctions.aggregate("multimap_agg", MultimapAgg.class,
          b -> b.getTypeFactory().createMapType(b.getOperandType(0), b.getTypeFactory().createArrayType(b.getOperandType(1), -1))),
      JavaFunctions.aggregate("geometric_mean", GeometricMean.class, DOUBLE),
      JavaFunctions.aggregate("skewness", Skewness.class, DOUBLE),
      JavaFunctions.aggregate("kurtosis", Kurtosis.class, DOUBLE),
      JavaFunctions.aggregate("corr", Corr.class, DOUBLE),
      JavaFunctions.aggregate("regr_slope", RegrSlope.class, DOUBLE),
      JavaFunctions.aggregate("regr_intercept", RegrIntercept.class, DOUBLE),
      JavaFunctions.aggregate("bitwise_and_agg", BitwiseAndAgg.class, ReturnTypes.BIGINT),
      JavaFunctions.aggregate("bitwise_or_agg", BitwiseOrAgg.class, ReturnTypes.BIGINT),
      JavaFunctions.aggregate("bitwise_xor_agg", BitwiseXorAgg.class, ReturnTypes.BIGINT),
      JavaFunctions.aggregate("approx_most_frequent", ApproxMostFrequent.class,
          b -> b.getTypeFactory().createMapType(b.getOperandType(1), b.getTypeFactory().createSqlType(SqlTypeName.BIGINT))),
      JavaFunctions.aggregate("map_union", MapUnion.class, ReturnTypes.ARG0),
      SqlLibraryOperators.MAX_BY,
      SqlLibraryOperators.MIN_BY);

  private AggregateFunctions() {}

  /** count_if(condition): the rows where it is true. */
  public static final class CountIf {
    public long[] init() {
      return new long[1];
    }

    public long[] add(long[] acc, Boolean condition) {
      if (Boolean.TRUE.equals(condition)) {
        acc[0]++;
      }
      return acc;
    }

    public long[] merge(long[] a, long[] b) {
      a[0] += b[0];
      return a;
    }

    public long result(long[] acc) {
      return acc[0];
    }
  }

  /** arbitrary(x): one non-NULL value of the group. */
  public static final class Arbitrary {
    public Object[] init() {
      return new Object[1];
    }

    public Object[] add(Object[] acc, Object value) {
      if (acc[0] == null) {
        acc[0] = value;
      }
      return acc;
    }

    public Object[] merge(Object[] a, Object[] b) {
      return a[0] != null ? a : b;
    }

    public Object result(Object[] acc) {
      return acc[0];
    }
  }

  /** approx_distinct(x): the distinct non-NULL values, counted exactly. */
  public static final class ApproxDistinct {
    public Set<Object> init() {
      return new HashSet<>();
    }

    public Set<Object> add(Set<Object> acc, Object value) {
      if (value != null) {
        acc.add(value);
      }
      return acc;
    }

    public Set<Object> merge(Set<Object> a, Set<Object> b) {
      a.addAll(b);
      return a;
    }

    public long result(Set<Object> acc) {
      return acc.size();
    }
  }

  /** approx_percentile(x, p): the value at rank round(p * (n - 1)) of the sorted non-NULL values. */
  public static final class ApproxPercentile {
    /** The values and, last, the percentile. */
    public List<Object> init() {
      return new ArrayList<>();
    }

    public List<Object> add(List<Object> acc, Object value, Number percentileValue) {
      double percentile = percentileValue.doubleValue();
      if (percentile < 0 || percentile > 1) {
        throw new IllegalArgumentException("Percentile must be between 0 and 1");
      }
      if (value != null) {
        acc.add(new Object[] {value, percentile});
      }
      return acc;
    }

    public List<Object> merge(List<Object> a, List<Object> b) {
      a.addAll(b);
      return a;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public Object result(List<Object> acc) {
      if (acc.isEmpty()) {
        return null;
      }
      List<Object> values = new ArrayList<>();
      for (Object o : acc) {
        values.add(((Object[]) o)[0]);
      }
      values.sort((a, b) -> ((Comparable) a).compareTo(b));
      double p = (double) ((Object[]) acc.get(0))[1];
      return values.get((int) Math.round(p * (values.size() - 1)));
    }
  }

  /** histogram(x): each non-NULL value and how often it occurs. */
  public static final class Histogram {
    public Map<Object, Long> init() {
      return new LinkedHashMap<>();
    }

    public Map<Object, Long> add(Map<Object, Long> acc, Object value) {
      if (value != null) {
        acc.merge(value, 1L, Long::sum);
      }
      return acc;
    }

    public Map<Object, Long> merge(Map<Object, Long> a, Map<Object, Long> b) {
      b.forEach((k, v) -> a.merge(k, v, Long::sum));
      return a;
    }

    public Map<Object, Long> result(Map<Object, Long> acc) {
      return acc;
    }
  }

  /** approx_most_frequent(buckets, x, capacity): the {@code buckets} most frequent values and their counts, counted exactly. */
  public static final class ApproxMostFrequent {
    /** The counts, and under the key of this class the number of buckets. */
    public Map<Object, Long> init() {
      return new LinkedHashMap<>();
    }

    public Map<Object, Long> add(Map<Object, Long> acc, Number buckets, Object value, Number capacity) {
      if (buckets.longValue() < 1 || capacity.longValue() < buckets.longValue()) {
        throw new IllegalArgumentException("buckets must be positive and capacity at least the buckets");
      }
      acc.put(ApproxMostFrequent.class, buckets.longValue());
      if (value != null) {
        acc.merge(value, 1L, Long::sum);
      }
      return acc;
    }

    public Map<Object, Long> merge(Map<Object, Long> a, Map<Object, Long> b) {
      b.forEach((k, v) -> a.merge(k, v, k == ApproxMostFrequent.class ? (x, y) -> x : Long::sum));
      return a;
    }

    public Map<Object, Long> result(Map<Object, Long> acc) {
      Long buckets = acc.remove(ApproxMostFrequent.class);
      if (buckets == null) {
        return null;
      }
      Map<Object, Long> top = new LinkedHashMap<>();
      acc.entrySet().stream()
          .sorted(Map.Entry.<Object, Long>comparingByValue().reversed())
          .limit(buckets)
          .forEach(e -> top.put(e.getKey(), e.getValue()));
      return top;
    }
  }

  /** map_union(map): the union of the group's maps (of a repeated key, one of its values). */
  public static final class MapUnion {
    public Map<Object, Object> init() {
      return new LinkedHashMap<>();
    }

    public Map<Object, Object> add(Map<Object, Object> acc, Map<Object, Object> map) {
      if (map != null) {
        map.forEach(acc::putIfAbsent);
      }
      return acc;
    }

    public Map<Object, Object> merge(Map<Object, Object> a, Map<Object, Object> b) {
      b.forEach(a::putIfAbsent);
      return a;
    }

    public Map<Object, Object> result(Map<Object, Object> acc) {
      return acc;
    }
  }

  /** map_agg(key, value): a map of the group's keys (NULL keys skipped) to one of their values. */
  public static final class MapAgg {
    public Map<Object, Object> init() {
      return new LinkedHashMap<>();
    }

    public Map<Object, Object> add(Map<Object, Object> acc, Object key, Object value) {
      if (key != null) {
        acc.putIfAbsent(key, value);
      }
      return acc;
    }

    public Map<Object, Object> merge(Map<Object, Object> a, Map<Object, Object> b) {
      b.forEach(a::putIfAbsent);
      return a;
    }

    public Map<Object, Object> result(Map<Object, Object> acc) {
      return acc;
    }
  }

  /** multimap_agg(key, value): a map of the group's keys to all their values. */
  public static final class MultimapAgg {
    public Map<Object, List<Object>> init() {
      return new LinkedHashMap<>();
    }

    public Map<Object, List<Object>> add(Map<Object, List<Object>> acc, Object key, Object value) {
      if (key != null) {
        acc.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
      }
      return acc;
    }

    public Map<Object, List<Object>> merge(Map<Object, List<Object>> a, Map<Object, List<Object>> b) {
      b.forEach((k, v) -> a.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
      return a;
    }

    public Map<Object, List<Object>> result(Map<Object, List<Object>> acc) {
      return acc;
    }
  }

  /** geometric_mean(x) of the non-NULL values. */
  public static final class GeometricMean {
    public double[] init() {
      return new double[2];
    }

    public double[] add(double[] acc, Number x) {
      if (x != null) {
        acc[0] += Math.log(x.doubleValue());
        acc[1]++;
      }
      return acc;
    }

    public double[] merge(double[] a, double[] b) {
      a[0] += b[0];
      a[1] += b[1];
      return a;
    }

    public Double result(double[] acc) {
      return acc[1] == 0 ? null : Math.exp(acc[0] / acc[1]);
    }
  }

  /** The values' count, sum, and sums of squares, cubes and fourth powers. */
  private static double[] moments(double[] acc, Number value) {
    if (value != null) {
      double x = value.doubleValue();
      acc[0]++;
      acc[1] += x;
      acc[2] += x * x;
      acc[3] += x * x * x;
      acc[4] += x * x * x * x;
    }
    return acc;
  }

  private static double[] sum(double[] a, double[] b) {
    for (int i = 0; i < a.length; i++) {
      a[i] += b[i];
    }
    return a;
  }

  /** skewness(x): the population skewness, as Trino computes it. */
  public static final class Skewness {
    public double[] init() {
      return new double[5];
    }

    public double[] add(double[] acc, Number x) {
      return moments(acc, x);
    }

    public double[] merge(double[] a, double[] b) {
      return sum(a, b);
    }

    public Double result(double[] acc) {
      double n = acc[0];
      if (n < 3) {
        return null;
      }
      double mean = acc[1] / n;
      double m2 = acc[2] - n * mean * mean;
      double m3 = acc[3] - 3 * mean * acc[2] + 3 * mean * mean * acc[1] - n * mean * mean * mean;
      return Math.sqrt(n) * m3 / Math.pow(m2, 1.5);
    }
  }

  /** kurtosis(x): the sample excess kurtosis, as Trino computes it. */
  public static final class Kurtosis {
    public double[] init() {
      return new double[5];
    }

    public double[] add(double[] acc, Number x) {
      return moments(acc, x);
    }

    public double[] merge(double[] a, double[] b) {
      return sum(a, b);
    }

    public Double result(double[] acc) {
      double n = acc[0];
      if (n < 4) {
        return null;
      }
      double mean = acc[1] / n;
      double m2 = acc[2] - n * mean * mean;
      double m4 = acc[4] - 4 * mean * acc[3] + 6 * mean * mean * acc[2] - 4 * mean * mean * mean * acc[1] + n * Math.pow(mean, 4);
      double variance = m2 / (n - 1);
      return n * (n + 1) * m4 / ((n - 1) * (n - 2) * (n - 3) * variance * variance) - 3 * (n - 1) * (n - 1) / ((n - 2) * (n - 3));
    }
  }

  /** Count, sums of y, x, xy, xx, yy over the rows where both are non-NULL. */
  private static double[] pairs(double[] acc, Number yValue, Number xValue) {
    if (xValue != null && yValue != null) {
      double x = xValue.doubleValue();
      double y = yValue.doubleValue();
      acc[0]++;
      acc[1] += y;
      acc[2] += x;
      acc[3] += x * y;
      acc[4] += x * x;
      acc[5] += y * y;
    }
    return acc;
  }

  /** corr(y, x): Pearson's correlation coefficient. */
  public static final class Corr {
    public double[] init() {
      return new double[6];
    }

    public double[] add(double[] acc, Number y, Number x) {
      return pairs(acc, y, x);
    }

    public double[] merge(double[] a, double[] b) {
      return sum(a, b);
    }

    public Double result(double[] acc) {
      double n = acc[0];
      if (n < 2) {
        return null;
      }
      double sxy = n * acc[3] - acc[1] * acc[2];
      double sxx = n * acc[4] - acc[2] * acc[2];
      double syy = n * acc[5] - acc[1] * acc[1];
      return sxx == 0 || syy == 0 ? null : sxy / Math.sqrt(sxx * syy);
    }
  }

  /** regr_slope(y, x): the least-squares slope. */
  public static final class RegrSlope {
    public double[] init() {
      return new double[6];
    }

    public double[] add(double[] acc, Number y, Number x) {
      return pairs(acc, y, x);
    }

    public double[] merge(double[] a, double[] b) {
      return sum(a, b);
    }

    public Double result(double[] acc) {
      double n = acc[0];
      double sxx = n * acc[4] - acc[2] * acc[2];
      return n == 0 || sxx == 0 ? null : (n * acc[3] - acc[1] * acc[2]) / sxx;
    }
  }

  /** regr_intercept(y, x): the least-squares intercept. */
  public static final class RegrIntercept {
    public double[] init() {
      return new double[6];
    }

    public double[] add(double[] acc, Number y, Number x) {
      return pairs(acc, y, x);
    }

    public double[] merge(double[] a, double[] b) {
      return sum(a, b);
    }

    public Double result(double[] acc) {
      double n = acc[0];
      double sxx = n * acc[4] - acc[2] * acc[2];
      if (n == 0 || sxx == 0) {
        return null;
      }
      double slope = (n * acc[3] - acc[1] * acc[2]) / sxx;
      return (acc[1] - slope * acc[2]) / n;
    }
  }

  /** bitwise_and_agg(x) of the non-NULL values. */
  public static final class BitwiseAndAgg {
    public long[] init() {
      return new long[] {-1L, 0};
    }

    public long[] add(long[] acc, Number x) {
      if (x != null) {
        acc[0] &= x.longValue();
        acc[1] = 1;
      }
      return acc;
    }

    public long[] merge(long[] a, long[] b) {
      a[0] &= b[0];
      a[1] |= b[1];
      return a;
    }

    public Long result(long[] acc) {
      return acc[1] == 0 ? null : acc[0];
    }
  }

  /** bitwise_or_agg(x) of the non-NULL values. */
  public static final class BitwiseOrAgg {
    public long[] init() {
      return new long[2];
    }

    public long[] add(long[] acc, Number x) {
      if (x != null) {
        acc[0] |= x.longValue();
        acc[1] = 1;
      }
      return acc;
    }

    public long[] merge(long[] a, long[] b) {
      a[0] |= b[0];
      a[1] |= b[1];
      return a;
    }

    public Long result(long[] acc) {
      return acc[1] == 0 ? null : acc[0];
    }
  }

  /** bitwise_xor_agg(x) of the non-NULL values. */
  public static final class BitwiseXorAgg {
    public long[] init() {
      return new long[2];
    }

    public long[] add(long[] acc, Number x) {
      if (x != null) {
        acc[0] ^= x.longValue();
        acc[1] = 1;
      }
      return acc;
    }

    public long[] merge(long[] a, long[] b) {
      a[0] ^= b[0];
      a[1] |= b[1];
      return a;
    }

    public Long result(long[] acc) {
      return acc[1] == 0 ? null : acc[0];
    }
  }
}
