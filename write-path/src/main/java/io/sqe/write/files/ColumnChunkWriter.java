package io.sqe.write.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Collections;
import org.apache.iceberg.types.Types;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageWriter;
import org.apache.parquet.column.statistics.BinaryStatistics;
import org.apache.parquet.column.statistics.IntStatistics;
import org.apache.parquet.column.statistics.LongStatistics;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.statistics.geospatial.GeospatialStatistics;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.io.ParquetEncodingException;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveComparator;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * One top-level column of the Parquet file being written: its values for the current row group,
 * cut into pages and handed to parquet-mr's page writer (which compresses them and keeps the
 * column's statistics, column index and offset index), without parquet-mr's column writer. That
 * writer takes every value through a repetition and a definition level writer, a statistics object,
 * size statistics, a geospatial builder and a bloom filter. Here a value goes to the same values
 * writer ({@link DictionaryWriters}) and, for integers and unsigned-ordered bytes, into the page's
 * bounds kept as primitives; a page's levels, statistics and size statistics are made once, when
 * it ends (the levels value by value only once the page has a NULL). Pages end at the rows where
 * parquet-mr's column store, holding this column alone, checks the page's size, by the same rules
 * ({@link #rowsBeforeCheck}), so the column chunk is the bytes parquet-mr's column writer makes of
 * the same values ({@code ColumnChunkWriterTest}).
 */
final class ColumnChunkWriter extends ColumnSink {
  private static final float THRESHOLD_TOLERANCE_RATIO = 0.1f;
  private static final GeospatialStatistics NO_GEOSPATIAL = GeospatialStatistics.noopBuilder().build();

  /** How a page's bounds are kept: as signed ints or longs, as unsigned bytes, or in parquet-mr's statistics object. */
  private enum Bounds {
    INT,
    LONG,
    BYTES,
    STATISTICS
  }

  private final ColumnDescriptor descriptor;
  private final PrimitiveType type;
  private final ParquetProperties props;
  private final boolean optional;
  private final Bounds bounds;
  /** Whether pages count the bytes of their values (BINARY columns' size statistics). */
  private final boolean countsBytes;
  private final long thresholdTolerance;

  private PageWriter pages;
  private ValuesWriter values;
  /** {@link #values}, when it takes BINARY values in arrays; else null. */
  private DictionaryOrPlain arrays;
  /** The definition levels of a page with a NULL, from the page's first value. */
  private ValuesWriter levels;
  /** Rows of the row group, and of its pages written. */
  private long rowCount;
  private long rowsWrittenSoFar;
  private long nextSizeCheck;

  private int pageValues;
  private int pageNulls;
  private boolean hasBounds;
  private long min;
  private long max;
  private byte[] minBytes = new byte[16];
  private int minLength;
  private byte[] maxBytes = new byte[16];
  private int maxLength;
  private Statistics<?> statistics;
  private long pageBytes;

  ColumnChunkWriter(Types.NestedField field, ColumnDescriptor descriptor, ParquetProperties props) {
    super(field);
    if (descriptor.getMaxRepetitionLevel() != 0 || descriptor.getMaxDefinitionLevel() > 1) {
      throw new IllegalArgumentException("Not a top-level column of primitives: " + descriptor);
    }
    this.descriptor = descriptor;
    this.type = descriptor.getPrimitiveType();
    this.props = props;
    this.optional = descriptor.getMaxDefinitionLevel() == 1;
    this.bounds = bounds(type);
    this.countsBytes = type.getPrimitiveTypeName() == PrimitiveTypeName.BINARY;
    this.thresholdTolerance = (long) (props.getPageSizeThreshold() * THRESHOLD_TOLERANCE_RATIO);
    this.statistics = bounds == Bounds.STATISTICS ? Statistics.createStats(type) : null;
  }

  private static Bounds bounds(PrimitiveType type) {
    PrimitiveComparator<?> comparator = type.comparator();
    return switch (type.getPrimitiveTypeName()) {
      case INT32 -> comparator.compare(-1, 1) < 0 ? Bounds.INT : Bounds.STATISTICS;
      case INT64 -> comparator.compare(-1L, 1L) < 0 ? Bounds.LONG : Bounds.STATISTICS;
      case BINARY, FIXED_LEN_BYTE_ARRAY ->
          comparator == PrimitiveComparator.UNSIGNED_LEXICOGRAPHICAL_BINARY_COMPARATOR ? Bounds.BYTES : Bounds.STATISTICS;
      default -> Bounds.STATISTICS;
    };
  }

  ColumnDescriptor descriptor() {
    return descriptor;
  }

  /** Starts a row group, whose pages go to {@code pages}: a new values writer, with a dictionary of its own. */
  void startRowGroup(PageWriter pages) {
    this.pages = pages;
    this.values = props.newValuesWriter(descriptor);
    this.arrays = values instanceof DictionaryOrPlain writer && writer.takesArrays() ? writer : null;
    this.levels = optional ? props.newDefinitionLevelWriter(descriptor) : null;
    this.rowCount = 0;
    this.rowsWrittenSoFar = 0;
    this.nextSizeCheck = Math.min(props.getMinRowCountForPageSizeCheck(), props.getPageRowCountLimit());
  }

  /** How many rows to write before the next {@link #endRows}, which checks the page's size after them. */
  int rowsBeforeCheck() {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, nextSizeCheck - rowCount));
  }

  /** Ends the last {@code count} rows (a value each), writing the page when the check finds it full. */
  void endRows(int count) {
    rowCount += count;
    if (rowCount >= nextSizeCheck) {
      sizeCheck();
    }
  }

  /** parquet-mr's column store's check, for a store of this column alone. */
  private void sizeCheck() {
    long usedMem = pageBufferedSize();
    long rows = rowCount - rowsWrittenSoFar;
    long remainingMem = props.getPageSizeThreshold() - usedMem;
    int pageRowCountLimit = props.getPageRowCountLimit();
    long nextRowCountCheck = rowCount + pageRowCountLimit;
    if (remainingMem <= thresholdTolerance || rows >= pageRowCountLimit || pageValues >= props.getPageValueCountThreshold()) {
      writePage();
      remainingMem = props.getPageSizeThreshold();
    } else {
      nextRowCountCheck = Math.min(nextRowCountCheck, rowsWrittenSoFar + pageRowCountLimit);
    }
    long rowsToFillPage = usedMem == 0 ? props.getMaxRowCountForPageSizeCheck() : rows * remainingMem / usedMem;
    if (props.estimateNextSizeCheck()) {
      nextSizeCheck = rowCount
          + Math.min(Math.max(rowsToFillPage / 2, props.getMinRowCountForPageSizeCheck()), props.getMaxRowCountForPageSizeCheck());
    } else {
      nextSizeCheck = rowCount + props.getMinRowCountForPageSizeCheck();
    }
    if (nextRowCountCheck < nextSizeCheck) {
      nextSizeCheck = nextRowCountCheck;
    }
  }

  /** What the page holds so far, as parquet-mr's column writer counts it. */
  private long pageBufferedSize() {
    return (pageNulls > 0 ? levels.getBufferedSize() : 0) + values.getBufferedSize();
  }

  /** What the row group holds so far: the page, and the pages written (compressed) but not yet in the file. */
  long bufferedSize() {
    return pageBufferedSize() + pages.getMemSize();
  }

  /** Ends the row group: its last page, then its dictionary page. */
  void endRowGroup() {
    if (rowCount > rowsWrittenSoFar) {
      writePage();
    }
    DictionaryPage dictionary = values.toDictPageAndClose();
    if (dictionary != null) {
      try {
        pages.writeDictionaryPage(dictionary);
      } catch (IOException e) {
        throw new ParquetEncodingException("could not write dictionary page for " + descriptor, e);
      }
      values.resetDictionary();
    }
  }

  /** Lets go of the row group's buffers. */
  void closeRowGroup() {
    values.close();
    if (levels != null) {
      levels.close();
    }
  }

  @Override
  void writeNull() {
    if (!optional) {
      throw new IllegalStateException("A NULL for required column " + descriptor);
    }
    countNull();
    if (pageNulls == 0) {
      writeLevels(pageValues);
    }
    levels.writeInteger(0);
    pageNulls++;
    pageValues++;
  }

  /** A value: its definition level once the page has a NULL, otherwise only a count. */
  private void defined() {
    if (pageNulls > 0) {
      levels.writeInteger(1);
    }
    pageValues++;
  }

  private void writeLevels(int defined) {
    for (int i = 0; i < defined; i++) {
      levels.writeInteger(1);
    }
  }

  @Override
  void write(boolean value) {
    values.writeBoolean(value);
    statistics.updateStats(value);
    defined();
  }

  @Override
  void write(int value) {
    values.writeInteger(value);
    if (bounds == Bounds.INT) {
      bound(value);
    } else {
      statistics.updateStats(value);
    }
    defined();
  }

  @Override
  void write(long value) {
    values.writeLong(value);
    if (bounds == Bounds.LONG) {
      bound(value);
    } else {
      statistics.updateStats(value);
    }
    defined();
  }

  private void bound(long value) {
    if (!hasBounds) {
      min = value;
      max = value;
      hasBounds = true;
    } else if (value < min) {
      min = value;
    } else if (value > max) {
      max = value;
    }
  }

  @Override
  void write(float value) {
    values.writeFloat(value);
    statistics.updateStats(value);
    countFloat(value);
    defined();
  }

  @Override
  void write(double value) {
    values.writeDouble(value);
    statistics.updateStats(value);
    countDouble(value);
    defined();
  }

  @Override
  void write(byte[] bytes, int length) {
    if (arrays != null) {
      arrays.writeBytes(bytes, 0, length);
    } else {
      values.writeBytes(Binary.fromReusedByteArray(bytes, 0, length));
    }
    if (countsBytes) {
      pageBytes += length;
    }
    if (bounds == Bounds.BYTES) {
      if (!hasBounds) {
        minBytes = copy(bytes, length, minBytes);
        minLength = length;
        maxBytes = copy(bytes, length, maxBytes);
        maxLength = length;
        hasBounds = true;
      } else if (Arrays.compareUnsigned(bytes, 0, length, minBytes, 0, minLength) < 0) {
        minBytes = copy(bytes, length, minBytes);
        minLength = length;
      } else if (Arrays.compareUnsigned(bytes, 0, length, maxBytes, 0, maxLength) > 0) {
        maxBytes = copy(bytes, length, maxBytes);
        maxLength = length;
      }
    } else {
      statistics.updateStats(Binary.fromReusedByteArray(bytes, 0, length));
    }
    defined();
  }

  private static byte[] copy(byte[] bytes, int length, byte[] into) {
    byte[] target = into.length >= length ? into : new byte[Math.max(length, into.length * 2)];
    System.arraycopy(bytes, 0, target, 0, length);
    return target;
  }

  /** Writes the page, in the order parquet-mr's v1 column writer makes it: levels, then values, then their encoding. */
  private void writePage() {
    if (pageValues == 0) {
      throw new ParquetEncodingException("writing empty page");
    }
    BytesInput definitionLevels = definitionLevels();
    BytesInput bytes = BytesInput.concat(definitionLevels, values.getBytes());
    try {
      pages.writePage(
          bytes,
          pageValues,
          pageValues,
          pageStatistics(),
          new SizeStatistics(type, pageBytes, Collections.emptyList(), Collections.emptyList()),
          NO_GEOSPATIAL,
          Encoding.BIT_PACKED,
          optional ? Encoding.RLE : Encoding.BIT_PACKED,
          values.getEncoding());
    } catch (IOException e) {
      throw new ParquetEncodingException("could not write page for " + descriptor, e);
    }
    rowsWrittenSoFar += pageValues;
    if (levels != null) {
      levels.reset();
    }
    values.reset();
    pageValues = 0;
    pageNulls = 0;
    hasBounds = false;
    pageBytes = 0;
    if (bounds == Bounds.STATISTICS) {
      statistics = Statistics.createStats(type);
    }
  }

  /**
   * The page's definition levels as parquet-mr's RLE writer encodes them: with no NULL among 8 or
   * more values, one run of ones (its length, then the run's header and value); else the levels
   * written.
   */
  private BytesInput definitionLevels() {
    if (!optional) {
      return BytesInput.empty();
    }
    if (pageNulls == 0) {
      if (pageValues >= 8) {
        ByteBuffer run = ByteBuffer.allocate(4 + 5 + 1).order(ByteOrder.LITTLE_ENDIAN);
        run.position(4);
        try {
          BytesUtils.writeUnsignedVarInt(pageValues << 1, run);
        } catch (IOException e) {
          throw new ParquetEncodingException(e);
        }
        run.put((byte) 1);
        run.putInt(0, run.position() - 4);
        return BytesInput.from(run.array(), 0, run.position());
      }
      writeLevels(pageValues);
    }
    return levels.getBytes();
  }

  private Statistics<?> pageStatistics() {
    Statistics<?> page;
    switch (bounds) {
      case INT -> {
        IntStatistics ints = (IntStatistics) Statistics.createStats(type);
        if (hasBounds) {
          ints.setMinMax((int) min, (int) max);
        }
        page = ints;
      }
      case LONG -> {
        LongStatistics longs = (LongStatistics) Statistics.createStats(type);
        if (hasBounds) {
          longs.setMinMax(min, max);
        }
        page = longs;
      }
      case BYTES -> {
        BinaryStatistics binaries = (BinaryStatistics) Statistics.createStats(type);
        if (hasBounds) {
          binaries.setMinMax(
              Binary.fromConstantByteArray(Arrays.copyOf(minBytes, minLength)),
              Binary.fromConstantByteArray(Arrays.copyOf(maxBytes, maxLength)));
        }
        page = binaries;
      }
      default -> page = statistics;
    }
    page.setNumNulls(pageNulls);
    return page;
  }
}
