package io.sqe.write.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.apache.iceberg.util.StructLikeWrapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitioning, rolling and sorting of {@link DataFileWriter}, for rows of any representation
 * {@code T} that an Iceberg {@link FileWriterFactory} writes: each partition has its own rolling
 * writer, at most {@code maxOpenPartitions} at once; rows of a sorted table wait in a buffer of
 * {@code sortBufferRows} (the write's first buffer a quarter of that, see {@link #bufferLimit}),
 * each partition's in a {@link SortBuffer} of their representation, and are sorted and written as
 * files of their own.
 *
 * <p>With a background executor, a full buffer is sorted and written there while the next one
 * fills: the buffer's rows are taken where it is full (so files end at the same rows), and its
 * writing starts once the caller says the batch being written has passed ({@link #startDue}), so
 * that the background thread only ever touches rows of batches the caller is done with. At most one
 * buffer is written in the background: the next waits for it. Otherwise not thread-safe.
 */
final class PartitionedFiles<T> {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionedFiles.class);

  /** The rows of one partition waiting in a sorted table's buffer, in the representation they came in. */
  interface SortBuffer<T> {
    /** Keeps {@code row}, which the caller may reuse once this returns, until it is written or released. */
    void add(T row);

    int size();

    /**
     * Sorts the rows by the table's sort order, stably, and hands them to {@code writer} in that
     * order while {@code more} holds; a row handed over may change once the call returns.
     */
    void writeSorted(Consumer<T> writer, BooleanSupplier more);

    /** Lets go of every row kept, written or not. */
    void release();
  }

  /** A sort buffer of rows the writer may keep as they are (a new object for each). */
  static final class ListBuffer<T> implements SortBuffer<T> {
    private final Comparator<T> order;
    private final List<T> rows = new ArrayList<>();

    ListBuffer(Comparator<T> order) {
      this.order = order;
    }

    @Override
    public void add(T row) {
      rows.add(row);
    }

    @Override
    public int size() {
      return rows.size();
    }

    @Override
    public void writeSorted(Consumer<T> writer, BooleanSupplier more) {
      rows.sort(order);
      for (int i = 0; i < rows.size() && more.getAsBoolean(); i++) {
        writer.accept(rows.get(i));
      }
    }

    @Override
    public void release() {
      rows.clear();
    }
  }

  private final Table table;
  private final PartitionSpec spec;
  private final long targetFileSizeBytes;
  private final long maxRowsPerFile;
  private final int maxOpenPartitions;
  private final int sortBufferRows;
  /** Makes a partition's sort buffer; null for an unsorted table. */
  private final Supplier<SortBuffer<T>> sortBuffers;
  private final Function<T, StructLike> internal;
  private final FileWriterFactory<T> writers;
  private final OutputFileFactory outputFiles;
  private final PartitionKey key;
  private final StructLikeWrapper lookup;
  private final LinkedHashMap<StructLikeWrapper, PartitionFiles> open = new LinkedHashMap<>(16, 0.75f, true);
  private final List<DataFile> done = Collections.synchronizedList(new ArrayList<>());
  /** Where full buffers are written while the next fills; null: by the caller. */
  private final Executor background;
  /** Full buffers taken, to be written once the batch being written has passed. */
  private List<Sorted> due = new ArrayList<>();
  /** The buffers being written in the background, if any. */
  private CompletableFuture<Void> writing;
  private volatile boolean abandoned;
  private PartitionFiles unpartitioned;
  private int buffered;
  /** Whether the buffer being filled is the write's first, which holds a quarter of the others. */
  private boolean firstBuffer = true;
  private long rowCount;
  private boolean finished;

  /**
   * @param sortBuffers makes a partition's buffer of rows waiting to be sorted, for a sorted table;
   *     null for an unsorted one
   * @param internal the row as Iceberg's partition transforms read it: internal values
   * @param paths where every file any of its writers starts is added
   * @param background where full sort buffers are written while the next fills, or null
   */
  PartitionedFiles(
      Table table,
      DataFileWriter.Builder options,
      FileWriterFactory<T> writers,
      Supplier<SortBuffer<T>> sortBuffers,
      Function<T, StructLike> internal,
      OutputFileFactory outputFiles,
      Set<String> paths,
      Executor background) {
    this.background = background;
    this.table = table;
    this.spec = table.spec();
    this.targetFileSizeBytes = options.targetFileSizeBytes();
    this.maxRowsPerFile = options.maxRowsPerFile();
    this.maxOpenPartitions = options.maxOpenPartitions();
    this.sortBufferRows = options.sortBufferRows();
    this.sortBuffers = sortBuffers;
    this.internal = internal;
    this.writers = new TrackingWriterFactory<>(writers, paths);
    this.outputFiles = outputFiles;
    Schema schema = table.schema();
    if (spec.isUnpartitioned()) {
      this.key = null;
      this.lookup = null;
    } else {
      this.key = new PartitionKey(spec, schema);
      this.lookup = StructLikeWrapper.forType(spec.partitionType());
    }
  }

  /** Writes one row, which must have the table's schema. */
  void write(T row) {
    Preconditions.checkState(!finished, "Writer of %s is finished", table.name());
    partitionFiles(row).write(row);
    rowCount++;
  }

  long rowCount() {
    return rowCount;
  }

  /** Rows waiting in the sort buffer. */
  int buffered() {
    return buffered;
  }

  /** Writes what is buffered, closes every file and returns them; takes no more rows. */
  List<DataFile> complete() {
    Preconditions.checkState(!finished, "Writer of %s is finished", table.name());
    writeDue();
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

  /** Closes every open file and drops the buffered rows; best effort, never throws. */
  void abandon() {
    finished = true;
    abandoned = true;
    try {
      awaitWriting();
    } catch (RuntimeException | Error e) {
      LOG.debug("Ignoring the failure of an abandoned write to {}", table.name(), e);
    }
    for (Sorted buffer : due) {
      buffer.rows.release();
    }
    due = new ArrayList<>();
    List<PartitionFiles> all = new ArrayList<>(open.values());
    if (unpartitioned != null) {
      all.add(unpartitioned);
    }
    for (PartitionFiles files : all) {
      files.abandon();
    }
    open.clear();
  }

  private PartitionFiles partitionFiles(T row) {
    if (key == null) {
      if (unpartitioned == null) {
        unpartitioned = new PartitionFiles(null);
      }
      return unpartitioned;
    }
    key.partition(internal.apply(row));
    PartitionFiles files = open.get(lookup.set(key));
    if (files == null) {
      if (open.size() >= maxOpenPartitions) {
        Iterator<PartitionFiles> eldest = open.values().iterator();
        PartitionFiles closing = eldest.next();
        eldest.remove();
        writeDue();
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
    if (buffered < bufferLimit(sortBufferRows)) {
      return;
    }
    flushAll();
  }

  /**
   * What the buffer being filled may hold, of {@code limit} for a full one: a quarter for the
   * write's first buffer, so that the first files are written (in the background, while the next
   * buffer fills) after a quarter of the wait for a full buffer, when nothing else is written yet.
   */
  long bufferLimit(long limit) {
    return firstBuffer ? Math.max(1, limit / 4) : limit;
  }

  /**
   * Sorts and writes every buffered row, closing the files they go to; with a background executor,
   * takes them to be written there once the batch being written has passed ({@link #startDue}).
   */
  void flushAll() {
    firstBuffer = false;
    if (background == null) {
      if (unpartitioned != null) {
        unpartitioned.finish();
      }
      for (PartitionFiles files : open.values()) {
        files.finish();
      }
      return;
    }
    // Buffers taken in this batch already, when a buffer holds less than a batch: written here.
    writeDue();
    List<PartitionFiles> all = new ArrayList<>(open.values());
    if (unpartitioned != null) {
      all.add(unpartitioned);
    }
    for (PartitionFiles files : all) {
      if (files.pending.size() > 0) {
        due.add(files.take());
      }
    }
  }

  /**
   * The batch being written has passed: starts writing the buffers taken since in the background,
   * after the buffers written there before are done.
   */
  void startDue() {
    if (due.isEmpty()) {
      return;
    }
    awaitWriting();
    List<Sorted> buffers = due;
    due = new ArrayList<>();
    writing = CompletableFuture.runAsync(() -> buffers.forEach(this::writeSorted), background);
  }

  /** Waits for the buffers written in the background, then writes those taken since, here. */
  private void writeDue() {
    awaitWriting();
    List<Sorted> buffers = due;
    due = new ArrayList<>();
    buffers.forEach(this::writeSorted);
  }

  /** Waits for the buffers being written in the background, even when interrupted, and rethrows what failed there. */
  private void awaitWriting() {
    CompletableFuture<Void> pending = writing;
    if (pending == null) {
      return;
    }
    writing = null;
    boolean interrupted = false;
    try {
      while (true) {
        try {
          pending.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (cause instanceof Error error) {
            throw error;
          }
          throw new IllegalStateException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A full buffer's rows of one partition, to be sorted and written as files of their own. */
  private final class Sorted {
    private final StructLike partition;
    private final SortBuffer<T> rows;

    Sorted(StructLike partition, SortBuffer<T> rows) {
      this.partition = partition;
      this.rows = rows;
    }
  }

  /** Sorts a buffer's rows and writes them as files of their own; releases them, written or not. */
  private void writeSorted(Sorted buffer) {
    Rolling files = new Rolling(buffer.partition);
    try {
      buffer.rows.writeSorted(files::write, () -> !abandoned);
      files.close();
    } finally {
      files.abandon();
      buffer.rows.release();
    }
  }

  /** A partition's rolling writer: opened at its first row, closed at {@code maxRowsPerFile} rows. */
  private final class Rolling {
    private final StructLike partition;
    private RollingDataWriter<T> writer;

    Rolling(StructLike partition) {
      this.partition = partition;
    }

    void write(T row) {
      if (writer == null) {
        writer = new RollingDataWriter<>(writers, outputFiles, table.io(), targetFileSizeBytes, spec, partition);
      }
      writer.write(row);
      if (writer.currentFileRows() >= maxRowsPerFile) {
        close();
      }
    }

    /** Closes the open file, if any, and adds the files written to the done ones. */
    void close() {
      if (writer != null) {
        RollingDataWriter<T> closing = writer;
        writer = null;
        try {
          closing.close();
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot close data file " + closing.currentFilePath(), e);
        }
        done.addAll(closing.result().dataFiles());
      }
    }

    /** Closes the open file, if any, so that it can be deleted; its content no longer matters. */
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

  /** The files of one partition: a rolling writer, and for sorted tables the rows waiting to be sorted. */
  private final class PartitionFiles {
    private final StructLike partition;
    private final Rolling files;
    private SortBuffer<T> pending;

    PartitionFiles(StructLike partition) {
      this.partition = partition;
      this.files = new Rolling(partition);
      this.pending = sortBuffers == null ? null : sortBuffers.get();
    }

    void write(T row) {
      if (pending == null) {
        files.write(row);
        return;
      }
      pending.add(row);
      buffered++;
      flushAllIfFull();
    }

    /** Writes the pending rows, sorted, and closes the files, so each one is sorted as a whole. */
    void finish() {
      if (pending != null && pending.size() > 0) {
        writeSorted(take());
      }
      files.close();
    }

    /** The pending rows, which leave the buffer. */
    Sorted take() {
      Sorted buffer = new Sorted(partition, pending);
      buffered -= pending.size();
      pending = sortBuffers.get();
      return buffer;
    }

    /** Drops the pending rows and closes the open file so that it can be deleted. */
    void abandon() {
      if (pending != null) {
        buffered -= pending.size();
        pending.release();
        pending = sortBuffers.get();
      }
      files.abandon();
    }
  }

  /** Remembers every data file a writer opens, so a failed write can delete all of them. */
  private static final class TrackingWriterFactory<T> implements FileWriterFactory<T> {
    private final FileWriterFactory<T> delegate;
    private final Set<String> paths;

    TrackingWriterFactory(FileWriterFactory<T> delegate, Set<String> paths) {
      this.delegate = delegate;
      this.paths = paths;
    }

    @Override
    public DataWriter<T> newDataWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      paths.add(file.encryptingOutputFile().location());
      return delegate.newDataWriter(file, spec, partition);
    }

    @Override
    public EqualityDeleteWriter<T> newEqualityDeleteWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      throw new UnsupportedOperationException("DataFileWriter writes data files only");
    }

    @Override
    public PositionDeleteWriter<T> newPositionDeleteWriter(EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
      throw new UnsupportedOperationException("DataFileWriter writes data files only");
    }
  }
}
