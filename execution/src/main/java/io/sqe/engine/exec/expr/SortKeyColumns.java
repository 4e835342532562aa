package io.sqe.engine.exec.expr;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;

/**
 * The sort keys of a set of batches, for sorting their rows by a {@link RowComparator}: keys whose
 * values are whole numbers (integers, dates, timestamps, decimals of up to 18 digits) are copied
 * once into arrays, so that the many comparisons of a sort read a {@code long} each instead of
 * going through the vectors; other keys are compared on the vectors. Rows are addressed as
 * {@code batch << 32 | row}. The order is exactly the comparator's.
 */
public final class SortKeyColumns {
  private final List<List<FieldVector>> batches;
  private final int[] starts;
  private final RowComparator.Key[] keys;
  /** Per key, its values by row (batch start plus row), or null to compare on the vectors. */
  private final long[][] values;
  /** Per key with values, which rows are null; null when none is. */
  private final boolean[][] nulls;
  /** Per key without values, a comparator of that key alone. */
  private final RowComparator[] onVectors;

  /** The keys of {@code comparator} over the rows of {@code batches}, each a batch's columns. */
  public SortKeyColumns(RowComparator comparator, List<List<FieldVector>> batches) {
    this.batches = requireNonNull(batches, "batches is null");
    List<RowComparator.Key> keyList = comparator.keys();
    this.keys = keyList.toArray(new RowComparator.Key[0]);
    this.starts = new int[batches.size()];
    int rows = 0;
    for (int b = 0; b < batches.size(); b++) {
      starts[b] = rows;
      rows += batches.get(b).isEmpty() ? 0 : batches.get(b).get(0).getValueCount();
    }
    this.values = new long[keys.length][];
    this.nulls = new boolean[keys.length][];
    this.onVectors = new RowComparator[keys.length];
    for (int k = 0; k < keys.length; k++) {
      int column = keys[k].column();
      boolean whole = !batches.isEmpty() && batches.stream().allMatch(columns -> wholeNumbers(columns.get(column)));
      if (!whole) {
        onVectors[k] = new RowComparator(List.of(keys[k]));
        continue;
      }
      long[] keyValues = new long[rows];
      boolean[] keyNulls = null;
      for (int b = 0; b < batches.size(); b++) {
        FieldVector vector = batches.get(b).get(column);
        ColumnValues.Longs longs = ColumnValues.longs(vector);
        int count = vector.getValueCount();
        boolean mayBeNull = vector.getNullCount() > 0;
        for (int r = 0; r < count; r++) {
          if (mayBeNull && vector.isNull(r)) {
            if (keyNulls == null) {
              keyNulls = new boolean[rows];
            }
            keyNulls[starts[b] + r] = true;
          } else {
            keyValues[starts[b] + r] = longs.get(r);
          }
        }
      }
      values[k] = keyValues;
      nulls[k] = keyNulls;
    }
  }

  private static boolean wholeNumbers(FieldVector vector) {
    return vector instanceof BigIntVector
        || vector instanceof IntVector
        || vector instanceof SmallIntVector
        || vector instanceof TinyIntVector
        || vector instanceof DateDayVector
        || vector instanceof TimeStampVector
        || vector instanceof TimeMicroVector
        || vector instanceof DecimalVector decimal && decimal.getPrecision() <= 18;
  }

  /** How the row at address {@code a} sorts against the one at {@code b}. */
  public int compare(long a, long b) {
    int aBatch = (int) (a >>> 32);
    int bBatch = (int) (b >>> 32);
    int aRow = (int) a;
    int bRow = (int) b;
    int i = starts[aBatch] + aRow;
    int j = starts[bBatch] + bRow;
    for (int k = 0; k < keys.length; k++) {
      long[] keyValues = values[k];
      if (keyValues == null) {
        int order = onVectors[k].compare(batches.get(aBatch), aRow, batches.get(bBatch), bRow);
        if (order != 0) {
          return order;
        }
        continue;
      }
      boolean[] keyNulls = nulls[k];
      if (keyNulls != null && (keyNulls[i] || keyNulls[j])) {
        if (keyNulls[i] && keyNulls[j]) {
          continue;
        }
        // As RowComparator: where nulls go does not turn with the direction.
        return keyNulls[i] == keys[k].nullsFirst() ? -1 : 1;
      }
      int order = Long.compare(keyValues[i], keyValues[j]);
      if (order != 0) {
        return keys[k].descending() ? -order : order;
      }
    }
    return 0;
  }
}
