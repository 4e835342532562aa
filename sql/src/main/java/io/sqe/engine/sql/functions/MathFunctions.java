package io.sqe.engine.sql.functions;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.sql.SqlOperator;

/** Trino's mathematical functions that Calcite's libraries lack, with Trino's results and errors. */
public final class MathFunctions {
  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = build();

  private MathFunctions() {}

  private static List<SqlOperator> build() {
    List<SqlOperator> all = new ArrayList<>();
    for (String name : List.of("e", "nan", "infinity", "is_nan", "is_finite", "is_infinite", "log2", "from_base", "to_base",
        "width_bucket", "beta_cdf", "inverse_beta_cdf", "normal_cdf", "inverse_normal_cdf", "wilson_interval_lower",
        "wilson_interval_upper", "cosine_similarity", "cosine_distance", "euclidean_distance", "dot_product", "t_cdf", "t_pdf")) {
      all.addAll(JavaFunctions.scalar(name, MathFunctions.class, camel(name)));
    }
    all.addAll(JavaFunctions.scalar("pow", MathFunctions.class, "power"));
    return List.copyOf(all);
  }

  static String camel(String name) {
    StringBuilder out = new StringBuilder();
    boolean upper = false;
    for (char c : name.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }

  // ---- called from generated code

  public static double e() {
    return Math.E;
  }

  public static double nan() {
    return Double.NaN;
  }

  public static double infinity() {
    return Double.POSITIVE_INFINITY;
  }

  @Strict
  public static boolean isNan(Number xValue) {
    double x = xValue.doubleValue();
    return Double.isNaN(x);
  }

  @Strict
  public static boolean isFinite(Number xValue) {
    double x = xValue.doubleValue();
    return Double.isFinite(x);
  }

  @Strict
  public static boolean isInfinite(Number xValue) {
    double x = xValue.doubleValue();
    return Double.isInfinite(x);
  }

  @Strict
  public static double log2(Number xValue) {
    double x = xValue.doubleValue();
    return Math.log(x) / Math.log(2);
  }

  @Strict
  public static double power(Number xValue, Number pValue) {
    double x = xValue.doubleValue();
    double p = pValue.doubleValue();
    return Math.pow(x, p);
  }

  @Strict
  public static long fromBase(String text, long radix) {
    checkRadix(radix);
    try {
      return Long.parseLong(text, (int) radix);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Not a valid base-" + radix + " number: " + text);
    }
  }

  @Strict
  public static String toBase(long value, long radix) {
    checkRadix(radix);
    return Long.toString(value, (int) radix);
  }

  private static void checkRadix(long radix) {
    if (radix < Character.MIN_RADIX || radix > Character.MAX_RADIX) {
      throw new IllegalArgumentException("Radix must be between 2 and 36");
    }
  }

  /** The bucket of {@code x} among {@code count} equal-width buckets between bound1 and bound2 (0 and count + 1 outside). */
  @Strict
  public static long widthBucket(Number xValue, Number bound1Value, Number bound2Value, long count) {
    double x = xValue.doubleValue();
    double bound1 = bound1Value.doubleValue();
    double bound2 = bound2Value.doubleValue();
    if (count <= 0) {
      throw new IllegalArgumentException("bucketCount must be greater than 0");
    }
    if (Double.isNaN(x)) {
      throw new IllegalArgumentException("operand must not be NaN");
    }
    if (!Double.isFinite(bound1) || !Double.isFinite(bound2)) {
      throw new IllegalArgumentException("first bound and second bound must be finite");
    }
    if (bound1 == bound2) {
      throw new IllegalArgumentException("bounds cannot equal each other");
    }
    double lower = Math.min(bound1, bound2);
    double upper = Math.max(bound1, bound2);
    if (x < lower) {
      return bound1 < bound2 ? 0 : count + 1;
    }
    if (x >= upper) {
      return bound1 < bound2 ? count + 1 : 0;
    }
    long bucket = (long) ((x - bound1) / (bound2 - bound1) * count) + 1;
    return bucket;
  }

  /** The regularized incomplete beta function at {@code value}: the CDF of Beta(a, b). */
  @Strict
  public static double betaCdf(Number aValue, Number bValue, Number valueValue) {
    double a = aValue.doubleValue();
    double b = bValue.doubleValue();
    double value = valueValue.doubleValue();
    checkBeta(a, b, value);
    return regularizedBeta(value, a, b);
  }

  @Strict
  public static double inverseBetaCdf(Number aValue, Number bValue, Number pValue) {
    double a = aValue.doubleValue();
    double b = bValue.doubleValue();
    double p = pValue.doubleValue();
    checkBeta(a, b, p);
    double low = 0;
    double high = 1;
    for (int i = 0; i < 200; i++) {
      double mid = (low + high) / 2;
      if (regularizedBeta(mid, a, b) < p) {
        low = mid;
      } else {
        high = mid;
      }
    }
    return (low + high) / 2;
  }

  private static void checkBeta(double a, double b, double value) {
    if (a <= 0 || b <= 0) {
      throw new IllegalArgumentException("a, b must be > 0");
    }
    if (value < 0 || value > 1) {
      throw new IllegalArgumentException("value must be in the interval [0, 1]");
    }
  }

  @Strict
  public static double normalCdf(Number meanValue, Number sdValue, Number valueValue) {
    double mean = meanValue.doubleValue();
    double sd = sdValue.doubleValue();
    double value = valueValue.doubleValue();
    if (sd <= 0) {
      throw new IllegalArgumentException("standardDeviation must be > 0");
    }
    return 0.5 * (1 + erf((value - mean) / (sd * Math.sqrt(2))));
  }

  @Strict
  public static double inverseNormalCdf(Number meanValue, Number sdValue, Number pValue) {
    double mean = meanValue.doubleValue();
    double sd = sdValue.doubleValue();
    double p = pValue.doubleValue();
    if (p <= 0 || p >= 1) {
      throw new IllegalArgumentException("p must be 0 > p > 1");
    }
    if (sd <= 0) {
      throw new IllegalArgumentException("sd must be > 0");
    }
    double low = -40;
    double high = 40;
    for (int i = 0; i < 200; i++) {
      double mid = (low + high) / 2;
      if (normalCdf(0, 1, mid) < p) {
        low = mid;
      } else {
        high = mid;
      }
    }
    return mean + sd * (low + high) / 2;
  }

  /** Student's t distribution's CDF with {@code df} degrees of freedom. */
  @Strict
  public static double tCdf(Number xValue, Number dfValue) {
    double x = xValue.doubleValue();
    double df = dfValue.doubleValue();
    if (df <= 0) {
      throw new IllegalArgumentException("df must be greater than 0");
    }
    double ib = regularizedBeta(df / (df + x * x), df / 2, 0.5);
    return x >= 0 ? 1 - ib / 2 : ib / 2;
  }

  @Strict
  public static double tPdf(Number xValue, Number dfValue) {
    double x = xValue.doubleValue();
    double df = dfValue.doubleValue();
    if (df <= 0) {
      throw new IllegalArgumentException("df must be greater than 0");
    }
    return Math.exp(logGamma((df + 1) / 2) - logGamma(df / 2)) / Math.sqrt(df * Math.PI) * Math.pow(1 + x * x / df, -(df + 1) / 2);
  }

  @Strict
  public static double wilsonIntervalLower(long successes, long trials, Number zValue) {
    double z = zValue.doubleValue();
    return wilson(successes, trials, z, -1);
  }

  @Strict
  public static double wilsonIntervalUpper(long successes, long trials, Number zValue) {
    double z = zValue.doubleValue();
    return wilson(successes, trials, z, 1);
  }

  private static double wilson(long successes, long trials, double z, int sign) {
    if (successes < 0) {
      throw new IllegalArgumentException("number of successes must not be negative");
    }
    if (trials <= 0) {
      throw new IllegalArgumentException("number of trials must be positive");
    }
    if (successes > trials) {
      throw new IllegalArgumentException("number of successes must not be larger than number of trials");
    }
    if (z < 0) {
      throw new IllegalArgumentException("z-score must not be negative");
    }
    double p = (double) successes / trials;
    double z2 = z * z;
    double center = p + z2 / (2 * trials);
    double spread = z * Math.sqrt(p * (1 - p) / trials + z2 / (4.0 * trials * trials));
    return (center + sign * spread) / (1 + z2 / trials);
  }

  @Strict
  public static Double cosineSimilarity(Map<Object, Object> x, Map<Object, Object> y) {
    double dot = 0;
    for (Map.Entry<Object, Object> e : x.entrySet()) {
      Object other = y.get(e.getKey());
      if (e.getValue() == null || other == null && y.containsKey(e.getKey())) {
        return null;
      }
      if (other != null) {
        dot += number(e.getValue()) * number(other);
      }
    }
    Double nx = norm(x.values());
    Double ny = norm(y.values());
    return nx == null || ny == null ? null : dot / (nx * ny);
  }

  @Strict
  public static Double cosineDistance(List<Object> x, List<Object> y) {
    Double dot = dotProduct(x, y);
    Double nx = norm(x);
    Double ny = norm(y);
    return dot == null || nx == null || ny == null ? null : 1 - dot / (nx * ny);
  }

  @Strict
  public static Double euclideanDistance(List<Object> x, List<Object> y) {
    checkSameLength(x, y);
    double sum = 0;
    for (int i = 0; i < x.size(); i++) {
      if (x.get(i) == null || y.get(i) == null) {
        return null;
      }
      double d = number(x.get(i)) - number(y.get(i));
      sum += d * d;
    }
    return Math.sqrt(sum);
  }

  @Strict
  public static Double dotProduct(List<Object> x, List<Object> y) {
    checkSameLength(x, y);
    double sum = 0;
    for (int i = 0; i < x.size(); i++) {
      if (x.get(i) == null || y.get(i) == null) {
        return null;
      }
      sum += number(x.get(i)) * number(y.get(i));
    }
    return sum;
  }

  private static void checkSameLength(List<Object> x, List<Object> y) {
    if (x.size() != y.size()) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "The arguments have different lengths: %d and %d", x.size(), y.size()));
    }
  }

  private static Double norm(Iterable<Object> values) {
    double sum = 0;
    for (Object v : values) {
      if (v == null) {
        return null;
      }
      sum += number(v) * number(v);
    }
    return Math.sqrt(sum);
  }

  private static double number(Object value) {
    return ((Number) value).doubleValue();
  }

  private static double erf(double x) {
    // Abramowitz and Stegun 7.1.26 is too coarse for a CDF compared to 1e-9; the series and the
    // continued fraction of the incomplete gamma function give full double precision.
    double t = x * x;
    double p = x < 0 ? -regularizedGammaP(0.5, t) : regularizedGammaP(0.5, t);
    return p;
  }

  private static double regularizedGammaP(double a, double x) {
    if (x <= 0) {
      return 0;
    }
    if (x < a + 1) {
      double sum = 1 / a;
      double term = sum;
      for (int n = 1; n < 10_000; n++) {
        term *= x / (a + n);
        sum += term;
        if (Math.abs(term) < Math.abs(sum) * 1e-17) {
          break;
        }
      }
      return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
    }
    return 1 - regularizedGammaQContinuedFraction(a, x);
  }

  private static double regularizedGammaQContinuedFraction(double a, double x) {
    double b = x + 1 - a;
    double c = 1 / 1e-300;
    double d = 1 / b;
    double h = d;
    for (int i = 1; i < 10_000; i++) {
      double an = -i * (i - a);
      b += 2;
      d = an * d + b;
      if (Math.abs(d) < 1e-300) {
        d = 1e-300;
      }
      c = b + an / c;
      if (Math.abs(c) < 1e-300) {
        c = 1e-300;
      }
      d = 1 / d;
      double delta = d * c;
      h *= delta;
      if (Math.abs(delta - 1) < 1e-17) {
        break;
      }
    }
    return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
  }

  /** Lanczos approximation of log Γ(x) (g = 7, n = 9). */
  private static double logGamma(double x) {
    double[] c = {
        0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
        12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
    if (x < 0.5) {
      return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
    }
    x -= 1;
    double a = c[0];
    double t = x + 7.5;
    for (int i = 1; i < 9; i++) {
      a += c[i] / (x + i);
    }
    return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
  }

  /** I_x(a, b) by its continued fraction (Numerical Recipes' betacf). */
  private static double regularizedBeta(double x, double a, double b) {
    if (x <= 0) {
      return 0;
    }
    if (x >= 1) {
      return 1;
    }
    double front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
    if (x < (a + 1) / (a + b + 2)) {
      return front * betaFraction(x, a, b) / a;
    }
    return 1 - front * betaFraction(1 - x, b, a) / b;
  }

  private static double betaFraction(double x, double a, double b) {
    double qab = a + b;
    double qap = a + 1;
    double qam = a - 1;
    double c = 1;
    double d = 1 - qab * x / qap;
    d = Math.abs(d) < 1e-300 ? 1e-300 : d;
    d = 1 / d;
    double h = d;
    for (int m = 1; m < 10_000; m++) {
      int m2 = 2 * m;
      double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
      d = 1 + aa * d;
      d = Math.abs(d) < 1e-300 ? 1e-300 : d;
      c = 1 + aa / c;
      c = Math.abs(c) < 1e-300 ? 1e-300 : c;
      d = 1 / d;
      h *= d * c;
      aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
      d = 1 + aa * d;
      d = Math.abs(d) < 1e-300 ? 1e-300 : d;
      c = 1 + aa / c;
      c = Math.abs(c) < 1e-300 ? 1e-300 : c;
      d = 1 / d;
      double delta = d * c;
      h *= delta;
      if (Math.abs(delta - 1) < 1e-16) {
        break;
      }
    }
    return h;
  }
}
