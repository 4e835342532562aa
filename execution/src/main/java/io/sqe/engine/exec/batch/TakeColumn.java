package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/**
 * One column of one or more record batches, ready to copy chosen values from into a new vector:
 * fixed-width values, booleans and text are copied as bytes straight between the Arrow buffers,
 * with their validity bits, and other types value by value. Arrow's {@code copyFromSafe}, which it
 * replaces on the paths that copy most rows (join output, filters), costs a virtual call, a
 * capacity check and a validity read per value. The batches must not change while it is used.
 */
public final class TakeColumn {
  private enum Layout { FIXED, BIT, VARIABLE, ANY }

  private final FieldVector[] vectors;
  private final ArrowBuf[] data;
  private final ArrowBuf[] validity;
  private final ArrowBuf[] offsets;
  /** Per batch, whether any of its values is NULL: a batch without any needs no validity read. */
  private final boolean[] nulls;
  private final Layout layout;
  private final int width;

  private TakeColumn(FieldVector[] vectors) {
    this.vectors = vectors;
    int n = vectors.length;
    this.data = new ArrowBuf[n];
    this.validity = new ArrowBuf[n];
    this.offsets = new ArrowBuf[n];
    this.nulls = new boolean[n];
    Layout common = n == 0 ? Layout.ANY : layoutOf(vectors[0]);
    int commonWidth = n == 0 ? 0 : widthOf(vectors[0]);
    for (int b = 0; b < n; b++) {
      FieldVector vector = vectors[b];
      if (vector.getClass() != vectors[0].getClass() || widthOf(vector) != commonWidth) {
        common = Layout.ANY;
      }
      nulls[b] = vector.getNullCount() > 0;
      validity[b] = vector.getValidityBuffer();
      if (layoutOf(vector) != Layout.ANY) {
        data[b] = vector.getDataBuffer();
      }
      if (vector instanceof BaseVariableWidthVector) {
        offsets[b] = vector.getOffsetBuffer();
      }
    }
    this.layout = common;
    this.width = commonWidth;
  }

  /** The column of one batch. */
  public static TakeColumn of(FieldVector vector) {
    return new TakeColumn(new FieldVector[] {requireNonNull(vector, "vector is null")});
  }

  /** The column across batches, numbered in the order given. */
  public static TakeColumn of(List<? extends FieldVector> vectors) {
    return new TakeColumn(vectors.toArray(new FieldVector[0]));
  }

  private static Layout layoutOf(FieldVector vector) {
    if (vector instanceof BitVector) {
      return Layout.BIT;
    }
    if (vector instanceof BaseFixedWidthVector) {
      return Layout.FIXED;
    }
    if (vector instanceof BaseVariableWidthVector) {
      return Layout.VARIABLE;
    }
    return Layout.ANY;
  }

  private static int widthOf(FieldVector vector) {
    return vector instanceof BaseFixedWidthVector fixed && !(vector instanceof BitVector) ? fixed.getTypeWidth() : 0;
  }

  /**
   * Allocates {@code target} (empty, of the column's type) and sets its values 0..count-1: value
   * {@code i} is row {@code rows[i]} of batch {@code batches[i]} (of the only batch when {@code
   * batches} is null), NULL where {@code rows[i]} is negative. Sets the value count too.
   */
  public void into(FieldVector target, int[] batches, int[] rows, int count) {
    Layout to = vectors.length > 0 && target.getClass() == vectors[0].getClass() && widthOf(target) == width ? layout : Layout.ANY;
    switch (to) {
      case FIXED -> fixed((BaseFixedWidthVector) target, batches, rows, count);
      case BIT -> bits((BitVector) target, batches, rows, count);
      case VARIABLE -> variable((BaseVariableWidthVector) target, batches, rows, count);
      default -> any(target, batches, rows, count);
    }
    target.setValueCount(count);
  }

  private boolean valid(int batch, int row) {
    return row >= 0 && (!nulls[batch] || (validity[batch].getByte(row >>> 3) >> (row & 7) & 1) != 0);
  }

