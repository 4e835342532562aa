package io.sqe.write.files;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.schema.MessageType;

/**
 * Iceberg's Parquet value writer for rows of record batches: each column's value goes from its
 * vector straight to parquet-mr's column writer, where Iceberg's generic writer would take it from
 * a {@code Record} of Java objects. Flat schemas only (the batch path writes no nested types).
 */
final class BatchRowWriter implements ParquetValueWriter<BatchRow> {
  private final StoreSink[] sinks;

  BatchRowWriter(Schema schema, MessageType fileSchema) {
    List<Types.NestedField> fields = schema.columns();
    List<ColumnDescriptor> columns = fileSchema.getColumns();
    Preconditions.checkArgument(
        columns.size() == fields.size(), "Invalid schema for a batch writer: %s Parquet columns for %s fields", columns.size(), fields.size());
    this.sinks = new StoreSink[fields.size()];
    for (int i = 0; i < sinks.length; i++) {
      ColumnDescriptor column = columns.get(i);
      Preconditions.checkArgument(
          column.getPath().length == 1 && column.getPath()[0].equals(fileSchema.getType(i).getName()),
          "Invalid schema for a batch writer: nested column %s",
          String.join(".", column.getPath()));
      sinks[i] = new StoreSink(fields.get(i), column);
    }
  }

  @Override
  public void write(int repetitionLevel, BatchRow row) {
    VectorColumn[] columns = row.columns();
    int index = row.index();
    for (int i = 0; i < sinks.length; i++) {
      VectorColumn column = columns[i];
      if (column.isNull(index)) {
        sinks[i].writeNull();
      } else {
        column.write(sinks[i], index);
      }
    }
  }

  /** None: Iceberg's struct and option writers ask their children, and this writer has neither above it. */
  @Override
  public List<TripleWriter<?>> columns() {
    return List.of();
  }

  @Override
  public void setColumnStore(ColumnWriteStore columnStore) {
    for (StoreSink sink : sinks) {
      sink.setColumnStore(columnStore);
    }
  }

  @Override
  public Stream<FieldMetrics<?>> metrics() {
    List<FieldMetrics<?>> metrics = new ArrayList<>();
    for (StoreSink sink : sinks) {
      metrics.add(sink.metrics());
    }
    return metrics.stream().filter(Objects::nonNull);
  }
}
