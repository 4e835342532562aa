package io.sqe.sample;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.StructLikeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends rows to an Iceberg table as Parquet data files with column metrics, committed as one
 * {@code newAppend()} snapshot.
 *
 * <p>Rows must have the table's current schema, with Java values as Iceberg's generic records hold
 * them ({@code LocalDate}, {@code BigDecimal} of the column's scale, ...). They are split by the
 * table's partition spec. Within a partition a file rolls over at the table's {@code
 * write.target-file-size-bytes} (checked every 1000 rows, so files overshoot a little) or after
 * {@link Builder#maxRowsPerFile(long)} rows. Several row streams can be written in parallel and
 * still land in one commit. If writing or committing fails, every file written so far is deleted
 * and the table keeps its current snapshot; only when the outcome of the commit is unknown ({@code
 * CommitStateUnknownException}) are the files kept, as the table may use them.
 */
public final class IcebergAppender {
  private static final Logger LOG = LoggerFactory.getLogger(IcebergAppender.class);
  private static final AtomicInteger THREAD_IDS = new AtomicInteger();

  private final Table table;
  private final long targetFileSizeBytes;
  private final long maxRowsPerFile;
  private final int parallelism;
  private final Map<String, String> snapshotProperties;

  private IcebergAppender(Builder builder) {
    this.table = builder.table;
    this.targetFileSizeBytes = builder.targetFileSizeBytes;
    this.maxRowsPerFile = builder.maxRowsPerFile;
    this.parallelism = builder.parallelism;
    this.snapshotProperties = Map.copyOf(builder.snapshotProperties);
  }

  public static Builder builder(Table table) {
    return new Builder(table);
  }

  /** Writes the rows and commits them as one append; commits nothing when there are no rows. */
  public AppendResult append(Iterable<? extends Record> rows) {
    return appendStreams(List.of(rows));
  }

  /**
   * Writes each stream with its own writers, up to {@code parallelism} streams at a time, and
   * commits the files of all streams as one append; commits nothing when there are no rows.
   */
  public AppendResult appendStreams(List<? extends Iterable<? extends Record>> streams) {
    requireNonNull(streams, "streams is null");
    Set<String> writtenPaths = ConcurrentHashMap.newKeySet();
    List<DataFile> files;
    try {
      files = writeStreams(streams, new TrackingWriterFactory(writerFactory(), writtenPaths));
    } catch (RuntimeException | Error e) {
      deleteQuietly(writtenPaths, e);
      throw e;
    }
    if (files.isEmpty()) {
      return new AppendResult(OptionalLong.empty(), List.of(), 0);
    }
    long rows = files.stream().mapToLong(DataFile::recordCount).sum();

    AppendFiles append = table.newAppend();
    files.forEach(append::appendFile);
    snapshotProperties.forEach(append::set);
    try {
      append.commit();
    } catch (CommitStateUnknownException e) {
      // The commit may have succeeded, so the files may be live: keep them.
      throw e;
    } catch (RuntimeException | Error e) {
      deleteQuietly(writtenPaths, e);
      throw e;
    }
    return new AppendResult(OptionalLong.of(table.currentSnapshot().snapshotId()), files, rows);
  }

  private FileWriterFactory<Record> writerFactory() {
    return new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET)
        .dataSchema(table.schema())
        .dataSortOrder(table.sortOrder())
        .build();
  }

  private List<DataFile> writeStreams(
      List<? extends Iterable<? extends Record>> streams, FileWriterFactory<Record> writers) {
    String operationId = UUID.randomUUID().toString();
    int threads = Math.min(parallelism, streams.size());
    AtomicBoolean stop = new AtomicBoolean();
    if (threads <= 1) {
      List<DataFile> files = new ArrayList<>();
      for (int i = 0; i < streams.size(); i++) {
        files.addAll(new StreamWriter(writers, operationId, i, stop).write(streams.get(i)));
      }
      return files;
    }

    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            task -> {
              Thread thread = new Thread(task, "iceberg-appender-" + THREAD_IDS.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    try {
      List<Future<List<DataFile>>> futures = new ArrayList<>();
      for (int i = 0; i < streams.size(); i++) {
        Iterable<? extends Record> stream = streams.get(i);
        StreamWriter writer = new StreamWriter(writers, operationId, i, stop);
        futures.add(pool.submit(() -> writer.write(stream)));
      }
      return collect(futures, stop);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Waits for every stream, so that no writer is still creating files when cleanup starts. */
  private static List<DataFile> collect(List<Future<List<DataFile>>> futures, AtomicBoolean stop) {
    List<DataFile> files = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    boolean interrupted = false;
    for (Future<List<DataFile>> future : futures) {
      while (true) {
        try {
          files.addAll(future.get());
          break;
        } catch (InterruptedException e) {
          interrupted = true;
          stop.set(true);
          failures.add(e);
        } catch (ExecutionException e) {
          failures.add(e.getCause());
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (failures.isEmpty()) {
      return files;
    }
    // Streams stopped because of another stream's failure only add noise.
    List<Throwable> causes =
        failures.stream().filter(e -> !(e instanceof StreamCancelledException)).toList();
    Throwable primary = causes.isEmpty() ? failures.get(0) : causes.get(0);
    causes.stream().skip(1).forEach(primary::addSuppressed);
    if (primary instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (primary instanceof Error error) {
      throw error;
    }
    throw new IllegalStateException("Writing data files failed", primary);
  }

  private void deleteQuietly(Set<String> paths, Throwable cause) {
    for (String path : paths) {
      try {
        table.io().deleteFile(path);
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete data file {} of a failed append to {}", path, table.name(), e);
        cause.addSuppressed(e);
      }
    }
  }

  /** Writes one stream of rows: one rolling writer per partition the stream touches. */
  private final class StreamWriter {
    private final FileWriterFactory<Record> writers;
    private final OutputFileFactory outputFiles;
    private final AtomicBoolean stop;
    private final PartitionSpec spec = table.spec();
    private final PartitionKey key;
    private final InternalRecordWrapper wrapper;
    private final Map<StructLike, PartitionFiles> partitions;
    private final PartitionFiles unpartitioned;
    private final List<DataFile> done = new ArrayList<>();

    StreamWriter(
        FileWriterFactory<Record> writers, String operationId, int streamId, AtomicBoolean stop) {
      this.writers = writers;
      this.outputFiles =
          OutputFileFactory.builderFor(table, streamId, 0)
              .format(FileFormat.PARQUET)
              .operationId(operationId)
              .build();
      this.stop = stop;
      this.partitions = StructLikeMap.create(spec.partitionType());
      if (spec.isUnpartitioned()) {
        this.key = null;
        this.wrapper = null;
        this.unpartitioned = new PartitionFiles(null);
      } else {
        this.key = new PartitionKey(spec, table.schema());
        // Partition transforms expect Iceberg's internal values, not java.time objects.
        this.wrapper = new InternalRecordWrapper(table.schema().asStruct());
        this.unpartitioned = null;
      }
    }

    List<DataFile> write(Iterable<? extends Record> rows) {
      boolean completed = false;
      try {
        for (Record row : rows) {
          if (stop.get()) {
            throw new StreamCancelledException();
          }
          partitionFiles(row).write(row);
        }
        for (PartitionFiles files : allPartitions()) {
          files.finish();
        }
        completed = true;
        return done;
      } finally {
        if (!completed) {
          stop.set(true);
          for (PartitionFiles files : allPartitions()) {
            files.abandon();
          }
        }
      }
    }

    private Collection<PartitionFiles> allPartitions() {
      return unpartitioned != null ? List.of(unpartitioned) : partitions.values();
    }

    private PartitionFiles partitionFiles(Record row) {
      if (unpartitioned != null) {
        return unpartitioned;
      }
      key.partition(wrapper.wrap(row));
      PartitionFiles files = partitions.get(key);
      if (files == null) {
        PartitionKey partition = key.copy();
        files = new PartitionFiles(partition);
        partitions.put(partition, files);
      }
      return files;
    }

    /**
     * The files of one partition; a new rolling writer starts after {@code maxRowsPerFile} rows.
     */
    private final class PartitionFiles {
      private final StructLike partition;
      private RollingDataWriter<Record> writer;

      PartitionFiles(StructLike partition) {
        this.partition = partition;
      }

      void write(Record row) {
        if (writer == null) {
          writer =
              new RollingDataWriter<>(
                  writers, outputFiles, table.io(), targetFileSizeBytes, spec, partition);
        }
        writer.write(row);
        if (writer.currentFileRows() >= maxRowsPerFile) {
          finish();
        }
      }

      void finish() {
        if (writer != null) {
          RollingDataWriter<Record> closing = writer;
          writer = null;
          try {
            closing.close();
          } catch (IOException e) {
            throw new UncheckedIOException(
                "Cannot close data file " + closing.currentFilePath(), e);
          }
          done.addAll(closing.result().dataFiles());
        }
      }

      /** Closes the open file so that it can be deleted; its content no longer matters. */
      void abandon() {
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
  }

  /** Remembers every data file a writer opens, so a failed append can delete all of them. */
  private static final class TrackingWriterFactory implements FileWriterFactory<Record> {
    private final FileWriterFactory<Record> delegate;
    private final Set<String> paths;

    TrackingWriterFactory(FileWriterFactory<Record> delegate, Set<String> paths) {
      this.delegate = delegate;
      this.paths = paths;
    }

    @Override
    public DataWriter<Record> newDataWriter(
        EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      paths.add(file.encryptingOutputFile().location());
      return delegate.newDataWriter(file, spec, partition);
    }

    @Override
    public EqualityDeleteWriter<Record> newEqualityDeleteWriter(
        EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      throw new UnsupportedOperationException("IcebergAppender writes data files only");
    }

    @Override
    public PositionDeleteWriter<Record> newPositionDeleteWriter(
        EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      throw new UnsupportedOperationException("IcebergAppender writes data files only");
    }
  }

  /** Stops a stream because another stream of the same append failed. */
  private static final class StreamCancelledException extends RuntimeException {
    StreamCancelledException() {
      super("Append cancelled because another stream failed", null, false, false);
    }
  }

  /**
   * What one append wrote: the snapshot it committed (none when there were no rows) and its files.
   */
  public record AppendResult(OptionalLong snapshotId, List<DataFile> dataFiles, long rowCount) {
    public AppendResult {
      requireNonNull(snapshotId, "snapshotId is null");
      dataFiles = List.copyOf(dataFiles);
    }
  }

  /** Options of an {@link IcebergAppender}. */
  public static final class Builder {
    private final Table table;
    private long targetFileSizeBytes;
    private long maxRowsPerFile = Long.MAX_VALUE;
    private int parallelism = 1;
    private final Map<String, String> snapshotProperties = new LinkedHashMap<>();

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
    public Builder maxRowsPerFile(long rows) {
      Preconditions.checkArgument(rows > 0, "Invalid max rows per file: %s", rows);
      this.maxRowsPerFile = rows;
      return this;
    }

    /** How many streams are written at the same time; 1 by default. */
    public Builder parallelism(int threads) {
      Preconditions.checkArgument(threads > 0, "Invalid parallelism: %s", threads);
      this.parallelism = threads;
      return this;
    }

    /** Adds a property to the summary of the committed snapshot. */
    public Builder snapshotProperty(String key, String value) {
      snapshotProperties.put(
          requireNonNull(key, "key is null"), requireNonNull(value, "value is null"));
      return this;
    }

    public IcebergAppender build() {
      return new IcebergAppender(this);
    }
  }
}
