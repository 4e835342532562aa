package io.sqe.engine.exec.expr;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;

/**
 * The sort keys of a set of batches, for sorting their rows by a {@link RowComparator}, copied once
 * into arrays so that the many comparisons of a sort read arrays instead of going through the
 * vectors: whole numbers (integers, dates, timestamps, decimals of up to 18 digits) as longs,
 * floating point as longs that order as {@link Double#compare} does, and text and binary as the
 * first 8 bytes of each value in a long (unsigned, big-endian) with its length, the rest of the
 * bytes read from the vector only when two values share those 8. Other keys (booleans, decimals
 * past 18 digits) are compared on the vectors. Rows are addressed as {@code batch << 32 | row}.
 * The order is exactly the comparator's.
 */
public final class SortKeyColumns {
  /** Bytes of a text value its prefix holds. */
  private static final int PREFIX = 8;

  private final List<List<FieldVector>> batches;
  private final int[] starts;
  private final RowComparator.Key[] keys;
  /** Per key, its values by row (batch start plus row) as signed longs, or its text prefixes; null to compare on the vectors. */
  private final long[][] values;
  /** Per text key, its values' lengths in bytes by row; null for the others. */
  private final int[][] lengths;
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
    this.lengths = new int[keys.length][];
    this.nulls = new boolean[keys.length][];
    this.onVectors = new RowComparator[keys.length];
    for (int k = 0; k < keys.length; k++) {
      int column = keys[k].column();
      Form form = batches.isEmpty() ? Form.VECTORS : formOf(batches.get(0).get(column));
      for (List<FieldVector> columns : batches) {
        if (formOf(columns.get(column)) != form) {
          form = Form.VECTORS;
        }
      }
      if (form == Form.VECTORS) {
        onVectors[k] = new RowComparator(List.of(keys[k]));
        continue;
      }
      long[] keyValues = new long[rows];
      int[] keyLengths = form == Form.TEXT ? new int[rows] : null;
      boolean[] keyNulls = null;
      for (int b = 0; b < batches.size(); b++) {
        FieldVector vector = batches.get(b).get(column);
        int count = vector.getValueCount();
        boolean mayBeNull = vector.getNullCount() > 0;
        if (mayBeNull) {
          for (int r = 0; r < count; r++) {
            if (vector.isNull(r)) {
              if (keyNulls == null) {
                keyNulls = new boolean[rows];
              }
              keyNulls[starts[b] + r] = true;
            }
          }
        }
        switch (form) {
          case LONGS -> {
            ColumnValues.Longs longs = ColumnValues.longs(vector);
            for (int r = 0; r < count; r++) {
              keyValues[starts[b] + r] = longs.get(r);
            }
          }
          case DOUBLES -> {
            ColumnValues.Doubles doubles = ColumnValues.doubles(vector);
            for (int r = 0; r < count; r++) {
              keyValues[starts[b] + r] = orderedBits(doubles.get(r));
            }
          }
          default -> prefixes((BaseVariableWidthVector) vector, count, keyValues, keyLengths, starts[b]);
        }
      }
      values[k] = keyValues;
      lengths[k] = keyLengths;
      nulls[k] = keyNulls;
    }
  }

  /** How a key's values are kept. */
  private enum Form {
    LONGS,
    DOUBLES,
    TEXT,
    VECTORS
  }

  private static Form formOf(FieldVector vector) {
    if (vector instanceof BigIntVector
        || vector instanceof IntVector
        || vector instanceof SmallIntVector
        || vector instanceof TinyIntVector
        || vector instanceof DateDayVector
        || vector instanceof TimeStampVector
        || vector instanceof TimeMicroVector
        || vector instanceof DecimalVector decimal && decimal.getPrecision() <= 18) {
      return Form.LONGS;
    }
    if (vector instanceof Float8Vector || vector instanceof Float4Vector) {
      return Form.DOUBLES;
    }
    return vector instanceof BaseVariableWidthVector ? Form.TEXT : Form.VECTORS;
  }

  /**
   * A double's bits as a long whose signed order is {@link Double#compare}'s: -0.0 before 0.0, NaN
   * (one NaN, as {@link Double#doubleToLongBits} makes every NaN) after everything.
   */
  static long orderedBits(double value) {
    long bits = Double.doubleToLongBits(value);
    return bits ^ ((bits >> 63) & Long.MAX_VALUE);
  }

  /** The first {@link #PREFIX} bytes of each value, big-endian and zero-padded, and the values' lengths. */
  private static void prefixes(BaseVariableWidthVector vector, int count, long[] prefixes, int[] lengths, int at) {
    ArrowBuf data = vector.getDataBuffer();
    ArrowBuf offsets = vector.getOffsetBuffer();
    for (int r = 0; r < count; r++) {
      int start = offsets.getInt((long) r * 4);
      int length = offsets.getInt((long) (r + 1) * 4) - start;
      long prefix;
      if (length >= PREFIX) {
        prefix = Long.reverseBytes(data.getLong(start));
      } else {
        prefix = 0;
        for (int i = 0; i < PREFIX; i++) {
          prefix = prefix << 8 | (i < length ? data.getByte(start + i) & 0xff : 0);
        }
      }
      prefixes[at + r] = prefix;
      lengths[at + r] = length;
    }
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
      int[] keyLengths = lengths[k];
      int order;
      if (keyLengths == null) {
        order = Long.compare(keyValues[i], keyValues[j]);
      } else {
        order = Long.compareUnsigned(keyValues[i], keyValues[j]);
        if (order == 0) {
          order = compareRest(k, aBatch, aRow, keyLengths[i], bBatch, bRow, keyLengths[j]);
        }
      }
      if (order != 0) {
        return keys[k].descending() ? -order : order;
      }
    }
    return 0;
  }

  /**
   * Two text values with the same prefix: when one is no longer than the prefix, it is (with the
   * zero padding equal to the other's bytes) a prefix of the other, and the shorter sorts first;
   * else the bytes after the prefix decide.
   */
  private int compareRest(int k, int aBatch, int aRow, int aLength, int bBatch, int bRow, int bLength) {
    if (Math.min(aLength, bLength) <= PREFIX) {
      return Integer.compare(aLength, bLength);
    }
    int column = keys[k].column();
    BaseVariableWidthVector x = (BaseVariableWidthVector) batches.get(aBatch).get(column);
    BaseVariableWidthVector y = (BaseVariableWidthVector) batches.get(bBatch).get(column);
    int xStart = x.getStartOffset(aRow);
    int yStart = y.getStartOffset(bRow);
    return ByteFunctionHelpers.compare(
        x.getDataBuffer(), xStart + PREFIX, xStart + aLength, y.getDataBuffer(), yStart + PREFIX, yStart + bLength);
  }
}