  private void fixed(BaseFixedWidthVector target, int[] batches, int[] rows, int count) {
    target.allocateNew(Math.max(count, 1));
    ArrowBuf out = target.getDataBuffer();
    ArrowBuf outValidity = target.getValidityBuffer();
    int bits = 0;
    for (int i = 0; i < count; i++) {
      int b = batches == null ? 0 : batches[i];
      int r = rows[i];
      if (valid(b, r)) {
        bits |= 1 << (i & 7);
        // Zeroed by allocateNew: a NULL's value stays 0.
        switch (width) {
          case 4 -> out.setInt((long) i * 4, data[b].getInt((long) r * 4));
          case 8 -> out.setLong((long) i * 8, data[b].getLong((long) r * 8));
          case 16 -> {
            out.setLong((long) i * 16, data[b].getLong((long) r * 16));
            out.setLong((long) i * 16 + 8, data[b].getLong((long) r * 16 + 8));
          }
          default -> out.setBytes((long) i * width, data[b], (long) r * width, width);
        }
      }
      if ((i & 7) == 7) {
        outValidity.setByte(i >>> 3, bits);
        bits = 0;
      }
    }
    if ((count & 7) != 0) {
      outValidity.setByte(count >>> 3, bits);
    }
  }

  private void bits(BitVector target, int[] batches, int[] rows, int count) {
    target.allocateNew(Math.max(count, 1));
    ArrowBuf out = target.getDataBuffer();
    ArrowBuf outValidity = target.getValidityBuffer();
    int valids = 0;
    int values = 0;
    for (int i = 0; i < count; i++) {
      int b = batches == null ? 0 : batches[i];
      int r = rows[i];
      if (valid(b, r)) {
        valids |= 1 << (i & 7);
        values |= (data[b].getByte(r >>> 3) >> (r & 7) & 1) << (i & 7);
      }
      if ((i & 7) == 7) {
        outValidity.setByte(i >>> 3, valids);
        out.setByte(i >>> 3, values);
        valids = 0;
        values = 0;
      }
    }
    if ((count & 7) != 0) {
      outValidity.setByte(count >>> 3, valids);
      out.setByte(count >>> 3, values);
    }
  }

  private void variable(BaseVariableWidthVector target, int[] batches, int[] rows, int count) {
    long bytes = 0;
    for (int i = 0; i < count; i++) {
      int b = batches == null ? 0 : batches[i];
      int r = rows[i];
      if (r >= 0) {
        bytes += offsets[b].getInt((long) (r + 1) * 4) - offsets[b].getInt((long) r * 4);
      }
    }
    target.allocateNew(Math.max(bytes, 1), Math.max(count, 1));
    ArrowBuf out = target.getDataBuffer();
    ArrowBuf outOffsets = target.getOffsetBuffer();
    ArrowBuf outValidity = target.getValidityBuffer();
    int end = 0;
    int bits = 0;
    outOffsets.setInt(0, 0);
    for (int i = 0; i < count; i++) {
      int b = batches == null ? 0 : batches[i];
      int r = rows[i];
      if (valid(b, r)) {
        bits |= 1 << (i & 7);
        int start = offsets[b].getInt((long) r * 4);
        int length = offsets[b].getInt((long) (r + 1) * 4) - start;
        out.setBytes(end, data[b], start, length);
        end += length;
      }
      outOffsets.setInt((long) (i + 1) * 4, end);
      if ((i & 7) == 7) {
        outValidity.setByte(i >>> 3, bits);
        bits = 0;
      }
    }
    if ((count & 7) != 0) {
      outValidity.setByte(count >>> 3, bits);
    }
    target.setLastSet(count - 1);
  }

  private void any(FieldVector target, int[] batches, int[] rows, int count) {
    target.setInitialCapacity(Math.max(count, 1));
    target.allocateNew();
    for (int i = 0; i < count; i++) {
      int r = rows[i];
      if (r >= 0) {
        target.copyFromSafe(r, i, vectors[batches == null ? 0 : batches[i]]);
      }
    }
  }
}
