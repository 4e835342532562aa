package io.sqe.write.files;

import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.RegistryBasedFileWriterFactory;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.parquet.ParquetFormatModel;

/**
 * Registers {@link BatchRow}s with Iceberg's format models as rows its Parquet writers take, so that
 * a file of batch rows is made by the same builder as one of generic records: every write property
 * of the table (row group and page sizes, codec, dictionary, bloom filters, metrics modes) applies.
 */
final class BatchRowFormat {
  static {
    FormatModelRegistry.register(
        ParquetFormatModel.create(
            BatchRow.class, Void.class, (schema, fileSchema, engineSchema) -> new BatchRowWriter(schema, fileSchema), null));
  }

  private BatchRowFormat() {}

  /** Writers of Parquet data files of {@code table}'s schema from batch rows. */
  static FileWriterFactory<BatchRow> writers(Table table, SortOrder sortOrder) {
    return new Writers(table, sortOrder);
  }

  private static final class Writers extends RegistryBasedFileWriterFactory<BatchRow, Void> {
    Writers(Table table, SortOrder sortOrder) {
      super(table, FileFormat.PARQUET, BatchRow.class, table.schema(), sortOrder, null, null, null, null, Map.of(), null, null);
    }
  }
}
