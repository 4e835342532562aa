package io.sqe.engine.exec;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The rows of values an OR of conjunctions of equalities lists, {@code (a = 1 AND b = 'x') OR (a
 * = 2 AND b = 'y') OR ...}, as generated code tests them: one lookup per row instead of one
 * comparison per term. The answer is the OR's, NULLs included: when some of the row's values are
 * NULL, UNKNOWN if a listed row matches its other values, else FALSE.
 */
public final class TupleSet {
  private final Set<List<Object>> tuples = new HashSet<>();

  /** The set of {@code rows}, each of the values' run-time form (numbers, strings, booleans). */
  public TupleSet(List<Object[]> rows) {
    for (Object[] row : rows) {
      tuples.add(key(row));
    }
  }

  /** TRUE if the set holds {@code values}, FALSE if not, NULL if some are NULL and the others match a row. */
  public Boolean contains(Object[] values) {
    List<Object> key = key(values);
    if (!key.contains(null)) {
      return tuples.contains(key);
    }
    // Rare (a NULL among the values): each listed row is compared on the values that are not NULL.
    for (List<Object> listed : tuples) {
      boolean matches = true;
      for (int i = 0; i < key.size() && matches; i++) {
        matches = key.get(i) == null || key.get(i).equals(listed.get(i));
      }
      if (matches) {
        return null;
      }
    }
    return false;
  }

  /** The values in a form whose equals is SQL's equality: integers as longs, decimals without trailing zeros. */
  private static List<Object> key(Object[] values) {
    Object[] key = new Object[values.length];
    for (int i = 0; i < values.length; i++) {
      key[i] = normalized(values[i]);
    }
    return Arrays.asList(key);
  }

  private static Object normalized(Object value) {
    if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof BigDecimal) {
      return ((BigDecimal) value).stripTrailingZeros();
    }
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      return d == 0.0 ? 0.0 : d;
    }
    return value;
  }
}
