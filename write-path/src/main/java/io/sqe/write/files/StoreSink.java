package io.sqe.write.files;

import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;

/** A column's values into parquet-mr's column writer of the column store Iceberg's writer gives. */
final class StoreSink extends ColumnSink {
  private final ColumnDescriptor descriptor;
  private final int definitionLevel;
  private ColumnWriter writer;

  StoreSink(Types.NestedField field, ColumnDescriptor descriptor) {
    super(field);
    this.descriptor = descriptor;
    this.definitionLevel = descriptor.getMaxDefinitionLevel();
  }

  /** Starts a row group. */
  void setColumnStore(ColumnWriteStore store) {
    this.writer = store.getColumnWriter(descriptor);
  }

  @Override
  void writeNull() {
    countNull();
    writer.writeNull(0, definitionLevel - 1);
  }

  @Override
  void write(boolean value) {
    writer.write(value, 0, definitionLevel);
  }

  @Override
  void write(int value) {
    writer.write(value, 0, definitionLevel);
  }

  @Override
  void write(long value) {
    writer.write(value, 0, definitionLevel);
  }

  @Override
  void write(float value) {
    writer.write(value, 0, definitionLevel);
    countFloat(value);
  }

  @Override
  void write(double value) {
    writer.write(value, 0, definitionLevel);
    countDouble(value);
  }

  @Override
  void write(byte[] bytes, int length) {
    writer.write(Binary.fromReusedByteArray(bytes, 0, length), 0, definitionLevel);
  }
}
