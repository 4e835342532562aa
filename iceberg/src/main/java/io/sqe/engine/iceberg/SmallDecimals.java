package io.sqe.engine.iceberg;

import java.math.BigDecimal;

/**
 * {@code BigDecimal.valueOf(unscaled, scale)} that hands out one shared instance per value for
 * small unscaled values of small scales, as {@code Long.valueOf} does for small longs: quantities,
 * discounts and tax rates (TPC-H's {@code l_quantity}, {@code l_discount}, {@code l_tax}) then cost
 * a row no allocation. A {@code BigDecimal} is immutable, so sharing one is safe; two threads that
 * fill the same entry at once each make an equal value and either is kept.
 */
final class SmallDecimals {
  /** Unscaled values in {@code [0, LIMIT)} are shared. */
  static final int LIMIT = 1 << 13;
  /** Scales in {@code [0, SCALES)} are shared. */
  static final int SCALES = 7;

  private static final BigDecimal[][] CACHE = new BigDecimal[SCALES][LIMIT];

  private SmallDecimals() {}

  static BigDecimal valueOf(long unscaled, int scale) {
    if (unscaled < 0 || unscaled >= LIMIT || scale < 0 || scale >= SCALES) {
      return BigDecimal.valueOf(unscaled, scale);
    }
    BigDecimal[] values = CACHE[scale];
    BigDecimal value = values[(int) unscaled];
    if (value == null) {
      value = BigDecimal.valueOf(unscaled, scale);
      values[(int) unscaled] = value;
    }
    return value;
  }
}
