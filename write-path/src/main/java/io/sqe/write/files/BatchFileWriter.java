package io.sqe.write.files;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;

/**
 * Writes the record batches of a query as new data files of a table, as {@link DataFileWriter}
 * writes records: the same partitioning, rolling at the target size, sort buffer and cleanup, and
 * files Iceberg's Parquet writer makes with the table's properties and metrics; but each value goes
 * from its Arrow vector to parquet-mr's column writer, with no {@code Record} or Java object per
 * value. A sorted table's buffer keeps the batches whose rows wait to be sorted, up to {@link
 * DataFileWriter.Builder#sortBufferRows} rows or {@link DataFileWriter.Builder#sortBufferBytes}
 * bytes of Arrow buffers; a full buffer is sorted and written on a thread of its own while the
 * next one fills ({@link PartitionedFiles}), so the query's scan and the files' encoding overlap.
 * Not thread-safe.
 */
public final class BatchFileWriter implements Closeable {
  /** Where a sorted table's full buffers are written while the next fills. */
  private static final ExecutorService SORTED_WRITES = Executors.newCachedThreadPool(new ThreadFactory() {
    private final AtomicInteger ids = new AtomicInteger();

    @Override
    public Thread newThread(Runnable task) {
      Thread thread = new Thread(task, "sqe-write-sorted-" + ids.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    }
  });

  private final Table table;
  private final Layout layout;
  private final long sortBufferBytes;
  private final Set<String> paths = ConcurrentHashMap.newKeySet();
  private final PartitionedFiles<BatchRow> files;
  /** Bytes of the batches with rows in the sort buffer being filled (a batch split between two buffers counts in both). */
  private long bufferedBytes;
  private boolean finished;

  /**
   * Which batch column feeds each column of a table, and how; made once for a statement by {@link
   * #layout}.
   */
  public static final class Layout {
    private final Schema schema;
    /** For each table column, the batch column that holds its values, or -1 for none (NULL). */
    private final int[] sources;
    private final VectorColumn.Binding[] bindings;

    private Layout(Schema schema, int[] sources, VectorColumn.Binding[] bindings) {
      this.schema = schema;
      this.sources = sources;
      this.bindings = bindings;
    }

    /** The vectors of {@code batch} as the table's columns; fails when a NOT NULL column holds a null. */
    VectorColumn[] bind(VectorSchemaRoot batch) {
      VectorColumn[] columns = new VectorColumn[sources.length];
      for (int i = 0; i < columns.length; i++) {
        columns[i] = sources[i] < 0 ? VectorColumn.NULLS.bind(null) : bindings[i].bind(batch.getVector(sources[i]));
        Types.NestedField field = schema.columns().get(i);
        if (field.isRequired() && columns[i].hasNulls()) {
          throw WriteErrors.notNull(field.name());
        }
      }
      return columns;
    }
  }

  /**
   * How batches of {@code batchSchema} become rows of {@code table} when batch column {@code i}
   * holds the values of the table's column at position {@code targets[i]} and the others are NULL;
   * empty when the table's files are not Parquet, or a column's values need a conversion only the
   * row-at-a-time writer makes, or a NOT NULL column would get no values.
   */
  public static Optional<Layout> layout(Table table, org.apache.arrow.vector.types.pojo.Schema batchSchema, int[] targets) {
    requireNonNull(table, "table is null");
    String format = table.properties().getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT);
    if (FileFormat.fromString(format.toUpperCase(Locale.ROOT)) != FileFormat.PARQUET) {
      return Optional.empty();
    }
    Schema schema = table.schema();
    List<Types.NestedField> columns = schema.columns();
    List<Field> fields = batchSchema.getFields();
    if (targets.length != fields.size()) {
      throw new IllegalArgumentException("The batches have " + fields.size() + " columns for " + targets.length + " targets");
    }
    int[] sources = new int[columns.size()];
    Arrays.fill(sources, -1);
    VectorColumn.Binding[] bindings = new VectorColumn.Binding[columns.size()];
    for (int i = 0; i < targets.length; i++) {
      Optional<VectorColumn.Binding> binding = VectorColumn.binding(fields.get(i), columns.get(targets[i]));
      if (binding.isEmpty()) {
        return Optional.empty();
      }
      sources[targets[i]] = i;
      bindings[targets[i]] = binding.get();
    }
    for (int i = 0; i < columns.size(); i++) {
      if (sources[i] < 0 && (columns.get(i).isRequired() || !columns.get(i).type().isPrimitiveType())) {
        return Optional.empty();
      }
    }
    return Optional.of(new Layout(schema, sources, bindings));
  }

  BatchFileWriter(DataFileWriter.Builder builder, Layout layout) {
    this.table = builder.table();
    this.layout = requireNonNull(layout, "layout is null");
    this.sortBufferBytes = builder.sortBufferBytes();
    SortOrder order = table.sortOrder();
    BatchRowBuffer.Order sortOrder = order.isSorted() ? new BatchRowBuffer.Order(table.schema(), order) : null;
    this.files = new PartitionedFiles<>(
        table,
        builder,
        BatchRowFormat.writers(table, order.isSorted() ? order : SortOrder.unsorted()),
        sortOrder == null ? null : () -> new BatchRowBuffer(sortOrder),
        row -> row,
        builder.outputFiles(FileFormat.PARQUET),
        paths,
        order.isSorted() ? SORTED_WRITES : null);
  }

  /** Writes the rows of {@code batch}, which this writer owns from now on and closes. */
  public void write(VectorSchemaRoot batch) {
    BatchRows rows;
    try {
      rows = new BatchRows(batch, layout.bind(batch));
    } catch (RuntimeException | Error e) {
      batch.close();
      throw e;
    }
    int before = files.buffered();
    try {
      BatchRow row = new BatchRow(rows, 0);
      int count = rows.rowCount();
      for (int i = 0; i < count; i++) {
        row.moveTo(i);
        files.write(row);
      }
    } finally {
      rows.passed();
    }
    // The buffer was taken while this batch was written when it holds fewer rows than were added.
    boolean taken = files.buffered() < before + rows.rowCount();
    bufferedBytes = files.buffered() == 0 ? 0 : (taken ? 0 : bufferedBytes) + rows.bytes();
    if (files.buffered() > 0 && bufferedBytes >= files.bufferLimit(sortBufferBytes)) {
      files.flushAll();
      bufferedBytes = 0;
    }
    files.startDue();
  }

  /** Rows written so far. */
  public long rowCount() {
    return files.rowCount();
  }

  /** Every data file this writer started, including those of rows not yet complete. */
  public Set<String> paths() {
    return Set.copyOf(paths);
  }

  /** Writes what is buffered, closes every file and returns them; the writer takes no more batches. */
  public List<DataFile> complete() {
    List<DataFile> done = files.complete();
    finished = true;
    return done;
  }

  /**
   * Closes every open file, releases every batch it holds and deletes every file this writer
   * wrote; best effort, never throws.
   */
  public void abort() {
    finished = true;
    files.abandon();
    DataFileWriter.deleteFiles(table, paths);
  }

  /** Aborts unless {@link #complete()} was called. */
  @Override
  public void close() {
    if (!finished) {
      abort();
    }
  }
}
