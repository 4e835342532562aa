package io.sqe.write.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.schema.MessageType;

/**
 * A Parquet data file of batch rows, written as Iceberg's Parquet writer writes one (the same
 * schema, properties, key-value metadata and metrics, the same values in the same encodings; see
 * {@link ParquetSettings} and {@link DictionaryWriters}) but by columns: rows are gathered in
 * chunks, and a chunk's values are written column by column, the columns shared out between
 * threads ({@link ColumnEncoding}); each column's {@link ColumnChunkWriter} cuts and compresses
 * its pages on the thread that wrote its values (a page ends where a column store of that column
 * alone would find it full, where Iceberg's writer checks all columns at once, so page boundaries
 * and the buffered sizes can differ a little). A chunk ends where Iceberg's writer would check the
 * row group's size, so row groups are checked at the same row counts and against the same target;
 * the file's length counts the rows of the chunk at the file's average row size. A row's batch
 * stays open until its chunk is written, at the latest when the writer is past the batch.
 */
final class ColumnarParquetAppender implements FileAppender<BatchRow> {
  private static final int MAX_CHUNK_ROWS = 8192;
  private static final Metrics EMPTY_METRICS = new Metrics(0L, null, null, null, null);
  private static final String COLUMN_INDEX_TRUNCATE_LENGTH = "parquet.columnindex.truncate.length";
  private static final int DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH = 64;

  private final OutputFile output;
  private final Schema schema;
  private final MessageType fileSchema;
  private final long targetRowGroupSize;
  private final ParquetProperties props;
  private final BytesInputCompressor compressor;
  private final MetricsConfig metricsConfig;
  private final Map<String, String> metadata;
  private final int columnIndexTruncateLength;
  private final ColumnChunkWriter[] sinks;
  private final ColumnEncoding encoding;
  private final BatchRows[] chunkBatches = new BatchRows[MAX_CHUNK_ROWS];
  private final int[] chunkRows = new int[MAX_CHUNK_ROWS];
  private int chunked;
  private final Runnable writePending = this::writeChunk;
  private ColumnChunkPageWriteStore pageStore;
  private long recordCount;
  /** Rows of the row groups already flushed. */
  private long rowsWritten;
  private long nextCheckRecordCount = 10;
  private int rowGroupOrdinal;
  private ParquetFileWriter writer;
  private boolean closed;

  ColumnarParquetAppender(OutputFile output, Schema schema, ParquetSettings settings, MetricsConfig metricsConfig) {
    this.output = output;
    this.schema = schema;
    this.fileSchema = ParquetSchemaUtil.convert(schema, "table");
    this.targetRowGroupSize = settings.rowGroupSize();
    this.props = settings.parquetProperties();
    Configuration conf = settings.configuration(output);
    this.compressor = new ThreadCompressors(conf, props.getPageSizeThreshold(), settings.codec());
    this.metricsConfig = metricsConfig;
    this.metadata = Map.of("iceberg.schema", SchemaParser.toJson(schema));
    this.columnIndexTruncateLength = conf.getInt(COLUMN_INDEX_TRUNCATE_LENGTH, DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH);
    List<ColumnDescriptor> columns = fileSchema.getColumns();
    Preconditions.checkArgument(
        columns.size() == schema.columns().size(), "Invalid schema for a batch writer: nested columns in %s", schema);
    this.sinks = new ColumnChunkWriter[columns.size()];
    for (int i = 0; i < sinks.length; i++) {
      sinks[i] = new ColumnChunkWriter(schema.columns().get(i), columns.get(i), props);
    }
    this.encoding = new ColumnEncoding(sinks);
    startRowGroup();
  }

  @Override
  public void add(BatchRow row) {
    row.batch().hold(writePending);
    chunkBatches[chunked] = row.batch();
    chunkRows[chunked] = row.index();
    chunked++;
    if (chunked == MAX_CHUNK_ROWS || recordCount + chunked >= nextCheckRecordCount) {
      writeChunk();
    }
  }

  /** Writes the chunk's values, ends its rows in the column store and checks the row group's size. */
  private void writeChunk() {
    if (chunked == 0) {
      return;
    }
    try {
      encoding.write(chunkBatches, chunkRows, chunked);
      recordCount += chunked;
    } finally {
      for (int i = 0; i < chunked; i++) {
        chunkBatches[i].release();
        chunkBatches[i] = null;
      }
      chunked = 0;
    }
    checkSize();
  }

