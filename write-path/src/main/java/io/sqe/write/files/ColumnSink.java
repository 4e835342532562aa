package io.sqe.write.files;

import org.apache.iceberg.DoubleFieldMetrics;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FloatFieldMetrics;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Where a top-level column's values go on their way into a Parquet file, one at a time, from a
 * {@link VectorColumn}: parquet-mr's column writer ({@link StoreSink}, for Iceberg's writer) or
 * SQE's own pages ({@link ColumnChunkWriter}). It keeps the metrics Iceberg takes from the writer
 * rather than from the file's statistics (the NaN count and bounds of FLOAT and DOUBLE columns), as
 * Iceberg's own value writers keep them.
 */
abstract class ColumnSink {
  private final int fieldId;
  private final FloatFieldMetrics.Builder floats;
  private final DoubleFieldMetrics.Builder doubles;
  private long nulls;
  private byte[] scratch = new byte[64];

  ColumnSink(Types.NestedField field) {
    this.fieldId = field.fieldId();
    this.floats = field.type().typeId() == Type.TypeID.FLOAT ? new FloatFieldMetrics.Builder(fieldId) : null;
    this.doubles = field.type().typeId() == Type.TypeID.DOUBLE ? new DoubleFieldMetrics.Builder(fieldId) : null;
  }

  abstract void writeNull();

  abstract void write(boolean value);

  abstract void write(int value);

  abstract void write(long value);

  abstract void write(float value);

  abstract void write(double value);

  /** Writes the first {@code length} bytes of {@code bytes}, which the caller reuses for the next value. */
  abstract void write(byte[] bytes, int length);

  /** A buffer of at least {@code length} bytes for one value, reused for the next (writers copy what they keep). */
  final byte[] scratch(int length) {
    if (scratch.length < length) {
      scratch = new byte[Math.max(length, scratch.length * 2)];
    }
    return scratch;
  }

  final void countNull() {
    nulls++;
  }

  final void countFloat(float value) {
    floats.addValue(value);
  }

  final void countDouble(double value) {
    doubles.addValue(value);
  }

  /** The writer-kept metrics of a FLOAT or DOUBLE column, counting nulls as Iceberg's optional writer does; else null. */
  final FieldMetrics<?> metrics() {
    if (floats != null) {
      return withNulls(floats.build());
    }
    return doubles != null ? withNulls(doubles.build()) : null;
  }

  private <T> FieldMetrics<T> withNulls(FieldMetrics<T> values) {
    return new FieldMetrics<>(
        fieldId, values.valueCount() + nulls, nulls, values.nanValueCount(), values.lowerBound(), values.upperBound(), values.originalType());
  }
}
