package io.sqe.write.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;

/**
 * {@link DictionaryWriters} (and {@link PlainWriter}) write the same pages and dictionary pages as parquet-mr's own values
 * writers, byte for byte: for few distinct values, for values enough to make the dictionary fall
 * back to plain within a page or after some pages, in each of several row groups.
 */
class DictionaryWritersTest {
  private static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.INT64).named("l")
      .optional(PrimitiveTypeName.INT32).named("i")
      .optional(PrimitiveTypeName.BINARY).named("b")
      .optional(PrimitiveTypeName.DOUBLE).named("d")
      .optional(PrimitiveTypeName.FLOAT).named("f")
      .named("t");

  @Test
  void writeTheSameBytesAsParquetMr() throws IOException {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    // Runs of one value up to 40 long, as sorted columns have them, and none: RLE runs, bit-packed
    // runs, and the changes between them, at widths from 0 to 21 bits.
    for (int longestRun : new int[] {1, 40})
    for (int distinct : new int[] {1, 2, 7, 300, 5_000, 12_000, 30_000, 70_000, 2_000_000}) {
      for (ColumnDescriptor column : SCHEMA.getColumns()) {
        String what = column + " with up to " + distinct + " distinct values in runs up to " + longestRun + ", seed " + seed;
        long base = random.nextLong();
        BiConsumer<ValuesWriter, Integer> write = switch (column.getPrimitiveType().getPrimitiveTypeName()) {
          case INT64 -> (w, n) -> w.writeLong(base + n);
          case INT32 -> (w, n) -> w.writeInteger((int) base + n);
          case DOUBLE -> (w, n) -> w.writeDouble(base + n / 7.0);
          case FLOAT -> (w, n) -> w.writeFloat((float) (n / 7.0));
          default -> (w, n) -> w.writeBytes(org.apache.parquet.io.api.Binary.fromString("v" + n));
        };
        long valuesSeed = random.nextLong();
        assertThat(pages(props(false), column, write, distinct, longestRun, new Random(valuesSeed)))
            .as(what)
            .isEqualTo(pages(props(true), column, write, distinct, longestRun, new Random(valuesSeed)));
      }
    }
  }

  private static ParquetProperties props(boolean ours) {
    ParquetProperties.Builder builder = ParquetProperties.builder()
        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
        .withDictionaryEncoding(true)
        .withDictionaryPageSize(64 * 1024);
    return ours ? builder.withValuesWriterFactory(new DictionaryWriters()).build() : builder.build();
  }

  /** Three row groups (a writer each, as a column store makes) of pages of 10,000 values, then the group's dictionary page. */
  private static List<String> pages(
      ParquetProperties props,
      ColumnDescriptor column,
      BiConsumer<ValuesWriter, Integer> write,
      int distinct,
      int longestRun,
      Random random)
      throws IOException {
    List<String> pages = new ArrayList<>();
    int value = 0;
    int left = 0;
    for (int group = 0; group < 3; group++) {
      ValuesWriter writer = props.newValuesWriter(column);
      for (int page = 0; page < 8; page++) {
        for (int i = 0; i < 10_000; i++) {
          if (left == 0) {
            value = random.nextInt(distinct);
            left = 1 + random.nextInt(longestRun);
          }
          left--;
          write.accept(writer, value);
        }
        pages.add(writer.getEncoding() + " " + java.util.Arrays.toString(writer.getBytes().toByteArray()));
        writer.reset();
      }
      DictionaryPage dictionary = writer.toDictPageAndClose();
      pages.add(dictionary == null
          ? "no dictionary"
          : dictionary.getEncoding() + " " + dictionary.getDictionarySize() + " "
              + java.util.Arrays.toString(dictionary.getBytes().toByteArray()));
      writer.close();
    }
    return pages;
  }
}