  /** Iceberg's writer's check, at the same row counts. */
  private void checkSize() {
    if (recordCount >= nextCheckRecordCount) {
      long bufferedSize = bufferedSize();
      double avgRecordSize = ((double) bufferedSize) / recordCount;
      if (bufferedSize > (targetRowGroupSize - 2 * avgRecordSize)) {
        flushRowGroup(false);
      } else {
        long remainingSpace = targetRowGroupSize - bufferedSize;
        long remainingRecords = (long) (remainingSpace / avgRecordSize);
        this.nextCheckRecordCount = recordCount
            + Math.min(Math.max(remainingRecords / 2, props.getMinRowCountForPageSizeCheck()), props.getMaxRowCountForPageSizeCheck());
      }
    }
  }

  private void flushRowGroup(boolean finished) {
    try {
      if (recordCount > 0) {
        ensureWriterInitialized();
        writer.startBlock(recordCount);
        for (ColumnChunkWriter sink : sinks) {
          sink.endRowGroup();
        }
        pageStore.flushToFileWriter(writer);
        writer.endBlock();
        rowsWritten += recordCount;
        if (!finished) {
          closeColumns();
          startRowGroup();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to flush row group", e);
    }
  }

  private void startRowGroup() {
    this.nextCheckRecordCount =
        Math.min(Math.max(recordCount / 2, props.getMinRowCountForPageSizeCheck()), props.getMaxRowCountForPageSizeCheck());
    this.recordCount = 0;
    this.pageStore = new ColumnChunkPageWriteStore(
        compressor,
        fileSchema,
        props.getAllocator(),
        columnIndexTruncateLength,
        ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED,
        null,
        rowGroupOrdinal);
    this.rowGroupOrdinal++;
    for (ColumnChunkWriter sink : sinks) {
      sink.startRowGroup(pageStore.getPageWriter(sink.descriptor()));
    }
  }

  /** What the columns hold of the row group: the current pages' values and the pages written. */
  private long bufferedSize() {
    long size = 0;
    for (ColumnChunkWriter sink : sinks) {
      size += sink.bufferedSize();
    }
    return size;
  }

  private void closeColumns() {
    for (ColumnChunkWriter sink : sinks) {
      sink.closeRowGroup();
    }
  }

  private void ensureWriterInitialized() throws IOException {
    if (writer == null) {
      writer = new ParquetFileWriter(
          new ParquetOutput(output),
          fileSchema,
          ParquetFileWriter.Mode.OVERWRITE,
          targetRowGroupSize,
          0,
          columnIndexTruncateLength,
          ParquetProperties.DEFAULT_STATISTICS_TRUNCATE_LENGTH,
          ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED);
      writer.start();
    }
  }

  @Override
  public Metrics metrics() {
    Preconditions.checkState(closed, "Cannot return metrics for unclosed writer");
    if (writer == null) {
      return EMPTY_METRICS;
    }
    return ParquetUtil.footerMetrics(writer.getFooter(), fieldMetrics(), metricsConfig);
  }

  private Stream<FieldMetrics<?>> fieldMetrics() {
    return Arrays.stream(sinks).map(ColumnSink::metrics).filter(m -> m != null);
  }

  /**
   * The file's length so far: what is written, what the column store holds, and for the rows of
   * the chunk not written yet, the bytes the file's rows took on average so far.
   */
  @Override
  public long length() {
    try {
      long length = writer != null ? writer.getPos() : 0;
      if (!closed && recordCount > 0) {
        length += bufferedSize();
      }
      if (chunked > 0) {
        long rows = rowsWritten + recordCount;
        length += rows == 0 ? 0 : length * chunked / rows;
      }
      return length;
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to get file length", e);
    }
  }

  @Override
  public List<Long> splitOffsets() {
    return writer != null ? ParquetUtil.getSplitOffsets(writer.getFooter()) : null;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    try {
      writeChunk();
    } finally {
      closed = true;
    }
    flushRowGroup(true);
    closeColumns();
    if (writer != null) {
      writer.end(metadata);
    }
    compressor.release();
  }

  /** parquet-mr's view of an Iceberg output file. */
  private record ParquetOutput(OutputFile file) implements org.apache.parquet.io.OutputFile {
    @Override
    public PositionOutputStream create(long blockSizeHint) {
      return stream(file.create());
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
      return stream(file.createOrOverwrite());
    }

    @Override
    public boolean supportsBlockSize() {
      return false;
    }

    @Override
    public long defaultBlockSize() {
      return 0;
    }

    @Override
    public String getPath() {
      return file.location();
    }

    private static PositionOutputStream stream(org.apache.iceberg.io.PositionOutputStream stream) {
      return new PositionOutputStream() {
        @Override
        public long getPos() throws IOException {
          return stream.getPos();
        }

        @Override
        public void write(int b) throws IOException {
          stream.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
          stream.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
          stream.flush();
        }

        @Override
        public void close() throws IOException {
          stream.close();
        }
      };
    }
  }
}
