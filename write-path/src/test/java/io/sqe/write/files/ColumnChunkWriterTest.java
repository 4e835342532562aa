package io.sqe.write.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ColumnChunkWriter} makes the bytes parquet-mr's column writer makes of the same values in
 * a column store of that column alone: the same pages (levels, values, dictionary and fallback to
 * plain), page statistics, size statistics, column and offset indexes and footer, for every type
 * SQE writes, required and optional, with no, some and only NULLs, few and many distinct values,
 * over several pages and row groups.
 */
class ColumnChunkWriterTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "b", Types.BooleanType.get()),
      Types.NestedField.optional(3, "i", Types.IntegerType.get()),
      Types.NestedField.optional(4, "l", Types.LongType.get()),
      Types.NestedField.optional(5, "f", Types.FloatType.get()),
      Types.NestedField.optional(6, "d", Types.DoubleType.get()),
      Types.NestedField.optional(7, "d9", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(8, "d18", Types.DecimalType.of(18, 2)),
      Types.NestedField.optional(9, "d38", Types.DecimalType.of(38, 10)),
      Types.NestedField.optional(10, "dt", Types.DateType.get()),
      Types.NestedField.optional(11, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(12, "s", Types.StringType.get()),
      Types.NestedField.required(13, "rs", Types.StringType.get()),
      Types.NestedField.optional(14, "bin", Types.BinaryType.get()),
      Types.NestedField.optional(15, "fx", Types.FixedType.ofLength(16)));

  @TempDir Path dir;

  @Test
  void writesTheBytesOfParquetMrsColumnWriter() throws IOException {
    long seed = Long.getLong("sqe.test.seed", System.nanoTime());
    Random random = new Random(seed);
    int fellBackLater = 0;
    for (int round = 0; round < 6; round++) {
      long valuesSeed = random.nextLong();
      int[] rowGroups = {1 + random.nextInt(40_000), 1 + random.nextInt(40_000), 1 + random.nextInt(3)};
      Path parquetMr = dir.resolve("parquet-mr-" + round + ".parquet");
      Path ours = dir.resolve("ours-" + round + ".parquet");
      write(parquetMr, false, rowGroups, valuesSeed);
      write(ours, true, rowGroups, valuesSeed);
      String what = "round " + round + " of seed " + seed;
      assertThat(Files.mismatch(ours, parquetMr)).as(what).isEqualTo(-1L);
      try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(ours))) {
        assertThat(reader.getRecordCount()).as(what).isEqualTo(rowGroups[0] + rowGroups[1] + rowGroups[2]);
        for (ColumnChunkMetaData column : reader.getFooter().getBlocks().get(0).getColumns()) {
          if (column.getEncodings().contains(Encoding.PLAIN) && column.getEncodings().contains(Encoding.PLAIN_DICTIONARY)) {
            fellBackLater++;
          }
        }
      }
    }
    assertThat(fellBackLater).as("columns whose dictionary fell back to plain after a page, seed %s", seed).isPositive();
  }

  /** A file of row groups of {@code rowGroups[i]} rows, through parquet-mr's column writers or {@link ColumnChunkWriter}. */
  private static void write(Path path, boolean ours, int[] rowGroups, long valuesSeed) throws IOException {
    MessageType fileSchema = ParquetSchemaUtil.convert(SCHEMA, "table");
    ParquetProperties props = ParquetProperties.builder()
        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
        .withPageSize(32 * 1024)
        .withDictionaryEncoding(true)
        .withDictionaryPageSize(16 * 1024)
        .withValuesWriterFactory(new DictionaryWriters())
        .withAllocator(new SlabPool())
        .build();
    ThreadCompressors compressor = new ThreadCompressors(new Configuration(), props.getPageSizeThreshold(), CompressionCodecName.ZSTD);
    ParquetFileWriter file = new ParquetFileWriter(
        new LocalOutputFile(path), fileSchema, ParquetFileWriter.Mode.CREATE, 128 << 20, 0, 64, Integer.MAX_VALUE, false);
    file.start();
    List<ColumnDescriptor> columns = fileSchema.getColumns();
    Random random = new Random(valuesSeed);
    List<Values> values = new ArrayList<>();
    for (Types.NestedField field : SCHEMA.columns()) {
      values.add(new Values(field, random));
    }
    for (int group = 0; group < rowGroups.length; group++) {
      ColumnChunkPageWriteStore pages = new ColumnChunkPageWriteStore(
          compressor, fileSchema, props.getAllocator(), 64, ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED, null, group);
      int rows = rowGroups[group];
      List<Runnable> ends = new ArrayList<>();
      for (int c = 0; c < columns.size(); c++) {
        Types.NestedField field = SCHEMA.columns().get(c);
        Values column = values.get(c);
        if (ours) {
          ColumnChunkWriter writer = new ColumnChunkWriter(field, columns.get(c), props);
          writer.startRowGroup(pages.getPageWriter(columns.get(c)));
          for (int row = 0; row < rows; ) {
            int end = Math.min(rows, row + writer.rowsBeforeCheck());
            int start = row;
            for (; row < end; row++) {
              column.write(writer);
            }
            writer.endRows(end - start);
          }
          ends.add(() -> {
            writer.endRowGroup();
            writer.closeRowGroup();
          });
        } else {
          ColumnWriteStore store = props.newColumnWriteStore(new MessageType("table", fileSchema.getType(c)), pages, pages);
          StoreSink sink = new StoreSink(field, columns.get(c));
          sink.setColumnStore(store);
          for (int row = 0; row < rows; row++) {
            column.write(sink);
            store.endRecord();
          }
          ends.add(() -> {
            store.flush();
            store.close();
          });
        }
      }
      file.startBlock(rows);
      ends.forEach(Runnable::run);
      pages.flushToFileWriter(file);
      file.endBlock();
    }
    file.end(Map.of());
    compressor.release();
  }

  /** A column's values: each column draws its NULL rate and number of distinct values once, then its values. */
  private static final class Values {
    private static final int GROWING = -1;
    private final Type type;
    private final Random random;
    private final double nulls;
    private final int distinct;
    private final long base;
    private long written;

    Values(Types.NestedField field, Random random) {
      this.type = field.type();
      this.random = random;
      double[] rates = {0, 0, 0.001, 0.3, 1};
      this.nulls = field.isOptional() ? rates[random.nextInt(rates.length)] : 0;
      // GROWING: a new value every fourth, so that the dictionary fills after some pages.
      int[] counts = {1, 3, 200, 5_000, 100_000, Integer.MAX_VALUE, GROWING, GROWING};
      this.distinct = counts[random.nextInt(counts.length)];
      this.base = random.nextLong();
    }

    void write(ColumnSink sink) {
      if (nulls > 0 && random.nextDouble() < nulls) {
        sink.writeNull();
        return;
      }
      long n = switch (distinct) {
        case Integer.MAX_VALUE -> random.nextLong();
        case GROWING -> base + random.nextInt(1 + (int) (written++ / 4));
        default -> base + random.nextInt(distinct);
      };
      switch (type.typeId()) {
        case BOOLEAN -> sink.write((n & 1) == 0);
        case INTEGER, DATE -> sink.write((int) n);
        case LONG, TIMESTAMP -> sink.write(n);
        case FLOAT -> sink.write(n % 17 == 0 ? Float.NaN : (float) n / 7);
        case DOUBLE -> sink.write(n % 17 == 0 ? Double.NaN : (double) n / 7);
        case DECIMAL -> {
          int precision = ((Types.DecimalType) type).precision();
          if (precision <= 9) {
            sink.write((int) (n % 999_999_999));
          } else if (precision <= 18) {
            sink.write(n % 999_999_999_999_999_999L);
          } else {
            byte[] unscaled = new BigDecimal(BigInteger.valueOf(n).multiply(BigInteger.valueOf(n % 1000)), 10).unscaledValue().toByteArray();
            byte[] bytes = sink.scratch(16);
            byte fill = unscaled[0] < 0 ? (byte) -1 : 0;
            for (int i = 0; i < 16; i++) {
              int from = unscaled.length - 16 + i;
              bytes[i] = from < 0 ? fill : unscaled[from];
            }
            sink.write(bytes, 16);
          }
        }
        case STRING, BINARY -> {
          String text = Long.toString(n, 36).repeat(1 + (int) Math.floorMod(n, 3));
          byte[] utf8 = (n % 5 == 0 ? "é" + text : text).getBytes(java.nio.charset.StandardCharsets.UTF_8);
          byte[] bytes = sink.scratch(utf8.length);
          System.arraycopy(utf8, 0, bytes, 0, utf8.length);
          sink.write(bytes, utf8.length);
        }
        case FIXED -> {
          byte[] bytes = sink.scratch(16);
          for (int i = 0; i < 16; i++) {
            bytes[i] = (byte) (n >>> ((i % 8) * 8));
          }
          sink.write(bytes, 16);
        }
        default -> throw new IllegalArgumentException(type.toString());
      }
    }
  }
}
