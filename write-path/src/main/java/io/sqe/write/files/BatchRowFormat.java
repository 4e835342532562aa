package io.sqe.write.files;

import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.RegistryBasedFileWriterFactory;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFile;
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

  /**
   * Writers of Parquet data files of {@code table}'s schema from batch rows: by columns ({@link
   * ColumnarParquetAppender}) when the table's Parquet properties allow, else row by row through
   * Iceberg's writer.
   */
  static FileWriterFactory<BatchRow> writers(Table table, SortOrder sortOrder) {
    Optional<ParquetSettings> settings = ParquetSettings.of(table);
    return settings.isPresent() ? new ColumnarWriters(table, sortOrder, settings.get()) : new Writers(table, sortOrder);
  }

  /** Data files written by {@link ColumnarParquetAppender}, wrapped as Iceberg's writers wrap theirs. */
  private static final class ColumnarWriters implements FileWriterFactory<BatchRow> {
    private final Table table;
    private final SortOrder sortOrder;
    private final ParquetSettings settings;
    private final MetricsConfig metricsConfig;

    ColumnarWriters(Table table, SortOrder sortOrder, ParquetSettings settings) {
      this.table = table;
      this.sortOrder = sortOrder;
      this.settings = settings;
      this.metricsConfig = MetricsConfig.forTable(table);
    }

    @Override
    public DataWriter<BatchRow> newDataWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      OutputFile output = file.encryptingOutputFile();
      return new DataWriter<>(
          new ColumnarParquetAppender(output, table.schema(), settings, metricsConfig),
          FileFormat.PARQUET,
          output.location(),
          spec,
          partition,
          file.keyMetadata(),
          sortOrder);
    }

    @Override
    public EqualityDeleteWriter<BatchRow> newEqualityDeleteWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      throw new UnsupportedOperationException("Batch rows are written as data files only");
    }

    @Override
    public PositionDeleteWriter<BatchRow> newPositionDeleteWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      throw new UnsupportedOperationException("Batch rows are written as data files only");
    }
  }

  private static final class Writers extends RegistryBasedFileWriterFactory<BatchRow, Void> {
    Writers(Table table, SortOrder sortOrder) {
      super(table, FileFormat.PARQUET, BatchRow.class, table.schema(), sortOrder, null, null, null, null, Map.of(), null, null);
    }
  }
}
