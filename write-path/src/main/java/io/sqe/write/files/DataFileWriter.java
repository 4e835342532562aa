package io.sqe.write.files;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes rows of a table as new data files through Iceberg's writers, in the table's file format
 * (Parquet unless {@code write.format.default} says otherwise), with column metrics.
 *
 * <ul>
 *   <li>Rows go to the partition the table's current spec gives them; each partition has its own
 *       rolling writer, and at most {@link Builder#maxOpenPartitions} are open at once (the least
 *       recently used one is closed when another is needed), which bounds memory at the price of
 *       more files when rows of many partitions arrive interleaved.
 *   <li>A file rolls over at {@code write.target-file-size-bytes} (checked every 1000 rows, so
 *       files overshoot a little) or after {@link Builder#maxRowsPerFile} rows.
 *   <li>When the table has a sort order, rows are buffered, sorted by it, and written as files of
 *       their own, so every file is sorted; at most {@link Builder#sortBufferRows} rows wait.
 * </ul>
 *
 * The writer keeps the records it is given until they are written: pass a new record each time.
 * Every file it starts is remembered ({@link #paths()}) so that a failed statement can delete
 * them; {@link #abort()} does so. Not thread-safe.
 */
public final class DataFileWriter implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(DataFileWriter.class);

  private final Table table;
  private final Set<String> paths = ConcurrentHashMap.newKeySet();
  private final PartitionedFiles<Record> files;
  private boolean finished;

  private DataFileWriter(Builder builder) {
    this.table = builder.table;
    Schema schema = table.schema();
    SortOrder order = table.sortOrder();
    FileFormat format = builder.format();
    FileWriterFactory<Record> writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(format)
            .dataSchema(schema)
            .dataSortOrder(order.isSorted() ? order : SortOrder.unsorted())
            .build();
    // Partition transforms and sort comparators take Iceberg's internal values, not java.time objects.
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    Comparator<Record> comparator = order.isSorted() ? comparator(schema, order) : null;
    this.files = new PartitionedFiles<>(
        table,
        builder,
        writers,
        comparator == null ? null : () -> new PartitionedFiles.ListBuffer<>(comparator),
        wrapper::wrap,
        builder.outputFiles(format),
        paths,
        null);
  }

  public static Builder builder(Table table) {
    return new Builder(table);
  }

  /** Orders records by the sort order's transforms of their internal values. */
  private static Comparator<Record> comparator(Schema schema, SortOrder order) {
    Comparator<StructLike> internal = SortOrderComparators.forSchema(schema, order);
    InternalRecordWrapper left = new InternalRecordWrapper(schema.asStruct());
    InternalRecordWrapper right = new InternalRecordWrapper(schema.asStruct());
    return (a, b) -> internal.compare(left.wrap(a), right.wrap(b));
  }

  /** Writes one row, which must have the table's schema; the writer keeps the record. */
  public void write(Record row) {
    files.write(row);
  }

  /** Rows written so far. */
  public long rowCount() {
    return files.rowCount();
  }

  /** Every data file this writer started, including those of rows not yet complete. */
  public Set<String> paths() {
    return Set.copyOf(paths);
  }

  /** Writes what is buffered, closes every file and returns them; the writer takes no more rows. */
  public List<DataFile> complete() {
    List<DataFile> done = files.complete();
    finished = true;
    return done;
  }

  /** Closes every open file and deletes every file this writer wrote; best effort, never throws. */
  public void abort() {
    finished = true;
    files.abandon();
    deleteFiles(table, paths);
  }

  /** Aborts unless {@link #complete()} was called. */
  @Override
  public void close() {
    if (!finished) {
      abort();
    }
  }

  /** Deletes files of a failed write; best effort, logging what cannot be deleted. */
  public static void deleteFiles(Table table, Iterable<String> paths) {
    for (String path : paths) {
      try {
        table.io().deleteFile(path);
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete data file {} of a failed write to {}", path, table.name(), e);
      }
    }
  }

  /** Options of a {@link DataFileWriter}. */
  public static final class Builder {
    private final Table table;
    private long targetFileSizeBytes;
    private long maxRowsPerFile = Long.MAX_VALUE;
    private int maxOpenPartitions = 100;
    private int sortBufferRows = 1_000_000;
    private long sortBufferBytes = 256L << 20;
    private String operationId = UUID.randomUUID().toString();
    private int partitionId;

    private Builder(Table table) {
      this.table = requireNonNull(table, "table is null");
      this.targetFileSizeBytes =
          PropertyUtil.propertyAsLong(
              table.properties(),
              TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
              TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    }

    /** Rolls to a new file once a file reaches this size; defaults to the table's setting. */
    public Builder targetFileSizeBytes(long bytes) {
      Preconditions.checkArgument(bytes > 0, "Invalid target file size: %s", bytes);
      this.targetFileSizeBytes = bytes;
      return this;
    }

    /** Rolls to a new file after this many rows; unlimited by default. */
    public Builder maxRowsPerFile(long rowCount) {
      Preconditions.checkArgument(rowCount > 0, "Invalid max rows per file: %s", rowCount);
      this.maxRowsPerFile = rowCount;
      return this;
    }

    /** How many partitions may have an open file at once; 100 by default. */
    public Builder maxOpenPartitions(int partitions) {
      Preconditions.checkArgument(partitions > 0, "Invalid max open partitions: %s", partitions);
      this.maxOpenPartitions = partitions;
      return this;
    }

    /** For sorted tables, how many rows wait to be sorted at most; 1,000,000 by default. */
    public Builder sortBufferRows(int rowCount) {
      Preconditions.checkArgument(rowCount > 0, "Invalid sort buffer size: %s", rowCount);
      this.sortBufferRows = rowCount;
      return this;
    }

    /**
     * For sorted tables written from record batches, how many bytes of batches may wait to be
     * sorted at most in one buffer; 256 MiB by default. A full buffer is written while the next
     * fills, so the writer may hold twice this.
     */
    public Builder sortBufferBytes(long bytes) {
      Preconditions.checkArgument(bytes > 0, "Invalid sort buffer size: %s bytes", bytes);
      this.sortBufferBytes = bytes;
      return this;
    }

    /** Names the files of this write (with {@link #partitionId}); a random id by default. */
    public Builder operationId(String id) {
      this.operationId = requireNonNull(id, "id is null");
      return this;
    }

    /**
     * Tells apart the files of writers that share an operation id (the attempts of a statement
     * run again after a lost commit race); 0 by default.
     */
    public Builder partitionId(int id) {
      Preconditions.checkArgument(id >= 0, "Invalid partition id: %s", id);
      this.partitionId = id;
      return this;
    }

    public DataFileWriter build() {
      return new DataFileWriter(this);
    }

    /** A writer of record batches laid out as {@code layout} says ({@link BatchFileWriter#layout}). */
    public BatchFileWriter buildForBatches(BatchFileWriter.Layout layout) {
      return new BatchFileWriter(this, layout);
    }

    long sortBufferBytes() {
      return sortBufferBytes;
    }

    long targetFileSizeBytes() {
      return targetFileSizeBytes;
    }

    long maxRowsPerFile() {
      return maxRowsPerFile;
    }

    int maxOpenPartitions() {
      return maxOpenPartitions;
    }

    int sortBufferRows() {
      return sortBufferRows;
    }

    Table table() {
      return table;
    }

    /** The table's file format: Parquet unless {@code write.format.default} says otherwise. */
    FileFormat format() {
      return FileFormat.fromString(
          table.properties().getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT)
              .toUpperCase(Locale.ROOT));
    }

    OutputFileFactory outputFiles(FileFormat format) {
      return OutputFileFactory.builderFor(table, partitionId, 0).format(format).operationId(operationId).build();
    }
  }
}
