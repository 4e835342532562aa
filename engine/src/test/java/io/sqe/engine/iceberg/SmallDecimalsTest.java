package io.sqe.engine.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class SmallDecimalsTest {
  @Test
  void equalsBigDecimalValueOfInsideAndOutsideTheSharedRange() {
    long[] unscaled = {
      Long.MIN_VALUE, -SmallDecimals.LIMIT, -1, 0, 1, 99, 100, SmallDecimals.LIMIT - 1, SmallDecimals.LIMIT, Long.MAX_VALUE
    };
    for (int scale = -2; scale <= SmallDecimals.SCALES + 2; scale++) {
      for (long u : unscaled) {
        BigDecimal expected = BigDecimal.valueOf(u, scale);
        BigDecimal actual = SmallDecimals.valueOf(u, scale);
        // Same value and same scale: equals compares both.
        assertEquals(expected, actual, u + " scale " + scale);
        assertEquals(expected, SmallDecimals.valueOf(u, scale), "again " + u + " scale " + scale);
      }
    }
  }

  @Test
  void sharesSmallValuesOnly() {
    assertSame(SmallDecimals.valueOf(2500, 2), SmallDecimals.valueOf(2500, 2));
    assertNotSame(SmallDecimals.valueOf(2500, 2), SmallDecimals.valueOf(2500, 3));
    assertNotSame(SmallDecimals.valueOf(SmallDecimals.LIMIT, 2), SmallDecimals.valueOf(SmallDecimals.LIMIT, 2));
    assertNotSame(SmallDecimals.valueOf(-5, 2), SmallDecimals.valueOf(-5, 2));
  }
}
