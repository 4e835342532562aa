package io.sqe.write.files;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.encryption.PlaintextEncryptionManager;
import org.apache.iceberg.hadoop.HadoopOutputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The Parquet settings of a table's data files as Iceberg's Parquet writer derives them from the
 * table's properties ({@code Parquet.WriteBuilder}), for {@link ColumnarParquetAppender}, which
 * writes the same files: only for tables whose properties it reads all of (sizes, codec and level,
 * row group checks) and that are not encrypted; a table with other Parquet properties (bloom
 * filters, per-column statistics, dictionary or page version settings) is written by Iceberg's
 * writer.
 */
record ParquetSettings(
    Map<String, String> properties,
    int rowGroupSize,
    int pageSize,
    int pageRowLimit,
    int dictionaryPageSize,
    CompressionCodecName codec,
    String compressionLevel,
    int rowGroupCheckMinRecordCount,
    int rowGroupCheckMaxRecordCount) {
  private static final Set<String> UNDERSTOOD = Set.of(
      TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
      TableProperties.PARQUET_PAGE_SIZE_BYTES,
      TableProperties.PARQUET_PAGE_ROW_LIMIT,
      TableProperties.PARQUET_DICT_SIZE_BYTES,
      TableProperties.PARQUET_COMPRESSION,
      TableProperties.PARQUET_COMPRESSION_LEVEL,
      TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT,
      TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT);

  /** The settings of {@code table}'s data files, or empty when a property or encryption asks for Iceberg's writer. */
  static Optional<ParquetSettings> of(Table table) {
    Map<String, String> properties = table.properties();
    boolean understood = properties.keySet().stream()
        .filter(key -> key.startsWith("write.parquet.") || key.startsWith("parquet."))
        .allMatch(UNDERSTOOD::contains);
    if (!understood || !(table.encryption() instanceof PlaintextEncryptionManager)) {
      return Optional.empty();
    }
    String codec = properties.getOrDefault(TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT);
    ParquetSettings settings;
    try {
      settings = new ParquetSettings(
        Map.copyOf(properties),
        positive(properties, TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT),
        positive(properties, TableProperties.PARQUET_PAGE_SIZE_BYTES, TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT),
        positive(properties, TableProperties.PARQUET_PAGE_ROW_LIMIT, TableProperties.PARQUET_PAGE_ROW_LIMIT_DEFAULT),
        positive(properties, TableProperties.PARQUET_DICT_SIZE_BYTES, TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT),
        CompressionCodecName.valueOf(codec.toUpperCase(Locale.ENGLISH)),
        properties.get(TableProperties.PARQUET_COMPRESSION_LEVEL),
        positive(
            properties,
            TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT,
            TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT_DEFAULT),
        positive(
            properties,
            TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT,
            TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT_DEFAULT));
    } catch (IllegalArgumentException e) {
      // Iceberg's writer reports the invalid property.
      return Optional.empty();
    }
    return settings.rowGroupCheckMaxRecordCount >= settings.rowGroupCheckMinRecordCount ? Optional.of(settings) : Optional.empty();
  }

  private static int positive(Map<String, String> properties, String name, int fallback) {
    int value = PropertyUtil.propertyAsInt(properties, name, fallback);
    if (value <= 0) {
      throw new IllegalArgumentException("Invalid " + name + ": " + value + " (must be above 0)");
    }
    return value;
  }

  /**
   * parquet-mr's properties of the file's column writers, as Iceberg's writer sets them; the
   * values writers are {@link DictionaryWriters}, which write the same bytes, and their buffers
   * come from a {@link SlabPool} of the file's.
   */
  ParquetProperties parquetProperties() {
    return ParquetProperties.builder()
        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
        .withPageSize(pageSize)
        .withPageRowCountLimit(pageRowLimit)
        .withDictionaryEncoding(true)
        .withDictionaryPageSize(dictionaryPageSize)
        .withMinRowCountForPageSizeCheck(rowGroupCheckMinRecordCount)
        .withMaxRowCountForPageSizeCheck(rowGroupCheckMaxRecordCount)
        .withMaxBloomFilterBytes(TableProperties.PARQUET_BLOOM_FILTER_MAX_BYTES_DEFAULT)
        .withValuesWriterFactory(new DictionaryWriters())
        .withAllocator(new SlabPool())
        .build();
  }

  /**
   * The Hadoop configuration codecs read (the compression level), as Iceberg's writer makes it:
   * the output file's own, with every table property and the level under the codec's key.
   */
  Configuration configuration(OutputFile file) {
    Configuration conf = file instanceof HadoopOutputFile hadoop ? new Configuration(hadoop.getConf()) : new Configuration();
    properties.forEach(conf::set);
    if (compressionLevel != null) {
      switch (codec) {
        case GZIP -> conf.set("zlib.compress.level", compressionLevel);
        case BROTLI -> conf.set("compression.brotli.quality", compressionLevel);
        case ZSTD -> {
          conf.set("io.compression.codec.zstd.level", compressionLevel);
          conf.set("parquet.compression.codec.zstd.level", compressionLevel);
        }
        default -> {
          // Iceberg ignores a level the codec does not take.
        }
      }
    }
    conf.set("parquet.avro.write-old-list-structure", "false");
    return conf;
  }
}
