package io.sqe.write.files;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.StructLikeWrapper;
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
  private final PartitionSpec spec;
  private final long targetFileSizeBytes;
  private final long maxRowsPerFile;
  private final int maxOpenPartitions;
  private final int sortBufferRows;
  private final Comparator<Record> sortOrder;
  private final FileWriterFactory<Record> writers;
  private final OutputFileFactory outputFiles;
  private final Set<String> paths = ConcurrentHashMap.newKeySet();
  private final PartitionKey key;
  private final InternalRecordWrapper wrapper;
  private final StructLikeWrapper lookup;
  private final LinkedHashMap<StructLikeWrapper, PartitionFiles> open = new LinkedHashMap<>(16, 0.75f, true);
  private final List<DataFile> done = new ArrayList<>();
  private PartitionFiles unpartitioned;
  private int buffered;
  private long rows;
  private boolean finished;

  private DataFileWriter(Builder builder) {
    this.table = builder.table;
    this.spec = table.spec();
    this.targetFileSizeBytes = builder.targetFileSizeBytes;
    this.maxRowsPerFile = builder.maxRowsPerFile;
    this.maxOpenPartitions = builder.maxOpenPartitions;
    this.sortBufferRows = builder.sortBufferRows;
    Schema schema = table.schema();
    SortOrder order = table.sortOrder();
    this.sortOrder = order.isSorted() ? comparator(schema, order) : null;
    FileFormat format =
        FileFormat.fromString(
            table.properties().getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT)
                .toUpperCase(Locale.ROOT));
    this.writers =
        new TrackingWriterFactory(
            new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(format)
                .dataSchema(schema)
                .dataSortOrder(order.isSorted() ? order : SortOrder.unsorted())
                .build(),
            paths);
    this.outputFiles =
        OutputFileFactory.builderFor(table, builder.partitionId, 0).format(format).operationId(builder.operationId).build();
    if (spec.isUnpartitioned()) {
      this.key = null;
      this.wrapper = null;
      this.lookup = null;
    } else {
      this.key = new PartitionKey(spec, schema);
      // Partition transforms take Iceberg's internal values, not java.time objects.
      this.wrapper = new InternalRecordWrapper(schema.asStruct());
      this.lookup = StructLikeWrapper.forType(spec.partitionType());
    }
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
    Preconditions.checkState(!finished, "Writer of %s is finished", table.name());
    partitionFiles(row).write(row);
    rows++;
  }

  /** Rows written so far. */
  public long rowCount() {
    return rows;
  }

  /** Every data file this writer started, including those of rows not yet complete. */
  public Set<String> paths() {
    return Set.copyOf(paths);
  }

  /** Writes what is buffered, closes every file and returns them; the writer takes no more rows. */
  public List<DataFile> complete() {
    Preconditions.checkState(!finished, "Writer of %s is finished", table.name());
    if (unpartitioned != null) {
      unpartitioned.finish();
    }
    for (PartitionFiles files : open.values()) {
      files.finish();
    }
    open.clear();
    finished = true;
    return List.copyOf(done);
  }

  /** Closes every open file and deletes every file this writer wrote; best effort, never throws. */
  public void abort() {
    finished = true;
    List<PartitionFiles> all = new ArrayList<>(open.values());
    if (unpartitioned != null) {
      all.add(unpartitioned);
    }
    for (PartitionFiles files : all) {
      files.abandon();
    }
    open.clear();
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

  private PartitionFiles partitionFiles(Record row) {
    if (key == null) {
      if (unpartitioned == null) {
        unpartitioned = new PartitionFiles(null);
      }
      return unpartitioned;
    }
    key.partition(wrapper.wrap(row));
    PartitionFiles files = open.get(lookup.set(key));
    if (files == null) {
      if (open.size() >= maxOpenPartitions) {
        Iterator<PartitionFiles> eldest = open.values().iterator();
        PartitionFiles closing = eldest.next();
        eldest.remove();
        closing.finish();
      }
      PartitionKey partition = key.copy();
      files = new PartitionFiles(partition);
      open.put(StructLikeWrapper.forType(spec.partitionType()).set(partition), files);
    }
    return files;
  }

  /** Sorts and writes every buffered row, when together they reach the buffer's size. */
  private void flushAllIfFull() {
    if (buffered < sortBufferRows) {
      return;
    }
    if (unpartitioned != null) {
      unpartitioned.finish();
    }
    for (PartitionFiles files : open.values()) {
      files.finish();
    }
  }

  /** The files of one partition: a rolling writer, and for sorted tables the rows waiting to be sorted. */
  private final class PartitionFiles {
    private final StructLike partition;
    private final List<Record> pending = new ArrayList<>();
    private RollingDataWriter<Record> writer;

    PartitionFiles(StructLike partition) {
      this.partition = partition;
    }

    void write(Record row) {
      if (sortOrder == null) {
        append(row);
        return;
      }
      pending.add(row);
      buffered++;
      flushAllIfFull();
    }

    private void append(Record row) {
      if (writer == null) {
        writer = new RollingDataWriter<>(writers, outputFiles, table.io(), targetFileSizeBytes, spec, partition);
      }
      writer.write(row);
      if (writer.currentFileRows() >= maxRowsPerFile) {
        closeWriter();
      }
    }

    /** Writes the pending rows, sorted, and closes the files, so each one is sorted as a whole. */
    void finish() {
      if (!pending.isEmpty()) {
        pending.sort(sortOrder);
        for (Record row : pending) {
          append(row);
        }
        buffered -= pending.size();
        pending.clear();
      }
      closeWriter();
    }

    private void closeWriter() {
      if (writer != null) {
        RollingDataWriter<Record> closing = writer;
        writer = null;
        try {
          closing.close();
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot close data file " + closing.currentFilePath(), e);
        }
        done.addAll(closing.result().dataFiles());
      }
    }

    /** Closes the open file so that it can be deleted; its content no longer matters. */
    void abandon() {
      buffered -= pending.size();
      pending.clear();
      if (writer != null) {
        try {
          writer.close();
        } catch (IOException | RuntimeException e) {
          LOG.debug("Ignoring failure to close an abandoned data file of {}", table.name(), e);
        }
        writer = null;
      }
    }
  }

  /** Remembers every data file a writer opens, so a failed write can delete all of them. */
  private static final class TrackingWriterFactory implements FileWriterFactory<Record> {
    private final FileWriterFactory<Record> delegate;
    private final Set<String> paths;

    TrackingWriterFactory(FileWriterFactory<Record> delegate, Set<String> paths) {
      this.delegate = delegate;
      this.paths = paths;
    }

    @Override
    public DataWriter<Record> newDataWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      paths.add(file.encryptingOutputFile().location());
      return delegate.newDataWriter(file, spec, partition);
    }

    @Override
    public EqualityDeleteWriter<Record> newEqualityDeleteWriter(
        EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      throw new UnsupportedOperationException("DataFileWriter writes data files only");
    }

    @Override
    public PositionDeleteWriter<Record> newPositionDeleteWriter(
        EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      throw new UnsupportedOperationException("DataFileWriter writes data files only");
    }
  }

  /** Options of a {@link DataFileWriter}. */
  public static final class Builder {
    private final Table table;
    private long targetFileSizeBytes;
    private long maxRowsPerFile = Long.MAX_VALUE;
    private int maxOpenPartitions = 100;
    private int sortBufferRows = 1_000_000;
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
  }
}
