package io.sqe.engine.exec.batch;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * Copies chosen rows of one or more source vectors into an empty vector of the same type: row
 * {@code i} of the target is row {@code rows[i]} of {@code sources[sourceOf[i]]}, or null when
 * {@code rows[i]} is negative. Fixed-width values are copied as words and variable-width values
 * as one memory copy each, into buffers sized once; Arrow's {@code copyFromSafe}, which checks the
 * types, the capacity and reallocates per value, is left for the nested types.
 */
final class ColumnGather {
  private ColumnGather() {}

  /**
   * Fills {@code target} with {@code count} rows and sets its value count.
   *
   * @param sourceOf per row, the index of its source in {@code sources}; null when there is one source
   */
  static void gather(FieldVector target, FieldVector[] sources, int[] sourceOf, int[] rows, int count) {
    if (target instanceof BaseFixedWidthVector fixed && !(target instanceof BitVector)) {
      fixedWidth(fixed, sources, sourceOf, rows, count);
    } else if (target instanceof BaseVariableWidthVector variable) {
      variableWidth(variable, sources, sourceOf, rows, count);
    } else {
      target.setInitialCapacity(Math.max(count, 1));
      target.allocateNew();
      for (int i = 0; i < count; i++) {
        if (rows[i] >= 0) {
          target.copyFromSafe(rows[i], i, sources[sourceOf == null ? 0 : sourceOf[i]]);
        }
      }
    }
    target.setValueCount(count);
  }

  private static void fixedWidth(BaseFixedWidthVector target, FieldVector[] sources, int[] sourceOf, int[] rows, int count) {
    target.allocateNew(Math.max(count, 1));
    int width = target.getTypeWidth();
    ArrowBuf[] values = new ArrowBuf[sources.length];
    ArrowBuf[] validity = new ArrowBuf[sources.length];
    for (int s = 0; s < sources.length; s++) {
      if (sources[s] != null) {
        values[s] = sources[s].getDataBuffer();
        validity[s] = sources[s].getNullCount() == 0 ? null : sources[s].getValidityBuffer();
      }
    }
    ArrowBuf to = target.getDataBuffer();
    ArrowBuf toValidity = target.getValidityBuffer();
    for (int i = 0; i < count; i++) {
      int row = rows[i];
      int s = sourceOf == null ? 0 : sourceOf[i];
      if (row < 0 || validity[s] != null && BitVectorHelper.get(validity[s], row) == 0) {
        continue;
      }
      BitVectorHelper.setBit(toValidity, i);
      ArrowBuf from = values[s];
      switch (width) {
        case 8 -> to.setLong((long) i * 8, from.getLong((long) row * 8));
        case 4 -> to.setInt((long) i * 4, from.getInt((long) row * 4));
        case 16 -> {
          to.setLong((long) i * 16, from.getLong((long) row * 16));
          to.setLong((long) i * 16 + 8, from.getLong((long) row * 16 + 8));
        }
        default -> MemoryUtil.copyMemory(from.memoryAddress() + (long) row * width, to.memoryAddress() + (long) i * width, width);
      }
    }
  }

  private static void variableWidth(BaseVariableWidthVector target, FieldVector[] sources, int[] sourceOf, int[] rows, int count) {
    long bytes = 0;
    for (int i = 0; i < count; i++) {
      if (rows[i] >= 0) {
        bytes += ((BaseVariableWidthVector) sources[sourceOf == null ? 0 : sourceOf[i]]).getValueLength(rows[i]);
      }
    }
    target.allocateNew(Math.max(bytes, 1), Math.max(count, 1));
    ArrowBuf toOffsets = target.getOffsetBuffer();
    ArrowBuf toValidity = target.getValidityBuffer();
    long toData = target.getDataBuffer().memoryAddress();
    int position = 0;
    toOffsets.setInt(0, 0);
    for (int i = 0; i < count; i++) {
      int row = rows[i];
      if (row >= 0) {
        BaseVariableWidthVector from = (BaseVariableWidthVector) sources[sourceOf == null ? 0 : sourceOf[i]];
        if (!from.isNull(row)) {
          int start = from.getOffsetBuffer().getInt((long) row * BaseVariableWidthVector.OFFSET_WIDTH);
          int length = from.getOffsetBuffer().getInt((long) (row + 1) * BaseVariableWidthVector.OFFSET_WIDTH) - start;
          MemoryUtil.copyMemory(from.getDataBuffer().memoryAddress() + start, toData + position, length);
          position += length;
          BitVectorHelper.setBit(toValidity, i);
        }
      }
      toOffsets.setInt((long) (i + 1) * BaseVariableWidthVector.OFFSET_WIDTH, position);
    }
    // Every offset is written: nothing for setValueCount to fill.
    target.setLastSet(count - 1);
  }
}
