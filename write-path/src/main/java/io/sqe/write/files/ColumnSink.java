package io.sqe.write.files;

import org.apache.iceberg.DoubleFieldMetrics;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FloatFieldMetrics;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;

/**
 * One top-level column of the Parquet file being written: parquet-mr's column store of its own for
 * the current row group (so that the column's rows and pages are ended by the thread that writes
 * its values), its writer, and the metrics Iceberg takes from the writer rather than from the file's statistics (the
 * NaN count and bounds of FLOAT and DOUBLE columns), kept as Iceberg's own value writers keep them.
 */
final class ColumnSink {
  private final ColumnDescriptor descriptor;
  private final int definitionLevel;
  private final int fieldId;
  private final FloatFieldMetrics.Builder floats;
  private final DoubleFieldMetrics.Builder doubles;
  private ColumnWriteStore store;
  private ColumnWriter writer;
  private long nulls;
  private byte[] scratch = new byte[64];

  ColumnSink(Types.NestedField field, ColumnDescriptor descriptor) {
    this.descriptor = descriptor;
    this.definitionLevel = descriptor.getMaxDefinitionLevel();
    this.fieldId = field.fieldId();
    this.floats = field.type().typeId() == Type.TypeID.FLOAT ? new FloatFieldMetrics.Builder(fieldId) : null;
    this.doubles = field.type().typeId() == Type.TypeID.DOUBLE ? new DoubleFieldMetrics.Builder(fieldId) : null;
  }

  ColumnDescriptor descriptor() {
    return descriptor;
  }

  /** Starts a row group: {@code store} holds this column alone. */
  void setColumnStore(ColumnWriteStore store) {
    this.store = store;
    this.writer = store.getColumnWriter(descriptor);
  }

  /** Ends the last {@code count} rows, cutting a page when the column's is full. */
  void endRows(int count) {
    for (int i = 0; i < count; i++) {
      store.endRecord();
    }
  }

  void writeNull() {
    nulls++;
    writer.writeNull(0, definitionLevel - 1);
  }

  void write(boolean value) {
    writer.write(value, 0, definitionLevel);
  }

  void write(int value) {
    writer.write(value, 0, definitionLevel);
  }

  void write(long value) {
    writer.write(value, 0, definitionLevel);
  }

  void write(float value) {
    writer.write(value, 0, definitionLevel);
    floats.addValue(value);
  }

  void write(double value) {
    writer.write(value, 0, definitionLevel);
    doubles.addValue(value);
  }

  void write(Binary value) {
    writer.write(value, 0, definitionLevel);
  }

  /** A buffer of at least {@code length} bytes for one value, reused for the next (parquet-mr copies what it keeps). */
  byte[] scratch(int length) {
    if (scratch.length < length) {
      scratch = new byte[Math.max(length, scratch.length * 2)];
    }
    return scratch;
  }

  /** The writer-kept metrics of a FLOAT or DOUBLE column, counting nulls as Iceberg's optional writer does; else null. */
  FieldMetrics<?> metrics() {
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
